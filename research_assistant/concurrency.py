"""Concurrency limits that survive event loops.

Services live for the whole process, but every research may run in a new
event loop (the page starts one per question), and an `asyncio.Semaphore`
belongs to the loop it first waits in. These limits are kept per loop, and
forgotten with it.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Hashable

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
