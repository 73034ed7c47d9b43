"""The Tavily provider, driving the real tavily-python client against a fake Tavily on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket
import traceback
from collections.abc import Iterator

import pytest
from support.fake_search_apis import FakeHit, FakeSearchApi

from research_assistant.schemas import SourceType
from research_assistant.search.base import ProviderError, SearchProvider
from research_assistant.search.tavily import TavilyProvider

KEY = "tvly-test-5ecret-key"
TIMEOUT = 5.0
"""Ample for the fake on a busy machine; only the 'slow' failure is tested against `SLOW_TIMEOUT`."""
SLOW_TIMEOUT = 0.3


@pytest.fixture
def api() -> Iterator[FakeSearchApi]:
    with FakeSearchApi("tavily", api_key=KEY) as fake:
        yield fake


def _timeout(api: FakeSearchApi) -> float:
    return SLOW_TIMEOUT if api.failure == "slow" else TIMEOUT


def provider(api: FakeSearchApi, **options: object) -> TavilyProvider:
    return TavilyProvider(KEY, api.base_url + "/", timeout=_timeout(api), **options)  # type: ignore[arg-type]


async def test_results_are_normalized_and_best_first(api: FakeSearchApi) -> None:
    api.results["tram history"] = [
        FakeHit("https://example.org/b", "Second", "b", 0.4),
        FakeHit("HTTPS://Example.ORG:443/a?utm_source=feed&id=7#top", "  First\n  page ", "word " * 100, 0.8),
        FakeHit("https://example.org/c", "Overscored", "c", 1.7),
    ]
    tavily: SearchProvider = provider(api)

    results = await tavily.search("tram history", 5)

    assert [result.locator for result in results] == [
        "https://example.org/c",
        "https://example.org/a?id=7",
        "https://example.org/b",
    ]
    assert [result.score for result in results] == [1.0, 0.8, 0.4]
    first = results[1]
    assert first.title == "First page"
    assert first.snippet.endswith("…") and len(first.snippet) <= 301
    assert {result.provider for result in results} == {"tavily"}
    assert {result.source_type for result in results} == {SourceType.WEB}
    assert first.published is None and first.author is None
    assert tavily.name == "tavily" and tavily.source_types == frozenset({SourceType.WEB})
    assert await tavily.prepare() == []


async def test_the_request_carries_the_key_in_a_bearer_header_only(api: FakeSearchApi) -> None:
    await provider(api).search("  tram history ", 3)

    (request,) = api.requests
    assert (request.method, request.path) == ("POST", "/search")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["query"] == "tram history"
    assert request.body["topic"] == "general"
    assert request.body["max_results"] == 3
    assert KEY not in str(request.body)


async def test_news_topic_is_its_own_provider_with_dates(api: FakeSearchApi) -> None:
    api.results["strike"] = [
        FakeHit("https://news.example/s", "Strike", "Trams stop.", 0.7, "Tue, 14 Jan 2025 16:31:10 GMT")
    ]
    news = provider(api, topic="news")

    (result,) = await news.search("strike", 5)

    assert api.requests[0].body["topic"] == "news"
    assert (news.name, news.source_types) == ("tavily-news", frozenset({SourceType.NEWS}))
    assert (result.provider, result.source_type, result.published) == ("tavily-news", SourceType.NEWS, "2025-01-14")


async def test_unusable_and_duplicate_urls_are_dropped(api: FakeSearchApi) -> None:
    api.results["q"] = [
        FakeHit("https://example.org/page#one", "One", score=0.9),
        FakeHit("ftp://example.org/file", "Ftp", score=0.85),
        FakeHit("javascript:alert(1)", "Script", score=0.8),
        FakeHit("https://example.org/page#two", "Duplicate", score=0.7),
        FakeHit("https://", "No host", score=0.65),
        FakeHit("https://example.org:99999/", "Broken port", score=0.62),
        FakeHit("https://example.org/other", "Other", score=0.6),
        FakeHit("https://example.org/third", "Third", score=0.5),
    ]

    results = await provider(api).search("q", 10)

    assert [result.title for result in results] == ["One", "Other", "Third"]


async def test_a_limit_above_tavilys_ceiling_asks_for_twenty(api: FakeSearchApi) -> None:
    await provider(api).search("q", 50)

    assert api.requests[0].body["max_results"] == 20


@pytest.mark.parametrize(("query", "limit"), [("", 5), ("   ", 5), ("tram", 0), ("tram", -1)])
async def test_nothing_to_search_sends_nothing(api: FakeSearchApi, query: str, limit: int) -> None:
    assert await provider(api).search(query, limit) == []
    assert api.requests == []


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        ("401", "Tavily rejected the API key (HTTP 401)"),
        ("429", "Tavily is limiting the request rate (HTTP 429)"),
        ("500", "Tavily answered HTTP 500"),
        ("api_error", "Tavily rejected the request as invalid (HTTP 400)"),
        ("malformed", "Tavily answered with a malformed response"),
        ("slow", "Tavily timed out after 0.3 s"),
    ],
)
async def test_failures_are_one_clean_line_without_the_key(api: FakeSearchApi, failure: str, message: str) -> None:
    api.failure = failure  # type: ignore[assignment]
    tavily = provider(api)

    with pytest.raises(ProviderError) as caught:
        await tavily.search("tram", 5)

    assert str(caught.value) == message
    logged = "".join(traceback.format_exception(caught.value))
    assert KEY not in logged and KEY not in repr(caught.value) and KEY not in repr(tavily)


async def test_a_wrong_key_is_rejected_and_not_repeated(api: FakeSearchApi) -> None:
    wrong = "tvly-wrong-key-123"

    with pytest.raises(ProviderError, match=r"^Tavily rejected the API key \(HTTP 401\)$") as caught:
        await TavilyProvider(wrong, api.base_url, timeout=TIMEOUT).search("tram", 5)

    assert wrong in str(api.requests[0].headers)  # the fake did get it, and quoted it back
    assert wrong not in "".join(traceback.format_exception(caught.value))


async def test_an_unreachable_server_is_named() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    tavily = TavilyProvider(KEY, f"http://127.0.0.1:{port}", timeout=TIMEOUT)

    with pytest.raises(ProviderError, match=rf"^Tavily could not be reached at 127\.0\.0\.1:{port}$"):
        await tavily.search("tram", 5)


def test_one_provider_serves_successive_event_loops(api: FakeSearchApi) -> None:
    tavily = provider(api)

    first = asyncio.run(tavily.search("tram", 5))
    second = asyncio.run(tavily.search("tram", 5))

    assert first == second and len(first) == 2
    assert len(api.requests) == 2


def test_a_blank_key_or_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="API key"):
        TavilyProvider("  ", "https://api.tavily.com")
    with pytest.raises(ValueError, match="base URL"):
        TavilyProvider(KEY, "api.tavily.com")
    with pytest.raises(ValueError, match="topic"):
        TavilyProvider(KEY, "https://api.tavily.com", topic="finance")  # type: ignore[arg-type]
