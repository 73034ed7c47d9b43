"""Embedding models for the research repository.

The offline default is a feature-hashing embedding: deterministic, instant,
and needing no download. It captures lexical similarity (stemmed words, word
pairs and character n-grams), which together with BM25 gives useful hybrid
retrieval. The other models, Chroma's ONNX sentence model (`chroma-onnx`) and
Gemini's (`gemini`), are imported only when chosen. None is a LlamaIndex
`BaseEmbedding`: nothing here uses LlamaIndex's embedding machinery, and making
one loads LlamaIndex's global settings, and with them all of LlamaIndex (chat
engines, agents, SQLAlchemy), about a second of CPU per process, for callbacks
nothing listens to. Each offers what the repository asks of an `Embedding`.
The model's `model_name` is recorded with the collection so vectors from
different models never mix.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel, ConfigDict, Field

from research_assistant.knowledge.hashing import hashing_vector, hashing_vectors

if TYPE_CHECKING:
    import numpy as np

_VECTORS_KEPT = 2048
"""Texts whose vectors `HashingEmbedding.get_text_embedding` keeps per process (about 4 KB each): the sentences a
run compares (about 80 in a quick run) come back when a question is asked again over the same sources."""


@lru_cache(maxsize=_VECTORS_KEPT)
def _kept_vector(text: str, dim: int) -> np.ndarray:
    vector = hashing_vector(text, dim)
    vector.flags.writeable = False
    return vector


class Embedding(Protocol):
    """What the repository and the reasoner ask of an embedding model (the names are LlamaIndex's, whose
    `BaseEmbedding` offers it too): document vectors one by one and in batches, and query vectors."""

    model_name: str

    def get_text_embedding(self, text: str) -> list[float]: ...

    def get_text_embedding_batch(self, texts: list[str]) -> list[list[float]]: ...

    def get_query_embedding(self, query: str) -> list[float]: ...


class HashingEmbedding(BaseModel):
    """Signed feature hashing of stemmed terms, term pairs and character 4-grams."""

    model_config = ConfigDict(protected_namespaces=())

    model_name: str = Field(description="The name the collection records; it names the vector size.")
    dim: int = Field(default=512, description="Vector size.")
    embed_batch_size: int = Field(default=10, gt=0, description="Texts per `_get_text_embeddings` call.")

    def __init__(self, dim: int = 512, **kwargs: object) -> None:
        super().__init__(dim=dim, model_name=f"hashing-v1-{dim}", **kwargs)

    def get_text_embedding(self, text: str) -> list[float]:
        """The text's vector; the most recent texts' vectors are kept (a chunk's, embedded once when it is stored,
        go through `get_text_embedding_batch` instead)."""
        return _kept_vector(text, self.dim).tolist()

    def get_query_embedding(self, query: str) -> list[float]:
        return self.get_text_embedding(query)

    def get_text_embedding_batch(self, texts: list[str]) -> list[list[float]]:
        """The texts' vectors, `embed_batch_size` texts per `_get_text_embeddings` call."""
        vectors: list[list[float]] = []
        for start in range(0, len(texts), self.embed_batch_size):
            vectors.extend(self._get_text_embeddings(texts[start : start + self.embed_batch_size]))
        return vectors

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return hashing_vectors(texts, self.dim).tolist()


HASHED_FUSION_WEIGHT = 0.5
"""How much a hashing embedding's ranking counts against BM25's when the two are fused: hashed terms are lexical
evidence much as BM25's are, only noisier, so a chunk that BM25 ranks first is not outvoted by chunks that both
rank middling (measured over the quality benchmark's dev questions: the answer is in the top 8 chunks for 124 of
144 at a half, 120 at full weight, 121 without vectors)."""


def fusion_weight(embedding: Embedding) -> float:
    """The weight of an embedding's rankings in fusion with BM25: a trained model's count in full."""
    return HASHED_FUSION_WEIGHT if isinstance(embedding, HashingEmbedding) else 1.0


class EmbeddingUnavailable(Exception):
    """The configured embedding model cannot be used here; the message says why, in one line."""


EMBEDDINGS = ("hashing", "chroma-onnx", "gemini")


def make_embedding(name: str) -> Embedding:
    """The embedding model a setting names: 'hashing' (offline default), 'chroma-onnx' or 'gemini'."""
    if name not in EMBEDDINGS:
        raise EmbeddingUnavailable(f"unknown embedding model {name!r}; choose one of: {', '.join(EMBEDDINGS)}")
    if name == "gemini":
        from research_assistant.knowledge.gemini_embedding import GeminiEmbedding
        from research_assistant.settings import get_settings

        settings = get_settings()
        if settings.gemini_api_key is None:
            raise EmbeddingUnavailable("embedding model 'gemini' needs a key: set GEMINI_API_KEY")
        return GeminiEmbedding(
            api_key=settings.gemini_api_key.get_secret_value(),
            base_url=settings.gemini_base_url,
            timeout=settings.llm_timeout,
            max_retries=settings.llm_max_retries,
        )
    if name == "chroma-onnx":
        from research_assistant.knowledge.onnx_embedding import ChromaOnnxEmbedding

        try:
            return ChromaOnnxEmbedding()
        except Exception as error:  # its model is downloaded on first use: offline, that fails
            raise EmbeddingUnavailable(
                f"embedding model 'chroma-onnx' is not available ({type(error).__name__}: {error}); "
                "set RESEARCH_EMBEDDING=hashing to work offline"
            ) from None
    return HashingEmbedding()
