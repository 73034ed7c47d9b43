"""Embedding models for the research repository.

The offline default is a feature-hashing embedding: deterministic, instant,
and needing no download. It captures lexical similarity (stemmed words, word
pairs and character n-grams), which together with BM25 gives useful hybrid
retrieval. Other models plug in through LlamaIndex's `BaseEmbedding`; the
model's `model_name` is recorded with the collection so vectors from different
models never mix.
"""

from __future__ import annotations

from llama_index.core.embeddings import BaseEmbedding
from pydantic import Field

from research_assistant.knowledge.hashing import hashing_vector


class HashingEmbedding(BaseEmbedding):
    """Signed feature hashing of stemmed terms, term pairs and character 4-grams."""

    dim: int = Field(default=512, description="Vector size.")

    def __init__(self, dim: int = 512, **kwargs: object) -> None:
        super().__init__(dim=dim, model_name=f"hashing-v1-{dim}", **kwargs)

    @classmethod
    def class_name(cls) -> str:
        return "HashingEmbedding"

    def embed(self, text: str) -> list[float]:
        return hashing_vector(text, self.dim).tolist()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self.embed(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self.embed(text)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [hashing_vector(text, self.dim).tolist() for text in texts]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self.embed(query)


class EmbeddingUnavailable(Exception):
    """The configured embedding model cannot be used here; the message says why, in one line."""


class ChromaOnnxEmbedding(BaseEmbedding):
    """Chroma's ONNX all-MiniLM-L6-v2 sentence embedding: semantic, but its model is downloaded on first
    use (to ~/.cache/chroma), so it works only where that download succeeded once."""

    def __init__(self) -> None:
        super().__init__(model_name="chroma-onnx-all-MiniLM-L6-v2")
        from chromadb.utils.embedding_functions import ONNXMiniLM_L6_V2

        self._function = ONNXMiniLM_L6_V2()
        try:
            self._function(["probe"])  # loads the model, downloading it if it is not there yet
        except Exception as error:
            raise EmbeddingUnavailable(
                f"embedding model 'chroma-onnx' is not available ({type(error).__name__}: {error}); "
                "set RESEARCH_EMBEDDING=hashing to work offline"
            ) from None

    @classmethod
    def class_name(cls) -> str:
        return "ChromaOnnxEmbedding"

    def _vectors(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in vector] for vector in self._function(texts)]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vectors([query])[0]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vectors([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._vectors(texts)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)


EMBEDDINGS = ("hashing", "chroma-onnx", "gemini")


def make_embedding(name: str) -> BaseEmbedding:
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
    return ChromaOnnxEmbedding() if name == "chroma-onnx" else HashingEmbedding()
