"""Research plans: sub-questions and queries from templates, scaled by depth."""

from __future__ import annotations

import re

import pytest

from research_assistant.context import PROFILES, Depth
from research_assistant.knowledge.text import normalize_query
from research_assistant.reasoning.extractive.analysis import analyze_question
from research_assistant.reasoning.extractive.morphology import is_clear_verb, is_plural_noun
from research_assistant.reasoning.extractive.planning import build_plan, comparison_sides

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


HEADINGS = [
    (
        "When did the Halvorsby tram network open?",
        [
            "What is the Halvorsby tram network?",
            "What details, figures or examples describe the Halvorsby tram network?",
            "What do different sources say about when the Halvorsby tram network opened?",
            "How has the Halvorsby tram network changed over time?",
        ],
    ),
    (
        "How many passengers did the Halvorsby tram network carry in 2023?",
        [
            "What is the Halvorsby tram network?",
            "What details, figures or examples describe the Halvorsby tram network?",
            "What do different sources say about how many passengers the Halvorsby tram network carried in 2023?",
            "How has the Halvorsby tram network changed over time?",
        ],
    ),
    (
        "How does Python manage memory and reclaim reference cycles?",
        [
            "How does Python manage memory?",
            "How does Python reclaim reference cycles?",
            "What steps or mechanisms are involved when Python manages memory and reclaims reference cycles?",
            "What is Python?",
        ],
    ),
    (
        "What are reference cycles?",
        [
            "How do reference cycles work?",
            "What are examples or uses of reference cycles?",
            "What are the limitations or criticisms of reference cycles?",
            "How do reference cycles relate to similar concepts?",
        ],
    ),
    (
        "Why did the Roman Empire fall?",
        [
            "What factors explain why the Roman Empire fell?",
            "What were the consequences of the Roman Empire falling?",
            "What is the background of the Roman Empire?",
            "What evidence supports each explanation of why the Roman Empire fell?",
        ],
    ),
    (
        "Why are bees important for agriculture?",
        [
            "What factors explain why bees are important for agriculture?",
            "What are the consequences of bees being important for agriculture?",
            "What is the background of bees?",
            "What evidence supports each explanation of why bees are important for agriculture?",
        ],
    ),
    (
        "How did the printing press change European society?",
        [
            "What is the printing press?",
            "What steps or events were involved when the printing press changed European society?",
            "What were the consequences of the printing press changing European society?",
            "What evidence shows how the printing press changed European society?",
        ],
    ),
    (
        "How is GDP measured?",
        [
            "What steps or mechanisms are involved when GDP is measured?",
            "What is GDP?",
            "What problems or limitations affect how GDP is measured?",
            "What examples show how GDP is measured?",
        ],
    ),
    (
        "Who invented the telephone?",
        [
            "What is the telephone?",
            "What details, figures or examples describe the telephone?",
            "What do different sources say about who invented the telephone?",
            "How has the telephone changed over time?",
        ],
    ),
    (
        "Where was Marie Curie born?",
        [
            "What is known about Marie Curie?",
            "What details, figures or examples describe Marie Curie?",
            "What do different sources say about where Marie Curie was born?",
            "How has Marie Curie changed over time?",
        ],
    ),
    (
        "How do tariffs affect consumer prices?",
        [
            "What evidence measures the effect of tariffs on consumer prices?",
            "What factors change the size of the effect of tariffs on consumer prices?",
            "What are tariffs?",
            "How can the effects of tariffs on consumer prices be reduced?",
        ],
    ),
    (
        "What were the causes of the 2008 financial crisis?",
        [
            "What factors led to the 2008 financial crisis?",
            "What were the consequences of the 2008 financial crisis?",
            "What is the background of the 2008 financial crisis?",
            "What evidence supports the explanations of the 2008 financial crisis?",
        ],
    ),
    (
        "When did World War I begin and end?",
        [
            "When did World War I begin?",
            "When did World War I end?",
            "What is known about World War I?",
            "What details, figures or examples describe World War I?",
        ],
    ),
    (
        "Which Python version introduced f-strings?",
        [
            "What are f-strings?",
            "What details, figures or examples describe f-strings?",
            "What do different sources say about which Python version introduced f-strings?",
            "How have f-strings changed over time?",
        ],
    ),
    (
        "Can photosynthesis occur without sunlight?",
        [
            "What is photosynthesis?",
            "What details, figures or examples describe photosynthesis?",
            "What do different sources say about whether photosynthesis can occur without sunlight?",
            "How has photosynthesis changed over time?",
        ],
    ),
    (
        "What are the pros and cons of microservices?",
        [
            "How do microservices work?",
            "What are examples or uses of microservices?",
            "What are the limitations or criticisms of microservices?",
            "How do microservices relate to similar concepts?",
        ],
    ),
]
"""Deep plans' headings after the question itself, one question per kind and domain: each reads as English."""


@pytest.mark.parametrize(("question", "headings"), HEADINGS, ids=[q for q, _ in HEADINGS])
def test_headings_read_as_english(question: str, headings: list[str]) -> None:
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    assert plan.sub_questions[0].text == question
    assert [sq.text for sq in plan.sub_questions[1:]] == headings


