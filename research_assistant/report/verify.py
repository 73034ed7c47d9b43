"""Citation checks before rendering (`verify_report`; the repair after rendering is
`attribution.enforce_quote_citations`), and the rendered report's Sources list read back (`parse_sources`).

Quotes are compared with whitespace normalised (runs of whitespace, including line
breaks and no-break spaces, collapse to one space) and every other character exact:
extraction reflows text but must never change its words or punctuation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from pydantic import Field

from research_assistant.report.citations import parse_locator
from research_assistant.report.quotations import quoted_in
from research_assistant.schemas import (
    Conflict,
    Evidence,
    Finding,
    Record,
    ReportSection,
    ResearchReport,
    SourceRecord,
    SourceStatus,
)
from research_assistant.text.spaces import clip
from research_assistant.text.spaces import collapse as normalize_whitespace


def _short(text: str, limit: int = 60) -> str:
    return clip(normalize_whitespace(text), limit)


class VerificationSummary(Record):
    """What `verify_report` checked and what it took out of the report."""

    checked: int = Field(description="Distinct evidence ids checked.")
    removed: int = Field(description="Distinct evidence ids rejected (unknown, unread source, quote not found).")
    dropped_findings: int = Field(default=0, description="Findings removed: no evidence left, or a misquote.")
    dropped_conflicts: int = Field(default=0, description="Conflicts removed for having fewer than two sides left.")
    misattributed: int = Field(
        default=0, description="Citations taken off a quotation (a verbatim finding) whose source does not hold it."
    )
    reasons: list[str] = Field(default_factory=list, description="One short line per rejection, in report order.")


class _Verifier:
    """Checks each evidence item once and each source's text once."""

    def __init__(
        self,
        evidence: Mapping[str, Evidence],
        sources: Mapping[str, SourceRecord],
        source_text: Callable[[str], str | None],
    ) -> None:
        self._evidence = evidence
        self._sources = sources
        self._source_text = source_text
        self._texts: dict[str, str | None] = {}
        self._verdicts: dict[str, bool] = {}
        self.reasons: list[str] = []
        self.dropped_findings = 0
        self.dropped_conflicts = 0
        self.misattributed = 0

    def text(self, source_id: str) -> str | None:
        if source_id not in self._texts:
            raw = self._source_text(source_id)
            self._texts[source_id] = None if raw is None else normalize_whitespace(raw)
        return self._texts[source_id]

    def _problem(self, evidence_id: str) -> str | None:
        item = self._evidence.get(evidence_id)
        if item is None:
            return f"unknown evidence id {evidence_id!r}"
        source = self._sources.get(item.source_id)
        if source is None:
            return f"evidence {evidence_id}: unknown source {item.source_id!r}"
        if source.status is not SourceStatus.READ:
            return f"evidence {evidence_id}: source {item.source_id} was not read ({source.status.value})"
        quote = normalize_whitespace(item.quote)
        if not quote:
            return f"evidence {evidence_id}: empty quote"
        text = self.text(item.source_id)
        if text is None:
            return f"evidence {evidence_id}: text of source {item.source_id} unavailable"
        if quote not in text:
            return f"evidence {evidence_id}: quote not found in source {item.source_id}: {_short(item.quote)!r}"
        return None

    def evidence_ok(self, evidence_id: str) -> bool:
        if evidence_id not in self._verdicts:
            problem = self._problem(evidence_id)
            self._verdicts[evidence_id] = problem is None
            if problem:
                self.reasons.append(problem)
        return self._verdicts[evidence_id]

    def counts(self) -> tuple[int, int]:
        """(evidence ids checked, evidence ids rejected)."""
        return len(self._verdicts), sum(not ok for ok in self._verdicts.values())

    def _voice(self, finding: Finding) -> Finding | None:
        """The finding with only verified evidence (for a quotation: only evidence whose source holds it)."""
        ids = [eid for eid in dict.fromkeys(finding.evidence_ids) if self.evidence_ok(eid)]
        problem = None
        if not ids:
            problem = "no verified evidence"
        elif finding.verbatim:
            texts = {eid: self.text(self._evidence[eid].source_id) for eid in ids}
            holding = [eid for eid, text in texts.items() if text is not None and quoted_in(finding.text, text)]
            if not holding:
                problem = "quoted text not found in its cited sources"
            elif len(holding) < len(ids):
                self.misattributed += len(ids) - len(holding)
                others = ", ".join(eid for eid in ids if eid not in holding)
                self.reasons.append(f"citation of {others} removed (not in its source): {_short(finding.text)!r}")
                ids = holding
        if problem:
            self.dropped_findings += 1
            self.reasons.append(f"finding dropped ({problem}): {_short(finding.text)!r}")
            return None
        return finding if ids == finding.evidence_ids else finding.model_copy(update={"evidence_ids": ids})

    def finding(self, finding: Finding) -> Finding | None:
        """The finding with only verified evidence, or None when it cannot stand; a consensus finding needs
        two of its voices (itself and the findings that agree with it) left."""
        kept = self._voice(finding)
        if not finding.agreeing:
            return kept
        voices = [voice for voice in (kept, *(self._voice(f) for f in finding.agreeing)) if voice is not None]
        if len(voices) < 2:
            self.dropped_findings += 1
            self.reasons.append(f"consensus dropped (fewer than two sources left): {_short(finding.text)!r}")
            return None
        first, *others = voices
        return first.model_copy(update={"agreeing": others})

    def findings(self, findings: Sequence[Finding]) -> list[Finding]:
        return [kept for kept in (self.finding(f) for f in findings) if kept is not None]

    def conflicts(self, conflicts: Sequence[Conflict]) -> list[Conflict]:
        kept: list[Conflict] = []
        for conflict in conflicts:
            sides = self.findings(conflict.sides)
            if len(sides) < 2:
                self.dropped_conflicts += 1
                self.reasons.append(f"conflict dropped (fewer than two sides left): {_short(conflict.topic)!r}")
                continue
            kept.append(conflict.model_copy(update={"sides": sides}))
        return kept


