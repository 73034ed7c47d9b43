"""Real servers for the team-deployment tests, started on loopback in a temporary folder: a throwaway
PostgreSQL cluster (Debian's `postgresql` package, run as user postgres when the tests run as root) and
`chroma run` from the installed chromadb package. A test skips, saying why, when a binary is missing."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

import pytest

from support.server_process import Server, free_port, stop, wait_until_ready

PASSWORD = "team-secret-pw-4711"
"""The database user's password: it appears in the URL the workers get, and must never appear in their output."""


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@dataclass
class Postgres:
    port: int
    folder: Path
    bin: Path
    as_user: list[str]

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://research:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        import psycopg

        with psycopg.connect(self.url(database), autocommit=True) as connection:
            cursor = connection.execute(sql)
            return "" if cursor.description is None else repr(cursor.fetchall())

    def new_database(self, name: str) -> str:
        """A fresh, empty database; its URL."""
        self.psql(f'DROP DATABASE IF EXISTS "{name}"')
        self.psql(f'CREATE DATABASE "{name}"')
        return self.url(name)


class ServerError(RuntimeError):
    """A server could not be started; the message has its output."""


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ServerError(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")


def start_postgres(binaries: Path) -> Postgres:
    """A new cluster in a temporary folder on a free loopback port, user `research` with password `PASSWORD`;
    as user postgres when this runs as root (initdb refuses root)."""
    as_user: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="research-pg-"))
    password_file = folder / "password"
    password_file.write_text(PASSWORD + "\n", encoding="utf-8")
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        for path in (folder, password_file):
            os.chown(path, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", free_port()
    _run(
        [*as_user, str(binaries / "initdb"), "-D", str(data), "-U", "research", "--auth=scram-sha-256",
         f"--pwfile={password_file}", "-E", "UTF8", "--locale=C"]
    )  # fmt: skip
    options = f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={folder} -c fsync=off"
    _run([*as_user, str(binaries / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-o", options, "-w", "start"])
    return Postgres(port, folder, binaries, as_user)


def stop_postgres(server: Postgres) -> None:
    subprocess.run(
        [*server.as_user, str(server.bin / "pg_ctl"), "-D", str(server.folder / "data"), "-m", "immediate", "stop"],
        capture_output=True,
        check=False,
    )
    shutil.rmtree(server.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """A PostgreSQL cluster of its own on a free loopback port, with user `research` (password auth)."""
    binaries = postgres_bin()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (apt-get install -y postgresql; .ci/run does)")
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no user postgres to own a cluster")
    try:
        server = start_postgres(binaries)
    except ServerError as error:
        pytest.fail(str(error))
    try:
        yield server
    finally:
        stop_postgres(server)


def start_chroma(folder: Path) -> tuple[subprocess.Popen[bytes], Server]:
    """`chroma run` on a free loopback port over `folder`, and the server's address (not yet ready)."""
    chroma = shutil.which("chroma")
    if chroma is None:
        raise ServerError("the `chroma` command (from the chromadb package) is not installed")
    port = free_port()
    server = Server(f"http://127.0.0.1:{port}", folder / "log")
    folder.mkdir(parents=True, exist_ok=True)
    with server.log.open("wb") as log:
        process = subprocess.Popen(
            [chroma, "run", "--path", str(folder / "data"), "--host", "127.0.0.1", "--port", str(port)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    return process, server


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`chroma run` on a free loopback port, over a temporary folder."""
    if shutil.which("chroma") is None:
        pytest.skip("the `chroma` command (from the chromadb package) is not installed")
    process, server = start_chroma(tmp_path_factory.mktemp("chroma-server"))
    try:
        wait_until_ready(process, server, "/api/v2/heartbeat", "chroma run", 60)
        yield server
    finally:
        stop(process, 10)


def team_lock(name: str, wait: Callable[[], None], *, shared: bool = False) -> AbstractContextManager[None]:
    """The team lock of one name (`database.team_locks`)."""
    from research_assistant.database import team_locks

    return team_locks([name], wait, shared=shared)
