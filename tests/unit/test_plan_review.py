"""The analyst's edit of a plan: cleaned, or refused in one line, never trusted blindly."""

from __future__ import annotations

import pytest

from research_assistant.nodes.review import MAX_SUB_QUESTIONS, reviewed_plan
from research_assistant.schemas import ResearchPlan, SubQuestion

ORIGINAL = ResearchPlan(
    sub_questions=[SubQuestion(id="q1", text="tram fare", queries=["tram fare price"])],
    min_sources=2,
    min_evidence_per_question=1,
    completion_criteria="every sub-question has evidence",
)


def edit(*subs: dict[str, object]) -> dict[str, object]:
    return {**ORIGINAL.model_dump(mode="json"), "sub_questions": list(subs)}


def test_an_edit_is_cleaned_blank_questions_dropped_ids_unique_queries_filled() -> None:
    plan = reviewed_plan(
        ORIGINAL,
        edit(
            {"id": "q1", "text": "  What does a   child pay? ", "queries": ["", " child fare "]},
            {"id": "q1", "text": "When did the network open?", "queries": []},
            {"id": "q3", "text": "   ", "queries": ["ignored"]},
        ),
    )
    assert [(s.id, s.text, s.queries) for s in plan.sub_questions] == [
        ("q1", "What does a child pay?", ["child fare"]),
        ("q2", "When did the network open?", ["When did the network open?"]),
    ]
    assert plan.min_sources == 2 and plan.completion_criteria == ORIGINAL.completion_criteria


@pytest.mark.parametrize(
    ("edited", "message"),
    [
        (edit(), "no sub-questions"),
        (edit({"id": "q1", "text": " "}), "no sub-questions"),
        ({"sub_questions": "all of them"}, "not valid"),
        (edit(*({"id": f"q{n}", "text": f"question {n}"} for n in range(MAX_SUB_QUESTIONS + 1))), "at most 10"),
        (edit({"id": "q1", "text": "fare", "priority": 9}), "not valid"),
    ],
)
def test_an_unusable_edit_is_refused_in_one_line(edited: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        reviewed_plan(ORIGINAL, edited)


def test_a_plan_round_trips_through_its_editable_text() -> None:
    from research_assistant.plan_text import plan_from_text, plan_to_text

    text = plan_to_text(ORIGINAL)
    assert text.startswith("# The research plan.") and "tram fare\n- tram fare price\n" in text
    assert plan_from_text(text, ORIGINAL) == ORIGINAL
    edited = plan_from_text("# note\ntram fare\n- fare\n\n\nWho runs it?\n", ORIGINAL)
    assert edited is not None and [(s.id, s.text, s.queries) for s in edited.sub_questions] == [
        ("q1", "tram fare", ["fare"]),
        ("q2", "Who runs it?", []),
    ]
    assert plan_from_text("# only comments\n\n", ORIGINAL) is None
