"""The report view's helpers: sections, citation links, warnings, figures, source cards and downloads."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from support.exports import exports

from research_assistant.context import CitationStyle, Context, Depth
from research_assistant.page.report_view import (
    MAX_FIGURES,
    early_stop,
    evaluation_of,
    figures,
    figures_note,
    link_citations,
    split_report,
    unverified,
    warnings,
)
from research_assistant.page.sources_view import (
    card_lines,
    cited_evidence,
    failed_line,
    failed_sources,
    has_findings,
    source_cards,
)
from research_assistant.report.render import render_report
from research_assistant.runs.records import RunMetrics, RunRecord, RunStatus
from research_assistant.schemas import (
    Credibility,
    Evidence,
    Finding,
    ModelUsage,
    Notice,
    ReportEvaluation,
    ReportSection,
    ResearchReport,
    RoleUsage,
    SourceCategory,
    SourceRecord,
    SourceStatus,
    SourceType,
)

WEB = SourceRecord(
    id="S1",
    locator="https://www.example.org/fares?x=1",
    title="Fares *and* [tickets](javascript:alert(1))",
    provider="tavily",
    source_type=SourceType.WEB,
    status=SourceStatus.READ,
    published="2024-03-05T10:00:00Z",
    author="Ada Lane",
    accessed_at="2026-11-21T10:00:00+00:00",
    access_method="http",
    chars=1234,
    credibility=Credibility(category=SourceCategory.OFFICIAL, score=0.9, reasons=["official domain"]),
)
LOCAL = SourceRecord(id="S2", locator="/corpus/history.md", title="History", provider="local", status=SourceStatus.READ)
FAILED = SourceRecord(
    id="S3",
    locator="https://dead.example/x",
    title="Gone <b>",
    provider="tavily",
    status=SourceStatus.FAILED,
    reason="HTTP 404",
)
EVIDENCE = {
    "E1": Evidence(id="E1", claim="c", quote="A fare  costs 2.40 euros", source_id="S1", sub_question_id="q1"),
    "E2": Evidence(id="E2", claim="c", quote="It opened in 1911", source_id="S2", sub_question_id="q1"),
    "E3": Evidence(id="E3", claim="c", quote="Not cited", source_id="S1", sub_question_id="q1"),
}
REPORT = ResearchReport(
    title="Trams",
    question="What is the fare?",
    key_findings=[Finding(text="A fare costs 2.40 euros", evidence_ids=["E1"], verbatim=True)],
    sections=[ReportSection(heading="Fares", findings=[Finding(text="It opened in 1911", evidence_ids=["E2"])])],
)
SOURCES = {"S1": WEB, "S2": LOCAL, "S3": FAILED}
RENDERED = render_report(REPORT, SOURCES, EVIDENCE, CitationStyle.NUMERIC)
MARKDOWN = RENDERED.markdown
STATE = {
    "sources": SOURCES,
    "evidence": EVIDENCE,
    "report": REPORT,
    "cited_sources": RENDERED.cited,
    "notices": [],
    "run_id": "r1",
    "question": "Q",
}


def test_the_report_splits_into_its_sections() -> None:
    parts = split_report(MARKDOWN)
    assert parts.head == "# Trams\n\n**Question:** What is the fare?"
    headings = [heading for heading, _ in parts.sections]
    assert headings == [
        "Summary",
        "Key findings",
        "Findings by sub-question",
        "Gaps",
        "Caveats",
        "Sources",
        "Sources that could not be read",
    ]
    assert dict(parts.sections)["Key findings"] == "1. “A fare costs 2.40 euros” [1]"
    assert split_report("no sections").sections == []


def test_citations_become_links_to_their_cards_and_nothing_else_does() -> None:
    text = "“A fare” [1][2] and [3]; literal \\[1\\] and a [1](http://x) link"
    assert link_citations(text, {1, 2}) == (
        "“A fare” [\\[1\\]](#source-1)[\\[2\\]](#source-2) and [3]; literal \\[1\\] and a [1](http://x) link"
    )


def test_the_warnings_name_an_early_stop_and_the_runs_warnings_once() -> None:
    assert early_stop("time limit reached (60 s)") and early_stop("stopped on request")
    assert not early_stop("confidence 82 reached the threshold of 75") and not early_stop(None)
    notices = [
        Notice(message="2 of 5 citations did not check out and were removed"),
        Notice(level="info", message="fake provider ready"),
        Notice(message="2 of 5 citations did not check out and were removed"),
        Notice(message="Exa failed: *boom*"),
    ]
    assert warnings({"notices": notices}, "time limit reached (60 s)") == [
        "Research stopped early: time limit reached (60 s). The report covers what was gathered.",
        "2 of 5 citations did not check out and were removed (repeated 2 times)",
        "Exa failed: \\*boom\\*",
    ]
    stopped = [Notice(message="Research stopped early: stopped on request. The report covers it.")]
    assert warnings({"notices": stopped, "stop_reason": "stopped on request"}, None) == [
        "Research stopped early: stopped on request. The report covers it."
    ]
    assert warnings({}, "confidence reached") == []


def test_statements_marked_unverified_are_counted_and_warned_of() -> None:
    marked = Finding(text="Fares doubled [unverified]", evidence_ids=["E1"])
    report = REPORT.model_copy(update={"summary": [marked], "key_findings": [*REPORT.key_findings, marked]})
    assert unverified(REPORT) == 0 and unverified(None) == 0
    assert unverified(report) == 2
    assert warnings({"report": report}, None) == [
        "2 statements are not clearly supported by their evidence: see \\[unverified\\]."
    ]


def test_the_judges_evaluation_is_shown_only_when_the_run_has_one() -> None:
    assert evaluation_of(STATE) is None and evaluation_of(STATE, RunMetrics()) is None
    judged = ReportEvaluation(
        relevance=0.9, accuracy=0.8, completeness=0.5, source_quality=0.7, strengths=["cited"], weaknesses=["thin"]
    )
    assert evaluation_of({**STATE, "evaluation": judged}) == judged
    assert evaluation_of({}, RunMetrics(evaluation=judged)) == judged, "or from the run's metrics"


def test_the_figures_fit_one_row_and_the_rest_is_one_line() -> None:
    metrics = RunMetrics(sources_read=3, pages_failed=1, evidence=5, confidence=[60, 82.4], elapsed_seconds=2.04)
    assert figures(metrics) == [
        ("Confidence", "82/100"),
        ("Sources read", "3"),
        ("Failed", "1"),
        ("Evidence", "5"),
        ("Time", "2.0 s"),
    ]
    assert figures_note(metrics) == "2 research rounds", "no model, no tokens"
    metrics.usage = ModelUsage(roles={"synthesis": RoleUsage(input_tokens=1000, output_tokens=500, cost_usd=0.02)})
    assert len(figures(metrics)) == MAX_FIGURES, "a model's tokens and cost do not widen the row…"
    assert figures_note(metrics) == "2 research rounds · 1,500 model tokens · $0.0200", "…they are said below it"
    assert figures_note(RunMetrics()) == ""


def test_a_card_per_cited_source_with_the_passages_the_report_quotes() -> None:
    assert cited_evidence(REPORT) == ["E1", "E2"]
    cards = source_cards(STATE, CitationStyle.NUMERIC)
    assert [(card.number, card.source.id, card.quotes) for card in cards] == [
        (1, "S1", ("A fare costs 2.40 euros",)),
        (2, "S2", ("It opened in 1911",)),
    ]
    assert source_cards({}, CitationStyle.NUMERIC, MARKDOWN) == [], "no state, no cards"


def test_cards_are_numbered_as_the_renderer_numbered_them_not_as_the_markdown_says() -> None:
    swapped = {**STATE, "cited_sources": ["S2", "S1"]}
    assert [(card.number, card.source.id) for card in source_cards(swapped, CitationStyle.NUMERIC, MARKDOWN)] == [
        (1, "S2"),
        (2, "S1"),
    ], "the state's numbering, not the report's Sources list"
    assert source_cards({**STATE, "cited_sources": []}, CitationStyle.NUMERIC, MARKDOWN) == [], "it cites nothing"
    legacy = {key: value for key, value in STATE.items() if key != "cited_sources"}
    assert [card.source.id for card in source_cards(legacy, CitationStyle.NUMERIC, MARKDOWN)] == ["S1", "S2"], (
        "a run saved before its state carried the numbering: read from its Sources list"
    )


def test_the_cited_evidence_follows_the_order_of_the_report() -> None:
    consensus = Finding(text="Fares rose", evidence_ids=["E4"], agreeing=[Finding(text="Up", evidence_ids=["E5"])])
    report = REPORT.model_copy(update={"answer": [Finding(text="2.40", evidence_ids=["E3"])], "consensus": [consensus]})

    assert cited_evidence(report) == ["E3", "E1", "E2", "E4", "E5"], "answer, key findings, sections, then consensus"


def test_a_report_has_findings_only_when_it_cites_a_source() -> None:
    assert has_findings(STATE) is True
    assert has_findings({**STATE, "cited_sources": []}) is False, "its findings lost their sources"
    assert has_findings({"report": REPORT.model_copy(update={"key_findings": [], "sections": []})}) is False
    assert has_findings({}) is None, "no report: not known"


def test_a_card_shows_what_is_known_of_its_source_safely(tmp_path: Path) -> None:
    web, local = source_cards(STATE, CitationStyle.NUMERIC)
    lines = card_lines(web, [])
    assert lines[0].startswith("Fares \\*and\\* tickets"), "first, its Sources entry, in the run's style"
    assert lines[1:] == [
        "example.org · web page · published 2024-03-05 · by Ada Lane · credibility 0.90 (official)",
        "<https://www.example.org/fares?x=1> · read via http on 2026-11-21, 1,234 characters",
        "- “A fare costs 2.40 euros”",
    ]
    local_lines = card_lines(local, [Path("/corpus")])
    assert "`history.md`" in local_lines[0] and "/corpus" not in local_lines[0], "relative to the documents folder"
    assert local_lines[1:3] == [
        "local file · local document · undated",
        "`history.md` · read",
    ]


def test_the_citation_style_shows_on_the_cards() -> None:
    state = dict(STATE)
    entries = {style: source_cards(state, style)[0].entry for style in CitationStyle}
    numeric = render_report(REPORT, state["sources"], state["evidence"], CitationStyle.NUMERIC).markdown
    assert f"[1] {entries[CitationStyle.NUMERIC]}" in numeric.splitlines(), "the card shows the report's entry"
    assert len(set(entries.values())) == 3, "numeric, APA and MLA entries differ"
    assert "Retrieved" in entries[CitationStyle.APA] and "Accessed 21 Nov. 2026" in entries[CitationStyle.MLA]


def test_failed_sources_are_listed_with_their_reason() -> None:
    assert failed_sources(STATE) == [FAILED]
    assert failed_line(FAILED, []) == "- Gone \\<b\\>: <https://dead.example/x> (HTTP 404)"


def run_record(report_markdown: str = MARKDOWN) -> RunRecord:
    return RunRecord(
        run_id="r1",
        question="Q",
        parameters=Context(
            depth=Depth.QUICK, source_types=["local"], citation_style=CitationStyle.NUMERIC, max_seconds=60
        ),
        status=RunStatus.COMPLETED,
        started_at=0.0,
        updated_at=0.0,
        report_markdown=report_markdown,
        metrics=RunMetrics(evidence=3),
    )


def test_a_run_downloads_as_markdown_json_and_csv() -> None:
    found = {export.label: export for export in exports(run_record(), STATE)}
    assert list(found) == ["Report (Markdown)", "Report (PDF)", "Report (Word)", "Run (JSON)", "Evidence (CSV)"]
    assert found["Report (Markdown)"].data.decode() == MARKDOWN
    assert found["Report (Markdown)"].file_name == "report-r1.md"
    assert found["Report (PDF)"].data.startswith(b"%PDF") and found["Report (Word)"].file_name == "report-r1.docx"
    document = json.loads(found["Run (JSON)"].data)
    assert document["parameters"]["depth"] == "quick" and document["metrics"]["evidence"] == 3
    assert document["status"] == "completed" and set(document["sources"]) == {"S1", "S2", "S3"}
    rows = list(csv.DictReader(io.StringIO(found["Evidence (CSV)"].data.decode())))
    assert [(row["evidence_id"], row["locator"]) for row in rows] == [
        ("E1", WEB.locator),
        ("E2", LOCAL.locator),
        ("E3", WEB.locator),
    ]
    assert found["Evidence (CSV)"].mime == "text/csv" and found["Run (JSON)"].mime == "application/json"


def test_a_run_without_a_report_or_a_checkpoint_offers_what_it_has() -> None:
    assert [export.label for export in exports(run_record(""), STATE)] == ["Run (JSON)", "Evidence (CSV)"]
    assert [export.label for export in exports(run_record(), {})] == [
        "Report (Markdown)",
        "Report (PDF)",
        "Report (Word)",
    ]
    paused = {**STATE, "evidence": {}}
    assert [export.label for export in exports(run_record(""), paused)] == ["Run (JSON)"], "no evidence, no CSV"
    assert exports(run_record(""), {}) == []


def test_the_pdf_and_word_exports_link_citations_by_the_renderers_numbering() -> None:
    from research_assistant.report.document import report_blocks
    from research_assistant.report.exports import cited_numbers

    assert cited_numbers(STATE) == range(1, 3)
    assert cited_numbers({"sources": SOURCES}) is None, "a run saved before its state carried the numbering"
    linked = [span.source for block in report_blocks(MARKDOWN, cited_numbers(STATE)) for span in block.spans]
    assert {1, 2} <= set(linked)
    only_first = [span.source for block in report_blocks(MARKDOWN, range(1, 2)) for span in block.spans]
    assert 2 not in only_first, "a number the renderer did not give links nowhere"
