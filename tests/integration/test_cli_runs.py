"""`runs`, `show`, `trace` and `resume` on the command line: what happened in every past run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.cli import cli
from support.cli import isolated_settings as isolated_settings

from research_assistant.cli import EXIT_NO_EVIDENCE, EXIT_OK, EXIT_USAGE, main
from research_assistant.runs.records import RunStatus
from research_assistant.runs.store import RunStore
from research_assistant.runs.views import parameters_summary

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
QUESTION = "How long is the tram network?"

pytestmark = pytest.mark.usefixtures("isolated_settings")


@pytest.fixture
def finished_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> tuple[str, str]:
    code, report, err = cli(capsys, "run", QUESTION, "--corpus", str(CORPUS), "--depth", "quick")
    assert code == EXIT_OK, err
    [run_id] = [r.run_id for r in RunStore.at(tmp_path / "db").recent()]
    assert f"[run] started {run_id}" in err
    return run_id, report


def test_runs_lists_past_runs_newest_first(capsys: pytest.CaptureFixture[str], finished_run: tuple[str, str]) -> None:
    run_id, _ = finished_run
    code, out, _ = cli(capsys, "runs")
    assert code == EXIT_OK
    header, row = out.splitlines()
    assert header.split()[:2] == ["RUN", "STATUS"]
    assert row.split()[:2] == [run_id, "completed"] and QUESTION in row and "quick, local" in row


def test_runs_with_no_runs_says_how_to_start_one(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "runs")
    assert code == EXIT_OK and "No runs yet" in out


def test_show_prints_the_parameters_metrics_and_report(
    capsys: pytest.CaptureFixture[str], finished_run: tuple[str, str]
) -> None:
    run_id, report = finished_run
    code, out, _ = cli(capsys, "show", run_id[:6])
    assert code == EXIT_OK
    head, _, body = out.partition("\n\n")
    assert head.splitlines()[0] == f"Run {run_id}: completed"
    assert f"Question:     {QUESTION}" in head and "Evidence:" in head and "Time:" in head
    assert body == report


def test_trace_prints_every_event_as_a_json_line(
    capsys: pytest.CaptureFixture[str], finished_run: tuple[str, str]
) -> None:
    run_id, _ = finished_run
    code, out, _ = cli(capsys, "trace", run_id)
    events = [json.loads(line) for line in out.splitlines()]
    assert code == EXIT_OK and [e["seq"] for e in events] == list(range(len(events)))
    assert events[0]["kind"] == "run_start" and events[-1]["kind"] == "run_end"
    assert {e["node"] for e in events if e["kind"] == "node_end"} >= {"analyze_query", "browse", "synthesize"}
    assert all(e["source"]["outcome"] == "read" for e in events if e["kind"] == "source")


def test_an_unfinished_run_shows_its_state_so_far_and_can_be_finished(
    capsys: pytest.CaptureFixture[str], finished_run: tuple[str, str], tmp_path: Path
) -> None:
    run_id, _ = finished_run
    store = RunStore.at(tmp_path / "db")
    record = store.get(run_id)
    assert record is not None
    store.save(record.model_copy(update={"status": RunStatus.CANCELLED, "report_markdown": ""}))

    code, out, _ = cli(capsys, "show", run_id)
    assert code == EXIT_OK and f"Run {run_id}: cancelled" in out
    assert f"`research-assistant resume {run_id}`" in out and "State so far:" in out and "evidence items" in out

    code, out, err = cli(capsys, "resume", run_id, "--finish")
    assert code == EXIT_OK, err
    assert out.startswith("# ") and "[run] resumed" in err
    assert store.get(run_id).status is RunStatus.COMPLETED  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("show", "nope"), "no run 'nope'; `research-assistant runs` lists them"),
        (("trace", ""), "no run ''"),
        (("resume", "nope"), "no run 'nope'"),
    ],
)
def test_an_unknown_run_id_is_one_line(capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str) -> None:
    code, _, err = cli(capsys, *args)
    assert code == EXIT_USAGE and err.count("\n") == 1 and message in err


def test_a_completed_run_is_not_resumed(capsys: pytest.CaptureFixture[str], finished_run: tuple[str, str]) -> None:
    run_id, _ = finished_run
    code, out, err = cli(capsys, "resume", run_id)
    assert code == EXIT_USAGE and out == ""
    assert err == f"research-assistant: error: run {run_id} has completed; `research-assistant show {run_id}` " + (
        "prints its report\n"
    )


def test_an_ambiguous_prefix_names_the_candidates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from research_assistant.context import Context
    from research_assistant.runs.records import RunRecord

    store = RunStore.at(tmp_path / "db")
    parameters = Context(corpus_dir=None)
    for run_id in ("abc111", "abc222"):
        store.save(
            RunRecord(
                run_id=run_id,
                question="q",
                parameters=parameters,
                status=RunStatus.COMPLETED,
                started_at=1.0,
                updated_at=1.0,
            )
        )
    code, _, err = cli(capsys, "show", "abc")
    assert code == EXIT_USAGE and "matches more than one run (abc111, abc222" in err


def test_recency_and_providers_are_run_parameters(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = cli(
        capsys, "run", QUESTION, "--corpus", str(CORPUS), "--depth", "quick", "--recency", "30", "--providers", "arxiv"
    )
    assert code == EXIT_OK, err
    [record] = RunStore.at(tmp_path / "db").recent()
    assert record.parameters.recency_days == 30 and record.parameters.providers == ["arxiv"]
    assert "last 30 days, via arxiv" in parameters_summary(record.parameters)


def test_an_unknown_provider_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["run", QUESTION, "--providers", "tavily,google"])
    assert exit_info.value.code == EXIT_USAGE
    assert "unknown provider google; choose from tavily, exa, wikipedia, arxiv" in capsys.readouterr().err


def test_review_plan_edits_the_plan_in_the_editor_before_research(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    editor = tmp_path / "editor.py"
    plan = "# edited\\nWhen did the tram network open?\\n- tram network opened\\n"
    editor.write_text(f"import sys, pathlib\npathlib.Path(sys.argv[1]).write_text('{plan}')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    monkeypatch.setattr(sys, "stdin", io.StringIO("e\n"))
    code, report, err = cli(capsys, "run", QUESTION, "--corpus", str(CORPUS), "--depth", "quick", "--review-plan")
    assert code == EXIT_OK, err
    assert "Research this plan?" in err and "[review_plan] edited plan: 1 sub-questions, 1 queries" in err
    assert "### When did the tram network open?" in report
    [record] = RunStore.at(tmp_path / "db").recent()
    assert record.status is RunStatus.COMPLETED


def test_review_plan_can_keep_the_run_waiting(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    code, report, err = cli(capsys, "run", QUESTION, "--corpus", str(CORPUS), "--depth", "quick", "--review-plan")
    [record] = RunStore.at(tmp_path / "db").recent()
    assert code == EXIT_OK and report == "" and record.status is RunStatus.INTERRUPTED
    assert f"`research-assistant resume {record.run_id}` researches it as proposed" in err
    code, report, _ = cli(capsys, "resume", record.run_id)
    assert code == EXIT_OK and report.startswith("# ")


def test_a_dead_run_whose_pid_was_given_to_another_process_is_resumed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import subprocess
    import sys

    from research_assistant.context import Context
    from research_assistant.runs.records import RunRecord
    from research_assistant.runs.store import process_start

    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # alive, not the run
    try:
        started = process_start(other.pid)
        if started is None:
            pytest.skip("needs /proc to tell processes apart")
        RunStore.at(tmp_path / "db").save(
            RunRecord(
                run_id="dead1",
                question=QUESTION,
                parameters=Context(corpus_dir=CORPUS, depth="quick"),
                status=RunStatus.RUNNING,
                started_at=1.0,
                updated_at=1.0,
                pid=other.pid,
                pid_started=started - 100,  # the run's process started earlier, and died
            )
        )
        _, out, _ = cli(capsys, "runs")
        assert "dead1" in out and "interrupted" in out.split("dead1")[1].split()[0]
        code, report, err = cli(capsys, "resume", "dead1", "--finish")
    finally:
        other.kill()
        other.wait()
    assert "still running" not in err and code == EXIT_NO_EVIDENCE
    assert report.startswith("# ") and "[run] resumed" in err
