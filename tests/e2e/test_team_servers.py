"""A team's deployment: runs, checkpoints and the repository on real servers started here on loopback
(a throwaway PostgreSQL cluster and `chroma run`), shared by workers in separate working directories."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixtures.corpus_facts import FACTS
from support.server_process import Server, free_port
from support.team_servers import PASSWORD, Postgres, chroma_server, postgres

from research_assistant.context import Context, Depth
from research_assistant.corpus.files import SUPPORTED_SUFFIXES
from research_assistant.database import SharedCache
from research_assistant.runner import run_research, saved_state
from research_assistant.runs.records import RunStatus
from research_assistant.runs.store import PostgresRunStore, RunStore
from research_assistant.settings import get_settings

__all__ = ["chroma_server", "postgres"]  # the fixtures

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
DURABLE_RUN = ROOT / "tests" / "support" / "durable_run.py"
QUESTION, EXPECTED, FILE_NAME = FACTS[0]

pytestmark = pytest.mark.slow


@pytest.fixture
def database(postgres: Postgres) -> str:
    """A fresh database of the shared cluster, so that tests never see each other's runs."""
    return postgres.new_database(f"research_{uuid.uuid4().hex[:12]}")


@pytest.fixture
def team_env(database: str, chroma_server: Server, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The settings a team's worker gets (here and for child processes); settings re-read before and after."""
    env = {"RESEARCH_DATABASE_URL": database, "RESEARCH_CHROMA_URL": chroma_server.url}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("RESEARCH_CORPUS_DIR", raising=False)
    get_settings.cache_clear()
    yield env
    monkeypatch.undo()
    get_settings.cache_clear()


def worker(workdir: Path, env: dict[str, str], *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    """`research-assistant ARGS...` as another worker process would run it, in its own working directory."""
    workdir.mkdir(parents=True, exist_ok=True)
    child = {**os.environ, **env, "RESEARCH_DB_DIR": str(workdir / "db"), "RESEARCH_CACHE_DIR": str(workdir / "cache")}
    command = [sys.executable, "-m", "research_assistant.cli", *args]
    return subprocess.run(command, cwd=workdir, env=child, capture_output=True, text=True, timeout=timeout, check=False)


def test_an_offline_research_runs_through_postgresql_and_the_chroma_server(
    team_env: dict[str, str], tmp_path: Path
) -> None:
    context = Context(depth=Depth.QUICK, corpus_dir=CORPUS, db_dir=tmp_path / "db", cache_dir=tmp_path / "cache")
    result = asyncio.run(run_research(QUESTION, context))
    assert EXPECTED in result["report_markdown"]

    store = RunStore.at(tmp_path / "elsewhere")  # any working directory: the runs are in the database
    assert isinstance(store, PostgresRunStore)
    [record] = store.recent()
    assert record.status is RunStatus.COMPLETED and record.question == QUESTION
    assert any(event.node == "synthesize" for event in store.events(record.run_id))
    # Nothing of the run's record, checkpoints or repository was written to the working directory.
    left = {path.name for path in (tmp_path / "db").glob("*")}
    assert not left & {"runs.sqlite", "checkpoints.sqlite", "chroma.sqlite3"}, left

    # The documents read are cached in the database too, for every worker.
    assert SharedCache(team_env["RESEARCH_DATABASE_URL"], "documents").count() > 0
    assert not list((tmp_path / "cache").glob("documents/*.json"))

    import chromadb

    server = chromadb.HttpClient(host="127.0.0.1", port=int(team_env["RESEARCH_CHROMA_URL"].rsplit(":", 1)[1]))
    assert sum(collection.count() for collection in server.list_collections()) > 0


def test_a_run_started_by_one_worker_is_listed_and_shown_by_another(team_env: dict[str, str], tmp_path: Path) -> None:
    started = worker(tmp_path / "a", team_env, "run", QUESTION, "--corpus", str(CORPUS), "--depth", "quick", "--quiet")
    assert started.returncode == 0, started.stderr
    assert EXPECTED in started.stdout

    listed = worker(tmp_path / "b", team_env, "runs")
    assert listed.returncode == 0, listed.stderr
    run_id = RunStore.at(tmp_path).recent()[0].run_id
    assert run_id[:8] in listed.stdout

    shown = worker(tmp_path / "b", team_env, "show", run_id)
    assert shown.returncode == 0, shown.stderr
    assert EXPECTED in shown.stdout
    doctor = worker(tmp_path / "b", team_env, "doctor")
    assert doctor.returncode == 0, doctor.stdout
    assert "runs and checkpoints: ok (PostgreSQL" in doctor.stdout and "repository: ok (Chroma" in doctor.stdout
    for output in (started, listed, shown, doctor):
        assert PASSWORD not in output.stdout + output.stderr


def test_a_run_killed_on_one_worker_is_resumed_by_another_repeating_nothing(
    team_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**os.environ, **team_env}
    log = tmp_path / "calls.log"

    def lines() -> list[str]:
        return log.read_text(encoding="utf-8").splitlines() if log.exists() else []

    first = subprocess.Popen([sys.executable, str(DURABLE_RUN), str(tmp_path / "a"), str(log), "start"], env=env)
    deadline = time.monotonic() + 60
    while sum(line.startswith("read ") for line in lines()) < 2:
        assert first.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, lines()
        time.sleep(0.02)
    time.sleep(0.3)  # the finished reads reach their checkpoint
    os.kill(first.pid, signal.SIGKILL)
    first.wait(10)
    before = lines()
    assert "call synthesize" not in before

    assert RunStore.at(tmp_path).find("killable-run").status is RunStatus.INTERRUPTED

    (tmp_path / "b").mkdir()  # the other worker's own working directory: nothing of the run is in it
    second = subprocess.run(
        [sys.executable, str(DURABLE_RUN), str(tmp_path / "b"), str(log), "resume"], env=env, timeout=120, check=False
    )
    assert second.returncode == 0
    after = lines()[len(before) :]
    assert not set(before) & set(after), f"repeated after resume: {set(before) & set(after)}"
    assert "call synthesize" in after
    assert (tmp_path / "b" / "report.md").read_text(encoding="utf-8").strip()
    assert RunStore.at(tmp_path).find("killable-run").status is RunStatus.COMPLETED


@pytest.mark.parametrize("which", ["database", "chroma"])
def test_a_server_that_is_down_is_one_clear_line(which: str, tmp_path: Path, postgres: Postgres) -> None:
    port = free_port()  # nobody listens there
    if which == "database":
        env = {"RESEARCH_DATABASE_URL": f"postgresql://research:{PASSWORD}@127.0.0.1:{port}/research"}
        expected = "the PostgreSQL database at postgresql://research:***@127.0.0.1"
    else:
        env = {"RESEARCH_CHROMA_URL": f"http://127.0.0.1:{port}"}
        expected = f"the Chroma server at http://127.0.0.1:{port} cannot be used"
    ran = worker(tmp_path, env, "run", QUESTION, "--corpus", str(CORPUS), "--depth", "quick", "--quiet", timeout=60)
    assert ran.returncode != 0
    [line] = ran.stderr.strip().splitlines()
    assert expected in line and "Traceback" not in line and PASSWORD not in line

    doctor = worker(tmp_path, env, "doctor", timeout=60)
    assert doctor.returncode == 2
    [unreachable] = [line for line in doctor.stdout.splitlines() if expected in line]  # the server, said once
    assert "unreachable" in unreachable and PASSWORD not in doctor.stdout + doctor.stderr


def test_an_embedded_working_directory_migrates_to_the_servers(
    database: str, chroma_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedded = worker(tmp_path, {}, "run", QUESTION, "--corpus", str(CORPUS), "--depth", "quick", "--quiet")
    assert embedded.returncode == 0, embedded.stderr
    assert (tmp_path / "db" / "runs.sqlite").exists()

    migrated = worker(tmp_path, {}, "migrate", "--to", database, "--chroma", chroma_server.url)
    assert migrated.returncode == 0, migrated.stderr
    assert PASSWORD not in migrated.stdout + migrated.stderr
    assert "runs: 1 runs" in migrated.stdout and "repository: " in migrated.stdout
    again = worker(tmp_path, {}, "migrate", "--to", database, "--chroma", chroma_server.url)
    assert again.returncode == 0 and again.stdout == migrated.stdout  # upserts: nothing doubled

    team = {"RESEARCH_DATABASE_URL": database, "RESEARCH_CHROMA_URL": chroma_server.url}
    for name, value in team.items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    try:
        [record] = RunStore.at(tmp_path / "elsewhere").recent()
        state = asyncio.run(saved_state(tmp_path / "elsewhere", record.run_id))
        assert EXPECTED in str(state.get("report_markdown", ""))  # the checkpoints came along
        assert SharedCache(database, "documents").count() > 0
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
    shown = worker(tmp_path / "other", team, "show", record.run_id)
    assert shown.returncode == 0 and EXPECTED in shown.stdout


def test_workers_researching_at_once_share_one_repository_without_duplicates(
    team_env: dict[str, str], tmp_path: Path
) -> None:
    child = {**os.environ, **team_env}
    command = [sys.executable, "-m", "research_assistant.cli", "run", QUESTION, "--corpus", str(CORPUS)]
    processes = []
    for name in ("a", "b", "c", "d"):
        workdir = tmp_path / name
        workdir.mkdir()
        env = {**child, "RESEARCH_DB_DIR": str(workdir / "db"), "RESEARCH_CACHE_DIR": str(workdir / "cache")}
        processes.append(
            subprocess.Popen(
                [*command, "--depth", "quick", "--quiet"], cwd=workdir, env=env, stdout=subprocess.PIPE, text=True
            )
        )
    outputs = [process.communicate(timeout=300)[0] for process in processes]
    assert [process.returncode for process in processes] == [0, 0, 0, 0]
    assert all(EXPECTED in output for output in outputs)

    listed = worker(tmp_path / "e", team_env, "runs")  # a fifth process sees all four
    records = RunStore.at(tmp_path).recent()
    assert len(records) == 4 and all(record.status is RunStatus.COMPLETED for record in records)
    assert all(record.run_id[:8] in listed.stdout for record in records)

    import chromadb

    server = chromadb.HttpClient(host="127.0.0.1", port=int(team_env["RESEARCH_CHROMA_URL"].rsplit(":", 1)[1]))
    [collection] = [c for c in server.list_collections() if c.count() > 0]
    got = collection.get(include=["metadatas"])
    chunks = [(meta["source_id"], meta["chunk"]) for meta in got["metadatas"]]
    assert len(chunks) == len(set(chunks)), "a chunk was stored twice"
    files = [path for path in CORPUS.iterdir() if path.suffix.lower() in SUPPORTED_SUFFIXES]
    assert len({source for source, chunk in chunks if chunk == 0}) == len(files), "a document was lost"


def test_a_team_reader_waits_for_a_writer_on_another_machine_but_not_for_other_readers(
    team_env: dict[str, str],
) -> None:
    """What a sync compares with its corpus is never another worker's half-written index: the planning read
    holds the repository's team lock shared, which a writer holds alone."""
    import threading

    from support.team_servers import team_lock

    name = "repository test-collection"
    writing, released = threading.Event(), threading.Event()

    def writer() -> None:
        with team_lock(name, lambda: None):
            writing.set()
            time.sleep(1.0)
            released.set()  # the writer's last act under the lock: the reader may get in as soon as it lets go

    thread = threading.Thread(target=writer)
    thread.start()
    assert writing.wait(30)
    with team_lock(name, lambda: None, shared=True):
        assert released.is_set()  # the reader got in only once the writer was done
        started = time.perf_counter()
        with team_lock(name, lambda: None, shared=True):  # another reader does not wait for this one
            assert time.perf_counter() - started < 0.5
    thread.join()
