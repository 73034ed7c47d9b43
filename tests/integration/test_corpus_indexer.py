"""Syncing a corpus folder: only what changed is re-indexed, vanished files disappear, bad files are reported."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import docx
import pytest

from research_assistant.corpus import indexer as indexer_module
from research_assistant.corpus.files import CorpusError, corpus_files, corpus_id_for
from research_assistant.corpus.indexer import CorpusIndexer
from research_assistant.corpus.workers import MIN_FILES
from research_assistant.knowledge.document_cache import DocumentCache
from research_assistant.knowledge.documents import source_id_for
from research_assistant.knowledge.embeddings import HashingEmbedding
from research_assistant.knowledge.repository import ResearchRepository


def write_corpus(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "overview.md").write_text("# Tram Network\n\nThe network has six lines and 42.5 km of route.\n")
    (folder / "depot.txt").write_text("KALLBACKA DEPOT\n\nThe depot opened in 2009 and holds 52 trams.\n")
    (folder / "fares.html").write_text(
        "<html><head><title>Fares</title></head><body><nav>Home</nav>"
        "<main><p>A single ticket costs 2.80 crowns.</p></main></body></html>"
    )
    fleet = docx.Document()
    fleet.core_properties.title = "Fleet Sheet"
    fleet.add_paragraph("The fleet has 48 low-floor trams.")
    (folder / "reports").mkdir(exist_ok=True)
    fleet.save(str(folder / "reports" / "fleet.docx"))
    (folder / ".hidden.md").write_text("# Secret\n\nHidden notes must not be indexed.\n")
    (folder / ".git").mkdir(exist_ok=True)
    (folder / ".git" / "notes.md").write_text("# Git internals\n")
    (folder / "image.png").write_bytes(b"\x89PNG")
    return folder


def locator(path: Path) -> str:
    return path.resolve().as_posix()


class Setup:
    def __init__(self, tmp_path: Path) -> None:
        self.corpus = write_corpus(tmp_path / "corpus")
        self.repository = ResearchRepository(tmp_path / "db", HashingEmbedding())
        self.cache = DocumentCache(tmp_path / "cache")
        self.indexer = CorpusIndexer(self.corpus, self.repository, self.cache)

    def found(self, query: str) -> set[str]:
        passages = self.repository.retrieve(query, 5, corpus=self.indexer.corpus_id)
        return {p.source_id for p in passages}


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


def test_first_sync_indexes_every_supported_file(setup: Setup) -> None:
    report = setup.indexer.sync()

    assert (report.indexed, report.unchanged, report.removed, report.skipped) == (4, 0, 0, [])
    fleet = locator(setup.corpus / "reports" / "fleet.docx")
    assert set(setup.repository.indexed_hashes(setup.indexer.corpus_id)) == {
        source_id_for(locator(setup.corpus / name))
        for name in ("overview.md", "depot.txt", "fares.html", "reports/fleet.docx")
    }
    cached = setup.cache.get(source_id_for(fleet))
    assert cached is not None
    assert (cached.locator, cached.title, cached.access_method, cached.corpus) == (
        fleet,
        "Fleet Sheet",
        "local-file",
        setup.indexer.corpus_id,
    )
    assert source_id_for(fleet) in setup.found("How many low-floor trams are in the fleet?")
    assert setup.found("Hidden notes secret") == set()


def test_second_sync_re_indexes_nothing(setup: Setup) -> None:
    setup.indexer.sync()
    chunks = setup.repository.chunk_count()

    report = setup.indexer.sync()

    assert (report.indexed, report.unchanged, report.removed, report.skipped) == (0, 4, 0, [])
    assert setup.repository.chunk_count() == chunks


def test_changing_one_file_re_indexes_just_it(setup: Setup) -> None:
    setup.indexer.sync()
    depot = setup.corpus / "depot.txt"
    depot.write_text("KALLBACKA DEPOT\n\nAfter the 2024 extension the depot holds 64 trams.\n")

    report = setup.indexer.sync()

    assert (report.indexed, report.unchanged) == (1, 3)
    assert "64 trams" in (setup.cache.text(source_id_for(locator(depot))) or "")
    passages = setup.repository.retrieve("How many trams does the depot hold?", 5, corpus=setup.indexer.corpus_id)
    depot_texts = [p.text for p in passages if p.source_id == source_id_for(locator(depot))]
    assert depot_texts and all("52 trams" not in text for text in depot_texts)


def test_a_new_way_of_reading_files_reads_every_file_again(setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    """A repository indexed by an older reading does not keep what it made of the files."""
    setup.indexer.sync()
    monkeypatch.setattr("research_assistant.corpus.indexer._READING", b"reading next\n")

    report = setup.indexer.sync()

    assert (report.indexed, report.unchanged) == (4, 0)
    assert setup.indexer.sync().unchanged == 4


def test_a_missing_cache_entry_is_read_again_and_the_index_left_as_it_is(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup.indexer.sync()
    overview = source_id_for(locator(setup.corpus / "overview.md"))
    (setup.cache.directory / f"{overview}.json").unlink()
    written: list[str] = []
    monkeypatch.setattr(setup.repository, "add_documents", lambda docs, *_: written.extend(d.source_id for d in docs))

    report = setup.indexer.sync()

    assert (report.indexed, report.unchanged, report.read_again, written) == (0, 4, 1, [])
    cached = setup.cache.get(overview)
    assert cached is not None and "42.5 km" in cached.text
    assert overview in setup.found("How long is the tram network's route?")


def test_an_uncached_file_that_no_longer_loads_is_indexed_anew_and_skipped(
    setup: Setup, monkeypatch: pytest.MonkeyPatch
) -> None:
    setup.indexer.sync()
    overview = setup.corpus / "overview.md"
    (setup.cache.directory / f"{source_id_for(locator(overview))}.json").unlink()
    real = indexer_module.prepare
    monkeypatch.setattr(
        indexer_module, "prepare", lambda path, *rest: "parser crashed" if path == overview else real(path, *rest)
    )

    report = setup.indexer.sync()

    assert (report.indexed, report.unchanged, report.read_again) == (0, 3, 0)
    assert report.skipped == [(locator(overview), "parser crashed")]
    assert source_id_for(locator(overview)) not in setup.repository.indexed_hashes(setup.indexer.corpus_id)


def test_many_uncached_files_are_read_again_by_worker_processes(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for number in range(MIN_FILES + 5):
        (corpus / f"note{number}.md").write_text(f"# Note {number}\n\nTram {number} was built in {1950 + number}.\n")
    cache = DocumentCache(tmp_path / "cache")
    indexer = CorpusIndexer(corpus, ResearchRepository(tmp_path / "db", HashingEmbedding()), cache)
    indexer.sync()
    shutil.rmtree(cache.directory)

    report = indexer.sync()

    assert (report.indexed, report.unchanged, report.read_again) == (0, MIN_FILES + 5, MIN_FILES + 5)
    assert "built in 1957" in (cache.text(source_id_for(locator(corpus / "note7.md"))) or "")


def test_deleting_a_file_removes_its_chunks(setup: Setup) -> None:
    setup.indexer.sync()
    fares = setup.corpus / "fares.html"
    fares_id = source_id_for(locator(fares))
    assert fares_id in setup.found("single ticket crowns")
    fares.unlink()

    report = setup.indexer.sync()

    assert (report.indexed, report.unchanged, report.removed) == (0, 3, 1)
    assert fares_id not in setup.found("single ticket crowns")
    assert fares_id not in setup.repository.indexed_hashes(setup.indexer.corpus_id)


def test_a_corrupt_file_is_skipped_with_its_reason_and_the_rest_indexed(setup: Setup) -> None:
    (setup.corpus / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a PDF")
    (setup.corpus / "empty.docx").write_bytes(b"")

    report = setup.indexer.sync()

    assert report.indexed == 4
    reasons = dict(report.skipped)
    assert set(reasons) == {locator(setup.corpus / "broken.pdf"), locator(setup.corpus / "empty.docx")}
    assert "PDF" in reasons[locator(setup.corpus / "broken.pdf")]
    assert "Word" in reasons[locator(setup.corpus / "empty.docx")]
    assert all("\n" not in reason for reason in reasons.values())


def test_a_file_that_becomes_unreadable_stops_answering(setup: Setup) -> None:
    setup.indexer.sync()
    overview = setup.corpus / "overview.md"
    overview.write_text("   \n")

    report = setup.indexer.sync()

    assert [path for path, _ in report.skipped] == [locator(overview)]
    assert source_id_for(locator(overview)) not in setup.found("six lines route")


def test_corpus_id_is_stable_and_distinct(tmp_path: Path) -> None:
    first = corpus_id_for(tmp_path / "a")
    assert first == corpus_id_for(tmp_path / "x" / ".." / "a")
    assert first != corpus_id_for(tmp_path / "b")


def test_two_corpora_in_one_repository_stay_apart(setup: Setup, tmp_path: Path) -> None:
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    (other_dir / "buses.md").write_text("# Buses\n\nThe single ticket for buses costs 3.10 crowns.\n")
    other = CorpusIndexer(other_dir, setup.repository, setup.cache)

    setup.indexer.sync()
    other.sync()

    assert setup.indexer.sync().removed == 0
    buses = source_id_for(locator(other_dir / "buses.md"))
    assert buses not in setup.found("single ticket crowns")
    assert {p.source_id for p in setup.repository.retrieve("ticket", 5, corpus=other.corpus_id)} == {buses}


def test_missing_folder_is_a_clear_error(tmp_path: Path, setup: Setup) -> None:
    indexer = CorpusIndexer(tmp_path / "nowhere", setup.repository, setup.cache)

    with pytest.raises(CorpusError, match=r"corpus folder .*nowhere does not exist"):
        indexer.sync()


def test_a_file_instead_of_a_folder_is_a_clear_error(tmp_path: Path, setup: Setup) -> None:
    path = tmp_path / "notes.md"
    path.write_text("# Notes\n")

    with pytest.raises(CorpusError, match="is not a folder"):
        CorpusIndexer(path, setup.repository, setup.cache).sync()


def test_folder_without_supported_files_is_a_clear_error(tmp_path: Path, setup: Setup) -> None:
    folder = tmp_path / "pictures"
    folder.mkdir()
    (folder / "photo.jpg").write_bytes(b"\xff\xd8")
    (folder / ".notes.md").write_text("# hidden\n")

    with pytest.raises(CorpusError, match=r"contains no \.md, \.txt, \.html, \.pdf or \.docx files"):
        CorpusIndexer(folder, setup.repository, setup.cache).sync()
    with pytest.raises(CorpusError, match="contains no"):
        corpus_files(folder)


def test_unreadable_folder_is_a_clear_error(tmp_path: Path, setup: Setup, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n")
    real_scandir = os.scandir

    def scandir(path: str | os.PathLike[str]) -> object:  # what a folder without read permission does
        if Path(path) == folder:
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)

    with pytest.raises(CorpusError, match=r"cannot read corpus folder .*locked: Permission denied"):
        CorpusIndexer(folder, setup.repository, setup.cache).sync()


def test_corpus_files_lists_supported_files_only(setup: Setup) -> None:
    names = sorted(path.relative_to(setup.corpus).as_posix() for path in corpus_files(setup.corpus))

    assert names == ["depot.txt", "fares.html", "overview.md", "reports/fleet.docx"]


def _chunks(repository: ResearchRepository) -> dict[str, tuple[object, ...]]:
    """Every chunk's metadata but the time it was indexed, and its vector, by chunk id."""
    found = repository._collection.get(include=["metadatas", "embeddings"])
    chunks: dict[str, tuple[object, ...]] = {}
    for chunk_id, meta, vector in zip(found["ids"], found["metadatas"], found["embeddings"], strict=True):
        fields = sorted((key, value) for key, value in meta.items() if key != "fetched_at")
        chunks[chunk_id] = (fields, [float(x) for x in vector])
    return chunks


