"""What the reasoner has to say after a step: what went wrong (a fallback, an unusable reply), passed on to
the run, and what its models spent, added to the run's state."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_assistant.progress import emit
from research_assistant.reasoning.base import Reasoner
from research_assistant.schemas import ModelUsage, Notice


def reasoner_notices(runtime: Runtime[Any], node: str, reasoner: Reasoner) -> list[Notice]:
    """The reasoner's notices since its last step, each also shown as a warning in the progress."""
    notices = reasoner.take_notices()
    for notice in notices:
        emit(runtime, node, notice.message, level="warning")
    return notices


def usage_of(reasoner: Reasoner, step: str) -> dict[str, ModelUsage]:
    """The `model_usage` update of a step: what the reasoner's models spent since its last step, under `step`."""
    spent = reasoner.take_usage()
    return {step: spent} if spent.roles else {}
