"""What a reasoner's step has to say besides its value: what went wrong (a fallback, an unusable reply), passed
on to the run, and what its models spent, added to the run's state."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_assistant.progress import emit
from research_assistant.reasoning.base import Step
from research_assistant.schemas import ModelUsage, Notice


def reasoner_notices(runtime: Runtime[Any], node: str, step: Step[Any]) -> list[Notice]:
    """The step's notices, each also shown as a warning in the progress."""
    notices = step.said()
    for notice in notices:
        emit(runtime, node, notice.message, level="warning")
    return notices


def usage_of(step: Step[Any], label: str) -> dict[str, ModelUsage]:
    """The `model_usage` update of a step: what its models spent, under `label`."""
    return {label: step.usage} if step.usage.roles else {}
