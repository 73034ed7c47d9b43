"""The extractive reasoner: offline, deterministic, classical NLP behind the `Reasoner` protocol."""

from __future__ import annotations

from research_assistant.context import DepthProfile
from research_assistant.reasoning.base import Step, WithoutModels
from research_assistant.reasoning.extractive.analysis import analyze_question
from research_assistant.reasoning.extractive.extraction import extract_evidence
from research_assistant.reasoning.extractive.planning import build_plan
from research_assistant.reasoning.extractive.progress import assess_progress
from research_assistant.reasoning.extractive.synthesis import write_report
from research_assistant.reasoning.extractive.vectors import Embedder, TextEmbedding
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


class ExtractiveReasoner(WithoutModels):
    """Rules for analysis and planning; BM25 + embedding similarity for evidence; MMR for the report.

    Needs no network and no model download: the same inputs always give the same outputs.
    CPU work runs inline; each call takes milliseconds for typical inputs.
    """

    name = "extractive"

    def __init__(self, embedding: TextEmbedding | None = None) -> None:
        """`embedding`: the model whose vectors compare sentences; the hashing embedding by default."""
        self.embedder = Embedder(embedding)

    async def analyze(self, question: str) -> Step[QueryAnalysis]:
        return Step(analyze_question(question))

    async def plan(self, question: str, analysis: QueryAnalysis, profile: DepthProfile) -> Step[ResearchPlan]:
        return Step(build_plan(question, analysis, profile))

    async def extract(
        self,
        question: str,
        sub_question: SubQuestion,
        passages: list[Passage],
        limit: int,
        analysis: QueryAnalysis | None = None,
    ) -> Step[list[Evidence]]:
        return Step(extract_evidence(question, sub_question, passages, limit, self.embedder, analysis=analysis))

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
        return Step(
            assess_progress(question, plan, evidence, sources, iteration, search_history, self.embedder, analysis)
        )

    async def synthesize(
        self,
        question: str,
        analysis: QueryAnalysis,
        plan: ResearchPlan,
        evidence: list[Evidence],
        sources: list[SourceRecord],
        assessment: ProgressAssessment | None,
    ) -> Step[ResearchReport]:
        return Step(write_report(question, analysis, plan, evidence, sources, assessment, self.embedder))
