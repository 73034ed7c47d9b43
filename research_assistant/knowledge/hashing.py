"""The offline embedding's arithmetic: signed feature hashing of stemmed terms, term pairs and character 4-grams.

Kept free of LlamaIndex, so that the worker processes that embed chunks while a corpus is indexed
(`corpus/workers.py`) start quickly; `embeddings.HashingEmbedding` wraps it for the repository.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from research_assistant.text.tokens import content_terms

_BUCKETS_KEPT = 1 << 20
_buckets: dict[int, dict[str, int]] = {}
"""By vector size: each feature's slot and sign as one number, (slot + 1) times the sign; kept, since words and
n-grams repeat across texts (a plain dict: its look-up costs a third of a cached function's call)."""


def _bucket(feature: str, dim: int) -> int:
    """The vector slot and sign of a feature, as (slot + 1) times the sign (never 0)."""
    digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    found = _buckets.setdefault(dim, {})
    if len(found) >= _BUCKETS_KEPT:
        found.clear()
    bucket = found[feature] = (value % dim + 1) * (1 if (value >> 63) & 1 else -1)
    return bucket


@lru_cache(maxsize=1 << 18)
def _term_features(term: str) -> tuple[str, tuple[str, ...]]:
    """A term's word feature and its character 4-gram features."""
    padded = f"<{term}>"
    return "w:" + term, tuple("c:" + padded[i : i + 4] for i in range(len(padded) - 3))


def hashing_vector(text: str, dim: int) -> np.ndarray:
    """The unit vector (float64) of a text: each feature's count, damped (1 + log) from one up, added with
    its sign into its slot. A word counts 1, each of its 4-grams 0.25, each pair of neighbouring terms 0.5.

    Counts are summed per distinct term and pair, times its number of occurrences: the same float sums
    (multiples of 0.25 are exact), with the features in the order they first occur, as adding each
    occurrence one by one would give.
    """
    terms = content_terms(text)
    counts: dict[str, float] = {}
    get = counts.get
    for term, number in Counter(terms).items():
        word, grams = _term_features(term)
        counts[word] = float(number)  # "w:" features are one per distinct term
        quarter = 0.25 * number
        for gram in grams:
            counts[gram] = get(gram, 0.0) + quarter
    for (left, right), number in Counter(itertools.pairwise(terms)).items():
        counts[f"p:{left} {right}"] = 0.5 * number  # "p:" features are one per distinct pair
    if not counts:
        return np.zeros(dim)
    known = _buckets.get(dim, {}).get
    buckets = np.array([known(feature) or _bucket(feature, dim) for feature in counts], dtype=np.intp)
    slots = np.abs(buckets) - 1
    signs = np.sign(buckets).astype(np.float64)  # exactly 1.0 or -1.0
    weights = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
    weights = np.where(weights >= 1.0, 1.0 + np.log(np.maximum(weights, 1.0)), weights) * signs
    vector = np.bincount(slots, weights=weights, minlength=dim)
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm else vector


def hashing_vectors(texts: Sequence[str], dim: int) -> np.ndarray:
    """The vectors of several texts, one row each (float64)."""
    rows = np.empty((len(texts), dim))
    for row, text in enumerate(texts):
        rows[row] = hashing_vector(text, dim)
    return rows
