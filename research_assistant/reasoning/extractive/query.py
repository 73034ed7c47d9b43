"""What a sub-question looks for: weighted terms, concepts, required terms and the expected answer shape."""

from __future__ import annotations

import re
from dataclasses import dataclass

from research_assistant.reasoning.extractive.analysis import cached_analysis, classify, expected_answer
from research_assistant.reasoning.extractive.lexicon import FRAMING_WORDS
from research_assistant.reasoning.extractive.phrases import extract_keywords
from research_assistant.reasoning.extractive.shapes import defined_subject
from research_assistant.reasoning.extractive.slots import comparison_sides
from research_assistant.reasoning.questions import (
    asked_for,
    defined_term,
    without_context,
    without_framing,
    without_premise,
)
from research_assistant.schemas import QueryAnalysis, QueryType, SubQuestion
from research_assistant.text.synonyms import synonyms
from research_assistant.text.tokens import content_terms, terms_of

GENERIC_TERMS: frozenset[str] = frozenset(
    content_terms(
        """background detail details example examples limitation limitations exception exceptions caveat caveats
        change changed changes time work works cause causes effect effects evidence support supports prevent
        prevented mitigate mitigated step steps requirement requirements need needed common problem problems
        pitfall pitfalls best practice practices trade-off trade-offs choose differ difference key fact facts
        benefit benefits drawback drawbacks current development developments expert experts disagree
        related relate understand explain figure figures describe apply applies specific known say says source
        sources different overview background needed happen happens mechanism mechanisms involved factor factors
        led consequence consequences event events show shows explanation explanations way context related
        uncertainty uncertainties"""
    )
)
"""Stems of the planner's template words: never enough, alone, to make a sentence relevant."""


@dataclass(frozen=True)
class Concept:
    """One idea the sub-question asks about, as stemmed terms."""

    terms: tuple[str, ...]
    weight: float
    any_term: bool = False
    """True for template words ('details, figures or examples'): any one of them is enough."""


CONTEXT_WEIGHT = 0.5
"""The weight, against the abbreviation's 1, of the other words of an expansion question: they only say where
it was seen ('The IPv6 section mentions SLAAC; what does that stand for?')."""
_SPELLING = frozenset(terms_of("stand stands short acronym abbreviation initialism expand expansion full name form"))
"""Words that ask for an expansion, which its answer need not repeat."""


@dataclass(frozen=True)
class Query:
    """What a sub-question looks for, derived once and applied to every candidate."""

    core: dict[str, float]
    """Term weights; the BM25 ideal is computed from these."""
    expanded: dict[str, float]
    """`core` plus synonyms at half weight."""
    concepts: list[Concept]
    required: list[str]
    """A candidate must hold one of these terms to be evidence."""
    subject: list[str]
    """What the sub-question is about; used for focus and definitions."""
    entities: list[str]
    kind: str | None
    """Expected answer shape: number, date, person, place, definition, comparison, procedure."""
    text: str
    """Text the candidates' vectors are compared with."""
    sides: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    """For a comparison: the terms that tell its two sides apart ('graceful' and 'normal' for 'a graceful
    restart and a normal restart'), empty when the question does not say."""


def _asked_terms(text: str) -> list[str]:
    """The terms of a question without its framing words ('main', 'best', 'difference', ...)."""
    return terms_of(" ".join(w for w in text.split() if w.lower().strip("?,.!;:") not in FRAMING_WORDS))


def _concepts(analysis: QueryAnalysis, sub_question: str, topic: list[str]) -> list[Concept]:
    """The question's keyword and entity phrases that the sub-question mentions (all, if it mentions none),
    each phrase of the sub-question's own, and its template words as one optional-word concept."""
    sub_terms = _asked_terms(sub_question)
    phrases = [*analysis.keywords, *analysis.entities]
    mentioned = [p for p in phrases if any(t in sub_terms for t in terms_of(p))] or phrases
    concepts: list[Concept] = []
    seen: set[str] = set()
    own = [tuple(t for t in _asked_terms(p) if t not in topic) for p in extract_keywords(sub_question)]
    generic: list[str] = []
    for terms in [*(tuple(dict.fromkeys(terms_of(p))) for p in mentioned), *own]:
        terms = tuple(dict.fromkeys(terms))
        if not terms or all(t in seen for t in terms):
            continue
        seen.update(terms)
        if all(t in GENERIC_TERMS and t not in topic for t in terms):
            generic.extend(t for t in terms if t not in generic)
        else:
            concepts.append(Concept(terms, 1.0))
    if generic:
        concepts.append(Concept(tuple(generic), 0.5, any_term=True))
    return concepts


