"""Where a run's local documents lie, and their paths as the analyst knows them: relative to the documents folder.

A run's corpus folder is the one given, or, for a run with uploads, a folder
of the upload cache holding the uploads and links (`folder/...`) to the
documents of the folder given. Exports and the page show a local document by
its path inside whichever of these folders it lies in, never the server's
absolute path.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

LINKED = "folder"
"""Where a corpus with uploads keeps its links to the chosen folder's documents."""
LINKED_FROM = ".linked-folder"
"""In a corpus with uploads: the documents folder its links point into (one line), as `corpus.files` writes it."""

_CODE_SPAN = re.compile(r"(`+)( ?)(.+?)\2\1(?!`)")


def corpus_roots(corpus_dir: str | Path | None) -> list[Path]:
    """The folders a run's local sources lie in: its corpus folder and, for a corpus with uploads, the folder
    its linked documents come from."""
    if not corpus_dir:
        return []
    root = Path(corpus_dir).expanduser().resolve()
    roots = [root]
    marker = root / LINKED_FROM
    if marker.is_file() and not marker.is_symlink():  # shown paths only: nothing is read on its word
        try:
            linked_to = Path(marker.read_text(encoding="utf-8").strip())
        except (OSError, UnicodeDecodeError):
            return roots
        return [*roots, linked_to.resolve()] if linked_to.is_absolute() else roots
    linked = root / LINKED
    if linked.is_dir():
        for folder, _, names in os.walk(linked):
            links = [Path(folder, name) for name in names if Path(folder, name).is_symlink()]
            if links:
                depth = len(links[0].relative_to(linked).parts)
                roots.append(links[0].resolve().parents[depth - 1])
                break
    return roots


def chosen_folder(corpus_dir: str | Path | None, uploads_dir: Path) -> str | None:
    """The documents folder the analyst chose for a run: its corpus folder, or, when that is a folder of the
    upload cache (`uploads_dir`), the folder its linked documents come from (None when there was none)."""
    if not corpus_dir:
        return None
    path = Path(corpus_dir).expanduser().resolve()
    try:
        path.relative_to(uploads_dir.expanduser().resolve())
    except ValueError:
        return str(corpus_dir)
    roots = corpus_roots(path)
    return str(roots[1]) if len(roots) > 1 else None


def relative_path(locator: str, roots: Sequence[Path]) -> str | None:
    """An absolute file locator as its path inside the first of `roots` that holds it; None otherwise."""
    if "://" in locator:
        return None
    path = Path(locator)
    if not path.is_absolute():
        return None
    for root in roots:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            continue
    return None


def relative_code_spans(markdown: str, roots: Sequence[Path]) -> str:
    """The report's Markdown with every code span holding a file of the documents folder made relative to it."""
    if not roots:
        return markdown

    def shorten(match: re.Match[str]) -> str:
        found = relative_path(match.group(3), roots)
        if found is None:
            return match.group(0)
        return f"{match.group(1)}{match.group(2)}{found}{match.group(2)}{match.group(1)}"

    return _CODE_SPAN.sub(shorten, markdown)
