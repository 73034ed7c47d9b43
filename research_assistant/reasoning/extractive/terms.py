"""Term sets for matching: stemmed content terms, identifier parts, and a few synonyms."""

from __future__ import annotations

from functools import lru_cache

from research_assistant.reasoning.extractive.lexicon import SYNONYM_GROUPS
from research_assistant.text.tokens import content_terms


@lru_cache(maxsize=1)
def _synonyms() -> dict[str, tuple[str, ...]]:
    table: dict[str, list[str]] = {}
    for group in SYNONYM_GROUPS:
        stems = list(dict.fromkeys(t for word in group.split() for t in content_terms(word)))
        for stem in stems:
            table.setdefault(stem, []).extend(s for s in stems if s != stem and s not in table[stem])
    return {stem: tuple(others) for stem, others in table.items()}


def synonyms(term: str) -> tuple[str, ...]:
    """Other stems of the term's synonym group, if any."""
    return _synonyms().get(term, ())


def with_identifier_matches(terms: list[str], query_terms: list[str]) -> list[str]:
    """`terms` plus the query terms (5+ letters) hidden inside its long identifiers ('setrecursionlimit')."""
    long_tokens = [t for t in terms if len(t) >= 12 or "." in t or "_" in t]
    if not long_tokens:
        return terms
    hidden = [q for q in query_terms if len(q) >= 5 and q not in terms and any(q in token for token in long_tokens)]
    return terms + hidden
