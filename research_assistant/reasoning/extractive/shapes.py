"""The shape a good answer takes, as small relevance bonuses: a figure, a date, a name, a definition,
a contrast or an instruction; plus the question's entities and a sentence-length factor."""

from __future__ import annotations

import re

from research_assistant.knowledge.text import STOPWORDS, content_terms
from research_assistant.reasoning.extractive.sentences import MAX_SENTENCE_CHARS
from research_assistant.reasoning.extractive.signals import collapse, defines, has_date, has_name, numbers_in
from research_assistant.reasoning.extractive.terms import terms_of

_CONTRAST = re.compile(
    r"\b(?:than|whereas|while|unlike|compared|contrast|differ\w*|however|instead|but|both|neither)\b", re.IGNORECASE
)
_WHAT_IS = re.compile(r"^(?:what|who) (?:is|are|was|were) (?:a |an |the )?(.+?)[?.!]*$", re.IGNORECASE)
_WHAT_DOES = re.compile(
    r"^what (?:does|do) it mean (?:for .+? )?to (?:be |have )?(?:a |an |the )?(.+?)[?.!]*$"
    r"|^(?:in .+?, )?what is meant by (?:a |an |the )?(.+?)[?.!]*$"
    r"|^what (?:does|do|did) (?:a |an |the )?(.+?) (?:do|does|mean|return|print|produce|show|represent)\b"
    r"|^what (?:is|are) (?:a |an |the )?(.+?) used for",
    re.IGNORECASE,
)
_CATEGORY_WORDS = frozenset(
    content_terms(
        "function method module class keyword operator statement command option parameter attribute placeholder "
        "directive specifier variable setting flag field column code pragma character"
    )
)
_SIGNATURE_LINE = re.compile(r"^@?[A-Za-z_][\w.]*\([^()\n]*\)[^\n]*\n")
_INSTRUCTION = re.compile(
    r"\b(?:you can|you should|you must|you need to|to do (?:this|so)|use|call|run|set|pass|install|type|click|"
    r"open|create|add|enable|configure|select|with the|by calling|by setting)\b",
    re.IGNORECASE,
)
_CODE_TOKEN = re.compile(r"\b[A-Za-z_][\w.]*\(\w*\)|`[^`]+`|\b\w+\.\w+\.\w+\b|--\w")


_HOW_MANY = re.compile(r"\bhow many ([a-z][\w-]*)", re.IGNORECASE)
_TITLE_CASE = re.compile(r"^(?:[A-Z][\w'-]*\s+)+[A-Z][\w'-]*$")


_LABEL = re.compile(r"\b([A-Z][\w-]*)\s+\d+(?:\.\d+)*\b")


def _without_labels(text: str) -> str:
    """The text without numbers that name rather than count: 'Line 7', 'Python 3.12' (not 'In 2023')."""
    return _LABEL.sub(lambda m: m.group(0) if m.group(1).lower() in STOPWORDS else " ", text)


def counts_asked_thing(question: str, quote: str) -> bool:
    """Whether the quote gives a figure for what 'how many X' asks about: '... six lines', '48 low-floor trams'."""
    asked = _HOW_MANY.search(question)
    if asked is None:
        return False
    thing = terms_of(asked.group(1))
    if not thing:
        return False
    tokens = quote.split()
    for i, token in enumerate(tokens):
        if numbers_in(token) and any(terms_of(word) == thing for word in tokens[i + 1 : i + 4]):
            return True
    return False


def defined_subject(text: str) -> list[str]:
    """The terms of what 'What is the X in Y?' or 'What does the X function do?' defines: X, without the
    qualifier after a preposition or a category word ('function', 'module') next to a name."""
    match = _WHAT_IS.match(text.strip()) or _WHAT_DOES.match(text.strip())
    if match is None:
        return []
    subject = next(group for group in match.groups() if group)
    head = re.split(r"\b(?:in|of|for|on|with|within|under|at|from|by|when|used)\b", subject, maxsplit=1)[0]
    terms = content_terms(head)
    named = [t for t in terms if t not in _CATEGORY_WORDS]
    return named or terms


def shape_bonus(
    kind: str | None,
    quote: str,
    question: str,
    subject_terms: list[str],
    present: set[str],
    defined_heading: str = "",
) -> float:
    """`defined_heading`: the heading or term line the quote is the first sentence under, if any."""
    if kind == "procedure":
        code = 0.04 if _CODE_TOKEN.search(quote) else 0.0
        return (0.08 if _INSTRUCTION.search(quote) else 0.0) + code
    if kind == "comparison":
        sides = sum(t in present for t in dict.fromkeys(subject_terms))
        return 0.12 if sides >= 2 and _CONTRAST.search(quote) else 0.0
    if kind == "number":
        asked = set(numbers_in(question))
        if not any(n not in asked for n in numbers_in(_without_labels(quote))):
            return 0.0
        return 0.2 if counts_asked_thing(question, quote) else 0.12
    if kind == "date":
        return 0.12 if has_date(quote) else 0.0
    if kind in ("person", "place"):
        return 0.06 if has_name(quote, exclude=question) else 0.0
    if kind == "definition":
        signature = _SIGNATURE_LINE.match(quote)
        if signature and _names_subject(terms_of(signature.group()), subject_terms):
            return 0.2  # an API entry: the signature line, then what it does
        if defined_heading and _names_subject(terms_of(defined_heading), subject_terms, exact=True):
            # A glossary or definition-list entry: the term, then its definition. A section heading in title
            # case ('Type Affinity') often opens with background instead, unless it names its subject.
            section = _TITLE_CASE.match(defined_heading) and not set(subject_terms) & set(terms_of(quote))
            return 0.1 if section else 0.2
        return defines(quote, subject_terms)
    return 0.0


def _names_subject(terms: list[str], subject_terms: list[str], exact: bool = False) -> bool:
    """Whether `terms` name the subject: all of its terms (and, if exact, little else)."""
    subject = set(subject_terms)
    if not subject or not subject <= set(terms):
        return False
    return not exact or set(terms) == subject


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
