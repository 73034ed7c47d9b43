"""Start-up: the command line loads only what a command needs, when it needs it.

A run's first steps (analysis, planning) need no repository, so the libraries behind it (Chroma, LlamaIndex,
NLTK with SciPy, BM25, the HTML parser) must not be imported before the first step starts; they load in a
background thread meanwhile, or on demand when a step needs them. These tests check which modules are loaded,
in a fresh interpreter, not how long anything takes (`benchmarks/startup.py` measures that).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"

HEAVY = ("chromadb", "llama_index", "nltk", "scipy", "bm25s", "bs4", "lxml", "langchain_text_splitters", "onnxruntime")
"""Packages that take most of the time a run needs to get going, and that no first step uses."""

# Runs the command line in this interpreter; when analyze_query starts, writes the top-level packages loaded so
# far to the file named in argv[1]. The background warm-up is switched off, so that what is loaded is decided by
# the code path alone (with it on, the warm-up thread races the first step), and what the later steps need must
# load on demand.
FIRST_STEP_PROBE = """
import json, sys
from pathlib import Path

import research_assistant.nodes.analyze as analyze
from research_assistant.services import Services

Services.warm_up = lambda self: None
original = analyze.analyze_query
out = Path(sys.argv[1])


async def probed(state, runtime):
    if not out.exists():
        out.write_text(json.dumps(sorted({name.split(".")[0] for name in sys.modules})))
    return await original(state, runtime)


analyze.analyze_query = probed
from research_assistant.cli import main

sys.exit(main(sys.argv[2:]))
"""


def python(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RESEARCH_DB_DIR": str(cwd / "db"), "RESEARCH_CACHE_DIR": str(cwd / "cache")}
    env.pop("RESEARCH_CORPUS_DIR", None)
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def loaded_after(statement: str, cwd: Path) -> set[str]:
    """The top-level packages loaded in a fresh interpreter after `statement`."""
    code = f"{statement}\nimport json, sys\nprint(json.dumps(sorted({{n.split('.')[0] for n in sys.modules}})))"
    done = python(code, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


def test_the_command_line_loads_no_research_library_before_a_command_needs_it(tmp_path: Path) -> None:
    loaded = loaded_after("import research_assistant.cli", tmp_path)
    assert not loaded & {*HEAVY, "langgraph", "langchain_core", "numpy"}  # `--help` and usage errors stay fast


@pytest.mark.slow
def test_a_run_starts_its_first_step_before_loading_the_repository_and_loads_it_when_needed(tmp_path: Path) -> None:
    first_step = tmp_path / "first-step.json"
    args = ["run", "What is the tram fare?", "--corpus", str(CORPUS), "--depth", "quick", "--quiet", "--out", "r.md"]
    done = python(FIRST_STEP_PROBE, str(first_step), *args, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(first_step.read_text()))
    assert "langgraph" in loaded and "research_assistant" in loaded  # the probe saw a real first step
    early = loaded & {*HEAVY, "numpy"}
    assert not early, f"loaded before the first step: {sorted(early)}"
    report = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "## Sources" in report and "fares" in report  # the repository opened on demand: the corpus was read
