"""The run store and the checkpointer in the team's PostgreSQL database (`RESEARCH_DATABASE_URL`).

Runs, traces and checkpoints of every worker pointed at the database live together, so a run started by one
process is listed, shown, resumed or finished by any other. Connections are pooled (psycopg 3); the tables
are created on first use, one process at a time (an advisory lock), so workers starting together never race.
"""

from __future__ import annotations

import asyncio
import os
import socket
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from research_assistant.database import (
    DATABASE,
    SETUP_LOCK,
    connection_options,
    pool_for,
    pool_problem,
    probe,
    query,
)
from research_assistant.runs.records import RunRecord, RunStatus
from research_assistant.runs.store import RunStore
from research_assistant.servers import CONNECT_SECONDS, ServerUnavailable

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver


class PostgresRunStore(RunStore):
    """`RunStore` over the team's database: the same records and events, in tables `research_runs` and
    `research_events`."""

    def __init__(self, url: str) -> None:  # no SQLite file: the pool is the process's
        self.url = url
        self._lock = threading.Lock()
        pool_for(url, os.getpid())  # connects, and creates the tables, now

    def close(self) -> None:
        """Nothing to do: the pool is shared by every store of this process and closed with it."""

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        return query(self.url, sql, params)

    def _put(self, run_id: str, started_at: float, record: str) -> None:
        self._query(
            "INSERT INTO research_runs (run_id, started_at, record, host) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (run_id) DO UPDATE SET record = excluded.record, host = excluded.host",
            (run_id, started_at, record, socket.gethostname()),
        )

    def _current(self, record: RunRecord) -> RunRecord:
        """As embedded, but only for runs last written on this machine: a process id says nothing about a run
        another machine's worker is running, which stays `running` here."""
        if record.status is RunStatus.RUNNING:
            rows = self._query("SELECT host FROM research_runs WHERE run_id = %s", (record.run_id,))
            if rows and rows[0]["host"] not in ("", socket.gethostname()):
                return record
        return super()._current(record)

    def _record(self, run_id: str) -> str | None:
        rows = self._query("SELECT record FROM research_runs WHERE run_id = %s", (run_id,))
        return str(rows[0]["record"]) if rows else None

    def _ids_starting(self, prefix: str, limit: int) -> list[str]:
        rows = self._query(
            "SELECT run_id FROM research_runs WHERE left(run_id, %s) = %s LIMIT %s", (len(prefix), prefix, limit)
        )
        return [str(row["run_id"]) for row in rows]

    def _latest(self, limit: int) -> list[str]:
        rows = self._query("SELECT record FROM research_runs ORDER BY started_at DESC LIMIT %s", (limit,))
        return [str(row["record"]) for row in rows]

    def delete(self, run_id: str) -> bool:
        self._query("DELETE FROM research_events WHERE run_id = %s", (run_id,))
        return bool(self._query("DELETE FROM research_runs WHERE run_id = %s RETURNING run_id", (run_id,)))

    def _put_event(self, run_id: str, seq: int, event: str) -> None:
        self._query(
            "INSERT INTO research_events (run_id, seq, event) VALUES (%s, %s, %s) "
            "ON CONFLICT (run_id, seq) DO UPDATE SET event = excluded.event",
            (run_id, seq, event),
        )

    def _events(self, run_id: str) -> list[str]:
        rows = self._query("SELECT event FROM research_events WHERE run_id = %s ORDER BY seq", (run_id,))
        return [str(row["event"]) for row in rows]

    def _last_seq(self, run_id: str) -> int | None:
        rows = self._query("SELECT MAX(seq) AS last FROM research_events WHERE run_id = %s", (run_id,))
        last = rows[0]["last"] if rows else None
        return None if last is None else int(last)


@asynccontextmanager
async def open_postgres_checkpointer(url: str) -> AsyncIterator[AsyncPostgresSaver]:
    """LangGraph's Postgres checkpointer with our pickle-free, scrubbing serializer, over a pool opened for this
    event loop; its tables are created or migrated first (one process at a time)."""
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg import OperationalError
    from psycopg_pool import AsyncConnectionPool, PoolTimeout

    from research_assistant.runs.checkpoints import safe_serializer

    await asyncio.to_thread(probe, url)
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        url, min_size=1, max_size=4, kwargs=connection_options(), open=False, timeout=CONNECT_SECONDS
    )
    try:
        await pool.open(wait=True, timeout=CONNECT_SECONDS)
        saver = AsyncPostgresSaver(pool, serde=safe_serializer())
        async with pool.connection() as connection:
            await connection.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK,))
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
