"""The research repository: every source read, chunked, embedded and searchable.

Chroma (persistent, one folder) holds the chunks and their vectors, each chunk's
text and fields in its metadata (`chunk_records.py`). Retrieval is
hybrid (`retrievers.py`): BM25 (bm25s) finds exact terms (identifiers, names,
numbers) that an embedding may blur, vectors find related wording, and
reciprocal rank fusion merges the two rankings.

There is one Chroma collection per embedding model, and the model's name is
recorded in the collection's metadata and checked on open, so vectors from
different models never mix in one ranking.

Building a BM25 index over a large corpus takes seconds, so BM25 indexes are
cached per filter and rebuilt only when the chunks under that filter change.
Revision counters, kept in the collection's metadata and bumped before and
after every write, say when that is. Corpus-wide BM25 indexes are also saved next to the
database, so a new process loads them instead of rebuilding.

Many processes may share one repository folder (several CLI runs, page servers). A
readers-writer lock on the folder (`locking.py`) keeps them apart: writes (creating the
collection, indexing, removing) are exclusive, reads are shared. Chroma keeps each
collection's vector index in memory per process and does not notice another process's
writes, so a process that finds the collection's revision changed by someone else reopens
its client before it reads or writes.

On a team's Chroma server, workers on other machines write too, and they take turns under advisory locks in the
team's database (`database.team_locks`), always taken in this order:

1. the collection's lock: held alone by a corpus sync (and by whoever creates the collection), shared by a sync's
   check of what is indexed, so that check never sees another worker's half-written corpus;
2. each document's lock: held while that document's chunks are replaced, so two workers indexing the same
   document take turns (neither duplicates nor loses chunks), while workers indexing other documents (the pages
   each run reads) go on at once;
3. the revision counters' lock: held only while they are read and bumped, a few milliseconds.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import dataclasses
import hashlib
import json
import logging
import math
import os
import re
import shutil
import sqlite3
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from research_assistant.deferred import defer_library_inits

defer_library_inits()  # numpy's subpackages that SciPy, under bm25s, would import and no run uses (deferred.py)

import bm25s  # noqa: E402
import chromadb  # noqa: E402
from chromadb.api.client import SharedSystemClient  # noqa: E402
from chromadb.config import Settings as ChromaSettings  # noqa: E402

from research_assistant.concurrency import check_stop  # noqa: E402
from research_assistant.damage import DamagedStore, chroma_remedy, naming  # noqa: E402
from research_assistant.database import team_locks  # noqa: E402
from research_assistant.knowledge import bm25_files, bm25_terms  # noqa: E402
from research_assistant.knowledge.chroma_client import (  # noqa: E402
    RetryingCollection,
    configured_server,
    server_client,
)
from research_assistant.knowledge.chunk_records import (  # noqa: E402
    DOCUMENT_KEYS,
    StoredChunk,
    chunk_text,
    is_old_layout,
    record,
)
from research_assistant.knowledge.chunking import Chunked, embed_text, pieces  # noqa: E402
from research_assistant.knowledge.documents import StoredDocument  # noqa: E402
from research_assistant.knowledge.embeddings import Embedding, HashingEmbedding, fusion_weight  # noqa: E402
from research_assistant.knowledge.locking import RepositoryLock  # noqa: E402
from research_assistant.knowledge.retrievers import ChunkBM25, Hit, Where, fuse, vector_rank  # noqa: E402
from research_assistant.schemas import Passage  # noqa: E402

logger = logging.getLogger(__name__)

CHROMA_FILE = "chroma.sqlite3"
"""Chroma's database in the repository folder (its vector indexes sit beside it, one folder per segment)."""
MODEL_KEY = "embedding_model"
"""Collection metadata key holding the embedding model's name."""
_REVISION_ALL = "rev*"

_DOCS_PER_BATCH = 64
_NODES_PER_BATCH = 256
"""Chunks embedded and stored together: enough for fast inserts, few enough that a cancelled run stops at once and a
long text's progress lines fall near each tenth."""
_READY_PER_BATCH = 1024
"""Chunks stored together when worker processes made them (and their vectors) ahead, for a corpus of many files:
Chroma's cost is partly per call (the Python manual's 14,446 chunks took 8.9 s of CPU to store 1,024 at a time,
10.8 s 256 at a time), and progress lines there are tenths of the whole corpus."""
_BM25_PAGE = 500
"""Chunks read and tokenized at a time while a BM25 index is built: Chroma's reads of larger pages (each
chunk's text comes with it) cost hundreds of megabytes of transient memory for a large corpus."""
_GET_PAGE = 10_000
"""Records read from Chroma per `get`; it refuses more than 32,766 at once."""
_BM25_CACHE_SIZE = 8
_ANSWERS_KEPT = 256
"""Retrievals and document look-ups remembered per repository object (see `_remembered`)."""
_CANDIDATES_PER_RESULT = 3
_MIN_CANDIDATES = 30
_OVERFETCH_SHARE = 0.3
"""Chroma's filtered vector search is slow for large filters, so a filter covering at least this share of
the collection is applied to a larger unfiltered search instead."""


