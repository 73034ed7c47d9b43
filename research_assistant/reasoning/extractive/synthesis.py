"""The extractive report: quoted findings chosen for relevance and diversity, with consensus, conflicts and gaps.

Every finding is a verbatim evidence claim that cites its own evidence id (a consensus finding quotes
each agreeing item after it, each cited on its own). The only text not taken from evidence is the title,
the section headings (the sub-questions), the gaps, the caveats and the note that says a direct answer
was not found. A question that asks for something recognisable (a default, a limit, a figure, an
expansion, a definition, a yes or no, a list) opens with its answer: the best quote that states it, or
that note. The summary then holds the other direct answers: the strong items of the question's own
sub-question and of each part of a compound question ('Aspect: manage memory (Python)'), the best of
each part first; the key findings lead with them.
"""

from __future__ import annotations

from research_assistant.context import QUESTION_EVIDENCE_EXTRA
from research_assistant.reasoning.confidence import direct_evidence, states_value
from research_assistant.reasoning.extractive.parts import question_parts
from research_assistant.reasoning.extractive.progress import coverage_of, distinct_claims, unique_evidence
from research_assistant.reasoning.extractive.relations import find_conflicts, find_consensus
from research_assistant.reasoning.extractive.scoring import STRONG_RELEVANCE, build_query, concept_coverage
from research_assistant.reasoning.extractive.vectors import Embedder, mmr
from research_assistant.reasoning.questions import asked_for
from research_assistant.schemas import (
    Conflict,
    Coverage,
    Evidence,
    Finding,
    Intent,
    ProgressAssessment,
    QueryAnalysis,
    ReportSection,
    ResearchPlan,
    ResearchReport,
    SourceRecord,
    SourceStatus,
    SubQuestion,
)
from research_assistant.text.spaces import collapse
from research_assistant.text.tokens import normalize_query, terms_of

MMR_LAMBDA = 0.7
SECTION_FINDINGS = 4
"""Findings under a sub-question's heading; the question itself (the plan's first) shows `QUESTION_EVIDENCE_EXTRA`
more, as many more as a round keeps for it: the answer often scores below the quotes that repeat the question."""
MAX_KEY_FINDINGS = 6
MAX_CONSENSUS = 5
OFFLINE_CAVEAT = "Offline extractive mode: findings are quoted from the sources, not paraphrased."


def _finding(item: Evidence) -> Finding:
    return Finding(text=item.claim, evidence_ids=[item.id], verbatim=True)


def _agreement(items: list[Evidence]) -> Finding:
    """A consensus statement: the first item's quote, then each agreeing item's own quote, each citing only
    its own evidence, so no source is cited for words another source wrote."""
    lead, *others = items
    return _finding(lead).model_copy(update={"agreeing": [_finding(e) for e in others]})


def title_for(question: str) -> str:
    title = collapse(question).rstrip("?.! ")
    if len(title) > 120:
        title = title[:120].rsplit(" ", 1)[0] + "…"
    return title[:1].upper() + title[1:] if title else "Research report"


def usable_evidence(evidence: list[Evidence], sources: list[SourceRecord]) -> list[Evidence]:
    """Evidence without repeats, minus items whose source is known not to have been read."""
    unread = {s.id for s in sources if s.status is not SourceStatus.READ}
    return [e for e in unique_evidence(evidence) if e.source_id not in unread and e.claim.strip()]


SAID_OF_ANOTHER = 0.5
"""The similarity of the same words quoted under two headings: two findings, each about what its heading names."""


def _select(items: list[Evidence], relevance: list[float], k: int, embedder: Embedder) -> list[int]:
    if not items:
        return []
    vectors = embedder.matrix([e.claim for e in items])
    similarity = vectors @ vectors.T
    for i, a in enumerate(items):
        for j, b in enumerate(items):
            if a.section != b.section and a.claim == b.claim:
                similarity[i, j] = SAID_OF_ANOTHER  # 'This hook is invoked ...' under 'post-receive' and 'post-update'
    return mmr(relevance, similarity, k, lambda_=MMR_LAMBDA)


def _sections(plan: ResearchPlan, items: list[Evidence], embedder: Embedder) -> list[ReportSection]:
    sections: list[ReportSection] = []
    shown: set[str] = set()
    for position, sub_question in enumerate(plan.sub_questions):
        own = distinct_claims([e for e in items if e.sub_question_id == sub_question.id])
        fresh = [e for e in own if e.claim.lower() not in shown] or own[:1]
        size = SECTION_FINDINGS + (QUESTION_EVIDENCE_EXTRA if position == 0 else 0)
        picked = _select(fresh, [e.score for e in fresh], size, embedder)
        chosen = sorted((fresh[i] for i in picked), key=lambda e: (-e.score, e.id))
        if chosen:
            shown.update(e.claim.lower() for e in chosen)
            sections.append(ReportSection(heading=sub_question.text, findings=[_finding(e) for e in chosen]))
    return sections


