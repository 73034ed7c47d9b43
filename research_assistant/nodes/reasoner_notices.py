"""What the reasoner has to say about its steps (a fallback, an unusable reply), passed on to the run."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_assistant.progress import emit
from research_assistant.schemas import Notice
from research_assistant.services import Services


def reasoner_notices(runtime: Runtime[Any], node: str, services: Services) -> list[Notice]:
    """The reasoner's notices since its last step, each also shown as a warning in the progress."""
    take = getattr(services.reasoner, "take_notices", None)
    notices: list[Notice] = take() if take is not None else []
    for notice in notices:
        emit(runtime, node, notice.message, level="warning")
    return notices
