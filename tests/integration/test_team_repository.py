"""The shared repository on a team's servers (a Chroma server, locks in PostgreSQL, both started here on loopback):
workers indexing different documents never wait for each other, and workers indexing the same document take
turns, so it ends up with exactly one copy's chunks; a worker that searched while another was half-way through a
write finds all of it once it is written. Each repository here has a folder of its own, as a worker on another
machine would."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import chromadb
import httpx
import pytest
from pydantic import PrivateAttr
from support.server_process import Server
from support.team_servers import Postgres, chroma_server, postgres

from research_assistant.knowledge import repository
from research_assistant.knowledge.documents import StoredDocument
from research_assistant.knowledge.embeddings import HashingEmbedding
from research_assistant.knowledge.repository import ResearchRepository, collection_name_for
from research_assistant.settings import get_settings

__all__ = ["chroma_server", "postgres"]  # the fixtures

pytestmark = pytest.mark.slow

WAIT = 30.0
"""Seconds a test waits for what should happen at once; only reached when it fails."""


class GatedEmbedding(HashingEmbedding):
    """The hashing embedding, which holds each batch after the first `let_through` until `gate` opens: a write
    caught half-way, its old chunks deleted and its new ones not yet (or only partly) stored. Named per test, so
    every test has a collection of its own."""

    _gate: threading.Event = PrivateAttr(default_factory=threading.Event)
    _entered: threading.Event = PrivateAttr(default_factory=threading.Event)
    _let_through: int = PrivateAttr(default=0)

    def __init__(self, name: str, *, gated: bool, let_through: int = 0) -> None:
        super().__init__()
        self.model_name = name
        self._let_through = let_through
        if not gated:
            self._gate.set()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        if self._let_through > 0:
            self._let_through -= 1
            return super()._get_text_embeddings(texts)
        self._entered.set()
        assert self._gate.wait(WAIT), "the test never let the write go on"
        return super()._get_text_embeddings(texts)


@pytest.fixture
def team(postgres: Postgres, chroma_server: Server, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Both servers configured, a fresh database; the name of a collection no other test uses."""
    monkeypatch.setenv("RESEARCH_DATABASE_URL", postgres.new_database(f"research_{uuid.uuid4().hex[:12]}"))
    monkeypatch.setenv("RESEARCH_CHROMA_URL", chroma_server.url)
    get_settings.cache_clear()
    yield f"gated-{uuid.uuid4().hex[:8]}"
    monkeypatch.undo()
    get_settings.cache_clear()


def page(number: int, text: str, version: str = "1") -> StoredDocument:
    return StoredDocument(
        source_id=f"S{number:010d}",
        locator=f"https://example.org/{number}",
        title=f"Page {number}",
        text=text,
        content_hash=f"{number}-{version}",
        fetched_at="2026-01-01T00:00:00+00:00",
    )


def worker(
    folder: Path, name: str, *, gated: bool = False, let_through: int = 0
) -> tuple[ResearchRepository, GatedEmbedding]:
    embedding = GatedEmbedding(name, gated=gated, let_through=let_through)
    return ResearchRepository(folder, embedding, chunk_size=200, chunk_overlap=20), embedding


