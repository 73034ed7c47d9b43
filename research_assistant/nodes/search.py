"""search: one task per query (`Send`), then the pick of sources to read.

It is a compiled subgraph used as the `search` node. Before the first round
every provider gets ready (the local corpus is brought in step with its
folder); then a fan-out over the round's queries, each asking every
configured provider, and a fan-in that de-duplicates the hits against every
source the run already knows and picks the best new ones within the run's
source budget.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send
from pydantic import BaseModel, Field

from research_assistant.context import Context
from research_assistant.knowledge.documents import source_id_for
from research_assistant.knowledge.text import normalize_query
from research_assistant.progress import emit
from research_assistant.schemas import Notice, SearchResult, SourceRecord, SourceStatus
from research_assistant.search.base import ProviderError
from research_assistant.services import services_for
from research_assistant.state import ResearchState, SearchTask, SourcesUpdate, union


class Hit(BaseModel):
    result: SearchResult
    sub_question_id: str


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
    tasks = [
        Send("run_query", SearchTask(query=query, limit=limit))
        for query in state.pending_queries
        if normalize_query(query.text) not in done
    ]
    return tasks or "select_sources"


async def run_query(state: SearchTask, runtime: Runtime[Context]) -> dict[str, Any]:
    hits: list[Hit] = []
    notices: list[Notice] = []
    for provider in services_for(runtime.context).providers:
        try:
            results = await provider.search(state.query.text, state.limit)
        except ProviderError as error:
            notices.append(Notice(message=f"search provider '{provider.name}' failed: {error}"))
            continue
        hits.extend(Hit(result=result, sub_question_id=state.query.sub_question_id) for result in results)
    return {"hits": hits, "search_history": [normalize_query(state.query.text)], "notices": notices}


def select_sources(state: SearchPhase, runtime: Runtime[Context]) -> dict[str, Any]:
    """Merge hits by source, keep what is new, and choose the best within the source budget."""
    candidates: dict[str, SourceRecord] = {
        source_id: source for source_id, source in state.sources.items() if source.status is SourceStatus.FOUND
    }
    for hit in state.hits:
        source_id = source_id_for(hit.result.locator)
        known = state.sources.get(source_id)
        if known is not None and known.status is not SourceStatus.FOUND:
            continue
        current = candidates.get(source_id)
        if current is None:
            result = hit.result
            current = SourceRecord(
                id=source_id,
                locator=result.locator,
                title=result.title,
                provider=result.provider,
                source_type=result.source_type,
                snippet=result.snippet,
                score=result.score,
                published=result.published,
            )
        candidates[source_id] = current.model_copy(
            update={
                "score": max(current.score, hit.result.score),
                "sub_question_ids": union(current.sub_question_ids, [hit.sub_question_id]),
            }
        )
    read = sum(1 for source in state.sources.values() if source.status is SourceStatus.READ)
    budget = max(runtime.context.source_limit - read, 0)
    # Sources that serve more sub-questions first, then by relevance; the id breaks ties deterministically.
    ranked = sorted(candidates.values(), key=lambda s: (-len(s.sub_question_ids), -s.score, s.locator))
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
