"""Every search provider tries again where the API asked for patience (429, 5xx), and only there."""

from __future__ import annotations

import pytest
from support.fake_search_apis import ApiKind, FakeSearchApi

from research_assistant.search.arxiv import ArxivProvider
from research_assistant.search.base import ProviderError, SearchProvider
from research_assistant.search.exa import ExaProvider
from research_assistant.search.normalize import RETRY_ATTEMPTS, with_retries
from research_assistant.search.tavily import TavilyProvider
from research_assistant.search.wikipedia import WikipediaProvider

KEY = "test-key-123"
AGENT = "ResearchAssistantTests/0.1 (+https://example.org/contact)"
KINDS: list[ApiKind] = ["tavily", "exa", "wikipedia", "arxiv"]


def provider(api: FakeSearchApi) -> SearchProvider:
    if api.kind == "tavily":
        return TavilyProvider(KEY, api.base_url, timeout=2.0)
    if api.kind == "exa":
        return ExaProvider(KEY, api.base_url, timeout=2.0)
    if api.kind == "wikipedia":
        return WikipediaProvider(api.base_url, timeout=2.0, user_agent=AGENT)
    return ArxivProvider(api.base_url, timeout=2.0, user_agent=AGENT, min_interval=0.0)


@pytest.mark.parametrize("kind", KINDS)
async def test_a_server_error_is_tried_again_then_named(kind: ApiKind) -> None:
    with FakeSearchApi(kind, api_key=KEY) as api:
        api.failure = "500"
        with pytest.raises(ProviderError, match=r"answered HTTP 500$"):
            await provider(api).search("tram", 5)
        assert len(api.requests) == RETRY_ATTEMPTS


@pytest.mark.parametrize("kind", KINDS)
async def test_a_rejected_request_is_not_sent_again(kind: ApiKind) -> None:
    with FakeSearchApi(kind, api_key=KEY) as api:
        api.failure = "api_error"
        with pytest.raises(ProviderError, match="rejected"):
            await provider(api).search("tram", 5)
        assert len(api.requests) == 1


async def test_a_passing_failure_is_ridden_out() -> None:
    calls: list[int] = []

    async def busy_twice() -> str:
        calls.append(len(calls))
        if len(calls) < 3:
            raise ProviderError("Tavily is limiting the request rate (HTTP 429)", retryable=True)
        return "answer"

    assert await with_retries(busy_twice) == "answer"
    assert len(calls) == 3
