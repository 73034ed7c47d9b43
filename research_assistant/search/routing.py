"""Search routing: which providers a query goes to, and what comes back from them.

Providers serving the same kinds of source stand in for one another, in configuration order (Tavily,
then Exa): the first that answers is the group's answer, and each one that fails leaves a notice. All
groups are asked at the same time. A sub-question that prefers some kinds of source asks only the groups
serving them (all of them, when none of the run's serves them). Web answers come from the search cache
when a fresh one is there, so a re-run asks no provider again. Results published longer ago than the
run's recency limit are left out; undated ones are kept.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Protocol

from pydantic import BaseModel, Field

from research_assistant.concurrency import limit
from research_assistant.schemas import Notice, SearchResult, SourceType
from research_assistant.search.base import ProviderError, SearchProvider
from research_assistant.settings import get_settings
from research_assistant.state import SearchTask


class SearchAnswers(Protocol):
    """What routing asks of the search cache (`search.cache.SearchCache`): a provider's answer to a query, kept
    under a key made of the provider, its kinds of source, the query and the number of results."""

    def key(self, provider: str, kinds: Iterable[str], query: str, limit: int) -> str: ...

    def get(self, key: str) -> list[SearchResult] | None:
        """The kept answer; None when there is none, or it is too old."""
        ...

    def put(self, key: str, results: list[SearchResult]) -> None: ...


class Hit(BaseModel):
    result: SearchResult
    sub_question_id: str
    rank: int = Field(default=0, description="Position in its provider's answer to its query, 0 first.")


@dataclass(frozen=True)
class Routed:
    """The hits of one query over every group of providers asked, and what went wrong on the way."""

    hits: list[Hit]
    failures: list[Notice]
    """One notice per provider that failed."""
    too_old: int = 0
    """Results left out for being older than the recency limit."""


async def route_query(
    task: SearchTask,
    providers: Sequence[SearchProvider],
    cache: SearchAnswers | None,
    *,
    refresh: bool = False,
    recency_days: int | None = None,
) -> Routed:
    """Ask each kind of source once, all kinds at the same time; providers of the same kinds stand in
    for one another, in order."""

    async def ask(group: list[SearchProvider]) -> tuple[list[Hit], list[Notice]]:
        failures: list[Notice] = []
        for provider in group:
            try:
                results = await cached_search(provider, task, cache, refresh=refresh)
            except ProviderError as error:
                message = f"search provider '{provider.name}' failed: {error}"
                failures.append(Notice(message=message, subject=task.query.text))  # each query's failure counts
                continue
            ranked = [Hit(result=r, sub_question_id=task.query.sub_question_id, rank=n) for n, r in enumerate(results)]
            return ranked, failures
        return [], failures

    answers = await asyncio.gather(*(ask(group) for group in provider_groups(providers, task.source_types)))
    hits = [hit for group_hits, _ in answers for hit in group_hits]
    failures = [notice for _, group_notices in answers for notice in group_notices]
    if recency_days is None:
        return Routed(hits, failures)
    recent = [hit for hit in hits if is_recent(hit.result, recency_days, date.today())]
    return Routed(recent, failures, too_old=len(hits) - len(recent))


def provider_groups(providers: Sequence[SearchProvider], preferred: Sequence[SourceType]) -> list[list[SearchProvider]]:
    """Providers grouped by the source kinds they serve, in configuration order: the groups serving the kinds
    of source a sub-question prefers; all of them when it prefers none, or none of the run's kinds."""
    groups: dict[frozenset[SourceType], list[SearchProvider]] = {}
    for provider in providers:
        groups.setdefault(provider.source_types, []).append(provider)
    chosen = [group for group in groups.values() if group[0].source_types & set(preferred)]
    return chosen or list(groups.values())


def is_recent(result: SearchResult, days: int, today: date) -> bool:
    """Whether a result was published within `days` of `today`; a result without a usable date counts as recent."""
    try:
        published = date.fromisoformat((result.published or "")[:10])
    except ValueError:
        return True
    return published >= today - timedelta(days=days)


async def cached_search(
    provider: SearchProvider, task: SearchTask, cache: SearchAnswers | None, *, refresh: bool = False
) -> list[SearchResult]:
    """The provider's results, from the search cache when a fresh answer is there (never for local files).

    At most `RESEARCH_SEARCH_CONCURRENCY` searches per provider run at once: a deep research sends fifteen
    queries in one round, and APIs rate-limit bursts.
    """
    if SourceType.LOCAL in provider.source_types:
        return await provider.search(task.query.text, task.limit)
    wanted = task.api_limit or task.limit
    if cache is None:
        return await provider.search(task.query.text, wanted)
    key = cache.key(provider.name, provider.source_types, task.query.text, wanted)
    cached = None if refresh else cache.get(key)
    if cached is not None:
        return cached
    async with limit(("search", provider.name), get_settings().search_concurrency):
        results = await provider.search(task.query.text, wanted)
    cache.put(key, results)
    return results
