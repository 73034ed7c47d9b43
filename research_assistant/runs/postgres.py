"""The run store and the checkpointer in the team's PostgreSQL database (`RESEARCH_DATABASE_URL`).

Runs, traces and checkpoints of every worker pointed at the database live together, so a run started by one
process is listed, shown, resumed or finished by any other. Connections are pooled (psycopg 3); the tables
are created on first use, one process at a time (an advisory lock), so workers starting together never race.

Whether a `running` run still runs is judged by its process id only on the machine that runs it. Elsewhere it
is judged by its lease: while a run goes, its worker renews the row's `heartbeat_at` every `HEARTBEAT_SECONDS`
(`Heartbeats`); a run on another machine whose heartbeat is older than `LEASE_SECONDS` (by the database's clock,
so the workers' clocks need not agree) was stopped with its worker, and shows, and resumes, as interrupted.
"""

from __future__ import annotations

import asyncio
import logging
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
    take_advisory_lock_async,
)
from research_assistant.runs.records import RunRecord, RunStatus
from research_assistant.runs.store import RunStore
from research_assistant.servers import CONNECT_SECONDS, ServerUnavailable

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

HEARTBEAT_SECONDS = 10.0
"""How often a worker renews the lease of each run it is running."""
LEASE_SECONDS = 60.0
"""How long a run's heartbeat may be silent before another machine takes its worker for stopped: several missed
renewals, so that a busy worker or a slow database is not taken for a dead one."""

log = logging.getLogger(__name__)


class Heartbeats:
    """This process's runs in one database, whose leases a daemon thread renews while they run.

    One per database and process; the thread stops when no run is left and starts again with the next. A worker
    that dies (SIGKILL, a machine that stops) stops renewing, which is all another machine needs to see.
    """

    def __init__(self, url: str, every: float = HEARTBEAT_SECONDS) -> None:
        self.url = url
        self.every = every
        self._runs: set[str] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def running(self, run_id: str) -> None:
        with self._lock:
            self._runs.add(run_id)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._beat, name="run-heartbeat", daemon=True)
                self._thread.start()

    def ended(self, run_id: str) -> None:
        with self._lock:
            self._runs.discard(run_id)

    @property
    def runs(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._runs)

    def renew(self) -> None:
        """Renew the lease of every run this process is running (those another worker took over excepted)."""
        runs = sorted(self.runs)
        if runs:
            query(
                self.url,
                "UPDATE research_runs SET heartbeat_at = now() WHERE run_id = ANY(%s) AND host = %s",
                (runs, socket.gethostname()),
            )

    def _beat(self) -> None:
        while not self._wake.wait(self.every):
            with self._lock:
                if not self._runs:
                    self._thread = None
                    return
            try:
                self.renew()
            except Exception as error:  # a database that is down for a while: the next beat tries again
                log.warning("could not renew the runs' heartbeat: %s", error)


_HEARTBEATS: dict[tuple[str, int], Heartbeats] = {}
_HEARTBEATS_LOCK = threading.Lock()


def heartbeats(url: str) -> Heartbeats:
    """This process's `Heartbeats` for the database at `url` (a forked child has its own)."""
    with _HEARTBEATS_LOCK:
        return _HEARTBEATS.setdefault((url, os.getpid()), Heartbeats(url))


class PostgresRunStore(RunStore):
    """`RunStore` over the team's database: the same records and events, in tables `research_runs` and
    `research_events`, and a lease for each running run (`heartbeat_at`)."""

    def __init__(self, url: str) -> None:  # no SQLite file: the pool is the process's
        self.url = url
        self._lock = threading.Lock()
        pool_for(url, os.getpid())  # connects, and creates the tables, now

    def close(self) -> None:
        """Nothing to do: the pool is shared by every store of this process and closed with it."""

    def save(self, record: RunRecord) -> None:
        """As embedded; a run this process is running also has its lease renewed until it is saved ended."""
        super().save(record)
        beats = heartbeats(self.url)
        if record.status is RunStatus.RUNNING and record.pid == os.getpid():
            beats.running(record.run_id)
        else:
            beats.ended(record.run_id)

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        return query(self.url, sql, params)

    def _put(self, run_id: str, started_at: float, record: str) -> None:
        self._query(
            "INSERT INTO research_runs (run_id, started_at, record, host, heartbeat_at) VALUES (%s, %s, %s, %s, now()) "
            "ON CONFLICT (run_id) DO UPDATE SET record = excluded.record, host = excluded.host, "
            "heartbeat_at = excluded.heartbeat_at",
            (run_id, started_at, record, socket.gethostname()),
        )

    def _current(self, record: RunRecord) -> RunRecord:
        """As embedded for runs last written on this machine (a process id says nothing about another machine's
        processes); a run another machine's worker is running is judged by its lease instead: silent for longer
        than `LEASE_SECONDS`, its worker stopped and it was interrupted."""
        if record.status is RunStatus.RUNNING:
            rows = self._query(
                "SELECT host, EXTRACT(EPOCH FROM now() - heartbeat_at) AS silent FROM research_runs WHERE run_id = %s",
                (record.run_id,),
            )
            if rows and rows[0]["host"] not in ("", socket.gethostname()):
                silent = rows[0]["silent"]
                if silent is None or float(silent) <= LEASE_SECONDS:  # renewed lately, or by a worker without leases
                    return record
                record = record.model_copy(update={"status": RunStatus.INTERRUPTED, "pid": None})
                self.save(record)
                return record
        return super()._current(record)

    def silent_seconds(self, run_id: str) -> float | None:
        """How long ago the run's lease was last renewed, by the database's clock; None when never."""
        rows = self._query(
            "SELECT EXTRACT(EPOCH FROM now() - heartbeat_at) AS silent FROM research_runs WHERE run_id = %s", (run_id,)
        )
        silent = rows[0]["silent"] if rows else None
        return None if silent is None else float(silent)

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
