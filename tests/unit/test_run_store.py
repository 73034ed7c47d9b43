"""Whether a run recorded as running still runs: its pid is checked, and so is the start of the process
behind that pid, which a later process may have been given."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from research_assistant.context import Context
from research_assistant.runs.records import RunRecord, RunStatus
from research_assistant.runs.store import RunStore, process_start

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to tell processes apart")


@pytest.fixture
def other_process() -> Iterator[subprocess.Popen[bytes]]:
    """A live process that is not a research run."""
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def running(pid: int | None, pid_started: int | None = None) -> RunRecord:
    now = time.time()
    return RunRecord(
        run_id="r1",
        question="How long is the tram network?",
        parameters=Context(corpus_dir=None),
        status=RunStatus.RUNNING,
        started_at=now,
        updated_at=now,
        pid=pid,
        pid_started=pid_started,
    )


def test_a_run_whose_pid_now_belongs_to_another_process_was_interrupted(
    tmp_path: Path, other_process: subprocess.Popen[bytes]
) -> None:
    started = process_start(other_process.pid)
    assert started is not None
    store = RunStore.at(tmp_path)
    store.save(running(other_process.pid, pid_started=started - 1))  # the run's process started before it

    record = store.get("r1")

    assert record is not None and record.status is RunStatus.INTERRUPTED and record.pid is None
    assert store.get("r1").status is RunStatus.INTERRUPTED  # type: ignore[union-attr]  # and so recorded


def test_a_run_whose_process_still_runs_is_running(tmp_path: Path, other_process: subprocess.Popen[bytes]) -> None:
    store = RunStore.at(tmp_path)
    store.save(running(other_process.pid, pid_started=process_start(other_process.pid)))

    assert store.get("r1").status is RunStatus.RUNNING  # type: ignore[union-attr]


def test_a_run_whose_process_is_gone_was_interrupted(tmp_path: Path) -> None:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    started = process_start(process.pid)
    process.wait()
    store = RunStore.at(tmp_path)
    store.save(running(process.pid, pid_started=started))

    assert store.get("r1").status is RunStatus.INTERRUPTED  # type: ignore[union-attr]


def test_a_run_of_this_process_is_stamped_with_its_start(tmp_path: Path) -> None:
    store = RunStore.at(tmp_path)
    store.save(running(os.getpid()))

    record = store.get("r1")

    assert record is not None and record.status is RunStatus.RUNNING
    assert record.pid_started == process_start(os.getpid()) is not None


def test_process_start_reads_past_a_command_name_with_spaces_and_parentheses(tmp_path: Path) -> None:
    script = tmp_path / "a (b) c.py"
    script.write_text("import time; time.sleep(60)\n")
    link = tmp_path / "sleep ) x"
    os.symlink(sys.executable, link)
    process = subprocess.Popen([str(link), str(script)])
    try:
        started = process_start(process.pid)
        assert started is not None and started >= (process_start(os.getpid()) or 0)
    finally:
        process.kill()
        process.wait()
