"""The source-reader interface: how the browse step obtains a source's text."""

from __future__ import annotations

from typing import Protocol

from research_assistant.knowledge.documents import StoredDocument
from research_assistant.schemas import SourceRecord


class ReadError(Exception):
    """A source could not be read; the message is the one-line reason shown in the report."""


class SourceReader(Protocol):
    async def read(self, source: SourceRecord) -> StoredDocument:
        """The source's text, stored in the document cache and the repository; raises ReadError."""
        ...
