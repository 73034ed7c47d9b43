"""`langgraph dev` (LangGraph Studio's local server) serves the research graph from the root `langgraph.json`.

The server is started as Studio users start it, from the project root with the real configuration, and a
research runs through it with the `langgraph_sdk` client: a thread, a run with a runtime context given as
JSON (so every path, the depth and the source kinds arrive as plain strings). Its checkpointer is the one
`langgraph.json` names (`graphs/checkpointer.py`), the project's own: the SQLite file under `RESEARCH_DB_DIR`, or,
with `RESEARCH_DATABASE_URL`, LangGraph's Postgres checkpointer on the team's database (a real PostgreSQL started
on loopback), where the project reads the thread's final state back itself. Nothing leaves the machine:
analytics, the version check and tracing are switched off.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient
from support.citations import check_rendered_citations
from support.server_process import Server, free_port, stop, wait_until_ready
from support.team_servers import Postgres, postgres

from research_assistant.corpus.files import SUPPORTED_SUFFIXES
from research_assistant.corpus.loaders import load_file
from research_assistant.report.verify import parse_sources
from research_assistant.runs.checkpoints import open_postgres_checkpointer, open_sqlite_checkpointer

__all__ = ["postgres"]  # the fixture

pytest.importorskip("langgraph_cli", reason="the langgraph CLI is not installed: pip install 'langgraph-cli[inmem]'")

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "langgraph.json"
CORPUS = ROOT / "examples" / "python-memory"
QUESTION = "How does Python manage memory and reclaim reference cycles?"
GRAPH_ID = "research"

STARTUP_SECONDS = 60.0
RUN_SECONDS = 180.0
SHUTDOWN_SECONDS = 15.0

OFFLINE_ENV = {
    "LANGGRAPH_CLI_NO_ANALYTICS": "1",  # the CLI's usage report
    "LANGGRAPH_NO_VERSION_CHECK": "true",  # the server's look-up of its latest release on PyPI
    "LANGSMITH_TRACING": "false",
    "LANGSMITH_TRACING_V2": "false",
    "LANGCHAIN_TRACING": "false",
    "LANGCHAIN_TRACING_V2": "false",
}
UNSET_ENV = ("LANGSMITH_CONTROL_PLANE_API_KEY", "LANGGRAPH_CLOUD_LICENSE_KEY")
"""Either would start the server's metadata reports to LangSmith."""


@dataclass
class Served:
    server: Server
    client: SyncLangGraphClient
    db_dir: Path
    """The server's `RESEARCH_DB_DIR`: where the embedded checkpointer keeps its threads."""


@contextmanager
def langgraph_dev(workdir: Path, settings: dict[str, str]) -> Iterator[Served]:
    """`langgraph dev` from the project root with the root `langgraph.json`, the environment plus `settings`."""
    port = free_port()
    env = {**os.environ, **OFFLINE_ENV}
    for name in UNSET_ENV:
        env.pop(name, None)
    env.pop("RESEARCH_DATABASE_URL", None)
    # Defaults for a run that names no folders: keep them out of the project.
    env["RESEARCH_DB_DIR"] = str(workdir / "default-db")
    env["RESEARCH_CACHE_DIR"] = str(workdir / "default-cache")
    env.update(settings)
    # The in-memory server keeps its threads' metadata in `.langgraph_api/` under the working directory.
    persistence = ROOT / ".langgraph_api"
    persistence_existed = persistence.exists()
    server = Server(url=f"http://127.0.0.1:{port}", log=workdir / "server.log")
    command = [
        sys.executable, "-m", "langgraph_cli", "dev",
        "--config", str(CONFIG),
        "--host", "127.0.0.1", "--port", str(port),
        "--no-browser", "--no-reload",
        "--allow-blocking",  # the graph's nodes do some synchronous file I/O (Chroma, caches)
    ]  # fmt: skip
    with server.log.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        wait_until_ready(process, server, "/ok", "langgraph dev", STARTUP_SECONDS)
        client = get_sync_client(url=server.url, api_key=None, timeout=30.0)
        yield Served(server, client, Path(env["RESEARCH_DB_DIR"]))
    finally:
        stop(process, SHUTDOWN_SECONDS)
        if not persistence_existed:
            shutil.rmtree(persistence, ignore_errors=True)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with langgraph_dev(tmp_path_factory.mktemp("langgraph-server"), {}) as served:
        yield served


@pytest.fixture(scope="module")
def client(served: Served) -> SyncLangGraphClient:
    return served.client


