"""Reports and cached documents are written whole or not at all: a full disk gives one line naming the file,
exit code 2, and leaves the previous file as it was."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.cli import isolate
from support.cli import isolated_settings as isolated_settings

from research_assistant.cli import EXIT_OK, EXIT_USAGE, main
from research_assistant.knowledge.document_cache import DocumentCache
from research_assistant.knowledge.documents import StoredDocument, source_id_for
from research_assistant.storage import StorageError, write_atomically

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
QUESTION = "What is the fare?"

pytestmark = pytest.mark.usefixtures("isolated_settings")


class FullDisk:
    """A file handle on a disk that fills up after `room` bytes: the first bytes land, then ENOSPC."""

    def __init__(self, handle: Any, room: int) -> None:
        self._handle, self._room = handle, room

    def write(self, data: bytes) -> int:
        self._handle.write(data[: self._room])
        self._handle.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def __enter__(self) -> FullDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


def fill_disk_under(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file written (atomically) inside `folder` hits a full disk after 10 bytes."""
    real_fdopen = os.fdopen

    def fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
        handle = real_fdopen(fd, *args, **kwargs)
        if Path(os.readlink(f"/proc/self/fd/{fd}")).is_relative_to(folder.resolve()):
            return FullDisk(handle, 10)
        return handle

    monkeypatch.setattr("research_assistant.storage.os.fdopen", fdopen)


def leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.rglob("*.tmp"))


def test_write_atomically_keeps_the_previous_file_on_a_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out" / "report.md"
    write_atomically(target, b"the good report\n")
    fill_disk_under(tmp_path / "out", monkeypatch)
    with pytest.raises(StorageError) as raised:
        write_atomically(target, b"a longer report that will not fit\n" * 100)
    assert str(raised.value) == f"cannot write {target}: {os.strerror(errno.ENOSPC)}"
    assert raised.value.errno == errno.ENOSPC
    assert target.read_bytes() == b"the good report\n"
    assert leftovers(tmp_path) == []


def test_out_on_a_full_disk_leaves_the_previous_report_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reports = tmp_path / "reports"
    reports.mkdir()
    out = reports / "report.md"
    assert main(["run", QUESTION, "--corpus", str(FIXTURES / "corpus"), "--out", str(out), "--quiet"]) == EXIT_OK
    good = out.read_text(encoding="utf-8")
    assert "# " in good and (out.stat().st_mode & 0o777) != 0o600  # a normal file, not a private temporary one
    capsys.readouterr()

    fill_disk_under(reports, monkeypatch)
    code = main(["run", QUESTION, "--corpus", str(FIXTURES / "corpus"), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE
    lines = err.strip().splitlines()
    assert lines == [f"research-assistant: error: cannot write the report to {out}: No space left on device"]
    assert out.read_text(encoding="utf-8") == good
    assert leftovers(reports) == []


def test_a_document_cache_that_cannot_be_written_names_its_file_and_keeps_the_old_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = DocumentCache(tmp_path / "cache")
    locator = "/corpus/depot.txt"
    old = StoredDocument(
        source_id=source_id_for(locator),
        locator=locator,
        title="Depot",
        text="The depot opened in 2009.",
        content_hash="ab" * 32,
        fetched_at="2024-05-01T10:00:00+00:00",
    )
    cache.put(old)
    fill_disk_under(cache.directory, monkeypatch)
    with pytest.raises(StorageError, match=rf"cannot write {cache.directory}/{old.source_id}\.json: No space left"):
        cache.put(old.model_copy(update={"text": "The depot opened in 2010. " * 50}))
    assert cache.get(old.source_id) == old
    assert leftovers(cache.directory) == []


def test_a_full_disk_while_indexing_is_one_line_naming_the_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(FIXTURES / "corpus", corpus)
    fill_disk_under(tmp_path / "cache", monkeypatch)
    code = main(["run", QUESTION, "--corpus", str(corpus), "--quiet"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"research-assistant: error: cannot write {tmp_path / 'cache' / 'documents'}/")
    assert lines[0].endswith(": No space left on device")

    monkeypatch.undo()  # room again: the next run indexes everything and researches as usual
    isolate(tmp_path, monkeypatch)
    assert main(["run", QUESTION, "--corpus", str(corpus), "--quiet"]) == EXIT_OK
