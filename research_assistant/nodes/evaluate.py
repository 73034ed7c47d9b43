"""evaluate_progress: confidence, gaps, and whether to research another round.

The stop decision lives here and the router only reads it. Every round
increments `iteration`, and a run stops once it reaches the iteration limit
(never above `HARD_MAX_ITERATIONS`), so the research loop always ends.
"""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from research_assistant.context import Context
from research_assistant.nodes.reasoner_notices import reasoner_notices, usage_of
from research_assistant.progress import emit
from research_assistant.schemas import Notice, ProgressAssessment, SearchQuery, SourceStatus
from research_assistant.services import Services, services_of
from research_assistant.state import ResearchState
from research_assistant.text.tokens import normalize_query


def threshold_of(services: Services, context: Context) -> float:
    """The confidence at which research stops: the reasoner's own (a setting), else the depth's."""
    own = services.reasoner.confidence_threshold
    return float(own if own is not None else context.profile.confidence_threshold)


def stop_reason(
    state: ResearchState, context: Context, assessment: ProgressAssessment, iteration: int, now: float
) -> tuple[str | None, list[SearchQuery]]:
    """Why research stops after this round (None to go on), and the queries for the next round."""
    services = services_of(context)
    threshold = threshold_of(services, context)
    # Every sub-question has its evidence, yet while confidence stays under the threshold the evidence may not
    # show the asked-for answer itself: the research goes on with the reasoner's queries for it, if it has any.
    unsure = (
        f"completion criteria met, but confidence {assessment.confidence:.0f}/100 stays under the threshold "
        f"of {threshold:.0f}"
    )
    if assessment.complete and assessment.confidence < threshold and not assessment.new_queries:
        return unsure, []
    if assessment.complete and assessment.confidence >= threshold:
        return f"completion criteria met (confidence {assessment.confidence:.0f}/100)", []
    if assessment.confidence >= threshold:
        return f"confidence {assessment.confidence:.0f} reached the threshold of {threshold:.0f}", []
    budget = services.reasoner.budget_reached()
    if budget:
        return f"budget nearly spent ({budget}); the rest is kept for the report", []
    if iteration >= context.iteration_limit:
        return f"iteration limit reached ({context.iteration_limit})", []
    read = sum(1 for source in state.sources.values() if source.status is SourceStatus.READ)
    if read >= context.source_limit:
        return f"source limit reached ({context.source_limit})", []
    deadline = context.deadline if context.deadline is not None else state.started_at + context.max_seconds
    if now >= deadline:
        return f"time limit reached ({context.max_seconds:g} s)", []
    history = set(state.search_history)
    fresh: list[SearchQuery] = []
    for query in assessment.new_queries:
        key = normalize_query(query.text)
        if key not in history:
            history.add(key)
            fresh.append(query)
    if not fresh:
        return unsure if assessment.complete else "no new queries left to try", []
    return None, fresh


async def evaluate_progress(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    assert state.plan is not None, "plan_strategy runs first"
    iteration = state.iteration + 1
    services = services_of(runtime.context)
    step = await services.reasoner.evaluate(
        state.question,
        state.plan,
        list(state.evidence.values()),
        list(state.sources.values()),
        iteration,
        state.search_history,
        state.analysis,
    )
    assessment = step.value
    reason, queries = stop_reason(state, runtime.context, assessment, iteration, time.time())
    covered = sum(1 for item in assessment.coverage if item.covered)
    notices = reasoner_notices(runtime, "evaluate_progress", step)
    if reason and not (assessment.complete or assessment.confidence >= threshold_of(services, runtime.context)):
        notices.append(Notice(message=f"Research stopped before reaching its confidence threshold: {reason}."))
    emit(
        runtime,
        "evaluate_progress",
        f"round {iteration}: confidence {assessment.confidence:.0f}/100, {covered}/{len(assessment.coverage)} "
        f"sub-questions covered; "
        + (f"stopping: {reason}" if reason else f"{len(queries)} new queries")
        + (f" ({assessment.hint})" if assessment.hint and not reason else ""),
        confidence=assessment.confidence,
        covered=covered,
        iteration=iteration,
    )
    return {
        "assessments": [assessment],
        "iteration": iteration,
        "pending_queries": queries,
        "stop_reason": reason,
        "notices": notices,
        "model_usage": usage_of(step, f"evaluate_progress {iteration}"),
    }
