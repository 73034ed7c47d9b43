"""Research plans from templates: one set of sub-questions per query type, queries from keywords and entities.

The first sub-question is always the question itself, so the direct answer is
sought first. Later ones cover background, details, causes, steps or
trade-offs, depending on the query type. Placeholders:

- `{q}` the question, `{t}` its topic (a multiword entity or the top keyword),
- `{k}` its keywords and entities as one query, `{e}` the main entity when not in `{t}`,
- `{n}` the noun phrase of 'What is the X of Y?' ('the X of Y'), else `{t}`,
- `{s}` the question's remainder after the interrogative (a verb phrase for 'how do I ...'),
- `{a}` and `{b}` the two sides of a comparison, `{c}` the comparison's context (e.g. 'web development'),
- `{x}` and `{y}` the cause and the effect of 'What is the impact of X on Y?'.

When `question_parse` understands the question ('When did the Halvorsby tram network open?'), its
subject noun phrase becomes the topic of the headings ('What is the Halvorsby tram network?'), the
statement and indirect-question forms fill the `PARSED_*` templates, and a compound predicate
('manage memory and reclaim reference cycles') gives one sub-question per verb phrase right after the
question itself. Headings fill in the noun phrases as written; queries use them without articles.
"""

from __future__ import annotations

import re
import string

from research_assistant.context import DepthProfile
from research_assistant.knowledge.text import content_terms, normalize_query
from research_assistant.reasoning.extractive.question_parse import ParsedQuestion, parse_question
from research_assistant.reasoning.extractive.question_words import HAVE
from research_assistant.reasoning.extractive.signals import collapse
from research_assistant.reasoning.extractive.slots import (
    VERB_PHRASE,
    cause_and_effect,
    comparison_sides,
    heading_slots,
    keyword_query,
    query_slots,
    without_article,
)
from research_assistant.reasoning.extractive.templates import (
    CAUSE_EFFECT,
    NOUN_PROCEDURAL,
    PARSED_FACT,
    PARSED_HOW,
    PARSED_HOW_PAST,
    PARSED_WHY,
    TEMPLATES,
    Template,
)
from research_assistant.schemas import Intent, QueryAnalysis, QueryType, ResearchPlan, SubQuestion

__all__ = ["build_plan", "cause_and_effect", "comparison_sides", "keyword_query", "without_repeats"]

_FALLBACK_QUERIES = ("{t}", "{e} {t}", "{k} overview", "{k} explained", "{k} guide", "{k} facts", "{k} research")
"""Queries that fill a sub-question's quota when its templates collide with queries planned already."""


def _fill(template: str, slots: dict[str, str], heading: bool = False) -> str:
    text = collapse(template.format(**slots))
    text = re.sub(r"\s+([?,])", r"\1", text)
    return text[:1].upper() + text[1:] if heading and not template.startswith("{q}") else text


def _fills(template: str, slots: dict[str, str]) -> bool:
    """Whether every placeholder of a heading template has a value (else the heading is skipped)."""
    return all(slots.get(name) for _, name, _, _ in string.Formatter().parse(template) if name)


def without_repeats(query: str) -> str:
    """The query with repeated words (ignoring case) dropped: 'remote work benefits benefits' -> '... benefits'."""
    kept: list[str] = []
    for word in query.split():
        if word.lower() not in [k.lower() for k in kept]:
            kept.append(word)
    return " ".join(kept)


def _redundant(text: str, kept: str) -> bool:
    """Whether `text` asks what `kept` asks: the same words, or the same content terms."""
    return normalize_query(text) == normalize_query(kept) or set(content_terms(text)) == set(content_terms(kept))


def _templates(question: str, analysis: QueryAnalysis, parse: ParsedQuestion | None) -> tuple[Template, ...]:
    kind = analysis.query_type
    if kind is QueryType.PROCEDURAL and not VERB_PHRASE.match(question):
        return NOUN_PROCEDURAL
    if kind is QueryType.CAUSAL and cause_and_effect(question):
        return CAUSE_EFFECT
    own = TEMPLATES[kind.value]
    if parse is None or kind in (QueryType.COMPARATIVE, QueryType.PROCEDURAL):
        return own
    if kind is QueryType.DEFINITIONAL and (parse.subject or parse.topic):
        return own  # 'What does X mean?', 'What is X used for?': about X
    if kind is QueryType.CAUSAL:
        return (own[0], *PARSED_WHY) if parse.predicates else own
    if parse.wh.lower() == "how" and parse.predicates and parse.aux not in HAVE:
        return (own[0], *(PARSED_HOW_PAST if parse.past else PARSED_HOW))
    return (own[0], *PARSED_FACT)


def _split_queries(text: str, parse: ParsedQuestion) -> list[str]:
    """Queries for one predicate's sub-question: its keywords, then the action before the subject."""
    words = keyword_query(text)
    if parse.topic != parse.subject:  # 'How do I install Poetry?': no subject worth a query of its own
        return [words, f"{words} guide", f"{words} explained"]
    topic = keyword_query(without_article(parse.subject))
    action = " ".join(w for w in words.split() if w.lower() not in topic.lower().split())
    return [words, f"{action} {topic}", f"{words} explained"]


def build_plan(question: str, analysis: QueryAnalysis, profile: DepthProfile) -> ResearchPlan:
    """`profile.sub_questions` sub-questions, each with `profile.queries_per_sub_question` distinct queries."""
    parse = parse_question(question)
    slots = heading_slots(question, analysis, parse)
    queries_slots = query_slots(slots)
    count = max(1, profile.sub_questions)
    per_question = max(1, profile.queries_per_sub_question)
    texts: list[tuple[str, list[str]]] = []

    def add(text: str, queries: list[str]) -> None:
        if not any(_redundant(text, kept) for kept, _ in texts):
            texts.append((text, queries))

    templates = _templates(question, analysis, parse)
    fallbacks = (
        ("What else do the sources say about {t}?", ("{k}", "{t} context")),
        ("What evidence shows {indirect}?", ("{k} evidence", "{k} sources")),
        ("What related facts or context do the sources give?", ("{k} context", "{k} background")),
        ("What open questions or uncertainties do the sources mention?", ("{k} uncertainty", "{k} open questions")),
    )
    for number, (text_template, query_templates) in enumerate((*templates, *fallbacks)):
        if number == len(templates) and len(texts) >= count:
            break
        if _fills(text_template, slots):
            add(_fill(text_template, slots, heading=True), [_fill(t, queries_slots) for t in query_templates])
        if number == 0 and parse is not None and analysis.query_type is not QueryType.COMPARATIVE:
            for split in parse.sub_questions():
                add(split, _split_queries(split, parse))
    used: set[str] = set()
    sub_questions: list[SubQuestion] = []
    for number, (text, planned) in enumerate(texts[:count], start=1):
        spare = [text, keyword_query(text), *(_fill(t, queries_slots) for t in _FALLBACK_QUERIES)]
        candidates = [*planned, *spare]
        queries: list[str] = []
        for candidate in candidates:
            query = without_repeats(collapse(candidate))
            key = normalize_query(query)
            if key and key not in used and len(queries) < per_question:
                used.add(key)
                queries.append(query)
        priority = min(5, 1 + number // 2)
        sub_questions.append(SubQuestion(id=f"q{number}", text=text, priority=priority, queries=queries))
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
