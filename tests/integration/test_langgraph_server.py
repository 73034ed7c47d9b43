"""`langgraph dev` (LangGraph Studio's local server) serves the research graph from the root `langgraph.json`.

The server is started as Studio users start it, from the project root with the real configuration, and a
research runs through it with the `langgraph_sdk` client: a thread, a run with a runtime context given as
JSON (so every path, the depth and the source kinds arrive as plain strings), the platform's own
checkpointer. Nothing leaves the machine: analytics, the version check and tracing are switched off.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient
from support.server_process import Server, free_port, stop, wait_until_ready

from research_assistant.corpus.files import SUPPORTED_SUFFIXES
from research_assistant.corpus.loaders import load_file
from research_assistant.report.verify import check_rendered_citations, parse_sources

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


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    workdir = tmp_path_factory.mktemp("langgraph-server")
    port = free_port()
    env = {**os.environ, **OFFLINE_ENV}
    for name in UNSET_ENV:
        env.pop(name, None)
    # Defaults for a run that names no folders: keep them out of the project.
    env["RESEARCH_DB_DIR"] = str(workdir / "default-db")
    env["RESEARCH_CACHE_DIR"] = str(workdir / "default-cache")
    # The in-memory server keeps its threads and checkpoints in `.langgraph_api/` under the working directory.
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
        yield server
    finally:
        stop(process, SHUTDOWN_SECONDS)
        if not persistence_existed:
            shutil.rmtree(persistence, ignore_errors=True)


@pytest.fixture(scope="module")
def client(server: Server) -> SyncLangGraphClient:
    return get_sync_client(url=server.url, api_key=None, timeout=30.0)


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


def test_a_research_run_through_the_server_gives_a_cited_report(
    client: SyncLangGraphClient, server: Server, tmp_path: Path
) -> None:
    thread = client.threads.create()
    context: dict[str, Any] = {
        "source_types": ["local"],
        "corpus_dir": str(CORPUS),
        "depth": "quick",
        "db_dir": str(tmp_path / "db"),
        "cache_dir": str(tmp_path / "cache"),
    }
    run = client.runs.create(thread["thread_id"], GRAPH_ID, input={"question": QUESTION}, context=context)
    wait_for_run(client, server, thread["thread_id"], run["run_id"])

    # The final state, as the platform's checkpointer kept it.
    values = client.threads.get_state(thread["thread_id"])["values"]
    assert isinstance(values, dict)
    markdown = values["report_markdown"]
    assert markdown.strip(), f"empty report; state keys: {sorted(values)}"
    assert values["stop_reason"]
    cited = parse_sources(markdown)
    assert cited, markdown
    assert all(Path(locator).parent == CORPUS for locator in cited.values())
    assert check_rendered_citations(markdown, corpus_texts()) == []
    assert "cycle" in markdown
