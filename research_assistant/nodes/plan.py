"""plan_strategy: sub-questions and the first round of search queries."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from research_assistant.context import Context
from research_assistant.nodes.reasoner_notices import reasoner_notices, usage_of
from research_assistant.progress import emit
from research_assistant.schemas import ResearchPlan, SearchQuery
from research_assistant.services import services_of
from research_assistant.state import ResearchState
from research_assistant.text.tokens import normalize_query


def queries_of(plan: ResearchPlan) -> list[SearchQuery]:
    """Every sub-question's queries, each distinct query once, in plan order."""
    seen: set[str] = set()
    queries = []
    for sub_question in sorted(plan.sub_questions, key=lambda s: s.priority):
        for text in sub_question.queries or [sub_question.text]:
            key = normalize_query(text)
            if key and key not in seen:
                seen.add(key)
                queries.append(SearchQuery(text=text, sub_question_id=sub_question.id))
    return queries


def announced(runtime: Runtime[Context], node: str, plan: ResearchPlan, lead: str = "") -> list[SearchQuery]:
    """The plan's queries (`queries_of`), once the progress is told how many sub-questions and queries it has."""
    queries = queries_of(plan)
    counts = f"{len(plan.sub_questions)} sub-questions, {len(queries)} queries"
    emit(runtime, node, lead + counts, sub_questions=len(plan.sub_questions), queries=len(queries))
    return queries


async def plan_strategy(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    assert state.analysis is not None, "analyze_query runs first"
    services = services_of(runtime.context)
    step = await services.reasoner.plan(state.question, state.analysis, runtime.context.profile)
    plan = step.value
    queries = announced(runtime, "plan_strategy", plan)
    return {
        "plan": plan,
        "pending_queries": queries,
        "notices": reasoner_notices(runtime, "plan_strategy", step),
        "model_usage": usage_of(step, "plan_strategy"),
    }
