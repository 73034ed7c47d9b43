"""Term sets for matching: the query terms hidden in a candidate's long identifiers."""

from __future__ import annotations


def with_identifier_matches(terms: list[str], query_terms: list[str]) -> list[str]:
    """`terms` plus the query terms (5+ letters) hidden inside its long identifiers ('setrecursionlimit')."""
    long_tokens = [t for t in terms if len(t) >= 12 or "." in t or "_" in t]
    if not long_tokens:
        return terms
    hidden = [q for q in query_terms if len(q) >= 5 and q not in terms and any(q in token for token in long_tokens)]
    return terms + hidden
