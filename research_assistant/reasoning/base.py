"""The reasoning interface every node talks to.

Two implementations plug in here: the extractive reasoner (offline,
deterministic, classical NLP) and an LLM reasoner. Nodes depend only on this
protocol, so swapping one for the other never changes a node.
"""

from __future__ import annotations

from typing import Protocol

from research_assistant.context import DepthProfile
from research_assistant.schemas import (
    Evidence,
    Passage,
    ProgressAssessment,
    QueryAnalysis,
    ResearchPlan,
    ResearchReport,
    SourceRecord,
    SubQuestion,
)


class Reasoner(Protocol):
    """Turns a question, passages and evidence into plans, evidence and a report."""

    name: str
    """Short label shown in progress and the report, e.g. 'extractive'."""

    async def analyze(self, question: str) -> QueryAnalysis:
        """Keywords, entities, query type, domain, recency needs and intent."""
        ...

    async def plan(self, question: str, analysis: QueryAnalysis, profile: DepthProfile) -> ResearchPlan:
        """Sub-questions with queries, scaled by the depth profile."""
        ...

    async def extract(
        self, question: str, sub_question: SubQuestion, passages: list[Passage], limit: int
    ) -> list[Evidence]:
        """At most `limit` evidence items for one sub-question, quoting the passages verbatim."""
        ...

    async def evaluate(
        self,
        question: str,
        plan: ResearchPlan,
        evidence: list[Evidence],
        sources: list[SourceRecord],
        iteration: int,
        search_history: list[str],
    ) -> ProgressAssessment:
        """Coverage per sub-question, a 0-100 confidence and, for gaps, queries not in the history."""
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
