"""The run store: every run's record and trace, in an embedded SQLite file next to the repository data.

One row per run (its `RunRecord` as JSON, with the columns listing needs) and
one row per trace event. Each write commits at once, so a killed process loses
nothing it had recorded. The CLI and the page read the same store.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

from research_assistant.damage import naming, prepare_sqlite, runs_remedy
from research_assistant.runs.records import RunRecord, RunStatus, TraceEvent
from research_assistant.secrets import scrub

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
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        # A garbled or emptied store is named, never silently replaced by a new one: `DamagedStore`.
        prepare_sqlite(path, runs_remedy(path), _SCHEMA)
        with naming(path, runs_remedy(path)):
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)

    @classmethod
    def at(cls, db_dir: Path) -> RunStore:
        return cls(db_dir / STORE_FILE)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def save(self, record: RunRecord) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO runs (run_id, started_at, record) VALUES (?, ?, ?) "
                "ON CONFLICT (run_id) DO UPDATE SET record = excluded.record",
                (record.run_id, record.started_at, scrub(record.model_dump_json())),
            )

    def get(self, run_id: str) -> RunRecord | None:
        with self._lock:
            row = self._db.execute("SELECT record FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        return self._current(RunRecord.model_validate_json(row[0])) if row else None

    def find(self, prefix: str) -> RunRecord:
        """The run whose id is or starts with `prefix`, as git finds commits."""
        prefix = prefix.strip()
        exact = self.get(prefix) if prefix else None
        if exact is not None:
            return exact
        with self._lock:
            rows = self._db.execute(
                "SELECT run_id FROM runs WHERE substr(run_id, 1, ?) = ? LIMIT 3", (len(prefix), prefix)
            ).fetchall()
        if not prefix or not rows:
            raise RunNotFound(f"no run {prefix!r}; `research-assistant runs` lists them")
        if len(rows) > 1:
            raise RunNotFound(f"{prefix!r} matches more than one run ({', '.join(r[0] for r in rows)}, …)")
        found = self.get(rows[0][0])
        assert found is not None
        return found

    def recent(self, limit: int = 20) -> list[RunRecord]:
        """The latest runs, newest first."""
        with self._lock:
            rows = self._db.execute("SELECT record FROM runs ORDER BY started_at DESC LIMIT ?", (limit,)).fetchall()
        return [self._current(RunRecord.model_validate_json(row[0])) for row in rows]

    def append(self, event: TraceEvent) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO events (run_id, seq, event) VALUES (?, ?, ?)",
                (event.run_id, event.seq, scrub(event.model_dump_json(exclude_none=True))),
            )

    def events(self, run_id: str) -> Iterator[TraceEvent]:
        with self._lock:
            rows = self._db.execute("SELECT event FROM events WHERE run_id = ? ORDER BY seq", (run_id,)).fetchall()
        return (TraceEvent.model_validate_json(row[0]) for row in rows)

    def next_seq(self, run_id: str) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM events WHERE run_id = ?", (run_id,)).fetchone()
        return 0 if row[0] is None else int(row[0]) + 1

    def _current(self, record: RunRecord) -> RunRecord:
        """A run recorded as running whose process is gone was interrupted (killed, or the machine stopped)."""
        if record.status is RunStatus.RUNNING and not _alive(record.pid):
            record = record.model_copy(update={"status": RunStatus.INTERRUPTED, "pid": None})
            self.save(record)
        return record


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
