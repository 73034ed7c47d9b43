"""A value made once: on first use, or ahead of it in a background thread.

Opening the research repository imports Chroma and LlamaIndex, which takes
seconds; the first steps of a run (analysis, planning) need neither. A run's
services hold such things as `Deferred` values: the runner warms them in a
background thread while the first steps run, and the step that first needs one
waits for it (an async step without blocking the event loop, so Ctrl-C still
cancels the run at once).

Background work runs in a daemon thread, not in an executor: a cancelled run
must not wait at exit for an import it no longer needs.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Deferred(Generic[T]):
    """`make()`'s result, made by whoever asks first; a failure is raised to everyone who asks."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make = make
        self._future: Future[T] = Future()
        self._claimed = False
        self._lock = threading.Lock()

    def _claim(self) -> bool:
        """Whether the caller is the first to ask, and so makes the value."""
        with self._lock:
            if self._claimed:
                return False
            self._claimed = True
        self._future.set_running_or_notify_cancel()  # a cancelled wait must not cancel the making
        return True

    def _run(self) -> None:
        try:
            self._future.set_result(self._make())
        except BaseException as error:  # whoever waits gets the error, in their own thread
            self._future.set_exception(error)

    @property
    def ready(self) -> bool:
        """Whether the value (or its failure) is there, so that asking does not wait."""
        return self._future.done()

    def get(self) -> T:
        """The value: made here if nobody has started it, otherwise waited for."""
        if self._claim():
            self._run()
        return self._future.result()

    async def wait(self) -> T:
        """The value, made in a background thread if nobody has started it; the event loop stays free."""
        if self._claim():
            threading.Thread(target=self._run, name="deferred", daemon=True).start()
        return await asyncio.wrap_future(self._future)


def warm(values: Sequence[Deferred[Any]], *also: Callable[[], object]) -> threading.Thread | None:
    """Make `values` in order, then call `also`, in one background daemon thread; None when there is nothing to do.

    A value that fails stops the warm-up; the step that needs it raises the failure.
    """
    if not values and not also:
        return None

    def run() -> None:
        try:
            for value in values:
                value.get()
            for call in also:
                call()
        except BaseException:  # kept by the Deferred: the step that needs the value raises it
            return

    thread = threading.Thread(target=run, name="warm-up", daemon=True)
    thread.start()
    return thread