def build_query(question: str, sub_question: SubQuestion, analysis: QueryAnalysis | None = None) -> Query:
    """The query for one sub-question of `question`: concepts, weighted terms and the expected answer shape;
    `analysis`: the question's, as the run made it (analysed here, once per question, when not given)."""
    analysis = analysis or cached_analysis(question)
    topic = terms_of(" ".join([*analysis.keywords, *analysis.entities])) or terms_of(question)
    # A statement before the question sets the scene: its words may help rank, but are not what is asked about.
    asking = without_premise(sub_question.text)
    asked_words = set(terms_of(asking))
    scene = [t for t in terms_of(without_framing(sub_question.text)) if t not in asked_words]
    sub_terms = _asked_terms(asking)
    specific = [t for t in sub_terms if t in topic or t not in GENERIC_TERMS]
    focused = [t for t in topic if t in specific]
    lowered = asking.lower()
    entities = [e for e in analysis.entities if e.lower() in lowered] or analysis.entities
    concepts = _concepts(analysis, asking, topic)
    asked = asked_for(sub_question.text)
    if asked.kind == "expansion":  # 'The IPv6 section mentions SLAAC; what does that stand for?' asks of SLAAC
        acronym = tuple(terms_of(asked.acronym))
        context = (tuple(t for t in c.terms if t not in acronym and t not in _SPELLING) for c in concepts)
        concepts = [*([Concept(acronym, 1.0)] if acronym else []), *(Concept(t, CONTEXT_WEIGHT) for t in context if t)]
    core: dict[str, float] = {}
    for concept in concepts:
        for term in concept.terms:
            weight = 0.6 if concept.any_term else (1.5 if term in topic else 1.0) / len(concept.terms) ** 0.5
            core[term] = max(core.get(term, 0.0), weight)
    for term in sub_terms:
        core.setdefault(term, 0.6 if term in GENERIC_TERMS else 1.0)
    for term in [*topic, *scene]:
        core.setdefault(term, 0.3)
    expanded = dict(core)
    for term, weight in core.items():
        for synonym in synonyms(term):
            if synonym not in core:
                expanded[synonym] = max(expanded.get(synonym, 0.0), weight / 2)
    subject = [t for t in specific if t not in GENERIC_TERMS] or topic
    kind = expected_answer(asking)
    if kind is None and asked.kind == "definition":
        kind = "definition"  # 'In the Apache HTTP Server, what is a handler?'
    if kind == "definition":  # 'When the manual talks about a backend, what does it mean?' defines 'backend'
        subject = defined_subject(without_context(asking)) or content_terms(defined_term(sub_question.text)) or subject
    sides = _sides(question, analysis) if analysis.query_type is QueryType.COMPARATIVE else ((), ())
    # A sub-question about one side ('Overview of graceful restart') asks about that side, not for a contrast.
    names_both = all(set(side) & set(sub_terms) or any(t in asking for t in side) for side in sides if side)
    symbols = all(len(side) == 1 and _is_symbol(side[0]) for side in sides)  # '-O' and '-P' name no subject
    if kind is None and analysis.query_type is QueryType.COMPARATIVE and (len(subject) >= 2 or symbols) and names_both:
        kind = "comparison"
    if kind is None and classify(asking) is QueryType.PROCEDURAL:
        kind = "procedure"
    text = asking if focused else f"{asking} {' '.join(analysis.keywords)}"
    return Query(core, expanded, concepts, specific or topic, subject, entities, kind, text, sides)


_QUALIFIER = re.compile(r"\s(?:of|in|on|for|with|within|from|under)\s", re.IGNORECASE)


def _is_symbol(word: str) -> bool:
    """Whether a written word is a symbol or an option, no word of its own ('-O', '$@', '!=')."""
    return bool(word) and not terms_of(word) and re.search(r"[^\w\s]", word) is not None


def _sides(question: str, analysis: QueryAnalysis) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The terms of each compared side that the other side lacks, qualifiers aside: '... a normal restart of
    Apache httpd' compares restarts, and 'of Apache httpd' holds for both."""
    first, second = (_QUALIFIER.split(side, maxsplit=1)[0].strip() for side in comparison_sides(question, analysis))
    a, b = terms_of(first), terms_of(second)
    only_a, only_b = tuple(t for t in a if t not in b), tuple(t for t in b if t not in a)
    last_a, last_b = (side.split()[-1] if side.split() else "" for side in (first, second))
    if not (only_a and only_b) and _is_symbol(last_a) and _is_symbol(last_b):
        return (last_a,), (last_b,)  # 'pygmentize -O' and '-P': the command written once is no side
    if not only_a and not only_b:
        # Two symbols or options ('-q' and '-Q', '$*' and '$@', 'diff -b' and 'diff -w') stand for themselves, as
        # written: a comparison of symbols is not one of the words around them ('running sphinx-build', 'diff').
        written_a, written_b = first.split(), second.split()
        return tuple(w for w in written_a if w not in written_b), tuple(w for w in written_b if w not in written_a)
    return only_a, only_b
