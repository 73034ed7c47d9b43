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
from research_assistant.progress import emit
from research_assistant.reading import ReadError
from research_assistant.schemas import SourceStatus
from research_assistant.services import services_for
from research_assistant.state import BrowseTask, ResearchState, SourcesUpdate


def dispatch_reads(state: ResearchState) -> list[Send] | str:
    return [Send("read_source", BrowseTask(source=state.sources[source_id])) for source_id in state.to_browse] or END


async def read_source(state: BrowseTask, runtime: Runtime[Context]) -> dict[str, Any]:
    source = state.source
    reader = services_for(runtime.context).readers.get(source.source_type)
    try:
        if reader is None:
            raise ReadError(f"no reader for {source.source_type.value} sources")
        document = await reader.read(source)
    except ReadError as error:
        emit(runtime, "browse", f"failed: {source.title}: {error}", level="warning", failed=1)
        return {"sources": {source.id: source.model_copy(update={"status": SourceStatus.FAILED, "reason": str(error)})}}
    accessed = datetime.fromisoformat(document.fetched_at).date().isoformat()
    read = source.model_copy(
        update={
            "status": SourceStatus.READ,
            "title": document.title or source.title,
            "accessed_at": accessed,
            "access_method": document.access_method,
            "chars": len(document.text),
            "published": document.published or source.published,
        }
    )
    emit(runtime, "browse", f"read: {read.title} ({read.chars:,} characters)", read=1)
    return {"sources": {source.id: read}}


def build_browse_graph() -> CompiledStateGraph[Any, Any, Any, Any]:
    builder = StateGraph(ResearchState, context_schema=Context, output_schema=SourcesUpdate)
    builder.add_node("read_source", read_source, input_schema=BrowseTask)
    builder.add_conditional_edges(START, dispatch_reads, ["read_source", END])
    builder.add_edge("read_source", END)
    return builder.compile(name="browse")
