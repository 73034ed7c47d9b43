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

Waiting is polling (a non-blocking try every few milliseconds), not a blocking call:
a thread stuck in `flock` cannot be interrupted, and a run cancelled while another
process indexes a large corpus would then wait for that process before it could end.
Between tries the waiter calls `check_stop()`, so a cancelled run stops waiting at once; on an event
loop's thread (a run opening the repository), Ctrl-C cancels the task waiting, even though its loop
cannot run until the wait ends.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from research_assistant.concurrency import check_stop

LOCK_FILE = ".repository.lock"
_FIRST_WAIT = 0.002
_LONGEST_WAIT = 0.05
"""Seconds between tries for a lock someone else holds: short at first, for a handover, then at most this."""

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

    def held(self) -> str | None:
        """How this thread holds the lock already: "shared", "exclusive", or None."""
        mode = self._mode()
        return None if mode is None else "exclusive" if mode == fcntl.LOCK_EX else "shared"

    def shared(self) -> AbstractContextManager[None]:
        """Held by readers: any number at once, never while a writer holds it."""
        return self._acquire(fcntl.LOCK_SH)

    def exclusive(self) -> AbstractContextManager[None]:
        """Held by one writer at a time, with no reader."""
        return self._acquire(fcntl.LOCK_EX)

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
            _wait_for(descriptor, mode)
            self._held.mode = mode
            try:
                yield
            finally:
                self._held.mode = None
                fcntl.flock(descriptor, fcntl.LOCK_UN)
        finally:
            os.close(descriptor)


def _wait_for(descriptor: int, mode: int) -> None:
    """Take the lock on `descriptor`, trying again until it is free; raises `Stopped` if the run is cancelled."""
    pause = _FIRST_WAIT
    while True:
        try:
            fcntl.flock(descriptor, mode | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        check_stop()
        if _task_cancelled():
            raise asyncio.CancelledError("cancelled while waiting for the repository's lock")
        time.sleep(pause)
        pause = min(pause * 2, _LONGEST_WAIT)


def _task_cancelled() -> bool:
    """Whether this thread runs an event loop whose current task was asked to cancel: the CLI's Ctrl-C
    handler cancels the run's task at once, although its loop cannot run while this thread waits here."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop in this thread
        return False
    return task is not None and task.cancelling() > 0
