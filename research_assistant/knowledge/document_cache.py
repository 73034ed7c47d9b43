"""The document cache: the extracted text of every source read, on disk (or, for a team, in the PostgreSQL
database of `RESEARCH_DATABASE_URL`, table `research_cache`, so no worker reads a source another has read).

One JSON file per source (`<cache_dir>/documents/<source_id>.json`), so a
source is never fetched or parsed twice, and state only needs to carry ids.
Writes go to a temporary file that is then renamed over the target, so a
reader never sees half a document, even across processes. A file that is
damaged all the same (garbled by hand, a disk fault, a full disk before this
was so) does not parse as a document of its id, and counts as absent: the
source is read again and cached anew.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import ValidationError

from research_assistant.database import shared_cache
from research_assistant.knowledge.documents import StoredDocument
from research_assistant.storage import write_atomically

_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


class DocumentCache:
    """Stored documents keyed by source id; safe to share between threads."""

    def __init__(self, cache_dir: Path) -> None:
        self.directory = Path(cache_dir) / "documents"
        self.shared = shared_cache("documents")
        """The team's database, when one is configured: documents are kept there instead of `directory`."""

    def _path(self, source_id: str) -> Path:
        # Source ids become file names: refuse anything that could escape the folder.
        if not _SAFE_ID.match(source_id):
            raise ValueError(f"invalid source id {source_id!r}")
        return self.directory / f"{source_id}.json"

    def get(self, source_id: str) -> StoredDocument | None:
        """The cached document, or None when it is missing, unreadable or damaged."""
        path = self._path(source_id)
        try:
            raw = path.read_bytes() if self.shared is None else self.shared.get(source_id)
        except OSError:
            return None
        if raw is None:
            return None
        try:
            doc = StoredDocument.model_validate_json(raw)
        except (ValidationError, ValueError):
            return None
        return doc if doc.source_id == source_id else None

    def put(self, doc: StoredDocument) -> None:
        """Store (or replace) a document atomically; raises `StorageError` (naming the file) when it cannot be
        written, leaving the previous entry as it was."""
        # Straight to bytes: `model_dump_json` would make a str copy of the whole text, then `encode` another.
        payload = doc.__pydantic_serializer__.to_json(doc, indent=1)
        if self.shared is not None:
            self._path(doc.source_id)  # the same ids as on disk, checked the same way
            self.shared.put(doc.source_id, payload)
            return
        write_atomically(self._path(doc.source_id), payload)

    def text(self, source_id: str) -> str | None:
        """Just the text of a cached document."""
        doc = self.get(source_id)
        return doc.text if doc is not None else None

    def has(self, source_id: str) -> bool:
        """Whether a usable document is cached: a damaged entry counts as absent, so that it is read again.

        The entry is parsed and validated (pydantic's JSON parser reads hundreds of megabytes a second).
        """
        return self.get(source_id) is not None
