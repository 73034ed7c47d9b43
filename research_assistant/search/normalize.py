"""What every web search provider does the same way: shape hits into `SearchResult`s and failures into one
line, and try again where the API asked for patience.

The providers speak four different APIs, but the rest of the pipeline must not be able to tell them
apart: one spelling per URL, one date format, scores in 0..1 with the best first, no duplicates, and
error messages an analyst can read (never a traceback, never a key). A search that fails with HTTP 429
or 5xx, or whose connection drops, is tried again after a full-jitter backoff, as a page fetch is; a
search that times out is not (the next provider of its kind stands in sooner).
"""

from __future__ import annotations

import asyncio
import math
import ssl
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import ParamSpec, TypeVar
from urllib.parse import urlsplit

import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_random_exponential

from research_assistant.schemas import SearchResult, SourceType
from research_assistant.search.base import ProviderError, trim_snippet
from research_assistant.text.dates import iso_date
from research_assistant.text.spaces import collapsed
from research_assistant.text.urls import is_web_url, normalize_url

_DETAIL_CHARS = 160
"""Longest piece of a server's own error text quoted in a message."""
RETRY_ATTEMPTS = 3
"""Tries per search, the first included, when the API answers 429 or 5xx or the connection drops."""
RETRY_BACKOFF_SECONDS = 0.5
"""The first backoff, doubled after each try; the wait is random up to it (full jitter)."""

T = TypeVar("T")
P = ParamSpec("P")


@dataclass(frozen=True)
class RawHit:
    """One hit as a provider's API gave it, before normalization."""

    url: object
    title: object
    snippet: str = ""
    score: object = None
    published: object = None
    author: str | None = None


def to_results(hits: Iterable[RawHit], *, provider: str, source_type: SourceType, limit: int) -> list[SearchResult]:
    """At most `limit` normalized results, best first.

    Hits without a usable http(s) URL are dropped, and so are later hits whose URL normalizes to one
    already seen. The provider's own scores are kept (clamped to 0..1) when every hit has one;
    otherwise the score follows the provider's order.
    """
    kept: list[tuple[str, RawHit]] = []
    seen: set[str] = set()
    for hit in hits:
        locator = usable_url(hit.url)
        if locator is None or locator in seen:
            continue
        seen.add(locator)
        kept.append((locator, hit))
    scores = [score for _, hit in kept if (score := _finite(hit.score)) is not None]
    if kept and len(scores) == len(kept):
        order = sorted(range(len(kept)), key=lambda index: -scores[index])
        ranked = [(kept[index], min(max(scores[index], 0.0), 1.0)) for index in order]
    else:
        ranked = [(entry, rank_score(rank, len(kept))) for rank, entry in enumerate(kept)]
    return [
        SearchResult(
            locator=locator,
            title=collapsed(hit.title) or locator,
            snippet=trim_snippet(hit.snippet),
            score=score,
            provider=provider,
            source_type=source_type,
            published=iso_date(hit.published),
            author=collapsed(hit.author) or None,
        )
        for (locator, hit), score in ranked[: max(limit, 0)]
    ]


def usable_url(url: object) -> str | None:
    """The normalized form of an http(s) URL with a host; None for anything else."""
    if not isinstance(url, str) or not is_web_url(url.strip()):
        return None
    try:
        if not urlsplit(url.strip()).hostname:
            return None
        return normalize_url(url)
    except ValueError:  # a port out of range, a broken IPv6 literal
        return None


def rank_score(rank: int, total: int) -> float:
    """A score from a position alone: 1.0 for the first of `total`, evenly down to 1/total for the last."""
    if total <= 0:
        return 0.0
    return round(1.0 - rank / total, 6)


def base_url_of(base_url: str, service: str) -> str:
    """`base_url` without its trailing slash; ValueError unless it is an http(s) URL with a host."""
    stripped = base_url.strip().rstrip("/")
    if not is_web_url(stripped) or not urlsplit(stripped).hostname:
        raise ValueError(f"{service} base URL must be an http(s) URL, not {base_url!r}")
    return stripped


