"""How the research repository reads Chroma: what it asks for once, and how it reads a corpus back for BM25."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from chromadb.api.models.Collection import Collection

from research_assistant.knowledge.documents import StoredDocument, source_id_for
from research_assistant.knowledge.embeddings import HashingEmbedding
from research_assistant.knowledge.repository import ResearchRepository

TEXTS = {
    "depot": "The Kallbacka depot opened in 2009 and holds 52 trams on covered storage tracks.",
    "fares": "A single adult ticket costs 2.80 crowns and is valid for 90 minutes of travel.",
    "faults": "Fault code ZX-4471 means the pantograph lost contact with the overhead line.",
}


def doc(name: str, text: str | None = None) -> StoredDocument:
    locator = f"/corpus/{name}.md"
    return StoredDocument(
        source_id=source_id_for(locator),
        locator=locator,
        title=name.title(),
        text=text or TEXTS[name],
        content_hash=f"hash-{name}-{len(text or '')}",
        fetched_at="2024-05-01T10:00:00+00:00",
        corpus="C1",
    )


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """Every `get` and `query` the repository sends Chroma, with its keyword arguments."""
    made: list[tuple[str, dict[str, Any]]] = []
    for name in ("get", "query"):
        original = getattr(Collection, name)

        def spy(self: Collection, *args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
            made.append((_name, kwargs))
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Collection, name, spy)
    return made


@pytest.fixture
def repository(tmp_path: Path) -> ResearchRepository:
    repo = ResearchRepository(tmp_path / "db", HashingEmbedding(), chunk_size=300, chunk_overlap=40)
    repo.add_documents([doc(name) for name in TEXTS], run_id="r1")
    return repo


def test_an_identical_retrieval_is_answered_without_asking_chroma_again(
    repository: ResearchRepository, calls: list[tuple[str, dict[str, Any]]]
) -> None:
    first = repository.retrieve("ZX-4471 pantograph", 3, corpus="C1", alternatives=["fault code"])
    info = repository.document_info([source_id_for("/corpus/faults.md")])
    hashes = repository.indexed_hashes("C1")
    asked = len(calls)

    again = repository.retrieve("ZX-4471 pantograph", 3, corpus="C1", alternatives=["fault code"])

    assert again == first and first[0].source_id == source_id_for("/corpus/faults.md")
    assert repository.document_info([source_id_for("/corpus/faults.md")]) == info
    assert repository.indexed_hashes("C1") == hashes
    assert len(calls) == asked


def test_a_write_makes_the_same_retrieval_ask_again(repository: ResearchRepository) -> None:
    before = repository.retrieve("pantograph", 3, corpus="C1")
    assert repository.indexed_hashes("C1").keys() == {source_id_for(f"/corpus/{name}.md") for name in TEXTS}

    repository.add_documents([doc("notes", "The pantograph of tram 12 was replaced in May.")], "r2")

    after = repository.retrieve("pantograph", 3, corpus="C1")
    assert source_id_for("/corpus/notes.md") in {p.source_id for p in after} - {p.source_id for p in before}
    assert source_id_for("/corpus/notes.md") in repository.indexed_hashes("C1")
    repository.remove_documents([source_id_for("/corpus/notes.md")])
    assert repository.retrieve("pantograph", 3, corpus="C1") == before
    assert repository.document_info([source_id_for("/corpus/notes.md")]) == {}


def test_another_repository_objects_write_is_seen_by_the_same_retrieval(tmp_path: Path) -> None:
    """Another process indexing the same folder: its write is seen, not an answer remembered from before it."""
    reader = ResearchRepository(tmp_path / "db", HashingEmbedding())
    writer = ResearchRepository(tmp_path / "db", HashingEmbedding())
    writer.add_documents([doc("fares")], "r1")
    assert [p.source_id for p in reader.retrieve("pantograph overhead line", 3)] == []

    writer.add_documents([doc("faults")], "r2")

    assert [p.source_id for p in reader.retrieve("pantograph overhead line", 3)] == [source_id_for("/corpus/faults.md")]


def test_bm25_reads_the_corpus_back_by_chunk_id(
    repository: ResearchRepository, calls: list[tuple[str, dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chroma filters again for every page read with an offset: reading a large corpus's chunks that way took six
    times as long as listing their ids once and reading them by id."""
    monkeypatch.setattr("research_assistant.knowledge.repository._BM25_PAGE", 2)
    repository.add_documents([doc(f"extra{i}", f"Extra note {i} about the timetable.") for i in range(5)], "r2")
    calls.clear()

    repository.warm(corpus="C1")

    reads = [kwargs for name, kwargs in calls if name == "get" and "metadatas" in kwargs.get("include", ())]
    assert len(reads) == 4  # 8 chunks, 2 a page
    assert all(kwargs.get("ids") and not kwargs.get("where") and not kwargs.get("offset") for kwargs in reads)
    built = repository._bm25[("C1", None)].index
    assert built is not None
    listed = repository._collection.get(where={"corpus": "C1"}, include=[])["ids"]
    assert built.chunk_ids == listed
    assert repository.retrieve("ZX-4471", 1, corpus="C1")[0].source_id == source_id_for("/corpus/faults.md")
