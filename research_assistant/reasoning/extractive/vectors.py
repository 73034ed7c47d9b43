"""Sentence vectors: a cached wrapper around the embedding model, cosine similarity and MMR."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import numpy as np


class TextEmbedding(Protocol):
    """What the extractive reasoner asks of an embedding model: a text's document vector."""

    def get_text_embedding(self, text: str) -> list[float]: ...


class Embedder:
    """Unit vectors for texts, cached; works with any `TextEmbedding`, the hashing one by default."""

    def __init__(self, model: TextEmbedding | None = None, cache_size: int = 20000) -> None:
        if model is None:
            # Imported here: the embedding module imports NumPy, which analysis and planning do not need.
            from research_assistant.knowledge.embeddings import HashingEmbedding

            model = HashingEmbedding()
        self.model = model
        self._embed: Callable[[str], list[float]] = model.get_text_embedding
        self._cache: dict[str, np.ndarray] = {}
        self._cache_size = cache_size

    def vector(self, text: str) -> np.ndarray:
        cached = self._cache.get(text)
        if cached is not None:
            return cached
        import numpy as np  # here, not at the top: analysis and planning, a run's first steps, need no NumPy

        vector = np.asarray(self._embed(text), dtype=np.float64)
        norm = float(np.linalg.norm(vector))
        if norm > 0:
            vector = vector / norm
        if len(self._cache) >= self._cache_size:
            self._cache.pop(next(iter(self._cache)))
        self._cache[text] = vector
        return vector

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, 1))
        return np.vstack([self.vector(t) for t in texts])

    def similarity(self, a: str, b: str) -> float:
        return float(self.vector(a) @ self.vector(b))


def mmr(
    relevance: Sequence[float], similarity: np.ndarray, k: int, lambda_: float = 0.7, duplicate_threshold: float = 0.85
) -> list[int]:
    """Maximal marginal relevance: indices of up to `k` items, relevant yet unlike each other.

    Items at least `duplicate_threshold` similar to one already chosen are never chosen.
    Ties go to the lower index, so the result is deterministic.
    """
    import numpy as np

    chosen: list[int] = []
    remaining = list(range(len(relevance)))
    while remaining and len(chosen) < k:
        best, best_value = -1, -np.inf
        for i in remaining:
            redundancy = max((float(similarity[i, j]) for j in chosen), default=0.0)
            value = lambda_ * relevance[i] - (1.0 - lambda_) * redundancy
            if value > best_value + 1e-12:
                best, best_value = i, value
        remaining.remove(best)
        if any(float(similarity[best, j]) >= duplicate_threshold for j in chosen):
            continue
        chosen.append(best)
    return chosen