def test_worker_processes_index_exactly_what_threads_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from research_assistant.corpus import indexer, workers

    examples = Path(__file__).resolve().parents[2] / "examples" / "python-memory"
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for path in examples.iterdir():  # the example corpus, with one file that cannot be read
        if path.is_file():
            (corpus / path.name).write_bytes(path.read_bytes())
    (corpus / "broken.pdf").write_bytes(b"not a pdf")
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(workers, "MIN_FILES", 8)  # a small corpus, indexed by the workers all the same
    pools: list[object] = []

    def spied(files: int) -> object:
        pools.append(workers.process_pool(files))
        return pools[-1]

    def index(name: str) -> tuple[dict[str, tuple[object, ...]], list[tuple[str, str]]]:
        repository = ResearchRepository(tmp_path / name / "db", HashingEmbedding())
        report = CorpusIndexer(corpus, repository, DocumentCache(tmp_path / name / "cache")).sync()
        return _chunks(repository), report.skipped

    monkeypatch.setattr(indexer, "process_pool", spied)
    by_processes, skipped = index("processes")
    assert pools and pools[0] is not None  # the workers were used
    monkeypatch.setattr(indexer, "process_pool", lambda files: None)
    by_threads, skipped_too = index("threads")
    assert len(by_processes) > 50 and by_processes == by_threads
    assert [reason for _, reason in skipped] == [reason for _, reason in skipped_too] != []