def direct_sub_questions(question: str, plan: ResearchPlan) -> list[str]:
    """Ids of the sub-questions that ask the question itself: the first, and one per part of a compound
    question ('How does Python manage memory?' for '... manage memory and reclaim reference cycles?')."""
    parts = {normalize_query(part.text) for part in question_parts(question)}
    ids = [sq.id for sq in plan.sub_questions[1:] if normalize_query(sq.text) in parts]
    return [plan.sub_questions[0].id, *ids] if plan.sub_questions else []


def _key_findings(
    question: str, analysis: QueryAnalysis, plan: ResearchPlan, items: list[Evidence], embedder: Embedder, count: int
) -> list[tuple[Evidence, float]]:
    """The best findings for the question as a whole, with their relevance: direct answers (items of the
    sub-questions that ask the question or one of its parts) ranked by their own score, other aspects
    discounted, chosen by MMR so that they do not repeat each other."""
    direct = direct_sub_questions(question, plan)
    first = direct[0] if direct else ""
    pool: dict[tuple[str, str], Evidence] = {}
    for item in sorted(items, key=lambda e: (e.sub_question_id not in direct, -e.score, e.id)):
        claim = item.claim.lower()
        # A direct answer keeps its direct sub-question's score; a sentence that another finding quotes
        # whole (or that quotes it whole) under the same heading would say the same thing twice.
        if not any((claim in kept or kept in claim) and section == item.section for kept, section in pool):
            pool[(claim, item.section)] = item
    candidates = list(pool.values())
    whole = build_query(question, SubQuestion(id=first or "q1", text=question), analysis)
    query = embedder.vector(question)
    relevance = []
    for e in candidates:
        if e.sub_question_id in direct:
            relevance.append(e.score)  # already scored against the question or one of its parts
            continue
        coverage = concept_coverage(whole.concepts, set(terms_of(e.claim)))
        cosine = min(1.0, max(0.0, float(embedder.vector(e.claim) @ query)) / 0.5)
        relevance.append(0.7 * (0.4 * e.score + 0.4 * coverage + 0.2 * cosine))
    chosen = _select(candidates, relevance, count, embedder)
    return [(candidates[i], relevance[i]) for i in chosen]


def _summary(key: list[tuple[Evidence, float]], direct_ids: list[str], size: int) -> list[Evidence]:
    """The direct answers among the key findings (strong items of the sub-questions that ask the question
    itself), the best answer to each part first; else the best finding."""
    ranked = sorted(key, key=lambda pair: (-pair[1], pair[0].id))
    direct = [e for e, relevance in ranked if e.sub_question_id in direct_ids and relevance >= STRONG_RELEVANCE]
    leads = [
        next(e for e in direct if e.sub_question_id == i)
        for i in direct_ids
        if any(e.sub_question_id == i for e in direct)
    ]
    return ([*leads, *(e for e in direct if e not in leads)] or [e for e, _ in ranked][:1])[:size]


ANSWERED_KINDS = frozenset({"default", "limit", "range", "number", "date", "expansion", "definition", "yesno", "list"})
"""Kinds of question whose report opens with a direct answer."""
NOT_FOUND_NOTE = (
    "None of the sources read states this directly. The passages below are the closest found; "
    "check them before relying on them."
)


def direct_answer(
    question: str, plan: ResearchPlan, items: list[Evidence], *, values_only: bool = False
) -> tuple[list[Evidence], str]:
    """The quotation that answers the question, and a note when none does.

    For a question that asks for a value (a default, a limit, a figure, an expansion), the best-scored
    quote for the question itself that states a value of that kind, or, when no quote does, a note that
    says so. For a definition, a yes-or-no or a list question, the best quote for the question itself.
    Other questions (explanations, comparisons) get no separate answer: their summary is the answer.
    With `values_only`, only value questions get one (for evidence whose scores are not relevances).
    """
    asked = asked_for(plan.sub_questions[0].text if plan.sub_questions else question)
    if asked.kind not in ANSWERED_KINDS or (values_only and not asked.wants_value):
        return [], ""
    own = sorted(direct_evidence(plan, items), key=lambda e: (-e.score, e.id))
    if asked.wants_value:
        stating = [e for e in own if states_value(asked, e, question)]
        return (stating[:1], "") if stating else ([], NOT_FOUND_NOTE)
    strong = [e for e in own if e.score >= STRONG_RELEVANCE]
    return (strong[:1], "") if strong else ([], NOT_FOUND_NOTE)


