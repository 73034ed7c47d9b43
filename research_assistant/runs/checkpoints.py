"""The checkpointer every run is saved with (SQLite, or the team's PostgreSQL), and the one serializer it may use.

LangGraph stores state as msgpack. Our records (pydantic models and enums)
come back by importing the class a checkpoint names, so the serializer
accepts only the classes of our own schema modules, and never falls back to
pickle: a tampered checkpoint file cannot make `resume` run arbitrary code.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from enum import Enum
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from research_assistant.database import (
    DATABASE,
    SETUP_LOCK,
    pool_options,
    pool_problem,
    probe,
    take_advisory_lock_async,
)
from research_assistant.servers import CONNECT_SECONDS, ServerUnavailable, database_url

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

CHECKPOINT_FILE = "checkpoints.sqlite"


def state_types(*modules: ModuleType) -> list[tuple[str, str]]:
    """(module, class) of every pydantic model and enum defined in `modules`."""
    return [
        (module.__name__, name)
        for module in modules
        for name, value in vars(module).items()
        if inspect.isclass(value) and value.__module__ == module.__name__ and issubclass(value, BaseModel | Enum)
    ]


def safe_serializer() -> JsonPlusSerializer:
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

    from research_assistant import context, schemas, state
    from research_assistant.secrets import scrub_bytes

    class ScrubbingSerializer(JsonPlusSerializer):
        """Every key the process knows is masked in what is written (a notice, a source's reason, a step's error
        may quote a key a provider echoed back); the mask keeps each string's length, so msgpack stays valid."""

        def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
            kind, payload = super().dumps_typed(obj)
            return kind, scrub_bytes(bytes(payload))

    return ScrubbingSerializer(pickle_fallback=False, allowed_msgpack_modules=state_types(schemas, state, context))


@asynccontextmanager
async def open_checkpointer(db_dir: Path) -> AsyncIterator[BaseCheckpointSaver[Any]]:
    """The run checkpointer, committed after every step: in the team's PostgreSQL database when
    `RESEARCH_DATABASE_URL` is set, else in `db_dir` (which the run store has created)."""
    url = database_url()
    opened: AbstractAsyncContextManager[BaseCheckpointSaver[Any]] = (
        open_postgres_checkpointer(url) if url else open_sqlite_checkpointer(db_dir)
    )
    async with opened as saver:
        yield saver


@asynccontextmanager
async def open_sqlite_checkpointer(db_dir: Path) -> AsyncIterator[AsyncSqliteSaver]:
    """The embedded checkpointer in `db_dir`, whatever the settings say (`migrate` reads it to copy it)."""
    import aiosqlite
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    from research_assistant.damage import checkpoints_remedy, naming, prepare_sqlite

    path = db_dir / CHECKPOINT_FILE
    prepare_sqlite(path, checkpoints_remedy(path))  # a garbled or emptied file is named: `DamagedStore`
    async with aiosqlite.connect(path, timeout=15) as connection:
        with naming(path, checkpoints_remedy(path)):
            await connection.execute("PRAGMA journal_mode=WAL")
            await connection.execute("PRAGMA synchronous=NORMAL")  # as the run store: safe when killed, fewer syncs
            saver = AsyncSqliteSaver(connection, serde=safe_serializer())
            await saver.setup()
        yield saver


@asynccontextmanager
async def open_postgres_checkpointer(url: str) -> AsyncIterator[AsyncPostgresSaver]:
    """LangGraph's Postgres checkpointer with our pickle-free, scrubbing serializer, over a pool opened for this
    event loop; its tables are created or migrated first (one process at a time)."""
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg import OperationalError
    from psycopg_pool import AsyncConnectionPool, PoolTimeout

    await asyncio.to_thread(probe, url)
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        url, **pool_options(), check=AsyncConnectionPool.check_connection
    )
    try:
        await pool.open(wait=True, timeout=CONNECT_SECONDS)
        saver = AsyncPostgresSaver(pool, serde=safe_serializer())
        async with pool.connection() as connection:
            await take_advisory_lock_async(connection, SETUP_LOCK)
            try:
                await saver.setup()
            finally:
                await connection.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
    except (OperationalError, PoolTimeout) as error:
        await pool.close()
        raise ServerUnavailable(DATABASE, url, pool_problem(error, url)) from None
    except BaseException:
        await pool.close()
        raise
    try:
        yield saver
    finally:
        await pool.close()


async def delete_checkpoints(db_dir: Path, run_id: str) -> None:
    """Every checkpoint of run `run_id` (its thread), gone; nothing to do when no run was ever checkpointed."""
    if not database_url() and not (db_dir / CHECKPOINT_FILE).exists():
        return
    async with open_checkpointer(db_dir) as saver:
        await saver.adelete_thread(run_id)
