"""Concurrency limits that survive event loops.

Services live for the whole process, but every research may run in a new
event loop (the page starts one per question), and an `asyncio.Semaphore`
belongs to the loop it first waits in. These limits are kept per loop, and
forgotten with it.

Work that runs in a worker thread (indexing, retrieval) outlives the task that
awaits it: cancelling the task (Ctrl-C, the page's Stop, a deadline) does not
stop the thread, and the process cannot end until it does. `in_thread` runs
such work so that cancelling the awaiting task asks the thread to stop, and
the work calls `check_stop()` wherever it can stop cleanly (between batches,
while waiting for a lock).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
import weakref
from collections.abc import Callable, Hashable
from typing import ParamSpec, TypeVar

_limits: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Hashable, asyncio.Semaphore]] = (
    weakref.WeakKeyDictionary()
)
_lock = threading.Lock()


def limit(key: Hashable, size: int) -> asyncio.Semaphore:
    """The running loop's semaphore for `key`, made with `size` slots on first use."""
    loop = asyncio.get_running_loop()
    with _lock:
        per_loop = _limits.setdefault(loop, {})
        if key not in per_loop:
            per_loop[key] = asyncio.Semaphore(size)
        return per_loop[key]


_P = ParamSpec("_P")
_T = TypeVar("_T")
_stop: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar("stop", default=None)


class Stopped(Exception):
    """Work in a thread stopped early because the task awaiting it was cancelled."""


async def in_thread(function: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
    """`asyncio.to_thread`, except that cancelling the awaiting task makes `check_stop()` raise `Stopped` in the
    thread, so the thread ends at its next check instead of finishing its work."""
    stop = threading.Event()
    token = _stop.set(stop)  # the thread runs in a copy of this context, so it sees this event
    try:
        return await asyncio.to_thread(function, *args, **kwargs)
    except asyncio.CancelledError:
        stop.set()
        raise
    finally:
        _stop.reset(token)


def check_stop() -> None:
    """Raise `Stopped` when the task awaiting this thread's work (run by `in_thread`) was cancelled; otherwise do
    nothing."""
    stop = _stop.get()
    if stop is not None and stop.is_set():
        raise Stopped("stopped: the run was cancelled")