def _load_trim() -> Callable[[int], int] | None:
    try:
        trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc (macOS, musl, Windows): nothing to trim
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_MALLOC_TRIM = _load_trim()


def release_memory() -> None:
    """Hand memory that has been freed back to the operating system (glibc's `malloc_trim`).

    glibc keeps freed memory in its heaps for reuse, and holes left between live blocks (a large text's
    chunks, Chroma's reads and writes) are never returned by itself: after a large document is indexed the
    process would stay hundreds of megabytes larger than it needs, on top of which the next phase builds.
    """
    if _MALLOC_TRIM is not None:
        _MALLOC_TRIM(0)


class RepositoryError(RuntimeError):
    """The repository cannot be used as asked; the message says why and what to do."""


def collection_name_for(model_name: str) -> str:
    """Chroma collection name for an embedding model, e.g. 'research__hashing-v1-512'."""
    slug = re.sub(r"[^a-z0-9._-]+", "-", model_name.lower())
    slug = re.sub(r"\.{2,}", ".", slug).strip("-._")[:480] or "default"
    return f"research__{slug}"


SEARCH_EF = 400
"""How many candidates Chroma's vector index weighs per search. At its default (100, as many as a search over a
whole corpus asks for) the last of them came out differently from one process to the next, so the same question
could read other sources on another run; at 400 they come out the same, for about a millisecond more a search
(8 ms against 7.5 to 8 ms, medians over the Python manual's 26,512 chunks)."""

BUILD_EF = 50
"""How many candidates Chroma weighs when it links a new vector into its graph (its default is 100). Storing is
the serial part of indexing a corpus; at 50 it costs about two thirds of the CPU, and the graph still finds
99.8% of the exact ten nearest and 98.7% of the hundred (the Python manual's 13,256 chunks, 200 queries, searched
at `SEARCH_EF`). Set when a collection is made: a repository made before keeps its graph."""


