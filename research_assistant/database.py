"""The team's PostgreSQL database (`RESEARCH_DATABASE_URL`): pooled connections and the tables every worker shares.

One pool per database and process (psycopg 3). The tables (run records, trace events, caches; LangGraph's
checkpointer creates its own) are created or migrated on a pool's first use, one process at a time under an
advisory lock, so workers starting together never race. A database that is down or refuses us is
`ServerUnavailable`, one line.

Our advisory locks are waited for by trying again (`pg_try_advisory_lock`), never inside a statement
(`pg_advisory_lock`). A statement that waits keeps its snapshot open all the while, and LangGraph's migrations
build indexes with `CREATE INDEX CONCURRENTLY`, which waits for every transaction in the database older than it
to end: a worker creating the checkpointer's tables under the setup lock would wait for the workers waiting for
that lock, which wait for it, and none of them would ever finish (PostgreSQL cannot see the cycle, since the lock
is held on one of the worker's connections and the index built on another).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from research_assistant.servers import CONNECT_SECONDS, ServerUnavailable, connect_with_retries

if TYPE_CHECKING:
    from psycopg import AsyncConnection, Connection
    from psycopg_pool import ConnectionPool

SETUP_LOCK = 7_318_452_016
"""The advisory lock key held while tables are created or migrated."""
LOCK_RETRY_SECONDS = 0.05
"""Longest pause between tries for an advisory lock someone else holds."""
LOCK_FIRST_RETRY_SECONDS = 0.002
"""First pause between tries, doubled after each try up to `LOCK_RETRY_SECONDS`: a lock held for a few milliseconds
(a revision counter's update) is handed over in about as long, not after a fixed 50 ms."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS research_runs (
    run_id TEXT PRIMARY KEY,
    started_at DOUBLE PRECISION NOT NULL,
    record TEXT NOT NULL
);
ALTER TABLE research_runs ADD COLUMN IF NOT EXISTS host TEXT NOT NULL DEFAULT '';
ALTER TABLE research_runs ADD COLUMN IF NOT EXISTS heartbeat_at TIMESTAMPTZ;
CREATE INDEX IF NOT EXISTS research_runs_started ON research_runs (started_at DESC);
CREATE TABLE IF NOT EXISTS research_events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS research_cache (
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    stored_at DOUBLE PRECISION NOT NULL,
    value BYTEA NOT NULL,
    PRIMARY KEY (kind, key)
);
"""

DATABASE = "the PostgreSQL database"


def connection_options() -> dict[str, Any]:
    """What every connection of ours is opened with: autocommit (each write commits at once, as in SQLite),
    no server-side prepared statements (poolers such as PgBouncer do not keep them), a short connect timeout."""
    from psycopg.rows import dict_row

    return {"autocommit": True, "prepare_threshold": None, "connect_timeout": CONNECT_SECONDS, "row_factory": dict_row}


def pool_options() -> dict[str, Any]:
    """What every pool of ours is opened with besides its connection check (`check_connection`, which replaces a
    connection the server closed when it is taken): up to 4 connections, opened by the caller."""
    return {"min_size": 1, "max_size": 4, "kwargs": connection_options(), "open": False, "timeout": CONNECT_SECONDS}


@functools.cache
def pool_for(url: str, pid: int) -> ConnectionPool[Any]:
    """One pool per database and process (a forked child opens its own); tables created on its first use."""
    from psycopg import OperationalError
    from psycopg_pool import ConnectionPool, PoolTimeout

    probe(url)
    pool: ConnectionPool[Any] = ConnectionPool(url, **pool_options(), check=ConnectionPool.check_connection)

    try:
        pool.open(wait=True, timeout=CONNECT_SECONDS)
        with pool.connection() as connection:
            take_advisory_lock(connection, SETUP_LOCK)
            try:
                for statement in SCHEMA.split(";"):
                    if statement.strip():
                        connection.execute(statement)
            finally:
                connection.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
    except (OperationalError, PoolTimeout) as error:
        pool.close()
        raise ServerUnavailable(DATABASE, url, pool_problem(error, url)) from None
    except BaseException:
        pool.close()
        raise
    return pool


def pool_problem(error: BaseException, url: str) -> BaseException | str:
    """Why the pool could not connect: the last connection error it saw, rather than its timeout."""
    from psycopg import OperationalError

    if not isinstance(error, OperationalError) and "couldn't get a connection" not in str(error):
        return error
    try:
        connect(url).close()
    except Exception as direct:
        return direct
    return error


def connect(url: str) -> Connection[Any]:
    """A direct connection to the database, tried again (`connect_with_retries`) while the server does not answer
    or drops the connection; a refusal that the server states (a wrong password, a missing database: errors with
    an SQLSTATE) is raised at once."""
    import psycopg

    return connect_with_retries(
        lambda: psycopg.connect(url, connect_timeout=CONNECT_SECONDS),
        lambda error: isinstance(error, psycopg.OperationalError) and error.sqlstate is None,
    )


_reached: set[tuple[str, int]] = set()
"""The databases (URL, process id) this process has probed successfully."""


def probe(url: str) -> None:
    """Connect once, directly: a database that is down is said at once, in one line (`ServerUnavailable`),
    rather than after the pool's retries, each of which it would log.

    Once per database and process: a run opens its checkpointer's pool right after its run store's, whose probe
    has just reached the database, and another connection (a server process forked, a password exchanged) would
    learn nothing more. A pool that cannot connect later still says why in one line (`pool_problem`)."""
    import psycopg

    key = (url, os.getpid())
    if key in _reached:
        return
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)  # our own line says what is wrong, once
    try:
        connect(url).close()
    except psycopg.Error as error:
        raise ServerUnavailable(DATABASE, url, error) from None
    _reached.add(key)


def take_advisory_lock(
    connection: Connection[Any], key: int, wait: Callable[[], None] = lambda: None, *, shared: bool = False
) -> None:
    """Take the session advisory lock `key` on `connection` (`shared`: alongside other shared holders, never
    alongside an exclusive one), trying again until it is free; `wait` is called between tries (it may raise to
    stop waiting). No statement stays open while the lock is waited for, so a holder's `CREATE INDEX
    CONCURRENTLY` does not wait for its waiters (see the module's docstring)."""
    function = "pg_try_advisory_lock_shared" if shared else "pg_try_advisory_lock"
    pause = LOCK_FIRST_RETRY_SECONDS
    while True:
        row = connection.execute(f"SELECT {function}(%s) AS got", (key,)).fetchone()
        if row is not None and row["got"]:
            return
        wait()
        time.sleep(pause)
        pause = min(pause * 2, LOCK_RETRY_SECONDS)


async def take_advisory_lock_async(connection: AsyncConnection[Any], key: int) -> None:
    """`take_advisory_lock` on an asynchronous connection."""
    pause = LOCK_FIRST_RETRY_SECONDS
    while True:
        row = await (await connection.execute("SELECT pg_try_advisory_lock(%s) AS got", (key,))).fetchone()
        if row is not None and row["got"]:
            return
        await asyncio.sleep(pause)
        pause = min(pause * 2, LOCK_RETRY_SECONDS)


def check_database(url: str) -> str:
    """A one-line description of the reachable database (its version); `ServerUnavailable` when it is not."""
    try:
        with connect(url) as connection:
            row = connection.execute("SHOW server_version").fetchone()
    except Exception as error:
        raise ServerUnavailable(DATABASE, url, error) from None
    return f"PostgreSQL {row[0] if row else '?'}"


def query(url: str, sql: str, params: tuple[Any, ...] = (), *, idempotent: bool = False) -> list[dict[str, Any]]:
    """Run one statement on a pooled connection (autocommit): its rows, as dicts ([] for a write).

    `idempotent`: the statement may run twice to the same effect (a read, an upsert, a delete by key), so one whose
    connection was lost on the way (the server restarted, the connection dropped) is tried again on another
    connection (`connect_with_retries`). Other statements are not: the lost one may have been carried out."""
    from psycopg import OperationalError
    from psycopg_pool import PoolTimeout

    pool = pool_for(url, os.getpid())

    def run() -> list[dict[str, Any]]:
        with pool.connection() as connection:
            cursor = connection.execute(sql, params)
            return list(cursor.fetchall()) if cursor.description else []

    try:
        if not idempotent:
            return run()
        return connect_with_retries(run, lambda error: isinstance(error, OperationalError) and error.sqlstate is None)
    except (OperationalError, PoolTimeout) as error:
        raise ServerUnavailable(DATABASE, url, pool_problem(error, url)) from None


class SharedCache:
    """One kind of cache entry (documents, searches, model replies) in the team's table `research_cache`,
    keyed like the embedded cache's files, so every worker reuses what any other has fetched or asked."""

    def __init__(self, url: str, kind: str) -> None:
        self.url = url
        self.kind = kind

    def get(self, key: str) -> bytes | None:
        rows = query(
            self.url, "SELECT value FROM research_cache WHERE kind = %s AND key = %s", (self.kind, key), idempotent=True
        )
        return bytes(rows[0]["value"]) if rows else None

    def put(self, key: str, value: bytes) -> None:
        query(
            self.url,
            "INSERT INTO research_cache (kind, key, stored_at, value) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT (kind, key) DO UPDATE SET stored_at = excluded.stored_at, value = excluded.value",
            (self.kind, key, time.time(), value),
            idempotent=True,
        )

    def delete(self, key: str) -> None:
        query(self.url, "DELETE FROM research_cache WHERE kind = %s AND key = %s", (self.kind, key), idempotent=True)

    def count(self) -> int:
        rows = query(
            self.url, "SELECT count(*) AS n FROM research_cache WHERE kind = %s", (self.kind,), idempotent=True
        )
        return int(rows[0]["n"]) if rows else 0


def shared_cache(kind: str) -> SharedCache | None:
    """The team's cache of `kind` when a database is configured; None for the embedded files."""
    from research_assistant.servers import database_url

    url = database_url()
    return SharedCache(url, kind) if url else None


def lock_key(name: str) -> int:
    """The advisory lock key for a lock's name (64 bits of its SHA-256: two names sharing a key would only wait
    for each other, never both hold it)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


@contextmanager
def team_locks(names: Iterable[str], wait: Callable[[], None], *, shared: bool = False) -> Iterator[None]:
    """Held by one process at a time across every machine using the team's database (a session advisory lock
    per name), or, `shared`, by any number of processes while none holds them alone; nothing when no database
    is configured. `wait` is called between tries (it may raise to stop waiting, as a cancelled run does).

    All are taken on one pooled connection (a batch of documents takes one lock each without taking a
    connection each), in the order of their keys, so two processes wanting overlapping sets never each hold
    what the other waits for. A caller already holding team locks must take further ones in an order every
    process follows (`ResearchRepository`: collection, documents, revisions)."""
    from research_assistant.servers import database_url

    url = database_url()
    keys = sorted({lock_key(name) for name in names})
    if not url or not keys:
        yield
        return
    unlock = "pg_advisory_unlock_shared" if shared else "pg_advisory_unlock"
    pool = pool_for(url, os.getpid())
    with pool.connection() as connection:
        taken: list[int] = []
        try:
            for key in keys:
                take_advisory_lock(connection, key, wait, shared=shared)
                taken.append(key)
            yield
        finally:
            for key in reversed(taken):
                connection.execute(f"SELECT {unlock}(%s)", (key,))
