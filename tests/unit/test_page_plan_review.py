"""Plan review: the analyst's edits become the plan the run carries on with."""

from __future__ import annotations

import pytest

from research_assistant.page.plan_review import edited_plan
from research_assistant.schemas import ResearchPlan, SubQuestion

PLAN = ResearchPlan(
    sub_questions=[
        SubQuestion(id="q1", text="What is the fare?", priority=1, queries=["tram fare", "ticket price"]),
        SubQuestion(id="q2", text="When did trams start?", priority=2, queries=["tram history"]),
    ],
    min_sources=2,
    min_evidence_per_question=1,
)
TEXTS = ["What is the fare?", "When did trams start?"]
QUERIES = ["tram fare\nticket price", "tram history"]


def test_an_untouched_plan_is_approved_as_proposed() -> None:
    assert edited_plan(PLAN, TEXTS, QUERIES) is None
    assert edited_plan(PLAN, ["  What is  the fare? ", TEXTS[1]], ["tram fare\n\n ticket price ", QUERIES[1]]) is None


def test_a_changed_text_is_searched_unless_its_queries_were_edited_too() -> None:
    plan = edited_plan(PLAN, ["Do children ride free?", TEXTS[1]], QUERIES)
    assert plan is not None
    assert [(s.id, s.text, s.queries) for s in plan.sub_questions] == [
        ("q1", "Do children ride free?", ["Do children ride free?"]),
        ("q2", "When did trams start?", ["tram history"]),
    ]
    assert (plan.min_sources, plan.min_evidence_per_question) == (2, 1)
    plan = edited_plan(PLAN, ["Do children ride free?", TEXTS[1]], ["child fares\nfree rides", QUERIES[1]])
    assert plan is not None and plan.sub_questions[0].queries == ["child fares", "free rides"]


def test_queries_alone_can_be_edited_and_an_emptied_list_falls_back_on_the_text() -> None:
    plan = edited_plan(PLAN, TEXTS, ["single ticket", ""])
    assert plan is not None
    assert [s.queries for s in plan.sub_questions] == [["single ticket"], ["When did trams start?"]]


def test_a_cleared_sub_question_is_dropped_and_one_can_be_added() -> None:
    plan = edited_plan(PLAN, ["", TEXTS[1]], QUERIES, added=" How long is the network? ")
    assert plan is not None
    assert [(s.id, s.text, s.queries, s.priority) for s in plan.sub_questions] == [
        ("q2", "When did trams start?", ["tram history"], 2),
        ("q3", "How long is the network?", ["How long is the network?"], 2),
    ]


def test_an_edit_that_leaves_nothing_or_too_much_is_refused() -> None:
    with pytest.raises(ValueError, match="Keep at least one sub-question"):
        edited_plan(PLAN, ["", " "], QUERIES)
    many = PLAN.model_copy(
        update={"sub_questions": [PLAN.sub_questions[0].model_copy(update={"id": f"q{i}"}) for i in range(10)]}
    )
    with pytest.raises(ValueError, match="at most 10"):
        edited_plan(
            many, [s.text for s in many.sub_questions], ["\n".join(s.queries) for s in many.sub_questions], "More?"
        )
