"""The research repository: hybrid retrieval, filters, replacement, and one embedding model per collection."""

from __future__ import annotations

import threading
from pathlib import Path

import chromadb
import pytest
from chromadb.config import Settings as ChromaSettings

from research_assistant.knowledge import bm25_terms
from research_assistant.knowledge.chunking import Chunked, pieces
from research_assistant.knowledge.documents import StoredDocument, source_id_for
from research_assistant.knowledge.embeddings import HashingEmbedding
from research_assistant.knowledge.repository import (
    BUILD_EF,
    SEARCH_EF,
    RepositoryError,
    ResearchRepository,
    collection_name_for,
)

SETTINGS = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
"""The repository's own client settings: Chroma allows one set per folder in a process."""

FILLER = (
    "The tram network is run by the transit authority, which publishes timetables, fares and planning "
    "documents every year. Services are reviewed by the city council and adjusted to demand. "
)

TEXTS = {
    "history": "The old tramway closed in 1961. Horse trams began in 1896 and were electrified in 1902. " + FILLER,
    "depot": "The Kallbacka depot opened in 2009 and holds 52 trams on covered storage tracks. " + FILLER,
    "fares": "A single adult ticket costs 2.80 crowns and is valid for 90 minutes of travel. " + FILLER,
    "fleet": "The fleet has 48 low-floor trams with a maximum speed of 70 km/h. " + FILLER,
    "faults": FILLER * 3 + "Fault code ZX-4471 means the pantograph lost contact with the overhead line. " + FILLER,
}


def doc(name: str, text: str | None = None, corpus: str | None = "C1") -> StoredDocument:
    locator = f"/corpus/{name}.md"
    return StoredDocument(
        source_id=source_id_for(locator),
        locator=locator,
        title=name.title(),
        text=text if text is not None else TEXTS[name],
        content_hash=f"hash-{name}-{len(text or '')}",
        fetched_at="2024-05-01T10:00:00+00:00",
        corpus=corpus,
    )


def sid(name: str) -> str:
    return source_id_for(f"/corpus/{name}.md")


@pytest.fixture
def repository(tmp_path: Path) -> ResearchRepository:
    repo = ResearchRepository(tmp_path / "db", HashingEmbedding(), chunk_size=300, chunk_overlap=40)
    repo.add_documents([doc(name) for name in TEXTS], run_id="r1")
    return repo


def test_exact_rare_term_finds_its_document_first(repository: ResearchRepository) -> None:
    passages = repository.retrieve("ZX-4471", 3)

    assert passages[0].source_id == sid("faults")
    assert "ZX-4471" in passages[0].text


def test_differently_worded_question_finds_the_answer(repository: ResearchRepository) -> None:
    passages = repository.retrieve("When was the tramway shut down?", 3)

    assert passages[0].source_id == sid("history")
    assert "closed in 1961" in passages[0].text


def test_a_name_that_joins_two_words_of_the_question_is_found_by_them(tmp_path: Path) -> None:
    repo = ResearchRepository(tmp_path / "db", HashingEmbedding(), chunk_size=300, chunk_overlap=40)
    texts = {
        "sendmail": "sendmail\n\nDefault: /usr/sbin/sendmail -oem -oi\n\nSpecifies the command that delivers.",
        **{f"other{i}": f"Users {i} send mail to the list. " + FILLER for i in range(6)},
    }
    repo.add_documents([doc(name, text) for name, text in texts.items()], run_id="r1")

    passages = repo.retrieve("Which program does it use to send mail?", len(texts))

    assert sid("sendmail") in [p.source_id for p in passages]


