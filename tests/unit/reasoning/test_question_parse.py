"""The question parser: subject and predicate of a question, its statement forms, and verb morphology."""

from __future__ import annotations

import pytest

from research_assistant.reasoning.extractive.morphology import (
    base_of,
    gerund,
    is_participle,
    is_plural_noun,
    past,
    third_person,
)
from research_assistant.reasoning.extractive.question_parse import parse_question


@pytest.mark.parametrize(
    ("question", "wh", "aux", "subject", "predicates"),
    [
        ("When did the Halvorsby tram network open?", "When", "did", "the Halvorsby tram network", ("open",)),
        (
            "How many passengers did the Halvorsby tram network carry in 2023?",
            "How many passengers",
            "did",
            "the Halvorsby tram network",
            ("carry in 2023",),
        ),
        (
            "How does Python manage memory and reclaim reference cycles?",
            "How",
            "does",
            "Python",
            ("manage memory", "reclaim reference cycles"),
        ),
        ("How did the printing press change European society?", "How", "did", "the printing press", None),
        ("How does the Python import system find and load modules?", "How", "does", "the Python import system", None),
        ("Why do central banks raise interest rates to fight inflation?", "Why", "do", "central banks", None),
        ("How much does a monthly tram pass cost in Halvorsby?", "How much", "does", "a monthly tram pass", None),
        ("What does the asyncio event loop do?", "What", "does", "the asyncio event loop", ("do",)),
        ("When was the Bank of England founded?", "When", "was", "the Bank of England", ("founded",)),
        ("Why are bees important for agriculture?", "Why", "are", "bees", ("important for agriculture",)),
        ("How has the unemployment rate changed since 2020?", "How", "has", "the unemployment rate", None),
        ("Can photosynthesis occur without sunlight?", "", "can", "photosynthesis", ("occur without sunlight",)),
        ("When did World War I begin and end?", "When", "did", "World War I", ("begin", "end")),
        ("In which year did the old Halvorsby tramway close?", "Which year", "did", "the old Halvorsby tramway", None),
        ("Explain how CRISPR gene editing works", "How", "does", "CRISPR gene editing", ("work",)),
    ],
)
def test_the_subject_and_the_predicate_are_split_at_the_main_verb(
    question: str, wh: str, aux: str, subject: str, predicates: tuple[str, ...] | None
) -> None:
    parsed = parse_question(question)
    assert parsed is not None
    assert (parsed.wh, parsed.aux, parsed.subject) == (wh, aux, subject)
    if predicates is not None:
        assert parsed.predicates == predicates


@pytest.mark.parametrize(
    ("question", "clause", "indirect", "ing"),
    [
        (
            "When did the Halvorsby tram network open?",
            "the Halvorsby tram network opened",
            "when the Halvorsby tram network opened",
            "the Halvorsby tram network opening",
        ),
        (
            "Why did the Roman Empire fall?",
            "the Roman Empire fell",
            "why the Roman Empire fell",
            "the Roman Empire falling",
        ),
        (
            "How does Python manage memory and reclaim reference cycles?",
            "Python manages memory and reclaims reference cycles",
            "how Python manages memory and reclaims reference cycles",
            "Python managing memory and reclaiming reference cycles",
        ),
        ("How is GDP measured?", "GDP is measured", "how GDP is measured", "GDP being measured"),
        (
            "When should I use a list comprehension instead of a loop?",
            "you should use a list comprehension instead of a loop",
            "when you should use a list comprehension instead of a loop",
            "",
        ),
        (
            "Can photosynthesis occur without sunlight?",
            "photosynthesis can occur without sunlight",
            "whether photosynthesis can occur without sunlight",
            "photosynthesis occurring without sunlight",
        ),
        ("Who invented the telephone?", "who invented the telephone", "who invented the telephone", ""),
    ],
)
def test_the_question_rephrases_as_a_statement_an_indirect_question_and_a_gerund(
    question: str, clause: str, indirect: str, ing: str
) -> None:
    parsed = parse_question(question)
    assert parsed is not None
    assert (parsed.clause, parsed.embedded, parsed.gerund) == (clause, indirect, ing)


