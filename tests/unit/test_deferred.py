"""`Deferred`: a value made once, by whoever asks first or by the warm-up thread; waiting never blocks the loop."""

from __future__ import annotations

import asyncio
import importlib
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from research_assistant.deferred import Deferred, defer_package_init, warm


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
    assert make.calls == 0  # nothing happens until someone asks

    threads = [threading.Thread(target=deferred.get) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert deferred.get() == "made" and make.calls == 1


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


def _package(folder: Path, name: str) -> None:
    """A package whose `__init__` counts its runs and imports its `heavy` submodule; `light` is a submodule."""
    package = folder / name
    package.mkdir()
    (package / "__init__.py").write_text(
        "import builtins\n"
        f"builtins.{name}_inits = getattr(builtins, '{name}_inits', 0) + 1\n"
        f"from {name}.heavy import WEIGHT\n"
        "NAME = 'whole'\n"
    )
    (package / "heavy.py").write_text("WEIGHT = 100\n")
    (package / "light.py").write_text(f"from {name} import sub_only\nVALUE = 1\n")
    (package / "sub_only.py").write_text("")


def test_a_deferred_package_init_runs_once_when_a_name_it_defines_is_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import builtins

    name = "deferred_init_probe"
    _package(tmp_path, name)
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in [m for m in sys.modules if m.split(".")[0] == name]:
        monkeypatch.delitem(sys.modules, module)
    defer_package_init(name)

    light = importlib.import_module(f"{name}.light")  # a submodule, and `from package import submodule` in it
    assert light.VALUE == 1 and getattr(builtins, f"{name}_inits", 0) == 0
    assert f"{name}.heavy" not in sys.modules  # what only the `__init__` imports is not loaded

    package = sys.modules[name]
    assert package.NAME == "whole" and package.WEIGHT == 100  # asking for a name runs the `__init__`
    assert getattr(builtins, f"{name}_inits") == 1
    with pytest.raises(AttributeError):
        _ = package.missing
    assert getattr(builtins, f"{name}_inits") == 1  # once
    defer_package_init(name)  # already imported: left alone
    assert sys.modules[name] is package
    delattr(builtins, f"{name}_inits")
