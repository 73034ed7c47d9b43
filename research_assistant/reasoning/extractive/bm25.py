"""A small Okapi BM25 over a handful of candidate sentences, with an absolute normalization.

bm25s is built for large corpora; here the "corpus" is the few hundred
sentences retrieved for one sub-question, so a transparent implementation is
simpler, deterministic and as fast. Scores are also reported relative to the
*ideal* score of the query (every query term present once, at average length),
which makes them comparable across sub-questions and usable as a threshold.
"""

from __future__ import annotations

import math
from collections import Counter


class BM25:
    """BM25 with the always-positive idf variant `log(1 + (N - df + 0.5) / (df + 0.5))`."""

    def __init__(self, documents: list[list[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.counts = [Counter(doc) for doc in documents]
        self.lengths = [len(doc) for doc in documents]
        self.average_length = (sum(self.lengths) / len(self.lengths)) if self.lengths else 1.0
        self.document_frequency = Counter(term for counts in self.counts for term in counts)
        self.size = len(documents)

    def idf(self, term: str) -> float:
        df = self.document_frequency.get(term, 0)
        return math.log(1.0 + (self.size - df + 0.5) / (df + 0.5))

    def score(self, query: dict[str, float], index: int) -> float:
        """The BM25 score of document `index` for weighted query terms."""
        counts = self.counts[index]
        norm = self.k1 * (1.0 - self.b + self.b * self.lengths[index] / max(self.average_length, 1e-9))
        total = 0.0
        for term, weight in query.items():
            tf = counts.get(term, 0)
            if tf:
                total += weight * self.idf(term) * tf * (self.k1 + 1.0) / (tf + norm)
        return total

    def rarity(self, query: dict[str, float]) -> dict[str, float]:
        """Each query term's idf, except that a term no document holds gets the mean idf of those some do.

        A term found nowhere cannot tell documents apart; giving it the maximal idf would let it
        dominate every normalized score.
        """
        seen = [self.idf(t) for t in query if self.document_frequency.get(t, 0)]
        fallback = sum(seen) / len(seen) if seen else 1.0
        return {t: self.idf(t) if self.document_frequency.get(t, 0) else fallback for t in query}

    def ideal(self, query: dict[str, float]) -> float:
        """The score of an average-length document holding every query term once."""
        rarity = self.rarity(query)
        return sum(weight * rarity[term] for term, weight in query.items())

    def normalized(self, query: dict[str, float], index: int, core: dict[str, float] | None = None) -> float:
        """`score / ideal`, clipped to 0..1: 1.0 means the sentence holds the whole query.

        `core`, when given, is the part of the query the ideal is computed from (the query
        without its expansion terms), so that optional synonyms can add but never dilute.
        """
        ideal = self.ideal(core if core is not None else query)
        return min(1.0, self.score(query, index) / ideal) if ideal > 0 else 0.0
