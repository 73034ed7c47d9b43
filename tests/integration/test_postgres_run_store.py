"""The run store in PostgreSQL behaves as the embedded one: the same records, ids found by prefix, traces in
order, runs forgotten; and a run another machine is running is judged by its lease: not taken for a dead one while
its worker renews it, interrupted (and resumable) once its worker has been silent for longer than the lease."""

from __future__ import annotations

import asyncio
import os
import threading
import time
import uuid
from collections.abc import Callable

import psycopg
import pytest
from support.team_servers import Postgres, postgres

from research_assistant.context import Context
from research_assistant.database import SETUP_LOCK, pool_for
from research_assistant.runs.checkpoints import open_postgres_checkpointer
from research_assistant.runs.leases import LEASE_SECONDS, heartbeats
from research_assistant.runs.records import RESUMABLE, EventKind, RunRecord, RunStatus, TraceEvent
from research_assistant.runs.store import PostgresRunStore, RunNotFound

__all__ = ["postgres"]  # the fixture


def record(run_id: str, status: RunStatus = RunStatus.COMPLETED, pid: int | None = None) -> RunRecord:
    now = time.time()
    return RunRecord(
        run_id=run_id,
        question="How long is the tram network?",
        parameters=Context(corpus_dir=None),
        status=status,
        started_at=now,
        updated_at=now,
        pid=pid,
    )


@pytest.fixture
def store(postgres: Postgres) -> PostgresRunStore:
    return PostgresRunStore(postgres.new_database(f"store_{uuid.uuid4().hex[:12]}"))


def test_records_traces_and_prefixes_as_embedded(store: PostgresRunStore) -> None:
    store.save(record("abc111"))
    store.save(record("abc222"))
    store.save(record("def333"))
    assert store.find("def").run_id == "def333"
    with pytest.raises(RunNotFound, match="more than one"):
        store.find("abc")
    with pytest.raises(RunNotFound, match="no run"):
        store.find("zzz")
    assert [r.run_id for r in store.recent(2)] == ["def333", "abc222"]

    for seq in (0, 1, 2):
        store.append(TraceEvent(run_id="def333", seq=seq, at=time.time(), kind=EventKind.PROGRESS, message=f"m{seq}"))
    assert [event.message for event in store.events("def333")] == ["m0", "m1", "m2"]
    assert store.next_seq("def333") == 3 and store.next_seq("abc111") == 0

    assert store.delete("def333") and not store.delete("def333")
    assert store.get("def333") is None and list(store.events("def333")) == []


def test_a_pooled_connection_the_server_dropped_is_replaced_not_reported(store: PostgresRunStore) -> None:
    """A server restarted or a connection cut by a proxy leaves dead connections in the pool: each is checked when
    taken, and a fresh one opened, instead of the next statement failing with 'the connection is lost'."""
    store.save(record("abc111"))
    with psycopg.connect(store.url, autocommit=True) as admin:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    assert store.find("abc").run_id == "abc111"


def test_a_run_another_machine_is_running_stays_running(store: PostgresRunStore) -> None:
    store.save(record("elsewhere", RunStatus.RUNNING, pid=999_999_999))  # no such process here
    store._query("UPDATE research_runs SET host = 'another-machine' WHERE run_id = 'elsewhere'")
    assert store.get("elsewhere").status is RunStatus.RUNNING  # type: ignore[union-attr]

    store.save(record("here", RunStatus.RUNNING, pid=999_999_999))  # written on this machine: its process is gone
    assert store.get("here").status is RunStatus.INTERRUPTED  # type: ignore[union-attr]


def on_another_machine(store: PostgresRunStore, run_id: str, silent_seconds: float = 0.0) -> None:
    """Make the run's row look written by a worker on another machine, whose last heartbeat was that long ago."""
    store._query(
        "UPDATE research_runs SET host = 'another-machine', heartbeat_at = now() - make_interval(secs => %s) "
        "WHERE run_id = %s",
        (silent_seconds, run_id),
    )


def lease_age(store: PostgresRunStore, run_id: str) -> float:
    """How long ago the run's lease was last renewed, by the database's clock."""
    rows = store._query(
        "SELECT EXTRACT(EPOCH FROM now() - heartbeat_at) AS silent FROM research_runs WHERE run_id = %s", (run_id,)
    )
    return float(rows[0]["silent"])


def test_a_run_whose_worker_elsewhere_went_silent_is_interrupted_and_resumable(store: PostgresRunStore) -> None:
    store.save(record("lively", RunStatus.RUNNING, pid=999_999_999))
    on_another_machine(store, "lively", silent_seconds=LEASE_SECONDS / 2)
    store.save(record("silent", RunStatus.RUNNING, pid=999_999_999))
    on_another_machine(store, "silent", silent_seconds=LEASE_SECONDS + 5)

    assert store.get("lively").status is RunStatus.RUNNING  # type: ignore[union-attr]
    listed = {r.run_id: r for r in store.recent()}
    assert listed["lively"].status is RunStatus.RUNNING
    assert listed["silent"].status is RunStatus.INTERRUPTED and listed["silent"].status in RESUMABLE
    assert listed["silent"].pid is None
    # Recorded so: every worker now sees it interrupted, and the one that resumes it owns it.
    row = store._query("SELECT record, host FROM research_runs WHERE run_id = 'silent'")[0]
    assert RunRecord.model_validate_json(row["record"]).status is RunStatus.INTERRUPTED
    assert row["host"] != "another-machine"


