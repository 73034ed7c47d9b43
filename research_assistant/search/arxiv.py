"""Search arXiv for papers, with no key, at the pace arXiv's terms of use ask for.

One call to the export API (`GET {base}/api/query?search_query=...`) answers with an Atom feed: the
abstract becomes the snippet, the first submission's date `published`, the first authors `author`.
The feed is untrusted XML, so it is parsed with defusedxml, which refuses entity tricks.

arXiv asks for no more than one request every three seconds. Calls to the same API are spaced by a
`Pacer` shared by every provider for that base URL; it keeps a thread lock and a monotonic clock, not an
asyncio lock, because services outlive event loops (the page runs each research in a new one).
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import ParseError, fromstring

from research_assistant.schemas import SearchResult, SourceType
from research_assistant.search.base import ProviderError, WebSearch
from research_assistant.search.normalize import RawHit, base_url_of, detail, http_get, status_error, to_results

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

_SERVICE = "arXiv"
_MAX_RESULTS = 50
"""Most results asked for in one call (arXiv allows 2000, but a search never needs them)."""
_AUTHORS_NAMED = 3
"""Authors named in `author`; more are summed up as 'et al.'."""
_ATOM = "{http://www.w3.org/2005/Atom}"
_WORD = re.compile(r"\w+(?:[-.']\w+)*")
"""A search term: letters and digits, with inner hyphens, dots and apostrophes (GPT-4, U.S., Hawking's)."""
_ERROR_ID = "/api/errors"
"""What the id of the entry arXiv sends in place of results for a bad query contains."""


class Pacer:
    """Spaces calls at least `interval` seconds apart, whatever thread or event loop they come from."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next = 0.0

    def reserve(self, interval: float) -> float:
        """Book the next free slot; how many seconds to wait before using it (0 when it is now)."""
        with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + max(interval, 0.0)
            return start - now


_pacers: dict[str, Pacer] = {}
_pacers_lock = threading.Lock()


def pacer_for(base_url: str) -> Pacer:
    """The one pacer for the API at `base_url`, shared by every provider that calls it."""
    with _pacers_lock:
        return _pacers.setdefault(base_url, Pacer())


class ArxivProvider(WebSearch):
    """The `SearchProvider` for arXiv's export API."""

    name = "arxiv"
    source_types = frozenset({SourceType.ACADEMIC})

    def __init__(self, base_url: str, *, timeout: float = 20.0, user_agent: str, min_interval: float = 3.0) -> None:
        self.base_url = base_url_of(base_url, _SERVICE)
        self.timeout = timeout
        self.user_agent = user_agent
        self.min_interval = min_interval
        self._pacer = pacer_for(self.base_url)

    def __repr__(self) -> str:
        return (
            f"ArxivProvider(base_url={self.base_url!r}, timeout={self.timeout!r}, min_interval={self.min_interval!r})"
        )

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        """At most `limit` papers (50 at most), best first by arXiv's relevance order."""
        search_query = arxiv_query(query)
        if limit <= 0 or not search_query:
            return []
        params = {
            "search_query": search_query,
            "start": "0",
            "max_results": str(min(limit, _MAX_RESULTS)),
            "sortBy": "relevance",
            "sortOrder": "descending",
        }
        response = await http_get(
            _SERVICE,
            f"{self.base_url}/api/query",
            params=params,
            user_agent=self.user_agent,
            time_limit=self.timeout,
            wait_turn=self._wait_turn,
        )
        if response.status_code != 200:
            # A query arXiv cannot run comes back as HTTP 400 with an Atom feed that says why.
            problem = _error_entry(_parse_quietly(response.content)) if response.status_code == 400 else None
            if problem:
                raise ProviderError(f"{_SERVICE} rejected the query: {problem}")
            raise status_error(_SERVICE, response.status_code, keyed=False)
        feed = _parse(response.content)
        if feed.tag != f"{_ATOM}feed":
            raise ProviderError(f"{_SERVICE} answered with something other than an Atom feed")
        if problem := _error_entry(feed):
            raise ProviderError(f"{_SERVICE} rejected the query: {problem}")
        hits = [_hit(entry) for entry in feed.iter(f"{_ATOM}entry")]
        return to_results(hits, provider=self.name, source_type=SourceType.ACADEMIC, limit=limit)

    async def _wait_turn(self) -> None:
        """Sleep until this call's slot: `min_interval` after the previous call to the same API."""
        delay = self._pacer.reserve(self.min_interval)
        if delay > 0:
            await asyncio.sleep(delay)


def arxiv_query(query: str) -> str:
    """An arXiv `search_query` that finds papers with every word of `query` anywhere ('' when it has none).

    Only the words are kept, lower-cased, so that nothing in the query is read as arXiv's own syntax
    (field prefixes, AND/OR/ANDNOT, quotes, brackets).
    """
    return " AND ".join(f"all:{word}" for word in _WORD.findall(query.lower()))


def _parse(content: bytes) -> Element:
    try:
        root: Element = fromstring(content)
    except (ParseError, DefusedXmlException):
        raise ProviderError(f"{_SERVICE} answered with malformed XML") from None
    return root


def _parse_quietly(content: bytes) -> Element | None:
    try:
        return _parse(content)
    except ProviderError:
        return None


def _error_entry(feed: Element | None) -> str | None:
    """The message of the error entry arXiv sends for a bad query, if the feed is one."""
    if feed is None:
        return None
    for entry in feed.iter(f"{_ATOM}entry"):
        if _ERROR_ID in _text(entry, "id"):
            return detail(_text(entry, "summary") or "no reason given")
    return None


def _hit(entry: Element) -> RawHit:
    alternate = next(
        (link.get("href") for link in entry.iter(f"{_ATOM}link") if link.get("rel", "alternate") == "alternate"),
        None,
    )
    authors = [name for author in entry.iter(f"{_ATOM}author") if (name := " ".join(_text(author, "name").split()))]
    named = ", ".join(authors[:_AUTHORS_NAMED]) + (" et al." if len(authors) > _AUTHORS_NAMED else "")
    return RawHit(
        url=_https_on_arxiv(alternate or _text(entry, "id")),
        title=_text(entry, "title"),
        snippet=_text(entry, "summary"),
        published=_text(entry, "published"),
        author=named or None,
    )


def _https_on_arxiv(url: str) -> str:
    """arXiv's own http:// links as https://; any other address (or one that does not parse) as it is."""
    try:
        parts = urlsplit(url.strip())
        on_arxiv = parts.port is None and re.fullmatch(r"(?:.+\.)?arxiv\.org", (parts.hostname or "").lower())
    except ValueError:  # a port out of range, a broken IPv6 literal: dropped later as unusable
        return url
    if parts.scheme.lower() == "http" and on_arxiv:
        return urlunsplit(("https", *parts[1:]))
    return url


def _text(element: Element, tag: str) -> str:
    child = element.find(f"{_ATOM}{tag}")
    return (child.text or "") if child is not None else ""