MORE_QUESTIONS = [
    *(q for q, _ in HEADINGS),
    *QUESTIONS,
    "How many passengers rode the Halvorsby trams on an average weekday in 2023?",
    "How much does a monthly tram pass cost in Halvorsby?",
    "In which year did the old Halvorsby tramway close?",
    "How do vaccines train the immune system?",
    "How does garbage collection work in Java?",
    "What causes the northern lights?",
    "How does the Federal Reserve set interest rates?",
    "Why do central banks raise interest rates to fight inflation?",
    "Which countries use the euro?",
    "What does the asyncio event loop do?",
    "How did the Black Death affect the European economy?",
    "What happened at the Battle of Hastings?",
    "How do black holes form and evaporate?",
    "Explain how CRISPR gene editing works",
    "How has the unemployment rate changed since 2020?",
    "How long does it take light from the Sun to reach Earth?",
    "How were the Egyptian pyramids built?",
    "What did Adam Smith argue about the division of labour?",
    "How did Japan's economy grow after 1950?",
    "Why did the Bretton Woods system collapse?",
    "How does the Python import system find and load modules?",
    "When should I use a list comprehension instead of a loop?",
    "How does TLS protect data in transit?",
    "Why is the sky blue?",
    "Which programming languages support pattern matching?",
    "How are vaccines tested and approved?",
    "Why do we dream?",
    "What was invented in 1876?",
]


_NOUN_PHRASE_ENDS = r"(?:to|of|in|for|on|at|with|before|after|when|how|why|that|if|and)"
_CLAUSE = re.compile(r"\b(?:when|where|how|why|whether|what|which|who|that|do|does|did|can|could|should)\b")


def _head(phrase: str) -> str:
    """The head word of a noun phrase: the last word before its first preposition."""
    return re.split(rf"\s+{_NOUN_PHRASE_ENDS}\s+", phrase)[0].split()[-1]


def _lint(heading: str, question: str) -> list[str]:
    """Signs of a heading that is not English: template debris, doubled words, a verb that disagrees with
    its noun, or a verb where a noun phrase belongs ('What is Python manage memory?', '... network open?')."""
    if heading == question:
        return []
    problems = []
    if not heading[:1].isupper() or not heading.endswith("?") or "{" in heading or "  " in heading:
        problems.append("form")
    if re.search(r"\b(\w+) \1\b", heading, re.IGNORECASE):
        problems.append("doubled word")
    agreement = re.match(
        r"^(?:What (is) (.+)\?$|How (does) (.+?) (?:work|relate|affect)\b|How (has) (.+?) changed\b)", heading
    )
    if agreement:
        verb, phrase = [g for g in agreement.groups() if g]
        if not phrase.startswith(("known about", "the way", "needed")) and is_plural_noun(_head(phrase)):
            problems.append(f"'{verb}' with a plural")
    what_is = re.match(r"^What (?:is|are) (.+)\?$", heading)
    if what_is:
        noun_phrase = re.split(rf"\s+{_NOUN_PHRASE_ENDS}\s+", what_is.group(1))[0]
        if any(w.islower() and is_clear_verb(w) for w in noun_phrase.split()):
            problems.append("a verb inside a noun phrase")
    slot = re.search(r"\b(?:understand|describe|apply to|about|of|in|for)\s+((?:[\w'-]+\s+){0,5})([\w'-]+)\?$", heading)
    if slot and not _CLAUSE.search(slot.group(1)) and slot.group(2).islower() and is_clear_verb(slot.group(2)):
        problems.append("a verb where a noun phrase belongs")
    return problems


@pytest.mark.parametrize("question", MORE_QUESTIONS)
def test_no_heading_has_signs_of_bad_grammar(question: str) -> None:
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    assert {sq.text: _lint(sq.text, question) for sq in plan.sub_questions} == {
        sq.text: [] for sq in plan.sub_questions
    }


def test_the_lint_catches_the_old_keyword_headings() -> None:
    assert _lint("What background is needed to understand Halvorsby tram network open?", "When did it open?")
    assert _lint("What is Python manage memory?", "How does Python manage memory?")
    assert _lint("How does reference cycles work?", "What are reference cycles?")


def test_a_compound_question_asks_about_each_part_after_the_whole() -> None:
    question = "How does Python manage memory and reclaim reference cycles?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.STANDARD])
    texts = [sq.text for sq in plan.sub_questions]
    assert texts[:3] == [question, "How does Python manage memory?", "How does Python reclaim reference cycles?"]
    assert len(texts) == PROFILES[Depth.STANDARD].sub_questions
    assert plan.sub_questions[1].queries[0] == "Python manage memory"
    assert plan.sub_questions[2].queries[0] == "Python reclaim reference cycles"


def test_queries_use_noun_phrases_without_articles() -> None:
    question = "When did the Halvorsby tram network open?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    background = next(sq for sq in plan.sub_questions if sq.text == "What is the Halvorsby tram network?")
    assert "what is Halvorsby tram network" in background.queries
    assert not any(q.startswith("the ") for sq in plan.sub_questions for q in sq.queries)


def test_an_unparsed_question_keeps_the_keyword_topic() -> None:
    question = "What is the boiling point of water at high altitude?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.STANDARD])
    assert plan.sub_questions[1].text == (
        "What background is needed to understand the boiling point of water at high altitude?"
    )


@pytest.mark.parametrize("question", MORE_QUESTIONS)
def test_every_sub_question_gets_its_quota_of_distinct_queries(question: str) -> None:
    profile = PROFILES[Depth.DEEP]
    plan = build_plan(question, analyze_question(question), profile)
    assert len(plan.sub_questions) == profile.sub_questions
    queries = [normalize_query(q) for sq in plan.sub_questions for q in sq.queries]
    assert len(queries) == len(set(queries)) == profile.sub_questions * profile.queries_per_sub_question
