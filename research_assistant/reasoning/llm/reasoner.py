"""The LLM reasoner: each step asks a role's model, checks what comes back, and falls back when it must.

Nothing a model says is used unchecked: plans are cut to the depth's limits
and their queries stripped of URLs; evidence must quote its passage verbatim;
findings may cite only evidence ids that exist; confidence is computed here
from the model's coverage judgement and the sources' own records. A step that
fails (the call, the format, or the budget) is done by the extractive reasoner,
and the run is told which step and why, in what that step returns.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import date
from typing import Any, Concatenate, ParamSpec, TypeVar

from research_assistant.context import Context, DepthProfile
from research_assistant.reasoning.base import ByWording, Fallback, Step
from research_assistant.reasoning.confidence import confidence_score
from research_assistant.reasoning.extractive.analysis import analyze_question
from research_assistant.reasoning.extractive.planning import framed_plan
from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
from research_assistant.reasoning.extractive.signals import evidence_id
from research_assistant.reasoning.extractive.synthesis import direct_answer
from research_assistant.reasoning.llm import outputs, prompts
from research_assistant.reasoning.llm.caller import StepFailed, StructuredCaller
from research_assistant.reasoning.llm.ledger import RESEARCH_SHARE, BudgetExceeded
from research_assistant.reasoning.llm.surroundings import SurroundingsMemo, surroundings
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
)
from research_assistant.text.spaces import collapse, error_line
from research_assistant.text.tokens import content_terms, normalize_query

T = TypeVar("T")
P = ParamSpec("P")

_ACCESS = re.compile(r"; via [^)\n]*\)_")
COVERED = 0.7
"""A sub-question's coverage score (0-1) from which it counts as answered."""
SYNTHESIS_EVIDENCE = 120
"""Most evidence items the synthesis prompt shows; past it, each sub-question keeps its best in turn."""


def model_evidence_limit(limit: int) -> int:
    """Evidence a model keeps per sub-question when the depth's limit is `limit` (2, 3, 4: 5, 7, 9).

    The depth's limit is sized for the extractive reasoner, whose report is its evidence quoted; a model
    writes its report from the evidence, and needs several facts per sub-question to write a full one.
    """
    return 2 * limit + 1


