"""The lexical half of checking a statement against its evidence: how many of its content words the quotes use.

A paraphrase keeps most of the words that carry meaning (names, numbers,
nouns, verbs); a statement that adds facts brings words the evidence does
not have. This catches the glaring cases cheaply; the model's judgement
catches the subtle ones.
"""

from __future__ import annotations

from collections.abc import Iterable

from research_assistant.text.tokens import content_terms

UNVERIFIED = "[unverified]"
"""The mark after a statement that its evidence does not clearly support."""

MIN_SUPPORT = 0.4
"""Share of a statement's content words that its evidence must contain."""


def lexical_support(statement: str, quotes: Iterable[str]) -> float:
    """The share (0-1) of the statement's stemmed content words found in the quotes; 1.0 when it has none."""
    wanted = set(content_terms(statement))
    if not wanted:
        return 1.0
    found = {term for quote in quotes for term in content_terms(quote)}
    return len(wanted & found) / len(wanted)
