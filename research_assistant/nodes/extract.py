"""extract: evidence from the sources read this round, per sub-question.

Only the sources read in this round are searched, so no passage is reasoned
over twice across rounds. A quote that is not in its passage is dropped: the
reasoner must copy, never rewrite.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from research_assistant.concurrency import in_thread
from research_assistant.context import Context
from research_assistant.knowledge.passages import keyed_passages, widen_passages
from research_assistant.nodes.reasoner_notices import reasoner_notices, usage_of
from research_assistant.progress import emit
from research_assistant.schemas import Evidence, Passage, QueryAnalysis, SourceStatus, SubQuestion
from research_assistant.services import Services, services_of
from research_assistant.state import ResearchState
from research_assistant.text.tokens import names_in


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
    source_ids: list[str],
    text_of: Callable[[str], str | None],
    analysis: QueryAnalysis | None,
) -> list[Evidence]:
    profile = context.profile
    passages = await in_thread(  # a cancelled run stops waiting for the repository's lock
        services.repository.retrieve,
        sub_question.text,
        profile.passages_per_sub_question,
        source_ids=source_ids,
        alternatives=sub_question.queries,
    )
    keyed = await asyncio.to_thread(keyed_passages, names_in(sub_question.text), source_ids, text_of)
    if not passages and not keyed:
        return []
    passages = await asyncio.to_thread(widen_passages, [*passages, *keyed], text_of)
    found = await services.reasoner.extract(
        question, sub_question, passages, profile.evidence_per_sub_question, analysis
    )
    return [item for item in found if _quoted_from(item, passages)]


async def extract(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    assert state.plan is not None, "plan_strategy runs first"
    fresh = [sid for sid in state.to_browse if state.sources[sid].status is SourceStatus.READ]
    if not fresh:
        emit(runtime, "extract", "no new sources to read evidence from", evidence=0)
        return {}
    services = services_of(runtime.context)
    # Every sub-question reads the same sources' texts: each cache file is read and parsed once per step.
    text_of = functools.lru_cache(maxsize=None)(services.documents.text)
    batches = await asyncio.gather(
        *(
            _extract_one(services, runtime.context, state.question, sub_question, fresh, text_of, state.analysis)
            for sub_question in state.plan.sub_questions
        )
    )
    found = {item.id: item for batch in batches for item in batch if item.id not in state.evidence}
    emit(
        runtime,
        "extract",
        f"{len(found)} evidence items from {len(fresh)} sources",
        evidence=len(found),
        total_evidence=len(state.evidence) + len(found),
    )
    return {
        "evidence": found,
        "notices": reasoner_notices(runtime, "extract", services.reasoner),
        "model_usage": usage_of(services.reasoner, f"extract {state.iteration + 1}"),
    }
