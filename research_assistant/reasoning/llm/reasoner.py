"""The LLM reasoner: each step asks a role's model, checks what comes back, and falls back when it must.

Nothing a model says is used unchecked: plans are cut to the depth's limits
and their queries stripped of URLs; evidence must quote its passage verbatim;
findings may cite only evidence ids that exist; confidence is computed here
from the model's coverage judgement and the sources' own records. A step that
fails (the call, the format, or the budget) is done by the extractive reasoner,
and the run is told which step and why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from research_assistant.context import DepthProfile
from research_assistant.knowledge.text import normalize_query
from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
from research_assistant.reasoning.extractive.signals import evidence_id
from research_assistant.reasoning.llm import prompts
from research_assistant.reasoning.llm.caller import StepFailed, StructuredCaller, current_run
from research_assistant.reasoning.llm.ledger import RESEARCH_SHARE, BudgetExceeded
from research_assistant.reasoning.llm.outputs import (
    AnalysisOut,
    ExtractionOut,
    FindingOut,
    JudgeOut,
    PlanOut,
    ProgressOut,
    ReportOut,
    VerificationOut,
)
from research_assistant.report.citations import MARKUP, URL_LIKE, plain_text
from research_assistant.report.support import MIN_SUPPORT, UNVERIFIED, lexical_support
from research_assistant.schemas import (
    Conflict,
    Coverage,
    Evidence,
    Finding,
    Intent,
    Notice,
    Passage,
    ProgressAssessment,
    QueryAnalysis,
    QueryType,
    ReportEvaluation,
    ReportSection,
    ResearchPlan,
    ResearchReport,
    SearchQuery,
    SourceRecord,
    SourceType,
    SubQuestion,
    TokenUsage,
)

_SPACE = re.compile(r"\s+")
_ACCESS = re.compile(r"; via [^)\n]*\)_")
COVERED = 0.7
"""A sub-question's coverage score (0-1) from which it counts as answered."""


def plain_query(text: str) -> str:
    """A search query without URLs or stray whitespace: a page cannot make research fetch an address."""
    return " ".join(URL_LIKE.sub(" ", text).split())[:200]


