"""Gemini's chat model (langchain-google-genai), without the stray coroutine a server error leaves behind.

The google-genai SDK makes its asynchronous calls with aiohttp whenever aiohttp is installed (LlamaIndex
and langchain-community bring it in). A 5xx reply then raises an error that carries the aiohttp response,
and LangChain, reporting the failed call to its callbacks, calls `response.json()` on it without awaiting:
that coroutine is never awaited, and Python prints "coroutine 'ClientResponse.json' was never awaited" on
stderr when it is collected. The SDK has read the body already (it is the error's `details`), so the
response is dropped from the error before LangChain sees it. Imported only when a Gemini model is built.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator
from typing import Any

from google.genai import errors as genai_errors
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_google_genai import ChatGoogleGenerativeAI


def detach_response(error: BaseException) -> None:
    """Drop an asynchronous response (one whose `json` is a coroutine) from `error` and the errors behind it."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        response = getattr(current, "response", None)
        if isinstance(current, genai_errors.APIError) and inspect.iscoroutinefunction(getattr(response, "json", None)):
            current.response = None
        current = current.__cause__ or current.__context__


class Gemini(ChatGoogleGenerativeAI):
    """`ChatGoogleGenerativeAI`, whose API errors reach LangChain without their aiohttp response."""

    async def _agenerate(self, *args: Any, **kwargs: Any) -> ChatResult:
        try:
            return await super()._agenerate(*args, **kwargs)
        except genai_errors.APIError as error:
            detach_response(error)
            raise

    async def _astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        try:
            async for chunk in super()._astream(*args, **kwargs):
                yield chunk
        except genai_errors.APIError as error:
            detach_response(error)
            raise
