"""The source-reader interface: how the browse step obtains a source's text."""

from __future__ import annotations

from typing import Protocol

from research_assistant.knowledge.documents import StoredDocument
from research_assistant.schemas import SourceRecord

CACHE_METHOD = "cache"
"""The `access_method` of a document served from the document cache instead of being fetched again."""


class ReadError(Exception):
    """A source could not be read; the message is the one-line reason shown in the report."""


class SourceReader(Protocol):
    async def read(self, source: SourceRecord, *, run_id: str = "", refresh: bool = False) -> StoredDocument:
        """The source's text, stored in the document cache and the repository; raises ReadError.

        `run_id` is recorded on what gets indexed; `refresh` ignores cached copies. A document obtained
        from the cache has `access_method` 'cache'.
        """
        ...
