"""Showing untrusted text safely, and the page's small text helpers."""

from __future__ import annotations

from pathlib import Path

from research_assistant.report.citations import format_locator
from research_assistant.report.locations import relative_path as corpus_path  # a corpus file's path, as exports show it
from research_assistant.text.urls import host_of, is_linkable_url


def domain_of(locator: str) -> str:
    """The web site of an http(s) locator, without `www.`; "" for anything else."""
    return host_of(locator.strip()).removeprefix("www.") if is_linkable_url(locator.strip()) else ""


def locator_markdown(locator: str, roots: list[Path]) -> str:
    """Where a source lives, as safe Markdown: an http(s) address as a link; a corpus file as its path in
    code (never a file:// link); anything else as inert code."""
    if is_linkable_url(locator.strip()):
        return format_locator(locator.strip())
    relative = corpus_path(locator, roots)
    return format_locator(relative if relative is not None else locator)
