"""Citation checks before rendering (verify_report) and after (check_rendered_citations)."""

from __future__ import annotations

from research_assistant.context import CitationStyle
from research_assistant.report.render import render_markdown
from research_assistant.report.verify import (
    VerificationSummary,
    check_rendered_citations,
    parse_sources,
    verify_report,
)
from research_assistant.schemas import (
    Conflict,
    Evidence,
    Finding,
    ReportSection,
    ResearchReport,
    SourceRecord,
    SourceStatus,
)

TEXTS = {
    "good": "The library was released in 2021.\nIt supports   streaming\nresponses and retries.",
    "other": "Critics say the library is slow on large inputs.",
    "broken": "The library never worked.",
}
SOURCES = {
    "good": SourceRecord(id="good", locator="/docs/good.md", title="Good", provider="local", status=SourceStatus.READ),
    "other": SourceRecord(
        id="other", locator="https://example.org/other", title="Other", provider="web", status=SourceStatus.READ
    ),
    "broken": SourceRecord(
        id="broken", locator="/docs/broken.pdf", title="Broken", provider="local", status=SourceStatus.FAILED
    ),
}
EVIDENCE = {
    "e1": Evidence(id="e1", claim="released", quote="released in 2021", source_id="good", sub_question_id="q1"),
    "e2": Evidence(
        id="e2", claim="streaming", quote="It supports streaming responses", source_id="good", sub_question_id="q1"
    ),
    "fake": Evidence(id="fake", claim="fast", quote="the fastest library ever", source_id="good", sub_question_id="q1"),
    "dead": Evidence(id="dead", claim="never", quote="never worked", source_id="broken", sub_question_id="q1"),
    "e3": Evidence(id="e3", claim="slow", quote="slow on large inputs", source_id="other", sub_question_id="q1"),
}


def _verify(report: ResearchReport, calls: list[str] | None = None) -> tuple[ResearchReport, VerificationSummary]:
    def text(source_id: str) -> str | None:
        if calls is not None:
            calls.append(source_id)
        return TEXTS.get(source_id)

    return verify_report(report, EVIDENCE, SOURCES, text)


def _report(**fields: object) -> ResearchReport:
    return ResearchReport.model_validate({"title": "T", "question": "Q?", **fields})


def test_fabricated_quote_and_failed_source_are_removed_and_counted() -> None:
    report = _report(
        key_findings=[
            Finding(text="Released in 2021, and fast", evidence_ids=["e1", "fake"]),
            Finding(text="It never worked", evidence_ids=["dead"]),
            Finding(text="Streams (whitespace differs)", evidence_ids=["e2"]),
        ]
    )
    calls: list[str] = []
    verified, summary = _verify(report, calls)
    assert [f.evidence_ids for f in verified.key_findings] == [["e1"], ["e2"]]
    assert summary.checked == 4
    assert summary.removed == 2
    assert summary.dropped_findings == 1
    assert not summary.clean
    assert any("fake" in r and "quote not found" in r for r in summary.reasons)
    assert any("dead" in r and "not read (failed)" in r for r in summary.reasons)
    assert calls == ["good"]  # the failed source's text is never asked for; each text once
    assert report.key_findings[0].evidence_ids == ["e1", "fake"]  # the input is untouched


def test_unknown_evidence_and_misquoted_verbatim_findings_are_dropped() -> None:
    report = _report(
        summary=[
            Finding(text="released in 2021.", evidence_ids=["e1"], verbatim=True),
            Finding(text="released in 2022.", evidence_ids=["e1"], verbatim=True),
            Finding(text="made up", evidence_ids=["ghost"]),
        ],
        sections=[ReportSection(heading="Empty", findings=[Finding(text="x", evidence_ids=["ghost"])])],
    )
    verified, summary = _verify(report)
    assert [f.text for f in verified.summary] == ["released in 2021."]
    assert verified.sections == [ReportSection(heading="Empty", findings=[])]
    assert summary.removed == 1 and summary.dropped_findings == 3
    assert any("ghost" in r for r in summary.reasons)


def test_conflicts_need_two_sides_left() -> None:
    kept = Conflict(
        topic="Speed", sides=[Finding(text="a", evidence_ids=["e1"]), Finding(text="b", evidence_ids=["e3"])]
    )
    lost = Conflict(
        topic="Life", sides=[Finding(text="a", evidence_ids=["e1"]), Finding(text="b", evidence_ids=["dead"])]
    )
    verified, summary = _verify(_report(conflicts=[kept, lost]))
    assert verified.conflicts == [kept]
    assert summary.dropped_conflicts == 1


def test_clean_report_passes_unchanged() -> None:
    report = _report(key_findings=[Finding(text="ok", evidence_ids=["e1", "e3"])])
    verified, summary = _verify(report)
    assert verified == report
    assert summary.clean and summary.checked == 2


def test_verified_report_renders_with_honest_citations() -> None:
    report = _report(
        summary=[Finding(text="It supports streaming\nresponses", evidence_ids=["e2", "fake"], verbatim=True)],
        key_findings=[Finding(text="slow on large inputs", evidence_ids=["e3", "dead"], verbatim=True)],
    )
    verified, _ = _verify(report)
    for style in CitationStyle:
        markdown = render_markdown(verified, SOURCES, EVIDENCE, style)
        assert parse_sources(markdown) == {1: "/docs/good.md", 2: "https://example.org/other"}
        texts = {SOURCES[sid].locator: TEXTS[sid] for sid in SOURCES}
        assert check_rendered_citations(markdown, texts) == []
    # without verification the fabricated quote reaches the Sources list, and the checker sees it
    unverified = render_markdown(report, SOURCES, EVIDENCE, CitationStyle.NUMERIC)
    problems = check_rendered_citations(unverified, {SOURCES[sid].locator: TEXTS[sid] for sid in SOURCES})
    assert any("the fastest library ever" in p for p in problems)


MARKDOWN = """# T

**Question:** Q?

## Summary

\u201cIt supports streaming responses\u201d [1] and \u201cslow on large inputs\u201d [1][2].

## Key findings

1. Something [3]

## Sources

[1] Good. `/docs/good.md`. _(local document)_
  - \u201creleased in 2021\u201d

[2] Other. <https://example.org/other>. _(web page)_

## About this report

- Depth: quick
"""


def test_checker_catches_dangling_citation_and_misquote() -> None:
    texts = {"/docs/good.md": TEXTS["good"], "https://example.org/other": TEXTS["other"]}
    problems = check_rendered_citations(MARKDOWN, texts)
    assert problems == ["citation [3] has no entry in Sources"]

    misquoted = MARKDOWN.replace("\u201cIt supports streaming", "\u201cIt supports fast streaming")
    problems = check_rendered_citations(misquoted, texts)
    assert len(problems) == 2 and "not found in [1]" in problems[1]

    wrong_source = MARKDOWN.replace("[1][2]", "[1]")
    assert any("slow on large inputs" in p for p in check_rendered_citations(wrong_source, texts))


def test_checker_unescapes_before_comparing_and_reports_missing_text() -> None:
    markdown = "Body \u201ca \\*b\\* \\[c\\] &#8220;d&#8221;\u201d [1]\n\n## Sources\n\n[1] X. `/x.txt`.\n"
    assert check_rendered_citations(markdown, {"/x.txt": "a *b* [c] \u201cd\u201d"}) == []
    assert check_rendered_citations(markdown, {"/x.txt": "a \\*b\\* [c] d"}) != []
    assert check_rendered_citations(markdown, {}) == ["no text for source [1] (/x.txt)"]
