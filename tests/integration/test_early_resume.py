"""A run stopped before its first step (cancelled, killed, or out of time at once) can still be resumed or
finished: the run store keeps its question, and the runner starts the graph again from it. Real repository,
checkpoints and run store, over a copy of the sample corpus."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.fakes import FakeReasoner, fake_context, fake_services

from research_assistant.cli import EXIT_NO_EVIDENCE, EXIT_OK, EXIT_USAGE, main
from research_assistant.context import Context, Depth
from research_assistant.graph import build_graph
from research_assistant.runner import resume_research, run_research, saved_state
from research_assistant.runs.checkpoints import open_checkpointer
from research_assistant.runs.records import EventKind, RunRecord, RunStatus, TraceEvent
from research_assistant.runs.store import RunStore
from research_assistant.settings import get_settings

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How does Python manage memory and reclaim reference cycles?"

pytestmark = pytest.mark.slow


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "python-memory"
    shutil.copytree(ROOT / "examples" / "python-memory", folder)
    return folder


@pytest.fixture
def settings_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The CLI's settings point at this test's repository and cache, offline."""
    env = {
        "RESEARCH_DB_DIR": str(tmp_path / "db"),
        "RESEARCH_CACHE_DIR": str(tmp_path / "cache"),
        "RESEARCH_REASONER": "extractive",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("RESEARCH_CORPUS_DIR", raising=False)
    get_settings.cache_clear()
    yield {**os.environ, **env}
    get_settings.cache_clear()


def real_context(tmp_path: Path, corpus: Path) -> Context:
    return Context(
        depth=Depth.QUICK,
        source_types=["local"],
        corpus_dir=corpus,
        db_dir=tmp_path / "db",
        cache_dir=tmp_path / "cache",
    )


async def cancel_at_start(context: Context, run_id: str) -> None:
    """Start a run and cancel it as soon as it has said `started`, before the graph takes its first step."""
    task: asyncio.Task[object] | None = None

    def on_event(event: TraceEvent) -> None:
        if event.kind is EventKind.RUN_START and task is not None:
            task.cancel()

    task = asyncio.create_task(run_research(QUESTION, context, on_event, run_id=run_id))
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_run_cancelled_before_its_first_step_resumes_to_a_cited_report(tmp_path: Path, corpus: Path) -> None:
    context = real_context(tmp_path, corpus)
    await cancel_at_start(context, "early")
    store = RunStore.at(tmp_path / "db")
    assert store.get("early").status is RunStatus.CANCELLED  # type: ignore[union-attr]
    assert await saved_state(tmp_path / "db", "early") == {}  # nothing was checkpointed

    result = await resume_research(store.get("early"), context)  # type: ignore[arg-type]

    record = store.get("early")
    assert record is not None and record.status is RunStatus.COMPLETED and record.question == QUESTION
    assert result["evidence"] and "[1]" in result["report_markdown"] and "## Sources" in result["report_markdown"]
    assert record.report_markdown == result["report_markdown"]


async def test_a_run_cancelled_before_its_first_step_finishes_with_an_honest_empty_report(
    tmp_path: Path, corpus: Path, settings_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    await cancel_at_start(real_context(tmp_path, corpus), "early")
    capsys.readouterr()

    code = await asyncio.to_thread(main, ["resume", "early", "--finish", "--quiet"])

    report, errors = capsys.readouterr()
    assert code == EXIT_NO_EVIDENCE, errors
    assert report.startswith("# ") and f"**Question:** {QUESTION}" in report
    assert "Research stopped early: stopped on request" in report and "_No sources were cited._" in report
    assert "no evidence was found" in errors and "unexpected error" not in errors
    record = RunStore.at(tmp_path / "db").get("early")
    assert record is not None and record.status is RunStatus.COMPLETED and record.stop_reason == "stopped on request"


@pytest.mark.parametrize("finish", [False, True])
async def test_a_run_whose_checkpoint_holds_only_its_input_resumes_and_finishes(tmp_path: Path, finish: bool) -> None:
    """Killed between the input's checkpoint and the first step's: the input is there, no state yet."""
    context = fake_context(fake_services(FakeReasoner(sub_questions=["tram fare depot network"])), db_dir=tmp_path)
    question = "What is the tram fare?"
    async with open_checkpointer(tmp_path) as saver:
        config = {"configurable": {"thread_id": "r1"}}
        await build_graph(saver).aupdate_state(config, {"question": question, "run_id": "r1"}, as_node="__input__")
    now = time.time()
    record = RunRecord(
        run_id="r1",
        question=question,
        parameters=context,
        status=RunStatus.INTERRUPTED,
        started_at=now,
        updated_at=now,
    )
    RunStore.at(tmp_path).save(record)

    result = await resume_research(record, context, finish=finish)

    assert RunStore.at(tmp_path).get("r1").status is RunStatus.COMPLETED  # type: ignore[union-attr]
    assert bool(result["evidence"]) is not finish
    assert (result["stop_reason"] == "stopped on request") is finish


def cli(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "research_assistant.cli", *args]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_run_killed_at_start_resumes_and_finishes_through_the_cli(
    tmp_path: Path, corpus: Path, settings_env: dict[str, str]
) -> None:
    killed = []
    for _ in range(2):
        process = cli("run", QUESTION, "--corpus", str(corpus), "--depth", "quick", env=settings_env)
        assert process.stderr is not None
        for line in process.stderr:
            if line.startswith("[run] started"):
                process.send_signal(signal.SIGKILL)
                killed.append(line.split()[-1])
                break
        process.communicate(timeout=30)
        assert process.returncode == -signal.SIGKILL
    store = RunStore.at(tmp_path / "db")
    assert [store.find(run_id).status for run_id in killed] == [RunStatus.INTERRUPTED] * 2

    resumed = cli("resume", killed[0], "--quiet", env=settings_env)
    report, errors = resumed.communicate(timeout=120)
    assert resumed.returncode == EXIT_OK, errors
    assert "## Sources" in report and "[1]" in report

    finished = cli("resume", killed[1], "--finish", "--quiet", env=settings_env)
    report, errors = finished.communicate(timeout=120)
    assert finished.returncode in (EXIT_OK, EXIT_NO_EVIDENCE), errors  # no evidence unless a step had finished
    assert report.startswith("# ") and "Research stopped early: stopped on request" in report
    assert [store.find(run_id).status for run_id in killed] == [RunStatus.COMPLETED] * 2


def test_a_run_out_of_time_before_its_first_step_writes_an_honest_report(
    tmp_path: Path, corpus: Path, settings_env: dict[str, str]
) -> None:
    process = cli("run", QUESTION, "--corpus", str(corpus), "--max-seconds", "0.001", env=settings_env)
    report, errors = process.communicate(timeout=60)
    assert process.returncode == EXIT_NO_EVIDENCE, errors
    assert "Research stopped early: time limit reached (0.001 s)" in report and "unexpected error" not in errors
    [record] = RunStore.at(tmp_path / "db").recent()
    assert record.status is RunStatus.COMPLETED and record.stop_reason == "time limit reached (0.001 s)"

    # The report is written, so there is nothing left to resume: the CLI says where the report is.
    resumed = cli("resume", record.run_id, env=settings_env)
    _, errors = resumed.communicate(timeout=60)
    assert resumed.returncode == EXIT_USAGE
    assert f"run {record.run_id} has completed; `research-assistant show {record.run_id}`" in errors
