"""A working directory on a disk that fills up (a real, small tmpfs): the run stops with one clear line, no
SQLite or Chroma error text, and what was kept before (the report given with --out, the run store) stays usable.

Mounting needs root; without it the test is skipped and says why.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    disk = tmp_path / "disk"
    disk.mkdir()
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(disk)], capture_output=True, text=True, check=False
        )
    except OSError as error:
        pytest.skip(f"cannot mount a small tmpfs to fill: {error}")
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs to fill (needs root): {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)


def research_assistant(*args: str, disk: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RESEARCH_", "TAVILY_", "EXA_", "GEMINI_"))}
    env.update(
        RESEARCH_DB_DIR=str(disk / "research_db"),
        RESEARCH_CACHE_DIR=str(disk / "cache"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
    )
    command = [sys.executable, "-m", "research_assistant.cli", *args]
    return subprocess.run(command, env=env, cwd=disk, capture_output=True, text=True, timeout=180, check=False)


def fill(disk: Path) -> Path:
    """Write a file until the disk has no room left; return it."""
    filler = disk / "filler"
    with filler.open("wb") as handle:
        try:
            while True:
                handle.write(b"\0" * (1 << 20))
                handle.flush()
        except OSError as error:
            assert error.errno == errno.ENOSPC
    return filler


def test_a_full_disk_stops_a_run_in_one_line_and_keeps_what_was_there(small_disk: Path) -> None:
    corpus = str(FIXTURES / "corpus")
    out = small_disk / "report.md"
    first = research_assistant("run", "What is the fare?", "--corpus", corpus, "--out", str(out), disk=small_disk)
    assert first.returncode == 0, first.stderr
    report = out.read_text()

    filler = fill(small_disk)
    full = research_assistant(
        "run", "How long is the tram network?", "--corpus", corpus, "--out", str(out), disk=small_disk
    )
    listed = research_assistant("runs", disk=small_disk)

    for ended in (full, listed):
        lines = ended.stderr.strip().splitlines()
        assert ended.returncode == 2, ended.stderr
        assert lines[-1].startswith("research-assistant: error: ") and "is full" in lines[-1], ended.stderr
        assert "free some space" in lines[-1]
        for raw in ("OperationalError", "InternalError", "Error in compaction", "Traceback", "unexpected"):
            assert raw not in ended.stderr, ended.stderr
    assert [line for line in full.stderr.splitlines() if line.startswith("research-assistant:")] == [
        full.stderr.strip().splitlines()[-1]
    ]
    assert out.read_text() == report, "the previous report is whole"

    filler.unlink()  # room again: the run store lists the first run, and research goes on
    runs = research_assistant("runs", disk=small_disk)
    assert runs.returncode == 0 and "completed" in runs.stdout and "What is the fare?" in runs.stdout
    again = research_assistant("run", "How long is the tram network?", "--corpus", corpus, disk=small_disk)
    assert again.returncode == 0, again.stderr
