"""The shape a good answer takes, as small relevance bonuses: a figure, a date, a name, a definition,
a contrast or an instruction; plus the question's entities and a sentence-length factor."""

from __future__ import annotations

import re

from research_assistant.knowledge.text import content_terms
from research_assistant.reasoning.extractive.sentences import MAX_SENTENCE_CHARS
from research_assistant.reasoning.extractive.signals import collapse, defines, has_date, has_name, numbers_in
from research_assistant.reasoning.extractive.terms import terms_of

_CONTRAST = re.compile(
    r"\b(?:than|whereas|while|unlike|compared|contrast|differ\w*|however|instead|but|both|neither)\b", re.IGNORECASE
)
_WHAT_IS = re.compile(r"^(?:what|who) (?:is|are|was|were) (?:a |an |the )?(.+?)[?.!]*$", re.IGNORECASE)
_SIGNATURE_LINE = re.compile(r"^@?[A-Za-z_][\w.]*\([^()\n]*\)[^\n]*\n")
_INSTRUCTION = re.compile(
    r"\b(?:you can|you should|you must|you need to|to do (?:this|so)|use|call|run|set|pass|install|type|click|"
    r"open|create|add|enable|configure|select|with the|by calling|by setting)\b",
    re.IGNORECASE,
)
_CODE_TOKEN = re.compile(r"\b[A-Za-z_][\w.]*\(\w*\)|`[^`]+`|\b\w+\.\w+\.\w+\b|--\w")


def defined_subject(text: str) -> list[str]:
    """The terms of what 'What is the X in Y?' defines: X, without the qualifier after a preposition."""
    match = _WHAT_IS.match(text.strip())
    if match is None:
        return []
    head = re.split(r"\b(?:in|of|for|on|with|within|under|at|from|by|when|used)\b", match.group(1), maxsplit=1)[0]
    return content_terms(head)


def shape_bonus(kind: str | None, quote: str, question: str, subject_terms: list[str], present: set[str]) -> float:
    if kind == "procedure":
        code = 0.04 if _CODE_TOKEN.search(quote) else 0.0
        return (0.08 if _INSTRUCTION.search(quote) else 0.0) + code
    if kind == "comparison":
        sides = sum(t in present for t in dict.fromkeys(subject_terms))
        return 0.12 if sides >= 2 and _CONTRAST.search(quote) else 0.0
    if kind == "number":
        asked = set(numbers_in(question))
        return 0.12 if any(n not in asked for n in numbers_in(quote)) else 0.0
    if kind == "date":
        return 0.12 if has_date(quote) else 0.0
    if kind in ("person", "place"):
        return 0.06 if has_name(quote, exclude=question) else 0.0
    if kind == "definition":
        signature = _SIGNATURE_LINE.match(quote)
        if signature and any(t in terms_of(signature.group()) for t in subject_terms):
            return 0.2  # an API entry: the signature line, then what it does
        return defines(quote, subject_terms)
    return 0.0


def entity_bonus(entities: list[str], quote: str) -> float:
    lowered = quote.lower()
    hits = sum(bool(re.search(rf"(?<!\w){re.escape(e.lower())}(?!\w)", lowered)) for e in entities)
    return min(0.06, 0.03 * hits)


def length_factor(quote: str) -> float:
    size = len(collapse(quote))
    if size < 30:
        return 0.85
    if size > MAX_SENTENCE_CHARS:
        return 0.85
    return 0.95 if size > 300 else 1.0
