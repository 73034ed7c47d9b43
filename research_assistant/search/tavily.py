"""Web and news search through Tavily, which answers with ranked results already scored in 0..1.

tavily-python's `AsyncTavilyClient` does the HTTP: `POST {base}/search` with the key in an
`Authorization: Bearer` header and a JSON body (`query`, `topic`, `max_results`). This module turns its
answers into `SearchResult`s and its exceptions into one-line `ProviderError`s. A client is made per
search (on an httpx client of ours, sharing one TLS context), because an httpx pool belongs to the event
loop that first used it and services outlive loops.
The key is held as a `SecretStr`, so no repr, message or log line can show it.
"""

from __future__ import annotations

import asyncio
from typing import Any, Literal

import httpx
from pydantic import SecretStr

from research_assistant.schemas import SearchResult, SourceType
from research_assistant.search.base import ProviderError, WebSearch
from research_assistant.search.normalize import (
    RawHit,
    base_url_of,
    http_client,
    status_error,
    timeout_message,
    to_results,
    transport_error,
    with_retries,
)

TavilyTopic = Literal["general", "news"]

_SERVICE = "Tavily"
_MAX_RESULTS = 20
"""Tavily's ceiling for `max_results`."""


class TavilyProvider(WebSearch):
    """The `SearchProvider` for Tavily's search API, on its general (web) or news topic."""

    def __init__(self, api_key: str, base_url: str, *, topic: TavilyTopic = "general", timeout: float = 20.0) -> None:
        if not api_key.strip():
            # An empty key would put tavily-python in its keyless mode: refuse instead of searching unauthenticated.
            raise ValueError("Tavily needs an API key")
        if topic not in ("general", "news"):
            raise ValueError(f"Tavily topic must be 'general' or 'news', not {topic!r}")
        self._api_key = SecretStr(api_key.strip())
        self.base_url = base_url_of(base_url, _SERVICE)
        self.topic: TavilyTopic = topic
        self.timeout = timeout
        self.name = "tavily-news" if topic == "news" else "tavily"
        self.source_types = frozenset({SourceType.NEWS if topic == "news" else SourceType.WEB})

    def __repr__(self) -> str:
        return f"TavilyProvider(base_url={self.base_url!r}, topic={self.topic!r}, timeout={self.timeout!r})"

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        """At most `limit` results (Tavily gives 20 at most), best first."""
        if limit <= 0 or not query.strip():
            return []
        items = _result_items(await with_retries(self._ask, query.strip(), min(limit, _MAX_RESULTS)))
        hits = [
            RawHit(
                url=item.get("url"),
                title=item.get("title"),
                snippet=str(item.get("content") or ""),
                score=item.get("score"),
                published=item.get("published_date"),
            )
            for item in items
        ]
        return to_results(hits, provider=self.name, source_type=next(iter(self.source_types)), limit=limit)

    async def _ask(self, query: str, max_results: int) -> object:
        """Tavily's decoded answer; every failure becomes a `ProviderError`."""
        # Imported here: tavily-python takes a noticeable time to import and only runs with a key configured. From
        # its submodules: its package's `__init__` imports its other clients too (`deferred.DEFERRED_INITS`).
        from tavily import errors as tavily_errors
        from tavily.async_tavily import AsyncTavilyClient

        # Our own httpx client (tavily-python adds its headers to it), so that it shares the TLS context. It does
        # not follow redirects, as tavily-python's own does not: an authenticated POST is not sent on elsewhere.
        http = http_client(timeout=self.timeout, base_url=self.base_url, follow_redirects=False)
        client = AsyncTavilyClient(api_key=self._api_key.get_secret_value(), api_base_url=self.base_url, client=http)
        try:
            async with http, asyncio.timeout(self.timeout):
                return await client.search(query, topic=self.topic, max_results=max_results, timeout=self.timeout)
        except (TimeoutError, tavily_errors.TimeoutError):
            raise ProviderError(timeout_message(_SERVICE, self.timeout)) from None
        except tavily_errors.InvalidAPIKeyError:
            raise status_error(_SERVICE, 401, keyed=True) from None
        except tavily_errors.UsageLimitExceededError:
            raise status_error(_SERVICE, 429, keyed=True) from None
        except tavily_errors.ForbiddenError:
            # tavily-python raises this for 403 and for 432/433, Tavily's plan and spending limits.
            raise ProviderError(f"{_SERVICE} refused the request (forbidden, or over the plan's limit)") from None
        except tavily_errors.BadRequestError:
            raise status_error(_SERVICE, 400, keyed=True) from None
        except httpx.HTTPStatusError as error:
            raise status_error(_SERVICE, error.response.status_code, keyed=True) from None
        except httpx.HTTPError as error:
            raise transport_error(_SERVICE, error, base_url=self.base_url, timeout=self.timeout) from None
        except (ValueError, TypeError, AttributeError, KeyError):
            # A 200 whose body is not a JSON object, or a status tavily-python does not expect.
            raise ProviderError(f"{_SERVICE} answered with a malformed response") from None


def _result_items(answer: object) -> list[dict[str, Any]]:
    """The `results` of an answer, each a JSON object; `ProviderError` when the answer has no such list."""
    results = answer.get("results") if isinstance(answer, dict) else None
    if not isinstance(results, list):
        raise ProviderError(f"{_SERVICE} answered with a malformed response")
    return [item for item in results if isinstance(item, dict)]
