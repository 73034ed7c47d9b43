"""The run store in PostgreSQL behaves as the embedded one: the same records, ids found by prefix, traces in
order, runs forgotten; and a run another machine is running is not taken for a dead one."""

from __future__ import annotations

import time
import uuid

import pytest
from support.team_servers import Postgres, postgres

from research_assistant.context import Context
from research_assistant.runs.postgres import PostgresRunStore
from research_assistant.runs.records import EventKind, RunParameters, RunRecord, RunStatus, TraceEvent
from research_assistant.runs.store import RunNotFound

__all__ = ["postgres"]  # the fixture


def record(run_id: str, status: RunStatus = RunStatus.COMPLETED, pid: int | None = None) -> RunRecord:
    now = time.time()
    return RunRecord(
        run_id=run_id,
        question="How long is the tram network?",
        parameters=RunParameters.of(Context(corpus_dir=None)),
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


def test_a_run_another_machine_is_running_stays_running(store: PostgresRunStore) -> None:
    store.save(record("elsewhere", RunStatus.RUNNING, pid=999_999_999))  # no such process here
    store._query("UPDATE research_runs SET host = 'another-machine' WHERE run_id = 'elsewhere'")
    assert store.get("elsewhere").status is RunStatus.RUNNING  # type: ignore[union-attr]

    store.save(record("here", RunStatus.RUNNING, pid=999_999_999))  # written on this machine: its process is gone
    assert store.get("here").status is RunStatus.INTERRUPTED  # type: ignore[union-attr]
