"""A damaged database on the page: the run store, the checkpoints or the repository garbled, the page says which
file and what to do, as the command line does, instead of showing a traceback; the file is left as it is."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from support.cli import cancelled_run

from research_assistant.report.citations import unescape_markdown
from research_assistant.settings import get_settings

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "python-memory"
QUESTION = "How does Python manage memory and reclaim reference cycles?"


def _use(monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    monkeypatch.setenv("RESEARCH_DB_DIR", str(work / "research_db"))
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(work / "cache"))
    monkeypatch.setenv("RESEARCH_CORPUS_DIR", str(CORPUS))
    for name in ("TAVILY_API_KEY", "EXA_API_KEY", "RESEARCH_TAVILY_API_KEY", "RESEARCH_EXA_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "RESEARCH_GEMINI_API_KEY", "RESEARCH_REASONER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(work)
    get_settings.cache_clear()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A working directory after one real offline run, marked cancelled so that it can be resumed."""
    work = tmp_path_factory.mktemp("template")
    yield work, cancelled_run(work, _use)


@pytest.fixture
def work(template: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    copy = tmp_path / "work"
    shutil.copytree(template[0], copy)
    _use(monkeypatch, copy)
    yield copy
    get_settings.cache_clear()


def garble(path: Path) -> bytes:
    """Overwrite the file's first 100 bytes (SQLite's header) with junk; return its new contents."""
    raw = bytearray(path.read_bytes())
    raw[:100] = b"\x5a" * 100
    path.write_bytes(bytes(raw))
    return bytes(raw)


def page() -> AppTest:
    return AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=60).run()


def research(app: AppTest) -> AppTest:
    """Submit the question over the corpus, with the real (offline) services, and wait for the run to end."""
    app.text_area[0].input(QUESTION)
    [folder] = [w for w in app.text_input if w.label == "Documents folder"]
    folder.input(str(CORPUS))
    [button] = [b for b in app.button if b.label == "Research"]
    app = button.click().run()
    job = app.session_state["page"].job
    assert job is not None and job.background.wait(120), "the research did not end"
    return app.run()


def assert_names(app: AppTest, path: Path) -> None:
    assert not app.exception, app.exception
    said = [unescape_markdown(error.value) for error in app.error]
    assert any(f"{path} is damaged" in line and f"mv {path} {path}.damaged" in line for line in said), said
    assert not any("unexpectedly" in line or "Traceback" in line for line in said), said


def test_a_damaged_run_store_is_named_instead_of_a_traceback(work: Path) -> None:
    path = work / "research_db" / "runs.sqlite"
    garbled = garble(path)
    app = page()
    assert_names(app, path)
    assert "history of past runs" in app.error[0].value
    assert path.read_bytes() == garbled


def test_a_damaged_checkpoint_store_is_named_for_the_run_shown_and_for_a_new_research(
    work: Path, template: tuple[Path, str]
) -> None:
    path = work / "research_db" / "checkpoints.sqlite"
    garbled = garble(path)
    app = page()
    app.session_state["page"].shown = template[1]
    app = app.run()
    assert_names(app, path)

    app = research(app)
    assert_names(app, path)
    assert path.read_bytes() == garbled


def test_a_damaged_repository_is_named_when_a_research_opens_it(work: Path) -> None:
    path = work / "research_db" / "chroma.sqlite3"
    garbled = garble(path)
    app = research(page())
    assert_names(app, path)
    assert "indexes them again" in " ".join(error.value for error in app.error)
    assert path.read_bytes() == garbled
