"""Small corpora written for a test: a folder of named text files."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def written_corpus(folder: Path, files: Mapping[str, str]) -> Path:
    """`folder` made and filled with `files` (name to text), resolved, as locators are."""
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder.resolve()
