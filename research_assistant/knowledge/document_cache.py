"""The document cache: the extracted text of every source read, kept as the entries of a `CacheEntries`
(`<cache_dir>/documents/<source_id>.json`, or, for a team, rows of kind `documents` in the PostgreSQL
database of `RESEARCH_DATABASE_URL`, so no worker reads a source another has read).

A source is never fetched or parsed twice, and state only needs to carry ids. Writes are atomic, so a
reader never sees half a document, even across processes. An entry that is damaged all the same (garbled
by hand, a disk fault, a full disk before this was so) does not parse as a document of its id, and counts
as absent: the source is read again and cached anew.
"""

from __future__ import annotations

import re
from pathlib import Path

from research_assistant.caches import CacheEntries
from research_assistant.knowledge.documents import StoredDocument

_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


class DocumentCache:
    """Stored documents keyed by source id; safe to share between threads."""

    def __init__(self, cache_dir: Path) -> None:
        self.entries = CacheEntries(Path(cache_dir) / "documents", "documents")

    @property
    def directory(self) -> Path:
        """The folder of the entries when they are kept in files."""
        return self.entries.folder

    @staticmethod
    def _checked(source_id: str) -> str:
        # Source ids become file names: refuse anything that could escape the folder.
        if not _SAFE_ID.match(source_id):
            raise ValueError(f"invalid source id {source_id!r}")
        return source_id

    def get(self, source_id: str) -> StoredDocument | None:
        """The cached document, or None when it is missing, unreadable or damaged."""
        doc = self.entries.load(self._checked(source_id), StoredDocument)
        return doc if doc is not None and doc.source_id == source_id else None

    def put(self, doc: StoredDocument) -> None:
        """Store (or replace) a document atomically; raises `StorageError` (naming the file) when it cannot be
        written, leaving the previous entry as it was."""
        # Straight to bytes: `model_dump_json` would make a str copy of the whole text, then `encode` another.
        self.entries.store(self._checked(doc.source_id), doc.__pydantic_serializer__.to_json(doc, indent=1))

    def text(self, source_id: str) -> str | None:
        """Just the text of a cached document."""
        doc = self.get(source_id)
        return doc.text if doc is not None else None

    def has(self, source_id: str) -> bool:
        """Whether a usable document is cached: a damaged entry counts as absent, so that it is read again.

        The entry is parsed and validated (pydantic's JSON parser reads hundreds of megabytes a second).
        """
        return self.get(source_id) is not None
