"""A key that an endpoint echoes back is never written or shown: the real command line and the real Gemini clients
against a fake Gemini that answers 401 with the key quoted in its error message, then a search of every byte the
run wrote (the run store, the checkpoints, the caches, the report), everything it printed, and the page's exports.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.fake_gemini import FakeGemini, FakeGeminiFailure

CANARY = "canary-KEY-1234567890"
TAVILY_CANARY = "canary-TAVILY-1234567890"
EXA_CANARY = "canary-EXA-1234567890"
QUESTION = "How does Python manage memory and reclaim reference cycles?"
CORPUS = Path(__file__).resolve().parents[2] / "examples" / "python-memory"
REFUSED = FakeGeminiFailure(401, message="API key not valid: {key}. Please pass a valid API key.", echo_key=True)

pytestmark = pytest.mark.slow


def environment(gemini_url: str, workdir: Path) -> dict[str, str]:
    prefixes = ("RESEARCH_", "TAVILY_", "EXA_", "GEMINI_", "GOOGLE_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.update(
        GEMINI_API_KEY=CANARY,
        TAVILY_API_KEY=TAVILY_CANARY,
        EXA_API_KEY=EXA_CANARY,
        RESEARCH_GEMINI_BASE_URL=gemini_url,
        RESEARCH_REASONER="llm",
        RESEARCH_EMBEDDING="gemini",
        RESEARCH_LLM_MAX_RETRIES="0",
        RESEARCH_BROWSER="false",
        RESEARCH_DB_DIR=str(workdir / "db"),
        RESEARCH_CACHE_DIR=str(workdir / "cache"),
    )
    return env


def cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "research_assistant.cli", *args]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=240, check=False)


def leaks(workdir: Path, printed: list[str]) -> list[str]:
    """Where a canary is found: files (bytes, databases and their journals included) and printed text."""
    found = []
    for path in sorted(workdir.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            found += [
                f"{path.relative_to(workdir)}: {key}"
                for key in (CANARY, TAVILY_CANARY, EXA_CANARY)
                if key.encode() in data
            ]
    found += [f"output {n}" for n, text in enumerate(printed) if "canary-" in text]
    return found


def test_a_key_echoed_by_gemini_is_written_and_shown_nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeGemini(lambda model, body: REFUSED) as gemini:
        gemini.fail_embeddings(REFUSED)  # indexing fails with the key in the error: the run fails
        env = environment(gemini.base_url, tmp_path)
        run = [*("run", QUESTION, "--corpus", str(CORPUS), "--depth", "quick", "--out", str(tmp_path / "r.md"))]
        failed = cli(run, env, tmp_path)
        assert failed.returncode == 1, failed.stderr
        assert "unexpected error" in failed.stderr and "[redacted]" in failed.stderr
        run_id = re.search(r"\[run\] started (\w+)", failed.stderr).group(1)  # type: ignore[union-attr]

        resumed = cli(["resume", run_id], env, tmp_path)  # embeddings work now; every model call is refused
        assert resumed.returncode in (0, 3), resumed.stderr
        assert "the key was refused (401)" in resumed.stderr
        assert gemini.embed_requests and gemini.generate_requests
        shown = [cli([command, run_id], env, tmp_path) for command in ("show", "trace")]
        listed = cli(["runs"], env, tmp_path)
    assert all(result.returncode == 0 for result in (*shown, listed))
    assert "[redacted]" in shown[1].stdout, "the trace keeps the failure, with the key taken out"

    # The page's exports of the run, made in this process from the stores the runs wrote.
    monkeypatch.setenv("GEMINI_API_KEY", CANARY)
    monkeypatch.setenv("RESEARCH_DB_DIR", str(tmp_path / "db"))
    from support.exports import exports

    from research_assistant.report.exports import ExportFormat
    from research_assistant.runner import saved_state
    from research_assistant.runs.store import RunStore
    from research_assistant.settings import get_settings

    get_settings()
    store = RunStore.at(tmp_path / "db")
    record = store.find(run_id)
    store.close()
    state = asyncio.run(saved_state(tmp_path / "db", run_id))
    assert state.get("notices"), "the run's state has its notices"
    text = (ExportFormat.MARKDOWN, ExportFormat.JSON, ExportFormat.CSV)
    downloads = [export.data.decode() for export in exports(record, state, text)]
    assert len(downloads) == (3 if state.get("evidence") else 2), "no evidence, no CSV"
    binary = exports(record, state, (ExportFormat.PDF, ExportFormat.WORD))
    assert all(CANARY.encode() not in export.data for export in binary)

    printed = [failed.stdout, failed.stderr, resumed.stdout, resumed.stderr, listed.stdout, *downloads]
    printed += [text for result in shown for text in (result.stdout, result.stderr)]
    assert leaks(tmp_path, printed) == []
