"""Several `research-assistant run` processes sharing one fresh working directory: each indexes and researches
the same corpus at once, and each writes the report a lone run writes, before and after a corpus edit."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from research_assistant.runs.records import RunStatus
from research_assistant.runs.store import RunStore

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "How does Python manage memory and reclaim reference cycles?"

pytestmark = pytest.mark.slow


def start_runs(workdir: Path, corpus: Path, count: int, tag: str) -> list[tuple[subprocess.Popen[str], Path]]:
    """`count` runs started at once in `workdir` (its research_db/ and cache/, as a user's shell would)."""
    workdir.mkdir(parents=True, exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.startswith("RESEARCH_")}
    env["RESEARCH_REASONER"] = "extractive"
    runs = []
    for number in range(count):
        out = workdir / f"{tag}{number}.md"
        command = [
            sys.executable,
            "-m",
            "research_assistant.cli",
            "run",
            QUESTION,
            "--corpus",
            str(corpus),
            "--depth",
            "quick",
        ]
        process = subprocess.Popen(
            [*command, "--out", str(out), "--quiet"],
            cwd=workdir,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        runs.append((process, out))
    return runs


def body(report: Path) -> str:
    """The report without what differs between runs: its closing account of the run, and dates."""
    text = report.read_text(encoding="utf-8").split("## About this report")[0]
    return re.sub(r"\d{4}-\d{2}-\d{2}", "DATE", text)


def reports_of(workdir: Path, corpus: Path, count: int, tag: str) -> list[str]:
    runs = start_runs(workdir, corpus, count, tag)
    for process, _ in runs:
        _, errors = process.communicate(timeout=90)
        assert process.returncode == 0, errors
        assert "Traceback" not in errors and "unexpected error" not in errors, errors
    return [body(out) for _, out in runs]


def test_four_runs_at_once_in_a_fresh_directory_write_the_lone_runs_report(tmp_path: Path) -> None:
    corpus = tmp_path / "python-memory"
    shutil.copytree(ROOT / "examples" / "python-memory", corpus)

    [lone] = reports_of(tmp_path / "lone", corpus, 1, "lone")
    assert "## Sources" in lone and "[1]" in lone
    shared = tmp_path / "shared"
    assert reports_of(shared, corpus, 4, "first") == [lone] * 4

    records = RunStore.at(shared / "research_db").recent(limit=10)
    assert len(records) == 4 and {record.status for record in records} == {RunStatus.COMPLETED}

    notes = corpus / "memory-notes.md"
    notes.write_text(
        notes.read_text(encoding="utf-8")
        + "\n\nHow does Python manage memory and reclaim reference cycles?\n\nPython manages memory by reference "
        "counting, and its cyclic garbage collector reclaims the reference cycles that counting alone cannot free.\n",
        encoding="utf-8",
    )
    [edited] = reports_of(tmp_path / "lone", corpus, 1, "edited")
    assert edited != lone  # the edit shows, so that the shared runs below must have re-indexed to match
    assert reports_of(shared, corpus, 2, "second") == [edited] * 2