def test_a_one_letter_option_is_a_word_the_index_finds_with_its_case(tmp_path: Path) -> None:
    repo = ResearchRepository(tmp_path / "db", HashingEmbedding(), chunk_size=300, chunk_overlap=40)
    texts = {
        "lower-n": "Miscellaneous options of lexgen\n\n‘-n’ Another do-nothing option included for POSIX compliance.",
        "upper-n": "Table options of lexgen\n\n‘-N’ Writes the tables of lexgen in the native format.",
        **{f"other{i}": f"What lexgen does with rule {i}: it matches the input. " + FILLER for i in range(6)},
    }
    repo.add_documents([doc(name, text) for name, text in texts.items()], run_id="r1")

    assert repo.retrieve("what does lexgen -n do?", 1)[0].source_id == sid("lower-n")
    assert repo.retrieve("what does lexgen -N do?", 1)[0].source_id == sid("upper-n")


def test_a_version_number_is_a_word_the_index_finds(tmp_path: Path) -> None:
    repo = ResearchRepository(tmp_path / "db", HashingEmbedding(), chunk_size=300, chunk_overlap=40)
    texts = {
        f"v3.{minor}": f"Release notes for v3.{minor}\n\nThis release of the library supports these Python versions."
        for minor in range(1, 6)
    }
    repo.add_documents([doc(name, text) for name, text in texts.items()], run_id="r1")

    assert repo.retrieve("Which Python versions does the library 3.4 support?", 1)[0].source_id == sid("v3.4")


def test_passages_are_exact_text_of_their_document_with_fused_scores(repository: ResearchRepository) -> None:
    passages = repository.retrieve("How many trams does the depot hold?", 5)

    assert passages[0].source_id == sid("depot")
    texts = {sid(name): text for name, text in TEXTS.items()}
    for passage in passages:
        assert passage.text in texts[passage.source_id]
        assert passage.chunk_id.startswith(passage.source_id + "#")
    scores = [p.score for p in passages]
    assert scores == sorted(scores, reverse=True)
    assert 0 < scores[0] <= 2 / 60  # reciprocal rank fusion (k=60): at most first place in both rankings


def test_source_filter_returns_only_those_sources(repository: ResearchRepository) -> None:
    query = "ZX-4471 on the tram network"
    assert repository.retrieve(query, 1)[0].source_id == sid("faults")

    passages = repository.retrieve(query, 5, source_ids=[sid("fares"), sid("fleet")])

    assert {p.source_id for p in passages} == {sid("fares"), sid("fleet")}
    assert repository.retrieve("fault", 5, source_ids=[]) == []


def test_corpus_filter_keeps_corpora_apart(repository: ResearchRepository) -> None:
    repository.add_documents([doc("other", "Fault code ZX-4471 also appears in the bus manual.", corpus="C2")], "r1")

    in_c1 = repository.retrieve("ZX-4471", 10, corpus="C1")
    in_c2 = repository.retrieve("ZX-4471", 10, corpus="C2")

    assert sid("other") not in {p.source_id for p in in_c1}
    assert {p.source_id for p in in_c2} == {sid("other")}
    assert repository.retrieve("ZX-4471", 10, corpus="C3") == []


def test_query_about_something_absent_or_without_content_returns_nothing(repository: ResearchRepository) -> None:
    assert repository.retrieve("zebra giraffe", 5) == []
    assert repository.retrieve("what is the", 5) == []
    assert repository.retrieve("   ", 5) == []


def test_empty_repository_returns_nothing(tmp_path: Path) -> None:
    assert ResearchRepository(tmp_path / "db", HashingEmbedding()).retrieve("trams", 5) == []


def test_re_adding_a_document_replaces_its_chunks(repository: ResearchRepository) -> None:
    before = repository.chunk_count()
    assert repository.retrieve("ZX-4471", 3)[0].source_id == sid("faults")

    added = repository.add_documents([doc("faults", "Fault code QW-9000 means the doors are blocked.")], "r2")

    assert added == 1
    assert repository.chunk_count() == before - 3 + 1  # the old text filled 3 chunks
    assert all(p.source_id != sid("faults") for p in repository.retrieve("ZX-4471 pantograph", 5))
    assert repository.retrieve("QW-9000", 3)[0].source_id == sid("faults")


