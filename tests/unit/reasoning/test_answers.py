"""What a question asks for, and whether a span holds it: the rules that make evidence hold the answer."""

from __future__ import annotations

import pytest

from research_assistant.reasoning.answers import Asked, answer_strength, asked_for, expands


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What is the default maximum number of concurrent connections?", "default"),
        ("What does TOAST stand for?", "expansion"),
        ("What does the ACID acronym mean for transactions?", "expansion"),
        ("What is the maximum length of a string in SQLite?", "limit"),
        ("What values may the PYTHONHASHSEED variable be set to?", "range"),
        ("How many storage classes does SQLite have?", "number"),
        ("When did the old tramway close?", "date"),
        ("Is sorting in Python stable?", "yesno"),
        ("What is the difference between a shallow copy and a deep copy?", "comparison"),
        ("What are the types of affinity a column can have?", "list"),
        ("How do I configure git to sign commits?", "procedure"),
        ("What does it mean for an object to be hashable in Python?", "definition"),
        ("How does write-ahead logging work?", "explanation"),
    ],
)
def test_the_kind_of_answer_comes_from_the_wording(question: str, kind: str) -> None:
    assert asked_for(question).kind == kind


def test_an_acronym_is_named_only_when_the_question_spells_one() -> None:
    assert asked_for("What does WAL stand for in SQLite?") == Asked("expansion", "WAL")
    assert asked_for("What is MVCC?") == Asked("expansion", "MVCC")
    assert asked_for("What does it mean for an object to be hashable?").kind != "expansion"


@pytest.mark.parametrize(
    ("acronym", "text"),
    [
        ("WAL", 'SQLite maintains an extra journal file called a "Write-Ahead Log".'),
        ("TOAST", "TOAST (The Oversized-Attribute Storage Technique) stores large values out of line."),
        ("VDBE", "you need to begin with a solid understanding of the Virtual Database Engine or VDBE."),
        ("ACID", "Transactions are atomic, consistent, isolated, and durable (ACID)."),
        ("EAFP", "Easier to ask for forgiveness than permission."),
        ("JSON", "JavaScript Object Notation is a text format."),
    ],
)
def test_an_expansion_is_found_by_its_initials(acronym: str, text: str) -> None:
    assert expands(acronym, text) >= 0.6


def test_words_that_merely_contain_the_letters_are_no_expansion() -> None:
    assert expands("WAL", "WAL mode is faster for most walking workloads.") == 0.0
    assert expands("TOAST", "The name would not stand the test of time.") == 0.0


def test_the_sentence_with_the_value_holds_a_default_and_its_neighbour_does_not() -> None:
    asked = asked_for("What is the default maximum number of concurrent connections?")
    assert answer_strength(asked, "The default is typically 100 connections.") == 1.0
    assert answer_strength(asked, "The default is five minutes (5min).") == 1.0
    assert answer_strength(asked, "Determines the maximum number of concurrent connections to the server.") == 0.0


def test_a_limit_needs_a_telling_figure_and_a_range_two_bounds() -> None:
    limit = asked_for("What is the maximum depth of an expression tree?")
    assert answer_strength(limit, "The maximum depth has a default value of 1000.") == 1.0
    assert answer_strength(limit, "If the value is 0, then no limit is enforced.") < 1.0
    assert answer_strength(limit, "The maximum depth can be lowered at run-time.") == 0.0
    span = asked_for("What range of values can the seed take?")
    assert answer_strength(span, "The integer must be a decimal number in the range [0,4294967295].") == 1.0
    assert answer_strength(span, "The seed is an integer.") == 0.0


def test_a_count_prefers_the_figure_of_the_asked_thing_and_ignores_versions() -> None:
    asked = asked_for("How many storage classes does SQLite have?")
    question = "How many storage classes does SQLite have?"
    assert answer_strength(asked, "A column may hold values of all five storage classes.", question) == 1.0
    assert answer_strength(asked, "An SQLite version 3 database stores values.", question) == 0.0
    assert answer_strength(asked, "Each value has one of the following storage classes:\n- NULL", question) > 0


def test_a_default_needs_its_value_in_the_same_sentence_near_the_word() -> None:
    asked = asked_for("What is the default precision of the decimal module?")
    assert answer_strength(asked, "The module has a precision (defaulting to 28 places) that can be changed.") == 1.0
    assert answer_strength(asked, "If no collating function is defined, the collating function defaults to BINARY.")
    vague = "It contains two classes, Decimal and Context. Context wraps the precision and default rounding mode."
    assert answer_strength(asked, vague) < 1.0