def test_worker_processes_hand_over_whole_batches_to_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Storing costs Chroma a revision bump, a delete and inserts per call: the files the workers load are stored
    64 at a time, as threads load them, not in quarter batches."""
    from research_assistant.corpus import workers

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for number in range(70):
        (corpus / f"note{number:02}.md").write_text(f"# Note {number}\n\nTram {number} was serviced in May.\n")
    monkeypatch.setattr(workers.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(workers, "MIN_FILES", 8)
    stored: list[int] = []
    add_documents = ResearchRepository.add_documents

    def spied(self: ResearchRepository, docs: list[object], *args: object, **kwargs: object) -> int:
        stored.append(len(docs))
        return add_documents(self, docs, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ResearchRepository, "add_documents", spied)
    repository = ResearchRepository(tmp_path / "db", HashingEmbedding())

    report = CorpusIndexer(corpus, repository, DocumentCache(tmp_path / "cache")).sync()

    assert report.indexed == 70 and repository.chunk_count() == 70
    assert stored == [64, 6]


def _bm25_arrays(repository: ResearchRepository, corpus: str) -> tuple[object, ...]:
    """The corpus's BM25 index as built now: its chunk ids, vocabulary and score matrix."""
    cached = repository._bm25_for(corpus, None)
    assert cached.index is not None
    scores = cached.index.bm25.scores
    matrix = tuple(scores[name].tobytes() for name in ("data", "indices", "indptr"))
    return cached.index.chunk_ids, cached.index.bm25.vocab_dict, matrix


