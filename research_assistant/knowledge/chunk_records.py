"""What the repository stores in Chroma for each chunk, and how a stored chunk is read back.

Every metadata key of a chunk is a row in Chroma's SQLite table, with an index on its value, written once more in
Chroma's log: storing a key costs insert time whether or not anything reads it. So a chunk holds only what its
readers need: `source_id`, `corpus` and `chunk` (what searches filter on), `start` and `title` (each passage's
own), and its `text`, plain. The document's other fields (`locator`, `fetched_at`, `run_id`, `content_hash`) are
stored once, on its first chunk, which is also the one that says the document is indexed (`indexed_hashes`,
`document_info` read only first chunks).

The text stays in Chroma, not in a side store, because Chroma is what a team's workers share (`RESEARCH_CHROMA_URL`);
as a Chroma document it would cost a full-text index that nothing searches (inserts 1.8 times as slow, measured
on 6,000 chunks).

Chunks stored before this layout hold every field on every chunk and the text inside a LlamaIndex node's JSON
(`_node_content`); `chunk_text` reads both, so a repository indexed earlier answers as before, and each document
takes the new layout whenever it is indexed again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DOCUMENT_KEYS = ("locator", "fetched_at", "run_id", "content_hash")
"""The document's fields that only its first chunk holds."""
TEXT_KEY = "text"
_NODE_JSON = "_node_content"
"""Where chunks stored before this layout hold their text: LlamaIndex's node JSON."""


@dataclass
class StoredChunk:
    """A chunk to store: its place in its document, the document's fields and, once embedded, its vector."""

    source_id: str
    corpus: str
    number: int
    start: int
    title: str
    text: str
    document: Mapping[str, str]
    """The document's fields (`DOCUMENT_KEYS`), stored with its first chunk only."""
    embedding: Any = None
    """A sequence of floats, or a row of a numpy array."""
    terms: list[str] | None = None
    """Its BM25 terms (`bm25_terms.terms`), when made ahead in a worker process."""

    @property
    def chunk_id(self) -> str:
        return f"{self.source_id}#{self.number}"


def record(chunk: StoredChunk) -> dict[str, Any]:
    """A chunk's Chroma metadata."""
    stored: dict[str, Any] = {
        "source_id": chunk.source_id,
        "corpus": chunk.corpus,
        "chunk": chunk.number,
        "start": chunk.start,
        "title": chunk.title,
        TEXT_KEY: chunk.text,
    }
    if chunk.number == 0:
        stored.update((key, chunk.document[key]) for key in DOCUMENT_KEYS)
    return stored


def is_old_layout(metadata: Mapping[str, Any]) -> bool:
    """Whether a stored chunk is in the layout before this one (its text inside a LlamaIndex node's JSON)."""
    return _NODE_JSON in metadata


def chunk_text(metadata: Mapping[str, Any]) -> str:
    """A stored chunk's text, in either layout."""
    text = metadata.get(TEXT_KEY)
    if text is not None:
        return str(text)
    return str(json.loads(str(metadata[_NODE_JSON])).get("text", ""))
