"""The Exa provider, driving the real exa-py client against a fake Exa on 127.0.0.1."""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Iterator

import pytest
from support.fake_search_apis import FakeHit, FakeSearchApi

from research_assistant.schemas import SourceType
from research_assistant.search.base import ProviderError, SearchProvider
from research_assistant.search.exa import ExaProvider

KEY = "exa-test-5ecret-key"
TIMEOUT = 5.0
"""Ample for the fake on a busy machine; only the 'slow' failure is tested against `SLOW_TIMEOUT`."""
SLOW_TIMEOUT = 0.3


@pytest.fixture
def api() -> Iterator[FakeSearchApi]:
    with FakeSearchApi("exa", api_key=KEY) as fake:
        yield fake


def _timeout(api: FakeSearchApi) -> float:
    return SLOW_TIMEOUT if api.failure == "slow" else TIMEOUT


def provider(api: FakeSearchApi, category: str | None = None) -> ExaProvider:
    return ExaProvider(KEY, api.base_url, category=category, timeout=_timeout(api))


async def test_results_are_normalized_with_highlights_as_snippets(api: FakeSearchApi) -> None:
    api.results["tram depots"] = [
        FakeHit("https://example.org/b", "Depot list", "Depots hold trams.", 0.12),
        FakeHit(
            "https://Example.org/a/?utm_medium=x",
            "Kallbacka\tDepot",
            "The depot opened in 2009.",
            0.34,
            "2023-02-23T01:17:06.594Z",
            ("Ada Lane",),
        ),
    ]
    exa: SearchProvider = provider(api)

    results = await exa.search("tram depots", 5)

    assert [result.locator for result in results] == ["https://example.org/a/", "https://example.org/b"]
    first = results[0]
    assert (first.title, first.snippet, first.score) == ("Kallbacka Depot", "The depot opened in 2009.", 0.34)
    assert (first.published, first.author) == ("2023-02-23", "Ada Lane")
    assert (first.provider, first.source_type) == ("exa", SourceType.WEB)
    assert results[1].published is None and results[1].author is None
    assert await exa.prepare() == []


async def test_the_request_carries_the_key_in_x_api_key_and_asks_for_highlights(api: FakeSearchApi) -> None:
    await provider(api, "research paper").search(" tram depots ", 4)

    (request,) = api.requests
    assert (request.method, request.path) == ("POST", "/search")
    assert request.headers["x-api-key"] == KEY
    assert "authorization" not in request.headers
    body = request.body
    assert (body["query"], body["numResults"], body["category"], body["type"]) == (
        "tram depots",
        4,
        "research paper",
        "auto",
    )
    assert body["contents"]["highlights"]["maxCharacters"] > 0
    assert KEY not in str(body)


async def test_no_category_sends_none(api: FakeSearchApi) -> None:
    await provider(api).search("tram", 3)

    assert "category" not in api.requests[0].body


@pytest.mark.parametrize(
    ("category", "name", "source_type"),
    [
        (None, "exa", SourceType.WEB),
        ("news", "exa-news", SourceType.NEWS),
        ("research paper", "exa-research-paper", SourceType.ACADEMIC),
        ("company", "exa-company", SourceType.WEB),
    ],
)
async def test_category_decides_name_and_source_type(
    api: FakeSearchApi, category: str | None, name: str, source_type: SourceType
) -> None:
    exa = provider(api, category)

    results = await exa.search("tram", 5)

    assert (exa.name, exa.source_types) == (name, frozenset({source_type}))
    assert {(result.provider, result.source_type) for result in results} == {(name, source_type)}


async def test_without_scores_the_order_gives_the_score(api: FakeSearchApi) -> None:
    api.results["q"] = [FakeHit("https://example.org/1", "One", "a"), FakeHit("https://example.org/2", "Two", "b")]

    results = await provider(api).search("q", 5)

    assert [(result.title, result.score) for result in results] == [("One", 1.0), ("Two", 0.5)]


async def test_unusable_and_duplicate_urls_are_dropped(api: FakeSearchApi) -> None:
    api.results["q"] = [
        FakeHit("https://example.org/x?b=2&a=1", "X", score=0.5),
        FakeHit("mailto:someone@example.org", "Mail", score=0.45),
        FakeHit("https://example.org/x?a=1&b=2", "X again", score=0.4),
        FakeHit("http://127.0.0.1:8123/page", "Local", score=0.3),
    ]

    results = await provider(api).search("q", 5)

    assert [result.locator for result in results] == ["https://example.org/x?a=1&b=2", "http://127.0.0.1:8123/page"]
    assert [result.title for result in results] == ["X", "Local"]


async def test_a_limit_above_exas_ceiling_asks_for_a_hundred(api: FakeSearchApi) -> None:
    await provider(api).search("q", 500)

    assert api.requests[0].body["numResults"] == 100


@pytest.mark.parametrize(("query", "limit"), [("", 5), ("\n\t", 5), ("tram", 0)])
async def test_nothing_to_search_sends_nothing(api: FakeSearchApi, query: str, limit: int) -> None:
    assert await provider(api).search(query, limit) == []
    assert api.requests == []


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        ("401", "Exa rejected the API key (HTTP 401)"),
        ("429", "Exa is limiting the request rate (HTTP 429)"),
        ("500", "Exa answered HTTP 500"),
        ("api_error", "Exa rejected the request as invalid (HTTP 400)"),
        ("malformed", "Exa answered with malformed JSON"),
        ("slow", "Exa timed out after 0.3 s"),
    ],
)
async def test_failures_are_one_clean_line_without_the_key(api: FakeSearchApi, failure: str, message: str) -> None:
    api.failure = failure  # type: ignore[assignment]
    exa = provider(api)

    with pytest.raises(ProviderError) as caught:
        await exa.search("tram", 5)

    assert str(caught.value) == message
    logged = "".join(traceback.format_exception(caught.value))
    assert KEY not in logged and KEY not in repr(caught.value) and KEY not in repr(exa)


async def test_a_wrong_key_quoted_back_by_the_server_is_not_repeated(api: FakeSearchApi) -> None:
    wrong = "exa-wrong-key-456"

    with pytest.raises(ProviderError, match=r"^Exa rejected the API key \(HTTP 401\)$") as caught:
        await ExaProvider(wrong, api.base_url, timeout=TIMEOUT).search("tram", 5)

    assert api.requests[0].headers["x-api-key"] == wrong
    assert wrong not in "".join(traceback.format_exception(caught.value))


def test_one_provider_serves_successive_event_loops(api: FakeSearchApi) -> None:
    exa = provider(api)

    assert asyncio.run(exa.search("tram", 5)) == asyncio.run(exa.search("tram", 5))
    assert len(api.requests) == 2


def test_a_blank_key_is_refused() -> None:
    with pytest.raises(ValueError, match="API key"):
        ExaProvider("", "https://api.exa.ai")
