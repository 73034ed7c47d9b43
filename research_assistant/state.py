"""The graph's typed state.

Every field that grows has an idempotent reducer (merge by key, union of
items), so a node or subgraph that returns a value twice, a retried task, or a
subgraph echoing its input never duplicates anything. Nodes return partial
updates and never mutate state in place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, TypeVar

from pydantic import BaseModel, Field

from research_assistant.schemas import (
    Evidence,
    ModelUsage,
    Notice,
    ProgressAssessment,
    QueryAnalysis,
    ReportEvaluation,
    ResearchPlan,
    ResearchReport,
    SearchQuery,
    SourceRecord,
    SourceType,
    SubQuestion,
)

T = TypeVar("T")
R = TypeVar("R", bound=BaseModel)


def merge_records(left: dict[str, R], right: dict[str, R]) -> dict[str, R]:
    """Records keyed by id: a newer record replaces the older one, order of first appearance kept."""
    return {**left, **right}


def total_usage(steps: Mapping[str, ModelUsage]) -> ModelUsage:
    """A run's model usage: the sum of its steps'."""
    return sum(steps.values(), ModelUsage())


def union(left: Sequence[T], right: Sequence[T]) -> list[T]:
    """Append the items of `right` that `left` does not have yet."""
    merged = list(left)
    merged.extend(item for item in right if item not in merged)
    return merged


class InputState(BaseModel):
    """What a caller provides."""

    question: str = Field(description="The research question, as the analyst wrote it.")
    run_id: str = Field(default="", description="This run's id; analyze_query makes one when none is given.")


class OutputState(BaseModel):
    """What a caller gets back."""

    report_markdown: str = Field(default="", description="The final report, rendered in the run's citation style.")
    report: ResearchReport | None = Field(default=None, description="The report before rendering, citations verified.")
    cited_sources: list[str] = Field(
        default_factory=list,
        description="Ids of the sources the report cites, in the order of their numbers: `[n]` cites the n-th.",
    )
    sources: Annotated[dict[str, SourceRecord], merge_records] = Field(default_factory=dict)
    evidence: Annotated[dict[str, Evidence], merge_records] = Field(default_factory=dict)
    notices: Annotated[list[Notice], union] = Field(default_factory=list)
    stop_reason: str | None = Field(default=None, description="Why research stopped; set when it has.")
    evaluation: ReportEvaluation | None = Field(default=None, description="A judge model's scores for the report.")
    run_id: str = Field(default="", description="This run's id, recorded with what it adds to the repository.")


class ResearchState(InputState, OutputState):
    """The whole state of a research run."""

    started_at: float = Field(default=0.0, description="Wall-clock start (epoch seconds), for the time limit.")
    analysis: QueryAnalysis | None = Field(default=None, description="What the question is about.")
    plan: ResearchPlan | None = Field(default=None, description="Sub-questions and completion criteria.")
    pending_queries: list[SearchQuery] = Field(
        default_factory=list, description="Queries the next search step runs; replaced each round."
    )
    search_history: Annotated[list[str], union] = Field(
        default_factory=list, description="Every query run so far, normalized, so none is run twice."
    )
    to_browse: list[str] = Field(default_factory=list, description="Ids of sources chosen for reading this round.")
    found: Annotated[dict[str, Evidence], merge_records] = Field(
        default_factory=dict,
        description="Evidence each browse task found in the one source it read, by id; `extract` keeps the best "
        "of the round's (those from `to_browse`) as `evidence`.",
    )
    iteration: int = Field(default=0, description="Completed research rounds.")
    assessments: Annotated[list[ProgressAssessment], union] = Field(
        default_factory=list, description="One progress assessment per round."
    )
    model_usage: Annotated[dict[str, ModelUsage], merge_records] = Field(
        default_factory=dict,
        description="Model tokens, cost and calls per step ('extract 2': round 2's extraction), by role; the "
        "report's usage line and a resumed run's budget count them.",
    )

    @property
    def spent(self) -> ModelUsage:
        """The model usage of the steps done so far."""
        return total_usage(self.model_usage)


class SourcesUpdate(BaseModel):
    """What the search and browse subgraphs hand back: sources and notices, nothing else."""

    sources: Annotated[dict[str, SourceRecord], merge_records] = Field(default_factory=dict)
    notices: Annotated[list[Notice], union] = Field(default_factory=list)


class BrowseUpdate(SourcesUpdate):
    """What the browse subgraph hands back: the sources read, the evidence found in them, what models spent."""

    found: Annotated[dict[str, Evidence], merge_records] = Field(default_factory=dict)
    model_usage: Annotated[dict[str, ModelUsage], merge_records] = Field(default_factory=dict)


class SearchTask(BaseModel):
    """Input of one fanned-out search task."""

    query: SearchQuery
    limit: int = Field(description="Results asked of the local corpus's search.")
    api_limit: int | None = Field(
        default=None, description="Results asked of a search API (web, news, academic); `limit` when None."
    )
    source_types: list[SourceType] = Field(
        default_factory=list, description="Kinds of source the query's sub-question prefers; empty means any."
    )


class BrowseTask(BaseModel):
    """Input of one fanned-out browse task: the source to read, and what to look for in it once read."""

    source: SourceRecord
    run_id: str = ""
    question: str = ""
    sub_questions: list[SubQuestion] = Field(default_factory=list)
    analysis: QueryAnalysis | None = None
    iteration: int = Field(default=0, description="Completed rounds before this one.")
