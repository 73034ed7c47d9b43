"""Routers: pure functions of state."""

from __future__ import annotations

from typing import Literal

from research_assistant.state import ResearchState


def route_after_evaluation(state: ResearchState) -> Literal["search", "synthesize"]:
    """Back to search while evaluate_progress has not decided to stop."""
    return "synthesize" if state.stop_reason else "search"
