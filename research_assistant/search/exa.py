"""Search through Exa, a neural search API, optionally narrowed to a category (news, research papers).

The HTTP goes through exa-py's `AsyncExa` (the client langchain-exa wraps): `POST {base}/search` with
the key in an `x-api-key` header and a camelCase JSON body (`query`, `numResults`, `type`, `category`,
`contents.highlights`). Not through langchain-exa's `ExaSearchRetriever`: that one calls the blocking
`Exa` client, whose `requests` calls have no timeout at all, and it cannot pass a category.

Highlights (a few query-relevant sentences per page) are asked for and become the snippet. A client
is made per search, since its httpx pool belongs to the event loop that first used it. The key is held
as a `SecretStr`; exa-py's own error text (which quotes the server's body) is never passed on.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx
from pydantic import SecretStr

from research_assistant.schemas import SearchResult, SourceType
from research_assistant.search.base import ProviderError, WebSearch
from research_assistant.search.normalize import (
    RawHit,
    base_url_of,
    status_error,
    timeout_message,
    to_results,
    transport_error,
    with_retries,
)

_SERVICE = "Exa"
_MAX_RESULTS = 100
"""Exa's ceiling for `numResults`."""
_HIGHLIGHT_CHARS = 600
"""Characters of highlights asked for per result; the snippet is trimmed further anyway."""
_CATEGORY_TYPES = {"news": SourceType.NEWS, "research paper": SourceType.ACADEMIC}
"""Exa categories with a source type of their own; the others ('company', 'pdf', 'github', ...) are web."""
_FAILED_STATUS = re.compile(r"status code (\d{3})")
"""How exa-py reports an HTTP error: `ValueError('Request failed with status code 401: <body>')`."""


class ExaProvider(WebSearch):
    """The `SearchProvider` for Exa's search API."""

    def __init__(self, api_key: str, base_url: str, *, category: str | None = None, timeout: float = 20.0) -> None:
        if not api_key.strip():
            raise ValueError("Exa needs an API key")
        category = category.strip() if category else None
        self._api_key = SecretStr(api_key.strip())
        self.base_url = base_url_of(base_url, _SERVICE)
        self.category = category
        self.timeout = timeout
        self.name = f"exa-{category.replace(' ', '-')}" if category else "exa"
        self.source_types = frozenset({_CATEGORY_TYPES.get(category or "", SourceType.WEB)})

    def __repr__(self) -> str:
        return f"ExaProvider(base_url={self.base_url!r}, category={self.category!r}, timeout={self.timeout!r})"

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        """At most `limit` results (Exa gives 100 at most), best first."""
        if limit <= 0 or not query.strip():
            return []
        response = await with_retries(self._ask, query.strip(), min(limit, _MAX_RESULTS))
        try:
            hits = [_hit(result) for result in response.results]
        except (AttributeError, TypeError):
            raise ProviderError(f"{_SERVICE} answered with a malformed response") from None
        return to_results(hits, provider=self.name, source_type=next(iter(self.source_types)), limit=limit)

    async def _ask(self, query: str, num_results: int) -> Any:
        """exa-py's `SearchResponse`; every failure becomes a `ProviderError`."""
        # Imported here: exa-py takes over a second to import and only runs with a key configured.
        from exa_py import AsyncExa

        exa = AsyncExa(self._api_key.get_secret_value(), api_base=self.base_url)
        client = exa.client  # made here, outside the time limit: loading TLS certificates is not Exa's delay
        try:
            async with asyncio.timeout(self.timeout):
                return await exa.search_and_contents(
                    query,
                    num_results=num_results,
                    type="auto",
                    category=self.category,
                    highlights={"max_characters": _HIGHLIGHT_CHARS},
                )
        except TimeoutError:
            raise ProviderError(timeout_message(_SERVICE, self.timeout)) from None
        except httpx.HTTPError as error:
            raise transport_error(_SERVICE, error, base_url=self.base_url, timeout=self.timeout) from None
        except json.JSONDecodeError:
            raise ProviderError(f"{_SERVICE} answered with malformed JSON") from None
        except ValueError as error:
            failed = _FAILED_STATUS.search(str(error))
            if failed is None and "JSON" in str(error):  # exa-py 2 wraps a body that does not decode
                raise ProviderError(f"{_SERVICE} answered with malformed JSON") from None
            if failed is None:
                raise ProviderError(f"{_SERVICE} rejected the request") from None
            raise status_error(_SERVICE, int(failed.group(1)), keyed=True) from None
        except (KeyError, TypeError, AttributeError):
            raise ProviderError(f"{_SERVICE} answered with a malformed response") from None
        finally:
            await client.aclose()


def _hit(result: object) -> RawHit:
    """A raw hit from one of exa-py's `Result`s: highlights, else the summary, else the text, as snippet."""
    highlights = getattr(result, "highlights", None)
    parts = [part for part in highlights if isinstance(part, str)] if isinstance(highlights, list) else []
    snippet = " … ".join(parts) or getattr(result, "summary", None) or getattr(result, "text", None) or ""
    return RawHit(
        url=getattr(result, "url", None),
        title=getattr(result, "title", None),
        snippet=snippet if isinstance(snippet, str) else "",
        score=getattr(result, "score", None),
        published=getattr(result, "published_date", None),
        author=author if isinstance(author := getattr(result, "author", None), str) else None,
    )
