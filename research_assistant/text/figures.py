"""Figures as a question or a quote writes them: numbers (in digits or words) and dates."""

from __future__ import annotations

import re

from research_assistant.text.tokens import terms_of

_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s?(%|percent\b)|[kKMGT]i?B|[kKMGT]|ms|[smhdw])?(?![\w])"
)
"""A figure, maybe with a percent sign or a unit written against it, as settings are ('50M', '3600s', '5d')."""
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)\b")
_MONTH = re.compile(
    r"\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{1,2}\b|\b\d{1,2}\s+(?:january|february|march|april|may|"
    r"june|july|august|september|october|november|december)\b",
    re.IGNORECASE,
)
_HOW_MANY = re.compile(r"\bhow many ([a-z][\w-]*)", re.IGNORECASE)
STANDARD_NAME = r"\b(?:rfc|pep|iso|iec|ieee|ecma|ansi|utf|ucs|cve|sha|md)[- ]?\d[\d.:-]*"
"""'RFC 7159', 'UTF-8', 'SHA-256': a number that names a standard, not a figure (a regular expression, case aside)."""
DOCUMENT_PART = r"\b(?:example|section|chapter|figure|table|appendix|listing)\s+\d+(?:\.\d+)*\b"
"""'Example 3.5', 'Section 4.2': a number that names a part of a document, not a figure (case aside)."""

_SMALL_NUMBERS = (
    "two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen"
)
_LARGER_NUMBERS = dict(twenty="20", thirty="30", forty="40", fifty="50", hundred="100", dozen="12", thousand="1000")
_TIMES = dict(twice="2", thrice="3")
_NUMBER_WORDS = {word: str(value) for value, word in enumerate(_SMALL_NUMBERS.split(), start=2)}
_NUMBER_WORDS |= _LARGER_NUMBERS | _TIMES
"""Figures written as words, counts of times too ('more than twice'); not 'one', 'once' or 'zero', since 'one of',
'once it starts' and 'no one' are rarely figures."""
_NUMBER_WORD = re.compile(rf"\b({'|'.join(_NUMBER_WORDS)})\b", re.IGNORECASE)
_FRACTIONS = dict(half="0.5", quarter="0.25")
_FRACTION_OF_UNIT = re.compile(
    r"\b(half|quarter)\s+(?:of\s+)?an?\s+(?:[kKMGT]i?B|[kmgt]ilobytes?|megabytes?|gigabytes?|terabytes?|bytes?|"
    r"seconds?|minutes?|hours?|days?|weeks?|months?|years?|second|minute|hour|day|week|month|year)\b",
    re.IGNORECASE,
)
"""A fraction of one unit written in words ('usually more than half a GB', 'a quarter of an hour'): a figure, where
'half of the pages' is none."""


def numbers_in(text: str) -> list[str]:
    """Numbers as written ('1,000' becomes '1000'; 'six' becomes '6'), in order, without repeats."""
    digits = [match.group(1).replace(",", "") + ("%" if match.group(2) else "") for match in _NUMBER.finditer(text)]
    named = [_NUMBER_WORDS[match.group(1).lower()] for match in _NUMBER_WORD.finditer(text)]
    fractions = [_FRACTIONS[match.group(1).lower()] for match in _FRACTION_OF_UNIT.finditer(text)]
    return list(dict.fromkeys([*digits, *named, *fractions]))


def has_date(text: str) -> bool:
    return bool(_YEAR.search(text) or _MONTH.search(text))


def counted_thing(question: str) -> str | None:
    """The word after 'how many': 'How many worker threads ...?' -> 'worker'."""
    asked = _HOW_MANY.search(question)
    return asked.group(1) if asked else None


def counts_asked_thing(question: str, quote: str) -> bool:
    """Whether the quote gives a figure for what 'how many X' asks about: '... six lines', '48 low-floor trams'."""
    counted = counted_thing(question)
    if counted is None:
        return False
    thing = terms_of(counted)
    if not thing:
        return False
    tokens = quote.split()
    return any(
        numbers_in(token) and any(terms_of(word) == thing for word in tokens[i + 1 : i + 4])
        for i, token in enumerate(tokens)
    )
