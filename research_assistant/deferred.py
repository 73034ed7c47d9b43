"""A value made once: on first use, or ahead of it in a background thread.

Opening the research repository imports Chroma and LlamaIndex, which takes
seconds; the first steps of a run (analysis, planning) need neither. A run's
services hold such things as `Deferred` values: the runner warms them in a
background thread while the first steps run, and the step that first needs one
waits for it (an async step without blocking the event loop, so Ctrl-C still
cancels the run at once).

Background work runs in a daemon thread, not in an executor: a cancelled run
must not wait at exit for an import it no longer needs.

Some libraries' packages import far more on `import` than the parts a run uses
(`defer_library_inits`): their `__init__` runs only when something asks the
package for a name it defines, and their submodules import without it.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import logging
import sys
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


DEFERRED_INITS = (
    "langgraph_sdk",
    "langsmith.types",
    "nltk",
    "nltk.tokenize",
    "llama_index.core",
    "llama_index.core.vector_stores",
    "trio",
    "tavily",
)
"""Packages whose `__init__` imports much that a run never uses, while what it does use is in submodules:

- `langgraph_sdk`: LangGraph's client for its server, with httpx, websockets and rich (about 0.15 s of CPU).
  LangGraph itself imports only `langgraph_sdk.auth.types`, for a protocol.
- `langsmith.types`: some 150 modules of LangSmith's API types (about 0.2 s); LangChain's tracer, which
  LangGraph imports, needs one of them (`run_select_field`).
- `nltk`: everything NLTK has, SciPy's statistics among it (about 0.6 s); sentence splitting needs only
  `nltk.tokenize.punkt`.
- `nltk.tokenize`: every tokenizer NLTK has, and `nltk.data` with its feature structures and logic parsers for
  loading grammars (about 0.13 s of CPU); importing `nltk.tokenize.punkt` would run it first.
- `llama_index.core` and `llama_index.core.vector_stores`: all of LlamaIndex, its chat engines, agents, workflows
  and SQLAlchemy among it (about 1 s); what a run uses of LlamaIndex is in submodules (its node schema, say),
  which need neither `__init__`. Asking either
  package for a name (`from llama_index.core import Settings`, as making any `BaseEmbedding` does) runs its
  `__init__` then, in LlamaIndex's own order. Importing one of the modules that take part in LlamaIndex's import
  cycle (`llama_index.core.storage`, `.indices`, `.memory`, `.vector_stores.simple`, ...) before that would fail,
  and nothing here does.
- `trio`: an async library that httpcore (under httpx) imports whenever it is installed, to tell which library it
  runs under (about 0.06 s of CPU in every process that makes an HTTP request); every run uses asyncio, so nothing
  asks trio for a name.
- `tavily`: tavily-python's synchronous client (with requests), its hybrid RAG client and the asynchronous one with
  tiktoken (about 0.05 s); a web search needs only `tavily.async_tavily` and `tavily.errors`.
"""

DEFERRED_SUBPACKAGES = ("numpy.f2py", "numpy.testing", "numpy.ma", "numpy.polynomial")
"""Subpackages whose `__init__` is deferred like those in `DEFERRED_INITS`, but only once their parent package is
imported: deferring one imports its parent, and these parents are libraries that a run's first steps must not
wait for.

- numpy's `f2py`, `testing` (with unittest), `ma` and `polynomial`: SciPy's import (under bm25s) asks numpy for
  every name it has, to copy them into its array API namespace, and so imports all four (about 0.08 s of CPU in
  every process that opens the repository); nothing uses them. The repository's module imports numpy and calls
  `defer_library_inits` before it imports bm25s.
"""


UNUSED_COMMAND_LINES = ("httpx._main",)
"""Modules of a library's own command line that its package imports whenever it can, only to offer it as a
function, and does without when the command line's dependencies are missing:

- `httpx._main`: the `httpx` command (click, rich and pygments; about 0.05 s of CPU in every process that imports
  httpx, which every run does). `httpx.main` then says that the command line is not installed; nothing here calls
  it, and the `httpx` command on the shell is a process of its own, which imports it as usual.

Marked as missing (`None` in `sys.modules`), so that the package takes its path for missing dependencies.
"""


def defer_library_inits() -> None:
    """Defer the `__init__` of each package in `DEFERRED_INITS` that is not imported yet, and of each in
    `DEFERRED_SUBPACKAGES` whose parent is (see `defer_package_init`), and leave out the command lines in
    `UNUSED_COMMAND_LINES` of packages not imported yet. Call it before LangGraph (or httpx) is first imported,
    and again once the parent of one of `DEFERRED_SUBPACKAGES` is; what it did already it does not do again."""
    for name in DEFERRED_INITS:
        defer_package_init(name)
    for name in DEFERRED_SUBPACKAGES:
        if name.rpartition(".")[0] in sys.modules:
            defer_package_init(name)
    for name in UNUSED_COMMAND_LINES:
        if name.rpartition(".")[0] not in sys.modules:
            sys.modules.setdefault(name, None)  # type: ignore[arg-type]
    library = logging.getLogger("llama_index.core")  # as `llama_index.core`'s `__init__` sets it up
    if not library.handlers:
        library.addHandler(logging.NullHandler())


def defer_package_init(name: str) -> None:
    """Import package `name` without running its `__init__` yet: it runs, once, when something first asks the
    package for a name that is not one of its submodules (`from nltk import word_tokenize`, `nltk.__version__`).

    Until then the package's submodules import as usual (`from nltk.tokenize.punkt import ...` runs
    `nltk/tokenize/__init__.py` and `punkt.py`, not `nltk/__init__.py`), and asking the package for a submodule
    imports that submodule. A package that is imported already, or cannot be found, is left alone.
    """
    if name in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(name)
    except ImportError:  # its parent package cannot be imported: leave the import, and its error, to the user
        return
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader
    lock = threading.RLock()
    state = {"init": "pending"}

    def __getattr__(attribute: str) -> Any:  # the module-level hook of PEP 562
        if state["init"] == "pending" and not attribute.startswith("__"):
            submodule = f"{name}.{attribute}"
            if submodule in sys.modules or importlib.util.find_spec(submodule) is not None:
                return importlib.import_module(submodule)
        with lock:  # another thread asking meanwhile waits for the whole `__init__`, as for any import
            if state["init"] == "pending":
                state["init"] = "running"
                try:
                    loader.exec_module(module)
                except BaseException:
                    state["init"] = "pending"
                    raise
                state["init"] = "done"
            elif state["init"] == "running":  # asked by its own `__init__`: a partly initialized module
                raise AttributeError(f"partially initialized module {name!r} has no attribute {attribute!r}")
        namespace = vars(module)
        if attribute in namespace:
            return namespace[attribute]
        getattr_of_init = namespace.get("__getattr__")
        if getattr_of_init is not None and getattr_of_init is not __getattr__:
            return getattr_of_init(attribute)
        raise AttributeError(f"module {name!r} has no attribute {attribute!r}")

    module.__getattr__ = __getattr__  # type: ignore[method-assign]
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)
