"""Keeping a folder of local documents in step with the research repository.

A sync walks the folder, hashes every supported file and re-indexes only the
files whose content changed since the last sync (or whose cached text is
missing), and removes the documents whose files are gone. A file that cannot
be read, or is larger than the size cap (`RESEARCH_MAX_FILE_MB`), is reported
with its reason and skipped; the rest of the corpus is still indexed.

Memory stays bounded: files are loaded a batch at a time (by count and by
size), and the repository splits, embeds and stores a long text in pieces.
Progress lines say how far indexing is (every tenth of the work), and a
cancelled run (`concurrency.in_thread`) stops between batches, leaving every
document either wholly indexed or found missing by the next sync.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from research_assistant.concurrency import check_stop
from research_assistant.corpus.files import check_folder, corpus_id_for, max_file_bytes, scan_folder, too_large
from research_assistant.corpus.loaders import CorpusFileError, load_file
from research_assistant.knowledge.document_cache import DocumentCache
from research_assistant.knowledge.documents import StoredDocument, source_id_for
from research_assistant.knowledge.repository import ResearchRepository, release_memory

_BATCH = 64
"""Documents loaded and indexed together: bounds memory while keeping the embedding batches large."""
_BATCH_BYTES = 16 * 2**20
"""Most bytes of files loaded together (a larger file is loaded on its own)."""
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


def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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
    unchanged: int = 0
    gone: list[str] = field(default_factory=list)
    changes: bool = False

    def report(self, indexed: int) -> SyncReport:
        return SyncReport(indexed=indexed, unchanged=self.unchanged, removed=len(self.gone), skipped=self.skipped)


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


def _batches(todo: list[tuple[_File, str]], sizes: dict[str, int]) -> Iterator[list[tuple[_File, str]]]:
    """The files to index in batches of at most `_BATCH` files and `_BATCH_BYTES` bytes (or one larger file)."""
    batch: list[tuple[_File, str]] = []
    weight = 0
    for item in todo:
        size = sizes.get(item[0].source_id, 0)
        if batch and (len(batch) == _BATCH or weight + size > _BATCH_BYTES):
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
            with self.repository.reading():
                plan = self._plan(files, hashes, unreadable)
                if not plan.changes:
                    self.repository.warm(corpus=self.corpus_id)
                    return plan.report(0)
            with self.repository.writing():
                plan = self._plan(files, hashes, unreadable)  # another process may have indexed it meanwhile
                count = 0
                shown = _Progress(progress, plan.todo, self._sizes)
                for batch in _batches(plan.todo, self._sizes):
                    docs = self._load_batch(pool, batch, plan.skipped)
                    on_characters = shown.batch(batch, sum(len(doc.text) for doc in docs))
                    self.repository.add_documents(docs, run_id or self.run_id, on_characters)
                    count += len(docs)
                    del docs  # the batch's texts, before the next batch is loaded
                    release_memory()
                failed = {sid for sid in (source_id_for(locator) for locator, _ in plan.skipped) if sid in plan.indexed}
                # A file that now fails to load must not keep answering with its old content.
                self.repository.remove_documents([*plan.gone, *failed])
                # Build (or load) the corpus's BM25 index now, as part of indexing, not on the first query.
                self.repository.warm(corpus=self.corpus_id)
        return plan.report(count)

    def _plan(
        self, files: dict[str, _File], hashes: dict[str, tuple[str | None, str]], unreadable: list[tuple[str, str]]
    ) -> _Plan:
        """What a sync has to do, compared with the index as it is now (the caller holds the repository's lock)."""
        indexed = self.repository.indexed_hashes(self.corpus_id)
        plan = _Plan(indexed=indexed, skipped=list(unreadable))
        for source_id, file in files.items():
            digest, reason = hashes[source_id]
            if digest is None:
                plan.skipped.append((file.locator, reason))
            elif indexed.get(source_id) == digest and self.cache.has(source_id):
                plan.unchanged += 1
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

    def _load_batch(
        self, pool: ThreadPoolExecutor, batch: list[tuple[_File, str]], skipped: list[tuple[str, str]]
    ) -> list[StoredDocument]:
        """The batch's documents, loaded at once and cached; a file that cannot be read joins `skipped`."""
        docs: list[StoredDocument] = []
        for (file, _), outcome in zip(batch, pool.map(self._load, batch), strict=True):
            check_stop()
            if isinstance(outcome, str):
                skipped.append((file.locator, outcome))
            else:
                self.cache.put(outcome)
                docs.append(outcome)
        return docs

    def _load(self, item: tuple[_File, str]) -> StoredDocument | str:
        """The document for a file, or the reason it cannot be read."""
        file, digest = item
        try:
            loaded = load_file(file.path, self.max_bytes)
        except CorpusFileError as error:
            return str(error)
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
        )
