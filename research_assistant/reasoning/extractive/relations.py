"""How evidence items relate across sources: agreement (consensus) and disagreement (conflicts).

Both are conservative, classical heuristics over items from different sources:

- consensus: the two say nearly the same thing (HashingEmbedding cosine >= 0.62, stemmed-term
  Jaccard >= 0.4, same polarity, no differing figures), or they state the same specific facts: every
  figure and date of the shorter (at least one, beyond those the question gives) is in the longer, as
  are most of its terms (>= 50%) and nearly all of the terms that lead up to its first figure
  ('The network opened on 14 September 1987.' and 'The new network opened on 14 September 1987
  with a single line ...');
- conflict: the same measured thing with figures more than 10% apart. Either near-identical
  statements (cosine >= 0.65, Jaccard of non-numeric terms >= 0.5) whose figures differ for the same
  named thing and year, or two statements of a measurement (see `measures`): the same year and period
  context ('in 2023', 'on an average weekday'), the same magnitude and unit ('million passengers',
  'km', '%'), a shared term before the figure (the verb or the subject, 'carried') and no figure that
  agrees, while neither names another entity the other lacks. Percentage changes ('an increase of 6
  percent'), statements for other periods or entities and list-like statements (more than three
  figures) never conflict. And near-identical statements (Jaccard >= 0.6, same first term) where one
  negates the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from research_assistant.reasoning.extractive.measures import (
    MAX_FIGURES,
    MONTHS,
    YEAR,
    changes,
    close,
    different_context,
    measurements_differ,
    named,
    share,
    terms,
)
from research_assistant.reasoning.extractive.signals import is_negated
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import Evidence
from research_assistant.text.figures import numbers_in
from research_assistant.text.tokens import STOPWORDS, content_terms, words

CONSENSUS_COSINE = 0.62
CONSENSUS_JACCARD = 0.4
CONSENSUS_SHARE = 0.5
"""Share of the shorter statement's terms the longer must hold when both state the same figures."""
CONFLICT_COSINE = 0.65
CONFLICT_JACCARD = 0.5
NEGATION_JACCARD = 0.6


@dataclass(frozen=True)
class Disagreement:
    first: int
    second: int
    topic: str


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def _values(text: str, ignore: set[str]) -> tuple[list[float], list[float]]:
    """(years, other figures) of a text, without named numbers and numbers the question itself gives."""
    naming = " ".join(named(text))
    years: list[float] = []
    figures: list[float] = []
    changed = changes(text)
    for number in numbers_in(text):
        if number in ignore or re.search(rf"(?<![\w.]){re.escape(number)}(?![\w.])", naming):
            continue
        value = float(number.rstrip("%"))
        if number.endswith("%") and value in changed:
            continue  # a percentage change, not a level: '... an increase of 6 percent'

        (years if YEAR.fullmatch(number) else figures).append(value)
    return years, figures


def _figures_differ(a: str, b: str, ignore: set[str]) -> bool:
    """Whether two statements about the same thing give different figures.

    Statements about differently named things ('Python 3.11' vs 'Python 3.12') or different years
    ('in 2016 ...' vs 'in 2017 ...') do not contradict each other; figures within 10% agree, and
    statements that give only years conflict when they share none ('founded in 1694' vs '... 1696').
    """
    if set(named(a)) != set(named(b)) or different_context(a, b):
        return False
    years_a, figures_a = _values(a, ignore)
    years_b, figures_b = _values(b, ignore)
    if len(figures_a) > MAX_FIGURES or len(figures_b) > MAX_FIGURES:
        return False
    if figures_a and figures_b:
        same_time = not years_a or not years_b or set(years_a) == set(years_b)
        return same_time and not any(close(x, y) for x in figures_a for y in figures_b)
    if figures_a or figures_b:
        return False
    return bool(years_a and years_b) and not set(years_a) & set(years_b)


def _facts(text: str, ignore: set[str]) -> set[str]:
    return {n for n in numbers_in(text) if n not in ignore} | {w for w in words(text) if w in MONTHS}


def _shorter_first(a: str, b: str) -> list[str]:
    return sorted((a, b), key=lambda text: (len(terms(text)), text))


def _lead(text: str) -> set[str]:
    """The terms before a statement's first figure: what the figure is about ('The network opened on ...')."""
    first_fact = re.search(r"\d", text)
    return terms(text[: first_fact.start()]) if first_fact else set()


def _same_lead(shorter: str, longer: str) -> bool:
    """Whether the longer holds nearly all of the shorter's lead terms (all of them when two or fewer)."""
    lead = _lead(shorter)
    return len(lead - terms(longer)) <= len(lead) // 3


def _same_facts(a: str, b: str, ignore: set[str]) -> bool:
    """Whether two statements state the same specific facts: all the shorter's figures and dates (one or
    more) are in the longer, as are most of its terms and nearly all of those before its first figure."""
    shorter, longer = _shorter_first(a, b)
    facts = _facts(shorter, ignore)
    if not facts or not facts <= _facts(longer, set()):
        return False
    own, others = terms(shorter), terms(longer)
    if len(own) < 2 or share(own, others) < CONSENSUS_SHARE:
        return False
    return _same_lead(shorter, longer) if _lead(shorter) else share(own, others) >= 2 / 3


def _shared_topic(a: str, b: str) -> str:
    shared = terms(a) & terms(b)
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
    term_sets = {i: terms(evidence[i].claim) for i in order}
    used: set[int] = set()
    found: list[Disagreement] = []
    for pos, i in enumerate(order):
        for j in order[pos + 1 :]:
            if i in used or j in used or evidence[i].source_id == evidence[j].source_id:
                continue
            a, b = evidence[i].claim, evidence[j].claim
            if a.lower() in b.lower() or b.lower() in a.lower():
                continue  # a sentence and the same sentence with the next one: what the next adds is no conflict
            jaccard = _jaccard(term_sets[i], term_sets[j])
            similar = jaccard >= CONFLICT_JACCARD and embedder.similarity(a, b) >= CONFLICT_COSINE
            numeric = (similar and _figures_differ(a, b, ignore)) or measurements_differ(a, b)
            first_a, first_b = content_terms(a)[:1], content_terms(b)[:1]
            negation = jaccard >= NEGATION_JACCARD and first_a == first_b and is_negated(a) != is_negated(b)
            if numeric or negation:
                used.update((i, j))
                found.append(Disagreement(i, j, _shared_topic(a, b) or "conflicting statements"))
    return found


def _agree(a: str, b: str, embedder: Embedder, ignore: set[str]) -> bool:
    if is_negated(a) != is_negated(b):
        return False
    if _same_facts(a, b, ignore):
        return True
    if _jaccard(terms(a), terms(b)) < CONSENSUS_JACCARD or embedder.similarity(a, b) < CONSENSUS_COSINE:
        return False
    return _same_lead(*_shorter_first(a, b)) and not _figures_differ(a, b, ignore)


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
            if _agree(evidence[i].claim, evidence[j].claim, embedder, ignore):
                group.append(j)
                sources.append(evidence[j].source_id)
        if len(group) > 1:
            used.update(group)
            groups.append(group)
    return groups
