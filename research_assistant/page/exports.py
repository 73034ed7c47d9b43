"""What a run can be downloaded as: its report (Markdown, with its Sources), its state (JSON), its evidence (CSV)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import streamlit as st

from research_assistant.report.exports import evidence_csv, redact, run_json
from research_assistant.runs.records import RunRecord
from research_assistant.settings import get_settings


@dataclass(frozen=True)
class Export:
    label: str
    data: str
    file_name: str
    mime: str


def exports(record: RunRecord, state: Mapping[str, Any]) -> list[Export]:
    """The downloads a run offers: the report when it has one; its state and evidence when it has a checkpoint."""
    found = []
    if record.report_markdown:
        found.append(Export("Report (Markdown)", record.report_markdown, f"report-{record.run_id}.md", "text/markdown"))
    if state:
        extra = {
            "status": record.status.value,
            "parameters": record.parameters.model_dump(mode="json"),
            "metrics": record.metrics.model_dump(mode="json"),
        }
        keys = get_settings().secret_values()
        document = redact(run_json(state, extra), keys)
        found.append(Export("Run (JSON)", document, f"run-{record.run_id}.json", "application/json"))
        table = redact(evidence_csv(state.get("evidence", {}), state.get("sources", {})), keys)
        found.append(Export("Evidence (CSV)", table, f"evidence-{record.run_id}.csv", "text/csv"))
    return found


def download_buttons(record: RunRecord, state: Mapping[str, Any]) -> None:
    for export in exports(record, state):
        st.download_button(
            export.label,
            export.data,
            file_name=export.file_name,
            mime=export.mime,
            on_click="ignore",
            icon=":material/download:",
        )
