"""Two runs of the same question side by side: which sources and findings one has that the other lacks, and which
findings the other run put in another part of its report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from research_assistant.schemas import ResearchReport, SourceRecord, SourceStatus


class MovedFinding(BaseModel):
    """A finding both runs state, in different parts of their reports."""

    text: str
    before: str = Field(description="Where run `before` states it first: 'Key findings', 'Findings by …: heading'.")
    after: str = Field(description="Where run `after` states it first.")


class RunComparison(BaseModel):
    """What changed from run `before` to run `after`."""

    sources_added: list[SourceRecord] = Field(default_factory=list, description="Read in `after` only.")
    sources_removed: list[SourceRecord] = Field(default_factory=list, description="Read in `before` only.")
    sources_kept: int = 0
    findings_added: list[str] = Field(
        default_factory=list, description="Findings `after` states anywhere, `before` nowhere."
    )
    findings_removed: list[str] = Field(
        default_factory=list, description="Findings `before` states anywhere, `after` nowhere."
    )
    findings_moved: list[MovedFinding] = Field(
        default_factory=list, description="Findings of both, first stated in another part of the report."
    )
    findings_kept: int = Field(default=0, description="Findings of both, moved ones included.")


def _read_sources(state: Mapping[str, Any]) -> dict[str, SourceRecord]:
    sources: Mapping[str, SourceRecord] = state.get("sources", {})
    return {s.locator: s for s in sources.values() if s.status is SourceStatus.READ}


def _findings(state: Mapping[str, Any]) -> dict[str, str]:
    """Each finding's text (whitespace aside) -> the part of the report that states it first, in report order."""
    report: ResearchReport | None = state.get("report")
    found: dict[str, str] = {}
    if report is not None:
        for part, finding in report.findings():
            found.setdefault(" ".join(finding.text.split()), part)
    return found


def compare_runs(before: Mapping[str, Any], after: Mapping[str, Any]) -> RunComparison:
    """Sources compared by locator, findings by their text (whitespace aside) wherever the report states them, each
    in its run's order. A finding both runs state is kept; it has moved when each run states it first in another
    part of its report (the key findings of one, a sub-question's findings of the other), and is not added."""
    old_sources, new_sources = _read_sources(before), _read_sources(after)
    old_findings, new_findings = _findings(before), _findings(after)
    both = [text for text in new_findings if text in old_findings]
    return RunComparison(
        sources_added=[s for locator, s in new_sources.items() if locator not in old_sources],
        sources_removed=[s for locator, s in old_sources.items() if locator not in new_sources],
        sources_kept=len(old_sources.keys() & new_sources.keys()),
        findings_added=[text for text in new_findings if text not in old_findings],
        findings_removed=[text for text in old_findings if text not in new_findings],
        findings_moved=[
            MovedFinding(text=text, before=old_findings[text], after=new_findings[text])
            for text in both
            if old_findings[text] != new_findings[text]
        ],
        findings_kept=len(both),
    )
