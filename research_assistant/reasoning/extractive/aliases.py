"""Acronyms the passages define ('Dynamic Shared Object (DSO)'), so that a sentence written with either form
holds the terms of both: a question about 'dynamic shared objects' finds 'DSO has the following disadvantages:',
and one about WAL finds 'the write-ahead log'."""

from __future__ import annotations

import re
from collections.abc import Iterable

from research_assistant.reasoning.answers import spelled_by
from research_assistant.text.tokens import content_terms

_DEFINED = re.compile(r"((?:[A-Za-z][\w'-]*\s+){1,6})\(\s*([A-Z][A-Za-z]{1,7}?)s?\s*\)")
"""Up to six words, then an acronym in parentheses: 'the Dynamic Shared Object (DSO)'."""
_MOST_WORDS = 6


def acronym_aliases(texts: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The expansion's terms of each acronym the texts define, by the acronym's term: {'dso': ('dynam', 'share',
    'object')}. The fewest words before the parentheses that spell the acronym are its expansion."""
    aliases: dict[str, tuple[str, ...]] = {}
    for text in texts:
        for match in _DEFINED.finditer(text):
            words, acronym = match.group(1).split(), match.group(2)
            for size in range(2, min(len(words), _MOST_WORDS) + 1):
                phrase = " ".join(words[-size:])
                if spelled_by(acronym, phrase):
                    terms = content_terms(acronym)
                    expansion = tuple(t for t in content_terms(phrase) if t not in terms)
                    if len(terms) == 1 and expansion:
                        aliases.setdefault(terms[0], expansion)
                    break
    return aliases


def with_aliases(terms: list[str], aliases: dict[str, tuple[str, ...]]) -> list[str]:
    """`terms` with the expansion of each acronym among them, and each acronym whose expansion they hold."""
    present = set(terms)
    added: list[str] = []
    for acronym, expansion in aliases.items():
        if acronym in present:
            added.extend(t for t in expansion if t not in present and t not in added)
        elif all(t in present for t in expansion):
            added.append(acronym)
    return terms + added
