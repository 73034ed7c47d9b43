"""browse: one task per chosen source (`Send`), each reading its text and, for a page, finding its evidence.

A compiled subgraph used as the `browse` node. With a reasoner whose scores
compare across calls, a task finds the evidence in a page as soon as the page
is read (`extract.evidence_in`), so no page waits for another; the `extract`
node then keeps the round's best, and finds the evidence of the other sources
(see `extract.extracted_on_read`). A source
that cannot be read is recorded as failed with its reason; it never fails the
run. A web page still loading `ROUND_READ_SECONDS` after its task began
(waiting for a connection slot, retries, rendering and the archive included)
is a straggler: it is left unread, with that reason, so the round can close.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from research_assistant.context import Context
from research_assistant.nodes.extract import evidence_in, extracted_on_read
from research_assistant.nodes.reasoner_notices import reasoner_notices, usage_of
from research_assistant.progress import SourceOutcome, emit
from research_assistant.reading import CACHE_METHOD, ReadError
from research_assistant.schemas import Notice, SourceStatus, SourceType
from research_assistant.search.credibility import assess_credibility
from research_assistant.services import services_of
from research_assistant.state import BrowseTask, BrowseUpdate, ResearchState

ROUND_READ_SECONDS = 30.0
"""Longest a round waits for one web page; the tasks of a round start together, so this bounds the round's
reading. Local files are not cut short: their reading is indexing, which a user asked for."""


def dispatch_reads(state: ResearchState) -> list[Send] | str:
    sub_questions = state.plan.sub_questions if state.plan else []
    tasks = [
        BrowseTask(
            source=state.sources[source_id],
            run_id=state.run_id,
            question=state.question,
            sub_questions=sub_questions,
            analysis=state.analysis,
            iteration=state.iteration,
        )
        for source_id in state.to_browse
    ]
    return [Send("read_source", task) for task in tasks] or END


async def read_source(state: BrowseTask, runtime: Runtime[Context]) -> dict[str, Any]:
    """Read one source, then find its evidence for every sub-question."""
    source = state.source
    reader = services_of(runtime.context).readers.get(source.source_type)
    try:
        if reader is None:
            raise ReadError(f"no reader for {source.source_type.value} sources")
        limit = None if source.source_type is SourceType.LOCAL else ROUND_READ_SECONDS
        try:
            async with asyncio.timeout(limit) as deadline:
                document = await reader.read(source, run_id=state.run_id, refresh=runtime.context.refresh)
        except TimeoutError as late:
            if not deadline.expired():
                raise
            raise ReadError(f"still loading after {limit:g} s; left unread so the round could close") from late
    except ReadError as error:
        outcome = SourceOutcome(
            source_id=source.id, locator=source.locator, title=source.title, outcome="failed", reason=str(error)
        )
        emit(runtime, "browse", f"failed: {source.title}: {error}", level="warning", source=outcome, failed=1)
        return {"sources": {source.id: source.model_copy(update={"status": SourceStatus.FAILED, "reason": str(error)})}}
    published = document.published or source.published
    author = document.author or source.author
    read = source.model_copy(
        update={
            "status": SourceStatus.READ,
            "title": document.title or source.title,
            "accessed_at": datetime.fromisoformat(document.fetched_at).date().isoformat(),
            "access_method": document.access_method,
            "chars": len(document.text),
            "published": published,
            "author": author,
            "credibility": assess_credibility(
                source.locator, source_type=source.source_type, author=author, published=published
            ),
        }
    )
    cached = document.access_method == CACHE_METHOD
    fetched = not cached and source.source_type is not SourceType.LOCAL
    how = "from cache" if cached else f"via {document.access_method}"
    outcome = SourceOutcome(
        source_id=source.id,
        locator=source.locator,
        title=read.title,
        outcome="cached" if cached else "fetched" if fetched else "read",
        method=document.access_method,
    )
    emit(
        runtime,
        "browse",
        f"read {how}: {read.title} ({read.chars:,} characters)",
        source=outcome,
        read=1,
        cached=int(cached),
        fetched=int(fetched),
    )
    notices = [Notice(message=f"{read.title}: {note}") for note in document.notes]
    for notice in notices:
        emit(runtime, "browse", notice.message, level="warning")
    reasoner = services_of(runtime.context).reasoner
    if not extracted_on_read(source, reasoner):
        return {"sources": {source.id: read}, "notices": notices}  # `extract` ranks these sources together
    step = await evidence_in([source.id], state.question, state.sub_questions, state.analysis, runtime.context)
    found = step.value
    emit(runtime, "browse", f"{len(found)} evidence items found in {read.title}")
    return {
        "sources": {source.id: read},
        "found": {item.id: item for item in found},
        "notices": [*notices, *reasoner_notices(runtime, "extract", step)],
        "model_usage": usage_of(step, f"extract {state.iteration + 1}: {source.id}"),
    }


def build_browse_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    builder = StateGraph(ResearchState, context_schema=Context, output_schema=BrowseUpdate)
    builder.add_node("read_source", read_source, input_schema=BrowseTask)
    builder.add_conditional_edges(START, dispatch_reads, ["read_source", END])
    builder.add_edge("read_source", END)
    return builder.compile(name="browse")
