"""Evidence: a page's found as soon as it is read, then the round's best kept per sub-question.

With a reasoner whose scores compare across calls (a model's,
`Reasoner.comparable_scores`), a web page's browse task finds its evidence once
the page is read (`evidence_in`), for every sub-question: a slow page delays
nothing but itself, and the extraction calls start while other pages are still
arriving (at most `MODEL_CALLS_AT_ONCE` at a time). The `extract` node closes
the round: it finds the evidence of every other source read this round
together, each sub-question's passages ranked across all of them (local files,
read in milliseconds, and every source for the extractive reasoner, whose
scores are relative to the passages it ranks at once), then keeps, per
sub-question, at most the depth's evidence across the round's sources
(`select_evidence`): best scored first, with the same mild penalty per item
already taken from a source as the extractive reasoner uses within one call, so
sources vary.

Only the sources read in this round are searched, so no passage is reasoned
over twice across rounds. A quote that is not in its passage is dropped: the
reasoner must copy, never rewrite.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from langgraph.runtime import Runtime

from research_assistant.concurrency import in_thread, limit
from research_assistant.context import Context
from research_assistant.knowledge.passages import keyed_passages, paragraphs_where, sections_headed, widen_passages
from research_assistant.nodes.reasoner_notices import reasoner_notices, usage_of
from research_assistant.progress import emit
from research_assistant.reasoning.base import Reasoner, Step, joined
from research_assistant.schemas import (
    Evidence,
    Passage,
    QueryAnalysis,
    SourceRecord,
    SourceStatus,
    SourceType,
    SubQuestion,
)
from research_assistant.services import Services, services_of
from research_assistant.state import ResearchState
from research_assistant.text.synonyms import synonym_words
from research_assistant.text.tokens import names_in

MODEL_CALLS_AT_ONCE = 8
"""Extraction calls to the reasoner in flight at once, across a round's sources (a model's rate limit)."""
SAME_SOURCE_PENALTY = 0.85
"""Each item already kept from a source multiplies that source's next items' scores by this (as the
extractive reasoner does within one call), so a round's evidence comes from several sources."""


def extracted_on_read(source: SourceRecord, reasoner: Reasoner) -> bool:
    """Whether the source's browse task finds its evidence, rather than the round's `extract` step: a page (its
    reading takes time to overlap) whose evidence a reasoner with comparable scores can rank against the other
    pages'. A local file is read in milliseconds; the extractive reasoner's scores only compare within one
    ranking, so it ranks the round's sources together."""
    return source.source_type is not SourceType.LOCAL and reasoner.comparable_scores


def _widened(text: str) -> list[str]:
    """The sub-question with its words' synonyms, as one more phrasing for retrieval: a manual answers 'the
    largest message' with 'the maximum size of message'."""
    extra = synonym_words(text)
    return [f"{text} {' '.join(extra)}"] if extra else []


def _keys(text: str, term: str) -> set[str]:
    """What a sub-question names, and for a definition the defined term as a glossary writes it ('backend',
    'Backend'): a manual defines a term in the entry under it, which a question's other words rarely share."""
    keys = names_in(text)
    return keys | {term, term.lower(), term[:1].upper() + term[1:]} if term else keys


def _quoted_from(evidence: Evidence, passages: list[Passage]) -> bool:
    quote = " ".join(evidence.quote.split())
    return any(
        passage.source_id == evidence.source_id and quote in " ".join(passage.text.split()) for passage in passages
    )


async def _extract_one(
    services: Services,
    context: Context,
    question: str,
    sub_question: SubQuestion,
    count: int,
    source_ids: list[str],
    text_of: Callable[[str], str | None],
    analysis: QueryAnalysis | None,
) -> Step[list[Evidence]]:
    profile = context.profile
    passages = await in_thread(  # a cancelled run stops waiting for the repository's lock
        services.repository.retrieve,
        sub_question.text,
        profile.passages_per_sub_question,
        source_ids=source_ids,
        alternatives=[*sub_question.queries, *_widened(sub_question.text)],
    )
    lookups = services.reasoner.lookups(question, sub_question)
    keyed = await asyncio.to_thread(keyed_passages, _keys(sub_question.text, lookups.term), source_ids, text_of)
    if lookups.acronym:  # an acronym is spelled out once, where retrieval may not look
        keyed += await asyncio.to_thread(paragraphs_where, lookups.spells_out, source_ids, text_of)
    if lookups.sections:  # a term is defined atop its section
        keyed += await asyncio.to_thread(sections_headed, lookups.term, source_ids, text_of)
    if not passages and not keyed:
        return Step([])
    passages = await asyncio.to_thread(widen_passages, [*passages, *keyed], text_of)
    async with limit("reasoner.extract", MODEL_CALLS_AT_ONCE):
        found = await services.reasoner.extract(question, sub_question, passages, count, analysis)
    return dataclasses.replace(found, value=[item for item in found.value if _quoted_from(item, passages)])


