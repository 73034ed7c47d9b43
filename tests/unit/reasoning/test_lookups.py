"""What a sub-question's wording asks the nodes to look up beside retrieval (`reasoning.lookups`)."""

from __future__ import annotations

from research_assistant.reasoning.lookups import Lookups, lookups_for


def test_an_asked_abbreviation_is_looked_up_where_it_is_spelled_out() -> None:
    lookups = lookups_for("What does WAL stand for?", "What does WAL stand for?")
    assert lookups == Lookups(acronym="WAL")
    assert lookups.spells_out("The WAL (write-ahead log) is written first.")
    assert not lookups.spells_out("The WAL is written first.")
    assert not Lookups().spells_out("The WAL (write-ahead log) is written first.")


def test_a_defined_term_is_looked_up_by_its_entry_and_its_sections_only_when_the_question_asks_it() -> None:
    assert lookups_for("What is a backend?", "What is a backend?") == Lookups(term="backend", sections=True)
    # A plan's definition beside another question reads the term's entry, not every section it heads.
    assert lookups_for("How do I tune httpd for many clients?", "What is httpd?") == Lookups(term="httpd")
    assert lookups_for("How do I tune httpd?", "How do I tune httpd?") == Lookups()