def _normalized(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


class LLMReasoner:
    """Gemini (or any LangChain chat model) per role, with the extractive reasoner as the per-step fallback."""

    name = "llm"

    def __init__(self, caller: StructuredCaller, fallback: ExtractiveReasoner, confidence_threshold: float) -> None:
        self.caller = caller
        self.fallback = fallback
        self.confidence_threshold = confidence_threshold
        self._notices: dict[str, list[Notice]] = {}

    # What the nodes ask besides the protocol ---------------------------------------------------------------

    def take_notices(self) -> list[Notice]:
        """What went wrong in this run's steps since the last call (fallbacks, unusable replies)."""
        return self._notices.pop(current_run(), [])

    def budget_reached(self) -> str | None:
        """The cap most of which this run has spent, so research should stop; None while there is room."""
        return self.caller.ledger().spent(RESEARCH_SHARE)

    def usage(self) -> TokenUsage:
        """This run's model tokens and cost so far, all roles together."""
        ledger = self.caller.ledger()
        inputs = sum(u.input_tokens for u in ledger.roles.values())
        return TokenUsage(input_tokens=inputs, output_tokens=ledger.tokens - inputs, cost_usd=ledger.cost_usd)

    def restore_usage(self, run_id: str, roles: dict[str, TokenUsage]) -> None:
        """What a resumed run had already spent, so its budget counts it."""
        ledger = self.caller.ledger(run_id)
        if not ledger.roles:
            for role, usage in roles.items():
                ledger.add(role, usage)

    def _fell_back(self, step: str, error: Exception) -> None:
        self._notices.setdefault(current_run(), []).append(
            Notice(message=f"{step}: {error}; the extractive reasoner did this step instead.")
        )

    # The protocol -----------------------------------------------------------------------------------------

    async def analyze(self, question: str) -> QueryAnalysis:
        try:
            out = await self.caller.ask("analysis", AnalysisOut, prompts.analysis(question))
        except (StepFailed, BudgetExceeded) as error:
            self._fell_back("Analysis", error)
            return await self.fallback.analyze(question)
        return QueryAnalysis(
            keywords=[k for k in (_normalized(k) for k in out.keywords) if k][:8] or question.split()[:4],
            entities=[_normalized(e) for e in out.entities][:8],
            query_type=QueryType(out.query_type),
            domain=_normalized(out.domain)[:40] or "general",
            needs_recent=out.needs_recent,
            intent=Intent(out.intent),
        )

    async def plan(self, question: str, analysis: QueryAnalysis, profile: DepthProfile) -> ResearchPlan:
        baseline = await self.fallback.plan(question, analysis, profile)
        quick = analysis.intent is Intent.QUICK_ANSWER
        wanted = 1 if quick else profile.sub_questions
        kinds = ", ".join(kind.value for kind in SourceType)
        messages = prompts.planning(question, analysis, wanted, profile.queries_per_sub_question, kinds)
        try:
            out = await self.caller.ask("planning", PlanOut, messages)
        except (StepFailed, BudgetExceeded) as error:
            self._fell_back("Planning", error)
            return baseline.model_copy(update={"sub_questions": baseline.sub_questions[:wanted]})
        sub_questions: list[SubQuestion] = []
        for planned in out.sub_questions:
            text = _normalized(URL_LIKE.sub(" ", planned.text))[:300]
            queries = [q for q in dict.fromkeys(plain_query(q) for q in planned.queries) if q]
            if not text:
                continue
            sub_questions.append(
                SubQuestion(
                    id=f"q{len(sub_questions) + 1}",
                    text=text,
                    priority=planned.priority,
                    queries=queries[: profile.queries_per_sub_question] or [plain_query(text)],
                    source_types=[SourceType(kind) for kind in dict.fromkeys(planned.source_types)],
                )
            )
            if len(sub_questions) == wanted:  # a model (or a page it read) cannot enlarge the research
                break
        if not sub_questions:
            self._fell_back("Planning", StepFailed("the plan had no sub-questions"))
            return baseline
        criteria = _normalized(out.completion_criteria)[:300] or baseline.completion_criteria
        return baseline.model_copy(update={"sub_questions": sub_questions, "completion_criteria": criteria})

    async def extract(
        self, question: str, sub_question: SubQuestion, passages: list[Passage], limit: int
    ) -> list[Evidence]:
        if not passages:
            return []
        try:
            out = await self.caller.ask(
                "extraction", ExtractionOut, prompts.extraction(question, sub_question, passages, limit)
            )
        except (StepFailed, BudgetExceeded) as error:
            self._fell_back(f"Evidence for '{sub_question.text}'", error)
            return await self.fallback.extract(question, sub_question, passages, limit)
        evidence: dict[str, Evidence] = {}
        for item in out.evidence:
            if not 1 <= item.passage <= len(passages):
                continue
            passage = passages[item.passage - 1]
            quote = _normalized(item.quote)
            if len(quote) < 12 or quote not in _normalized(passage.text):
                continue  # not verbatim: a model may not put words in a source's mouth
            if URL_LIKE.search(quote) or MARKUP.search(quote):
                continue  # a page's link, image or markup is never evidence, even quoted word for word
            found = Evidence(
                id=evidence_id(passage.source_id, sub_question.id, quote),
                claim=plain_text(item.claim)[:400] or quote,
                quote=quote,
                source_id=passage.source_id,
                sub_question_id=sub_question.id,
                score=passage.score,
            )
            evidence.setdefault(found.id, found)
        return list(evidence.values())[:limit]

    async def evaluate(
        self,
        question: str,
        plan: ResearchPlan,
        evidence: list[Evidence],
        sources: list[SourceRecord],
        iteration: int,
        search_history: list[str],
    ) -> ProgressAssessment:
        by_id = {source.id: source for source in sources}
        try:
            out = await self.caller.ask(
                "evaluation", ProgressOut, prompts.progress(question, plan, evidence, by_id, search_history)
            )
        except (StepFailed, BudgetExceeded) as error:
            self._fell_back("Progress evaluation", error)
            return await self.fallback.evaluate(question, plan, evidence, sources, iteration, search_history)
        scores = {item.sub_question: item.score for item in out.coverage}
        coverage = []
        for sub_question in plan.sub_questions:
            items = [e for e in evidence if e.sub_question_id == sub_question.id]
            score = scores.get(sub_question.id, 0.0) if items else 0.0
            coverage.append(
                Coverage(
                    sub_question_id=sub_question.id,
                    evidence_count=len(items),
                    source_count=len({e.source_id for e in items}),
                    score=score,
                    covered=score >= COVERED and len(items) >= plan.min_evidence_per_question,
                )
            )
        confidence = confidence_score(coverage, evidence, by_id, out.contradictions, date.today())
        gaps = [c.sub_question_id for c in coverage if not c.covered]
        tried = {normalize_query(q) for q in search_history}
        new_queries: list[SearchQuery] = []
        for text in out.new_queries:
            query = plain_query(text)
            if query and normalize_query(query) not in tried and gaps:
                tried.add(normalize_query(query))
                new_queries.append(SearchQuery(text=query, sub_question_id=gaps[len(new_queries) % len(gaps)]))
        return ProgressAssessment(
            iteration=iteration,
            coverage=coverage,
            confidence=confidence,
            gaps=gaps,
            new_queries=new_queries[: 2 * max(len(gaps), 1)],
            complete=confidence >= self.confidence_threshold,
            hint=_normalized(out.reformulation_hint)[:300],
        )

    async def synthesize(
        self,
        question: str,
        analysis: QueryAnalysis,
        plan: ResearchPlan,
        evidence: list[Evidence],
        sources: list[SourceRecord],
        assessment: ProgressAssessment | None,
    ) -> ResearchReport:
        by_id = {source.id: source for source in sources}
        known = {item.id: item for item in evidence}
        quick = analysis.intent is Intent.QUICK_ANSWER
        try:
            out = await self.caller.ask(
                "synthesis", ReportOut, prompts.synthesis(question, plan, evidence, by_id, quick)
            )
        except (StepFailed, BudgetExceeded) as error:
            self._fell_back("Synthesis", error)
            return await self.fallback.synthesize(question, analysis, plan, evidence, sources, assessment)
        report = ResearchReport(
            title=plain_text(out.title)[:200] or question,
            question=question,
            summary=_findings(out.summary, known),
            key_findings=_findings(out.key_findings, known),
            sections=[
                ReportSection(heading=plain_text(s.heading)[:200], findings=_findings(s.findings, known))
                for s in out.sections
            ],
            consensus=_findings(out.consensus, known),
            conflicts=[
                Conflict(topic=plain_text(c.topic)[:200], sides=sides)
                for c in out.conflicts
                if len(sides := _findings(c.sides, known)) >= 2
            ],
            gaps=[gap for gap in (plain_text(g)[:300] for g in out.gaps) if gap],
            caveats=[caveat for caveat in (plain_text(c)[:300] for c in out.caveats) if caveat],
            quick_answer=quick,
        )
        return await self._verified(report, known)

    async def _verified(self, report: ResearchReport, known: dict[str, Evidence]) -> ResearchReport:
        """Each statement checked against its evidence, lexically and by the judge model; what fails is marked."""
        statements = _statements(report)
        lexical = {
            text: lexical_support(text, (known[i].quote for i in ids)) >= MIN_SUPPORT for text, ids in statements
        }
        judged: dict[str, bool] = {}
        caveats = list(report.caveats)
        if statements:
            try:
                out = await self.caller.ask(
                    "judge",
                    VerificationOut,
                    prompts.verification([(text, [known[i] for i in ids]) for text, ids in statements]),
                )
                judged = {
                    statements[v.statement - 1][0]: v.supported
                    for v in out.verdicts
                    if 1 <= v.statement <= len(statements)
                }
            except (StepFailed, BudgetExceeded) as error:
                caveats.append(f"The model check of statements could not run ({error}); they were checked lexically.")
        failed = {text for text, _ in statements if not lexical[text] or not judged.get(text, True)}
        if failed:
            caveats.append(
                f"{len(failed)} of {len(statements)} statements are not clearly supported by their evidence and "
                f"are marked {UNVERIFIED}."
            )
        return _mark(report, failed).model_copy(update={"caveats": caveats})

    async def evaluate_report(self, question: str, report_markdown: str) -> ReportEvaluation | None:
        """The judge's scores for the finished report; None when the judge could not run."""
        # Judged: the report's content, not facts of the run (usage, date, whether a page came from the cache),
        # so an identical re-run asks the same question and gets the cached answer.
        content = _ACCESS.sub(")_", report_markdown.split("\n## About this report")[0])
        try:
            out = await self.caller.ask("judge", JudgeOut, prompts.judging(question, content))
        except (StepFailed, BudgetExceeded) as error:
            self._notices.setdefault(current_run(), []).append(
                Notice(level="info", message=f"The report could not be scored: {error}.")
            )
            return None
        return ReportEvaluation(
            relevance=out.relevance,
            accuracy=out.accuracy,
            completeness=out.completeness,
            source_quality=out.source_quality,
            strengths=[s for s in (plain_text(s)[:200] for s in out.strengths) if s][:5],
            weaknesses=[w for w in (plain_text(w)[:200] for w in out.weaknesses) if w][:5],
        )


def confidence_score(
    coverage: Sequence[Coverage],
    evidence: Sequence[Evidence],
    sources: dict[str, SourceRecord],
    contradictions: int,
    today: date,
) -> float:
    """0-100: coverage 40, source reliability 30, recency 15, consistency 15.

    Coverage is the model's judgement per sub-question; reliability the mean credibility of the sources the
    evidence quotes; recency how recent those sources are (within 2 years 1, 5 years 0.6, older 0.3,
    undated 0.5); consistency falls with each contradiction the model counts between evidence items.
    """
    if not evidence or not coverage:
        return 0.0
    cited = [sources[e.source_id] for e in evidence if e.source_id in sources] or list(sources.values())
    reliability = sum(s.credibility.score if s.credibility else 0.5 for s in cited) / max(len(cited), 1)
    recency = sum(_freshness(s.published, today) for s in cited) / max(len(cited), 1)
    consistency = max(0.0, 1.0 - contradictions / max(1.0, len(evidence) / 2))
    covered = sum(c.score for c in coverage) / len(coverage)
    return round(40 * covered + 30 * reliability + 15 * recency + 15 * consistency, 1)


def _freshness(published: str | None, today: date) -> float:
    try:
        when = date.fromisoformat((published or "")[:10])
    except ValueError:
        return 0.5
    age = (today - when).days / 365.25
    return 1.0 if age <= 2 else 0.6 if age <= 5 else 0.3


def _findings(items: Sequence[FindingOut], known: dict[str, Evidence]) -> list[Finding]:
    """Findings whose text is not empty and which cite at least one evidence id that exists."""
    found = []
    for item in items:
        ids = [i for i in dict.fromkeys(item.evidence) if i in known]
        text = plain_text(item.text)[:600]
        if text and ids:
            found.append(Finding(text=text, evidence_ids=ids))
    return found


def _statements(report: ResearchReport) -> list[tuple[str, list[str]]]:
    findings = [
        *report.summary,
        *report.key_findings,
        *(f for s in report.sections for f in s.findings),
        *report.consensus,
        *(f for c in report.conflicts for f in c.sides),
    ]
    unique: dict[str, list[str]] = {}
    for finding in findings:
        unique.setdefault(finding.text, finding.evidence_ids)
    return list(unique.items())


def _mark(report: ResearchReport, failed: set[str]) -> ResearchReport:
    def mark(findings: list[Finding]) -> list[Finding]:
        return [f.model_copy(update={"text": f"{f.text} {UNVERIFIED}"}) if f.text in failed else f for f in findings]

    return report.model_copy(
        update={
            "summary": mark(report.summary),
            "key_findings": mark(report.key_findings),
            "sections": [s.model_copy(update={"findings": mark(s.findings)}) for s in report.sections],
            "consensus": mark(report.consensus),
            "conflicts": [c.model_copy(update={"sides": mark(c.sides)}) for c in report.conflicts],
        }
    )
