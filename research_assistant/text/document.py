"""What reading a document gives, whatever its format: its title, its text and what it says of itself."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DocumentText:
    """A document's title and plain text, with its author and publication date when it states them."""

    title: str
    text: str
    author: str | None = None
    published: str | None = None
