"""A readers-writer lock on a repository folder, shared by every process and thread that opens it.

Chroma's embedded store is not safe for several writers: two processes creating its
tables at once fail, and a process that writes while another indexes can leave the
other with a half-written corpus. So every use of the repository takes this lock:
reading (retrieval, looking up what is indexed) takes it shared, so readers never
wait for one another; writing (creating the collection, indexing, removing) takes it
exclusive, so a reader waits at most for the write in progress, and never sees half
of one.

It is `fcntl.flock` on a lock file in the repository folder. Each acquisition opens
the file afresh, so threads of one process exclude each other exactly as processes
do (flock locks belong to the open file, not to the process). The kernel releases
the lock when its holder dies, so a killed run never leaves the repository locked.
A thread that already holds the lock may take it again (nested calls are free, also
through another `RepositoryLock` on the same folder); a thread holding it shared may
not ask for it exclusive, since two such threads would wait for each other forever.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = ".repository.lock"

_holders: dict[Path, threading.local] = {}
"""Per lock file, what the current thread holds, shared by every `RepositoryLock` on that file."""
_holders_lock = threading.Lock()


class RepositoryLock:
    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / LOCK_FILE
        with _holders_lock:
            self._held = _holders.setdefault(self.path.resolve(), threading.local())

    def _mode(self) -> int | None:
        return getattr(self._held, "mode", None)

    @contextmanager
    def shared(self) -> Iterator[None]:
        """Held by readers: any number at once, never while a writer holds it."""
        with self._acquire(fcntl.LOCK_SH):
            yield

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Held by one writer at a time, with no reader."""
        with self._acquire(fcntl.LOCK_EX):
            yield

    @contextmanager
    def _acquire(self, mode: int) -> Iterator[None]:
        held = self._mode()
        if held is not None:
            if held == fcntl.LOCK_SH and mode == fcntl.LOCK_EX:
                raise RuntimeError("the repository lock is held for reading; it cannot be taken for writing inside")
            yield
            return
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, mode)
            self._held.mode = mode
            try:
                yield
            finally:
                self._held.mode = None
                fcntl.flock(descriptor, fcntl.LOCK_UN)
        finally:
            os.close(descriptor)
