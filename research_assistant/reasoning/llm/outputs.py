"""What each model call must return: pydantic schemas used as structured-output formats.

They are deliberately small and flat (ids and text, no nested free-form
objects): smaller schemas are followed more reliably, and everything a model
says is checked against the run's own records before it is used.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from research_assistant.context import SourceKind


class AnalysisOut(BaseModel):
    keywords: list[str] = Field(description="Key phrases, most important first (at most 8).")
    entities: list[str] = Field(default_factory=list, description="Named things: products, people, places, versions.")
    query_type: Literal["factual", "definitional", "comparative", "causal", "procedural", "exploratory"] = Field(
        description="factual: a specific fact; definitional: what something is; comparative: how things differ; "
        "causal: why something happens; procedural: how to do something; exploratory: how something works, or "
        "an overview of several aspects."
    )
    domain: str = Field(default="general", description="Subject area, e.g. 'software', 'finance'.")
    needs_recent: bool = Field(default=False, description="Whether the answer depends on recent information.")
    intent: Literal["quick_answer", "full_report"] = Field(
        description="'quick_answer' for a simple factual question answerable in a sentence or two."
    )


class SubQuestionOut(BaseModel):
    text: str
    priority: int = Field(default=1, ge=1, le=5, description="1 is the most important.")
    queries: list[str] = Field(description="Search-engine queries for this sub-question (plain words, no URLs).")
    source_types: list[SourceKind] = Field(default_factory=list, description="Preferred kinds of source.")


class PlanOut(BaseModel):
    sub_questions: list[SubQuestionOut]
    completion_criteria: str = Field(default="", description="What a complete answer must establish.")


class EvidenceOut(BaseModel):
    passage: int = Field(description="The number of the passage the quote comes from.")
    quote: str = Field(
        description="One or two whole sentences copied exactly, character for character, from the passage."
    )
    claim: str = Field(description="What the quote establishes, as one short sentence.")


class ExtractionOut(BaseModel):
    evidence: list[EvidenceOut] = Field(default_factory=list)


class CoverageOut(BaseModel):
    sub_question: str = Field(description="The sub-question id, e.g. 'q1'.")
    score: float = Field(ge=0, le=1, description="How fully the evidence answers it: 0 not at all, 1 completely.")
    gap: str = Field(default="", description="What is still missing, if anything.")


class AssessmentOut(BaseModel):
    """The last round's judgement: no search follows, so no new queries are asked for."""

    coverage: list[CoverageOut]
    contradictions: int = Field(default=0, ge=0, description="How many pairs of evidence items disagree.")


class ProgressOut(AssessmentOut):
    new_queries: list[str] = Field(default_factory=list, description="Reformulated queries for the gaps.")
    reformulation_hint: str = Field(default="", description="How to search differently for what is missing.")


class FindingOut(BaseModel):
    text: str = Field(description="One sentence, supported by the cited evidence.")
    evidence: list[str] = Field(description="Ids of the evidence items that support it, e.g. ['E3'].")


class SectionOut(BaseModel):
    heading: str
    findings: list[FindingOut]


class ConflictOut(BaseModel):
    topic: str
    sides: list[FindingOut] = Field(description="At least two findings that disagree, each with its own evidence.")


class QuickAnswerOut(BaseModel):
    """A short cited answer to a simple question, and nothing else."""

    title: str
    answer: list[FindingOut] = Field(description="One to three sentences answering the question.")


class ReportOut(BaseModel):
    title: str
    summary: list[FindingOut] = Field(description="Two to four sentences answering the question directly.")
    key_findings: list[FindingOut] = Field(
        default_factory=list, description="The most important facts not already stated in the summary."
    )
    sections: list[SectionOut] = Field(
        default_factory=list, description="One per sub-question: the details, without repeating earlier sentences."
    )
    consensus: list[FindingOut] = Field(
        default_factory=list,
        description="Only where two or more sources state the same thing, citing each of them; usually empty.",
    )
    conflicts: list[ConflictOut] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list, description="What the evidence does not answer.")
    caveats: list[str] = Field(default_factory=list)


class VerdictOut(BaseModel):
    statement: int = Field(description="The number of the statement judged.")
    supported: bool = Field(
        description="True only if the quotes, read with their source and surrounding text, state or directly imply "
        "the statement."
    )


class VerificationOut(BaseModel):
    verdicts: list[VerdictOut]


class JudgeOut(BaseModel):
    relevance: float = Field(ge=0, le=1)
    accuracy: float = Field(ge=0, le=1)
    completeness: float = Field(ge=0, le=1)
    source_quality: float = Field(ge=0, le=1)
    strengths: list[str] = Field(default_factory=list)
    weaknesses: list[str] = Field(default_factory=list)
