"""The checkpointer LangGraph's server keeps the research graph's threads with (`langgraph.json`'s "checkpointer").

The server (`langgraph dev`, or the licensed container built by `langgraph build` / `langgraph up`) calls
`checkpointer()` once per event loop and enters what it returns. It is the one every CLI run and page run is saved
with (`runs.checkpoints.open_checkpointer`): LangGraph's Postgres checkpointer on the team's database when
`RESEARCH_DATABASE_URL` is set, else the SQLite file under `RESEARCH_DB_DIR`, both with the project's pickle-free
serializer. So threads a programmatic client runs through the server live in the same database as the team's
runs, and survive a restart of the server.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from research_assistant.runs.checkpoints import open_checkpointer
from research_assistant.settings import get_settings


def checkpointer() -> AbstractAsyncContextManager[BaseCheckpointSaver[Any]]:
    """The configured checkpointer, opened when the server enters it (a database that is down is one line:
    `servers.ServerUnavailable`)."""
    return open_checkpointer(get_settings().db_dir)
