"""Search Wikipedia (or any MediaWiki) for encyclopedia articles, with no key.

One call to the MediaWiki search API (`GET {base}/w/api.php?action=query&list=search`) gives titles,
an HTML snippet around the match and the last edit time; the article's address is derived from its
title. The request carries a descriptive User-Agent, which Wikimedia's policy asks of every client.
"""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import quote

from research_assistant.schemas import SearchResult, SourceType
from research_assistant.search.base import ProviderError, WebSearch
from research_assistant.search.normalize import RawHit, base_url_of, detail, http_get, status_error, to_results

_SERVICE = "Wikipedia"
_MAX_RESULTS = 50
"""Most results asked for in one call (MediaWiki allows more, but a search never needs them)."""
_TAG = re.compile(r"<[^>]*>")
_TITLE_SAFE = "/:()',!*;@$"
"""Characters left as they are in an article path, as Wikipedia itself writes them."""


class WikipediaProvider(WebSearch):
    """The `SearchProvider` for a MediaWiki site's full-text search."""

    name = "wikipedia"
    source_types = frozenset({SourceType.WIKI})

    def __init__(self, base_url: str, *, timeout: float = 20.0, user_agent: str) -> None:
        self.base_url = base_url_of(base_url, _SERVICE)
        self.timeout = timeout
        self.user_agent = user_agent

    def __repr__(self) -> str:
        return f"WikipediaProvider(base_url={self.base_url!r}, timeout={self.timeout!r})"

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        """At most `limit` articles (50 at most), best first; `published` is the last edit's date."""
        if limit <= 0 or not query.strip():
            return []
        params = {
            "action": "query",
            "list": "search",
            "srsearch": query.strip(),
            "srlimit": str(min(limit, _MAX_RESULTS)),
            "srprop": "snippet|timestamp",
            "format": "json",
        }
        response = await http_get(
            _SERVICE, f"{self.base_url}/w/api.php", params=params, user_agent=self.user_agent, time_limit=self.timeout
        )
        if response.status_code != 200:
            raise status_error(_SERVICE, response.status_code, keyed=False)
        try:
            answer = response.json()
        except ValueError:
            raise ProviderError(f"{_SERVICE} answered with malformed JSON") from None
        hits = [
            RawHit(
                url=self.article_url(item["title"]),
                title=item["title"],
                snippet=strip_html(str(item.get("snippet") or "")),
                published=item.get("timestamp"),
            )
            for item in _search_items(answer)
            if isinstance(item.get("title"), str) and item["title"].strip()
        ]
        return to_results(hits, provider=self.name, source_type=SourceType.WIKI, limit=limit)

    def article_url(self, title: str) -> str:
        """Where the article titled `title` lives: `{base}/wiki/Title_with_underscores`, URL-quoted."""
        return f"{self.base_url}/wiki/{quote(title.strip().replace(' ', '_'), safe=_TITLE_SAFE)}"


def strip_html(fragment: str) -> str:
    """The text of an HTML fragment such as a search snippet: tags removed, then entities decoded."""
    return html.unescape(_TAG.sub("", fragment))


def _search_items(answer: object) -> list[dict[str, Any]]:
    """The `query.search` list of an answer; `ProviderError` for an API error or a malformed answer."""
    if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
        error = answer["error"]
        raise ProviderError(f"{_SERVICE} rejected the search: {detail(error.get('info') or error.get('code'))}")
    found = answer.get("query") if isinstance(answer, dict) else None
    items = found.get("search") if isinstance(found, dict) else None
    if not isinstance(items, list):
        raise ProviderError(f"{_SERVICE} answered with a malformed response")
    return [item for item in items if isinstance(item, dict)]