def test_a_compound_predicate_gives_one_question_per_verb_phrase() -> None:
    parsed = parse_question("How does Python manage memory and reclaim reference cycles?")
    assert parsed is not None
    assert parsed.sub_questions() == ["How does Python manage memory?", "How does Python reclaim reference cycles?"]
    parsed = parse_question("When did World War I begin and end?")
    assert parsed is not None
    assert parsed.sub_questions() == ["When did World War I begin?", "When did World War I end?"]


@pytest.mark.parametrize(
    "question",
    [
        "How does quantitative easing affect inflation and bond yields?",  # 'and' joins two objects
        "How does the Python import system find and load modules?",  # 'find' shares the object 'modules'
        "How do black holes form?",
    ],
)
def test_other_compounds_are_not_split(question: str) -> None:
    parsed = parse_question(question)
    assert parsed is not None
    assert parsed.sub_questions() == []


def test_verbs_joined_by_and_are_all_inflected_even_when_not_split() -> None:
    parsed = parse_question("Describe how the Python import system finds and loads modules")
    assert parsed is not None
    assert parsed.clause == "the Python import system finds and loads modules"
    assert parsed.gerund == "the Python import system finding and loading modules"


@pytest.mark.parametrize(
    ("question", "topic", "plural"),
    [
        ("Who invented the telephone?", "the telephone", False),
        ("Which countries use the euro?", "the euro", False),
        ("What happened at the Battle of Hastings?", "the Battle of Hastings", False),
        ("How do vaccines train the immune system?", "vaccines", True),
        ("How long does it take light from the Sun to reach Earth?", "light", False),
        ("When should I use a list comprehension instead of a loop?", "a list comprehension", False),
    ],
)
def test_the_topic_is_the_subject_else_the_object(question: str, topic: str, plural: bool) -> None:
    parsed = parse_question(question)
    assert parsed is not None
    assert (parsed.topic, parsed.topic_plural) == (topic, plural)


@pytest.mark.parametrize(
    "question",
    [
        "What is the GIL?",  # a copula: the planner's noun-phrase path handles it
        "What are reference cycles?",
        "What were the causes of the 2008 financial crisis?",
        "Who was the first president of the United States?",
        "Which Halvorsby tram line was the busiest in 2023?",
        "Tell me about the Roman Empire",
        "Compare Python and Rust for web development",
        "Python",
        "",
    ],
)
def test_questions_without_a_known_shape_give_none(question: str) -> None:
    assert parse_question(question) is None


@pytest.mark.parametrize(
    ("base", "third", "past_form", "ing"),
    [
        ("open", "opens", "opened", "opening"),
        ("carry", "carries", "carried", "carrying"),
        ("manage", "manages", "managed", "managing"),
        ("stop", "stops", "stopped", "stopping"),
        ("begin", "begins", "began", "beginning"),
        ("fall", "falls", "fell", "falling"),
        ("do", "does", "did", "doing"),
        ("die", "dies", "died", "dying"),
        ("watch", "watches", "watched", "watching"),
    ],
)
def test_verb_inflection(base: str, third: str, past_form: str, ing: str) -> None:
    assert (third_person(base), past(base), gerund(base)) == (third, past_form, ing)
    assert base_of(third) == base
    assert base_of(past_form) == base


def test_participles_and_plural_nouns() -> None:
    assert is_participle("founded") and is_participle("built") and is_participle("born") and is_participle("used")
    assert not is_participle("need") and not is_participle("hundred")
    assert is_plural_noun("cycles") and is_plural_noun("APIs") and is_plural_noun("people")
    assert not is_plural_noun("physics") and not is_plural_noun("Windows") and not is_plural_noun("analysis")
