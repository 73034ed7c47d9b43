"""How evidence items relate across sources: agreement (consensus) and disagreement (conflicts).

Both are conservative, lexical heuristics over HashingEmbedding cosine and stemmed-term overlap:

- consensus: items from different sources that say nearly the same thing
  (cosine >= 0.62 and term Jaccard >= 0.4, same polarity, no differing figures);
- conflict: items from different sources about the same subject (cosine >= 0.65,
  Jaccard of non-numeric terms >= 0.5) whose figures differ by more than 10% (for the same
  named thing and the same year), or that are near-identical (Jaccard >= 0.6, same first
  term) but one negates the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from research_assistant.knowledge.text import STOPWORDS, content_terms, words
from research_assistant.reasoning.extractive.signals import is_negated, numbers_in
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import Evidence

_NAMED_NUMBER = re.compile(r"\b[A-Z][\w+#-]*\s+v?\d+(?:\.\d+)*\b")
_YEAR = re.compile(r"1[5-9]\d\d|20\d\d")
CONSENSUS_COSINE = 0.62
CONSENSUS_JACCARD = 0.4
CONFLICT_COSINE = 0.65
CONFLICT_JACCARD = 0.5
NEGATION_JACCARD = 0.6


@dataclass(frozen=True)
class Disagreement:
    first: int
    second: int
    topic: str


def _terms(text: str) -> set[str]:
    return {t for t in content_terms(text) if not t.replace(".", "").replace(",", "").isdigit()}


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _named(text: str) -> list[str]:
    """Numbers that name something rather than measure it: 'Python 3.12', 'Windows 11', 'PEP 703'."""
    return [m.group().lower() for m in _NAMED_NUMBER.finditer(text)]


def _values(text: str, ignore: set[str]) -> tuple[list[float], list[float]]:
    """(years, other figures) of a text, without named numbers and numbers the question itself gives."""
    named = " ".join(_named(text))
    years: list[float] = []
    figures: list[float] = []
    for number in numbers_in(text):
        if number in ignore or re.search(rf"(?<![\w.]){re.escape(number)}(?![\w.])", named):
            continue
        value = float(number.rstrip("%"))
        (years if _YEAR.fullmatch(number) else figures).append(value)
    return years, figures


def _far_apart(xs: list[float], ys: list[float]) -> bool:
    return all(abs(x - y) > 0.1 * max(abs(x), abs(y), 1e-9) for x in xs for y in ys)


def _figures_differ(a: str, b: str, ignore: set[str]) -> bool:
    """Whether two statements about the same thing give different figures.

    Statements about differently named things ('Python 3.11' vs 'Python 3.12') or different years
    ('in 2016 ...' vs 'in 2017 ...') do not contradict each other; figures within 10% agree, and
    statements that give only years conflict when they share none ('founded in 1694' vs '... 1696').
    """
    if set(_named(a)) != set(_named(b)):
        return False
    years_a, figures_a = _values(a, ignore)
    years_b, figures_b = _values(b, ignore)
    if len(figures_a) > 3 or len(figures_b) > 3:
        return False
    if figures_a and figures_b:
        same_time = not years_a or not years_b or set(years_a) == set(years_b)
        return same_time and _far_apart(figures_a, figures_b)
    if figures_a or figures_b:
        return False
    return bool(years_a and years_b) and not set(years_a) & set(years_b)


def _shared_topic(a: str, b: str) -> str:
    shared = _terms(a) & _terms(b)
    picked: list[str] = []
    for word in words(a):
        if word in STOPWORDS or word.isdigit():
            continue
        stem = content_terms(word)
        if stem and stem[0] in shared and word not in picked:
            picked.append(word)
    return " ".join(picked[:6])


def find_conflicts(evidence: list[Evidence], embedder: Embedder, question: str = "") -> list[Disagreement]:
    """Pairs of items from different sources that disagree, best-scored first; each item in one pair at most."""
    ignore = set(numbers_in(question))
    order = sorted(range(len(evidence)), key=lambda i: (-evidence[i].score, evidence[i].id))
    terms = {i: _terms(evidence[i].claim) for i in order}
    used: set[int] = set()
    found: list[Disagreement] = []
    for pos, i in enumerate(order):
        for j in order[pos + 1 :]:
            if i in used or j in used or evidence[i].source_id == evidence[j].source_id:
                continue
            a, b = evidence[i].claim, evidence[j].claim
            jaccard = _jaccard(terms[i], terms[j])
            if jaccard < CONFLICT_JACCARD:
                continue
            cosine = embedder.similarity(a, b)
            numeric = cosine >= CONFLICT_COSINE and _figures_differ(a, b, ignore)
            first_a, first_b = content_terms(a)[:1], content_terms(b)[:1]
            negation = jaccard >= NEGATION_JACCARD and first_a == first_b and is_negated(a) != is_negated(b)
            if numeric or negation:
                used.update((i, j))
                found.append(Disagreement(i, j, _shared_topic(a, b) or "conflicting statements"))
    return found


def find_consensus(
    evidence: list[Evidence], embedder: Embedder, question: str = "", exclude: frozenset[int] = frozenset()
) -> list[list[int]]:
    """Groups of items (the best first) from two or more sources that state the same thing."""
    ignore = set(numbers_in(question))
    order = sorted(range(len(evidence)), key=lambda i: (-evidence[i].score, evidence[i].id))
    used: set[int] = set(exclude)
    groups: list[list[int]] = []
    for i in order:
        if i in used:
            continue
        group = [i]
        sources = [evidence[i].source_id]
        for j in order:
            if j in used or j == i or evidence[j].source_id in sources:
                continue
            a, b = evidence[i].claim, evidence[j].claim
            if _jaccard(_terms(a), _terms(b)) < CONSENSUS_JACCARD or embedder.similarity(a, b) < CONSENSUS_COSINE:
                continue
            if is_negated(a) != is_negated(b) or _figures_differ(a, b, ignore):
                continue
            group.append(j)
            sources.append(evidence[j].source_id)
        if len(group) > 1:
            used.update(group)
            groups.append(group)
    return groups