def test_a_document_re_added_without_text_keeps_no_chunk(repository: ResearchRepository) -> None:
    before = repository.chunk_count()

    repository.add_documents([doc("faults", "")], "r2")

    assert repository.chunk_count() == before - 3
    assert sid("faults") not in repository.indexed_hashes("C1")


def test_indexing_the_same_documents_again_does_not_grow_the_vector_index(tmp_path: Path) -> None:
    """Chroma's HNSW index keeps a deleted vector's space for good: chunks are written over, not deleted and
    added again (which made a corpus indexed eight times hold eight times its vectors)."""
    repository = ResearchRepository(tmp_path / "db", HashingEmbedding(), chunk_size=300, chunk_overlap=40)
    docs = [doc(f"note{number}", FILLER * 12 + f"Note {number}.") for number in range(40)]

    def vector_bytes() -> int:
        return sum(path.stat().st_size for path in (tmp_path / "db").rglob("data_level0.bin"))

    sizes = []
    for run in range(8):
        repository.add_documents(docs, f"r{run}")
        sizes.append(vector_bytes())

    assert repository.chunk_count() > 300
    assert 0 < sizes[-1] <= 1.5 * sizes[2]


def test_removed_documents_are_no_longer_found(repository: ResearchRepository) -> None:
    repository.remove_documents([sid("faults")])

    assert all(p.source_id != sid("faults") for p in repository.retrieve("ZX-4471 pantograph", 5))
    assert sid("faults") not in repository.indexed_hashes("C1")


def test_indexed_hashes_and_document_info(repository: ResearchRepository) -> None:
    hashes = repository.indexed_hashes("C1")

    assert hashes == {sid(name): doc(name).content_hash for name in TEXTS}
    assert repository.indexed_hashes("nope") == {}
    info = repository.document_info([sid("fares"), "S-unknown"])
    assert list(info) == [sid("fares")]
    assert (info[sid("fares")].locator, info[sid("fares")].title) == ("/corpus/fares.md", "Fares")


def test_a_reopened_repository_keeps_documents_and_sees_later_writes(tmp_path: Path) -> None:
    first = ResearchRepository(tmp_path / "db", HashingEmbedding())
    first.add_documents([doc(name) for name in TEXTS], "r1")
    first.warm(corpus="C1")
    second = ResearchRepository(tmp_path / "db", HashingEmbedding())

    assert second.retrieve("ZX-4471", 1, corpus="C1")[0].source_id == sid("faults")
    first.add_documents([doc("depot", "Fault code ZX-4471 is also logged at the depot gate.")], "r2")
    assert sid("depot") in {p.source_id for p in second.retrieve("ZX-4471 depot gate", 3, corpus="C1")}


def test_embedding_model_is_recorded_and_a_different_one_refused(tmp_path: Path) -> None:
    repository = ResearchRepository(tmp_path / "db", HashingEmbedding())
    repository.add_documents([doc("fares")], "r1")
    assert repository.embedding_model == "hashing-v1-512"
    assert collection_name_for("hashing-v1-512") == "research__hashing-v1-512"

    class LookAlike(HashingEmbedding):
        """Another model whose name maps to the same collection."""

        def __init__(self) -> None:
            super().__init__()
            self.model_name = "Hashing V1 512"

    with pytest.raises(RepositoryError, match="'hashing-v1-512', not 'Hashing V1 512'"):
        ResearchRepository(tmp_path / "db", LookAlike())


def test_models_with_different_vectors_never_share_a_collection(tmp_path: Path) -> None:
    ResearchRepository(tmp_path / "db", HashingEmbedding(dim=512)).add_documents([doc("fares")], "r1")

    other = ResearchRepository(tmp_path / "db", HashingEmbedding(dim=256))

    assert other.embedding_model == "hashing-v1-256"
    assert other.retrieve("ticket crowns", 5) == []


