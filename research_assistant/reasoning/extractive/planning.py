"""Research plans from templates: one set of sub-questions per query type, queries from keywords and entities.

The first sub-question is always the question itself (trimmed, ending with '?'), so the direct answer is
sought first and later steps read from its wording what it asks for. The parts of a compound question
come next (see `parts`), then the headings of the question's templates (see `templates`): background,
details, mechanism, causes, steps or trade-offs, depending on the query type, each a label around the
question's topic that reads as English whatever the topic is. Every sub-question gets its own keyword
queries, none planned twice.
"""

from __future__ import annotations

import re

from research_assistant.context import DepthProfile
from research_assistant.reasoning.extractive.parts import question_parts
from research_assistant.reasoning.extractive.slots import (
    VERB_PHRASE,
    cause_and_effect,
    comparison_sides,
    keyword_query,
    plan_slots,
    query_slots,
)
from research_assistant.reasoning.extractive.templates import (
    CAUSE_EFFECT,
    FALLBACKS,
    MECHANISM,
    NOUN_PROCEDURAL,
    TEMPLATES,
    Template,
)
from research_assistant.reasoning.questions import asked_directly, asking_part
from research_assistant.schemas import Intent, QueryAnalysis, QueryType, ResearchPlan, SubQuestion
from research_assistant.text.spaces import collapse
from research_assistant.text.tokens import content_terms, normalize_query

__all__ = ["build_plan", "cause_and_effect", "comparison_sides", "keyword_query", "without_repeats"]

_FALLBACK_QUERIES = ("{t}", "{e} {t}", "{k} overview", "{k} explained", "{k} guide", "{k} facts", "{k} research")
"""Queries that fill a sub-question's quota when its templates collide with queries planned already."""
_TERMINOLOGY = re.compile(
    r"\b(?:terminology|parlance|jargon|glossary)\b|\b(?:uses? )?the (?:term|word)\b", re.IGNORECASE
)
"""A question about a word as a project uses it ('In Django terminology, what is a concrete model?'): the project's
glossary defines it, under a title ('Glossary') that shares no word with the question."""
_GLOSSARY_QUERY = "{t} glossary"
_HOW = re.compile(r"^\s*(?:explain\s+)?how\b(?!\s+(?:many|much|long|often|old|far|big|large|high|fast)\b)", re.I)


def _fill(template: str, slots: dict[str, str]) -> str:
    text = collapse(template.format(**slots))
    return re.sub(r"\s+([?,])", r"\1", text)


def without_repeats(query: str) -> str:
    """The query with repeated words (ignoring case) dropped: 'remote work benefits benefits' -> '... benefits'."""
    kept: dict[str, str] = {}
    for word in query.split():
        kept.setdefault(word.lower(), word)
    return " ".join(kept.values())


def _redundant(text: str, kept: str) -> bool:
    """Whether `text` asks what `kept` asks: the same words, or the same content terms."""
    return normalize_query(text) == normalize_query(kept) or set(content_terms(text)) == set(content_terms(kept))


def _templates(question: str, analysis: QueryAnalysis) -> tuple[Template, ...]:
    kind = analysis.query_type
    asking = asking_part(question)
    if kind is QueryType.PROCEDURAL and not VERB_PHRASE.match(asking):
        return NOUN_PROCEDURAL
    if kind is QueryType.CAUSAL and cause_and_effect(question):
        return CAUSE_EFFECT
    if kind is QueryType.EXPLORATORY and _HOW.match(asking):
        return MECHANISM
    return TEMPLATES[kind.value]


def _as_asked(question: str) -> str:
    """The question as the user asked it, trimmed, ending with '?'."""
    return collapse(question).rstrip(" ?.!") + "?"


def build_plan(question: str, analysis: QueryAnalysis, profile: DepthProfile) -> ResearchPlan:
    """`profile.sub_questions` sub-questions, each with `profile.queries_per_sub_question` distinct queries."""
    slots = plan_slots(question, analysis)
    queried = query_slots(slots)
    count = max(1, profile.sub_questions)
    per_question = max(1, profile.queries_per_sub_question)
    own, *aspects = _templates(question, analysis)
    first = [_fill(t, queried) for t in ((_GLOSSARY_QUERY,) if _TERMINOLOGY.search(question) else ()) + own[1]]
    texts: list[tuple[str, list[str]]] = [(_as_asked(asked_directly(question)), first)]
    parts = [(p.text, [p.query, f"{p.query} explained", f"{p.query} overview"]) for p in question_parts(question)]
    headings = [(_fill(text, slots), [_fill(t, queried) for t in queries]) for text, queries in aspects]
    fallbacks = [(_fill(text, slots), [_fill(t, queried) for t in queries]) for text, queries in FALLBACKS]
    for heading, planned in [*parts, *headings, *fallbacks]:
        if len(texts) >= count:
            break
        if not any(_redundant(heading, kept) for kept, _ in texts):
            texts.append((heading, planned))
    used: set[str] = set()
    sub_questions: list[SubQuestion] = []
    for number, (text, planned) in enumerate(texts, start=1):
        spare = [*(_fill(t, queried) for t in _FALLBACK_QUERIES), keyword_query(text), text]
        queries: list[str] = []
        for candidate in [*planned, *spare]:
            query = without_repeats(collapse(candidate))
            key = normalize_query(query)
            if key and key not in used and len(queries) < per_question:
                used.add(key)
                queries.append(query)
        priority = min(5, 1 + number // 2)
        sub_questions.append(SubQuestion(id=f"q{number}", text=text, priority=priority, queries=queries))
    return framed_plan(sub_questions, analysis, profile)


def framed_plan(sub_questions: list[SubQuestion], analysis: QueryAnalysis, profile: DepthProfile) -> ResearchPlan:
    """A plan of `sub_questions` with the depth's least sources and evidence, and completion criteria that
    say so."""
    quick = analysis.intent is Intent.QUICK_ANSWER
    min_sources = max(2, min(profile.sub_questions, profile.max_sources // 2) - int(quick))
    min_sources = min(min_sources, max(1, profile.max_sources))
    min_evidence = max(1, profile.evidence_per_sub_question - 1)
    criteria = (
        f"Each of the {len(sub_questions)} sub-questions has at least {min_evidence} relevant evidence "
        f"item(s), one of them strongly relevant, and the evidence comes from at least {min_sources} distinct "
        f"sources; stop when confidence reaches {profile.confidence_threshold:.0f}/100."
    )
    return ResearchPlan(
        sub_questions=sub_questions,
        min_sources=min_sources,
        min_evidence_per_question=min_evidence,
        completion_criteria=criteria,
    )