async def evidence_in(
    source_ids: list[str],
    question: str,
    sub_questions: list[SubQuestion],
    analysis: QueryAnalysis | None,
    context: Context,
) -> Step[list[Evidence]]:
    """The evidence read sources hold, for every sub-question, best first within each (ranked across all the
    sources), with what the reasoner said and spent finding it."""
    if not source_ids:
        return Step([])
    services = services_of(context)
    # Every sub-question reads the same sources' texts: each cache file is read and parsed once.
    text_of = functools.lru_cache(maxsize=None)(services.documents.text)
    batches = await asyncio.gather(
        *(
            _extract_one(
                services,
                context,
                question,
                sub_question,
                context.profile.evidence_limit(position),
                source_ids,
                text_of,
                analysis,
            )
            for position, sub_question in enumerate(sub_questions)
        )
    )
    return joined(batches)


def select_evidence(
    found: Iterable[Evidence],
    source_order: Mapping[str, int],
    sub_question_order: Mapping[str, int],
    limit_of: Callable[[int], int],
) -> list[Evidence]:
    """The round's evidence: per sub-question at most `limit_of(its position)` items (or as many as the reasoner gave
    for one source, when it keeps more), best scored first with `SAME_SOURCE_PENALTY`, no claim twice under one heading.

    `found` holds each source's evidence in the reasoner's order; `source_order` ranks the sources (the order
    they were chosen in) and `sub_question_order` the sub-questions, so ties, and the result, do not depend
    on which page arrived first.
    """
    found = sorted(
        found,
        key=lambda item: (
            sub_question_order.get(item.sub_question_id, len(sub_question_order)),
            source_order[item.source_id],
        ),
    )
    groups: dict[str, list[tuple[int, int, Evidence]]] = defaultdict(list)
    rank: dict[tuple[str, str], int] = defaultdict(int)
    for item in found:
        key = (item.sub_question_id, item.source_id)
        groups[item.sub_question_id].append((source_order[item.source_id], rank[key], item))
        rank[key] += 1
    kept: list[Evidence] = []
    for sub_question_id, pool in groups.items():
        # A reasoner may keep more than the depth's count for one source (a model needs more facts to write
        # from); the round then keeps as many as it gave, not fewer than a pooled call would have.
        most = limit_of(sub_question_order.get(sub_question_id, len(sub_question_order)))
        cap = max(most, *(count for (sub, _), count in rank.items() if sub == sub_question_id))
        pool.sort(key=lambda entry: (entry[0], entry[1]))
        taken: dict[str, int] = defaultdict(int)
        claims: set[tuple[str, str]] = set()
        while pool and sum(taken.values()) < cap:
            # The first of equals wins: the earlier source, the reasoner's earlier item.
            best = max(pool, key=lambda entry: entry[2].score * SAME_SOURCE_PENALTY ** taken[entry[2].source_id])
            pool.remove(best)
            item = best[2]
            claim = (" ".join(item.claim.lower().split()), item.section)  # the same words under two headings
            if claim in claims:
                continue
            claims.add(claim)
            taken[item.source_id] += 1
            kept.append(item)
    return kept


async def extract(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Close the round: the evidence of the sources no browse task extracted, and the best of all the round's."""
    assert state.plan is not None, "plan_strategy runs first"
    fresh = [sid for sid in state.to_browse if state.sources[sid].status is SourceStatus.READ]
    if not fresh:
        emit(runtime, "extract", "no new sources to read evidence from", evidence=0)
        return {}
    services = services_of(runtime.context)
    on_read = {sid for sid in fresh if extracted_on_read(state.sources[sid], services.reasoner)}
    others = [sid for sid in fresh if sid not in on_read]
    pooled = await evidence_in(others, state.question, state.plan.sub_questions, state.analysis, runtime.context)
    kept = pooled.value
    read_by_tasks = [item for item in state.found.values() if item.source_id in on_read]
    if read_by_tasks:
        order = {source_id: position for position, source_id in enumerate(fresh)}
        sub_questions = {sq.id: position for position, sq in enumerate(state.plan.sub_questions)}
        kept = select_evidence([*kept, *read_by_tasks], order, sub_questions, runtime.context.profile.evidence_limit)
    found = {item.id: item for item in kept if item.id not in state.evidence}
    emit(
        runtime,
        "extract",
        f"{len(found)} evidence items from {len(fresh)} sources",
        evidence=len(found),
        total_evidence=len(state.evidence) + len(found),
    )
    return {
        "evidence": found,
        "notices": reasoner_notices(runtime, "extract", pooled),
        "model_usage": usage_of(pooled, f"extract {state.iteration + 1}"),
    }
