"""The run store: every run's record and trace, in an embedded SQLite file next to the repository data
(`RunStore`) or, for a team, in PostgreSQL (`PostgresRunStore`).

One row per run (its `RunRecord` as JSON, with the columns listing needs) and
one row per trace event. Each write commits at once, so a killed process loses
nothing it had recorded. The CLI and the page read the same store.

In PostgreSQL the runs and traces of every worker pointed at the database live together, so a run started by one
process is listed, shown, resumed or finished by any other; a run another machine is running is judged by its
lease (`runs.leases`).
"""

from __future__ import annotations

import functools
import os
import socket
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from research_assistant.damage import naming, prepare_sqlite, runs_remedy
from research_assistant.database import pool_for, query
from research_assistant.runs.leases import LEASE_SECONDS, heartbeats
from research_assistant.runs.records import RunRecord, RunStatus, TraceEvent
from research_assistant.secrets import scrub
from research_assistant.servers import database_url

STORE_FILE = "runs.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    started_at REAL NOT NULL,
    record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
);
"""


class RunNotFound(LookupError):
    """No run, or more than one, matches an id; the message says which."""


class RunStore:
    """Every run's record and trace. `RunStore.at` opens the configured one: this embedded SQLite file, or the
    team's PostgreSQL database (`PostgresRunStore`) when `RESEARCH_DATABASE_URL` is set; both keep
    this interface, so callers never ask which."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        # A garbled or emptied store is named, never silently replaced by a new one: `DamagedStore`.
        prepare_sqlite(path, runs_remedy(path), _SCHEMA)
        with naming(path, runs_remedy(path)):
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.execute("PRAGMA journal_mode=WAL")
            # In WAL mode a commit survives the process being killed without waiting for the disk (only an OS
            # crash may lose the last ones); a sync per trace event took milliseconds, on the run's event loop.
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)

    @classmethod
    def at(cls, db_dir: Path) -> RunStore:
        """The run store runs are recorded in: the team's database when one is configured, else `db_dir`'s file."""
        url = database_url()
        return PostgresRunStore(url) if url else cls(db_dir / STORE_FILE)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def save(self, record: RunRecord) -> None:
        # A run of this process is stamped with its start, which tells it from a later process given its pid.
        started = None if record.pid is None else _own_start() if record.pid == os.getpid() else record.pid_started
        if started != record.pid_started:
            record = record.model_copy(update={"pid_started": started})
        self._put(record.run_id, record.started_at, scrub(record.model_dump_json()))

    def get(self, run_id: str) -> RunRecord | None:
        text = self._record(run_id)
        return self._current(RunRecord.model_validate_json(text)) if text is not None else None

    def find(self, prefix: str) -> RunRecord:
        """The run whose id is or starts with `prefix`, as git finds commits."""
        prefix = prefix.strip()
        exact = self.get(prefix) if prefix else None
        if exact is not None:
            return exact
        ids = self._ids_starting(prefix, 3) if prefix else []
        if not ids:
            raise RunNotFound(f"no run {prefix!r}; `research-assistant runs` lists them")
        if len(ids) > 1:
            raise RunNotFound(f"{prefix!r} matches more than one run ({', '.join(ids)}, …)")
        found = self.get(ids[0])
        assert found is not None
        return found

    def recent(self, limit: int = 20) -> list[RunRecord]:
        """The latest runs, newest first."""
        return [self._current(RunRecord.model_validate_json(text)) for text in self._latest(limit)]

    def append(self, event: TraceEvent) -> None:
        self._put_event(event.run_id, event.seq, scrub(event.model_dump_json(exclude_none=True)))

    def events(self, run_id: str) -> Iterator[TraceEvent]:
        return (TraceEvent.model_validate_json(text) for text in self._events(run_id))

    def next_seq(self, run_id: str) -> int:
        last = self._last_seq(run_id)
        return 0 if last is None else last + 1

    def _current(self, record: RunRecord) -> RunRecord:
        """A run recorded as running whose process is gone was interrupted (killed, or the machine stopped); so
        was one whose pid now belongs to another process, which started after it."""
        if record.status is RunStatus.RUNNING and not _alive(record.pid, record.pid_started):
            record = record.model_copy(update={"status": RunStatus.INTERRUPTED, "pid": None})
            self.save(record)
        return record

    # -- the storage itself: one SQL statement each, in PostgreSQL's `%s` style, for both databases ---------------

    _RUNS, _EVENTS = "runs", "events"
    """The tables of run records and of trace events."""

    def _query(self, sql: str, params: tuple[Any, ...] = (), *, idempotent: bool = True) -> list[dict[str, Any]]:
        """Run one statement, its `%s` placeholders as SQLite's `?`: its rows, as dicts ([] for a write).

        `idempotent`: the statement has the same effect run twice, as every statement of the run store has (a
        read, an upsert or a delete by key) but the delete that tells whether the run was there; a server store
        runs such a statement again when its connection was lost on the way."""
        with self._lock:
            cursor = self._db.execute(sql.replace("%s", "?"), params)
            columns = [column[0] for column in cursor.description or ()]
            return [dict(zip(columns, row, strict=True)) for row in cursor.fetchall()]

    def _put(self, run_id: str, started_at: float, record: str) -> None:
        self._query(
            f"INSERT INTO {self._RUNS} (run_id, started_at, record) VALUES (%s, %s, %s) "
            "ON CONFLICT (run_id) DO UPDATE SET record = excluded.record",
            (run_id, started_at, record),
        )

    def _record(self, run_id: str) -> str | None:
        rows = self._query(f"SELECT record FROM {self._RUNS} WHERE run_id = %s", (run_id,))
        return str(rows[0]["record"]) if rows else None

    def _ids_starting(self, prefix: str, limit: int) -> list[str]:
        rows = self._query(
            f"SELECT run_id FROM {self._RUNS} WHERE substr(run_id, 1, %s) = %s LIMIT %s", (len(prefix), prefix, limit)
        )
        return [str(row["run_id"]) for row in rows]

    def _latest(self, limit: int) -> list[str]:
        rows = self._query(f"SELECT record FROM {self._RUNS} ORDER BY started_at DESC LIMIT %s", (limit,))
        return [str(row["record"]) for row in rows]

    def delete(self, run_id: str) -> bool:
        """Forget a run: its record and its trace (its checkpoints are `checkpoints.delete_checkpoints`'s).
        Whether there was such a run."""
        self._query(f"DELETE FROM {self._EVENTS} WHERE run_id = %s", (run_id,))
        deleted = f"DELETE FROM {self._RUNS} WHERE run_id = %s RETURNING run_id"
        return bool(self._query(deleted, (run_id,), idempotent=False))

    def _put_event(self, run_id: str, seq: int, event: str) -> None:
        self._query(
            f"INSERT INTO {self._EVENTS} (run_id, seq, event) VALUES (%s, %s, %s) "
            "ON CONFLICT (run_id, seq) DO UPDATE SET event = excluded.event",
            (run_id, seq, event),
        )

    def _events(self, run_id: str) -> list[str]:
        rows = self._query(f"SELECT event FROM {self._EVENTS} WHERE run_id = %s ORDER BY seq", (run_id,))
        return [str(row["event"]) for row in rows]

    def _last_seq(self, run_id: str) -> int | None:
        rows = self._query(f"SELECT MAX(seq) AS last FROM {self._EVENTS} WHERE run_id = %s", (run_id,))
        last = rows[0]["last"] if rows else None
        return None if last is None else int(last)