def test_concurrent_readers_and_a_writer(repository: ResearchRepository) -> None:
    errors: list[BaseException] = []
    results: list[str] = []

    def read() -> None:
        try:
            for _ in range(5):
                results.append(repository.retrieve("ZX-4471", 1, corpus="C1")[0].source_id)
        except BaseException as error:
            errors.append(error)

    def write() -> None:
        try:
            for i in range(5):
                repository.add_documents([doc(f"extra{i}", f"Extra note {i} about the timetable.")], "r3")
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=read) for _ in range(4)] + [threading.Thread(target=write)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert results == [sid("faults")] * 20
    assert len(repository.indexed_hashes("C1")) == len(TEXTS) + 5


def test_large_corpora_are_read_from_chroma_in_pages(
    repository: ResearchRepository, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chroma refuses one `get` of more than 32,766 records; reading in pages keeps big corpora working."""
    monkeypatch.setattr("research_assistant.knowledge.repository._GET_PAGE", 2)
    names = [f"doc{i}" for i in range(7)]
    repository.add_documents(
        [doc(name, f"Report {name} notes that the kiln at {name} fires pottery.") for name in names], "r1"
    )
    assert set(repository.indexed_hashes("C1")) == {sid(name) for name in [*names, *TEXTS]}
    assert set(repository.document_info(sid(name) for name in names)) == {sid(name) for name in names}
    assert repository.retrieve("kiln at doc5", 3, corpus="C1")[0].source_id == sid("doc5")


def test_vector_search_weighs_enough_candidates_to_come_out_the_same_every_time(tmp_path: Path) -> None:
    def setting(key: str = "ef_search") -> int:
        client = chromadb.PersistentClient(path=str(tmp_path / "db"), settings=SETTINGS)
        [collection] = client.list_collections()
        return int(client.get_collection(collection.name).configuration_json["hnsw"][key])

    ResearchRepository(tmp_path / "db", HashingEmbedding()).add_documents([doc("depot")], "r1")
    assert setting() == SEARCH_EF
    assert setting("ef_construction") == BUILD_EF  # the cheaper graph that keeps indexing fast
    # A repository made before the setting: its collection is searched with it from its next opening on.
    client = chromadb.PersistentClient(path=str(tmp_path / "db"), settings=SETTINGS)
    client.get_collection(client.list_collections()[0].name).modify(configuration={"hnsw": {"ef_search": 100}})
    assert setting() == 100
    ResearchRepository(tmp_path / "db", HashingEmbedding())
    assert setting() == SEARCH_EF


def test_a_first_index_from_terms_made_in_workers_is_the_index_read_back_from_chroma(tmp_path: Path) -> None:
    """Terms made ahead with the chunks (as indexing workers make them) are only numbered as the chunks are stored;
    the BM25 index built from them is the one built by tokenizing the chunks here, or read back from Chroma."""
    docs = [doc(name) for name in TEXTS] + [doc("short", "a I"), doc("later", "Trams trams TRAM depot 2009.")]
    ahead = {}
    for d in docs:
        made = list(pieces(d.text, 300, 40))
        texts = [bm25_terms.bm25_text(d.title, text) for _, text, _ in made]
        ahead[d.source_id] = Chunked(300, 40, made, terms=bm25_terms.terms(texts))
    built = []
    for name, chunked in (("ahead", ahead), ("here", None), ("read-back", None)):
        repo = ResearchRepository(tmp_path / name, HashingEmbedding(), chunk_size=300, chunk_overlap=40)
        if name != "read-back":
            repo.keep_bm25_tokens("C1")
        repo.add_documents(docs, run_id="r1", chunked=chunked)
        assert ("C1" in repo._stored_tokens) == (name != "read-back")
        index = repo._bm25_for("C1", None).index
        assert index is not None
        built.append((index.bm25.vocab_dict, index.chunk_ids, index.bm25.scores["data"].tolist()))
    assert built[0] == built[1] == built[2]
    assert "" in built[0][0] and "tram" in built[0][0]
