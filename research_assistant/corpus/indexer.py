"""Keeping a folder of local documents in step with the research repository.

A sync walks the folder, hashes every supported file and re-indexes only the
files whose content changed since the last sync (or whose cached text is
missing), and removes the documents whose files are gone. A file that cannot
be read is reported with its reason and skipped; the rest of the corpus is
still indexed.
"""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from research_assistant.corpus.files import check_folder, corpus_id_for, scan_folder
from research_assistant.corpus.loaders import CorpusFileError, load_file
from research_assistant.knowledge.document_cache import DocumentCache
from research_assistant.knowledge.documents import StoredDocument, source_id_for
from research_assistant.knowledge.repository import ResearchRepository

_BATCH = 64
"""Documents loaded and indexed together: bounds memory while keeping the embedding batches large."""
_WORKERS = min(4, os.cpu_count() or 1)


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


class CorpusIndexer:
    """Indexes one folder of documents as one corpus of the repository."""

    def __init__(
        self, corpus_dir: Path, repository: ResearchRepository, cache: DocumentCache, run_id: str = "index"
    ) -> None:
        self.corpus_dir = Path(corpus_dir).expanduser()
        self.repository = repository
        self.cache = cache
        self.run_id = run_id
        self.corpus_id = corpus_id_for(self.corpus_dir)

    def sync(self, run_id: str | None = None) -> SyncReport:
        """Bring the repository in line with the folder; raises `CorpusError` if the folder is unusable.

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

        with ThreadPoolExecutor(max_workers=_WORKERS) as pool:
            hashes = dict(zip(files, pool.map(self._hash_or_reason, files.values()), strict=True))
            with self.repository.reading():
                plan = self._plan(files, hashes, unreadable)
                if not plan.changes:
                    self.repository.warm(corpus=self.corpus_id)
                    return plan.report(0)
            with self.repository.writing():
                plan = self._plan(files, hashes, unreadable)  # another process may have indexed it meanwhile
                count = 0
                for start in range(0, len(plan.todo), _BATCH):
                    batch = plan.todo[start : start + _BATCH]
                    docs: list[StoredDocument] = []
                    for (file, _), outcome in zip(batch, pool.map(self._load, batch), strict=True):
                        if isinstance(outcome, str):
                            plan.skipped.append((file.locator, outcome))
                        else:
                            self.cache.put(outcome)
                            docs.append(outcome)
                    self.repository.add_documents(docs, run_id or self.run_id)
                    count += len(docs)
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

    @staticmethod
    def _hash_or_reason(file: _File) -> tuple[str | None, str]:
        try:
            return _file_hash(file.path), ""
        except OSError as error:
            return None, f"cannot read file: {error.strerror or error}"

    def _load(self, item: tuple[_File, str]) -> StoredDocument | str:
        """The document for a file, or the reason it cannot be read."""
        file, digest = item
        try:
            loaded = load_file(file.path)
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
