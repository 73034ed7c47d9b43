"""search: one task per query (`Send`), then the pick of sources to read.

It is a compiled subgraph used as the `search` node. Before the first round
every provider gets ready (the local corpus is brought in step with its
folder); then a fan-out over the round's queries, each routed to the
configured kinds of source (`search.routing`: fallbacks, cache, recency), and
a fan-in that merges the hits by source against every source the run already
knows and picks the best new ones within the run's source budget
(`search.fusion`). A question that asks what an acronym stands for adds one
task to the first round: the local documents that spell it out
(`look_up_expansion`), which no query's wording ranks high.
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
from research_assistant.progress import emit
from research_assistant.reasoning.lookups import Lookups
from research_assistant.schemas import Notice
from research_assistant.search.base import WordLookup
from research_assistant.search.fusion import select
from research_assistant.search.routing import Hit, route_query
from research_assistant.services import services_of
from research_assistant.state import ResearchState, SearchTask, SourcesUpdate, union
from research_assistant.text.tokens import normalize_query


class SearchPhase(ResearchState):
    """The search subgraph's state: the run's state plus the hits of this round."""

    hits: Annotated[list[Hit], operator.add] = Field(default_factory=list)


class SearchOutput(SourcesUpdate):
    search_history: Annotated[list[str], union] = Field(default_factory=list)
    to_browse: list[str] = Field(default_factory=list)


class ExpansionTask(BaseModel):
    """Input of the look-up of the documents that spell out the acronym a question asks about."""

    acronym: str
    sub_question_id: str
    limit: int


async def prepare_providers(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Before the first round, let every provider get ready (index the corpus) and report what it skipped."""
    if state.iteration > 0:
        return {}
    notices: list[Notice] = []

    def line(message: str) -> None:  # called from the indexing thread, as LangGraph's stream writer allows
        emit(runtime, "search", message)

    for provider in services_of(runtime.context).providers:
        for notice in await provider.prepare(state.run_id, line):
            emit(runtime, "search", notice.message, level=notice.level)
            notices.append(notice)
    return {"notices": notices}


def api_results_wanted(context: Context) -> int:
    """Results each query asks of a search API: the depth's number, or as many as the round may read if that is
    more. The queries of one question often share an engine's best hits, so that each query's few first results
    together name fewer pages than the round may read; the ones below them fill the round instead (APIs charge
    per request, not per result, up to their ceiling), and rank fusion keeps them behind every query's best.
    The local corpus keeps the depth's number: its search ranks every chunk, so documents that no query ranks
    high are seldom about the question (reading them cost two of 106 offline answers)."""
    return max(context.profile.results_per_query, context.source_limit)


def dispatch_queries(state: ResearchState, runtime: Runtime[Context]) -> list[Send] | str:
    """One `run_query` task per query not run before in this research."""
    done = set(state.search_history)
    limit = runtime.context.profile.results_per_query
    api_limit = api_results_wanted(runtime.context)
    preferred = {s.id: s.source_types for s in state.plan.sub_questions} if state.plan else {}
    tasks = [
        Send(
            "run_query",
            SearchTask(
                query=query, limit=limit, api_limit=api_limit, source_types=preferred.get(query.sub_question_id, [])
            ),
        )
        for query in state.pending_queries
        if normalize_query(query.text) not in done
    ]
    if state.iteration == 0 and state.plan and state.plan.sub_questions:
        first = state.plan.sub_questions[0]
        acronym = services_of(runtime.context).reasoner.lookups(state.question, first).acronym
        if acronym:
            tasks.append(
                Send("look_up_expansion", ExpansionTask(acronym=acronym, sub_question_id=first.id, limit=limit))
            )
    return tasks or "select_sources"


async def run_query(state: SearchTask, runtime: Runtime[Context]) -> dict[str, Any]:
    """Route one query to the run's providers and report what was left out or failed."""
    services = services_of(runtime.context)
    context = runtime.context
    routed = await route_query(
        state, services.providers, services.search_cache, refresh=context.refresh, recency_days=context.recency_days
    )
    if routed.too_old:
        emit(runtime, "search", f"{routed.too_old} results older than {context.recency_days} days left out")
    for notice in routed.failures:
        emit(runtime, "search", notice.message, level="warning")
    return {"hits": routed.hits, "search_history": [normalize_query(state.query.text)], "notices": routed.failures}


async def look_up_expansion(state: ExpansionTask, runtime: Runtime[Context]) -> dict[str, Any]:
    """The local documents that spell out the acronym the question asks about, as hits for the question itself:
    a manual spells an acronym out once, often on a page about something else, which no query ranks high."""
    holds = Lookups(acronym=state.acronym).spells_out
    hits: list[Hit] = []
    for provider in services_of(runtime.context).providers:
        if isinstance(provider, WordLookup):
            found = await provider.where_word(state.acronym, holds, state.limit)
            hits += [
                Hit(result=result, sub_question_id=state.sub_question_id, rank=n) for n, result in enumerate(found)
            ]
    if hits:
        emit(runtime, "search", f"{state.acronym} is spelled out in {len(hits)} local documents")
    return {"hits": hits}


def select_sources(state: SearchPhase, runtime: Runtime[Context]) -> dict[str, Any]:
    """Merge hits by source, keep what is new, and choose the best within the source budget."""
    order = [sub_question.id for sub_question in state.plan.sub_questions] if state.plan else []
    selection = select(state.hits, state.sources, runtime.context.source_limit, order)
    emit(
        runtime,
        "search",
        f"{len(state.hits)} results, {selection.new} new sources, {len(selection.chosen)} to read",
        results=len(state.hits),
        new_sources=selection.new,
        to_read=len(selection.chosen),
    )
    return {"sources": selection.candidates, "to_browse": selection.chosen}


def build_search_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    builder = StateGraph(SearchPhase, context_schema=Context, output_schema=SearchOutput)
    builder.add_node("prepare_providers", prepare_providers)
    builder.add_node("run_query", run_query, input_schema=SearchTask)
    builder.add_node("look_up_expansion", look_up_expansion, input_schema=ExpansionTask)
    builder.add_node("select_sources", select_sources)
    builder.add_edge(START, "prepare_providers")
    builder.add_conditional_edges(
        "prepare_providers", dispatch_queries, ["run_query", "look_up_expansion", "select_sources"]
    )
    builder.add_edge("run_query", "select_sources")
    builder.add_edge("look_up_expansion", "select_sources")
    builder.add_edge("select_sources", END)
    return builder.compile(name="search")
