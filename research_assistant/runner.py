"""Drives the compiled graph for the interfaces: progress events out, final state back.

The CLI and the Streamlit page both run research through here, so they show
the same progress stream and get the same result.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from research_assistant.context import Context
from research_assistant.progress import ProgressEvent


async def run_research(
    question: str, context: Context, on_event: Callable[[ProgressEvent], None] | None = None
) -> dict[str, Any]:
    """Research `question` and return the graph's output (report, sources, evidence, notices, stop reason)."""
    from research_assistant.graph import build_graph

    final: dict[str, Any] = {}
    async for namespace, mode, chunk in build_graph().astream(
        {"question": question}, context=context, stream_mode=["custom", "values"], subgraphs=True
    ):
        if mode == "custom" and on_event is not None:
            on_event(ProgressEvent.model_validate(chunk))
        elif mode == "values" and not namespace and isinstance(chunk, dict):
            final = chunk
    return final
