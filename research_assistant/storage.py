"""Writing files so that no reader, in this process or another, ever sees half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class StorageError(OSError):
    """A file could not be written (disk full, read-only folder); the message is one line naming the file.

    The file it would have replaced, if any, is left as it was.
    """

    def __init__(self, path: Path, error: OSError) -> None:
        super().__init__(error.errno, error.strerror or str(error), str(path))

    def __str__(self) -> str:
        return f"cannot write {self.filename}: {self.strerror}"


def write_atomically(path: Path, payload: bytes, *, mode: int | None = None, durable: bool = False) -> None:
    """Write `payload` to a temporary file beside `path`, then rename it over `path`.

    `mode` sets the file's permissions (a temporary file is private to its owner by default); `durable` also
    flushes it to the disk before the rename. Raises `StorageError` when the file cannot be written; `path`
    itself is then untouched.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)
    except OSError as error:
        raise StorageError(path, error) from error
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except OSError as error:
        Path(tmp_name).unlink(missing_ok=True)
        raise StorageError(path, error) from error
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def default_file_mode(path: Path) -> int:
    """The permissions a file written at `path` should have: those of the file it replaces, else the umask's."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        pass
    umask = 0o022
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                umask = int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o666 & ~umask