def _revision_key(corpus: str) -> str:
    return "rev:" + hashlib.sha1(corpus.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class DocumentInfo:
    """What the repository knows about an indexed document, without its text."""

    source_id: str
    locator: str
    title: str
    corpus: str
    content_hash: str
    fetched_at: str


class _Commits:
    """Counts the commits to an embedded Chroma's SQLite database, by anyone: SQLite's `data_version`, read on a
    connection of its own that never writes, changes whenever another connection (Chroma's, in this process or
    another) has committed. A database file replaced since it was opened counts as changed."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._file: tuple[int, ...] | None = None
        self._db: sqlite3.Connection | None = None

    def count(self) -> tuple[int, ...] | None:
        """The database file's device, inode, size and modification time, with its data version: a value that
        changes with every commit; None if it cannot be read (then ask Chroma)."""
        try:
            info = os.stat(self._path)
            file = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
            if self._db is None or self._file != file:  # written to, or replaced: read it afresh
                self.close()
                self._db = sqlite3.connect(
                    f"file:{self._path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
                )
                self._file = file
            (version,) = self._db.execute("PRAGMA data_version").fetchone()
        except (OSError, sqlite3.Error):
            self.close()
            return None
        return (*file, int(version))

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
        self._db, self._file = None, None


@dataclass
class _CachedBM25:
    revision: int
    index: ChunkBM25 | None
    size: int


@dataclass
class _StoredTokens:
    """The BM25 tokens of a corpus's chunks as they were stored (`keep_bm25_tokens`), in the order stored."""

    vocabulary: dict[str, int] = dataclasses.field(default_factory=lambda: {"": 0})
    """Stem -> token id, numbered in the order first stored, as bm25s's tokenizer numbers them (the empty
    token, which stands for a chunk without terms, first)."""
    chunk_ids: list[str] = dataclasses.field(default_factory=list)
    tokens: list[list[int]] = dataclasses.field(default_factory=list)
    """Each chunk's token ids: lists of the vocabulary's own int objects, 8 bytes a token (an int32 array made
    into lists again would make an int object of every token: 60 MB more here)."""


class ResearchRepository:
    """Chunks of read sources with hybrid (BM25 + vector) retrieval; safe for threads and processes.

    Every method takes the folder's lock (shared to read, exclusive to write); `reading()` and
    `writing()` hold it across several calls, so that a whole corpus sync is one write.
    """

    def __init__(self, db_dir: Path, embedding: Embedding, chunk_size: int = 900, chunk_overlap: int = 120) -> None:
        self._db_dir = Path(db_dir)
        self._embedding = embedding
        self._model = embedding.model_name
        self._lock = threading.RLock()
        self._db_dir.mkdir(parents=True, exist_ok=True)
        self._guard = RepositoryLock(self._db_dir)
        self._name = collection_name_for(self._model)
        # Chroma's first open creates its tables (or, on a server, the collection): one process at a time. A server's
        # collection that exists is opened without the team's lock, which every worker starting would queue for.
        with (
            self._guard.exclusive(),
            self._lock,
            nullcontext() if self._on_server_already() else self._team_writer(),
        ):
            self._connect()
        self.chunk_size = chunk_size
        self.chunk_overlap = chunk_overlap
        self._bm25: OrderedDict[Hashable, _CachedBM25] = OrderedDict()
        self._answers: OrderedDict[Hashable, Any] = OrderedDict()
        self._stored_tokens: dict[str, _StoredTokens] = {}

    def _on_server_already(self) -> bool:
        """Whether the collection exists on the team's Chroma server (False when the repository is embedded)."""
        server = configured_server()
        return bool(server) and self._name in {c.name for c in server_client(server).list_collections()}

    def _connect(self) -> None:
        """Open (or create) the collection with a new Chroma client, whose vector index starts from disk."""
        previous: _Commits | None = getattr(self, "_commits", None)
        if previous is not None:
            previous.close()
        self._commits: _Commits | None = None
        self._looked_at: tuple[int, ...] | None = None
        server = configured_server()
        if server:  # the team's Chroma server: same collection names, shared by every worker pointed at it
            self._client = server_client(server)
            self._collection = RetryingCollection(self._open_collection())
        else:
            self._connect_embedded()
        self._collection_id = str(self._collection.id)
        self._seen = int((self._collection.metadata or {}).get(_REVISION_ALL, 0))

    def _connect_embedded(self) -> None:
        path = str(self._db_dir)
        # Chroma shares one client per folder within a process; drop it, or it would hand back the stale one.
        getattr(SharedSystemClient, "_identifier_to_system", {}).pop(path, None)
        chroma_file = self._db_dir / CHROMA_FILE
        with naming(chroma_file, chroma_remedy(chroma_file)):  # a garbled database is named: `DamagedStore`
            if chroma_file.exists() and chroma_file.stat().st_size == 0:
                raise DamagedStore(chroma_file, "empty, 0 bytes", chroma_remedy(chroma_file))
            self._client = chromadb.PersistentClient(
                path=path, settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False)
            )
            self._collection = self._open_collection()
            self._commits = _Commits(chroma_file)

    def _fresh(self) -> None:
        """Reopen the collection if anyone else wrote to it since this object last looked (holding the lock). A
        server's collection is read live, so there only a collection deleted and made again (a new id) is reopened.

        Embedded, asking Chroma costs milliseconds, a dozen times a run: when nobody has committed anything to its
        database since the last look (`_Commits`), the answer is the same and Chroma is not asked."""
        commits = self._commits.count() if self._commits is not None else None
        if commits is not None and commits == self._looked_at:
            return
        current = self._client.get_collection(self._name, embedding_function=None)
        revision = int((current.metadata or {}).get(_REVISION_ALL, 0))
        if revision == self._seen:
            self._looked_at = commits
            return
        if configured_server() and str(current.id) == self._collection_id:
            self._seen = revision
            return
        self._connect()

    @contextmanager
    def reading(self, *, team: bool = False) -> Iterator[None]:
        """Hold the folder's lock shared: no other process or thread writes until the block ends. `team`: on a
        team's Chroma server, also wait for a writer on any machine to finish, and keep writers out meanwhile
        (what a sync compares with the corpus must not be another worker's half-written index)."""
        outermost = self._guard.held() is None
        with self._guard.shared(), self._team_writer(shared=True) if team and outermost else nullcontext():
            with self._lock:
                self._fresh()
            yield

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the folder's lock exclusive: nobody else reads or writes until the block ends. On a team's Chroma
        server, also hold the collection's team lock alone (a corpus sync): no worker on any machine checks what is
        indexed, or syncs, until the block ends. Documents written meanwhile still take their own locks."""
        outermost = self._guard.held() is None
        with self._guard.exclusive(), self._team_writer() if outermost else nullcontext():
            with self._lock:
                self._fresh()
            yield

    @contextmanager
    def _writing_documents(self, source_ids: Collection[str], corpora: Iterable[str] = ()) -> Iterator[None]:
        """Hold what replacing these documents' chunks takes: the folder's lock exclusive and, on a team's Chroma
        server, these documents' team locks, not the collection's, so workers writing other documents go on.

        The revision counters of the corpora the documents are in (and will be in: `corpora`) are bumped before
        the block and again once it has ended, failed too. On a team's server a worker on another machine may build
        a BM25 index while the write goes on, under the first bump's revision; the second tells it that index holds
        only part of the write, so it rebuilds."""
        with self._guard.exclusive(), self._team(f"document {source_id}" for source_id in source_ids):
            with self._lock:
                self._fresh()
                changed = self._corpora_of(list(source_ids)) | set(corpora)
                self._bump(changed)
            try:
                yield
            except BaseException:
                with suppress(Exception), self._lock:  # best effort: the write's own error is the one to report
                    self._bump(changed)
                raise
            with self._lock:
                self._bump(changed)

    def _team_writer(self, *, shared: bool = False) -> AbstractContextManager[None]:
        """The collection's team lock (see the module's docstring for the order locks are taken in)."""
        return self._team([""], shared=shared)

    def _team(self, parts: Iterable[str], *, shared: bool = False) -> AbstractContextManager[None]:
        """Team locks named after this collection on its server (nothing when the repository is embedded)."""
        server = configured_server()
        if not server:
            return nullcontext()
        names = [f"repository {server} {self._name} {part}".rstrip() for part in parts]
        return team_locks(names, check_stop, shared=shared)

    def _open_collection(self) -> Any:
        if self._name not in {c.name for c in self._client.list_collections()}:
            return self._client.create_collection(
                self._name,
                metadata={MODEL_KEY: self._model},
                configuration={"hnsw": {"space": "cosine", "ef_search": SEARCH_EF, "ef_construction": BUILD_EF}},
                embedding_function=None,
            )
        collection = self._client.get_collection(self._name, embedding_function=None)
        recorded = (collection.metadata or {}).get(MODEL_KEY)
        if recorded != self._model:
            raise RepositoryError(
                f"collection {self._name!r} holds vectors from embedding model {recorded!r}, not {self._model!r}; "
                "use the model it was built with or a different repository folder"
            )
        hnsw = (collection.configuration_json or {}).get("hnsw") or {}
        if int(hnsw.get("ef_search") or 0) < SEARCH_EF:  # made before the setting: searched as it now is
            collection.modify(configuration={"hnsw": {"ef_search": SEARCH_EF}})
        return collection

    @property
    def embedding_model(self) -> str:
        """Name of the embedding model whose vectors this repository holds."""
        return self._model

    # -- writing -------------------------------------------------------------------------------------------------

    def add_documents(
        self,
        docs: Sequence[StoredDocument],
        run_id: str,
        progress: Callable[[int], None] | None = None,
        chunked: Mapping[str, Chunked] | None = None,
    ) -> int:
        """Index documents, replacing any chunks they already had; returns the number of chunks stored.

        A document is split, embedded and stored a batch of chunks at a time, a long one a section at a time
        (`chunking.sections`), so memory stays bounded however long it is. After each batch `progress` is told how
        many characters of `docs` are indexed so far, and a cancelled run stops (`Stopped`). Each document's
        first chunk, which says that it is indexed (`indexed_hashes`, `document_info`), is stored after all
        its others, so a document cut short is not taken for indexed: the next sync indexes it again.

        Chunks are written over their old versions in place (`upsert`), and only the chunks the new version no
        longer has are deleted, just before its first chunk is stored. Deleting a chunk and adding it again would
        leave the deleted vector in Chroma's HNSW index for good: a corpus indexed again eight times held eight
        times its vectors' space, and took longer to index each time.

        `chunked` holds, by source id, documents' chunks (and vectors) already made in worker processes.
        """
        latest = list({doc.source_id: doc for doc in docs}.values())  # a source listed twice: the last copy wins
        added = done = 0
        per_call = _READY_PER_BATCH if chunked else _NODES_PER_BATCH
        with self._guard.exclusive():
            for start in range(0, len(latest), _DOCS_PER_BATCH):
                part = latest[start : start + _DOCS_PER_BATCH]
                check_stop()
                ids = [doc.source_id for doc in part]
                with self._writing_documents(ids, {doc.corpus or "" for doc in part}):
                    stale = self._stored_chunk_ids(ids)
                    written: set[str] = set()
                    batch: list[StoredChunk] = []
                    for chunk, reached in self._chunks(part, run_id, chunked or {}):
                        written.add(chunk.chunk_id)
                        if chunk.number == 0:  # the document's other chunks are written: drop what it no longer has
                            self._delete_ids(stale.pop(chunk.source_id, set()) - written)
                        batch.append(chunk)
                        if len(batch) == per_call:
                            added += self._insert(batch)
                            batch = []
                            if progress is not None:
                                progress(done + reached)
                    added += self._insert(batch)
                    self._delete_ids(set().union(*stale.values()))  # documents with no chunk now (an empty text)
                done += sum(len(doc.text) for doc in part)
                if progress is not None:
                    progress(done)
        return added

    def _stored_chunk_ids(self, source_ids: list[str]) -> dict[str, set[str]]:
        """The ids (`<source id>#<number>`) of the chunks stored for these documents, by source id. A document
        stored in the layout before `chunk_records`'s is deleted whole instead: writing over it would keep its old
        keys beside the new."""
        where = {"source_id": {"$in": source_ids}}
        old_layout = sorted({str(meta["source_id"]) for meta in self._first_chunks(where) if is_old_layout(meta)})
        if old_layout:
            with self._lock:
                self._collection.delete(where={"source_id": {"$in": old_layout}})
        stored: dict[str, set[str]] = {}
        for page_ids, _ in self._pages(where, metadata=False):
            for chunk_id in page_ids:
                stored.setdefault(chunk_id.rpartition("#")[0], set()).add(chunk_id)
        return stored

    def _delete_ids(self, chunk_ids: set[str]) -> None:
        if chunk_ids:
            with self._lock:
                self._collection.delete(ids=sorted(chunk_ids))

    def _insert(self, chunks: list[StoredChunk]) -> int:
        """Embed and store a batch of chunks (the caller holds the write lock); the number stored."""
        if not chunks:
            return 0
        check_stop()
        self._embed(chunks)  # outside the thread lock: the slow part, and it touches no shared state
        with self._lock:
            self._collection.upsert(
                ids=[chunk.chunk_id for chunk in chunks],
                # One float32 array: Chroma would otherwise make one of every row, from a list of Python floats.
                embeddings=np.asarray([chunk.embedding for chunk in chunks], dtype=np.float32),
                metadatas=[record(chunk) for chunk in chunks],
            )
        self._keep_tokens(chunks)
        release_memory()  # Chroma's buffers for the batch, which would otherwise pile up while a long text is indexed
        return len(chunks)

    def keep_bm25_tokens(self, corpus: str) -> None:
        """Tokenize for BM25 the chunks of `corpus` stored from now on, as they are stored, so that its BM25 index
        is built from them instead of reading every chunk back from Chroma: when the corpus then holds exactly
        those chunks, in that order (a first index). Otherwise the index is built as always; so a sync asks for
        this when the corpus has nothing indexed yet. Tokens are kept until the corpus's next index build."""
        self._stored_tokens[corpus] = _StoredTokens()

    def _keep_tokens(self, chunks: list[StoredChunk]) -> None:
        """Number the BM25 terms of the stored chunks of the corpora whose tokens are kept, as `_build_bm25` would
        read them: terms made in a worker process with the chunk, else made here."""
        for corpus, kept in list(self._stored_tokens.items()):  # a reader's index build may pop one meanwhile
            mine = [chunk for chunk in chunks if chunk.corpus == corpus]
            if not mine:
                continue
            vocabulary = kept.vocabulary
            made_here = iter(bm25_terms.terms([bm25_terms.bm25_text(c.title, c.text) for c in mine if c.terms is None]))
            for chunk in mine:
                stems = chunk.terms if chunk.terms is not None else next(made_here)
                kept.tokens.append([vocabulary.setdefault(stem, len(vocabulary)) for stem in stems])
                kept.chunk_ids.append(chunk.chunk_id)

    def remove_documents(self, source_ids: Iterable[str]) -> None:
        """Delete every chunk of these sources."""
        ids = sorted(set(source_ids))
        if not ids:
            return
        with self._writing_documents(ids), self._lock:
            self._collection.delete(where={"source_id": {"$in": ids}})

    def _chunks(
        self, docs: Sequence[StoredDocument], run_id: str, chunked: Mapping[str, Chunked]
    ) -> Iterator[tuple[StoredChunk, int]]:
        """The documents' chunks, each document's first chunk after its others, with the characters of `docs`
        split so far."""
        before = 0
        for doc in docs:
            first: StoredChunk | None = None
            for chunk, reached in self._chunk(doc, run_id, chunked.get(doc.source_id)):
                if first is None:
                    first = chunk
                else:
                    yield chunk, before + reached
            if first is not None:
                yield first, before + len(doc.text)
            before += len(doc.text)

    def _chunk(
        self, doc: StoredDocument, run_id: str, chunked: Chunked | None = None
    ) -> Iterator[tuple[StoredChunk, int]]:
        """A document's chunks in order, each with the characters split so far, a section at a time; from
        `chunked` (made ahead, vectors too) where it was made with this repository's settings."""
        if chunked is not None and (chunked.chunk_size, chunked.chunk_overlap) != (self.chunk_size, self.chunk_overlap):
            chunked = None
        vectors = chunked.vectors if chunked is not None and chunked.dim == self.hashing_dim else None
        made = chunked.pieces if chunked is not None else pieces(doc.text, self.chunk_size, self.chunk_overlap)
        document = {key: run_id if key == "run_id" else getattr(doc, key) for key in DOCUMENT_KEYS}
        for number, (start, text, reached) in enumerate(made):
            chunk = StoredChunk(
                source_id=doc.source_id,
                corpus=doc.corpus or "",
                number=number,
                start=start,
                title=doc.title,
                text=text,
                document=document,
            )
            if vectors is not None:
                chunk.embedding = vectors[number]  # float32, as Chroma stores it
            if chunked is not None and chunked.terms is not None:
                chunk.terms = chunked.terms[number]
            yield chunk, reached

    @property
    def hashing_dim(self) -> int | None:
        """The vector size when the embedding is the offline hashing one (whose vectors worker processes can
        compute, `hashing.py`), else None."""
        return self._embedding.dim if isinstance(self._embedding, HashingEmbedding) else None

    def _embed(self, chunks: list[StoredChunk]) -> None:
        """Embed the chunks that have no vector yet (made ahead in a worker process, a chunk has one), each as
        its title and text (`chunking.embed_text`)."""
        todo = [chunk for chunk in chunks if chunk.embedding is None]
        if not todo:
            return
        texts = [embed_text(chunk.title, chunk.text) for chunk in todo]
        for chunk, vector in zip(todo, self._embedding.get_text_embedding_batch(texts), strict=True):
            chunk.embedding = vector

    def _first_chunks(self, where: dict[str, Any]) -> list[Mapping[str, Any]]:
        """Metadata of the first chunk of every document matching `where`: the chunk that says it is indexed."""
        return [meta for _, metadatas in self._pages({"$and": [where, {"chunk": 0}]}) for meta in metadatas]

    def _pages(
        self, where: dict[str, Any] | None, size: int = _GET_PAGE, *, metadata: bool = True
    ) -> Iterator[tuple[list[str], list[Mapping[str, Any]]]]:
        """Ids and metadata (none without `metadata`) of the chunks matching `where`, a page at a time: Chroma
        refuses a single `get` that matches more than 32,766 records ('too many SQL variables'), which a
        5,000-document corpus passes."""
        include: Any = ["metadatas"] if metadata else []
        offset = 0
        while True:
            page = [self._collection.get(where=where, include=include, limit=size, offset=offset)]
            count = len(page[0]["ids"])
            # Popped, not kept: a page the caller is done with must not stay alive here until the next read.
            yield page[0]["ids"], list(page.pop()["metadatas"] or [])
            offset += count
            if count < size:
                return

    def _pages_by_id(
        self, where: dict[str, Any] | None, size: int
    ) -> Iterator[tuple[list[str], list[Mapping[str, Any]]]]:
        """Ids and metadata of the chunks matching `where`, in `_pages`' order, a page of `size` at a time: the
        ids are listed first, then each page is read by id. Chroma applies a filter again for every page it reads
        with an offset, so reading 30,000 chunks' metadata 500 at a time that way takes six times as long."""
        listed = [chunk_id for page_ids, _ in self._pages(where, metadata=False) for chunk_id in page_ids]
        for start in range(0, len(listed), size):
            wanted = listed[start : start + size]
            got = self._collection.get(ids=wanted, include=["metadatas"])
            found = dict(zip(got["ids"], got["metadatas"] or [], strict=True))
            del got
            present = [chunk_id for chunk_id in wanted if chunk_id in found]  # on a server, deleted meanwhile
            yield present, [found.pop(chunk_id) for chunk_id in present]

    def _corpora_of(self, source_ids: list[str]) -> set[str]:
        """Corpora the given sources are currently indexed under (read from each source's first chunk)."""
        return {str(meta.get("corpus", "")) for meta in self._first_chunks({"source_id": {"$in": source_ids}})}

    def _revisions(self) -> dict[str, Any]:
        """The collection's metadata, read afresh: other repository objects may have written since."""
        return dict(self._client.get_collection(self._name, embedding_function=None).metadata or {})

    def _bump(self, corpora: Iterable[str]) -> None:
        """Mark the chunks of these corpora (and the whole collection) as changed, before changing them and again
        after (`_writing_documents`).

        Bumping first means a crash mid-write can only cause a needless BM25 rebuild, never a stale one. On a
        team's server, writers of other documents bump at the same time: the counters are read and written under
        their own team lock, so no bump is lost.
        """
        with self._team(["revisions"]):
            metadata = self._revisions()
            for key in {_REVISION_ALL, *(_revision_key(corpus) for corpus in corpora)}:
                metadata[key] = int(metadata.get(key, 0)) + 1
            metadata[MODEL_KEY] = self._model
            self._collection.modify(metadata=metadata)
        self._seen = int(metadata[_REVISION_ALL])

    # -- reading -------------------------------------------------------------------------------------------------

    def indexed_hashes(self, corpus: str) -> dict[str, str]:
        """source_id -> content_hash of every document indexed for a corpus."""
        with self.reading(), self._lock:
            return dict(self._remembered(("hashes", corpus), lambda: self._indexed_hashes(corpus)))

    def _indexed_hashes(self, corpus: str) -> dict[str, str]:
        return {str(m["source_id"]): str(m["content_hash"]) for m in self._first_chunks({"corpus": corpus})}

    def document_info(self, source_ids: Iterable[str]) -> dict[str, DocumentInfo]:
        """Locator, title and provenance of indexed documents, by source id (unknown ids are left out)."""
        ids = sorted(set(source_ids))
        if not ids:
            return {}
        with self.reading(), self._lock:
            return dict(self._remembered(("documents", *ids), lambda: self._document_info(ids)))

    def _document_info(self, ids: list[str]) -> dict[str, DocumentInfo]:
        metadatas = self._first_chunks({"source_id": {"$in": ids}})
        fields = [field.name for field in dataclasses.fields(DocumentInfo)]
        return {str(m["source_id"]): DocumentInfo(**{name: str(m.get(name, "")) for name in fields}) for m in metadatas}

    def chunk_count(self) -> int:
        with self.reading(), self._lock:
            return int(self._collection.count())

    def warm(self, *, corpus: str | None = None, source_ids: Collection[str] | None = None) -> None:
        """Build (or load) the BM25 index for a filter now, so the first query does not wait for it."""
        with self.reading(), self._lock:
            self._bm25_for(corpus, frozenset(source_ids) if source_ids is not None else None)

    def retrieve(
        self,
        query: str,
        k: int,
        *,
        source_ids: Collection[str] | None = None,
        corpus: str | None = None,
        alternatives: Sequence[str] = (),
    ) -> list[Passage]:
        """The `k` chunks best matching the query, by BM25 and vector rankings fused with reciprocal rank fusion.

        `alternatives` are other phrasings of the same need (a sub-question's search queries); their
        rankings join the fusion, so a chunk that several phrasings find ranks higher.
        """
        if k <= 0 or not query.strip() or (source_ids is not None and not source_ids):
            return []
        others = [q for q in dict.fromkeys(a.strip() for a in alternatives) if q and q != query.strip()]
        ids = frozenset(source_ids) if source_ids is not None else None
        with self.reading(), self._lock:
            key = ("retrieve", query, k, corpus, ids, *others)
            found = self._remembered(key, lambda: self._retrieve(query, k, others, corpus, ids))
        return list(found)  # passages are frozen: the remembered ones can be handed out

    def holding(self, word: str, k: int, *, corpus: str | None = None) -> list[Passage]:
        """Up to `k` chunks that hold the word, most about it first: the BM25 ranking of the word alone, which
        finds only chunks that hold it. An acronym is spelled out once in a whole manual, often in a chunk that
        no question's wording ranks high ('RELP (Reliable Event Logging Protocol)' among 50 chunks naming RELP)."""
        if k <= 0 or not word.strip():
            return []
        with self.reading(), self._lock:
            index = self._bm25_for(corpus, None).index
            if index is None:
                return []
            hits = self._remembered(("holding", word, k, corpus), lambda: index.rank(self._collection, word, k))
        return [_passage(hit) for hit in hits]

    def _remembered(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """What `compute` gives, remembered while the collection is unchanged (the caller holds the lock): an
        identical re-run asks the same questions of the same chunks, and retrieval is deterministic. Not on a
        team's server, whose writers change chunks while this process reads (they bump the revision first)."""
        if configured_server():
            return compute()
        key = (self._collection_id, self._seen, key)  # a collection made again starts its revisions again
        if key not in self._answers:
            self._answers[key] = compute()
            while len(self._answers) > _ANSWERS_KEPT:
                self._answers.popitem(last=False)
        self._answers.move_to_end(key)
        return self._answers[key]

    def _retrieve(
        self, query: str, k: int, others: list[str], corpus: str | None, ids: frozenset[str] | None
    ) -> list[Passage]:
        cached = self._bm25_for(corpus, ids)
        if cached.index is None:
            return []
        candidates = min(max(k * _CANDIDATES_PER_RESULT, _MIN_CANDIDATES), cached.size)
        rankings: list[list[Hit]] = []
        for phrasing in [query, *others]:
            rankings.append(self._vector_rank(phrasing, candidates, corpus, ids, cached.size))
            rankings.append(cached.index.rank(self._collection, phrasing, candidates))
        weights = [fusion_weight(self._embedding), 1.0] * (len(rankings) // 2)
        return [_passage(hit) for hit in fuse(rankings, k, weights)]

    def _vector_rank(
        self, query: str, top_k: int, corpus: str | None, ids: frozenset[str] | None, filtered_size: int
    ) -> list[Hit]:
        where = self._where(corpus, ids)

        def accept(meta: Mapping[str, Any]) -> bool:
            return (corpus is None or meta.get("corpus") == corpus) and (ids is None or meta.get("source_id") in ids)

        overfetch = None
        total = int(self._collection.count())
        share = filtered_size / total if total else 1.0
        if where is not None and share >= _OVERFETCH_SHARE:
            overfetch = min(total, math.ceil(top_k / share * 1.5) + 10)
        vector = self._embedding.get_query_embedding(query)
        return vector_rank(self._collection, vector, top_k, where, accept, overfetch)

    # -- BM25 indexes --------------------------------------------------------------------------------------------

    @staticmethod
    def _where(corpus: str | None, ids: frozenset[str] | None) -> Where | None:
        clauses: list[dict[str, Any]] = []
        if corpus is not None:
            clauses.append({"corpus": corpus})
        if ids is not None:
            clauses.append({"source_id": {"$in": sorted(ids)}})
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}

    def _bm25_for(self, corpus: str | None, ids: frozenset[str] | None) -> _CachedBM25:
        revisions = self._revisions()
        revision = int(revisions.get(_revision_key(corpus) if corpus is not None else _REVISION_ALL, 0))
        key = (corpus, ids)
        cached = self._bm25.get(key)
        if cached is None or cached.revision != revision:
            folder = self._bm25_dir(corpus) if ids is None else None  # only corpus-wide indexes are worth saving
            loaded = self._load_bm25(folder, revision) if folder else None
            if loaded is not None:
                cached = loaded
            else:
                cached = self._build_bm25(corpus, ids, revision)
                if folder:
                    self._save_bm25(folder, cached)
        self._bm25[key] = cached
        self._bm25.move_to_end(key)
        while len(self._bm25) > _BM25_CACHE_SIZE:
            self._bm25.popitem(last=False)
        return cached

    def _build_bm25(self, corpus: str | None, ids: frozenset[str] | None, revision: int) -> _CachedBM25:
        """A BM25 index over the chunks under a filter, read and tokenized a page at a time, so that only
        their token ids, never all their texts and metadata, are in memory at once; or from the tokens kept as
        they were stored (`keep_bm25_tokens`) when the corpus holds exactly those chunks in that order."""
        kept = self._stored_tokens.pop(corpus, None) if corpus is not None and ids is None else None
        if kept is not None:
            listed = [
                chunk_id
                for page_ids, _ in self._pages(self._where(corpus, ids), metadata=False)
                for chunk_id in page_ids
            ]
            if listed != kept.chunk_ids:
                kept = None
        if kept is not None:
            vocabulary = kept.vocabulary
            chunk_ids = kept.chunk_ids
            tokens = kept.tokens
            del kept
        else:
            vocabulary, chunk_ids, tokens = self._read_bm25_tokens(corpus, ids)
        if not chunk_ids:
            return _CachedBM25(revision=revision, index=None, size=0)
        check_stop()
        bm25 = bm25s.BM25()
        bm25.index((tokens, vocabulary), show_progress=False)
        return _CachedBM25(revision=revision, index=ChunkBM25(bm25, chunk_ids), size=len(chunk_ids))

    def _read_bm25_tokens(
        self, corpus: str | None, ids: frozenset[str] | None
    ) -> tuple[dict[str, int], list[str], list[list[int]]]:
        """The chunks under a filter read back from Chroma and tokenized, a page at a time; with the vocabulary."""
        tokenizer = bm25_terms.bm25_tokenizer()
        chunk_ids: list[str] = []
        tokens: list[list[int]] = []
        for page_ids, metadatas in self._pages_by_id(self._where(corpus, ids), _BM25_PAGE):
            check_stop()
            texts = [bm25_terms.bm25_text(str(meta.get("title", "")), chunk_text(meta)) for meta in metadatas]
            tokens.extend(tokenizer.tokenize(texts, update_vocab=True, return_as="ids", show_progress=False))
            chunk_ids.extend(page_ids)
            del texts, metadatas
            release_memory()  # give back the page read from Chroma before the next one is read
        return tokenizer.get_vocab_dict(), chunk_ids, tokens

    def _bm25_dir(self, corpus: str | None) -> Path:
        name = "all" if corpus is None else "corpus-" + hashlib.sha1(corpus.encode()).hexdigest()[:16]
        return self._db_dir / "bm25" / self._name / name

    def _load_bm25(self, folder: Path, revision: int) -> _CachedBM25 | None:
        if not (folder / bm25_files.MANIFEST).exists():
            return None
        try:  # a damaged index (files not matching the manifest's digests) is derived data: rebuilt
            manifest = bm25_files.read_manifest(folder)
            if manifest.get("revision") != revision or manifest.get("collection") != self._collection_id:
                return None  # built for other contents, or for a collection since deleted and re-created
            chunk_ids = bm25_files.read_chunk_ids(folder, int(manifest["chunks"]))
            bm25 = bm25s.BM25.load(str(folder), show_progress=False)
            if int(bm25.scores["num_docs"]) != len(chunk_ids):
                raise ValueError(f"{bm25.scores['num_docs']} rows for {len(chunk_ids)} chunk ids")
        except Exception as error:  # whatever a garbled file makes the loader raise
            logger.info("rebuilding the damaged BM25 index %s: %s", folder, error)
            return None
        return _CachedBM25(revision=revision, index=ChunkBM25(bm25, chunk_ids), size=len(chunk_ids))

    def _save_bm25(self, folder: Path, cached: _CachedBM25) -> None:
        """Write the index to a temporary folder, then swap it in, so readers never see half of one."""
        if cached.index is None:
            return
        folder.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".bm25-", dir=folder.parent))
        try:
            cached.index.bm25.save(str(staging), show_progress=False)
            (staging / bm25_files.CHUNK_IDS).write_text(json.dumps(cached.index.chunk_ids), encoding="utf-8")
            manifest = {
                "revision": cached.revision,
                "collection": self._collection_id,
                "chunks": cached.size,
                "files": bm25_files.digests(staging),
            }
            (staging / bm25_files.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
            shutil.rmtree(folder, ignore_errors=True)
            try:
                staging.rename(folder)
            except OSError:
                if not folder.exists():
                    raise
                shutil.rmtree(staging, ignore_errors=True)  # another reader saved the same index first
        except OSError as error:  # a cache that cannot be written only costs a rebuild later
            logger.warning("could not save BM25 index to %s: %s", folder, error)
            shutil.rmtree(staging, ignore_errors=True)


def _passage(hit: Hit) -> Passage:
    return Passage(
        source_id=str(hit.metadata["source_id"]),
        text=hit.text,
        score=hit.score,
        chunk_id=hit.chunk_id,
        title=str(hit.metadata.get("title", "")),
        start=int(hit.metadata.get("start", -1)),
    )
