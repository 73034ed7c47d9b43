"""Plan review: a run that pauses after planning waits here for the analyst to edit or approve its plan."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from research_assistant.page.actions import continue_with_plan
from research_assistant.page.state import PageState
from research_assistant.schemas import MAX_SUB_QUESTIONS, ResearchPlan, SubQuestion
from research_assistant.text.spaces import collapse

# Pure helpers (unit-tested) ------------------------------------------------------------------------------


def edited_plan(
    plan: ResearchPlan, texts: Sequence[str], queries: Sequence[str], added: str = ""
) -> ResearchPlan | None:
    """The plan as the analyst left it; None when nothing changed (the plan is approved as proposed).

    A sub-question cleared of its text is dropped. One whose text changed while its queries were left as they
    were is searched with its new text. `queries` holds each sub-question's queries, one per line. Raises
    ValueError (one line, for the analyst) when the edit leaves nothing to research or too much.
    """
    kept: list[SubQuestion] = []
    for sub_question, text, lines in zip(plan.sub_questions, texts, queries, strict=True):
        text = collapse(text)
        if not text:
            continue
        asked = [query for query in (collapse(line) for line in lines.splitlines()) if query]
        if text != sub_question.text and asked == sub_question.queries:
            asked = [text]
        kept.append(sub_question.model_copy(update={"text": text, "queries": asked or [text]}))
    added = collapse(added)
    if added:
        ids = {sub_question.id for sub_question in plan.sub_questions}
        number = len(plan.sub_questions) + 1
        while f"q{number}" in ids:
            number += 1
        priority = max((s.priority for s in kept), default=1)
        kept.append(SubQuestion(id=f"q{number}", text=added, priority=priority, queries=[added]))
    if not kept:
        raise ValueError("Keep at least one sub-question.")
    if len(kept) > MAX_SUB_QUESTIONS:
        raise ValueError(f"Keep at most {MAX_SUB_QUESTIONS} sub-questions.")
    if kept == list(plan.sub_questions):
        return None
    return plan.model_copy(update={"sub_questions": kept})


# Drawing -------------------------------------------------------------------------------------------------


def plan_review(state: PageState, run_id: str, plan: ResearchPlan) -> None:
    """The plan, editable; approving it carries on with the research."""
    st.info(
        "This research waits for you to review its plan. Edit the sub-questions or their search queries, "
        "clear a sub-question to drop it, or add one; then approve the plan.",
        icon=":material/edit_note:",
    )
    texts: list[str] = []
    queries: list[str] = []
    with st.form(f"plan-{run_id}"):
        for number, sub_question in enumerate(plan.sub_questions, start=1):
            # Text areas wrap a long sub-question over lines instead of hiding most of it in a one-line input.
            question_column, queries_column = st.columns(2)
            texts.append(
                question_column.text_area(
                    f"Sub-question {number}",
                    value=sub_question.text,
                    key=f"plan-{run_id}-{sub_question.id}",
                    height="content",
                )
            )
            queries.append(
                queries_column.text_area(
                    f"Search queries for sub-question {number}, one per line",
                    value="\n".join(sub_question.queries),
                    key=f"plan-{run_id}-{sub_question.id}-queries",
                    height="content",
                )
            )
        added = st.text_area("Add a sub-question (optional)", key=f"plan-{run_id}-added", height="content")
        approved = st.form_submit_button("Approve plan and research", type="primary", disabled=state.busy)
    if not approved:
        return
    try:
        edited = edited_plan(plan, texts, queries, added)
    except ValueError as error:
        state.error = str(error)
        st.rerun()
    continue_with_plan(run_id, edited)
    st.rerun()
