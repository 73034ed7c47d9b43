"""review_plan: an optional pause after planning, so the analyst can edit or approve the sub-questions.

With `Context.review_plan` set, the node interrupts the graph (LangGraph's
`interrupt`) with the plan; the run is then checkpointed and waits. Resuming
with `{"approved": true}` keeps the plan; resuming with `{"plan": {...}}` uses
the edited plan, checked first: blank sub-questions are dropped, ids made
unique, and each keeps at least one query. An edit that cannot be used leaves
the original plan in place, and the run says so.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt
from pydantic import ValidationError

from research_assistant.context import Context
from research_assistant.nodes.plan import announced
from research_assistant.progress import emit
from research_assistant.schemas import MAX_SUB_QUESTIONS, Notice, ResearchPlan, SubQuestion
from research_assistant.state import ResearchState


def reviewed_plan(original: ResearchPlan, edited: Any) -> ResearchPlan:
    """The analyst's edit of `original`, cleaned; raises ValueError (one line) when nothing usable is left."""
    try:
        plan = ResearchPlan.model_validate(edited)
    except ValidationError as error:
        raise ValueError(f"the edited plan is not valid ({error.error_count()} problems)") from None
    kept: list[SubQuestion] = []
    ids: set[str] = set()
    for sub_question in plan.sub_questions:
        text = " ".join(sub_question.text.split())
        if not text:
            continue
        sub_id = sub_question.id if sub_question.id and sub_question.id not in ids else f"q{len(kept) + 1}"
        while sub_id in ids:
            sub_id += "'"
        ids.add(sub_id)
        queries = [q for q in (" ".join(q.split()) for q in sub_question.queries) if q] or [text]
        kept.append(sub_question.model_copy(update={"id": sub_id, "text": text, "queries": queries}))
    if not kept:
        raise ValueError("the edited plan has no sub-questions")
    if len(kept) > MAX_SUB_QUESTIONS:
        raise ValueError(f"the edited plan has {len(kept)} sub-questions; at most {MAX_SUB_QUESTIONS} are allowed")
    return original.model_copy(update={"sub_questions": kept})


async def review_plan(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    if not runtime.context.review_plan or state.plan is None:
        return {}
    answer = interrupt({"plan": state.plan.model_dump(mode="json")})
    edited = answer.get("plan") if isinstance(answer, dict) else None
    if edited is None:
        emit(runtime, "review_plan", "plan approved as proposed")
        return {}
    try:
        plan = reviewed_plan(state.plan, edited)
    except ValueError as error:
        message = f"The edited plan was not used: {error}; the research follows the proposed plan."
        emit(runtime, "review_plan", message, level="warning")
        return {"notices": [Notice(message=message)]}
    queries = announced(runtime, "review_plan", plan, "edited plan: ")
    return {"plan": plan, "pending_queries": queries}