def _gaps(plan: ResearchPlan, coverage: list[Coverage]) -> list[str]:
    by_id = {c.sub_question_id: c for c in coverage}
    gaps = []
    for sub_question in plan.sub_questions:
        c = by_id.get(sub_question.id)
        if c is None or c.evidence_count == 0:
            gaps.append(f"No evidence was found for: {sub_question.text}")
        elif not c.covered:
            gaps.append(
                f"Only limited evidence was found for: {sub_question.text} "
                f"({c.evidence_count} item(s) from {c.source_count} source(s))."
            )
    return gaps


def _caveats(
    analysis: QueryAnalysis,
    plan: ResearchPlan,
    items: list[Evidence],
    sources: list[SourceRecord],
    assessment: ProgressAssessment | None,
    conflicts: int,
) -> list[str]:
    caveats = [OFFLINE_CAVEAT]
    if not items:
        caveats.append("No relevant evidence was found in the sources that were read, so the report has no findings.")
    cited = len(dict.fromkeys(e.source_id for e in items))
    if items and cited < plan.min_sources:
        caveats.append(
            f"The findings rest on {cited} distinct source(s), fewer than the {plan.min_sources} the plan called for."
        )
    if items and not direct_evidence(plan, items):
        caveats.append("None of the sources answers the question directly; the findings cover related aspects only.")
    elif items and max(e.score for e in items) < STRONG_RELEVANCE:
        caveats.append("No source answers the question closely; the findings are only loosely related to it.")
    failed = sum(s.status is SourceStatus.FAILED for s in sources)
    if failed:
        caveats.append(f"{failed} source(s) could not be read and are not reflected in the findings.")
    if analysis.needs_recent:
        caveats.append(
            "The question asks for recent information, but local documents carry no reliable dates; "
            "check time-sensitive findings against current sources."
        )
    if assessment is not None and assessment.confidence < 50:
        caveats.append(f"Overall confidence is low ({assessment.confidence:.0f}/100).")
    if conflicts:
        caveats.append("Some sources disagree; see the conflicts, and check the sources before relying on them.")
    return caveats


def write_report(
    question: str,
    analysis: QueryAnalysis,
    plan: ResearchPlan,
    evidence: list[Evidence],
    sources: list[SourceRecord],
    assessment: ProgressAssessment | None,
    embedder: Embedder,
) -> ResearchReport:
    """The report, built only from `evidence`; deterministic for the same inputs."""
    items = usable_evidence(evidence, sources)
    sections = _sections(plan, items, embedder)
    count = min(MAX_KEY_FINDINGS, max(3, len(sections) + 1))
    key = _key_findings(question, analysis, plan, items, embedder, count)
    summary_size = 2 if analysis.intent is Intent.QUICK_ANSWER else 3
    summary = _summary(key, direct_sub_questions(question, plan), summary_size)  # key findings lead with it
    answer, answer_note = direct_answer(question, plan, items)
    summary = [e for e in summary if e.id not in {a.id for a in answer}]  # the answer is not said twice
    pool = distinct_claims(items)
    disagreements = find_conflicts(pool, embedder, question)
    in_conflict = frozenset(i for d in disagreements for i in (d.first, d.second))
    conflicts = [
        Conflict(topic=d.topic, sides=[_finding(pool[d.first]), _finding(pool[d.second])]) for d in disagreements
    ]
    groups = find_consensus(pool, embedder, question, exclude=in_conflict)[:MAX_CONSENSUS]
    consensus = [_agreement([pool[i] for i in g]) for g in groups]
    coverage = coverage_of(plan, items, question)  # of the evidence this report actually uses
    return ResearchReport(
        title=title_for(question),
        question=question,
        answer=[_finding(e) for e in answer],
        answer_note=answer_note,
        summary=[_finding(e) for e in summary],
        key_findings=[_finding(e) for e in [*summary, *(e for e, _ in key if e not in summary)]],
        sections=sections,
        consensus=consensus,
        conflicts=conflicts,
        gaps=_gaps(plan, coverage),
        caveats=_caveats(analysis, plan, items, sources, assessment, len(conflicts)),
    )
