"""What the analyst can take away from a run: its report (Markdown, PDF, Word), its state (JSON), its evidence (CSV).

`export_run` makes any of them from a `RunExport`, which the page and the
command line (`research-assistant export`) make from a stored run with
`stored_run_export`. Local
documents are named by their paths inside the documents folder, never the
server's absolute paths, and every key is redacted.

The state holds records only (sources, evidence, plan, assessments, the
report before rendering), never page bodies: text lives in the document cache,
so the JSON export is small and carries nothing a page said beyond the quotes.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

from pydantic_core import to_jsonable_python

from research_assistant.context import Context
from research_assistant.report.citations import unescape_markdown
from research_assistant.report.locations import corpus_roots, relative_code_spans, relative_path
from research_assistant.schemas import Evidence, SourceRecord
from research_assistant.secrets import remember, scrub

STATE_KEYS = (
    "run_id",
    "question",
    "analysis",
    "plan",
    "search_history",
    "iteration",
    "assessments",
    "stop_reason",
    "sources",
    "evidence",
    "notices",
    "report",
    "report_markdown",
    "cited_sources",
)

EVIDENCE_COLUMNS = ("evidence_id", "sub_question_id", "claim", "quote", "source_id", "source_title", "locator")


def redact(text: str, secrets: Sequence[str]) -> str:
    """`text` with every key in `secrets`, and every other key the process knows, replaced: whatever a model or a
    page did, no key leaves in an export."""
    remember(*secrets)
    return scrub(text)


def run_json(state: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> str:
    """The run's state (and `extra`, e.g. its parameters and metrics) as indented JSON."""
    document = {key: state[key] for key in STATE_KEYS if key in state} | dict(extra or {})
    return json.dumps(to_jsonable_python(document), indent=2, ensure_ascii=False) + "\n"


def evidence_csv(evidence: Mapping[str, Evidence], sources: Mapping[str, SourceRecord]) -> str:
    """One row per evidence item, with the title and locator of the source it quotes."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EVIDENCE_COLUMNS)
    for item in evidence.values():
        source = sources.get(item.source_id)
        title, locator = (source.title, source.locator) if source else ("", "")
        writer.writerow((item.id, item.sub_question_id, item.claim, item.quote, item.source_id, title, locator))
    return out.getvalue()


class ExportFormat(StrEnum):
    MARKDOWN = "md"
    PDF = "pdf"
    WORD = "docx"
    JSON = "json"
    CSV = "csv"


@dataclass(frozen=True)
class Export:
    """One download: what it is called, its bytes, its file name and media type."""

    label: str
    data: bytes
    file_name: str
    mime: str


class NothingToExport(ValueError):
    """The run has nothing for this format (no report yet, or no evidence); the message says so."""


@dataclass(frozen=True)
class RunExport:
    """What a run's exports are made from: the page and the command line fill it from the run store."""

    run_id: str
    report_markdown: str
    state: Mapping[str, Any]
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Added to the JSON export: status, parameters (the documents folder as its name only), metrics."""
    roots: Sequence[Path] = ()
    """The run's documents folders: local documents are named by their paths inside them."""
    secrets: Sequence[str] = ()

    @property
    def title(self) -> str:
        first = self.report_markdown.splitlines()[0] if self.report_markdown else ""
        return unescape_markdown(first.removeprefix("# ").strip()) or "Research report"


class StoredRun(Protocol):
    """What an export needs of a run's record (`runs.records.RunRecord`, a layer above this one)."""

    run_id: str
    report_markdown: str
    parameters: Context

    def model_dump(self, *, mode: str, include: set[str]) -> dict[str, Any]: ...


