"""One repository folder shared by several processes: each sees what the others wrote, and a reader waits
for a write in progress instead of reading half of it. Real Chroma, real processes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

from research_assistant.knowledge.documents import StoredDocument, source_id_for
from research_assistant.knowledge.embeddings import HashingEmbedding
from research_assistant.knowledge.locking import RepositoryLock
from research_assistant.knowledge.repository import ResearchRepository

TEXTS = {
    "fares": "A single adult ticket costs 2.80 crowns and is valid for 90 minutes of tram travel.",
    "history": "The old tramway closed in 1961. Horse trams began in 1896 and were electrified in 1902.",
    "faults": "Fault code ZX-4471 means the tram pantograph lost contact with the overhead line.",
}

CHILD = """
import sys, time
from pathlib import Path
from research_assistant.knowledge.documents import StoredDocument, source_id_for
from research_assistant.knowledge.embeddings import HashingEmbedding
from research_assistant.knowledge.repository import ResearchRepository

db, action = Path(sys.argv[1]), sys.argv[2]
repository = ResearchRepository(db, HashingEmbedding(), chunk_size=300, chunk_overlap=40)
if action == "edit":
    locator = "/corpus/faults.md"
    text = {faults!r}
    repository.add_documents([StoredDocument(source_id=source_id_for(locator), locator=locator, title="Faults",
        text=text, content_hash="h-faults", fetched_at="2024-05-01T10:00:00+00:00", corpus="C1")], run_id="child")
    repository.remove_documents([source_id_for("/corpus/fares.md")])
else:
    with repository.writing():
        print("writing", flush=True)
        time.sleep(float(action))
"""


def doc(name: str) -> StoredDocument:
    locator = f"/corpus/{name}.md"
    return StoredDocument(
        source_id=source_id_for(locator),
        locator=locator,
        title=name.title(),
        text=TEXTS[name],
        content_hash=f"h-{name}",
        fetched_at="2024-05-01T10:00:00+00:00",
        corpus="C1",
    )


def child(db: Path, action: str) -> subprocess.Popen[str]:
    script = CHILD.replace("{faults!r}", repr(TEXTS["faults"]))
    return subprocess.Popen([sys.executable, "-c", script, str(db), action], stdout=subprocess.PIPE, text=True)


def test_a_repository_sees_what_another_process_added_and_removed(tmp_path: Path) -> None:
    repository = ResearchRepository(tmp_path / "db", HashingEmbedding(), chunk_size=300, chunk_overlap=40)
    repository.add_documents([doc("fares"), doc("history")], run_id="r1")
    before = {p.source_id for p in repository.retrieve("tram", 10, corpus="C1")}
    assert before == {source_id_for("/corpus/fares.md"), source_id_for("/corpus/history.md")}

    writer = child(tmp_path / "db", "edit")
    assert writer.wait(timeout=60) == 0

    after = repository.retrieve("tram pantograph", 10, corpus="C1")
    assert {p.source_id for p in after} == {source_id_for("/corpus/faults.md"), source_id_for("/corpus/history.md")}
    assert "ZX-4471" in after[0].text
    assert set(repository.indexed_hashes("C1")) == {p.source_id for p in after}


def test_a_reader_waits_for_the_write_in_progress_and_no_longer(tmp_path: Path) -> None:
    repository = ResearchRepository(tmp_path / "db", HashingEmbedding(), chunk_size=300, chunk_overlap=40)
    repository.add_documents([doc("fares")], run_id="r1")
    writer = child(tmp_path / "db", "1.5")
    assert writer.stdout is not None and writer.stdout.readline().strip() == "writing"
    started = time.monotonic()
    assert repository.retrieve("ticket", 3, corpus="C1")
    waited = time.monotonic() - started
    assert writer.wait(timeout=30) == 0
    assert 0.5 < waited < 10


def test_readers_share_the_lock_and_a_writer_excludes_them(tmp_path: Path) -> None:
    lock, other = RepositoryLock(tmp_path), RepositoryLock(tmp_path)
    events: list[str] = []
    with lock.shared(), other.shared(), lock.shared():  # nested reads, by either lock on the folder, are free
        events.append("read")

    def reader() -> None:
        with other.shared():
            events.append("read after write")

    with lock.exclusive():
        thread = threading.Thread(target=reader)
        thread.start()
        time.sleep(0.3)
        events.append("write")
    thread.join(timeout=5)
    assert events == ["read", "write", "read after write"]
