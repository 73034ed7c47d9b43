"""Progress assessment: coverage per sub-question, a 0-100 confidence, gaps and new queries.

Confidence = coverage (40) + source reliability (30) + recency (15) + consistency (15):

- coverage: the priority-weighted mean of the sub-questions' coverage scores;
- reliability: 0.4 x the share of attempted sources that were read (not failed)
  + 0.6 x distinct cited sources / `plan.min_sources` (capped at 1);
- recency: offline documents carry no trustworthy dates, so a question that does
  not need recent information gets the full 15; one that does gets 7.5, plus up
  to 7.5 for the share of cited sources that have a publication date;
- consistency: 15, minus 5 per detected conflict between sources.

Recency and consistency count only once there is evidence.
"""

from __future__ import annotations

from research_assistant.knowledge.text import normalize_query
from research_assistant.reasoning.extractive.analysis import cached_analysis
from research_assistant.reasoning.extractive.reformulation import gap_queries
from research_assistant.reasoning.extractive.relations import find_conflicts
from research_assistant.reasoning.extractive.scoring import STRONG_RELEVANCE
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import (
    Coverage,
    Evidence,
    ProgressAssessment,
    ResearchPlan,
    SearchQuery,
    SourceRecord,
    SourceStatus,
)

QUERIES_PER_GAP = 2


def unique_evidence(evidence: list[Evidence]) -> list[Evidence]:
    """Evidence without repeated ids, in first-seen order."""
    seen: set[str] = set()
    unique = []
    for item in evidence:
        if item.id not in seen:
            seen.add(item.id)
            unique.append(item)
    return unique


def distinct_claims(items: list[Evidence]) -> list[Evidence]:
    """One item per (source, claim): the best-scored, ordered best first."""
    best: dict[tuple[str, str], Evidence] = {}
    for item in sorted(items, key=lambda e: (-e.score, e.id)):
        best.setdefault((item.source_id, item.claim.lower()), item)
    return list(best.values())


def coverage_of(plan: ResearchPlan, evidence: list[Evidence]) -> list[Coverage]:
    """How well each sub-question is answered: covered with enough items, one of them strong."""
    needed = plan.min_evidence_per_question
    result = []
    for sub_question in plan.sub_questions:
        items = [e for e in evidence if e.sub_question_id == sub_question.id]
        sources = len(dict.fromkeys(e.source_id for e in items))
        best = max((e.score for e in items), default=0.0)
        score = (
            0.5 * min(1.0, len(items) / needed)
            + 0.25 * min(1.0, best / STRONG_RELEVANCE)
            + 0.25 * min(1.0, sources / min(2, needed))
        )
        result.append(
            Coverage(
                sub_question_id=sub_question.id,
                evidence_count=len(items),
                source_count=sources,
                score=round(min(1.0, score), 4),
                covered=len(items) >= needed and best >= STRONG_RELEVANCE,
            )
        )
    return result


def confidence_of(
    plan: ResearchPlan,
    coverage: list[Coverage],
    evidence: list[Evidence],
    sources: list[SourceRecord],
    needs_recent: bool,
    conflicts: int,
) -> float:
    weights = [6 - sq.priority for sq in plan.sub_questions]
    coverage_part = sum(w * c.score for w, c in zip(weights, coverage, strict=True)) / max(sum(weights), 1)
    read = sum(s.status is SourceStatus.READ for s in sources)
    failed = sum(s.status is SourceStatus.FAILED for s in sources)
    read_share = read / (read + failed) if read + failed else 0.0
    cited = list(dict.fromkeys(e.source_id for e in evidence))
    reliability = 0.4 * read_share + 0.6 * min(1.0, len(cited) / plan.min_sources)
    if not evidence:
        recency, consistency = 0.0, 0.0
    elif needs_recent:
        by_id = {s.id: s for s in sources}
        dated = sum(1 for source_id in cited if source_id in by_id and by_id[source_id].published)
        recency = 7.5 + 7.5 * dated / len(cited)
        consistency = max(0.0, 15.0 - 5.0 * conflicts)
    else:
        recency = 15.0
        consistency = max(0.0, 15.0 - 5.0 * conflicts)
    total = 40.0 * coverage_part + 30.0 * reliability + recency + consistency
    return round(min(100.0, max(0.0, total)), 1)


def assess_progress(
    question: str,
    plan: ResearchPlan,
    evidence: list[Evidence],
    sources: list[SourceRecord],
    iteration: int,
    search_history: list[str],
    embedder: Embedder,
) -> ProgressAssessment:
    """Coverage, confidence, gaps and, for the gaps, queries that were never run."""
    analysis = cached_analysis(question)
    items = unique_evidence(evidence)
    coverage = coverage_of(plan, items)
    conflicts = find_conflicts(distinct_claims(items), embedder, question)
    confidence = confidence_of(plan, coverage, items, sources, analysis.needs_recent, len(conflicts))
    gaps = [c.sub_question_id for c in coverage if not c.covered]
    blocked = {normalize_query(q) for q in search_history}
    new_queries: list[SearchQuery] = []
    by_id = {sq.id: sq for sq in plan.sub_questions}
    for gap in gaps:
        for text in gap_queries(analysis, by_id[gap], items, embedder, blocked, QUERIES_PER_GAP):
            new_queries.append(SearchQuery(text=text, sub_question_id=gap))
    return ProgressAssessment(
        iteration=iteration,
        coverage=coverage,
        confidence=confidence,
        gaps=gaps,
        new_queries=new_queries,
        complete=bool(plan.sub_questions) and not gaps,
    )