def stored_run_export(record: StoredRun, state: Mapping[str, Any], secrets: Sequence[str]) -> RunExport:
    """What a stored run's exports are made from: its report and `state` (its checkpoint; empty when there is
    none); for the JSON, its status, parameters as its record keeps them (`shown_parameters`) and metrics."""
    kept = record.model_dump(mode="json", include={"status", "parameters", "metrics"})
    return RunExport(
        run_id=record.run_id,
        report_markdown=record.report_markdown,
        state=state,
        extra={
            "status": kept["status"],
            "parameters": shown_parameters(kept["parameters"]),
            "metrics": kept["metrics"],
        },
        roots=corpus_roots(record.parameters.corpus_dir),
        secrets=secrets,
    )


LABELS = {
    ExportFormat.MARKDOWN: ("Report (Markdown)", "report", "text/markdown"),
    ExportFormat.PDF: ("Report (PDF)", "report", "application/pdf"),
    ExportFormat.WORD: (
        "Report (Word)",
        "report",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ),
    ExportFormat.JSON: ("Run (JSON)", "run", "application/json"),
    ExportFormat.CSV: ("Evidence (CSV)", "evidence", "text/csv"),
}
REPORT_FORMATS = (ExportFormat.MARKDOWN, ExportFormat.PDF, ExportFormat.WORD)


def available_formats(run: RunExport) -> list[ExportFormat]:
    """The formats a run can be exported in: the report's when it has one; its state when it has a checkpoint;
    its evidence only when there is some."""
    found = list(REPORT_FORMATS) if run.report_markdown else []
    if run.state:
        found.append(ExportFormat.JSON)
        if run.state.get("evidence"):
            found.append(ExportFormat.CSV)
    return found


def export_run(run: RunExport, fmt: ExportFormat) -> Export:
    """The run in `fmt`; `NothingToExport` when it has nothing for it. Keys are redacted from every format and
    local documents are named relative to the documents folder."""
    label, stem, mime = LABELS[fmt]
    name = f"{stem}-{run.run_id}.{fmt.value}"
    if fmt in REPORT_FORMATS:
        if not run.report_markdown:
            raise NothingToExport(f"run {run.run_id} has no report yet: resume it, or write its report first")
        markdown = redact(relative_code_spans(run.report_markdown, run.roots), run.secrets)
        if fmt is ExportFormat.MARKDOWN:
            return Export(label, markdown.encode("utf-8"), name, mime)
        from research_assistant.report.document import report_blocks

        blocks = report_blocks(markdown, cited_numbers(run.state))
        if fmt is ExportFormat.PDF:
            from research_assistant.report.pdf import report_pdf

            return Export(label, report_pdf(blocks, run.title), name, mime)
        from research_assistant.report.word import report_docx

        return Export(label, report_docx(blocks, run.title), name, mime)
    if not run.state:
        raise NothingToExport(f"run {run.run_id} has no saved state to export")
    sources = {  # each local document's locator relative to the documents folder
        key: source.model_copy(update={"locator": relative_path(source.locator, run.roots) or source.locator})
        for key, source in run.state.get("sources", {}).items()
    }
    if fmt is ExportFormat.JSON:
        state = {**run.state, "sources": sources}
        if "report_markdown" in state:
            state["report_markdown"] = relative_code_spans(str(state["report_markdown"]), run.roots)
        return Export(label, redact(run_json(state, run.extra), run.secrets).encode("utf-8"), name, mime)
    evidence = run.state.get("evidence", {})
    if not evidence:
        raise NothingToExport(f"run {run.run_id} has gathered no evidence yet")
    return Export(label, redact(evidence_csv(evidence, sources), run.secrets).encode("utf-8"), name, mime)


def cited_numbers(state: Mapping[str, Any]) -> range | None:
    """The citation numbers of the report, as the renderer gave them (`[n]` cites the n-th of `cited_sources`);
    None for a run saved before its state carried them."""
    if "cited_sources" not in state:
        return None
    return range(1, len(state["cited_sources"] or ()) + 1)


def shown_parameters(parameters: Mapping[str, Any]) -> dict[str, Any]:
    """A run's parameters as exported: the documents folder by its name only, never a path of the server."""
    shown = dict(parameters)
    if shown.get("corpus_dir"):
        shown["corpus_dir"] = Path(str(shown["corpus_dir"])).name
    return shown
