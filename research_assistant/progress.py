"""Progress events: what each step did, as the CLI and the page show it.

Nodes emit `ProgressEvent`s through LangGraph's custom stream; the runner
turns them, with each node's start and end, into the run's trace, which every
interface renders (see `runs/trace.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from research_assistant.echo import Echoed
from research_assistant.secrets import scrub_value

if TYPE_CHECKING:
    from langgraph.runtime import Runtime


MODEL_NODE = "llm/"
"""Model calls report their tokens and cost as progress events of node `llm/<role>`."""


class SourceOutcome(BaseModel):
    """What happened when a source was read."""

    source_id: str
    locator: Echoed
    title: Echoed = ""
    outcome: str = Field(description="'read' (a local file), 'fetched', 'cached' or 'failed'.")
    method: str = Field(default="", description="How the text was obtained: http, browser, archive…, cache.")
    reason: Echoed = Field(default="", description="Why a source failed.")


class ProgressEvent(BaseModel):
    node: str
    message: Echoed
    counts: dict[str, float] = Field(default_factory=dict)
    level: str = "info"
    source: SourceOutcome | None = None


def emit(
    runtime: Runtime[Any],
    node: str,
    message: str,
    level: str = "info",
    source: SourceOutcome | None = None,
    **counts: float,
) -> None:
    event = ProgressEvent(node=node, message=message, counts=counts, level=level, source=source)
    runtime.stream_writer(scrub_value(event.model_dump(exclude_none=True)))