def status_error(service: str, status: int, *, keyed: bool) -> ProviderError:
    """The error for an HTTP error status from `service`; `keyed` when the service authenticates by API key."""
    retryable = status == 429 or status >= 500
    if status in (401, 403) and keyed:
        return ProviderError(f"{service} rejected the API key (HTTP {status})")
    if status == 403:
        return ProviderError(f"{service} refused the request (HTTP 403)")
    if status == 429:
        return ProviderError(f"{service} is limiting the request rate (HTTP 429)", retryable=retryable)
    if status == 400:
        return ProviderError(f"{service} rejected the request as invalid (HTTP 400)")
    return ProviderError(f"{service} answered HTTP {status}", retryable=retryable)


def timeout_message(service: str, seconds: float) -> str:
    return f"{service} timed out after {seconds:g} s"


def transport_error(service: str, error: httpx.HTTPError, *, base_url: str, timeout: float) -> ProviderError:
    """The error for a request that got no HTTP answer (or a broken one); retryable unless it timed out."""
    if isinstance(error, httpx.TimeoutException):
        return ProviderError(timeout_message(service, timeout))
    retryable = isinstance(error, httpx.TransportError)
    if isinstance(error, httpx.ConnectError):
        return ProviderError(f"{service} could not be reached at {urlsplit(base_url).netloc}", retryable=retryable)
    return ProviderError(f"{service} request failed ({type(error).__name__})", retryable=retryable)


async def with_retries(ask: Callable[P, Awaitable[T]], *args: P.args, **kwargs: P.kwargs) -> T:
    """`await ask(*args, **kwargs)`, tried again while it fails with a retryable `ProviderError`; the last failure
    is raised as it is. `ask` is a coroutine function (tenacity calls anything else as a plain function)."""
    retrying = AsyncRetrying(
        stop=stop_after_attempt(RETRY_ATTEMPTS),
        wait=wait_random_exponential(multiplier=RETRY_BACKOFF_SECONDS),
        retry=retry_if_exception(lambda error: isinstance(error, ProviderError) and error.retryable),
        reraise=True,
    )
    return await retrying(ask, *args, **kwargs)


def detail(text: object) -> str:
    """A server's own error text, on one line and short enough to quote."""
    return trim_snippet(str(text), _DETAIL_CHARS)


def _finite(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


@cache
def _tls_context() -> ssl.SSLContext:
    return httpx.create_ssl_context()


def http_client(
    *, timeout: float, headers: dict[str, str] | None = None, base_url: str = "", follow_redirects: bool = True
) -> httpx.AsyncClient:
    """A fresh client for one search; use it in `async with` so it is closed in the loop that used it.

    Every client shares one TLS context: loading the certificate bundle takes tens of milliseconds of
    blocking work, which would otherwise stall the event loop on every search.
    """
    return httpx.AsyncClient(
        headers=headers, timeout=timeout, base_url=base_url, follow_redirects=follow_redirects, verify=_tls_context()
    )


async def http_get(
    service: str,
    url: str,
    *,
    params: dict[str, str],
    user_agent: str,
    time_limit: float,
    wait_turn: Callable[[], Awaitable[None]] | None = None,
) -> httpx.Response:
    """GET `url` within `time_limit` seconds a try, with a fresh client (none outlives the event loop it ran in).

    `wait_turn`, when given, is awaited just before each request goes out (after the client is ready), so
    that a pace it keeps holds on the wire. HTTP 429 and 5xx are tried again (`with_retries`), then raise
    `ProviderError`; any other HTTP status comes back as is; a timeout, a refused connection or a broken
    answer raises `ProviderError` with one line.
    """

    async def ask() -> httpx.Response:
        client = http_client(headers={"User-Agent": user_agent}, timeout=time_limit)
        try:
            async with client:
                if wait_turn is not None:
                    await wait_turn()
                async with asyncio.timeout(time_limit):
                    response = await client.get(url, params=params)
        except TimeoutError:
            raise ProviderError(timeout_message(service, time_limit)) from None
        except httpx.HTTPError as error:
            raise transport_error(service, error, base_url=url, timeout=time_limit) from None
        if response.status_code == 429 or response.status_code >= 500:
            raise status_error(service, response.status_code, keyed=False)
        return response

    return await with_retries(ask)
