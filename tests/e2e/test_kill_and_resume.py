"""A run killed with SIGKILL in the middle resumes to the same report, repeating nothing that had finished."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from research_assistant.runs.records import EventKind, RunStatus
from research_assistant.runs.store import RunStore

SCRIPT = Path(__file__).resolve().parents[1] / "support" / "durable_run.py"
RUN_ID = "killable-run"

pytestmark = pytest.mark.slow


def start(db_dir: Path, log: Path, mode: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, str(SCRIPT), str(db_dir), str(log), mode])


def lines(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def wait_for(log: Path, count: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while sum(line.startswith("read ") for line in lines(log)) < count:
        assert process.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, f"no {count} reads within {timeout} s: {lines(log)}"
        time.sleep(0.02)


def test_a_killed_run_resumes_from_its_last_step_without_repeating_finished_work(tmp_path: Path) -> None:
    # The same run, never interrupted: the report a resumed run must reproduce.
    whole_dir, whole_log = tmp_path / "whole", tmp_path / "whole.log"
    assert start(whole_dir, whole_log, "start").wait(60) == 0

    db_dir, log = tmp_path / "killed", tmp_path / "killed.log"
    process = start(db_dir, log, "start")
    wait_for(log, 2, process)  # two quick reads are done; the slow one is in flight
    time.sleep(0.3)  # let the finished reads' writes reach the checkpoint
    os.kill(process.pid, signal.SIGKILL)
    process.wait(10)
    before = lines(log)
    assert "read /corpus/depot.md" not in before and "call synthesize" not in before

    store = RunStore.at(db_dir)
    assert store.get(RUN_ID).status is RunStatus.INTERRUPTED  # type: ignore[union-attr]

    assert start(db_dir, log, "resume").wait(60) == 0
    after = lines(log)[len(before) :]
    assert not set(before) & set(after), f"repeated after resume: {set(before) & set(after)}"
    assert sorted(before + after) == sorted(lines(whole_log))  # everything ran exactly once
    assert (db_dir / "report.md").read_text() == (whole_dir / "report.md").read_text()

    record = store.get(RUN_ID)
    assert record is not None and record.status is RunStatus.COMPLETED
    assert record.report_markdown == (db_dir / "report.md").read_text()
    trace = list(store.events(RUN_ID))
    assert [event.seq for event in trace] == list(range(len(trace)))
    assert [event.message for event in trace if event.kind is EventKind.RUN_START] == ["started", "resumed"]
    assert record.metrics.sources_read == 3 and record.metrics.evidence > 0
