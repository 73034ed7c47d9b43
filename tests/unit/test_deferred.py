"""`Deferred`: a value made once, by whoever asks first or by the warm-up thread; waiting never blocks the loop."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import pytest

from research_assistant.deferred import Deferred, warm


class Maker:
    """Counts its calls; waits for `release` when given one."""

    def __init__(self, value: str = "made", release: threading.Event | None = None) -> None:
        self.value, self.release, self.calls = value, release, 0

    def __call__(self) -> str:
        self.calls += 1
        if self.release is not None:
            self.release.wait()
        return self.value


def test_the_value_is_made_once_whoever_asks() -> None:
    make = Maker()
    deferred = Deferred(make)
    assert not deferred.ready and make.calls == 0  # nothing happens until someone asks

    threads = [threading.Thread(target=deferred.get) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert deferred.get() == "made" and deferred.ready and make.calls == 1


async def test_waiting_leaves_the_event_loop_free_and_a_cancelled_wait_does_not_undo_the_work() -> None:
    release = threading.Event()
    make = Maker(release=release)
    deferred = Deferred(make)

    waiting = asyncio.create_task(deferred.wait())
    await asyncio.sleep(0)  # the wait has started the background thread, which blocks on `release`
    waiting.cancel()  # as Ctrl-C does: the loop was free to deliver it
    with pytest.raises(asyncio.CancelledError):
        await waiting

    async def release_soon() -> None:
        release.set()  # only runs if waiting below leaves the loop free

    async with asyncio.timeout(60):  # a hang guard, not a timing check
        value, _ = await asyncio.gather(deferred.wait(), release_soon())
    assert value == "made" and make.calls == 1


async def test_a_failure_is_raised_to_everyone_who_asks() -> None:
    def broken() -> str:
        raise OSError("disk on fire")

    deferred = Deferred(broken)
    with pytest.raises(OSError, match="disk on fire"):
        await deferred.wait()
    with pytest.raises(OSError, match="disk on fire"):
        deferred.get()


def test_warm_makes_the_values_in_order_in_the_background_then_calls_the_rest() -> None:
    made: list[str] = []

    def maker(name: str, value: str) -> Callable[[], str]:
        def make() -> str:
            made.append(name)
            return value

        return make

    first, second = Deferred(maker("first", "a")), Deferred(maker("second", "b"))

    thread = warm([first, second], lambda: made.append("then"))
    assert thread is not None and thread.daemon  # a cancelled run never waits for it at exit
    thread.join()

    assert made == ["first", "second", "then"]
    assert (first.get(), second.get()) == ("a", "b") and made == ["first", "second", "then"]  # not made again


def test_warm_stops_at_a_failure_and_leaves_the_rest_to_whoever_needs_it() -> None:
    def broken() -> str:
        raise ValueError("no")

    later = Maker("later")
    thread = warm([Deferred(broken), Deferred(later)])
    assert thread is not None
    thread.join()
    assert later.calls == 0
    assert warm([]) is None  # nothing to warm: no thread
