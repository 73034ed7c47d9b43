"""The reasoning interface every node talks to.

Two implementations plug in here: the extractive reasoner (offline,
deterministic, classical NLP) and an LLM reasoner. Nodes depend only on this
protocol, so swapping one for the other never changes a node. Each step
returns a `Step`: its value, with what went wrong in that call (a fallback, an
unusable reply) and what its models spent, which the node passes on to the
run's progress and state. A step's notices and usage are its own, so steps
that run at once (a round's extractions) never take each other's. Besides the
steps, a reasoner says whether the run's budget is nearly spent, may score
the finished report, and says what to look up beside retrieval (`lookups`).
`WithoutModels` gives those answers for a reasoner that calls no model.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from research_assistant.context import DepthProfile
from research_assistant.echo import series
from research_assistant.reasoning.lookups import Lookups, lookups_for
from research_assistant.schemas import (
    Evidence,
    ModelUsage,
    Notice,
    Passage,
    ProgressAssessment,
    QueryAnalysis,
    ReportEvaluation,
    ResearchPlan,
    ResearchReport,
    SourceRecord,
    SubQuestion,
)

T = TypeVar("T")
E = TypeVar("E")


@dataclass(frozen=True)
class Fallback:
    """A step, or its part for `subject` (a sub-question id), that the extractive reasoner did instead, and why."""

    step: str
    reason: str
    subject: str = ""


@dataclass(frozen=True)
class Step(Generic[T]):
    """What one call of a reasoner's step gives: its value, what went wrong in it, and what its models spent."""

    value: T
    fallbacks: tuple[Fallback, ...] = ()
    notices: tuple[Notice, ...] = ()
    usage: ModelUsage = field(default_factory=ModelUsage)

    def said(self) -> list[Notice]:
        """The step's notices: one per fallen-back step and reason (the sub-questions it was for named by id),
        then the others."""
        grouped: dict[tuple[str, str], list[str]] = {}
        for fallback in self.fallbacks:
            subjects = grouped.setdefault((fallback.step, fallback.reason), [])
            if fallback.subject and fallback.subject not in subjects:
                subjects.append(fallback.subject)
        notices = []
        for (step, reason), subjects in grouped.items():
            several = len(subjects) > 1
            named = f" ({'sub-questions' if several else 'sub-question'} {series(subjects)})" if subjects else ""
            instead = "these steps" if several else "this step"
            notices.append(Notice(message=f"{step}{named}: {reason}; the extractive reasoner did {instead} instead."))
        return notices + list(self.notices)


def joined(steps: Iterable[Step[list[E]]]) -> Step[list[E]]:
    """Several calls of a step as one: their values one after the other, with all they said and spent."""
    steps = list(steps)
    return Step(
        [item for step in steps for item in step.value],
        tuple(fallback for step in steps for fallback in step.fallbacks),
        tuple(notice for step in steps for notice in step.notices),
        sum((step.usage for step in steps), ModelUsage()),
    )


class Reasoner(Protocol):
    """Turns a question, passages and evidence into plans, evidence and a report."""

    name: str
    """Short label shown in progress and the report, e.g. 'extractive'."""
    comparable_scores: bool
    """Whether the scores of evidence found by separate `extract` calls can be compared, so that each page's
    evidence, found as it is read, can be ranked against another's. The extractive reasoner's cannot: its
    scores are relative to the passages it ranks together."""

    @property
    def confidence_threshold(self) -> float | None:
        """The confidence at which research stops, when the reasoner sets its own (a setting); None: the depth's."""
        ...

    async def analyze(self, question: str) -> Step[QueryAnalysis]:
        """Keywords, entities, query type, domain, recency needs and intent."""
        ...

    async def plan(self, question: str, analysis: QueryAnalysis, profile: DepthProfile) -> Step[ResearchPlan]:
        """Sub-questions with queries, scaled by the depth profile."""
        ...

    async def extract(
        self,
        question: str,
        sub_question: SubQuestion,
        passages: list[Passage],
        limit: int,
        analysis: QueryAnalysis | None = None,
    ) -> Step[list[Evidence]]:
        """At most `limit` evidence items for one sub-question, quoting the passages verbatim; `analysis`: the
        question's, as the run made it (so it is not analysed again)."""
        ...

    async def evaluate(
        self,
        question: str,
        plan: ResearchPlan,
        evidence: list[Evidence],
        sources: list[SourceRecord],
        iteration: int,
        search_history: list[str],
        analysis: QueryAnalysis | None = None,
    ) -> Step[ProgressAssessment]:
        """Coverage per sub-question, a 0-100 confidence and, for gaps, queries not in the history; `analysis`:
        the run's analysis of the question (the reasoner analyses it when not given)."""
        ...

    async def synthesize(
        self,
        question: str,
        analysis: QueryAnalysis,
        plan: ResearchPlan,
        evidence: list[Evidence],
        sources: list[SourceRecord],
        assessment: ProgressAssessment | None,
    ) -> Step[ResearchReport]:
        """The report; every finding cites evidence ids from `evidence`."""
        ...

    async def evaluate_report(self, question: str, report_markdown: str) -> Step[ReportEvaluation | None]:
        """A judge's scores for the finished report; None when there is no judge or it could not run."""
        ...

    def lookups(self, question: str, sub_question: SubQuestion) -> Lookups:
        """What to look up in the documents for `sub_question` beside retrieval (an abbreviation's expansion, a
        term's entry)."""
        ...

    def budget_reached(self) -> str | None:
        """The budget cap most of which the run has spent, so research should stop; None while there is room."""
        ...


class ByWording:
    """`Reasoner.lookups` by the question-reading rules both reasoners share (`reasoning.lookups`)."""

    def lookups(self, question: str, sub_question: SubQuestion) -> Lookups:
        return lookups_for(question, sub_question.text)


class WithoutModels(ByWording):
    """The answers of a reasoner that calls no model: nothing spent, nothing to say, no judge."""

    confidence_threshold: float | None = None
    comparable_scores = False

    async def evaluate_report(self, question: str, report_markdown: str) -> Step[ReportEvaluation | None]:
        return Step(None)

    def budget_reached(self) -> str | None:
        return None
