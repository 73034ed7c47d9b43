"""The search-provider interface.

A provider turns a query into normalized `SearchResult`s. Providers never
raise for a failing backend: they raise `ProviderError` with a one-line reason,
which the search routing records as a notice before moving on to the next one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from research_assistant.schemas import Notice, SearchResult, SourceType
from research_assistant.text.spaces import collapse

Progress = Callable[[str], None]
"""Takes a line on how a long step goes ('indexed 120 of 531 files'), for the run's progress."""

SNIPPET_CHARS = 300


def trim_snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    """Text on one line, cut at a word boundary to at most `limit` characters (plus an ellipsis)."""
    flat = collapse(text)
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


class ProviderError(Exception):
    """A provider could not answer; the message is shown to the analyst. `retryable` when another attempt may
    succeed (the API answered 429 or 5xx, or the connection dropped)."""

    def __init__(self, reason: str, *, retryable: bool = False) -> None:
        super().__init__(reason)
        self.retryable = retryable


class SearchProvider(Protocol):
    name: str
    """Short label, e.g. 'local'."""
    source_types: frozenset[SourceType]
    """The kinds of source this provider returns."""

    async def prepare(self, run_id: str = "index", progress: Progress | None = None) -> list[Notice]:
        """Get ready for run `run_id` (index a corpus, say); what the analyst should know about it. `progress`
        takes a line on how it goes, for the run's stream."""

    async def search(self, query: str, limit: int) -> list[SearchResult]:
        """At most `limit` results, best first."""


@runtime_checkable
class WordLookup(Protocol):
    """A provider that can scan its documents for a word, which a search API cannot: the local corpus."""

    async def where_word(self, word: str, holds: Callable[[str], bool], limit: int) -> list[SearchResult]:
        """At most `limit` documents with a passage that holds the word and passes `holds`, best first."""


class WebSearch:
    """What the web search providers share: a search API needs nothing made ready for a run."""

    name: str
    source_types: frozenset[SourceType]

    async def prepare(self, run_id: str = "index", progress: Progress | None = None) -> list[Notice]:
        return []
