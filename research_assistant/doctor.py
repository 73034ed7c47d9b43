"""`research-assistant doctor`: check every store of a working directory, and each configured server, one line each.

The databases (run store, checkpoints, the repository's Chroma database) are checked with SQLite's
`quick_check` and reported with what to do; they are never changed here, because the first two hold
what cannot be recomputed. Derived data that is damaged (a saved BM25 index, a cached document) is
removed, and the next run that needs it rebuilds it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from research_assistant.damage import (
    DamagedStore,
    causes,
    checkpoints_remedy,
    chroma_remedy,
    is_damage,
    problem_of,
    runs_remedy,
    sqlite_problem,
)

if TYPE_CHECKING:
    from research_assistant.knowledge.document_cache import DocumentCache

RUNS_FILE, CHECKPOINTS_FILE, CHROMA_FILE = "runs.sqlite", "checkpoints.sqlite", "chroma.sqlite3"


@dataclass(frozen=True)
class Finding:
    store: str
    path: Path
    status: str
    """"ok", "repaired", "damaged" or "unreachable" (a server)."""
    detail: str

    def line(self) -> str:
        return (
            f"{self.store}: ok ({self.detail})"
            if self.status == "ok"
            else f"{self.store}: {self.status}: {self.detail}"
        )


def sqlite_stores(db_dir: Path) -> list[tuple[Path, str | None, str]]:
    """(path, problem or None, remedy) for each SQLite store present in `db_dir`."""
    stores = [
        (db_dir / RUNS_FILE, runs_remedy),
        (db_dir / CHECKPOINTS_FILE, checkpoints_remedy),
        (db_dir / CHROMA_FILE, chroma_remedy),
    ]
    return [(path, sqlite_problem(path), remedy(path)) for path, remedy in stores if path.exists()]


def damaged_store_line(error: BaseException, db_dir: Path) -> str | None:
    """One line naming the damaged database behind `error` and what to do, for the command line and the page;
    None when `error` does not come from a damaged database."""
    named = next((cause for cause in causes(error) if isinstance(cause, DamagedStore)), None)
    if named is not None:
        return str(named)
    if not is_damage(error):
        return None
    for path, problem, remedy in sqlite_stores(db_dir):  # found damaged after it was opened: which one?
        if problem is not None:
            return str(DamagedStore(path, problem, remedy))
    return f"a database in {db_dir} is damaged ({problem_of(error)}); `research-assistant doctor` checks each one"


def check_stores(db_dir: Path, cache_dir: Path) -> list[Finding]:
    """One finding per store: the three databases, the BM25 cache and the document cache."""
    from research_assistant.database import check_database
    from research_assistant.knowledge.chroma_client import check_chroma
    from research_assistant.servers import chroma_url, database_url

    findings = []
    names = {RUNS_FILE: "runs", CHECKPOINTS_FILE: "checkpoints", CHROMA_FILE: "repository"}
    if database_url():  # the team's database holds runs and checkpoints: it is checked instead of the files
        findings.append(check_server("runs and checkpoints", database_url(), check_database))
        names = {CHROMA_FILE: "repository"}
    if chroma_url():
        findings.append(check_server("repository", chroma_url(), check_chroma))
        names.pop(CHROMA_FILE)
    present = {path.name: (problem, remedy) for path, problem, remedy in sqlite_stores(db_dir)}
    for file, name in names.items():
        path = db_dir / file
        if file not in present:
            findings.append(Finding(name, path, "ok", f"{path}, not created yet"))
            continue
        problem, remedy = present[file]
        if problem is None:
            findings.append(Finding(name, path, "ok", str(path)))
        else:
            findings.append(Finding(name, path, "damaged", f"{path} ({problem}); {remedy}"))
    findings.append(_check_bm25(db_dir / "bm25"))
    findings.append(_check_documents(cache_dir / "documents"))
    return findings


def check_server(store: str, url: str, check: Callable[[str], str]) -> Finding:
    """Whether a team's server (the PostgreSQL database, the Chroma server) answers, by `check`, which says what
    it is or raises `ServerUnavailable`: one line, its password masked."""
    from research_assistant.servers import ServerUnavailable
    from research_assistant.settings import redact_url

    try:
        about = check(url)
    except ServerUnavailable as error:
        return Finding(store, Path(), "unreachable", str(error))
    return Finding(store, Path(), "ok", f"{about} at {redact_url(url)}")


def _check_bm25(folder: Path) -> Finding:
    from research_assistant.knowledge import bm25_files

    indexes = sorted(p for p in folder.glob("*/*") if p.is_dir() and not p.name.startswith("."))
    damaged = [index for index in indexes if bm25_files.problem(index) is not None]
    for index in damaged:
        shutil.rmtree(index, ignore_errors=True)
    if damaged:
        detail = (
            f"{folder}: {len(damaged)} of {len(indexes)} saved indexes damaged or outdated, removed; rebuilt as needed"
        )
        return Finding("BM25 cache", folder, "repaired", detail)
    return Finding("BM25 cache", folder, "ok", f"{folder}, {len(indexes)} saved indexes")


def _check_documents(folder: Path) -> Finding:
    from research_assistant.knowledge.document_cache import DocumentCache

    cache = DocumentCache(folder.parent)
    if cache.entries.shared is not None:  # the team's database holds the documents; its reachability is checked above
        from research_assistant.servers import ServerUnavailable

        try:
            return Finding(
                "document cache", folder, "ok", f"in the PostgreSQL database, {cache.entries.shared.count()} documents"
            )
        except ServerUnavailable:
            return Finding("document cache", folder, "unreachable", "kept in the PostgreSQL database, which is down")
    entries = sorted(folder.glob("*.json")) if folder.is_dir() else []
    damaged = [entry for entry in entries if _damaged(cache, entry.stem)]
    for entry in damaged:
        entry.unlink(missing_ok=True)
    if damaged:
        detail = f"{folder}: {len(damaged)} of {len(entries)} documents damaged, removed; read again when next used"
        return Finding("document cache", folder, "repaired", detail)
    return Finding("document cache", folder, "ok", f"{folder}, {len(entries)} documents")


def _damaged(cache: DocumentCache, source_id: str) -> bool:
    try:
        return cache.get(source_id) is None
    except ValueError:  # not a name the cache writes: not an entry of ours
        return False
