"""The report: warnings first, the run's figures, then the report's sections with clickable citations.

The report Markdown is the renderer's, which escapes everything documents
said; the page only splits it into sections and turns each `[n]` into a link
to source card n. Nothing is rendered as HTML.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

from research_assistant.echo import counted, shorten
from research_assistant.page.sources_view import failed_sources, has_findings
from research_assistant.report.citations import escape_markdown
from research_assistant.report.document import link_citations
from research_assistant.report.support import UNVERIFIED
from research_assistant.runs.records import RunMetrics, RunRecord
from research_assistant.schemas import Notice, ReportEvaluation, ResearchReport

OPEN_SECTIONS = frozenset({"Answer", "Summary", "Key findings", "Findings by sub-question"})
CARD_SECTIONS = frozenset({"Sources", "Sources that could not be read"})
"""Shown as source cards and warnings instead, when the run's state is at hand."""
NO_FINDINGS = (
    "This report has no findings: nothing the research gathered could be cited. Run it again deeper (more "
    "sources, more rounds), or with other kinds of sources or another documents folder."
)
MAX_FIGURES = 5
"""Metrics in a row: five fit the main column of a 1280-pixel-wide window with the History open."""
EARLY_STOPS = ("time limit", "budget", "stopped on request", "cost limit")


@dataclass(frozen=True)
class ReportParts:
    head: str
    """The title and question, before the first section."""
    sections: list[tuple[str, str]] = field(default_factory=list)
    """(heading, body) of each `## ` section, in order."""


# Pure helpers (unit-tested) ------------------------------------------------------------------------------


def split_report(markdown: str) -> ReportParts:
    head: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    for line in markdown.splitlines():
        if line.startswith("## "):
            sections.append((line[3:].strip(), []))
        elif sections:
            sections[-1][1].append(line)
        else:
            head.append(line)
    return ReportParts("\n".join(head).strip(), [(heading, "\n".join(body).strip()) for heading, body in sections])


def early_stop(reason: str | None) -> bool:
    """Whether research stopped before it was done (time limit, budget, Stop) rather than by its own judgement."""
    return bool(reason) and any(word in (reason or "").lower() for word in EARLY_STOPS)


def unverified(report: ResearchReport | None) -> int:
    """How many of the report's statements are marked as not clearly supported by their evidence."""
    statements = report.statements() if report is not None else []
    return sum(1 for finding in statements if finding.text.rstrip().endswith(UNVERIFIED))


def warnings(state: Mapping[str, Any], stop_reason: str | None) -> list[str]:
    """What the analyst must know before reading, as safe Markdown: an early stop, statements left unverified,
    then the run's warnings (removed citations among them). Failed sources are listed apart."""
    notices: Sequence[Notice] = state.get("notices", ())
    messages = [n.message for n in notices if n.level.lower() not in ("info", "debug") and n.message.strip()]
    reason = stop_reason or state.get("stop_reason")
    lines = []
    if early_stop(reason) and not any(message.startswith("Research stopped early") for message in messages):
        lines.append(escape_markdown(f"Research stopped early: {reason}. The report covers what was gathered."))
    marked = unverified(state.get("report"))
    if marked:
        lines.append(
            escape_markdown(f"{marked} statements are not clearly supported by their evidence: see {UNVERIFIED}.")
        )
    lines += [escape_markdown(shorten(message)) for message in counted(messages)]  # each once, with its count
    return lines


def evaluation_of(state: Mapping[str, Any], metrics: RunMetrics | None = None) -> ReportEvaluation | None:
    """The judge's evaluation of the report, when the run has one (in its state, or its metrics)."""
    found: ReportEvaluation | None = state.get("evaluation") or (metrics.evaluation if metrics is not None else None)
    return found


def figures(metrics: RunMetrics) -> list[tuple[str, str]]:
    """The run's figures for the metric row, (label, value): at most `MAX_FIGURES` short ones, so that the row
    fits a laptop's width; the rest is said in `figures_note`."""
    rows = [
        ("Sources read", str(metrics.sources_read)),
        ("Failed", str(metrics.pages_failed)),
        ("Evidence", str(metrics.evidence)),
    ]
    if metrics.confidence:
        rows.insert(0, ("Confidence", f"{metrics.confidence[-1]:.0f}/100"))
    if metrics.elapsed_seconds:
        rows.append(("Time", f"{metrics.elapsed_seconds:.1f} s"))
    return rows[:MAX_FIGURES]


def figures_note(metrics: RunMetrics) -> str:
    """What the metric row leaves out, in one line: research rounds, and tokens and cost when a model reported
    them."""
    rounds = len(metrics.confidence)
    parts = [f"{rounds} research {'round' if rounds == 1 else 'rounds'}"] if rounds else []
    tokens = metrics.usage.tokens
    if tokens:
        parts.append(f"{tokens:,} model tokens")
    if metrics.usage.cost_usd:
        parts.append(f"${metrics.usage.cost_usd:.4f}")
    return " · ".join(parts)


# Drawing -------------------------------------------------------------------------------------------------


def show_warnings(state: Mapping[str, Any], record: RunRecord, roots: list[Path]) -> None:
    for line in warnings(state, record.stop_reason):
        st.warning(line, icon=":material/warning:")
    failed = failed_sources(state)
    if failed:
        st.warning(
            f"{len(failed)} sources could not be read: they are listed with their reasons under "
            "[Sources](#sources-failed).",
            icon=":material/warning:",
        )
    if has_findings(state) is False:
        st.warning(NO_FINDINGS, icon=":material/warning:")


def _metric_row(rows: Sequence[tuple[str, str]]) -> None:
    """One row of metrics in equal columns: it never wraps (Streamlit stacks columns only on a phone's width)."""
    if not rows:
        return
    for column, (label, value) in zip(st.columns(MAX_FIGURES), rows, strict=False):
        column.metric(label, value, border=True)


def show_figures(record: RunRecord, state: Mapping[str, Any]) -> None:
    _metric_row(figures(record.metrics))
    note = figures_note(record.metrics)
    if note:
        st.caption(note)
    evaluation = evaluation_of(state, record.metrics)
    if evaluation is None:
        return
    st.markdown("**Evaluation** (by the judge model, 0 to 1)")
    scores = [
        (escape_markdown(name.replace("_", " ").capitalize()), f"{score:.2f}")
        for name, score in evaluation.model_dump(exclude={"strengths", "weaknesses"}).items()
    ]
    for start in range(0, len(scores), MAX_FIGURES):
        _metric_row(scores[start : start + MAX_FIGURES])
    for label, given in (("Strengths", evaluation.strengths), ("Weaknesses", evaluation.weaknesses)):
        items = [item for item in given if item.strip()]
        if items:
            st.markdown(f"**{label}**\n" + "\n".join(f"- {escape_markdown(item)}" for item in items))


def show_report(markdown: str, numbers: Collection[int], with_cards: bool) -> None:
    """The report's sections, each expandable, with its citations linked to the source cards; without cards
    (no saved state), the report's own Sources list is shown instead."""
    parts = split_report(markdown)
    if parts.head:
        st.markdown(parts.head)
    for heading, body in parts.sections:
        if with_cards and heading in CARD_SECTIONS:
            continue
        text = link_citations(body, numbers) if with_cards else body
        with st.expander(escape_markdown(heading), expanded=heading in OPEN_SECTIONS):
            st.markdown(text)
