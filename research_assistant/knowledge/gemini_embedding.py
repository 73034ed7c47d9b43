"""Gemini's embedding model (langchain-google-genai) for the repository, with a deadline and a retry policy on
every request. Imported only when the 'gemini' embedding is chosen."""

from __future__ import annotations

from typing import Any

from google.genai.types import EmbedContentConfig, HttpOptions, HttpRetryOptions
from langchain_google_genai import GoogleGenerativeAIEmbeddings
from pydantic import Field

BATCH = 10
"""Texts per request (the batch LlamaIndex's embeddings used)."""


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


class GeminiEmbedding:
    """Gemini's embedding model: document vectors for chunks and sentences, query vectors for queries.
    `timeout`: seconds one request may take; `max_retries`: retries of a request on 408, 429 and 5xx."""

    def __init__(
        self,
        api_key: str,
        base_url: str = "",
        timeout: float = 90.0,
        max_retries: int = 2,
        model_name: str = "models/gemini-embedding-001",
    ) -> None:
        self.model_name = model_name
        self._embeddings = _Embeddings(
            model=model_name,
            google_api_key=api_key,
            base_url=base_url or None,
            timeout=timeout,
            attempts=max_retries + 1,
        )

    def get_text_embedding_batch(self, texts: list[str]) -> list[list[float]]:
        return self._embeddings.embed_documents(texts, batch_size=BATCH)

    def get_text_embedding(self, text: str) -> list[float]:
        return self.get_text_embedding_batch([text])[0]

    def get_query_embedding(self, query: str) -> list[float]:
        return self._embeddings.embed_query(query)