def verify_report(
    report: ResearchReport,
    evidence: Mapping[str, Evidence],
    sources: Mapping[str, SourceRecord],
    source_text: Callable[[str], str | None],
) -> tuple[ResearchReport, VerificationSummary]:
    """A copy of `report` that cites only evidence quoted from sources that were read.

    A verbatim finding keeps only the evidence whose source holds its text, and a consensus
    finding (one with `agreeing` findings) needs two of its findings left.
    `source_text(source_id)` returns a read source's full text (None when unavailable);
    it is called at most once per source. Sections are kept even when emptied, so the
    reader still sees which sub-questions found nothing.
    """
    verifier = _Verifier(evidence, sources, source_text)
    verified = report.model_copy(
        update={
            "answer": verifier.findings(report.answer),
            "summary": verifier.findings(report.summary),
            "key_findings": verifier.findings(report.key_findings),
            "sections": [
                ReportSection(heading=s.heading, findings=verifier.findings(s.findings)) for s in report.sections
            ],
            "consensus": verifier.findings(report.consensus),
            "conflicts": verifier.conflicts(report.conflicts),
        }
    )
    checked, removed = verifier.counts()
    summary = VerificationSummary(
        checked=checked,
        removed=removed,
        dropped_findings=verifier.dropped_findings,
        dropped_conflicts=verifier.dropped_conflicts,
        misattributed=verifier.misattributed,
        reasons=verifier.reasons,
    )
    return verified, summary


_SOURCES_HEADING = re.compile(r"^## Sources[ \t]*$", re.MULTILINE)
_NEXT_HEADING = re.compile(r"^#{1,2} ", re.MULTILINE)
_ENTRY = re.compile(r"^\[(\d+)\] (.*)$")


def split_sources(markdown: str) -> tuple[str, list[str]]:
    """The body (everything but the Sources section) and the Sources section's lines."""
    heading = _SOURCES_HEADING.search(markdown)
    if heading is None:
        return markdown, []
    after = _NEXT_HEADING.search(markdown, heading.end())
    end = after.start() if after else len(markdown)
    body = markdown[: heading.start()] + markdown[end:]
    return body, markdown[heading.end() : end].splitlines()


def parse_sources(markdown: str) -> dict[int, str]:
    """Citation number -> locator, read back from a rendered report's Sources list."""
    entries = (_ENTRY.match(line) for line in split_sources(markdown)[1])
    located = ((int(entry.group(1)), parse_locator(entry.group(2))) for entry in entries if entry)
    return {number: locator for number, locator in located if locator is not None}
