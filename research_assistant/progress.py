"""Progress events: what each step did, as the CLI and the page show it.

Nodes emit one `ProgressEvent` per step through LangGraph's custom stream, so
every interface renders the same stream (`astream(stream_mode="custom")`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from langgraph.runtime import Runtime


class ProgressEvent(BaseModel):
    node: str
    message: str
    counts: dict[str, float] = Field(default_factory=dict)
    level: str = "info"


def emit(runtime: Runtime[Any], node: str, message: str, level: str = "info", **counts: float) -> None:
    runtime.stream_writer(ProgressEvent(node=node, message=message, counts=counts, level=level).model_dump())
