"""What the analyst can take away from a run besides the Markdown report: its state as JSON, its evidence as CSV.

The state holds records only (sources, evidence, plan, assessments, the
report before rendering), never page bodies: text lives in the document cache,
so the JSON export is small and carries nothing a page said beyond the quotes.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from research_assistant.schemas import Evidence, SourceRecord
from research_assistant.secrets import scrub_with

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
)

EVIDENCE_COLUMNS = ("evidence_id", "sub_question_id", "claim", "quote", "source_id", "source_title", "locator")


def redact(text: str, secrets: Sequence[str]) -> str:
    """`text` with every key in `secrets`, and every other key the process knows, replaced: whatever a model or a
    page did, no key leaves in an export."""
    return scrub_with(text, secrets)


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def run_json(state: Mapping[str, Any], extra: Mapping[str, Any] | None = None) -> str:
    """The run's state (and `extra`, e.g. its parameters and metrics) as indented JSON."""
    document = {key: _plain(state[key]) for key in STATE_KEYS if key in state}
    document.update({key: _plain(value) for key, value in (extra or {}).items()})
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def evidence_csv(evidence: Mapping[str, Evidence], sources: Mapping[str, SourceRecord]) -> str:
    """One row per evidence item, with the title and locator of the source it quotes."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EVIDENCE_COLUMNS)
    for item in evidence.values():
        source = sources.get(item.source_id)
        writer.writerow(
            (
                item.id,
                item.sub_question_id,
                item.claim,
                item.quote,
                item.source_id,
                source.title if source else "",
                source.locator if source else "",
            )
        )
    return out.getvalue()
