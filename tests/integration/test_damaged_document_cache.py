"""A damaged document-cache file heals: the document is read again, re-cached, and the report is as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.cli import isolated_settings as isolated_settings

from research_assistant.cli import EXIT_OK, main
from research_assistant.knowledge.document_cache import DocumentCache

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
QUESTION = "What is the fare?"

pytestmark = pytest.mark.usefixtures("isolated_settings")


def research(capsys: pytest.CaptureFixture[str], corpus: Path, out: Path) -> str:
    """Run the real command line; return its progress lines."""
    assert main(["run", QUESTION, "--corpus", str(corpus), "--out", str(out)]) == EXIT_OK
    return capsys.readouterr().err


def without_run_details(report: str) -> str:
    """The report without the lines that differ from run to run (ids, times, cache counts)."""
    return "\n".join(
        line for line in report.splitlines() if not any(word in line for word in ("run", "cache", "ccessed"))
    )


@pytest.mark.parametrize(
    "damage",
    [
        lambda raw: b"garbage",
        lambda raw: raw[: len(raw) // 2],
        lambda raw: b"",
        lambda raw: raw.replace(b'"text"', b'"txet"'),
    ],
    ids=["garbled", "truncated", "empty", "missing field"],
)
def test_every_damaged_entry_is_read_again_and_the_report_is_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, damage: object
) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "corpus", corpus)
    first = research(capsys, corpus, tmp_path / "first.md")
    files = sorted((tmp_path / "cache" / "documents").glob("*.json"))
    assert len(files) == 7 and "7 indexed now" in first

    for path in files:
        path.write_bytes(damage(path.read_bytes()))  # type: ignore[operator]
    progress = research(capsys, corpus, tmp_path / "second.md")

    assert "0 indexed now, 7 unchanged (7 read again into the cache)" in progress  # the index is left as it is
    assert "re-index" not in progress and "warning" not in progress
    cache = DocumentCache(tmp_path / "cache")
    assert all(cache.get(path.stem) is not None for path in files)  # healed on disk
    first_report = (tmp_path / "first.md").read_text(encoding="utf-8")
    second_report = (tmp_path / "second.md").read_text(encoding="utf-8")
    assert without_run_details(second_report) == without_run_details(first_report)

    third = research(capsys, corpus, tmp_path / "third.md")  # and it stays healed
    assert "0 indexed now, 7 unchanged" in third


def test_one_damaged_entry_is_the_only_one_read_again(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "corpus", corpus)
    research(capsys, corpus, tmp_path / "first.md")
    damaged = sorted((tmp_path / "cache" / "documents").glob("*.json"))[0]
    damaged.write_bytes(b'{"source_id": "')

    progress = research(capsys, corpus, tmp_path / "second.md")

    assert "0 indexed now, 7 unchanged (1 read again into the cache)" in progress
    assert DocumentCache(tmp_path / "cache").get(damaged.stem) is not None
