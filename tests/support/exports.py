"""The page's downloads of a run, made at once: what its download buttons offer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from research_assistant.page.exports import run_export
from research_assistant.report.exports import Export, ExportFormat, available_formats, export_run
from research_assistant.runs.records import RunRecord


def exports(record: RunRecord, state: Mapping[str, Any], formats: Sequence[ExportFormat] = ()) -> list[Export]:
    """The downloads the run offers, made now (`formats`: only these; all the run has by default)."""
    run = run_export(record, state)
    return [export_run(run, fmt) for fmt in available_formats(run) if not formats or fmt in formats]
