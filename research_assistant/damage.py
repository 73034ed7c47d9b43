"""Damaged stores: found when a database is opened, named in one line that says what to do.

The run store, the checkpoints and the repository's Chroma database are SQLite files. One that is
garbled (`file is not a database`, `database disk image is malformed`) or emptied must not pass for an
empty store, and must not surface as an anonymous error: `DamagedStore` names the file and the remedy.
A new store is built in a temporary file and linked into place whole, so no process ever finds one of
ours empty, and an empty one can only be a damaged one.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from research_assistant.text.spaces import error_line

_CORRUPT, _NOT_A_DATABASE = 11, 26  # SQLite's result codes SQLITE_CORRUPT and SQLITE_NOTADB
_DAMAGE_WORDS = (
    "file is not a database",
    "database disk image is malformed",
    "database: (code: 11)",
    "database: (code: 26)",
)


class DamagedStore(Exception):
    """A store's file is damaged; the message is one line naming the file and what to do."""

    def __init__(self, path: Path, problem: str, remedy: str) -> None:
        super().__init__(f"{path} is damaged ({problem}); {remedy}")
        self.path = path


def move_aside(path: Path) -> str:
    """The command that moves a damaged file out of the way."""
    return f"`mv {path} {path}.damaged`"


def runs_remedy(path: Path) -> str:
    return f"it holds the history of past runs: put back a copy, or move it aside ({move_aside(path)}) to start anew"


def checkpoints_remedy(path: Path) -> str:
    return f"move it aside ({move_aside(path)}) to go on; runs recorded before can then be shown but not resumed"


def chroma_remedy(path: Path) -> str:
    return (
        f"the repository is built from your documents: move it aside ({move_aside(path)}) and the next run "
        "indexes them again"
    )


def causes(error: BaseException | None) -> Iterator[BaseException]:
    """`error`, then each error it was raised from (or while handling), each once."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        yield error
        error = error.__cause__ or error.__context__


def is_damage(error: BaseException | None) -> bool:
    """Whether `error`, or an error it was raised from, says a database file is damaged."""
    for cause in causes(error):
        code = getattr(cause, "sqlite_errorcode", 0) & 0xFF
        if isinstance(cause, sqlite3.DatabaseError) and code in (_CORRUPT, _NOT_A_DATABASE):
            return True
        if any(words in str(cause) for words in _DAMAGE_WORDS):
            return True
    return False


def problem_of(error: BaseException) -> str:
    named = [words for words in _DAMAGE_WORDS[:2] if words in str(error)]
    return named[0] if named else error_line(error, 200)


@contextmanager
def naming(path: Path, remedy: str) -> Iterator[None]:
    """Turn a damaged-database error raised inside the block into `DamagedStore` for `path`."""
    try:
        yield
    except DamagedStore:
        raise
    except Exception as error:
        if is_damage(error):
            raise DamagedStore(path, problem_of(error), remedy) from error
        raise


def prepare_sqlite(path: Path, remedy: str, script: str = "") -> None:
    """Make sure `path` is a SQLite database (in WAL mode) before it is opened.

    A missing file is created whole: built under a temporary name (with `script` run in it), then linked
    into place, so a concurrent opener sees either no file or a complete one. An empty file was therefore
    not made here: its contents are lost, and it is reported rather than silently used as a new store.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            db = sqlite3.connect(tmp, isolation_level=None)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                if script:
                    db.executescript(script)
            finally:
                db.close()
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass  # another process created it first
            except OSError:  # a file system without hard links
                if not path.exists():
                    os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    try:
        empty = path.stat().st_size == 0
    except OSError:
        return
    if empty:
        raise DamagedStore(path, "empty, 0 bytes", remedy)


def sqlite_problem(path: Path) -> str | None:
    """What is wrong with the SQLite database at `path` (which exists), or None when it checks out."""
    try:
        if path.stat().st_size == 0:
            return "empty, 0 bytes"
        db = sqlite3.connect(path, timeout=15)
        try:
            row = db.execute("PRAGMA quick_check(1)").fetchone()
        finally:
            db.close()
    except sqlite3.Error as error:
        return problem_of(error)
    except OSError as error:
        return error.strerror or str(error)
    if row and row[0] == "ok":
        return None
    found = " ".join(str(row[0] if row else "no answer").replace("*** in database main ***", "").split())
    return f"database disk image is malformed: {found[:160]}"


_FULL, _IO_ERROR = 13, 10  # SQLite's SQLITE_FULL and SQLITE_IOERR
_FULL_WORDS = ("database or disk is full", "(code: 13)", "No space left on device", "Disk quota exceeded")
_ROOM = 1 << 20
"""Less free space than this (1 MiB) makes an I/O error a full disk: SQLite says "disk I/O error" when it cannot
grow its shared-memory file."""


def is_full(error: BaseException | None, folder: Path) -> bool:
    """Whether `error`, or an error it was raised from, says the disk holding `folder` is full."""
    for cause in causes(error):
        code = getattr(cause, "sqlite_errorcode", 0) & 0xFF
        if code == _FULL or (isinstance(cause, OSError) and cause.errno in (errno.ENOSPC, errno.EDQUOT)):
            return True
        if any(words in str(cause) for words in _FULL_WORDS):
            return True
        if (code == _IO_ERROR or "disk I/O error" in str(cause)) and _free_space(folder) < _ROOM:
            return True
    return False


def full_disk_line(folder: Path) -> str:
    """What to say when the disk holding `folder` is full."""
    return (
        f"the disk holding {folder} is full (no space left on device); free some space and run again: "
        "the runs, reports and documents kept before are as they were"
    )


def _free_space(folder: Path) -> int:
    for candidate in (folder, *folder.parents):
        try:
            return shutil.disk_usage(candidate).free
        except OSError:
            continue
    return _ROOM