def clip(text: str, limit: int) -> str:
    """`text` within `limit` characters: cut at a word, with an ellipsis, never in the middle of a word."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut and not text[limit - 1].isspace():
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:-–—") + "…"


def plain_query(text: str) -> str:
    """A search query without URLs or stray whitespace: a page cannot make research fetch an address."""
    return " ".join(URL_LIKE.sub(" ", text).split())[:200]


class _Said:
    """What went wrong in one call of a step, for the `Step` it returns."""

    def __init__(self) -> None:
        self.fallbacks: list[Fallback] = []
        self.notices: list[Notice] = []

    def fell_back(self, step: str, error: Exception, subject: str = "") -> None:
        """A step the extractive reasoner did instead: said once per step and reason, `subject` (a sub-question
        id) naming which of several."""
        self.fallbacks.append(Fallback(step, clip(error_line(error), 160), subject))


def _step(
    *, unclaimed: bool = False
) -> Callable[
    [Callable[Concatenate[LLMReasoner, _Said, P], Awaitable[T]]],
    Callable[Concatenate[LLMReasoner, P], Coroutine[Any, Any, Step[T]]],
]:
    """A reasoner's step made of `work`, which is given the step's `_Said` before its own arguments: its value,
    with what went wrong in it and what its own model calls spent (`unclaimed`: with what calls made outside any
    step, or by a step cut short, spent too)."""

    def decorate(
        work: Callable[Concatenate[LLMReasoner, _Said, P], Awaitable[T]],
    ) -> Callable[Concatenate[LLMReasoner, P], Coroutine[Any, Any, Step[T]]]:
        async def step(self: LLMReasoner, *args: P.args, **kwargs: P.kwargs) -> Step[T]:
            said = _Said()
            ledger = self.caller.ledger()
            with ledger.step() as spending:
                value = await work(self, said, *args, **kwargs)
            usage = spending.usage + ledger.take() if unclaimed else spending.usage
            return Step(value, tuple(said.fallbacks), tuple(said.notices), usage)

        step.__doc__ = work.__doc__
        return step

    return decorate


class LLMReasoner(ByWording):
    """Gemini (or any LangChain chat model) per role, with the extractive reasoner as the per-step fallback.

    One serves one run: its caller holds the run's models, budget and usage, and `context` the run's kinds of
    source, providers and iteration limit.
    """

    name = "llm"
    comparable_scores = True
    context: Context | None = None
    """The run's parameters; None outside a run (every kind of source, no iteration limit)."""

    def __init__(
        self,
        caller: StructuredCaller,
        fallback: ExtractiveReasoner,
        confidence_threshold: float,
        *,
        context: Context | None = None,
        surroundings: SurroundingsMemo | None = None,
    ) -> None:
        self.caller = caller
        self.fallback = fallback
        self.confidence_threshold = confidence_threshold
        if context is not None:
            self.context = context
        self._surroundings = surroundings or SurroundingsMemo()

    # What the nodes ask besides the steps ------------------------------------------------------------------

    def budget_reached(self) -> str | None:
        """The cap most of which this run has spent, so research should stop; None while there is room."""
        return self.caller.ledger().spent(RESEARCH_SHARE)

    # The protocol: each step is given its `_Said` first (by `_step`), and returns a `Step` ------------------

    @_step()
    async def analyze(self, said: _Said, question: str) -> QueryAnalysis:
        try:
            out = await self.caller.ask("analysis", outputs.AnalysisOut, prompts.analysis(question))
        except (StepFailed, BudgetExceeded) as error:
            said.fell_back("Analysis", error)
            return (await self.fallback.analyze(question)).value
        return QueryAnalysis(
            keywords=[k for k in (collapse(k) for k in out.keywords) if k][:8] or question.split()[:4],
            entities=[collapse(e) for e in out.entities][:8],
            query_type=QueryType(out.query_type),
            domain=collapse(out.domain)[:40] or "general",
            needs_recent=out.needs_recent,
            intent=Intent(out.intent),
        )

    @_step()
    async def plan(self, said: _Said, question: str, analysis: QueryAnalysis, profile: DepthProfile) -> ResearchPlan:
        quick = analysis.intent is Intent.QUICK_ANSWER
        wanted = 1 if quick else profile.sub_questions
        context = self.context
        available = [SourceType(kind) for kind in (context.source_types if context else None) or SourceType]
        kinds = [kind.value for kind in available]
        providers = context.providers if context else None
        messages = prompts.planning(question, analysis, wanted, profile.queries_per_sub_question, kinds, providers)
        try:
            out = await self.caller.ask("planning", outputs.PlanOut, messages)
        except (StepFailed, BudgetExceeded) as error:
            said.fell_back("Planning", error)
            baseline = (await self.fallback.plan(question, analysis, profile)).value
            return baseline.model_copy(update={"sub_questions": baseline.sub_questions[:wanted]})
        sub_questions: list[SubQuestion] = []
        for planned in out.sub_questions:
            text = clip(collapse(URL_LIKE.sub(" ", planned.text)), 300)
            queries = [q for q in dict.fromkeys(plain_query(q) for q in planned.queries) if q]
            if not text:
                continue
            sub_questions.append(
                SubQuestion(
                    id=f"q{len(sub_questions) + 1}",
                    text=text,
                    priority=planned.priority,
                    queries=queries[: profile.queries_per_sub_question] or [plain_query(text)],
                    source_types=[SourceType(k) for k in dict.fromkeys(planned.source_types) if k in kinds],
                )
            )
            if len(sub_questions) == wanted:  # a model (or a page it read) cannot enlarge the research
                break
        if not sub_questions:
            said.fell_back("Planning", StepFailed("the plan had no sub-questions"))
            return (await self.fallback.plan(question, analysis, profile)).value
        plan = framed_plan(sub_questions, analysis, profile)
        criteria = clip(collapse(out.completion_criteria), 300) or plan.completion_criteria
        return plan.model_copy(update={"completion_criteria": criteria})

    @_step()
    async def extract(
        self,
        said: _Said,
        question: str,
        sub_question: SubQuestion,
        passages: list[Passage],
        limit: int,
        analysis: QueryAnalysis | None = None,
    ) -> list[Evidence]:
        if not passages:
            return []
        wanted = model_evidence_limit(limit)
        try:
            out = await self.caller.ask(
                "extraction", outputs.ExtractionOut, prompts.extraction(question, sub_question, passages, wanted)
            )
        except (StepFailed, BudgetExceeded) as error:
            said.fell_back("Evidence extraction", error, sub_question.id)
            return self._remembered(
                (await self.fallback.extract(question, sub_question, passages, limit)).value, passages
            )
        evidence: dict[str, Evidence] = {}
        for item in out.evidence:
            if not 1 <= item.passage <= len(passages):
                continue
            passage = passages[item.passage - 1]
            quote = collapse(item.quote)
            if len(quote) < 12 or quote not in collapse(passage.text):
                continue  # not verbatim: a model may not put words in a source's mouth
            if URL_LIKE.search(quote) or MARKUP.search(quote):
                continue  # a page's link, image or markup is never evidence, even quoted word for word
            found = Evidence(
                id=evidence_id(passage.source_id, sub_question.id, quote),
                claim=clip(plain_text(item.claim), 400) or quote,
                quote=quote,
                source_id=passage.source_id,
                sub_question_id=sub_question.id,
                score=passage.score,
            )
            evidence.setdefault(found.id, found)
        return self._remembered(list(evidence.values())[:wanted], passages)

    def _remembered(self, evidence: list[Evidence], passages: Sequence[Passage]) -> list[Evidence]:
        """The evidence, its surroundings in its passage kept for the verifier."""
        for item in evidence:
            for passage in passages:
                if passage.source_id == item.source_id:
                    found = surroundings(passage.text, item.quote)
                    if found.text:
                        self._surroundings.remember(item.id, found)
                        break
        return evidence

    @_step()
    async def evaluate(
        self,
        said: _Said,
        question: str,
        plan: ResearchPlan,
        evidence: list[Evidence],
        sources: list[SourceRecord],
        iteration: int,
        search_history: list[str],
        analysis: QueryAnalysis | None = None,
    ) -> ProgressAssessment:
        by_id = {source.id: source for source in sources}
        final = self.context is not None and iteration >= self.context.iteration_limit  # no search follows
        schema: type[outputs.AssessmentOut] = outputs.AssessmentOut if final else outputs.ProgressOut
        try:
            out = await self.caller.ask(
                "evaluation", schema, prompts.progress(question, plan, evidence, by_id, search_history, final)
            )
        except (StepFailed, BudgetExceeded) as error:
            said.fell_back("Progress evaluation", error)
            return (
                await self.fallback.evaluate(question, plan, evidence, sources, iteration, search_history, analysis)
            ).value
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
        confidence = confidence_score(
            question,
            plan,
            coverage,
            evidence,
            by_id,
            conflicts=out.contradictions,
            needs_recent=(analysis or analyze_question(question)).needs_recent,
            today=date.today(),
        )
        gaps = [c.sub_question_id for c in coverage if not c.covered]
        tried = {normalize_query(q) for q in search_history}
        new_queries: list[SearchQuery] = []
        for text in out.new_queries if isinstance(out, outputs.ProgressOut) else []:
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
            # Every sub-question answered is a complete research, whatever the sources' dates and credibility.
            complete=confidence >= self.confidence_threshold or (bool(coverage) and not gaps),
            hint=clip(collapse(out.reformulation_hint), 300) if isinstance(out, outputs.ProgressOut) else "",
        )

    # The report's usage includes what a step cut short (by the time limit) had spent: it is the last step.
    @_step(unclaimed=True)
    async def synthesize(
        self,
        said: _Said,
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
        messages = prompts.synthesis(question, plan, _for_synthesis(evidence, plan), by_id, quick)
        try:
            if quick:
                short = await self.caller.ask("synthesis", outputs.QuickAnswerOut, messages)
                out = outputs.ReportOut(title=short.title, summary=short.answer)
            else:
                out = await self.caller.ask("synthesis", outputs.ReportOut, messages)
        except (StepFailed, BudgetExceeded) as error:
            said.fell_back("Synthesis", error)
            return (await self.fallback.synthesize(question, analysis, plan, evidence, sources, assessment)).value
        summary = _findings(out.summary, known)
        key_findings = _new_facts(_findings(out.key_findings, known), summary)
        sections = []
        for section in out.sections:
            findings = _findings(section.findings, known)
            sections.append(
                ReportSection(
                    heading=clip(plain_text(section.heading), 200),
                    findings=_new_facts(findings, [*summary, *key_findings]) or findings,
                )
            )
        # A value the question asks for opens the report as the quotation that states it, as offline;
        # whether another kind of answer was found is the model's to say in its summary.
        stating, answer_note = ([], "") if quick else direct_answer(question, plan, evidence, values_only=True)
        report = ResearchReport(
            title=clip(plain_text(out.title), 200) or question,
            question=question,
            answer=[Finding(text=e.claim, evidence_ids=[e.id], verbatim=True) for e in stating],
            answer_note=answer_note,
            summary=summary,
            key_findings=key_findings,
            sections=sections,
            # Consensus is what several sources say: a finding that cites one source is no consensus.
            consensus=[
                f for f in _findings(out.consensus, known) if len({known[i].source_id for i in f.evidence_ids}) > 1
            ],
            conflicts=[
                Conflict(topic=clip(plain_text(c.topic), 200), sides=sides)
                for c in out.conflicts
                if len(sides := _findings(c.sides, known)) >= 2
            ],
            gaps=[gap for gap in (clip(plain_text(g), 300) for g in out.gaps) if gap],
            caveats=[caveat for caveat in (clip(plain_text(c), 300) for c in out.caveats) if caveat],
            quick_answer=quick,
        )
        return await self._verified(report, known, by_id)

    async def _verified(
        self, report: ResearchReport, known: dict[str, Evidence], sources: dict[str, SourceRecord]
    ) -> ResearchReport:
        """Each statement checked against its evidence, lexically and by the judge model; what fails is marked.

        Both checks see each quote with what tells what it is about: its source's title, and (for the model)
        the heading and sentences around it, so that a statement naming its source or section is not taken
        for one that goes beyond its quotes.
        """
        statements = _statements(report)
        titles = {source_id: source.title for source_id, source in sources.items()}
        around = {i: self._surroundings.get(i) for _, ids in statements for i in ids}
        lexical = {
            text: lexical_support(
                text,
                [
                    *(known[i].quote for i in ids),
                    *(titles.get(known[i].source_id, "") for i in ids),
                    *(around[i].heading for i in ids),
                ],
            )
            >= MIN_SUPPORT
            for text, ids in statements
        }
        judged: dict[str, bool] = {}
        caveats = list(report.caveats)
        if statements:
            try:
                out = await self.caller.ask(
                    "judge",
                    outputs.VerificationOut,
                    prompts.verification(
                        [(text, [known[i] for i in ids]) for text, ids in statements],
                        titles,
                        {i: found.text for i, found in around.items()},
                    ),
                    label="verification",
                )
                judged = {
                    statements[v.statement - 1][0]: v.supported
                    for v in out.verdicts
                    if 1 <= v.statement <= len(statements)
                }
            except (StepFailed, BudgetExceeded) as error:
                caveats.append(
                    f"The model check of statements could not run ({error}); they were checked lexically only."
                )
        failed = {text for text, _ in statements if not lexical[text] or not judged.get(text, True)}
        if failed:
            one = len(failed) == 1
            caveats.append(
                f"{len(failed)} of {len(statements)} statements {'is' if one else 'are'} not clearly supported by "
                f"{'its' if one else 'their'} evidence and {'is' if one else 'are'} marked {UNVERIFIED}."
            )
        return _mark(report, failed).model_copy(update={"caveats": caveats})

    @_step()
    async def evaluate_report(self, said: _Said, question: str, report_markdown: str) -> ReportEvaluation | None:
        """The judge's scores for the finished report; None when the judge could not run."""
        # Judged: the report's content, not facts of the run (usage, date, whether a page came from the cache),
        # so an identical re-run asks the same question and gets the cached answer.
        content = _ACCESS.sub(")_", report_markdown.split("\n## About this report")[0])
        try:
            out = await self.caller.ask("judge", outputs.JudgeOut, prompts.judging(question, content))
        except (StepFailed, BudgetExceeded) as error:
            said.notices.append(Notice(level="info", message=f"The report could not be scored: {error}."))
            return None
        return ReportEvaluation(
            relevance=out.relevance,
            accuracy=out.accuracy,
            completeness=out.completeness,
            source_quality=out.source_quality,
            strengths=[s for s in (clip(plain_text(s), 200) for s in out.strengths) if s][:5],
            weaknesses=[w for w in (clip(plain_text(w), 200) for w in out.weaknesses) if w][:5],
        )


def _findings(items: Sequence[outputs.FindingOut], known: dict[str, Evidence]) -> list[Finding]:
    """Findings whose text is not empty and which cite at least one evidence id that exists."""
    found = []
    for item in items:
        ids = [i for i in dict.fromkeys(item.evidence) if i in known]
        text = clip(plain_text(item.text), 600)
        if text and ids:
            found.append(Finding(text=text, evidence_ids=ids))
    return found


def _statements(report: ResearchReport) -> list[tuple[str, list[str]]]:
    unique: dict[str, list[str]] = {}
    for finding in report.statements():
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


def _for_synthesis(evidence: Sequence[Evidence], plan: ResearchPlan, cap: int = SYNTHESIS_EVIDENCE) -> list[Evidence]:
    """The evidence the report is written from, grouped by sub-question; past `cap` items each sub-question
    keeps its best in turn, so that every one of them can still be answered."""
    order = {sub.id: n for n, sub in enumerate(plan.sub_questions)}
    grouped: dict[str, list[Evidence]] = {}
    for item in evidence:
        grouped.setdefault(item.sub_question_id, []).append(item)
    queues = [grouped[key] for key in sorted(grouped, key=lambda key: order.get(key, len(order)))]
    if len(evidence) > cap:
        queues = [sorted(queue, key=lambda item: -item.score) for queue in queues]
        chosen: set[str] = set()
        while len(chosen) < cap:
            for queue in queues:
                taken = next((item for item in queue if item.id not in chosen), None)
                if taken is not None and len(chosen) < cap:
                    chosen.add(taken.id)
        queues = [[item for item in queue if item.id in chosen] for queue in queues]
    return [item for queue in queues for item in queue]


def _new_facts(findings: Sequence[Finding], earlier: Sequence[Finding]) -> list[Finding]:
    """The findings that add something: one whose every content word an earlier statement already has is
    a repetition (a key finding that restates the summary, a section sentence that restates a key finding)."""
    seen = [set(content_terms(f.text)) for f in earlier]
    kept = []
    for finding in findings:
        terms = set(content_terms(finding.text))
        if terms and any(terms <= other for other in seen):
            continue
        kept.append(finding)
        seen.append(terms)
    return kept
