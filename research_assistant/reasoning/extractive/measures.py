"""Figures as measurements: what a sentence measures, in which unit, when, and about whom.

'The network carried 27.8 million passengers in 2023.' holds one figure, 27.8, with magnitude 'million',
unit 'passeng' (the stemmed word after it) and the terms before it ('network', 'carri'), in the year
context {2023}. Two statements measure the same thing when their years, periods ('weekday', 'annual'),
magnitudes, units and some of those leading terms match; `relations` compares their values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from research_assistant.reasoning.extractive.lexicon import word_set
from research_assistant.reasoning.extractive.signals import is_negated
from research_assistant.text.tokens import STOPWORDS, content_terms

_NAMED_NUMBER = re.compile(r"\b[A-Z][\w+#-]*\s+v?\d+(?:\.\d+)*\b")
YEAR = re.compile(r"1[5-9]\d\d|20\d\d")
_TOKEN = re.compile(r"[$€£¥]|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[A-Za-z][\w'’-]*|%|[,;:()]")
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


MONTHS = word_set(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
_PERIODS = word_set(
    """weekday weekdays weekend weekends daily weekly monthly annual annually yearly hourly nightly quarterly
    average peak off-peak morning mornings evening evenings night nights per day days hour hours week weeks
    month months quarter q1 q2 q3 q4 monday tuesday wednesday thursday friday saturday sunday mondays sundays
    saturdays summer winter spring autumn"""
)
"""Words that qualify when a figure holds: figures for different periods do not contradict each other."""
_DAYS = word_set("monday tuesday wednesday thursday friday saturday sunday")
_MAGNITUDES = word_set("hundred thousand million billion trillion k m bn mn")
_CHANGE_WORDS = word_set(
    """increase increased increases decrease decreased decreases rise rose risen rises fall fell fallen falls
    grow grew grown grows growth drop dropped drops decline declined declines up down more less fewer higher
    lower gain gained loss lost cut cuts boost boosted jump jumped change changed by"""
)
MAX_FIGURES = 3
"""Statements with more figures than this are lists; their figures are not compared."""
TOLERANCE = 0.1
"""Figures within 10% of each other agree."""
SAME_SUBJECT_SHARE = 0.5
"""Share of the shorter statement's terms the longer must hold for a measurement to be the same one."""


@dataclass(frozen=True)
class Figure:
    """A figure as a measurement: its value, scale and unit, and the terms just before it."""

    value: float
    percent: bool
    change: bool
    """A percentage change ('an increase of 6 percent'), not a level."""
    magnitude: str
    unit: str
    """The currency sign before it or the stemmed word after it: 'passeng', 'km', 'crown', '$'."""
    before: frozenset[str]


@dataclass(frozen=True)
class Statement:
    figures: tuple[Figure, ...]
    years: frozenset[str]
    periods: frozenset[str]
    names: frozenset[str]


def terms(text: str) -> set[str]:
    return {t for t in content_terms(text) if not t.replace(".", "").replace(",", "").isdigit()}


def share(shorter: set[str], longer: set[str]) -> float:
    return len(shorter & longer) / len(shorter) if shorter else 0.0


def named(text: str) -> list[str]:
    """Numbers that name something rather than measure it: 'Python 3.12', 'Windows 11', 'PEP 703'."""
    found = (m.group().lower() for m in _NAMED_NUMBER.finditer(text))
    return [n for n in found if n.split()[0] not in STOPWORDS and n.split()[0] not in MONTHS]  # not 'In 2023'


def statement(text: str) -> Statement:
    """The measurements of a sentence and the context they hold in: years, periods and names."""
    tokens = [m.group() for m in _TOKEN.finditer(text)]
    lower = [t.lower() for t in tokens]
    naming = " ".join(named(text))
    figures: list[Figure] = []
    years: set[str] = set()
    periods = {w for w in lower if w in _PERIODS or w in MONTHS}
    names = {w for i, w in enumerate(tokens) if i and w[:1].isupper() and w.lower() not in MONTHS | _DAYS}
    for i, token in enumerate(tokens):
        if not _NUMBER.fullmatch(token):
            continue
        following = lower[i + 1] if i + 1 < len(tokens) else ""
        previous = lower[i - 1] if i else ""
        if YEAR.fullmatch(token) and following not in _MAGNITUDES and following not in ("%", "percent"):
            years.add(token)
            continue
        if following in MONTHS or previous in MONTHS or re.search(rf"(?<![\w.]){re.escape(token)}(?![\w.])", naming):
            continue  # a day of the month, or a number that names something ('Python 3.12')
        percent = following in ("%", "percent") or (following == "per" and lower[i + 2 : i + 3] == ["cent"])
        j = i + 1 + (0 if not percent else (2 if following == "per" else 1))
        magnitude = lower[j] if j < len(tokens) and lower[j] in _MAGNITUDES else ""
        j += bool(magnitude)
        unit = previous if previous in ("$", "€", "£", "¥") else ""
        if not unit and j < len(tokens) and lower[j][:1].isalpha() and lower[j] not in STOPWORDS:
            unit = next(iter(content_terms(lower[j])), "")
        before: list[str] = []
        for word in reversed(lower[:i]):
            if word in (",", ";", ":", "(", ")") or len(before) >= 4:
                break
            if word[:1].isalpha() and word not in STOPWORDS:
                before.extend(content_terms(word))
        nearby = set(lower[max(0, i - 4) : i]) | set(lower[j : j + 2])
        figures.append(
            Figure(
                value=float(token.replace(",", "")),
                percent=percent,
                change=percent and bool(nearby & _CHANGE_WORDS),
                magnitude=magnitude,
                unit=unit,
                before=frozenset(before),
            )
        )
    return Statement(tuple(figures), frozenset(years), frozenset(periods), frozenset(names))


def close(x: float, y: float) -> bool:
    return abs(x - y) <= TOLERANCE * max(abs(x), abs(y), 1e-9)


def different_context(a: str, b: str) -> bool:
    """Whether two statements hold in different contexts: other periods ('weekday' vs 'Saturday'), or each
    names something the other does not ('the Kallbacka depot' vs 'the Sundvik depot')."""
    first, second = statement(a), statement(b)
    return first.periods != second.periods or bool(first.names - second.names and second.names - first.names)


def changes(text: str) -> set[float]:
    """The values of a statement's percentage changes: {6.0} for '... an increase of 6 percent ...'."""
    return {f.value for f in statement(text).figures if f.change}


def measurements_differ(a: str, b: str) -> bool:
    """Whether two statements give different figures for the same measured thing (see the module doc)."""
    first, second = statement(a), statement(b)
    if not first.figures or not second.figures or set(named(a)) != set(named(b)):
        return False
    if len(first.figures) > MAX_FIGURES or len(second.figures) > MAX_FIGURES:
        return False
    if first.years != second.years or different_context(a, b):
        return False
    shorter, longer = sorted((terms(a), terms(b)), key=len)
    if share(shorter, longer) < SAME_SUBJECT_SHARE or is_negated(a) != is_negated(b):
        return False
    differ = agree = False
    for x in first.figures:
        for y in second.figures:
            if x.change or y.change or (x.percent, x.magnitude, x.unit) != (y.percent, y.magnitude, y.unit):
                continue
            if x.before & y.before:
                agree = agree or close(x.value, y.value)
                differ = differ or not close(x.value, y.value)
    return differ and not agree
