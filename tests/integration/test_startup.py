"""Start-up: the command line loads only what a command needs, when it needs it.

A run's first steps (analysis, planning) need no repository, so the libraries behind it (Chroma, LlamaIndex,
NLTK with SciPy, BM25, the HTML parser) must not be imported before the first step starts; they load in a
background thread meanwhile, or on demand when a step needs them. Nor may what LangGraph's own import would pull
in and no run uses (LangGraph's server client with httpx, LangSmith's API types), and no run at all loads NLTK's
statistics with SciPy's: the packages' `__init__` is deferred (`deferred.defer_library_inits`). These tests check
which modules are loaded, in a fresh interpreter, not how long anything takes (`benchmarks/startup.py` measures
that).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from research_assistant.deferred import DEFERRED_INITS

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"

HEAVY = ("chromadb", "llama_index", "nltk", "scipy", "bm25s", "bs4", "lxml", "langchain_text_splitters", "onnxruntime")
"""Packages that take most of the time a run needs to get going, and that no first step uses."""

UNUSED = ("langgraph_sdk.client", "httpx", "websockets", "rich", "langsmith.types.run", "nltk.collocations")
"""Modules that LangGraph's and NLTK's packages would import on `import` and that no run uses (their `__init__` is
deferred): LangGraph's server client, with httpx, websockets and rich; LangSmith's API types; NLTK's statistics,
which import SciPy's."""

NEVER = (
    "scipy.stats",
    "nltk.collocations",
    "langgraph_sdk.client",
    "langsmith.types.run",
    "llama_index.core.indices",
    "nltk.data",
    "nltk.tokenize.casual",
    "numpy.f2py.f2py2e",
    "numpy.testing._private.utils",
    "numpy.ma.core",
    "unittest",
)
NEVER_PACKAGES = ("sqlalchemy", "rich", "click", "pygments")
"""Modules and packages that a whole run, start to end, never loads (httpx and SciPy's sparse matrices it does:
Chroma and BM25 use them): LlamaIndex's indices, chat engines and agents, with SQLAlchemy for its chat memory,
come with its package's `__init__`, while the repository uses only its node schema; NLTK's other tokenizers and
its grammar loading (`nltk.data`) come with `nltk.tokenize`'s, while sentences need only Punkt; numpy's f2py,
testing (with unittest) and masked arrays come with SciPy's import, which asks numpy for every name it has; httpx's
command line (rich, click, pygments) comes with httpx's `__init__`."""

# Runs the command line in this interpreter; when analyze_query starts, writes the modules loaded so far to the file
# named in argv[1], and those loaded when the run has ended to argv[2]. The background warm-up is switched off, so
# that what is loaded is decided by the code path alone (with it on, the warm-up thread races the first step), and
# what the later steps need must load on demand. The graph's module is imported first, as a run does before any node
# (it sets up LangGraph's imports), and the step is replaced there, where the graph is built from.
FIRST_STEP_PROBE = """
import json, sys
from pathlib import Path

import research_assistant.graph as graph
from research_assistant.services import Services

Services.warm_up = lambda self: None
original = graph.analyze_query
out, end = Path(sys.argv[1]), Path(sys.argv[2])


async def probed(state, runtime):
    if not out.exists():
        out.write_text(json.dumps(sorted(sys.modules)))
    return await original(state, runtime)


graph.analyze_query = probed
from research_assistant.cli import main

code = main(sys.argv[3:])
end.write_text(json.dumps(sorted(sys.modules)))
sys.exit(code)
"""


