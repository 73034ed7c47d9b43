"""Two runs of the same question side by side: which sources and findings one has that the other lacks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from research_assistant.schemas import ResearchReport, SourceRecord, SourceStatus


class RunComparison(BaseModel):
    """What changed from run `before` to run `after`."""

    sources_added: list[SourceRecord] = Field(default_factory=list, description="Read in `after` only.")
    sources_removed: list[SourceRecord] = Field(default_factory=list, description="Read in `before` only.")
    sources_kept: int = 0
    findings_added: list[str] = Field(default_factory=list, description="Key findings of `after` only.")
    findings_removed: list[str] = Field(default_factory=list, description="Key findings of `before` only.")
    findings_kept: int = 0


def _read_sources(state: Mapping[str, Any]) -> dict[str, SourceRecord]:
    sources: Mapping[str, SourceRecord] = state.get("sources", {})
    return {s.locator: s for s in sources.values() if s.status is SourceStatus.READ}


def _findings(state: Mapping[str, Any]) -> list[str]:
    report: ResearchReport | None = state.get("report")
    if report is None:
        return []
    texts = [" ".join(f.text.split()) for f in [*report.answer, *report.summary, *report.key_findings]]
    return list(dict.fromkeys(texts))


def compare_runs(before: Mapping[str, Any], after: Mapping[str, Any]) -> RunComparison:
    """Sources compared by locator, findings by their text (whitespace aside), each in its run's order."""
    old_sources, new_sources = _read_sources(before), _read_sources(after)
    old_findings, new_findings = _findings(before), _findings(after)
    return RunComparison(
        sources_added=[s for locator, s in new_sources.items() if locator not in old_sources],
        sources_removed=[s for locator, s in old_sources.items() if locator not in new_sources],
        sources_kept=len(old_sources.keys() & new_sources.keys()),
        findings_added=[f for f in new_findings if f not in old_findings],
        findings_removed=[f for f in old_findings if f not in new_findings],
        findings_kept=len(set(old_findings) & set(new_findings)),
    )
