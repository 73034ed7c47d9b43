"""Keeping a folder of local documents in step with the research repository.

A sync walks the folder, hashes every supported file and re-indexes only the
files whose content changed since the last sync (a file whose cached text is
missing is read again into the cache, and its chunks are left as they are),
and removes the documents whose files are gone. A file that cannot
be read, or is larger than the size cap (`RESEARCH_MAX_FILE_MB`), is reported
with its reason and skipped; the rest of the corpus is still indexed.

Memory stays bounded: files are loaded a batch at a time (by count and by
size), and the repository splits, embeds and stores a long text in pieces.
With many files to index, worker processes load, chunk and embed the next
batch while the main process stores the current one (`workers.py`).
Progress lines say how far indexing is (every tenth of the work), and a
cancelled run (`concurrency.in_thread`) stops between batches, leaving every
document either wholly indexed or found missing by the next sync.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import BrokenExecutor, Executor, Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from research_assistant.concurrency import check_stop
from research_assistant.corpus.files import check_folder, corpus_id_for, max_file_bytes, scan_folder, too_large
from research_assistant.corpus.workers import Chunking, Prepared, prepare, process_pool, stop
from research_assistant.knowledge.chunking import Chunked
from research_assistant.knowledge.document_cache import DocumentCache
from research_assistant.knowledge.documents import StoredDocument, source_id_for
from research_assistant.knowledge.repository import ResearchRepository, release_memory
from research_assistant.text.document import DocumentText
from research_assistant.text.reading import READING_VERSION

logger = logging.getLogger(__name__)

_READING = f"reading {READING_VERSION}\n".encode()
_BATCH = 64
"""Documents loaded and indexed together: bounds memory while keeping the embedding batches large."""
_BATCH_BYTES = 16 * 2**20
"""Most bytes of files loaded together (a larger file is loaded on its own)."""
_AHEAD = 2
"""With worker processes, the batches after the one being stored are loaded meanwhile, this many of them. Whole
batches, not smaller ones: each batch stored costs Chroma a revision bump, a look-up, a delete and inserts whose
cost is partly per call (stored a quarter batch at a time, the Python manual's main process took 9% more CPU)."""
_WORKERS = min(4, os.cpu_count() or 1)
_STEPS = 10
"""Progress lines while indexing: one each time another tenth of the bytes to index is done."""


@dataclass
class SyncReport:
    indexed: int
    """Documents (re-)indexed by this sync."""
    unchanged: int
    """Documents already indexed with the same content."""
    removed: int
    """Documents whose files are gone."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(file path, reason) of each file that could not be read."""
    read_again: int = 0
    """Unchanged documents whose cached text was gone, read again into the cache (their chunks left as they were)."""


def _file_hash(path: Path) -> str:
    """sha256 of the version of the reading and the file's bytes: a file is read again when either changes."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, lambda: hashlib.sha256(_READING)).hexdigest()


@dataclass(frozen=True)
class _File:
    path: Path
    locator: str
    source_id: str


@dataclass
class _Plan:
    indexed: dict[str, str]
    """source_id -> content hash of what the index holds for the corpus."""
    skipped: list[tuple[str, str]]
    todo: list[tuple[_File, str]] = field(default_factory=list)
    uncached: list[tuple[_File, str]] = field(default_factory=list)
    """Files indexed as they are whose cached text is gone."""
    unchanged: int = 0
    gone: list[str] = field(default_factory=list)
    changes: bool = False

    def report(self, indexed: int, read_again: int) -> SyncReport:
        return SyncReport(
            indexed=indexed,
            unchanged=self.unchanged,
            removed=len(self.gone),
            skipped=self.skipped,
            read_again=read_again,
        )


class _Progress:
    """Progress lines while files are indexed: one at the start, then one at each tenth of the bytes."""

    def __init__(self, say: Callable[[str], None] | None, todo: list[tuple[_File, str]], sizes: dict[str, int]):
        self.say = say
        self.sizes = sizes
        self.files = len(todo)
        self.total = sum(sizes.get(file.source_id, 0) for file, _ in todo) or 1
        self.done = 0
        self.step = 0
        if say is not None and todo:
            say(f"indexing {_count(self.files, 'file')} ({_megabytes(self.total)} MB)")

    def batch(self, batch: list[tuple[_File, str]], characters: int) -> Callable[[int], None] | None:
        """The repository's progress callback (characters indexed so far) for a loaded batch of files whose
        texts hold `characters` in all."""
        if self.say is None:
            return None
        start, weight = self.done, sum(self.sizes.get(file.source_id, 0) for file, _ in batch)
        self.done += weight
        name = batch[0][0].path.name if len(batch) == 1 else None

        def on_characters(done: int) -> None:
            self._show(start + int(weight * min(done / max(characters, 1), 1.0)), name)

        return on_characters

    def _show(self, done: int, name: str | None) -> None:
        step = done * _STEPS // self.total
        if step <= self.step or self.say is None:
            return
        self.step = step
        share = f"{done * 100 // self.total}% of {_megabytes(self.total)} MB"
        if self.files == 1:
            self.say(f"indexing {name}: {share}")
        else:
            self.say(f"indexing {_count(self.files, 'file')}: {share}" + (f" ({name} now)" if name else ""))


def _megabytes(size: int) -> str:
    value = size / 2**20
    return f"{value:,.0f}" if value >= 10 else f"{value:.1f}"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _batches(
    todo: list[tuple[_File, str]], sizes: dict[str, int], files: int = _BATCH, most: int = _BATCH_BYTES
) -> Iterator[list[tuple[_File, str]]]:
    """The files to index in batches of at most `files` files and `most` bytes (or one larger file)."""
    batch: list[tuple[_File, str]] = []
    weight = 0
    for item in todo:
        size = sizes.get(item[0].source_id, 0)
        if batch and (len(batch) == files or weight + size > most):
            yield batch
            batch, weight = [], 0
        batch.append(item)
        weight += size
    if batch:
        yield batch


@contextmanager
def _workers() -> Iterator[ThreadPoolExecutor]:
    """A thread pool that, when the sync stops early (cancelled), drops the files still queued."""
    pool = ThreadPoolExecutor(max_workers=_WORKERS)
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


class CorpusIndexer:
    """Indexes one folder of documents as one corpus of the repository."""

    def __init__(
        self,
        corpus_dir: Path,
        repository: ResearchRepository,
        cache: DocumentCache,
        run_id: str = "index",
        max_bytes: int | None = None,
    ) -> None:
        self.corpus_dir = Path(corpus_dir).expanduser()
        self.repository = repository
        self.cache = cache
        self.run_id = run_id
        self.corpus_id = corpus_id_for(self.corpus_dir)
        self._max_bytes = max_bytes
        self._sizes: dict[str, int] = {}

    @property
    def max_bytes(self) -> int:
        """The size cap: larger files are skipped (by default the `RESEARCH_MAX_FILE_MB` setting)."""
        return max_file_bytes() if self._max_bytes is None else self._max_bytes

    def sync(self, run_id: str | None = None, progress: Callable[[str], None] | None = None) -> SyncReport:
        """Bring the repository in line with the folder; raises `CorpusError` if the folder is unusable.

        `progress` is given a line now and then while files are indexed. When the run is cancelled, the sync
        stops (raising `concurrency.Stopped`) within moments, also while it waits for the repository's lock.

        `run_id` names the research run that asked, recorded with the chunks it indexes. Many processes may
        sync the same corpus at once: the files are hashed with no lock held, compared with the index under
        the repository's shared lock, and only when something changed is the index written, under its
        exclusive lock, held until the whole corpus is in step. So a run never retrieves from a corpus that
        another is half-way through indexing, and a run whose corpus is already indexed never waits for
        longer than a write in progress takes.
        """
        unreadable: list[tuple[str, str]] = []
        files: dict[str, _File] = {}  # by source id: two links to one file are one document
        for path in scan_folder(check_folder(self.corpus_dir), unreadable):
            locator = path.resolve().as_posix()
            source_id = source_id_for(locator)
            files.setdefault(source_id, _File(path=path, locator=locator, source_id=source_id))

        with _workers() as pool:
            hashes: dict[str, tuple[str | None, str]] = {}
            for source_id, outcome in zip(files, pool.map(self._hash_or_reason, files.values()), strict=True):
                hashes[source_id] = outcome
                check_stop()
            with self.repository.reading(team=True):  # not while another worker is half-way through
                plan = self._plan(files, hashes, unreadable, read_again=True)
            read_again = 0
            if plan.uncached:
                read_again = self._read_again(plan.uncached, pool)
                with self.repository.reading(team=True):
                    plan = self._plan(files, hashes, unreadable)  # one that could not be read is indexed anew
            if not plan.changes:
                self.repository.warm(corpus=self.corpus_id)
                return plan.report(0, read_again)
            with self.repository.writing():
                plan = self._plan(files, hashes, unreadable)  # another process may have indexed it meanwhile
                if not plan.indexed:  # a first index: its BM25 index is built from the chunks as they are stored
                    self.repository.keep_bm25_tokens(self.corpus_id)
                count = self._index(plan, pool, run_id or self.run_id, _Progress(progress, plan.todo, self._sizes))
                failed = {sid for sid in (source_id_for(locator) for locator, _ in plan.skipped) if sid in plan.indexed}
                # A file that now fails to load must not keep answering with its old content.
                self.repository.remove_documents([*plan.gone, *failed])
                # Build (or load) the corpus's BM25 index now, as part of indexing, not on the first query.
                self.repository.warm(corpus=self.corpus_id)
        return plan.report(count, read_again)

    def _plan(
        self,
        files: dict[str, _File],
        hashes: dict[str, tuple[str | None, str]],
        unreadable: list[tuple[str, str]],
        *,
        read_again: bool = False,
    ) -> _Plan:
        """What a sync has to do, compared with the index as it is now (the caller holds the repository's lock).

        An indexed file whose cached text is gone (a cleared cache) is to be indexed again, or, with `read_again`,
        listed apart (`uncached`) to be read into the cache and left in the index as it is."""
        indexed = self.repository.indexed_hashes(self.corpus_id)
        plan = _Plan(indexed=indexed, skipped=list(unreadable))
        for source_id, file in files.items():
            digest, reason = hashes[source_id]
            if digest is None:
                plan.skipped.append((file.locator, reason))
            elif indexed.get(source_id) == digest and self.cache.has(source_id):
                plan.unchanged += 1
            elif indexed.get(source_id) == digest and read_again:
                plan.uncached.append((file, digest))
            else:
                plan.todo.append((file, digest))
        failed = {source_id_for(locator) for locator, _ in plan.skipped} & indexed.keys()
        plan.gone = [sid for sid in indexed if sid not in files]
        plan.changes = bool(plan.todo or plan.gone or failed)
        return plan

    def _hash_or_reason(self, file: _File) -> tuple[str | None, str]:
        """The file's content hash, or the reason it is skipped: unreadable, or larger than the size cap."""
        try:
            size = file.path.stat().st_size
            reason = too_large(size, self.max_bytes)
            if reason:
                return None, reason
            self._sizes[file.source_id] = size
            return _file_hash(file.path), ""
        except OSError as error:
            return None, f"cannot read file: {error.strerror or error}"

    def _read_again(self, uncached: list[tuple[_File, str]], threads: ThreadPoolExecutor) -> int:
        """Read indexed files whose cached text is gone back into the document cache, touching no index: their
        chunks are as they were. Indexing them again would cost their embedding and, in Chroma, space that
        deleted vectors keep. A file that fails to load is left out, and the next plan indexes it anew. The
        number of documents cached."""
        processes = process_pool(len(uncached))
        cached = 0
        try:
            for batch in _batches(uncached, self._sizes):
                cached += len(self._collect(batch, self._submit(processes or threads, batch, None), [])[0])
            return cached
        finally:
            if processes is not None:
                stop(processes)

    def _index(self, plan: _Plan, threads: ThreadPoolExecutor, run_id: str, shown: _Progress) -> int:
        """Index the files to do, a batch at a time; the number of documents indexed.

        With many files, worker processes (`workers.py`) load, chunk and embed the next batch while this one
        is stored; otherwise threads load each batch in turn.
        """
        processes = process_pool(len(plan.todo))
        chunking = None
        batches = list(_batches(plan.todo, self._sizes))
        ahead = 1
        if processes is not None:
            chunking = Chunking(self.repository.chunk_size, self.repository.chunk_overlap, self.repository.hashing_dim)
            ahead = _AHEAD
        count = 0
        try:
            loading = deque(self._submit(processes or threads, batch, chunking) for batch in batches[:ahead])
            for number, batch in enumerate(batches):
                if number + ahead < len(batches):  # the batches after this one load while it is stored
                    loading.append(self._submit(processes or threads, batches[number + ahead], chunking))
                docs, chunked = self._collect(batch, loading.popleft(), plan.skipped)
                on_characters = shown.batch(batch, sum(len(doc.text) for doc in docs))
                self.repository.add_documents(docs, run_id, on_characters, chunked)
                count += len(docs)
                del docs, chunked  # the batch's texts and vectors, before the next batch is collected
                release_memory()
        except BaseException:
            if processes is not None:
                stop(processes)
            raise
        if processes is not None:
            # Not waiting for the workers to end (a second or more for the Python manual): their exit overlaps
            # the BM25 index build; the pool's own thread reaps them.
            processes.shutdown(wait=False)
        return count

    def _submit(
        self, pool: Executor, batch: list[tuple[_File, str]], chunking: Chunking | None
    ) -> list[Future[Prepared | str] | None]:
        """Start loading a batch's files; None for a file larger than a batch, loaded here when its turn comes
        (the repository then indexes it a section at a time, in bounded memory)."""
        return [
            None
            if self._sizes.get(file.source_id, 0) > _BATCH_BYTES
            else pool.submit(prepare, file.path, self.max_bytes, chunking)
            for file, _ in batch
        ]

    def _collect(
        self,
        batch: list[tuple[_File, str]],
        loading: list[Future[Prepared | str] | None],
        skipped: list[tuple[str, str]],
    ) -> tuple[list[StoredDocument], dict[str, Chunked]]:
        """The batch's documents, cached, with the chunks made ahead; a file that cannot be read joins `skipped`."""
        docs: list[StoredDocument] = []
        chunked: dict[str, Chunked] = {}
        for (file, digest), future in zip(batch, loading, strict=True):
            outcome = self._outcome(file, future)
            check_stop()
            if isinstance(outcome, str):
                skipped.append((file.locator, outcome))
                continue
            doc = self._document(file, digest, outcome.loaded)
            self.cache.put(doc)
            docs.append(doc)
            if outcome.chunked is not None:
                chunked[file.source_id] = outcome.chunked
        return docs, chunked

    def _outcome(self, file: _File, future: Future[Prepared | str] | None) -> Prepared | str:
        """What loading a file gave; a file whose worker process died (a crash in a parser) is loaded again here,
        so that one bad file costs its own reason at most."""
        if future is None:
            return prepare(file.path, self.max_bytes, None)
        while True:
            check_stop()
            try:
                return future.result(timeout=0.25)
            except TimeoutError:
                continue
            except BrokenExecutor:
                logger.warning("a worker process stopped while loading %s; loading it here", file.path)
                return prepare(file.path, self.max_bytes, None)

    def _document(self, file: _File, digest: str, loaded: DocumentText) -> StoredDocument:
        return StoredDocument(
            source_id=file.source_id,
            locator=file.locator,
            title=loaded.title,
            text=loaded.text,
            content_hash=digest,
            fetched_at=datetime.now(UTC).isoformat(timespec="seconds"),
            access_method="local-file",
            author=loaded.author,
            published=loaded.published,
            corpus=self.corpus_id,
            reading=READING_VERSION,
        )