def python(code: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RESEARCH_DB_DIR": str(cwd / "db"), "RESEARCH_CACHE_DIR": str(cwd / "cache")}
    env.pop("RESEARCH_CORPUS_DIR", None)
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def packages(modules: list[str]) -> set[str]:
    """The top-level packages of `modules`; a package whose `__init__` is deferred (and the packages above it, which
    deferring it imports) counts once a submodule loads."""
    return {
        name.split(".")[0]
        for name in modules
        if not any(deferred == name or deferred.startswith(f"{name}.") for deferred in DEFERRED_INITS)
    }


def loaded_after(statement: str, cwd: Path) -> list[str]:
    """The modules loaded in a fresh interpreter after `statement`."""
    code = f"{statement}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = python(code, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return list(json.loads(done.stdout))


def test_the_command_line_loads_no_research_library_before_a_command_needs_it(tmp_path: Path) -> None:
    loaded = packages(loaded_after("import research_assistant.cli", tmp_path))
    assert not loaded & {*HEAVY, "langgraph", "langchain_core", "numpy"}  # `--help` and usage errors stay fast


def test_the_graph_loads_langgraph_without_what_no_run_uses(tmp_path: Path) -> None:
    loaded = loaded_after("import research_assistant.graph", tmp_path)
    assert "langgraph.graph" in loaded and "langgraph_sdk.auth.types" in loaded  # what LangGraph does use
    unused = set(loaded) & set(UNUSED)
    assert not unused, f"loaded with the graph: {sorted(unused)}"


def test_deferred_packages_still_give_whatever_is_asked_of_them(tmp_path: Path) -> None:
    statement = (
        "import research_assistant.graph, langgraph_sdk, nltk, tavily\n"
        "from nltk.tokenize import wordpunct_tokenize\n"
        "from langsmith.types import Run\n"
        "from llama_index.core.schema import TextNode\n"
        "from llama_index.core.vector_stores.utils import node_to_metadata_dict\n"
        "from llama_index.core import Settings, VectorStoreIndex\n"
        "from llama_index.core.vector_stores import SimpleVectorStore\n"
        "from llama_index.core.storage import StorageContext\n"
        "assert callable(langgraph_sdk.get_client) and nltk.FreqDist('aab')['a'] == 2 and Run\n"
        "assert wordpunct_tokenize('a b.') == ['a', 'b', '.'] and tavily.TavilyClient and tavily.AsyncTavilyClient\n"
        "assert node_to_metadata_dict(TextNode(text='t'))['_node_type'] == 'TextNode'\n"
        "assert Settings and VectorStoreIndex and SimpleVectorStore and StorageContext"
    )
    loaded = loaded_after(statement, tmp_path)  # the packages' `__init__` ran once they were asked for a name
    expected = {"langgraph_sdk.client", "nltk.collocations", "langsmith.types.run", "llama_index.core.indices"}
    assert expected | {"nltk.tokenize.casual", "tavily.tavily"} <= set(loaded)


def test_http_clients_load_without_httpx_command_line(tmp_path: Path) -> None:
    """httpx's package imports its command line (`httpx.main`, with rich, click and pygments) whenever those are
    installed; no run uses it (`deferred.UNUSED_COMMAND_LINES`)."""
    loaded = loaded_after(
        "import research_assistant.graph, httpx\nassert callable(httpx.main) and httpx.AsyncClient", tmp_path
    )
    assert "httpx" in loaded
    unused = packages(loaded) & {"rich", "click", "pygments"}
    assert not unused, f"loaded with httpx: {sorted(unused)}"


def test_numpy_subpackages_that_scipy_asks_for_load_only_when_used(tmp_path: Path) -> None:
    """SciPy's import (under bm25s, with the repository) asks numpy for every name it has; numpy's f2py, testing
    and masked arrays are deferred, and still there when asked (`deferred.DEFERRED_SUBPACKAGES`). SciPy is optional
    for bm25s (the project does not install it); without it nothing asks numpy for those subpackages."""
    if importlib.util.find_spec("scipy") is None:
        pytest.skip("SciPy is not installed: bm25s imports it only when present")
    loaded = loaded_after("import research_assistant.knowledge.repository", tmp_path)
    assert "scipy.sparse" in loaded and "scipy._lib._array_api" in loaded
    early = set(loaded) & {"numpy.f2py.f2py2e", "numpy.testing._private.utils", "numpy.ma.core", "unittest"}
    assert not early, f"loaded with the repository: {sorted(early)}"
    asked = loaded_after(
        "import research_assistant.knowledge.repository, numpy\n"
        "assert callable(numpy.testing.assert_array_equal) and callable(numpy.f2py.run_main)\n"
        "assert numpy.ma.masked_array([1, 2], mask=[0, 1]).sum() == 1 and numpy.polynomial.Polynomial([1])(2) == 1",
        tmp_path,
    )
    assert {"numpy.testing._private.utils", "numpy.f2py.f2py2e", "numpy.ma.core"} <= set(asked)


def test_a_tavily_search_loads_only_the_asynchronous_client(tmp_path: Path) -> None:
    """tavily-python's package imports its synchronous and hybrid clients too; a search needs neither."""
    statement = (
        f"import asyncio, sys\nsys.path.insert(0, {str(ROOT / 'tests')!r})\n"
        "import research_assistant.graph\n"
        "from support.fake_search_apis import FakeHit, FakeSearchApi\n"
        "from research_assistant.search.tavily import TavilyProvider\n"
        "with FakeSearchApi('tavily', api_key='k') as api:\n"
        "    api.results['q'] = [FakeHit('https://example.org/a', 'A', 'a', 0.5)]\n"
        "    found = asyncio.run(TavilyProvider('k', api.base_url + '/', timeout=30).search('q', 3))\n"
        "assert [hit.locator for hit in found] == ['https://example.org/a']"
    )
    loaded = loaded_after(statement, tmp_path)
    assert "tavily.async_tavily" in loaded
    unused = set(loaded) & {"tavily.tavily", "tavily.hybrid_rag"}
    assert not unused, f"loaded by a search: {sorted(unused)}"


def test_http_clients_load_no_trio_and_trio_still_gives_what_is_asked(tmp_path: Path) -> None:
    """httpcore, under httpx, imports trio whenever it is installed, only to tell which async library it runs under
    (every run uses asyncio): its `__init__` is deferred too."""
    pytest.importorskip("trio")
    loaded = loaded_after("import research_assistant.graph, httpx, httpcore", tmp_path)
    assert "httpcore" in loaded and "trio._core" not in loaded
    asked = loaded_after("import research_assistant.graph, httpcore, trio\nassert callable(trio.sleep)", tmp_path)
    assert "trio._core" in asked


@pytest.mark.slow
def test_a_run_starts_its_first_step_before_loading_the_repository_and_loads_it_when_needed(tmp_path: Path) -> None:
    first_step, end = tmp_path / "first-step.json", tmp_path / "end.json"
    args = ["run", "What is the tram fare?", "--corpus", str(CORPUS), "--depth", "quick", "--quiet", "--out", "r.md"]
    done = python(FIRST_STEP_PROBE, str(first_step), str(end), *args, cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    modules = json.loads(first_step.read_text())
    loaded = packages(modules)
    assert "langgraph" in loaded and "research_assistant" in loaded  # the probe saw a real first step
    early = loaded & {*HEAVY, "numpy"} | set(modules) & set(UNUSED)
    assert not early, f"loaded before the first step: {sorted(early)}"
    report = (tmp_path / "r.md").read_text(encoding="utf-8")
    assert "## Sources" in report and "fares" in report  # the repository opened on demand: the corpus was read
    at_end = set(json.loads(end.read_text()))
    assert {"chromadb", "nltk.tokenize.punkt"} <= at_end  # the probe saw the whole run
    never = at_end & set(NEVER) | packages(list(at_end)) & set(NEVER_PACKAGES)
    assert not never, f"loaded by the run: {sorted(never)}"