class PostgresRunStore(RunStore):
    """`RunStore` over the team's database: the same records and events, in tables `research_runs` and
    `research_events`, and a lease for each running run (`heartbeat_at`)."""

    _RUNS, _EVENTS = "research_runs", "research_events"

    def __init__(self, url: str) -> None:  # no SQLite file: the pool is the process's
        self.url = url
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

    def _query(self, sql: str, params: tuple[Any, ...] = (), *, idempotent: bool = True) -> list[dict[str, Any]]:
        return query(self.url, sql, params, idempotent=idempotent)  # one pooled connection

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


def process_start(pid: int) -> int | None:
    """When process `pid` started, in clock ticks after boot (field 22 of /proc/PID/stat); None when it is gone
    or the system has no /proc."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    fields = stat.rpartition(b")")[2].split()  # after the command name, which may hold spaces and parentheses
    try:
        return int(fields[19])  # field 22; the fields after the name start at field 3
    except (IndexError, ValueError):
        return None


_start_of = functools.cache(process_start)


def _own_start() -> int | None:
    """This process's start (cached per pid: a forked child has its own)."""
    return _start_of(os.getpid())


def _alive(pid: int | None, started: int | None) -> bool:
    """Whether process `pid` still runs and is the one that started at `started` (when that is known)."""
    if pid is None:
        return False
    if pid == os.getpid():
        return started is None or started == _own_start()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # another user's process: alive, but maybe not ours
    if started is None:  # recorded where /proc could not say: the pid is all there is to go on
        return True
    now = process_start(pid)
    return now is None or now == started
