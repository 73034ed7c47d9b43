"""The arXiv provider against a fake arXiv export API on 127.0.0.1: the feed, the query, the pace."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from itertools import pairwise

import pytest
from support.fake_search_apis import FakeHit, FakeSearchApi

from research_assistant.schemas import SourceType
from research_assistant.search.arxiv import ArxivProvider, Pacer, arxiv_query, pacer_for
from research_assistant.search.base import ProviderError, SearchProvider

AGENT = "ResearchAssistantTests/0.1 (+https://example.org/contact)"
TIMEOUT = 5.0
"""Ample for the fake on a busy machine; only the 'slow' failure is tested against `SLOW_TIMEOUT`."""
SLOW_TIMEOUT = 0.3
INTERVAL = 0.3
JITTER = 0.08


@pytest.fixture
def api() -> Iterator[FakeSearchApi]:
    with FakeSearchApi("arxiv") as fake:
        yield fake


def _timeout(api: FakeSearchApi) -> float:
    return SLOW_TIMEOUT if api.failure == "slow" else TIMEOUT


def provider(api: FakeSearchApi, min_interval: float = 0.0) -> ArxivProvider:
    return ArxivProvider(api.base_url, timeout=_timeout(api), user_agent=AGENT, min_interval=min_interval)


async def test_entries_become_normalized_papers(api: FakeSearchApi) -> None:
    api.results["quantum trams"] = [
        FakeHit(
            "http://arxiv.org/abs/2402.01234v2",
            "Quantum\n      Trams:   a  Survey",
            "We survey " + "quantum tram models " * 30,
            published="2024-02-03T18:59:59Z",
            authors=("Ada Lane", "Bo Chen", "Cy Diaz", "Di Evans"),
        ),
        FakeHit("http://127.0.0.1:8765/abs/local", "Local copy", "Short.", authors=("Ada Lane",)),
    ]
    arxiv: SearchProvider = provider(api)

    results = await arxiv.search("quantum trams", 5)

    assert [result.locator for result in results] == [
        "https://arxiv.org/abs/2402.01234v2",
        "http://127.0.0.1:8765/abs/local",
    ]
    first = results[0]
    assert first.title == "Quantum Trams: a Survey"
    assert first.snippet.startswith("We survey quantum tram models") and first.snippet.endswith("…")
    assert (first.published, first.author) == ("2024-02-03", "Ada Lane, Bo Chen, Cy Diaz et al.")
    assert (results[1].author, results[1].published) == ("Ada Lane", None)
    assert [result.score for result in results] == [1.0, 0.5]
    assert {(result.provider, result.source_type) for result in results} == {("arxiv", SourceType.ACADEMIC)}
    assert await arxiv.prepare() == []


async def test_the_request_is_an_all_fields_query_with_a_user_agent(api: FakeSearchApi) -> None:
    await provider(api).search("Quantum Trams", 4)

    (request,) = api.requests
    assert (request.method, request.path) == ("GET", "/api/query")
    assert request.query == {
        "search_query": "all:quantum AND all:trams",
        "start": "0",
        "max_results": "4",
        "sortBy": "relevance",
        "sortOrder": "descending",
    }
    assert request.headers["user-agent"] == AGENT


def test_the_query_keeps_words_and_nothing_of_arxivs_syntax() -> None:
    assert (
        arxiv_query('au:"Lane" OR ti:(GPT-4 trams)')
        == "all:au AND all:lane AND all:or AND all:ti AND all:gpt-4 AND all:trams"
    )
    assert arxiv_query(" ?! ") == ""


async def test_duplicate_entries_are_dropped(api: FakeSearchApi) -> None:
    api.results["q"] = [
        FakeHit("http://arxiv.org/abs/1", "One"),
        FakeHit("https://arxiv.org/abs/1", "One again"),
        FakeHit("urn:arxiv:2", "No web address"),
        FakeHit("http://arxiv.org:99999/abs/3", "Broken port"),
    ]

    results = await provider(api).search("q", 5)

    assert [result.title for result in results] == ["One"]


@pytest.mark.parametrize(("query", "limit"), [("", 5), ("  ", 5), ("()", 5), ("tram", 0)])
async def test_nothing_to_search_sends_nothing(api: FakeSearchApi, query: str, limit: int) -> None:
    assert await provider(api).search(query, limit) == []
    assert api.requests == []


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        ("429", "arXiv is limiting the request rate (HTTP 429)"),
        ("500", "arXiv answered HTTP 500"),
        ("malformed", "arXiv answered with malformed XML"),
        ("entities", "arXiv answered with malformed XML"),
        ("api_error", "arXiv rejected the query: incorrect id format for 1234.56789"),
        ("slow", "arXiv timed out after 0.3 s"),
    ],
)
async def test_failures_are_one_line(api: FakeSearchApi, failure: str, message: str) -> None:
    api.failure = failure  # type: ignore[assignment]

    with pytest.raises(ProviderError) as caught:
        await provider(api).search("tram", 5)

    assert str(caught.value) == message


def test_calls_are_spaced_across_event_loops(api: FakeSearchApi) -> None:
    arxiv = provider(api, INTERVAL)

    for _ in range(3):
        asyncio.run(arxiv.search("tram", 1))

    assert spaced([request.at for request in api.requests])


async def test_concurrent_calls_from_two_providers_are_spaced_too(api: FakeSearchApi) -> None:
    first, second = provider(api, INTERVAL), provider(api, INTERVAL)

    await asyncio.gather(first.search("tram", 1), second.search("tram", 1), first.search("tram", 1))

    assert len(api.requests) == 3 and spaced(sorted(request.at for request in api.requests))


def test_the_pacer_books_slots_and_lets_the_first_call_go_at_once() -> None:
    pacer = Pacer()

    waits = [pacer.reserve(INTERVAL) for _ in range(3)]

    assert waits[0] == 0.0
    assert waits[1] == pytest.approx(INTERVAL, abs=0.01) and waits[2] == pytest.approx(2 * INTERVAL, abs=0.01)
    assert pacer_for("https://export.arxiv.org") is pacer_for("https://export.arxiv.org")


def spaced(arrivals: list[float]) -> bool:
    """Whether requests arrived `INTERVAL` apart, give or take the jitter of setting up a connection."""
    return all(later - earlier >= INTERVAL - JITTER for earlier, later in pairwise(arrivals))
