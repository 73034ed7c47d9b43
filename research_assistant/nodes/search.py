"""search: one task per query (`Send`), then the pick of sources to read.

It is a compiled subgraph used as the `search` node. Before the first round
every provider gets ready (the local corpus is brought in step with its
folder); then a fan-out over the round's queries, each asking every
configured kind of source once (providers of the same kinds are fallbacks for
one another: Tavily, then Exa), and a fan-in that de-duplicates the hits by
normalized locator against every source the run already knows and picks the
best new ones within the run's source budget. Web answers are cached on disk
(`SearchCache`), so a re-run asks no provider again.
"""

from __future__ import annotations

import asyncio
import operator
from collections import defaultdict
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Annotated, Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send
from pydantic import BaseModel, Field

from research_assistant.concurrency import limit
from research_assistant.context import Context
from research_assistant.knowledge.documents import source_id_for
from research_assistant.knowledge.text import normalize_query
from research_assistant.progress import emit
from research_assistant.schemas import Notice, SearchResult, SourceRecord, SourceStatus, SourceType
from research_assistant.search.base import ProviderError, SearchProvider
from research_assistant.search.cache import SearchCache
from research_assistant.services import services_for
from research_assistant.settings import get_settings
from research_assistant.state import ResearchState, SearchTask, SourcesUpdate, union
from research_assistant.web.credibility import assess_credibility
from research_assistant.web.urls import normalize_url


class Hit(BaseModel):
    result: SearchResult
    sub_question_id: str
    rank: int = Field(default=0, description="Position in its provider's answer to its query, 0 first.")


class SearchPhase(ResearchState):
    """The search subgraph's state: the run's state plus the hits of this round."""

    hits: Annotated[list[Hit], operator.add] = Field(default_factory=list)


class SearchOutput(SourcesUpdate):
    search_history: Annotated[list[str], union] = Field(default_factory=list)
    to_browse: list[str] = Field(default_factory=list)


