"""Plain-text views of the run store for the command line: the list of runs and one run in detail."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from research_assistant.context import Context
from research_assistant.echo import shorten
from research_assistant.report.summary import model_usage_text
from research_assistant.runs.records import RunMetrics, RunRecord, RunStatus, TraceEvent
from research_assistant.schemas import RoleUsage
from research_assistant.text.spaces import clip


def when(epoch: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch)) if epoch else "-"


def parameters_summary(parameters: Context) -> str:
    """A run's parameters in one line, its limits only when it set them: "quick, local, max sources 4, 600 s limit"."""
    limits = []
    if parameters.max_sources is not None:
        limits.append(f"max sources {parameters.max_sources}")
    if parameters.max_iterations is not None:
        limits.append(f"max rounds {parameters.max_iterations}")
    if parameters.recency_days is not None:
        limits.append(f"last {parameters.recency_days} days")
    if parameters.providers is not None:
        limits.append("via " + "+".join(parameters.providers))
    if parameters.budget_tokens is not None:
        limits.append(f"budget {parameters.budget_tokens:,} tokens")
    if parameters.budget_usd is not None:
        limits.append(f"budget ${parameters.budget_usd:.2f}")
    kinds = "+".join(parameters.source_types)
    return ", ".join([parameters.depth.value, kinds, *limits, f"{parameters.max_seconds:.0f} s limit"])


def runs_table(records: Sequence[RunRecord]) -> str:
    if not records:
        return "No runs yet. Start one with `research-assistant run QUESTION --corpus DIR`.\n"
    rows = [("RUN", "STATUS", "STARTED", "SECONDS", "PARAMETERS", "QUESTION")]
    for record in records:
        rows.append(
            (
                record.run_id,
                record.status.value,
                when(record.started_at),
                f"{record.metrics.elapsed_seconds:.1f}" if record.metrics.elapsed_seconds else "-",
                clip(parameters_summary(record.parameters), 40),
                clip(record.question, 60),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = ("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)) + "  " + row[-1] for row in rows)
    return "".join(line + "\n" for line in lines)


def metrics_lines(metrics: RunMetrics) -> list[str]:
    lines = [
        f"Queries:      {metrics.queries}",
        f"Sources:      {metrics.sources_read} read ({metrics.pages_fetched} fetched, {metrics.pages_cached} from "
        f"cache), {metrics.pages_failed} failed",
        f"Evidence:     {metrics.evidence} items",
    ]
    if metrics.confidence:
        lines.append("Confidence:   " + " → ".join(f"{value:.0f}" for value in metrics.confidence))
    if metrics.node_seconds:
        lines.append(
            "Time:         "
            + f"{metrics.elapsed_seconds:.1f} s ("
            + ", ".join(f"{node} {seconds:.2f} s" for node, seconds in metrics.node_seconds.items())
            + ")"
        )
    spent = metrics.usage
    for role, usage in spent.roles.items():
        lines.append(
            f"Tokens:       {role}: {usage.input_tokens:,} in, {usage.output_tokens:,} out, ${usage.cost_usd:.4f}"
            + _calls(usage)
        )
    if spent.roles:
        lines.append(f"Model usage:  {model_usage_text(spent)}")
    judged = metrics.evaluation
    if judged is not None:
        lines.append(
            f"Evaluation:   relevance {judged.relevance:.2f}, accuracy {judged.accuracy:.2f}, completeness "
            f"{judged.completeness:.2f}, source quality {judged.source_quality:.2f}"
        )
    return lines


def _calls(made: RoleUsage) -> str:
    """' (3 calls, 1 failed)' after a role's tokens; '' for a run recorded before calls were counted."""
    if not made.calls:
        return ""
    parts = [f"{made.calls} call" + ("" if made.calls == 1 else "s")]
    if made.cached:
        parts.append(f"{made.cached} from the cache")
    if made.failed:
        parts.append(f"{made.failed} failed")
    return f" ({', '.join(parts)})"


def run_details(
    record: RunRecord, metrics: RunMetrics, state: Mapping[str, Any], recent: Iterable[TraceEvent] = ()
) -> str:
    """Everything about one run; its report when it has one, otherwise where it got to."""
    lines = [
        f"Run {record.run_id}: {record.status.value}",
        f"Question:     {shorten(record.question)}",
        f"Parameters:   {parameters_summary(record.parameters)}",
        f"Started:      {when(record.started_at)}",
        f"Updated:      {when(record.updated_at)}",
    ]
    if record.stop_reason:
        lines.append(f"Stopped:      {record.stop_reason}")
    if record.error:
        lines.append(f"Error:        {record.error}")
    if record.waiting:
        lines.append(f"Waiting for:  {record.waiting} (`research-assistant resume {record.run_id}` accepts the plan)")
    lines += metrics_lines(metrics)
    if record.status in (RunStatus.CANCELLED, RunStatus.INTERRUPTED, RunStatus.FAILED):
        lines.append(
            f"Resume:       `research-assistant resume {record.run_id}` continues it; "
            f"add --finish to write the report from what was gathered"
        )
    if record.report_markdown:
        return "\n".join(lines) + "\n\n" + record.report_markdown
    lines += ["", "State so far:"]
    sources = state.get("sources", {})
    read = [source for source in sources.values() if source.status.value == "read"]
    lines.append(f"  {len(read)} of {len(sources)} sources found have been read:")
    lines += [f"  - {shorten(f'{source.title} ({source.locator})')}" for source in read]
    lines.append(f"  {len(state.get('evidence', {}))} evidence items")
    recent = list(recent)
    if recent:
        lines += ["", "Last events:"]
        lines += [f"  {when(event.at)} [{event.node or 'run'}] {event.message}" for event in recent]
    return "\n".join(lines) + "\n"
