"""The Wikipedia provider against a fake MediaWiki search API on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from support.fake_search_apis import FakeHit, FakeSearchApi

from research_assistant.schemas import SourceType
from research_assistant.search.base import ProviderError, SearchProvider
from research_assistant.search.wikipedia import WikipediaProvider, strip_html

AGENT = "ResearchAssistantTests/0.1 (+https://example.org/contact)"
TIMEOUT = 5.0
"""Ample for the fake on a busy machine; only the 'slow' failure is tested against `SLOW_TIMEOUT`."""
SLOW_TIMEOUT = 0.3


@pytest.fixture
def api() -> Iterator[FakeSearchApi]:
    with FakeSearchApi("wikipedia") as fake:
        yield fake


def _timeout(api: FakeSearchApi) -> float:
    return SLOW_TIMEOUT if api.failure == "slow" else TIMEOUT


def provider(api: FakeSearchApi) -> WikipediaProvider:
    return WikipediaProvider(api.base_url, timeout=_timeout(api), user_agent=AGENT)


async def test_results_are_articles_with_plain_snippets_best_first(api: FakeSearchApi) -> None:
    api.results["cafe"] = [
        FakeHit(
            "",
            "Café (Paris)",
            'The <span class="searchmatch">café</span> &amp; the &quot;bar&quot; &lt;b&gt;',
            published="2024-02-29T23:59:59Z",
        ),
        FakeHit("", "AC/DC", "A band", published="2023-01-02T03:04:05Z"),
        FakeHit("", "Question?", "Why"),
    ]
    wikipedia: SearchProvider = provider(api)

    results = await wikipedia.search("cafe", 5)

    base = api.base_url
    assert [result.locator for result in results] == [
        f"{base}/wiki/Caf%C3%A9_(Paris)",
        f"{base}/wiki/AC/DC",
        f"{base}/wiki/Question%3F",
    ]
    assert [result.title for result in results] == ["Café (Paris)", "AC/DC", "Question?"]
    assert results[0].snippet == 'The café & the "bar" <b>'
    assert [result.published for result in results] == ["2024-02-29", "2023-01-02", None]
    assert [result.score for result in results] == pytest.approx([1.0, 2 / 3, 1 / 3], abs=1e-6)
    assert {(result.provider, result.source_type) for result in results} == {("wikipedia", SourceType.WIKI)}
    assert wikipedia.source_types == frozenset({SourceType.WIKI})
    assert await wikipedia.prepare() == []


async def test_the_request_is_a_mediawiki_search_with_a_user_agent(api: FakeSearchApi) -> None:
    await provider(api).search("  tram stop ", 7)

    (request,) = api.requests
    assert (request.method, request.path) == ("GET", "/w/api.php")
    assert request.query == {
        "action": "query",
        "list": "search",
        "srsearch": "tram stop",
        "srlimit": "7",
        "srprop": "snippet|timestamp",
        "format": "json",
    }
    assert request.headers["user-agent"] == AGENT


async def test_a_large_limit_is_capped(api: FakeSearchApi) -> None:
    await provider(api).search("tram", 5000)

    assert api.requests[0].query["srlimit"] == "50"


async def test_the_article_addresses_are_served_by_the_fake(api: FakeSearchApi) -> None:
    results = await provider(api).search("tram", 5)

    async with httpx.AsyncClient() as client:
        page = await client.get(results[0].locator)
    assert page.status_code == 200 and "<h1>Tram</h1>" in page.text


async def test_duplicate_titles_are_dropped(api: FakeSearchApi) -> None:
    api.results["q"] = [FakeHit("", "Tram stop", "a"), FakeHit("", "Tram_stop", "b"), FakeHit("", "  ", "c")]

    results = await provider(api).search("q", 5)

    assert [(result.title, result.snippet) for result in results] == [("Tram stop", "a")]


@pytest.mark.parametrize(("query", "limit"), [("", 5), (" ", 5), ("tram", 0)])
async def test_nothing_to_search_sends_nothing(api: FakeSearchApi, query: str, limit: int) -> None:
    assert await provider(api).search(query, limit) == []
    assert api.requests == []


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        ("429", "Wikipedia is limiting the request rate (HTTP 429)"),
        ("500", "Wikipedia answered HTTP 500"),
        ("malformed", "Wikipedia answered with malformed JSON"),
        ("api_error", "Wikipedia rejected the search: Database error."),
        ("slow", "Wikipedia timed out after 0.3 s"),
    ],
)
async def test_failures_are_one_line(api: FakeSearchApi, failure: str, message: str) -> None:
    api.failure = failure  # type: ignore[assignment]

    with pytest.raises(ProviderError) as caught:
        await provider(api).search("tram", 5)

    assert str(caught.value) == message


def test_strip_html_removes_tags_before_decoding_entities() -> None:
    assert strip_html('<span class="searchmatch">A</span> &lt;i&gt;b&lt;/i&gt; &amp;amp;') == "A <i>b</i> &amp;"
