"""Ctrl-C on the command line: the run ends at once, is recorded as cancelled, and resumes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.cli import default_ctrl_c

from research_assistant.runs.records import RunStatus
from research_assistant.runs.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How does Python manage memory and reclaim reference cycles?"

pytestmark = pytest.mark.slow


def cli(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "research_assistant.cli", *args]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_ctrl_c
    )


def test_ctrl_c_cancels_the_run_at_once_and_resume_finishes_it(tmp_path: Path) -> None:
    env = {**os.environ, "RESEARCH_DB_DIR": str(tmp_path / "db"), "RESEARCH_CACHE_DIR": str(tmp_path / "cache")}
    corpus = str(ROOT / "examples" / "python-memory")
    process = cli("run", QUESTION, "--corpus", corpus, "--depth", "deep", env=env)
    assert process.stderr is not None
    seen = []
    for line in process.stderr:  # interrupt once the sources are being read, mid-run
        seen.append(line)
        if line.startswith("[browse]"):
            break
    interrupted = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, rest = process.communicate(timeout=10)
    assert time.monotonic() - interrupted < 2.0  # about 0.1 s on a quiet machine; the margin is for a loaded one
    assert process.returncode == 130, "".join(seen) + rest
    [record] = RunStore.at(tmp_path / "db").recent()
    assert record.status is RunStatus.CANCELLED
    assert rest.strip().endswith(
        f"cancelled run {record.run_id}; what it gathered is kept. `research-assistant resume {record.run_id}` "
        "continues it; add --finish to write the report from what it has"
    )
    assert "Traceback" not in rest

    resumed = cli("resume", record.run_id, "--quiet", env=env)
    report, errors = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, errors
    assert report.startswith("# ") and "## Sources" in report
    assert RunStore.at(tmp_path / "db").get(record.run_id).status is RunStatus.COMPLETED  # type: ignore[union-attr]
