"""A run's metrics, from its trace and its state.

Model usage comes from the state, where each step put what its models spent, so that `show` says what the
report's closing line says; from the trace's model-call events for a run whose state has none (yet).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from research_assistant.progress import MODEL_NODE, SourceOutcome
from research_assistant.runs.records import EventKind, RunMetrics, TraceEvent
from research_assistant.schemas import ModelUsage, RoleUsage
from research_assistant.state import total_usage


def model_usage(event: TraceEvent) -> tuple[str, RoleUsage] | None:
    """The role and usage (one call, cached or failed or neither) of a model call's progress event; None for any
    other event."""
    if event.kind is not EventKind.PROGRESS or not event.node.startswith(MODEL_NODE):
        return None
    usage = RoleUsage(
        input_tokens=int(event.counts.get("input_tokens", 0)),
        output_tokens=int(event.counts.get("output_tokens", 0)),
        cost_usd=event.counts.get("cost_usd", 0.0),
        calls=1,
        cached=int(event.counts.get("cached", 0)),
        failed=int(event.counts.get("failed", 0)),
    )
    return event.node.removeprefix(MODEL_NODE), usage


def compute_metrics(events: Iterable[TraceEvent], values: Mapping[str, Any]) -> RunMetrics:
    """Time per node and per run (summed over resumes), sources by outcome, queries, evidence, confidence."""
    node_seconds: dict[str, float] = {}
    outcomes: dict[str, SourceOutcome] = {}
    traced = ModelUsage()
    elapsed, segment_start, last_at = 0.0, None, None
    for event in events:
        if event.kind is EventKind.RUN_START:
            if segment_start is not None and last_at is not None:  # the process died before its run_end
                elapsed += last_at - segment_start
            segment_start = event.at
        elif event.kind is EventKind.RUN_END and segment_start is not None:
            elapsed += event.at - segment_start
            segment_start = None
        elif event.kind is EventKind.NODE_END and event.seconds is not None and "/" not in event.node:
            node_seconds[event.node] = round(node_seconds.get(event.node, 0.0) + event.seconds, 4)
        elif event.kind is EventKind.SOURCE and event.source is not None:
            outcomes[event.source.source_id] = event.source
        elif (call := model_usage(event)) is not None:
            role, usage = call
            traced = traced + ModelUsage(roles={role: usage})
        last_at = event.at
    if segment_start is not None and last_at is not None:
        elapsed += last_at - segment_start
    by_outcome = [outcome.outcome for outcome in outcomes.values()]
    return RunMetrics(
        elapsed_seconds=round(elapsed, 3),
        node_seconds=node_seconds,
        queries=len(values.get("search_history", ())),
        sources_read=sum(1 for outcome in by_outcome if outcome != "failed"),
        pages_fetched=by_outcome.count("fetched"),
        pages_cached=by_outcome.count("cached"),
        pages_failed=by_outcome.count("failed"),
        evidence=len(values.get("evidence", {})),
        confidence=[assessment.confidence for assessment in values.get("assessments", ())],
        usage=total_usage(values["model_usage"]) if values.get("model_usage") else traced,
        evaluation=values.get("evaluation"),
    )