def test_a_first_index_builds_its_bm25_index_from_the_chunks_as_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first index tokenizes chunks as it stores them instead of reading them all back: the very index that
    reading them back gives. A re-sync, whose corpus holds chunks it did not store, reads them back."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for number in range(12):
        lines = [f"Tram {number} line {line}: the depot services bogie {line * number} in May." for line in range(60)]
        (corpus / f"note{number:02}.md").write_text(f"# Note {number}\n\n" + "\n\n".join(lines))
    repository = ResearchRepository(tmp_path / "db", HashingEmbedding())
    read_back: list[str | None] = []
    read = ResearchRepository._read_bm25_tokens

    def spied(self: ResearchRepository, corpus: str | None, ids: frozenset[str] | None) -> object:
        read_back.append(corpus)
        return read(self, corpus, ids)

    monkeypatch.setattr(ResearchRepository, "_read_bm25_tokens", spied)
    indexer = CorpusIndexer(corpus, repository, DocumentCache(tmp_path / "cache"))
    indexer.sync()
    assert read_back == [] and repository.chunk_count() > 12 * 3  # built from what was stored
    as_stored = _bm25_arrays(repository, indexer.corpus_id)
    repository._bm25.clear()
    shutil.rmtree(repository._bm25_dir(indexer.corpus_id))
    assert _bm25_arrays(repository, indexer.corpus_id) == as_stored  # read back: the same index
    assert read_back == [indexer.corpus_id]

    (corpus / "note03.md").write_text("# Note 3\n\nTram 3 was retired.\n")
    indexer.sync()
    assert read_back == [indexer.corpus_id] * 2  # the corpus held chunks this sync did not store
    assert [p.source_id for p in repository.retrieve("retired", 1, corpus=indexer.corpus_id)] == [
        source_id_for(locator(corpus / "note03.md"))
    ]
