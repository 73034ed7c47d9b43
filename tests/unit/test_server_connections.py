"""Connecting to a team server: what is tried again and what is said at once (`servers.connect_with_retries`),
for the Chroma server's client and PostgreSQL connections."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest

from research_assistant import database, servers
from research_assistant.knowledge import chroma_client
from research_assistant.runs import store as store_module
from research_assistant.servers import ServerUnavailable, connect_with_retries


@pytest.fixture(autouse=True)
def no_pauses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(servers, "CONNECT_BACKOFF_SECONDS", 0.0)


def flaky(failures: list[BaseException], result: Any = "connected") -> tuple[Any, list[int]]:
    """A connect function that raises each of `failures` in turn, then returns `result`; and its call count."""
    calls = [0]

    def connect() -> Any:
        calls[0] += 1
        if calls[0] <= len(failures):
            raise failures[calls[0] - 1]
        return result

    return connect, calls


def test_a_transient_failure_is_tried_again_until_the_server_answers() -> None:
    connect, calls = flaky([ConnectionError("refused"), ConnectionError("refused")])
    assert connect_with_retries(connect, lambda error: isinstance(error, ConnectionError)) == "connected"
    assert calls == [3]


def test_a_server_that_stays_down_is_given_up_after_a_few_tries_with_its_own_error() -> None:
    connect, calls = flaky([ConnectionError(f"refused {n}") for n in range(10)])
    with pytest.raises(ConnectionError, match="refused 2"):
        connect_with_retries(connect, lambda error: True)
    assert calls == [servers.CONNECT_ATTEMPTS]


def test_a_refusal_or_a_timeout_is_not_tried_again() -> None:
    connect, calls = flaky([PermissionError("password authentication failed")])
    with pytest.raises(PermissionError):
        connect_with_retries(connect, lambda error: isinstance(error, ConnectionError))
    assert calls == [1]
    connect, calls = flaky([ConnectionError("connection timeout expired")])
    with pytest.raises(ConnectionError):
        connect_with_retries(connect, lambda error: True)
    assert calls == [1]


def test_postgres_connections_are_tried_again_only_while_the_server_does_not_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Refused(psycopg.OperationalError):
        sqlstate = None

    class WrongPassword(psycopg.OperationalError):
        sqlstate = "28P01"

    connect, calls = flaky([Refused("connection refused")])
    monkeypatch.setattr(psycopg, "connect", lambda *args, **kwargs: connect())
    assert database.connect("postgresql://db.example/research") == "connected"
    assert calls == [2]

    connect, calls = flaky([WrongPassword("password authentication failed")])
    with pytest.raises(WrongPassword):
        database.connect("postgresql://db.example/research")
    assert calls == [1]


def fake_chroma(monkeypatch: pytest.MonkeyPatch, answers: list[BaseException | int]) -> list[int]:
    """Chroma's HTTP client replaced by one whose heartbeats give `answers` in turn (an error is raised); the number
    of heartbeats asked."""
    import chromadb

    beats = [0]

    class Client:
        def __init__(self, **settings: Any) -> None:
            pass

        def heartbeat(self) -> int:
            answer = answers[min(beats[0], len(answers) - 1)]
            beats[0] += 1
            if isinstance(answer, BaseException):
                raise answer
            return answer

    monkeypatch.setattr(chromadb, "HttpClient", Client)
    monkeypatch.setattr(chroma_client, "_clients", {})
    return beats


def test_a_chroma_server_that_answers_on_the_second_try_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    beats = fake_chroma(
        monkeypatch, [ValueError("Could not connect to a Chroma server. Are you sure it is running?"), 1]
    )
    assert chroma_client.server_client("http://127.0.0.1:9").heartbeat() == 1
    assert beats == [3]  # two tries, then the test's own heartbeat


def test_a_chroma_server_that_answers_with_an_error_is_said_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    beats = fake_chroma(monkeypatch, [ValueError("Unauthorized")])
    with pytest.raises(ServerUnavailable, match="Unauthorized"):
        chroma_client.server_client("http://127.0.0.1:9")
    assert beats == [1]


class _Collection:
    """A server collection whose `upsert` fails as each of `failures` in turn, then stores."""

    def __init__(self, failures: list[BaseException]) -> None:
        self.id = "c1"
        self.failures = failures
        self.calls = 0
        self.stored: list[str] = []

    def upsert(self, ids: list[str]) -> None:
        self.calls += 1
        if self.calls <= len(self.failures):
            raise self.failures[self.calls - 1]
        self.stored.extend(ids)


def test_a_collection_call_that_never_reached_the_chroma_server_is_tried_again() -> None:
    inner = _Collection([ValueError("Could not connect to a Chroma server. Are you sure it is running?")])
    collection = chroma_client.RetryingCollection(inner)

    collection.upsert(ids=["S1#0"])

    assert (inner.calls, inner.stored, collection.id) == (2, ["S1#0"], "c1")


def test_an_error_the_chroma_server_answered_with_is_raised_at_once() -> None:
    inner = _Collection([ValueError("Collection [c1] does not exist")])

    with pytest.raises(ValueError, match="does not exist"):
        chroma_client.RetryingCollection(inner).upsert(ids=["S1#0"])
    assert inner.calls == 1


class _Pool:
    """A connection pool whose statements fail as each of `failures` in turn (None: not that one), then return
    `row`."""

    def __init__(self, failures: list[BaseException | None], row: dict[str, Any] | None = None) -> None:
        self.failures = failures
        self.row = row or {"value": b"cached"}
        self.statements = 0

    @contextlib.contextmanager
    def connection(self) -> Iterator[Any]:
        yield self

    def execute(self, sql: str, params: tuple[Any, ...]) -> Any:
        self.statements += 1
        if self.statements <= len(self.failures) and (failure := self.failures[self.statements - 1]):
            raise failure
        return SimpleNamespace(description=list(self.row), fetchall=lambda: [self.row])


class _ConnectionLost(psycopg.OperationalError):
    sqlstate = None


def test_a_shared_cache_read_whose_connection_was_lost_is_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    pool = _Pool([_ConnectionLost("server closed the connection unexpectedly")])
    monkeypatch.setattr(database, "pool_for", lambda url, pid: pool)

    assert database.SharedCache("postgresql://db.example/research", "documents").get("S1") == b"cached"
    assert pool.statements == 2


def test_a_statement_that_may_have_been_carried_out_is_not_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    pool = _Pool([_ConnectionLost("server closed the connection unexpectedly")])
    monkeypatch.setattr(database, "pool_for", lambda url, pid: pool)
    monkeypatch.setattr(database, "pool_problem", lambda error, url: error)

    with pytest.raises(ServerUnavailable, match="closed the connection"):
        database.query("postgresql://db.example/research", "UPDATE leases SET owner = %s", ("w1",))
    assert pool.statements == 1


def test_the_run_stores_statements_whose_connection_was_lost_are_tried_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reads, upserts and deletes by key; not the delete that says whether the run was there, since the lost one
    may have deleted it and a second would then say there was no such run."""
    pool = _Pool([_ConnectionLost("server closed the connection unexpectedly")], row={"last": 4})
    monkeypatch.setattr(store_module, "pool_for", lambda url, pid: pool)
    monkeypatch.setattr(database, "pool_for", lambda url, pid: pool)
    monkeypatch.setattr(database, "pool_problem", lambda error, url: error)
    store = store_module.PostgresRunStore("postgresql://db.example/research")

    assert store.next_seq("abc111") == 5
    assert pool.statements == 2

    lost = _ConnectionLost("server closed the connection unexpectedly")
    pool.failures, pool.statements = [lost, None, lost], 0
    with pytest.raises(ServerUnavailable, match="closed the connection"):
        store.delete("abc111")  # the events' delete is tried again; the run's is not
    assert pool.statements == 3
