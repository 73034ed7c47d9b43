"""Showing untrusted text safely, and the page's small text helpers."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from research_assistant.report.citations import format_locator
from research_assistant.report.locations import relative_path as corpus_path  # a corpus file's path, as exports show it
from research_assistant.text.spaces import clip

_HTTP = re.compile(r"^https?://[^\s<>\x00-\x1f\x7f]+$", re.IGNORECASE)


def one_line(text: str, width: int = 300) -> str:
    """The first non-blank line of `text`, clipped to `width` characters."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return clip(line, width)


def is_http(locator: str) -> bool:
    return bool(_HTTP.match(locator.strip()))


def domain_of(locator: str) -> str:
    """The web site of an http(s) locator, without `www.`; "" for anything else."""
    if not is_http(locator):
        return ""
    host = (urlsplit(locator.strip()).hostname or "").lower()
    return host.removeprefix("www.")


def locator_markdown(locator: str, roots: list[Path]) -> str:
    """Where a source lives, as safe Markdown: an http(s) address as a link; a corpus file as its path in
    code (never a file:// link); anything else as inert code."""
    if is_http(locator):
        return format_locator(locator.strip())
    relative = corpus_path(locator, roots)
    return format_locator(relative if relative is not None else locator)
