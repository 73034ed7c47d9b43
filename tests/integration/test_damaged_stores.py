"""Damaged stores explain or heal: a garbled or emptied database is named in one line with what to do (exit
code 2) and left as it is; a garbled BM25 cache is rebuilt and the report is as before.

Every case starts from a working directory made by a real offline run over `examples/python-memory`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.cli import cancelled_run

from research_assistant.cli import EXIT_OK, EXIT_USAGE, main
from research_assistant.knowledge import bm25_files
from research_assistant.settings import get_settings

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "python-memory"
QUESTION = "How does Python manage memory and reclaim reference cycles?"
DATABASES = ["runs.sqlite", "checkpoints.sqlite", "chroma.sqlite3"]


def _use(monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    monkeypatch.setenv("RESEARCH_DB_DIR", str(work / "research_db"))
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(work / "cache"))
    monkeypatch.delenv("RESEARCH_CORPUS_DIR", raising=False)
    monkeypatch.delenv("RESEARCH_DEBUG", raising=False)
    monkeypatch.chdir(work)
    get_settings.cache_clear()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A working directory after one real run, with that run marked cancelled (so it can be resumed)."""
    work = tmp_path_factory.mktemp("template")
    yield work, cancelled_run(work, _use)


@pytest.fixture
def work(template: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A copy of the template's working directory, which the settings point at."""
    copy = tmp_path / "work"
    shutil.copytree(template[0], copy)
    _use(monkeypatch, copy)
    yield copy
    get_settings.cache_clear()


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def garble(path: Path) -> bytes:
    """Overwrite the file's first 100 bytes (SQLite's header) with junk; return its new contents."""
    raw = bytearray(path.read_bytes())
    raw[:100] = b"\x5a" * 100
    path.write_bytes(bytes(raw))
    return bytes(raw)


def assert_one_line_naming(code: int, err: str, path: Path) -> None:
    lines = err.strip().splitlines()
    assert code == EXIT_USAGE, err
    assert len(lines) == 1, err
    assert lines[0].startswith("research-assistant: error: ") and f"{path} is damaged" in lines[0], err
    assert f"mv {path} {path}.damaged" in lines[0], err
    assert "unexpected" not in err and "Traceback" not in err


def commands(run_id: str) -> dict[str, list[str]]:
    return {
        "run": ["run", QUESTION, "--corpus", str(CORPUS), "--depth", "quick", "--quiet", "--out", "again.md"],
        "runs": ["runs"],
        "show": ["show", run_id],
        "resume": ["resume", run_id, "--quiet", "--out", "resumed.md"],
    }


# Which commands open which database: `runs` and `show` only read the run store (and the checkpoints of a run
# that did not complete, which `show` reports on as best it can).
OPENED_BY = {
    "runs.sqlite": ["run", "runs", "show", "resume"],
    "checkpoints.sqlite": ["run", "resume"],
    "chroma.sqlite3": ["run", "resume"],
}


@pytest.mark.parametrize("database", DATABASES)
def test_a_garbled_database_is_named_with_what_to_do_and_left_as_it_is(
    capsys: pytest.CaptureFixture[str], work: Path, template: tuple[Path, str], database: str
) -> None:
    path = work / "research_db" / database
    garbled = garble(path)
    for name, args in commands(template[1]).items():
        code, _, err = cli(capsys, *args)
        if name in OPENED_BY[database]:
            assert_one_line_naming(code, err, path)
        else:
            assert code == EXIT_OK, f"{name}: {err}"
    assert path.read_bytes() == garbled  # nothing replaced it: what it held can still be recovered
    assert not (work / "again.md").exists() and not (work / "resumed.md").exists()


@pytest.mark.parametrize("database", DATABASES)
def test_moving_the_damaged_database_aside_as_told_lets_research_go_on(
    capsys: pytest.CaptureFixture[str], work: Path, template: tuple[Path, str], database: str
) -> None:
    path = work / "research_db" / database
    garble(path)
    path.rename(path.with_name(path.name + ".damaged"))
    code, _, err = cli(capsys, *commands(template[1])["run"])
    assert code == EXIT_OK, err
    assert _comparable((work / "again.md").read_text()) == _comparable((template[0] / "r.md").read_text())


def test_an_empty_run_store_is_reported_not_silently_replaced(
    capsys: pytest.CaptureFixture[str], work: Path, template: tuple[Path, str]
) -> None:
    path = work / "research_db" / "runs.sqlite"
    path.write_bytes(b"")
    for args in commands(template[1]).values():
        code, _, err = cli(capsys, *args)
        assert_one_line_naming(code, err, path)
        assert "empty" in err
    assert path.stat().st_size == 0


def test_a_store_damaged_past_its_header_is_named_too(
    capsys: pytest.CaptureFixture[str], work: Path, template: tuple[Path, str]
) -> None:
    path = work / "research_db" / "runs.sqlite"
    raw = bytearray(path.read_bytes())
    raw[4096:8192] = b"\x07" * 4096  # the page after the schema: opens fine, fails when read
    path.write_bytes(bytes(raw))
    code, _, err = cli(capsys, "runs")
    assert_one_line_naming(code, err, path)
    assert "malformed" in err


def bm25_index(work: Path) -> Path:
    [folder] = (work / "research_db" / "bm25").glob("*/*")
    return folder


@pytest.mark.parametrize(
    "damage",
    [
        lambda ids: json.dumps(json.loads(ids)[:-5]),  # a shorter list: the IndexError of issue 12
        lambda ids: "garbage",
        lambda ids: "",
        lambda ids: ids.replace("#1", "#9"),  # valid JSON, wrong ids
    ],
    ids=["shortened", "garbled", "empty", "wrong ids"],
)
def test_a_damaged_bm25_cache_is_rebuilt_and_the_report_is_as_before(
    capsys: pytest.CaptureFixture[str], work: Path, template: tuple[Path, str], damage: object
) -> None:
    folder = bm25_index(work)
    assert bm25_files.problem(folder) is None
    ids = folder / bm25_files.CHUNK_IDS
    ids.write_text(damage(ids.read_text()))  # type: ignore[operator]
    assert bm25_files.problem(folder) is not None
    code, _, err = cli(capsys, *commands(template[1])["run"])
    assert code == EXIT_OK, err
    assert "IndexError" not in err and "error" not in err
    assert _comparable((work / "again.md").read_text()) == _comparable((template[0] / "r.md").read_text())
    assert bm25_files.problem(bm25_index(work)) is None  # saved again, whole


def test_a_garbled_bm25_index_file_is_rebuilt(
    capsys: pytest.CaptureFixture[str], work: Path, template: tuple[Path, str]
) -> None:
    [matrix] = bm25_index(work).glob("data*.npy")
    matrix.write_bytes(matrix.read_bytes()[:50])
    code, _, err = cli(capsys, *commands(template[1])["run"])
    assert code == EXIT_OK, err
    assert _comparable((work / "again.md").read_text()) == _comparable((template[0] / "r.md").read_text())


def test_doctor_prints_one_line_per_store(capsys: pytest.CaptureFixture[str], work: Path) -> None:
    code, out, _ = cli(capsys, "doctor")
    assert code == EXIT_OK, out
    lines = out.splitlines()
    stores = ["runs", "checkpoints", "repository", "BM25 cache", "document cache"]
    assert [line.split(":")[0] for line in lines] == stores
    assert all(": ok (" in line for line in lines), out


def test_doctor_names_a_damaged_database_and_repairs_derived_data(
    capsys: pytest.CaptureFixture[str], work: Path
) -> None:
    db = work / "research_db"
    garble(db / "checkpoints.sqlite")
    (bm25_index(work) / bm25_files.CHUNK_IDS).write_text("[]")
    [document, *_] = sorted((work / "cache" / "documents").glob("*.json"))
    document.write_text("{")
    code, out, _ = cli(capsys, "doctor")
    lines = dict(line.split(": ", 1) for line in out.splitlines())
    assert code == EXIT_USAGE, out
    assert lines["checkpoints"].startswith(f"damaged: {db / 'checkpoints.sqlite'} (file is not a database)")
    assert lines["runs"].startswith("ok") and lines["repository"].startswith("ok")
    assert lines["BM25 cache"].startswith("repaired: ") and lines["document cache"].startswith("repaired: ")
    code, out, _ = cli(capsys, "doctor")
    statuses = [line.split(": ", 2)[1].split(" ")[0] for line in out.splitlines()]
    assert code == EXIT_USAGE and statuses == ["ok", "damaged", "ok", "ok", "ok"], out


def _comparable(report: str) -> str:
    """The report without the lines that differ from run to run (dates, ids, cache counts)."""
    return "\n".join(
        line
        for line in report.splitlines()
        if not any(word in line for word in ("Generated", "run", "cache", "ccessed"))
    )
