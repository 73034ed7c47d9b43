"""Finding the documents of a corpus folder, and telling the analyst when a folder cannot be used.

Kept free of heavy imports, so the command line can check a folder at once.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

SUPPORTED_SUFFIXES: frozenset[str] = frozenset({".md", ".markdown", ".txt", ".html", ".htm", ".pdf", ".docx"})


class CorpusError(Exception):
    """The corpus folder cannot be used; the message is one line, shown to the analyst."""


def corpus_id_for(folder: Path) -> str:
    """A short, stable id for a corpus folder, from its resolved path."""
    return "C" + hashlib.sha1(folder.expanduser().resolve().as_posix().encode()).hexdigest()[:10]


def _hidden(name: str) -> bool:
    return name.startswith(".") or name.startswith("~$")  # dot files, and Office's lock files


def check_folder(corpus_dir: Path) -> Path:
    folder = Path(corpus_dir).expanduser()
    if not folder.exists():
        raise CorpusError(f"corpus folder {folder} does not exist")
    if not folder.is_dir():
        raise CorpusError(f"corpus path {folder} is not a folder")
    try:
        with os.scandir(folder):
            pass
    except OSError as error:
        raise CorpusError(f"cannot read corpus folder {folder}: {error.strerror or error}") from None
    return folder.resolve()


def scan_folder(folder: Path, unreadable: list[tuple[str, str]]) -> list[Path]:
    """Supported files under a folder, recursively, skipping hidden ones; sub-folders that cannot be read
    are added to `unreadable`."""

    def note(error: OSError) -> None:
        unreadable.append((Path(error.filename or folder).as_posix(), f"cannot read folder: {error.strerror}"))

    found: list[Path] = []
    for root, dirs, names in os.walk(folder, onerror=note):
        dirs[:] = sorted(d for d in dirs if not _hidden(d))
        for name in sorted(names):
            path = Path(root, name)
            if not _hidden(name) and path.suffix.lower() in SUPPORTED_SUFFIXES and path.is_file():
                found.append(path)
    if not found:
        raise CorpusError(f"{folder} contains no .md, .txt, .html, .pdf or .docx files")
    return found


def corpus_files(corpus_dir: Path) -> list[Path]:
    """The supported files of a corpus folder; raises `CorpusError` when the folder cannot be used."""
    return scan_folder(check_folder(corpus_dir), [])
