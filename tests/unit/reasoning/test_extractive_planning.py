"""Research plans: sub-questions and queries from templates, scaled by depth."""

from __future__ import annotations

import pytest

from research_assistant.context import PROFILES, Depth
from research_assistant.reasoning.extractive.analysis import analyze_question
from research_assistant.reasoning.extractive.planning import build_plan, comparison_sides
from research_assistant.reasoning.extractive.signals import normalize_query

QUESTIONS = [
    "What is the default recursion limit in Python?",
    "What is the difference between TCP and UDP?",
    "Why did the Roman Empire fall?",
    "What is the impact of caffeine on sleep quality?",
    "How do I install packages with pip in a virtual environment?",
    "What is the GIL?",
    "What are the main benefits of remote work?",
]


@pytest.mark.parametrize("depth", list(Depth))
@pytest.mark.parametrize("question", QUESTIONS)
def test_plan_size_follows_the_depth_profile(question: str, depth: Depth) -> None:
    profile = PROFILES[depth]
    plan = build_plan(question, analyze_question(question), profile)
    assert [sq.id for sq in plan.sub_questions] == [f"q{i}" for i in range(1, profile.sub_questions + 1)]
    assert plan.sub_questions[0].text == question
    assert plan.sub_questions[0].priority == 1
    for sq in plan.sub_questions:
        assert len(sq.queries) == profile.queries_per_sub_question
    every_query = [normalize_query(q) for sq in plan.sub_questions for q in sq.queries]
    assert len(every_query) == len(set(every_query)), "no query is planned twice"
    texts = [normalize_query(sq.text) for sq in plan.sub_questions]
    assert len(texts) == len(set(texts))
    assert 1 <= plan.min_sources <= profile.max_sources
    assert 1 <= plan.min_evidence_per_question <= profile.evidence_per_sub_question
    assert str(plan.min_sources) in plan.completion_criteria


def test_a_comparison_asks_about_each_side_and_how_they_differ() -> None:
    question = "What is the difference between TCP and UDP?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    texts = [sq.text for sq in plan.sub_questions]
    assert "What is TCP?" in texts
    assert "What is UDP?" in texts
    assert any("trade-offs" in t for t in texts)
    assert any("TCP vs UDP" in q for sq in plan.sub_questions for q in sq.queries)


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        ("Compare Python and Rust for web development", ("Python", "Rust")),
        ("Python vs Rust: which is faster?", ("Python", "Rust")),
        ("Is Rust faster than Go for web servers?", ("Rust", "Go")),
        ("Should I use Poetry or pip-tools for dependency management?", ("Poetry", "pip-tools")),
    ],
)
def test_comparison_sides(question: str, sides: tuple[str, str]) -> None:
    assert comparison_sides(question, analyze_question(question)) == sides


def test_a_cause_and_effect_question_asks_how_one_affects_the_other() -> None:
    question = "What is the impact of caffeine on sleep quality?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.STANDARD])
    assert plan.sub_questions[1].text == "How does caffeine affect sleep quality?"


def test_a_how_to_question_asks_for_steps_and_requirements() -> None:
    question = "How do I install packages with pip in a virtual environment?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    texts = " ".join(sq.text for sq in plan.sub_questions)
    assert "steps to install packages with pip in a virtual environment" in texts
    assert "What is needed before you install packages" in texts


def test_planning_is_deterministic() -> None:
    question = "Why did the Roman Empire fall?"
    profile = PROFILES[Depth.DEEP]
    assert build_plan(question, analyze_question(question), profile) == build_plan(
        question, analyze_question(question), profile
    )
