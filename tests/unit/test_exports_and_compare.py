"""The JSON and CSV exports of a run, and the comparison of two runs of one question."""

from __future__ import annotations

import csv
import io
import json

from research_assistant.report.exports import EVIDENCE_COLUMNS, evidence_csv, run_json
from research_assistant.runs.compare import compare_runs
from research_assistant.schemas import Evidence, Finding, ReportSection, ResearchReport, SourceRecord, SourceStatus

FARES = SourceRecord(id="s1", locator="/c/fares.md", title="Fares", provider="local", status=SourceStatus.READ)
DEPOT = SourceRecord(id="s2", locator="/c/depot.md", title="Depot", provider="local", status=SourceStatus.READ)
SKIPPED = SourceRecord(id="s3", locator="/c/x.md", title="X", provider="local", status=SourceStatus.FOUND)
QUOTE = 'A fare costs "2.40", with a comma, and\na new line.'
EVIDENCE = Evidence(id="E1", claim="A fare costs 2.40", quote=QUOTE, source_id="s1", sub_question_id="q1")


def report(*findings: str) -> ResearchReport:
    return ResearchReport(
        title="T", question="Q", key_findings=[Finding(text=text, evidence_ids=["E1"]) for text in findings]
    )


def test_the_json_export_is_the_state_without_bodies_plus_what_is_asked() -> None:
    state = {
        "question": "Q",
        "sources": {"s1": FARES},
        "evidence": {"E1": EVIDENCE},
        "report": report("A fare costs 2.40"),
        "report_markdown": "# T",
        "pending_queries": ["internal"],
    }
    document = json.loads(run_json(state, {"parameters": {"depth": "quick"}}))
    assert document["sources"]["s1"]["locator"] == "/c/fares.md" and document["evidence"]["E1"]["quote"] == QUOTE
    assert document["report"]["key_findings"][0]["text"] == "A fare costs 2.40"
    assert document["parameters"] == {"depth": "quick"} and "pending_queries" not in document
    assert "text" not in document["sources"]["s1"]  # records only: no page bodies


def test_the_csv_export_has_one_row_per_evidence_item_with_its_source() -> None:
    orphan = EVIDENCE.model_copy(update={"id": "E2", "source_id": "gone"})
    rows = list(csv.reader(io.StringIO(evidence_csv({"E1": EVIDENCE, "E2": orphan}, {"s1": FARES}))))
    assert rows[0] == list(EVIDENCE_COLUMNS)
    assert rows[1] == ["E1", "q1", "A fare costs 2.40", QUOTE, "s1", "Fares", "/c/fares.md"]
    assert rows[2][-2:] == ["", ""]


def test_comparing_runs_lists_sources_and_findings_added_and_removed() -> None:
    before = {"sources": {"s1": FARES, "s3": SKIPPED}, "report": report("Fares are 2.40", "Opened  in 1911")}
    after = {"sources": {"s1": FARES, "s2": DEPOT}, "report": report("Opened in 1911", "The depot has 42 trams")}
    change = compare_runs(before, after)
    assert [s.locator for s in change.sources_added] == ["/c/depot.md"]
    assert change.sources_removed == [] and change.sources_kept == 1  # a source found but not read does not count
    assert change.findings_added == ["The depot has 42 trams"] and change.findings_removed == ["Fares are 2.40"]
    assert change.findings_kept == 1
    assert compare_runs(after, {}).sources_removed == [FARES, DEPOT]


def test_a_finding_that_only_moved_section_is_moved_not_added() -> None:
    before = {"report": report("Fares are 2.40", "Opened in 1911")}
    opened = Finding(text="Opened  in 1911", evidence_ids=["E1"])
    section = ReportSection(heading="When did it open?", findings=[opened])
    after = {"report": report("Fares are 2.40").model_copy(update={"sections": [section]})}
    change = compare_runs(before, after)
    assert change.findings_added == [] and change.findings_removed == []
    assert [(m.text, m.before, m.after) for m in change.findings_moved] == [
        ("Opened in 1911", "Key findings", "Findings by sub-question: When did it open?")
    ]
    assert change.findings_kept == 2
    both = {"report": report("Fares are 2.40", "Opened in 1911").model_copy(update={"sections": [section]})}
    assert compare_runs(before, both).findings_moved == [], "still first stated among the key findings: not moved"


def test_exports_can_be_scrubbed_of_keys() -> None:
    from research_assistant.report.exports import redact

    text = run_json({"question": "Why is AIza-secret-123 in here?"})
    assert "AIza-secret-123" not in redact(text, ["AIza-secret-123", "abc"]) and "[redacted]" in redact(
        text, ["AIza-secret-123"]
    )
    assert redact("abc stays: too short to be a key", ["abc"]) == "abc stays: too short to be a key"
