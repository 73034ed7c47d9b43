"""A small rendered report, with hostile and non-Latin text, for the export tests."""

from __future__ import annotations

from typing import Any

from research_assistant.context import CitationStyle
from research_assistant.report.render import render_report
from research_assistant.schemas import Evidence, Finding, ReportSection, ResearchReport, SourceRecord, SourceStatus

CORPUS = "/srv/research/corpus"
SOURCES = {
    "a": SourceRecord(
        id="a",
        locator=f"{CORPUS}/notes/gc.md",
        title="Garbage collection — Ωμέγα notes",
        provider="local",
        status=SourceStatus.READ,
    ),
    "b": SourceRecord(
        id="b",
        locator="https://docs.example.org/gc?x=1",
        title="The gc module <script>",
        provider="web",
        status=SourceStatus.READ,
        published="2024-03-05",
        accessed_at="2026-11-21T10:00:00",
    ),
    "c": SourceRecord(
        id="c", locator=f"{CORPUS}/unused.md", title="Read, never cited", provider="local", status=SourceStatus.READ
    ),
    "d": SourceRecord(
        id="d",
        locator="https://down.example.org/",
        title="Down",
        provider="web",
        status=SourceStatus.FAILED,
        reason="HTTP 503",
    ),
}
EVIDENCE = {
    "e1": Evidence(
        id="e1", claim="cycles", quote="The collector finds reference cycles", source_id="a", sub_question_id="q1"
    ),
    "e2": Evidence(
        id="e2", claim="unicode", quote="Сборщик мусора 垃圾回收 works", source_id="b", sub_question_id="q1"
    ),
}
REPORT = ResearchReport.model_validate(
    {
        "title": "How Python reclaims cycles",
        "question": "How does Python reclaim reference cycles?",
        "key_findings": [
            Finding(text="The collector finds reference cycles", evidence_ids=["e1"], verbatim=True),
            Finding(text="Сборщик мусора 垃圾回收 works", evidence_ids=["e2"], verbatim=True),
        ],
        "sections": [
            ReportSection(heading="Cycles", findings=[Finding(text="It is generational", evidence_ids=["e1"])])
        ],
    }
)


def report_markdown(style: CitationStyle = CitationStyle.NUMERIC) -> str:
    return render_report(REPORT, SOURCES, EVIDENCE, style).markdown


def run_state(style: CitationStyle = CitationStyle.NUMERIC) -> dict[str, Any]:
    return {
        "run_id": "run1",
        "question": REPORT.question,
        "sources": SOURCES,
        "evidence": EVIDENCE,
        "report": REPORT,
        "report_markdown": report_markdown(style),
    }
