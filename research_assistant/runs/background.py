"""A research run on its own thread and event loop, for interfaces that must stay responsive.

The Streamlit page reruns its script on every click, so it cannot own the
event loop a run lives on. A `BackgroundRun` keeps the run going across
reruns, collects its trace events for the page to show, and cancels it on
request: the run's task is cancelled on its own loop, which ends the step in
flight within moments and records the run as cancelled.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from research_assistant.runs.records import TraceEvent
from research_assistant.runs.trace import EventCallback

Work = Callable[[EventCallback], Coroutine[Any, Any, dict[str, Any]]]


class BackgroundRun:
    def __init__(self, work: Work) -> None:
        """`work(on_event)` is the run, e.g. `lambda on_event: run_research(question, context, on_event)`."""
        self._work = work
        self._lock = threading.Lock()
        self._events: list[TraceEvent] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[dict[str, Any]] | None = None
        self._cancel_requested = False
        self.result: dict[str, Any] | None = None
        self.error: BaseException | None = None
        self.cancelled = False
        self._thread = threading.Thread(target=self._run, name="research-run", daemon=True)

    def start(self) -> BackgroundRun:
        self._thread.start()
        return self

    @property
    def done(self) -> bool:
        return self._thread.ident is not None and not self._thread.is_alive()

    @property
    def events(self) -> list[TraceEvent]:
        with self._lock:
            return list(self._events)

    def cancel(self) -> None:
        """Ask the run to stop; it ends within moments (`wait` to be sure)."""
        with self._lock:  # held so that the loop cannot close in between: `_main` lets go of it under this lock
            self._cancel_requested = True
            if self._loop is not None and self._task is not None:
                self._loop.call_soon_threadsafe(self._task.cancel)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the run has ended or `timeout` seconds passed; whether it has ended."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _record(self, event: TraceEvent) -> None:
        with self._lock:
            self._events.append(event)

    def _run(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        task = asyncio.ensure_future(self._work(self._record))
        with self._lock:
            self._loop, self._task = asyncio.get_running_loop(), task
            if self._cancel_requested:
                task.cancel()
        try:
            self.result = await task
        except asyncio.CancelledError:
            self.cancelled = True
        except Exception as error:  # handed to the page, which says what went wrong
            self.error = error
        finally:
            with self._lock:  # the loop closes after this: a Stop pressed from now on has nothing to cancel
                self._loop, self._task = None, None