def test_a_worker_renews_the_lease_of_its_running_runs_until_they_end(store: PostgresRunStore) -> None:
    beats = heartbeats(store.url)
    store.save(record("mine", RunStatus.RUNNING, pid=os.getpid()))
    store.save(record("ended", RunStatus.RUNNING, pid=os.getpid()))
    store.save(record("ended", RunStatus.COMPLETED))
    assert {"mine", "ended"} & beats.runs == {"mine"}

    store._query("UPDATE research_runs SET heartbeat_at = now() - interval '1 hour'")
    beats.renew()
    assert lease_age(store, "mine") < LEASE_SECONDS
    assert lease_age(store, "ended") > LEASE_SECONDS

    # Once another machine has taken the run over, the first worker's renewals no longer touch it.
    on_another_machine(store, "mine", silent_seconds=3600)
    beats.renew()
    assert lease_age(store, "mine") > LEASE_SECONDS
    store.save(record("mine", RunStatus.COMPLETED))
    assert "mine" not in beats.runs


def test_workers_creating_the_tables_at_once_never_wait_for_each_other_forever(postgres: Postgres) -> None:
    """Issue 16: LangGraph's migrations build the checkpointer's indexes with `CREATE INDEX CONCURRENTLY`, which
    waits for every older transaction in the database, also another worker's statement waiting for the setup
    lock; that worker waited for the lock, which the first held until its index was built: neither ever ended."""
    url = postgres.new_database(f"setup_{uuid.uuid4().hex[:12]}")
    database = url.rsplit("/", 1)[1]

    def waiting() -> int:
        """Backends of the database, other than the holder's, that asked for an advisory lock."""
        rows = postgres.psql(
            f"SELECT pid FROM pg_stat_activity WHERE datname = '{database}' AND pid <> pg_backend_pid() "
            f"AND pid <> {holder.info.backend_pid} AND query LIKE '%advisory_lock%'"
        )
        return rows.count(",)")

    def until(condition: Callable[[], bool]) -> None:
        deadline = time.monotonic() + 30
        while not condition():
            assert time.monotonic() < deadline, "the workers never asked for the setup lock"
            time.sleep(0.05)

    holder = psycopg.connect(url, autocommit=True)
    holder.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK,))  # a worker creating tables: the others wait
    failures: list[BaseException] = []

    def in_thread(work: Callable[[], object]) -> threading.Thread:
        def run() -> None:
            try:
                work()
            except BaseException as error:
                failures.append(error)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    async def open_checkpointer() -> None:
        async with open_postgres_checkpointer(url):
            pass

    # The first worker in line creates the checkpointer's tables; a second then starts and waits behind it.
    first = in_thread(lambda: asyncio.run(open_checkpointer()))
    until(lambda: waiting() >= 1)
    other_pid = -os.getpid()  # another process's pool, as far as `pool_for` can tell
    second = in_thread(lambda: pool_for(url, other_pid))
    until(lambda: waiting() >= 2)
    holder.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
    try:
        deadline = time.monotonic() + 30
        for thread in (first, second):
            thread.join(max(0.0, deadline - time.monotonic()))
        stuck = [name for name, thread in (("checkpointer", first), ("run store", second)) if thread.is_alive()]
        assert not stuck, f"still creating tables after 30 s: {stuck}"
        assert not failures, failures
    finally:
        postgres.psql(  # set free whatever still waits, so that the threads end
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}' "
            "AND pid <> pg_backend_pid()"
        )
        holder.close()
        if not second.is_alive():
            pool_for(url, other_pid).close()


def test_a_runs_checkpointer_opens_without_probing_the_database_its_run_store_reached(
    postgres: Postgres, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A probe is a connection of its own (a server process forked, a password exchanged): once per process."""
    url = postgres.new_database(f"probe_{uuid.uuid4().hex[:12]}")
    pool_for(url, os.getpid())  # the run store's pool, opened first by every run
    direct: list[str] = []
    connect = psycopg.connect

    def counted(*args: object, **kwargs: object) -> psycopg.Connection[object]:
        direct.append(str(args[0]))
        return connect(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(psycopg, "connect", counted)

    async def open_checkpointer() -> None:
        async with open_postgres_checkpointer(url) as saver:
            assert await saver.aget_tuple({"configurable": {"thread_id": "none"}}) is None

    asyncio.run(open_checkpointer())
    assert direct == []
