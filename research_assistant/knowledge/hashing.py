"""The offline embedding's arithmetic: signed feature hashing of stemmed terms, term pairs and character 4-grams.

Kept free of LlamaIndex, so that the worker processes that embed chunks while a corpus is indexed
(`corpus/workers.py`) start quickly; `embeddings.HashingEmbedding` wraps it for the repository.

Texts are embedded a block at a time: Python only tokenizes each text and counts its terms and term pairs,
and numpy does the rest for the whole block in a few calls (merging the 4-grams that several terms share,
damping, hashing into slots, summing), which per text would cost more in numpy's call overhead than in
arithmetic. Each feature string is numbered once per process and its slot kept by number.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Sequence

import numpy as np

from research_assistant.text.tokens import content_terms, word_tokens

_FEATURES_KEPT = 1 << 20
"""Feature strings numbered per process; past this many (checked between blocks) they are all forgotten, so a
huge corpus's pairs do not pile up in memory."""
_BLOCK = 256
"""Texts embedded together."""


class _Numbered(dict[str, int]):
    """Feature strings numbered in the order first met, each number's string in `names`."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __missing__(self, feature: str) -> int:
        number = self[feature] = len(self.names)
        self.names.append(feature)
        return number


class _TermFeatures(dict[str, np.ndarray]):
    """A term's feature numbers: its word feature, then its character 4-grams in order."""

    def __init__(self, numbered: _Numbered) -> None:
        super().__init__()
        self.numbered = numbered

    def __missing__(self, term: str) -> np.ndarray:
        padded = f"<{term}>"
        features = ["w:" + term, *("c:" + padded[i : i + 4] for i in range(len(padded) - 3))]
        found = self[term] = np.array([self.numbered[feature] for feature in features], dtype=np.intp)
        return found


class _PairFeatures(dict[tuple[str, str], int]):
    """A pair of neighbouring terms' feature number."""

    def __init__(self, numbered: _Numbered) -> None:
        super().__init__()
        self.numbered = numbered

    def __missing__(self, pair: tuple[str, str]) -> int:
        found = self[pair] = self.numbered[f"p:{pair[0]} {pair[1]}"]
        return found


class _Terms(dict[str, str]):
    """A word token's content term (`tokens.content_terms` of the token alone), or "" for a stopword: a look-up
    instead of lower-casing, filtering and stemming each occurrence of a word again."""

    def __missing__(self, token: str) -> str:
        found = self[token] = " ".join(content_terms(token))  # one term or none: a token alone is one token
        return found


class _Features:
    """The numbered features of this process, and each one's slot and sign by vector size."""

    def __init__(self) -> None:
        self.words = _Terms()
        self.numbered = _Numbered()
        self.terms = _TermFeatures(self.numbered)
        self.pairs = _PairFeatures(self.numbered)
        self._buckets: dict[int, np.ndarray] = {}

    def buckets(self, dim: int) -> np.ndarray:
        """Each numbered feature's slot and sign as one number, (slot + 1) times the sign (never 0)."""
        known = self._buckets.get(dim, np.empty(0, dtype=np.intp))
        names = self.numbered.names
        if len(known) < len(names):
            new = np.fromiter((_bucket(name, dim) for name in names[len(known) :]), dtype=np.intp)
            known = self._buckets[dim] = np.concatenate([known, new])
        return known


def _bucket(feature: str, dim: int) -> int:
    """The vector slot and sign of a feature, as (slot + 1) times the sign (never 0)."""
    value = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
    return (value % dim + 1) * (1 if (value >> 63) & 1 else -1)


_features = _Features()


def hashing_vector(text: str, dim: int) -> np.ndarray:
    """The unit vector (float64) of a text: each feature's count, damped (1 + log) from one up, added with
    its sign into its slot. A word counts 1, each of its 4-grams 0.25, each pair of neighbouring terms 0.5."""
    return hashing_vectors([text], dim)[0]


def hashing_vectors(texts: Sequence[str], dim: int) -> np.ndarray:
    """The vectors of several texts, one row each (float64), as `hashing_vector` gives each."""
    global _features
    rows = np.zeros((len(texts), dim))
    for start in range(0, len(texts), _BLOCK):
        if len(_features.numbered) + len(_features.words) >= _FEATURES_KEPT:
            _features = _Features()
        _embed_block(texts[start : start + _BLOCK], dim, rows[start : start + _BLOCK], _features)
    return rows


def _embed_block(texts: Sequence[str], dim: int, rows: np.ndarray, features: _Features) -> None:
    """Fill `rows` (zeros, one per text) with the texts' vectors.

    A text's features are summed in the order they first occur in it (each distinct term's word and 4-grams,
    in the order the terms first occur, then each distinct pair of neighbouring terms), which is the order in
    which counting each occurrence one by one would meet them: collisions in a slot add up in that order, so
    the floats are those of the plain way, bit for bit. Counts are multiples of 0.25, summed exactly.
    """
    term_features: list[np.ndarray] = []
    term_numbers: list[int] = []
    term_text: list[int] = []
    pair_features: list[int] = []
    pair_numbers: list[int] = []
    pair_text: list[int] = []
    for row, text in enumerate(texts):
        terms = [term for term in map(features.words.__getitem__, word_tokens(text)) if term]  # content_terms(text)
        counted = Counter(terms)
        term_features.extend(map(features.terms.__getitem__, counted))
        term_numbers.extend(counted.values())
        term_text.extend(itertools.repeat(row, len(counted)))
        pairs = Counter(itertools.pairwise(terms))
        pair_features.extend(map(features.pairs.__getitem__, pairs))
        pair_numbers.extend(pairs.values())
        pair_text.extend(itertools.repeat(row, len(pairs)))
    if not term_features:
        return
    lengths = np.fromiter(map(len, term_features), dtype=np.intp, count=len(term_features))
    numbers = np.array(term_numbers, dtype=np.float64)
    # Every occurrence of a feature in a text, with its weight: a term's word counts its occurrences, each of
    # its 4-grams a quarter of them, a pair half of its occurrences.
    weights = np.repeat(numbers * 0.25, lengths)
    weights[np.cumsum(lengths) - lengths] = numbers
    occurrences = np.concatenate([*term_features, np.array(pair_features, dtype=np.intp)])
    weights = np.concatenate([weights, np.array(pair_numbers, dtype=np.float64) * 0.5])
    text_of = np.concatenate(
        [np.repeat(np.array(term_text, dtype=np.intp), lengths), np.array(pair_text, dtype=np.intp)]
    )
    # One entry per feature of each text, at its first occurrence, with the sum of its weights.
    keys = text_of * len(features.numbered) + occurrences
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    counts = np.bincount(inverse.reshape(-1), weights=weights)
    order = np.argsort(first, kind="stable")  # by text, then by first occurrence in it
    first = first[order]
    counts = counts[order]
    buckets = features.buckets(dim)[occurrences[first]]
    slots = np.abs(buckets) - 1
    signs = np.sign(buckets).astype(np.float64)  # exactly 1.0 or -1.0
    damped = np.where(counts >= 1.0, 1.0 + np.log(np.maximum(counts, 1.0)), counts) * signs
    rows[:] = np.bincount(text_of[first] * dim + slots, weights=damped, minlength=len(texts) * dim).reshape(-1, dim)
    for row in rows:
        norm = float(np.linalg.norm(row))
        if norm:
            row /= norm
