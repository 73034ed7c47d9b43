"""Gemini's embedding model (langchain-google-genai) for the repository's LlamaIndex vector index, with a
deadline and a retry policy on every request. Imported only when the 'gemini' embedding is chosen."""

from __future__ import annotations

from typing import Any

from google.genai.types import EmbedContentConfig, HttpOptions, HttpRetryOptions
from langchain_google_genai import GoogleGenerativeAIEmbeddings
from llama_index.core.embeddings import BaseEmbedding
from pydantic import Field, PrivateAttr


class _Embeddings(GoogleGenerativeAIEmbeddings):
    """LangChain's Gemini embeddings, whose requests carry a deadline and google-genai's retries (on 408, 429
    and 5xx, with backoff), as the chat model's do; LangChain gives its embeddings neither."""

    timeout: float = Field(gt=0)
    """Seconds one request may take."""
    attempts: int = Field(ge=1)
    """Tries per request, the first included."""

    def _build_config(self, **options: Any) -> EmbedContentConfig:
        config = super()._build_config(**options)
        config.http_options = HttpOptions(
            timeout=int(self.timeout * 1000), retry_options=HttpRetryOptions(attempts=self.attempts)
        )
        return config


class GeminiEmbedding(BaseEmbedding):
    """Gemini's embedding model as a LlamaIndex embedding."""

    model_name: str = Field(default="models/gemini-embedding-001")
    api_key: str = Field(default="", exclude=True, repr=False)
    base_url: str = ""
    timeout: float = Field(default=90.0, gt=0, description="Seconds one request may take.")
    max_retries: int = Field(default=2, ge=0, description="Retries of a request on 408, 429 and 5xx.")
    _embeddings: _Embeddings | None = PrivateAttr(default=None)

    def _client(self) -> _Embeddings:
        if self._embeddings is None:
            self._embeddings = _Embeddings(
                model=self.model_name,
                google_api_key=self.api_key,
                base_url=self.base_url or None,
                timeout=self.timeout,
                attempts=self.max_retries + 1,
            )
        return self._embeddings

    @classmethod
    def class_name(cls) -> str:
        return "GeminiEmbedding"

    def _get_query_embedding(self, query: str) -> list[float]:
        return [float(x) for x in self._client().embed_query(query)]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in vector] for vector in self._client().embed_documents(texts)]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return [float(x) for x in await self._client().aembed_query(query)]