def wait_for_run(client: SyncLangGraphClient, server: Server, thread_id: str, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + RUN_SECONDS
    while time.monotonic() < deadline:
        run = client.runs.get(thread_id, run_id)
        if run["status"] not in ("pending", "running"):
            assert run["status"] == "success", f"the run ended {run['status']}:\n{server.log_tail()}"
            return dict(run)
        time.sleep(0.25)
    client.runs.cancel(thread_id, run_id)
    pytest.fail(f"the run did not finish within {RUN_SECONDS:.0f}s:\n{server.log_tail()}")


def corpus_texts() -> dict[str, str]:
    return {
        path.resolve().as_posix(): load_file(path).text
        for path in sorted(CORPUS.iterdir())
        if path.suffix.lower() in SUPPORTED_SUFFIXES
    }


def test_the_server_serves_the_research_graph_with_its_context_schema(client: SyncLangGraphClient) -> None:
    assistants = client.assistants.search(graph_id=GRAPH_ID)
    assert len(assistants) == 1
    schemas = client.assistants.get_schemas(assistants[0]["assistant_id"])
    context = schemas["context_schema"] or {}
    assert {"depth", "source_types", "corpus_dir", "db_dir", "cache_dir"} <= set(context["properties"])
    assert (schemas["input_schema"] or {})["required"] == ["question"]


def research_through(served: Served, folder: Path) -> str:
    """A quick local research run on a new thread; the thread's id, once the run succeeded."""
    thread = served.client.threads.create()
    context: dict[str, Any] = {
        "source_types": ["local"],
        "corpus_dir": str(CORPUS),
        "depth": "quick",
        "db_dir": str(folder / "db"),
        "cache_dir": str(folder / "cache"),
    }
    run = served.client.runs.create(thread["thread_id"], GRAPH_ID, input={"question": QUESTION}, context=context)
    wait_for_run(served.client, served.server, thread["thread_id"], run["run_id"])
    return str(thread["thread_id"])


def check_report(markdown: str) -> None:
    assert markdown.strip(), "empty report"
    cited = parse_sources(markdown)
    assert cited, markdown
    assert all(Path(locator).parent == CORPUS for locator in cited.values())
    assert check_rendered_citations(markdown, corpus_texts()) == []
    assert "cycle" in markdown


def saved_state(saver_factory: Any, thread_id: str) -> dict[str, Any]:
    """The thread's latest checkpoint, read with the project's own checkpointer."""

    async def read() -> dict[str, Any]:
        async with saver_factory() as saver:
            saved = await saver.aget_tuple({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}})
        assert saved is not None, f"no checkpoint of thread {thread_id}"
        return dict(saved.checkpoint["channel_values"])

    return asyncio.run(read())


def test_a_research_run_through_the_server_gives_a_cited_report(served: Served, tmp_path: Path) -> None:
    thread_id = research_through(served, tmp_path)

    # The final state, as the checkpointer langgraph.json names kept it: the project's SQLite file.
    values = served.client.threads.get_state(thread_id)["values"]
    assert isinstance(values, dict)
    assert values["stop_reason"]
    check_report(values["report_markdown"])
    saved = saved_state(lambda: open_sqlite_checkpointer(served.db_dir), thread_id)
    assert saved["report_markdown"] == values["report_markdown"]


def test_with_a_database_setting_the_server_keeps_its_threads_in_the_teams_postgresql(
    postgres: Postgres, tmp_path: Path
) -> None:
    url = postgres.new_database("langgraph_server")
    with langgraph_dev(tmp_path, {"RESEARCH_DATABASE_URL": url}) as served:
        thread_id = research_through(served, tmp_path)
        values = served.client.threads.get_state(thread_id)["values"]
        assert isinstance(values, dict)
        check_report(values["report_markdown"])

    # The server is gone; the thread's state is in the database, where every worker's checkpoints are.
    saved = saved_state(lambda: open_postgres_checkpointer(url), thread_id)
    assert saved["report_markdown"] == values["report_markdown"]
    assert not (served.db_dir / "checkpoints.sqlite").exists()
    # The graph's own stores followed the setting too: the corpus's documents are in the team's cache.
    cached = postgres.psql("SELECT count(*) FROM research_cache", database="langgraph_server")
    assert cached != "[(0,)]", cached


def test_the_container_image_of_the_licensed_server_keeps_the_projects_checkpointer(tmp_path: Path) -> None:
    """`langgraph build` / `langgraph up` need Docker and a licence, not available here; the Dockerfile they build
    from is generated without either, and must hand the server the same checkpointer."""
    dockerfile = tmp_path / "Dockerfile"
    subprocess.run(
        [sys.executable, "-m", "langgraph_cli", "dockerfile", "--config", str(CONFIG), str(dockerfile)],
        cwd=ROOT, env={**os.environ, **OFFLINE_ENV}, check=True, capture_output=True, timeout=STARTUP_SECONDS,
    )  # fmt: skip
    lines = dockerfile.read_text(encoding="utf-8").splitlines()
    deps = f"/deps/{ROOT.name}"  # the image holds the project under its folder's name
    assert f'ENV LANGGRAPH_CHECKPOINTER=\'{{"path": "{deps}/graphs/checkpointer.py:checkpointer"}}\'' in lines
    assert f'ENV LANGSERVE_GRAPHS=\'{{"research": "{deps}/graphs/research.py:graph"}}\'' in lines
