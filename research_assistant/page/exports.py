"""What a run can be downloaded as: its report (Markdown, PDF, Word), its state (JSON), its evidence (CSV).

The files are `report.exports`' (the CLI's `export` makes the same ones).
The PDF and the Word document are made when their button is clicked, not on
every rerun of the page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

from research_assistant.report.exports import (
    LABELS,
    REPORT_FORMATS,
    ExportFormat,
    RunExport,
    available_formats,
    export_run,
    stored_run_export,
)
from research_assistant.runs.records import RunRecord
from research_assistant.settings import get_settings

DEFERRED = frozenset({ExportFormat.PDF, ExportFormat.WORD})


def run_export(record: RunRecord, state: Mapping[str, Any]) -> RunExport:
    """What the run's exports are made from."""
    return stored_run_export(record, state, get_settings().secret_values())


def _maker(run: RunExport, fmt: ExportFormat) -> Callable[[], bytes]:
    return lambda: export_run(run, fmt).data


def download_buttons(record: RunRecord, state: Mapping[str, Any]) -> None:
    """A button per format the run has something for: no evidence, no CSV."""
    run = run_export(record, state)
    for fmt in available_formats(run):
        label, stem, mime = LABELS[fmt]
        data: bytes | Callable[[], bytes] = _maker(run, fmt) if fmt in DEFERRED else export_run(run, fmt).data
        st.download_button(
            label,
            data,
            file_name=f"{stem}-{record.run_id}.{fmt.value}",
            mime=mime,
            on_click="ignore",
            icon=":material/download:",
            key=f"download-{fmt.value}-{record.run_id}",
            help="The report with its citations linked to its Sources list" if fmt in REPORT_FORMATS else None,
        )
