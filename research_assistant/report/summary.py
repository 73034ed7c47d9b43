"""What a run did, shown as the report's closing `## About this report` block."""

from __future__ import annotations

from pydantic import Field

from research_assistant.report.citations import escape_markdown
from research_assistant.schemas import ModelUsage, Record


class RunSummary(Record):
    """Facts about the run that produced a report; every value comes from the run, never the clock."""

    depth: str = Field(description="'quick', 'standard' or 'deep'.")
    sources_read: int = 0
    sources_failed: int = 0
    sources_cached: int = Field(default=0, description="Sources read from the document cache, not fetched.")
    evidence_count: int = 0
    confidence: float | None = Field(default=None, description="0-100, from the last progress assessment.")
    iterations: int = 0
    stop_reason: str | None = Field(default=None, description="Why research stopped, e.g. 'confidence reached'.")
    reasoner: str = Field(default="", description="Which reasoner wrote the report, e.g. 'extractive', 'gemini'.")
    generated: str | None = Field(default=None, description="ISO date (or date-time) the report was generated.")
    model_usage: ModelUsage | None = Field(
        default=None, description="What the run's models spent (tokens, cost, calls), when a model was asked."
    )


def model_usage_text(usage: ModelUsage) -> str:
    """'12,345 tokens, $0.0123 (9 calls, 1 failed)': the report's closing line and `show` say it alike."""
    text = f"{usage.tokens:,} tokens, ${usage.cost_usd:.4f}"
    calls, cached, failed = usage.calls, usage.cached, usage.failed
    if not calls:
        return text
    details = [f"{calls} call" + ("" if calls == 1 else "s")]
    if cached and cached == calls:
        details.append("all answered from the cache" if calls > 1 else "answered from the cache")
    elif cached:
        details.append(f"{cached} answered from the cache")
    if failed:
        details.append(f"{failed} failed")
    return f"{text} ({', '.join(details)})"


def render_run_summary(summary: RunSummary) -> list[str]:
    """The `## About this report` block as Markdown lines."""
    rounds = f"{summary.iterations}"
    if summary.stop_reason:
        rounds += f" (stopped: {escape_markdown(summary.stop_reason)})"
    items = [
        f"Depth: {escape_markdown(summary.depth)}",
        f"Sources: {summary.sources_read} read"
        + (f" ({summary.sources_cached} from cache)" if summary.sources_cached else "")
        + f", {summary.sources_failed} failed",
        f"Evidence items: {summary.evidence_count}",
    ]
    if summary.confidence is not None:
        items.append(f"Confidence: {summary.confidence:.0f}/100")
    items.append(f"Research rounds: {rounds}")
    if summary.reasoner:
        items.append(f"Reasoner: {escape_markdown(summary.reasoner)}")
    if summary.model_usage is not None:
        items.append(f"Model usage: {model_usage_text(summary.model_usage)}")
    if summary.generated:
        items.append(f"Generated: {escape_markdown(summary.generated)}")
    return ["## About this report", "", *(f"- {item}" for item in items)]