def in_thread(call: Callable[[], object]) -> tuple[threading.Thread, dict[str, object]]:
    """Run `call()` in a thread; what it returned (or raised) lands in the dict."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["result"] = call()
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def stored(model: str) -> list[tuple[str, int, str]]:
    """(source id, chunk number, its document's content hash) of every chunk on the server, in the collection for
    `model` (a document's first chunk holds its content hash)."""
    client = chromadb.HttpClient(host="127.0.0.1", port=int(get_settings().chroma_url.rsplit(":", 1)[1]))
    metadatas = client.get_collection(collection_name_for(model)).get(include=["metadatas"])["metadatas"] or []
    hashes = {str(m["source_id"]): str(m["content_hash"]) for m in metadatas if m["chunk"] == 0}
    return sorted((str(m["source_id"]), int(m["chunk"]), hashes.get(str(m["source_id"]), "")) for m in metadatas)


def test_a_worker_indexing_a_page_does_not_wait_for_another_indexing_other_documents(team: str, tmp_path: Path) -> None:
    slow, slow_embedding = worker(tmp_path / "a", team, gated=True)
    fast, _ = worker(tmp_path / "b", team)
    held, _ = in_thread(lambda: slow.add_documents([page(1, "A long page about trams. " * 40)], "run-a"))
    assert slow_embedding._entered.wait(WAIT)  # worker a is half-way through its write

    done, outcome = in_thread(lambda: fast.add_documents([page(2, "Ferries cross the fjord hourly.")], "run-b"))
    done.join(WAIT)
    finished = not done.is_alive()
    slow_embedding._gate.set()
    held.join(WAIT)
    assert finished, "worker b waited for worker a, which was writing another document"
    assert outcome.get("result") == 1
    assert {source for source, _, _ in stored(team)} == {"S0000000001", "S0000000002"}


def test_workers_indexing_the_same_document_take_turns_and_keep_one_copy(team: str, tmp_path: Path) -> None:
    first, first_embedding = worker(tmp_path / "a", team, gated=True)
    second, _ = worker(tmp_path / "b", team)
    longer, shorter = page(7, "The old timetable, at length. " * 60, "old"), page(7, "The new timetable.", "new")
    held, first_outcome = in_thread(lambda: first.add_documents([longer], "run-a"))
    assert first_embedding._entered.wait(WAIT)  # the first worker deleted the chunks and is storing its copy

    after, second_outcome = in_thread(lambda: second.add_documents([shorter], "run-b"))
    after.join(1.0)
    waited = after.is_alive()
    first_embedding._gate.set()
    held.join(WAIT)
    after.join(WAIT)
    assert waited, "the second worker wrote the document while the first was half-way through it"
    assert "error" not in first_outcome and "error" not in second_outcome
    assert stored(team) == [("S0000000007", 0, "7-new")]  # the last copy, whole, once


def test_a_worker_that_searched_during_another_workers_write_finds_the_whole_page_once_it_is_written(
    team: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(repository, "_NODES_PER_BATCH", 4)  # a page stored in several batches
    writer, writer_embedding = worker(tmp_path / "a", team, gated=True, let_through=1)
    reader, _ = worker(tmp_path / "b", team)
    text = " ".join(f"Tram {n} leaves the depot at {n} minutes past the hour." for n in range(60))
    held, outcome = in_thread(lambda: writer.add_documents([page(3, text)], "run-a"))
    assert writer_embedding._entered.wait(WAIT)  # the page's first 4 chunks are stored, the rest held back

    early = reader.retrieve("When does the tram leave the depot?", 100)
    writer_embedding._gate.set()
    held.join(WAIT)
    chunks = outcome.get("result")
    assert isinstance(chunks, int) and chunks > 8
    assert len(early) == 4  # the reader searched the half-written page

    assert len(reader.retrieve("When does the tram leave the depot?", 100)) == chunks
    restarted, _ = worker(tmp_path / "b", team)  # the same worker started again, with its saved BM25 index
    assert len(restarted.retrieve("When does the tram leave the depot?", 100)) == chunks


def chroma_requests(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, int]]:
    """Every request Chroma's client makes from now on (it speaks HTTP through httpx): method, path and the size
    of the answer."""
    made: list[tuple[str, str, int]] = []
    send = httpx.Client.send

    def counted(self: httpx.Client, request: httpx.Request, *args: Any, **kwargs: Any) -> httpx.Response:
        response = send(self, request, *args, **kwargs)
        made.append((request.method, request.url.path, len(response.content)))
        return response

    monkeypatch.setattr(httpx.Client, "send", counted)
    return made


def test_what_a_web_run_asks_the_shared_repository_does_not_grow_with_the_other_sources_it_holds(
    team: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A web run looks up, indexes and searches its own pages only: a per-run read of the whole collection (or of
    every document's first chunk) would cost every run more CPU, in the worker and in the server, the more runs a
    team has made."""
    made = chroma_requests(monkeypatch)
    question = "When did the trams return to service?"

    def a_run(number: int) -> list[tuple[str, str, int]]:
        """What a web run does with the repository, in a folder and a repository object of its own."""
        repository, _ = worker(tmp_path / f"run-{number}", team)
        pages = [page(number * 100 + k, f"The trams returned to service in 19{80 + k}. " * 12) for k in range(3)]
        del made[:]
        for document in pages:
            assert repository.document_info([document.source_id]) == {}
            repository.add_documents([document], f"run-{number}")
        assert repository.retrieve(question, 4, source_ids=[document.source_id for document in pages])
        return list(made)

    a_run(1)  # the collection made, Chroma's client connected: as for a team's steady state
    early = a_run(2)
    others, _ = worker(tmp_path / "others", team)
    others.add_documents(
        [page(10_000 + n, f"Ferry timetable {n}: " + "the ferry leaves hourly. " * 80) for n in range(60)], "others"
    )
    late = a_run(3)

    assert [(method, path) for method, path, _ in late] == [(method, path) for method, path, _ in early]
    # The answers differ only in counters (the collection's size, its revisions), never by the others' chunks.
    assert sum(size for _, _, size in late) < sum(size for _, _, size in early) + 200
