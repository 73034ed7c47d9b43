"""Reads local-corpus sources for the browse step.

Indexing already extracted every file's text into the document cache, so
reading a local source is a cache look-up plus a check that the file is still
there: nothing is parsed twice.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from research_assistant.knowledge.document_cache import DocumentCache
from research_assistant.knowledge.documents import StoredDocument
from research_assistant.reading import ReadError
from research_assistant.schemas import SourceRecord


class LocalFileReader:
    def __init__(self, documents: DocumentCache) -> None:
        self._documents = documents

    async def read(self, source: SourceRecord, *, run_id: str = "", refresh: bool = False) -> StoredDocument:
        """The text extracted when the corpus was indexed (each run re-syncs changed files first)."""
        return await asyncio.to_thread(self._read, source)

    def _read(self, source: SourceRecord) -> StoredDocument:
        document = self._documents.get(source.id)
        if document is None:
            raise ReadError("its text is not in the document cache; run the research again to re-index the corpus")
        if not Path(source.locator).is_file():
            raise ReadError("the file no longer exists")
        return document
