"""Progress assessment: coverage per sub-question, a 0-100 confidence, gaps and new queries.

Coverage per sub-question comes from its evidence: enough items, one of them strongly relevant, from
enough sources; the question's own sub-question counts as covered only when, for a question that asks
for a value, a quote states it. Confidence is the shared `reasoning.confidence.confidence_score`.
"""

from __future__ import annotations

from datetime import date

from research_assistant.reasoning.confidence import confidence_score, value_found
from research_assistant.reasoning.extractive.analysis import analyze_question
from research_assistant.reasoning.extractive.reformulation import gap_queries
from research_assistant.reasoning.extractive.relations import find_conflicts
from research_assistant.reasoning.extractive.scoring import STRONG_RELEVANCE
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import (
    Coverage,
    Evidence,
    ProgressAssessment,
    QueryAnalysis,
    ResearchPlan,
    SearchQuery,
    SourceRecord,
)
from research_assistant.text.tokens import normalize_query

QUERIES_PER_GAP = 2


def unique_evidence(evidence: list[Evidence]) -> list[Evidence]:
    """Evidence without repeated ids, in first-seen order."""
    first: dict[str, Evidence] = {}
    for item in evidence:
        first.setdefault(item.id, item)
    return list(first.values())


def distinct_claims(items: list[Evidence]) -> list[Evidence]:
    """One item per (source, section, claim): the best-scored, ordered best first. The same words under two
    headings say two things ('This hook is invoked by ...' under 'post-receive' and under 'post-update')."""
    best: dict[tuple[str, str, str], Evidence] = {}
    for item in sorted(items, key=lambda e: (-e.score, e.id)):
        best.setdefault((item.source_id, item.section, item.claim.lower()), item)
    return list(best.values())


def coverage_of(plan: ResearchPlan, evidence: list[Evidence], question: str = "") -> list[Coverage]:
    """How well each sub-question is answered: covered with enough items, one of them strong, and, for
    the question itself, its asked-for value among the quotes when it asks for one."""
    needed = plan.min_evidence_per_question
    missing_value = value_found(question, plan, evidence) is False if question else False
    result = []
    for number, sub_question in enumerate(plan.sub_questions):
        items = [e for e in evidence if e.sub_question_id == sub_question.id]
        sources = len(dict.fromkeys(e.source_id for e in items))
        best = max((e.score for e in items), default=0.0)
        score = (
            0.5 * min(1.0, len(items) / needed)
            + 0.25 * min(1.0, best / STRONG_RELEVANCE)
            + 0.25 * min(1.0, sources / min(2, needed))
        )
        unanswered = number == 0 and missing_value
        result.append(
            Coverage(
                sub_question_id=sub_question.id,
                evidence_count=len(items),
                source_count=sources,
                score=round(min(1.0, score) * (0.5 if unanswered else 1.0), 4),
                covered=len(items) >= needed and best >= STRONG_RELEVANCE and not unanswered,
            )
        )
    return result


def assess_progress(
    question: str,
    plan: ResearchPlan,
    evidence: list[Evidence],
    sources: list[SourceRecord],
    iteration: int,
    search_history: list[str],
    embedder: Embedder,
    analysis: QueryAnalysis | None = None,
) -> ProgressAssessment:
    """Coverage, confidence, gaps and, for the gaps, queries that were never run; `analysis`: the question's,
    as the run made it (analysed here when not given)."""
    analysis = analysis or analyze_question(question)
    items = unique_evidence(evidence)
    coverage = coverage_of(plan, items, question)
    conflicts = find_conflicts(distinct_claims(items), embedder, question)
    confidence = confidence_score(
        question,
        plan,
        coverage,
        items,
        {s.id: s for s in sources},
        conflicts=len(conflicts),
        needs_recent=analysis.needs_recent,
        today=date.today(),
    )
    gaps = [c.sub_question_id for c in coverage if not c.covered]
    blocked = {normalize_query(q) for q in search_history}
    new_queries: list[SearchQuery] = []
    by_id = {sq.id: sq for sq in plan.sub_questions}
    # With every part covered, the question itself is searched again: the evaluation node runs these queries only
    # while confidence stays under its threshold (the parts have evidence, yet the answer may not be among it).
    for gap in gaps or [sq.id for sq in plan.sub_questions[:1]]:
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
