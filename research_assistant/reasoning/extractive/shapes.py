"""The shape a good answer takes, as small relevance bonuses: a figure, a date, a name, a definition,
a contrast or an instruction; plus the question's entities and a sentence-length factor."""

from __future__ import annotations

import re

from research_assistant.reasoning.answers import IMPERATIVE
from research_assistant.reasoning.extractive.sentences import API_SIGNATURE, MAX_SENTENCE_CHARS
from research_assistant.reasoning.extractive.signals import defines, has_name, uses_term
from research_assistant.reasoning.questions import CATEGORY_WORDS, defined_phrase
from research_assistant.text.figures import STANDARD_NAME, counts_asked_thing, has_date, numbers_in
from research_assistant.text.spaces import collapse
from research_assistant.text.tokens import STOPWORDS, content_terms, terms_of

_CONTRAST = re.compile(
    r"\b(?:than|whereas|while|unlike|compared|contrast|differ\w*|however|instead|but|both|neither)\b", re.IGNORECASE
)
_CATEGORY_WORDS = frozenset(content_terms(" ".join(CATEGORY_WORDS)))
_INSTRUCTION = re.compile(
    r"\b(?:you can|you should|you must|you need to|to do (?:this|so)|use|call|run|set|pass|install|type|click|"
    r"open|create|add|enable|configure|select|with the|by calling|by setting)\b",
    re.IGNORECASE,
)
_CODE_TOKEN = re.compile(r"\b[A-Za-z_][\w.]*\(\w*\)|`[^`]+`|\b\w+\.\w+\.\w+\b|--\w")
_TITLE_CASE = re.compile(r"^(?:[A-Z][\w'-]*\s+)+[A-Z][\w'-]*$")
_SETS_SCENE = re.compile(
    r"^\s*(?:for|in|on|at|with|without|when|whenever|if|unless|although|while|since|because|after|before|"
    r"by default|as (?:of|with|in|for)|in order to|normally|usually|typically|traditionally|historically)\b"
    r"[^,.;:]{0,80},",
    re.IGNORECASE,
)
"""A sentence that opens with a phrase setting its scene, up to a comma ('For non-local addresses, ...', 'When a
message arrives, ...'): background, not what a term is."""
_STANDARD = re.compile(STANDARD_NAME, re.IGNORECASE)
_LABEL = re.compile(r"\b([A-Z][a-z-]*)\s+\d+(?:\.\d+)*\b")
"""'Line 7', 'Python 3.12'; not a setting with its value ('KeepAliveTimeout 5', 'MAX_PATH 260')."""


def _without_labels(text: str) -> str:
    """The text without numbers that name rather than count: 'Line 7', 'Python 3.12', 'RFC 7159' (not
    'In 2023')."""
    text = _STANDARD.sub(" ", text)
    return _LABEL.sub(lambda m: m.group(0) if m.group(1).lower() in STOPWORDS else " ", text)


def defined_subject(text: str) -> list[str]:
    """The terms of what 'What is the X in Y?' or 'What does the X function do?' defines: X, without the
    qualifier after a preposition or a category word ('function', 'module') next to a name."""
    terms = content_terms(defined_phrase(text, named=False))
    named = [t for t in terms if t not in _CATEGORY_WORDS]
    return named or terms


def shape_bonus(
    kind: str | None,
    quote: str,
    question: str,
    subject_terms: list[str],
    present: set[str],
    defined_heading: str = "",
    sides: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
) -> float:
    """`defined_heading`: the heading or term line the quote is the first sentence under, if any; `sides`: the
    terms that tell a comparison's two sides apart, when the question names them."""
    if kind == "procedure":
        code = 0.04 if _CODE_TOKEN.search(quote) else 0.0
        told = 0.08 if IMPERATIVE.match(quote.lstrip()) else 0.0
        return (0.08 if _INSTRUCTION.search(quote) else 0.0) + told + code
    if kind == "comparison":
        if all(sides):  # a contrast names both sides, not two words of one ('restart' and 'httpd')
            both = all(any(t in present for t in side) for side in sides)
        else:
            both = sum(t in present for t in dict.fromkeys(subject_terms)) >= 2
        return 0.12 if both and _CONTRAST.search(quote) else 0.0
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
        entry = entry_defines(quote, subject_terms, defined_heading)
        return entry if entry is not None else defines(quote, subject_terms)
    return 0.0


def entry_defines(quote: str, subject_terms: list[str], defined_heading: str = "") -> float | None:
    """How much the quote defines the subject as the entry under its name (0.2, or 0.1 under a section
    heading), or None when it is no such entry: the place a manual defines a term, where a sentence of the form
    '<subject> is a ...' may stand anywhere."""
    signature = API_SIGNATURE.match(quote)
    if (
        signature
        and quote[signature.end() : signature.end() + 1] == "\n"
        and _names_subject(_with_owners_left_out(terms_of(signature.group("name"))), subject_terms)
    ):
        # An API entry: the signature line, then what it does. Its name must name the subject: its parameters
        # ('LocalStack(context_var=None)') or its module ('werkzeug.local') do not make it a 'context local'.
        return 0.2
    if defined_heading and _names_subject(terms_of(defined_heading), subject_terms, exact=True):
        if uses_term(quote, subject_terms):
            return None  # 'As indicated above, some backends use delayed file delivery.' speaks of it
        # A glossary or definition-list entry: the term, then its definition. A section heading in title
        # case ('Type Affinity') often opens with background instead, unless it names its subject; so does a
        # section whose first sentence sets a scene before it says anything ('For non-local addresses, routing
        # verifies the domain, ...' under 'Callout verification'): a definition opens with what the term is or does.
        section = _TITLE_CASE.match(defined_heading) and not set(subject_terms) & set(terms_of(quote))
        return 0.1 if section or _SETS_SCENE.match(quote) else 0.2
    return None


def _with_owners_left_out(terms: list[str]) -> list[str]:
    """The terms with every shorter form of a dotted name: 'psycopg2.sql.identifi' also as 'sql.identifi' and
    'identifi', as a question may name a member by its last parts ('sql.Identifier')."""
    dotted = [term.split(".")[i:] for term in terms if "." in term for i in range(1, term.count(".") + 1)]
    return [*terms, *(".".join(parts) for parts in dotted)]


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
    if size < 30 or size > MAX_SENTENCE_CHARS:
        return 0.85
    return 0.95 if size > 300 else 1.0
