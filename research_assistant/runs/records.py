"""What the run store keeps about a run: parameters, status, trace events and metrics."""

from __future__ import annotations

import dataclasses
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

from research_assistant.context import CitationStyle, Context, Depth, SourceKind
from research_assistant.echo import Echoed
from research_assistant.progress import SourceOutcome
from research_assistant.schemas import ReportEvaluation, TokenUsage


class RunStatus(StrEnum):
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"
    """Stopped without finishing and without being asked to: the process died, or the graph paused."""


RESUMABLE = frozenset({RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.INTERRUPTED})


NOT_KEPT = frozenset({"db_dir", "cache_dir", "deadline", "services"})
"""`Context` fields a run's record does not keep: the process that resumes the run sets them anew."""


class RunParameters(BaseModel):
    """A run's parameters as plain data: its `Context` without the fields in `NOT_KEPT`, what `resume` needs to
    rebuild it. The fields are the Context's own (`of` refuses a Context field missing here)."""

    depth: Depth
    source_types: list[SourceKind]
    corpus_dir: str | None = None
    citation_style: CitationStyle
    max_sources: int | None = None
    max_iterations: int | None = None
    max_seconds: float
    refresh: bool = False
    providers: list[str] | None = None
    recency_days: int | None = None
    review_plan: bool = False
    models: dict[str, str] | None = None
    budget_tokens: int | None = None
    budget_usd: float | None = None

    @field_validator("corpus_dir", mode="before")
    @classmethod
    def _folder(cls, value: object) -> object:
        return str(value) if isinstance(value, Path) else value

    @classmethod
    def of(cls, context: Context) -> RunParameters:
        kept = {f.name: getattr(context, f.name) for f in dataclasses.fields(context) if f.name not in NOT_KEPT}
        unknown = kept.keys() - cls.model_fields.keys()
        if unknown:
            raise TypeError(f"RunParameters does not keep the Context fields {sorted(unknown)}")
        return cls.model_validate(kept)

    def context(self, **overrides: Any) -> Context:
        """A `Context` with these parameters; `overrides` sets the others (folders, services)."""
        return Context(**{**self.model_dump(), **overrides})

    def summary(self) -> str:
        limits = []
        if self.max_sources is not None:
            limits.append(f"max sources {self.max_sources}")
        if self.max_iterations is not None:
            limits.append(f"max rounds {self.max_iterations}")
        if self.recency_days is not None:
            limits.append(f"last {self.recency_days} days")
        if self.providers is not None:
            limits.append("via " + "+".join(self.providers))
        if self.budget_tokens is not None:
            limits.append(f"budget {self.budget_tokens:,} tokens")
        if self.budget_usd is not None:
            limits.append(f"budget ${self.budget_usd:.2f}")
        return ", ".join([self.depth.value, "+".join(self.source_types), *limits, f"{self.max_seconds:.0f} s limit"])


class EventKind(StrEnum):
    RUN_START = "run_start"
    NODE_START = "node_start"
    NODE_END = "node_end"
    PROGRESS = "progress"
    SOURCE = "source"
    RUN_END = "run_end"


class TraceEvent(BaseModel):
    """One entry of a run's trace, which is also the progress the CLI and the page show."""

    run_id: str
    seq: int = Field(description="Position in the run's trace, from 0; continues across resumes.")
    at: float = Field(description="Wall-clock time, epoch seconds.")
    kind: EventKind
    node: str = Field(default="", description="The graph node; 'browse/read_source' for a subgraph's own step.")
    message: Echoed = ""
    level: str = "info"
    counts: dict[str, float] = Field(default_factory=dict)
    seconds: float | None = Field(default=None, description="A node's duration, on its end event.")
    source: SourceOutcome | None = None


class ModelCalls(BaseModel):
    """A role's model calls: in all, answered from the model-reply cache, and failed (an error or an unusable
    reply)."""

    calls: int = 0
    cached: int = 0
    failed: int = 0


class RunMetrics(BaseModel):
    """Per-run numbers, kept with the run and shown by `show`."""

    elapsed_seconds: float = 0.0
    node_seconds: dict[str, float] = Field(default_factory=dict, description="Time spent in each top-level node.")
    queries: int = 0
    sources_read: int = 0
    pages_fetched: int = 0
    pages_cached: int = 0
    pages_failed: int = 0
    evidence: int = 0
    confidence: list[float] = Field(default_factory=list, description="Confidence after each research round.")
    tokens: dict[str, TokenUsage] = Field(default_factory=dict, description="Per model role, when a model is used.")
    calls: dict[str, ModelCalls] = Field(default_factory=dict, description="Model calls per role.")
    evaluation: ReportEvaluation | None = Field(default=None, description="The judge's scores of the report.")

    @property
    def cost_usd(self) -> float:
        return sum(usage.cost_usd for usage in self.tokens.values())

    @property
    def model_tokens(self) -> int:
        return sum(usage.input_tokens + usage.output_tokens for usage in self.tokens.values())


class RunRecord(BaseModel):
    run_id: str
    question: str
    parameters: RunParameters
    status: RunStatus
    started_at: float
    updated_at: float
    finished_at: float | None = None
    stop_reason: str | None = None
    error: Echoed = ""
    report_markdown: str = ""
    metrics: RunMetrics = Field(default_factory=RunMetrics)
    pid: int | None = Field(default=None, description="The process running it, while it runs.")
    pid_started: int | None = Field(
        default=None,
        description="When that process started (clock ticks after boot, /proc/PID/stat), so that another process "
        "given the same pid later is not taken for it.",
    )
    waiting: str = Field(default="", description="What an interrupted run waits for, e.g. 'plan review'.")
