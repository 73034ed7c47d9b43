"""browse: one task per chosen source (`Send`), each reading its text.

A compiled subgraph used as the `browse` node. A source that cannot be read is
recorded as failed with its reason; it never fails the run.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import Send

from research_assistant.context import Context
from research_assistant.progress import SourceOutcome, emit
from research_assistant.reading import CACHE_METHOD, ReadError
from research_assistant.schemas import Notice, SourceStatus, SourceType
from research_assistant.services import services_of
from research_assistant.state import BrowseTask, ResearchState, SourcesUpdate
from research_assistant.web.credibility import assess_credibility


def dispatch_reads(state: ResearchState) -> list[Send] | str:
    tasks = [BrowseTask(source=state.sources[source_id], run_id=state.run_id) for source_id in state.to_browse]
    return [Send("read_source", task) for task in tasks] or END


async def read_source(state: BrowseTask, runtime: Runtime[Context]) -> dict[str, Any]:
    source = state.source
    reader = services_of(runtime.context).readers.get(source.source_type)
    try:
        if reader is None:
            raise ReadError(f"no reader for {source.source_type.value} sources")
        document = await reader.read(source, run_id=state.run_id, refresh=runtime.context.refresh)
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
    return {"sources": {source.id: read}, "notices": notices}


def build_browse_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    builder = StateGraph(ResearchState, context_schema=Context, output_schema=SourcesUpdate)
    builder.add_node("read_source", read_source, input_schema=BrowseTask)
    builder.add_conditional_edges(START, dispatch_reads, ["read_source", END])
    builder.add_edge("read_source", END)
    return builder.compile(name="browse")
