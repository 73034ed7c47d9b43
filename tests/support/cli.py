"""The command line inside a test: settings isolated in the test's own folder, and `cli` to run a command.

    from support.cli import cli, isolated_settings

    pytestmark = pytest.mark.usefixtures("isolated_settings")

`isolated_settings` points the run store, the repository and the caches at `tmp_path/db` and `tmp_path/cache`,
forgets any corpus set in the environment, works in `tmp_path`, and clears the cached settings before and after.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from research_assistant.cli import main
from research_assistant.settings import get_settings


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
