"""Documents as the knowledge layer stores them."""

from __future__ import annotations

import hashlib

from pydantic import BaseModel, Field

from research_assistant.text.urls import normalize_url


def source_id_for(locator: str) -> str:
    """A short, stable id for a source, derived from its normalized locator (URLs that lead to the same
    page share one id)."""
    return "S" + hashlib.sha1(normalize_url(locator).encode()).hexdigest()[:10]


class StoredDocument(BaseModel):
    """The extracted text of one source, with what is known about it."""

    source_id: str
    locator: str = Field(description="URL or file path.")
    title: str
    text: str
    content_hash: str = Field(
        description="sha256 of the raw bytes the text came from (a corpus file's after the version of the reading)."
    )
    fetched_at: str = Field(description="ISO-8601 time the text was obtained.")
    access_method: str = Field(default="local-file", description="How the text was obtained.")
    author: str | None = None
    published: str | None = None
    corpus: str | None = Field(default=None, description="Id of the local corpus the document belongs to, if any.")
    final_url: str | None = Field(default=None, description="Where redirects led, for a web page.")
    notes: list[str] = Field(
        default_factory=list, description="What the analyst should know about how the text was obtained."
    )
    reading: int = Field(default=0, description="The READING_VERSION the text was read with (0: before it was kept).")
