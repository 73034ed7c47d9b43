"""What the run store keeps about a run: parameters, status, trace events and metrics."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter, field_serializer, model_validator

from research_assistant.context import Context
from research_assistant.echo import Echoed
from research_assistant.progress import SourceOutcome
from research_assistant.schemas import ModelUsage, ReportEvaluation


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

_CONTEXT = TypeAdapter(Context)


def kept_parameters(context: Context) -> dict[str, Any]:
    """A run's parameters as its record keeps them: its `Context` as JSON data, without the fields in `NOT_KEPT`.
    Loading the record builds the Context from them again, through the same validation."""
    kept: dict[str, Any] = _CONTEXT.dump_python(context, mode="json", exclude=set(NOT_KEPT))
    return kept


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
    usage: ModelUsage = Field(
        default_factory=ModelUsage, description="Tokens, cost and calls per model role, when a model is used."
    )
    evaluation: ReportEvaluation | None = Field(default=None, description="The judge's scores of the report.")

    @model_validator(mode="before")
    @classmethod
    def _usage_of_older_runs(cls, data: Any) -> Any:
        """Runs stored before `usage` kept each role's tokens and cost under `tokens` and its calls under `calls`
        (runs older still have no `calls`): both are read into `usage`, in the order `tokens` named the roles."""
        if not isinstance(data, dict) or not {"tokens", "calls"} & data.keys():
            return data
        data = dict(data)
        tokens, calls = data.pop("tokens", None) or {}, data.pop("calls", None) or {}
        roles = {role: {**tokens.get(role, {}), **calls.get(role, {})} for role in {**tokens, **calls}}
        return {**data, "usage": {"roles": roles}}


class RunRecord(BaseModel):
    run_id: str
    question: str
    parameters: Context = Field(
        description="The run's parameters; loaded from the store, its folders are the settings' (`NOT_KEPT`)."
    )
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

    @field_serializer("parameters")
    def _kept(self, parameters: Context) -> dict[str, Any]:
        return kept_parameters(parameters)