async def prepare_providers(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Before the first round, let every provider get ready (index the corpus) and report what it skipped."""
    if state.iteration > 0:
        return {}
    notices: list[Notice] = []
    for provider in services_for(runtime.context).providers:
        for notice in await provider.prepare(state.run_id):
            emit(runtime, "search", notice.message, level=notice.level)
            notices.append(notice)
    return {"notices": notices}


def dispatch_queries(state: ResearchState, runtime: Runtime[Context]) -> list[Send] | str:
    """One `run_query` task per query not run before in this research."""
    done = set(state.search_history)
    limit = runtime.context.profile.results_per_query
    preferred = {s.id: s.source_types for s in state.plan.sub_questions} if state.plan else {}
    tasks = [
        Send("run_query", SearchTask(query=query, limit=limit, source_types=preferred.get(query.sub_question_id, [])))
        for query in state.pending_queries
        if normalize_query(query.text) not in done
    ]
    return tasks or "select_sources"


async def run_query(state: SearchTask, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask each kind of source once, all kinds at the same time; providers of the same kinds stand in
    for one another, in order."""
    services = services_for(runtime.context)

    async def ask(group: list[SearchProvider]) -> tuple[list[Hit], list[Notice]]:
        failures: list[Notice] = []
        for provider in group:
            try:
                results = await _search(provider, state, runtime.context, services.search_cache)
            except ProviderError as error:
                failures.append(Notice(message=f"search provider '{provider.name}' failed: {error}"))
                continue
            ranked = [Hit(result=r, sub_question_id=state.query.sub_question_id, rank=n) for n, r in enumerate(results)]
            return ranked, failures
        return [], failures

    groups = preferred_groups(_fallback_groups(services.providers), state.source_types)
    answers = await asyncio.gather(*(ask(group) for group in groups))
    hits = [hit for group_hits, _ in answers for hit in group_hits]
    notices = [notice for _, group_notices in answers for notice in group_notices]
    if runtime.context.recency_days is not None:
        recent = [hit for hit in hits if is_recent(hit.result, runtime.context.recency_days, date.today())]
        if len(recent) < len(hits):
            emit(
                runtime,
                "search",
                f"{len(hits) - len(recent)} results older than {runtime.context.recency_days} days left out",
            )
        hits = recent
    for notice in notices:
        emit(runtime, "search", notice.message, level="warning")
    return {"hits": hits, "search_history": [normalize_query(state.query.text)], "notices": notices}


def preferred_groups(groups: list[list[SearchProvider]], preferred: Sequence[SourceType]) -> list[list[SearchProvider]]:
    """The provider groups serving the kinds of source a sub-question prefers; all of them when it prefers
    none, or none of the run's kinds."""
    chosen = [group for group in groups if group[0].source_types & set(preferred)]
    return chosen or groups


def is_recent(result: SearchResult, days: int, today: date) -> bool:
    """Whether a result was published within `days` of `today`; a result without a usable date counts as recent."""
    try:
        published = date.fromisoformat((result.published or "")[:10])
    except ValueError:
        return True
    return published >= today - timedelta(days=days)


def _fallback_groups(providers: Sequence[SearchProvider]) -> list[list[SearchProvider]]:
    """Providers grouped by the source kinds they serve, in configuration order."""
    groups: dict[frozenset[SourceType], list[SearchProvider]] = {}
    for provider in providers:
        groups.setdefault(provider.source_types, []).append(provider)
    return list(groups.values())


async def _search(
    provider: SearchProvider, task: SearchTask, context: Context, cache: SearchCache | None
) -> list[SearchResult]:
    """The provider's results, from the search cache when a fresh answer is there (never for local files).

    At most `RESEARCH_SEARCH_CONCURRENCY` searches per provider run at once: a deep research sends fifteen
    queries in one round, and APIs rate-limit bursts.
    """
    if cache is None or SourceType.LOCAL in provider.source_types:
        return await provider.search(task.query.text, task.limit)
    key = cache.key(provider.name, provider.source_types, task.query.text, task.limit)
    cached = None if context.refresh else cache.get(key)
    if cached is not None:
        return cached
    async with limit(("search", provider.name), get_settings().search_concurrency):
        results = await provider.search(task.query.text, task.limit)
    cache.put(key, results)
    return results


_RANK_CONSTANT = 10
"""Reciprocal-rank damping: a source's relevance is the sum of 1 / (10 + rank) over the answers it is in."""


def select_sources(state: SearchPhase, runtime: Runtime[Context]) -> dict[str, Any]:
    """Merge hits by source, keep what is new, and choose the best within the source budget.

    Providers score on different scales, so relevance is reciprocal-rank fusion over every answer a source
    appears in, weighted by the source's credibility; the providers' own scores only break ties.
    """
    candidates: dict[str, SourceRecord] = {
        source_id: source for source_id, source in state.sources.items() if source.status is SourceStatus.FOUND
    }
    relevance: dict[str, float] = defaultdict(float)
    for hit in state.hits:
        source_id = source_id_for(hit.result.locator)
        known = state.sources.get(source_id)
        if known is not None and known.status is not SourceStatus.FOUND:
            continue
        relevance[source_id] += 1.0 / (_RANK_CONSTANT + hit.rank)
        current = candidates.get(source_id)
        if current is None:
            result = hit.result
            current = SourceRecord(
                id=source_id,
                locator=normalize_url(result.locator),
                title=result.title,
                provider=result.provider,
                source_type=result.source_type,
                snippet=result.snippet,
                score=result.score,
                published=result.published,
                author=result.author,
                credibility=assess_credibility(
                    result.locator, source_type=result.source_type, author=result.author, published=result.published
                ),
            )
        candidates[source_id] = current.model_copy(
            update={
                "score": max(current.score, hit.result.score),
                "sub_question_ids": union(current.sub_question_ids, [hit.sub_question_id]),
            }
        )
    read = sum(1 for source in state.sources.values() if source.status is SourceStatus.READ)
    budget = max(runtime.context.source_limit - read, 0)

    def priority(source: SourceRecord) -> tuple[float, ...]:
        trust = source.credibility.score if source.credibility else 0.5
        weighted = relevance.get(source.id, 0.0) * (0.5 + trust)
        # Sources that serve more sub-questions first; the locator breaks ties deterministically.
        return (-len(source.sub_question_ids), -round(weighted, 9), -source.score)

    ranked = sorted(candidates.values(), key=lambda s: (*priority(s), s.locator))
    chosen = [source.id for source in ranked[:budget]]
    new = sum(1 for source_id in candidates if source_id not in state.sources)
    emit(
        runtime,
        "search",
        f"{len(state.hits)} results, {new} new sources, {len(chosen)} to read",
        results=len(state.hits),
        new_sources=new,
        to_read=len(chosen),
    )
    return {"sources": candidates, "to_browse": chosen}


def build_search_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    builder = StateGraph(SearchPhase, context_schema=Context, output_schema=SearchOutput)
    builder.add_node("prepare_providers", prepare_providers)
    builder.add_node("run_query", run_query, input_schema=SearchTask)
    builder.add_node("select_sources", select_sources)
    builder.add_edge(START, "prepare_providers")
    builder.add_conditional_edges("prepare_providers", dispatch_queries, ["run_query", "select_sources"])
    builder.add_edge("run_query", "select_sources")
    builder.add_edge("select_sources", END)
    return builder.compile(name="search")
