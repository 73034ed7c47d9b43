"""The reasoning interface every node talks to.

Two implementations plug in here: the extractive reasoner (offline,
deterministic, classical NLP) and an LLM reasoner. Nodes depend only on this
protocol, so swapping one for the other never changes a node. Besides the five
steps, a reasoner says what went wrong in them (`take_notices`), what its
models spent (`take_usage`, which the step puts in the run's state), whether
the run's budget is nearly spent, and may score the finished report.
`WithoutModels` gives those answers for a reasoner that calls no model.
"""

from __future__ import annotations

from typing import Protocol

from research_assistant.context import DepthProfile
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

    async def analyze(self, question: str) -> QueryAnalysis:
        """Keywords, entities, query type, domain, recency needs and intent."""
        ...

    async def plan(self, question: str, analysis: QueryAnalysis, profile: DepthProfile) -> ResearchPlan:
        """Sub-questions with queries, scaled by the depth profile."""
        ...

    async def extract(
        self,
        question: str,
        sub_question: SubQuestion,
        passages: list[Passage],
        limit: int,
        analysis: QueryAnalysis | None = None,
    ) -> list[Evidence]:
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
    ) -> ProgressAssessment:
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
    ) -> ResearchReport:
        """The report; every finding cites evidence ids from `evidence`."""
        ...

    async def evaluate_report(self, question: str, report_markdown: str) -> ReportEvaluation | None:
        """A judge's scores for the finished report; None when there is no judge or it could not run."""
        ...

    def take_notices(self) -> list[Notice]:
        """What went wrong in the steps since the last call (a fallback, an unusable reply), then forgotten."""
        ...

    def take_usage(self) -> ModelUsage:
        """Model usage since the last call, then forgotten: each step adds it to the run's state."""
        ...

    def budget_reached(self) -> str | None:
        """The budget cap most of which the run has spent, so research should stop; None while there is room."""
        ...


class WithoutModels:
    """The answers of a reasoner that calls no model: nothing spent, nothing to say, no judge."""

    confidence_threshold: float | None = None
    comparable_scores = False

    async def evaluate_report(self, question: str, report_markdown: str) -> ReportEvaluation | None:
        return None

    def take_notices(self) -> list[Notice]:
        return []

    def take_usage(self) -> ModelUsage:
        return ModelUsage()

    def budget_reached(self) -> str | None:
        return None
