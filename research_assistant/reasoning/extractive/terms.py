"""Term sets for matching: stemmed content terms, identifier parts, and a few synonyms."""

from __future__ import annotations

import re
from functools import lru_cache

from research_assistant.knowledge.text import content_terms
from research_assistant.reasoning.extractive.lexicon import SYNONYM_GROUPS

_IDENTIFIER_SPLIT = re.compile(r"[._]+")


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


def terms_of(text: str) -> list[str]:
    """Stemmed content terms plus identifier parts: 'sys.setrecursionlimit' adds 'sys' and 'setrecursionlimit'."""
    terms = content_terms(text)
    extra: list[str] = []
    for term in terms:
        if "." in term or "_" in term:
            for part in _IDENTIFIER_SPLIT.split(term):
                extra.extend(p for p in content_terms(part) if p not in terms and p not in extra)
    return terms + extra


def with_identifier_matches(terms: list[str], query_terms: list[str]) -> list[str]:
    """`terms` plus the query terms (5+ letters) hidden inside its long identifiers ('setrecursionlimit')."""
    long_tokens = [t for t in terms if len(t) >= 12 or "." in t or "_" in t]
    if not long_tokens:
        return terms
    hidden = [q for q in query_terms if len(q) >= 5 and q not in terms and any(q in token for token in long_tokens)]
    return terms + hidden
