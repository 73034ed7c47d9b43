"""Leases of the runs running against the team's PostgreSQL database (`RESEARCH_DATABASE_URL`).

Whether a `running` run still runs is judged by its process id only on the machine that runs it. Elsewhere it
is judged by its lease: while a run goes, its worker renews the row's `heartbeat_at` every `HEARTBEAT_SECONDS`
(`Heartbeats`); a run on another machine whose heartbeat is older than `LEASE_SECONDS` (by the database's clock,
so the workers' clocks need not agree) was stopped with its worker, and shows, and resumes, as interrupted.
"""

from __future__ import annotations

import logging
import os
import socket
import threading

from research_assistant.database import query

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
