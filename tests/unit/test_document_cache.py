"""The document cache: what was read stays readable, and a damaged entry is a miss, not a crash."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from research_assistant.knowledge.document_cache import DocumentCache
from research_assistant.knowledge.documents import StoredDocument, source_id_for


def document(text: str = "The depot opened in 2009.", locator: str = "/corpus/depot.txt") -> StoredDocument:
    return StoredDocument(
        source_id=source_id_for(locator),
        locator=locator,
        title="Depot",
        text=text,
        content_hash="ab" * 32,
        fetched_at="2024-05-01T10:00:00+00:00",
        corpus="Cabc",
    )


def test_a_stored_document_reads_back_whole(tmp_path: Path) -> None:
    cache = DocumentCache(tmp_path)
    doc = document("Line one.\n\nLine two with ünïcödé and “quotes”.")

    cache.put(doc)

    assert cache.get(doc.source_id) == doc
    assert cache.text(doc.source_id) == doc.text
    assert cache.has(doc.source_id)
    assert (tmp_path / "documents" / f"{doc.source_id}.json").is_file()


def test_a_new_cache_object_sees_earlier_writes(tmp_path: Path) -> None:
    doc = document()
    DocumentCache(tmp_path).put(doc)

    assert DocumentCache(tmp_path).get(doc.source_id) == doc


def test_missing_documents_read_as_none(tmp_path: Path) -> None:
    cache = DocumentCache(tmp_path)

    assert cache.get("S0000000000") is None
    assert cache.text("S0000000000") is None
    assert not cache.has("S0000000000")


OTHER = document(locator="/corpus/other.txt").model_dump_json().encode()


@pytest.mark.parametrize(
    "damage",
    [b"", b"{not json", b'{"source_id": "S1"}', b"\xff\xfe\x00garbage", b"[]", OTHER, b"\x00" * 4096],
    ids=["empty", "not json", "missing fields", "binary", "wrong shape", "another document", "zeroed"],
)
def test_a_corrupt_entry_reads_as_none_and_counts_as_absent(tmp_path: Path, damage: bytes) -> None:
    cache = DocumentCache(tmp_path)
    doc = document()
    cache.put(doc)
    (tmp_path / "documents" / f"{doc.source_id}.json").write_bytes(damage)

    assert cache.get(doc.source_id) is None
    assert cache.text(doc.source_id) is None
    assert not cache.has(doc.source_id)  # so indexing reads the file again instead of counting it unchanged

    cache.put(doc)
    assert cache.has(doc.source_id) and cache.get(doc.source_id) == doc


def test_a_truncated_entry_counts_as_absent(tmp_path: Path) -> None:
    cache = DocumentCache(tmp_path)
    doc = document("A long text. " * 500)
    cache.put(doc)
    path = tmp_path / "documents" / f"{doc.source_id}.json"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])

    assert not cache.has(doc.source_id)


def test_put_replaces_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    cache = DocumentCache(tmp_path)
    cache.put(document("old text"))
    cache.put(document("new text"))

    assert cache.text(document().source_id) == "new text"
    assert [p.name for p in (tmp_path / "documents").iterdir()] == [f"{document().source_id}.json"]


def test_ids_that_could_escape_the_folder_are_refused(tmp_path: Path) -> None:
    cache = DocumentCache(tmp_path)

    with pytest.raises(ValueError, match="invalid source id"):
        cache.get("../../etc/passwd")


def test_concurrent_writers_and_readers_never_see_half_a_document(tmp_path: Path) -> None:
    cache = DocumentCache(tmp_path)
    versions = [document(f"version {i} " * 2000) for i in range(8)]
    source_id = versions[0].source_id
    cache.put(versions[0])
    seen: list[StoredDocument | None] = []

    def write(doc: StoredDocument) -> None:
        for _ in range(10):
            cache.put(doc)

    def read() -> None:
        for _ in range(50):
            seen.append(cache.get(source_id))

    threads = [threading.Thread(target=write, args=(v,)) for v in versions] + [
        threading.Thread(target=read) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(seen) == 200
    assert all(doc in versions for doc in seen)  # every read is one complete version, never None or a mix
    assert cache.get(source_id) in versions
