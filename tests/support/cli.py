"""The command line inside a test: settings isolated in the test's own folder, and `cli` to run a command.

    from support.cli import cli, isolated_settings

    pytestmark = pytest.mark.usefixtures("isolated_settings")

`isolated_settings` points the run store, the repository and the caches at `tmp_path/db` and `tmp_path/cache`,
forgets any corpus set in the environment, works in `tmp_path`, and clears the cached settings before and after.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from research_assistant.cli import main
from research_assistant.runs.records import RunStatus
from research_assistant.runs.store import RunStore
from research_assistant.settings import get_settings

EXAMPLE_CORPUS = Path(__file__).resolve().parents[2] / "examples" / "python-memory"
EXAMPLE_QUESTION = "How does Python manage memory and reclaim reference cycles?"


def isolate(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings for a command run in `tmp_path` (again after `monkeypatch.undo()`)."""
    monkeypatch.setenv("RESEARCH_DB_DIR", str(tmp_path / "db"))
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RESEARCH_CORPUS_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    get_settings.cache_clear()


@pytest.fixture
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    isolate(tmp_path, monkeypatch)
    yield
    get_settings.cache_clear()


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run `research-assistant ARGS...` in this process: its exit code, stdout and stderr."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def cancelled_run(work: Path, use: Callable[[pytest.MonkeyPatch, Path], None]) -> str:
    """One real quick offline run over the example corpus in `work` (with the settings `use` gives it), marked
    cancelled so that it can be resumed; its run id. A module's template for tests that damage its stores."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        use(monkeypatch, work)
        command = ["run", EXAMPLE_QUESTION, "--corpus", str(EXAMPLE_CORPUS), "--depth", "quick", "--quiet"]
        assert main([*command, "--out", "r.md"]) == 0
    get_settings.cache_clear()
    store = RunStore.at(work / "research_db")
    [record] = store.recent()
    store.save(record.model_copy(update={"status": RunStatus.CANCELLED}))
    store.close()
    return record.run_id


def default_ctrl_c() -> None:
    """For `subprocess.Popen(preexec_fn=...)`: the child takes Ctrl-C as a terminal's process does. A test run
    started in the background of a non-interactive shell ignores SIGINT, and a child would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
