"""History's helpers: which runs are of the same question, and how a comparison reads."""

from __future__ import annotations

from pathlib import Path

from research_assistant.context import CitationStyle, Context, Depth
from research_assistant.page.app import corpus_roots
from research_assistant.page.history import comparable, comparison_lines, history_caption, question_key
from research_assistant.runs.compare import MovedFinding, RunComparison
from research_assistant.runs.records import RunMetrics, RunRecord, RunStatus
from research_assistant.schemas import SourceRecord


def record(run_id: str, question: str, report: str = "# R", **fields: object) -> RunRecord:
    parameters = Context(
        depth=Depth.QUICK, source_types=["local"], citation_style=CitationStyle.NUMERIC, max_seconds=60
    )
    values: dict[str, object] = {"status": RunStatus.COMPLETED, **fields}
    return RunRecord.model_validate(
        {
            "run_id": run_id,
            "question": question,
            "parameters": parameters,
            "started_at": 0.0,
            "updated_at": 0.0,
            "report_markdown": report,
            **values,
        }
    )


def test_questions_match_whatever_their_case_spacing_and_closing_punctuation() -> None:
    assert (
        question_key("  What is the  Tram fare? ") == question_key("what is the tram fare") == "what is the tram fare"
    )
    assert question_key("What is the tram fare?!") != question_key("What is the bus fare?")


def test_only_other_runs_of_the_same_question_with_a_report_are_comparable() -> None:
    shown = record("a", "What is the fare?")
    others = [
        shown,
        record("b", "what is the fare"),
        record("c", "What is the fare?", report=""),
        record("d", "What is the bus fare?"),
    ]
    assert [r.run_id for r in comparable(shown, others)] == ["b"]


def test_the_caption_says_when_a_run_waits_for_its_plan_review() -> None:
    waiting = record("a", "Q", status=RunStatus.INTERRUPTED, waiting="plan review")
    assert " · waiting for plan review · quick, local, 60 s limit" in history_caption(waiting)
    assert " · completed · " in history_caption(record("b", "Q", metrics=RunMetrics(evidence=3)))


def test_a_report_written_on_no_evidence_is_not_called_merely_completed() -> None:
    assert " · completed without findings · " in history_caption(record("a", "Q", metrics=RunMetrics(evidence=0)))
    assert " · completed · " in history_caption(record("b", "Q", metrics=RunMetrics(evidence=1)))
    gathered = record("c", "Q", metrics=RunMetrics(evidence=2))
    assert " · completed without findings · " in history_caption(gathered, findings=False), "none could be cited"
    assert " · completed · " in history_caption(gathered, findings=True)


def test_a_comparison_lists_what_was_added_and_removed_safely() -> None:
    added = SourceRecord(id="S1", locator="https://example.org/new", title="New *page*", provider="tavily")
    removed = SourceRecord(id="S2", locator="/corpus/old.md", title="Old", provider="local")
    comparison = RunComparison(
        sources_added=[added],
        sources_removed=[removed],
        sources_kept=2,
        findings_added=["Fares rose to [2.80](javascript:x)"],
        findings_removed=[],
        findings_moved=[
            MovedFinding(text="Opened in *1911*", before="Key findings", after="Findings by sub-question: When?")
        ],
        findings_kept=2,
    )
    assert comparison_lines(comparison, [Path("/corpus")]) == [
        "**Sources**: 1 added, 1 removed, 2 in both",
        "- ➕ added: New \\*page\\* <https://example.org/new>",
        "- ➖ removed: Old `old.md`",
        "**Findings**: 1 added, 0 removed, 2 in both (1 moved)",
        "- ➕ added: Fares rose to \\[2.80\\]\\(javascript:x)",
        "- ↕ moved: Opened in \\*1911\\* (from Key findings to Findings by sub-question: When?)",
    ]


def test_a_corpus_with_uploads_has_the_linked_folder_among_its_roots(tmp_path: Path) -> None:
    base = tmp_path / "docs"
    (base / "sub").mkdir(parents=True)
    (base / "sub" / "a.md").write_text("a", encoding="utf-8")
    merged = tmp_path / "merged"
    (merged / "folder" / "sub").mkdir(parents=True)
    (merged / "folder" / "sub" / "a.md").symlink_to(base / "sub" / "a.md")
    assert corpus_roots(str(merged)) == [merged.resolve(), base.resolve()]
    assert corpus_roots(str(base)) == [base.resolve()]
    assert corpus_roots(None) == []
