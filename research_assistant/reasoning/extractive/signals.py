"""Small textual signals shared by extraction, progress and synthesis: numbers, dates, negation, definitions."""

from __future__ import annotations

import hashlib
import re

from research_assistant.knowledge.text import content_terms, words
from research_assistant.reasoning.extractive.lexicon import NEGATIONS

_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s?(%|percent\b))?(?![\w])")
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_MONTH = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{1,2}\b|\b\d{1,2}\s+(?:january|february|march|april|may|"
    r"june|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)
_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+(?:\s+(?:[A-Z]\.\s*)?[A-Z][a-z]+)+")
_SPACE = re.compile(r"\s+")
_DEFINING = re.compile(
    r"\s(?:((?:is|are|was|were) (?:a|an|one of|any|defined as|known as)|refers? to|stands? for|denotes|means)|"
    r"(?:is|are|was|were|describes|represents))\s",
    re.IGNORECASE,
)


_THE = re.compile(r"(?:the|a|an)\s", re.IGNORECASE)


def collapse(text: str) -> str:
    """Whitespace collapsed to single spaces, ends stripped."""
    return _SPACE.sub(" ", text).strip()


_SMALL_NUMBERS = (
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen"
)
_NUMBER_WORDS = {word: str(value) for value, word in enumerate(_SMALL_NUMBERS.split(), start=2)} | {
    "eighteen": "18",
    "nineteen": "19",
    "twenty": "20",
    "thirty": "30",
    "forty": "40",
    "fifty": "50",
    "hundred": "100",
    "dozen": "12",
    "thousand": "1000",
}
"""Figures written as words; not 'one' or 'zero', since 'one of' and 'no one' are rarely figures."""
_NUMBER_WORD = re.compile(rf"\b({'|'.join(_NUMBER_WORDS)})\b", re.IGNORECASE)


def numbers_in(text: str) -> list[str]:
    """Numbers as written ('1,000' becomes '1000'; 'six' becomes '6'), in order, without repeats."""
    found: list[str] = []
    for match in _NUMBER.finditer(text):
        value = match.group(1).replace(",", "") + ("%" if match.group(2) else "")
        if value not in found:
            found.append(value)
    for match in _NUMBER_WORD.finditer(text):
        value = _NUMBER_WORDS[match.group(1).lower()]
        if value not in found:
            found.append(value)
    return found


def has_date(text: str) -> bool:
    return bool(_YEAR.search(text) or _MONTH.search(text))


def has_name(text: str, exclude: str = "") -> bool:
    """Whether the text names someone or something (two capitalized words) not already in `exclude`."""
    lowered = exclude.lower()
    return any(m.group().lower() not in lowered for m in _NAME.finditer(text))


def is_negated(text: str) -> bool:
    return any(w in NEGATIONS or w.endswith("n't") for w in words(text))


def defines(sentence: str, subject_terms: list[str]) -> float:
    """How much the sentence reads like a definition of the subject, 0..0.2.

    0.2 for '<subject> is a/an ...', '<subject> refers to ...' and the like; 0.1 for another
    copula with the subject as its head ('<subject> is the ...'); 0 otherwise.
    """
    match = _DEFINING.search(sentence)
    if match is None or len(words(sentence[: match.start()])) > 12:
        return 0.0
    strong = match.group(1) is not None
    for part in sentence[: match.start()].split(","):
        head = content_terms(part)
        if head and (head[-1] in subject_terms or all(t in subject_terms for t in head)):
            return 0.2 if strong else 0.1
        if subject_terms and all(t in head for t in subject_terms):
            return 0.2 if strong or _THE.match(sentence[match.end() :]) else 0.1  # 'The X of a Y is the ...'
    return 0.0


def evidence_id(source_id: str, sub_question_id: str, quote: str) -> str:
    """A stable evidence id: the same quote from the same source for the same sub-question."""
    digest = hashlib.sha1(f"{source_id}\x1f{sub_question_id}\x1f{quote}".encode()).hexdigest()
    return "E" + digest[:10]
