"""What fetching a URL yields, and how it fails: shared by the fetcher, the browser and the reader."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from research_assistant.text.decoding import decode_declared

PAGE_TYPES = frozenset({"text/html", "application/xhtml+xml", "application/pdf", "text/plain", "text/markdown"})
"""Content types the browse step can read; anything else is skipped with a reason."""


class FetchError(Exception):
    """A URL could not be fetched; `str(error)` is the one-line reason shown to the analyst."""

    def __init__(self, reason: str, *, retryable: bool = False, status: int | None = None) -> None:
        super().__init__(reason)
        self.retryable = retryable
        self.status = status


class FetchRefused(FetchError):
    """Refused before anything was sent: a forbidden address or scheme, robots.txt, a setting. Never retried."""


@dataclass(frozen=True)
class FetchedPage:
    """A response that was read in full, within the byte caps."""

    url: str
    """The URL that was asked for."""
    final_url: str
    """Where the last redirect led."""
    status: int
    content_type: str
    """Lower-case MIME type without parameters, e.g. 'text/html'."""
    body: bytes
    charset: str | None = None
    redirects: tuple[str, ...] = ()
    headers: Mapping[str, str] = field(default_factory=dict)

    def text(self) -> str:
        """The body decoded with its declared charset (`decode_declared`), or UTF-8 with replacement."""
        text = decode_declared(self.body, self.charset)
        return text if text is not None else self.body.decode("utf-8", errors="replace")


class PageFetcher(Protocol):
    async def fetch(
        self, url: str, *, accept: Collection[str] | None = PAGE_TYPES, check_robots: bool = True
    ) -> FetchedPage:
        """GET `url` within the guard and the limits; `accept=None` takes any content type. Raises FetchError."""
        ...
