"""Finding the documents of a corpus folder, and telling the analyst when a folder cannot be used.

The corpus never reads outside its folder: every file is resolved (links
followed to the end), and one that lands outside the folder is refused with a
one-line reason, like a file that cannot be read. The one exception is a run
folder that `corpus/uploads.py` made in the app's own upload workspace: its
links may also land in the documents folder it was made from (and nowhere else).

Kept free of heavy imports, so the command line can check a folder at once.
"""

from __future__ import annotations

import hashlib
import os
import threading
from pathlib import Path

from research_assistant.corpus.sphinx import without_page_sources
from research_assistant.report.locations import LINKED_FROM

UPLOAD_WORKSPACE = "uploads"
"""The app's upload workspace, inside the cache folder (`RESEARCH_CACHE_DIR`)."""
OUTSIDE = "a link to a file outside the corpus folder; not read"

_workspaces: set[Path] = set()
_workspaces_lock = threading.Lock()

SUPPORTED_SUFFIXES: frozenset[str] = frozenset({".md", ".markdown", ".txt", ".html", ".htm", ".pdf", ".docx"})
DEFAULT_MAX_FILE_MB = 100.0
"""The per-file size cap when the settings cannot be read (`RESEARCH_MAX_FILE_MB` sets it)."""


class CorpusError(Exception):
    """The corpus folder cannot be used; the message is one line, shown to the analyst."""


def corpus_id_for(folder: Path) -> str:
    """A short, stable id for a corpus folder, from its resolved path."""
    return "C" + hashlib.sha1(folder.expanduser().resolve().as_posix().encode()).hexdigest()[:10]


def max_file_bytes() -> int:
    """The largest file a corpus indexes or an upload may be, in bytes (`RESEARCH_MAX_FILE_MB`)."""
    try:
        from research_assistant.settings import get_settings

        megabytes = get_settings().max_file_mb
    except Exception:  # settings that cannot be read are reported elsewhere; the default cap still applies
        megabytes = DEFAULT_MAX_FILE_MB
    return int(megabytes * 2**20)


def too_large(size: int, limit: int) -> str | None:
    """Why a file of `size` bytes is not indexed under a cap of `limit` bytes, or None when it fits."""
    if size <= limit:
        return None
    return f"file too large ({_megabytes(size)} MB; the limit is {_megabytes(limit)} MB, set by RESEARCH_MAX_FILE_MB)"


def _megabytes(size: int) -> str:
    value = size / 2**20
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


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


def trust_workspace(workspace: Path) -> None:
    """Let run folders made in `workspace` (by `corpus/uploads.py`) link to the documents folder they name."""
    with _workspaces_lock:
        _workspaces.add(Path(workspace).expanduser().resolve())


def _trusted_workspaces() -> set[Path]:
    with _workspaces_lock:
        trusted = set(_workspaces)
    try:
        from research_assistant.settings import get_settings

        trusted.add((get_settings().cache_dir / UPLOAD_WORKSPACE).expanduser().resolve())
    except Exception:  # settings that cannot be read are reported elsewhere; here they only trust nothing more
        pass
    return trusted


def allowed_roots(folder: Path) -> list[Path]:
    """The folders the documents of a (resolved) corpus folder may resolve into: the folder itself and, for
    a run folder of a trusted upload workspace, the documents folder it links to."""
    roots = [folder]
    marker = folder / LINKED_FROM
    if folder.parent in _trusted_workspaces() and marker.is_file() and not marker.is_symlink():
        try:
            linked = Path(marker.read_text(encoding="utf-8").strip())
        except (OSError, UnicodeDecodeError):
            return roots
        if linked.is_absolute() and linked.is_dir():
            roots.append(linked.resolve())
    return roots


def _inside(path: Path, roots: list[Path]) -> bool:
    """Whether `path`, with every link followed, is inside one of `roots`."""
    try:
        target = path.resolve()
    except (OSError, RuntimeError):  # a loop of links
        return False
    return any(target.is_relative_to(root) for root in roots)


def scan_folder(folder: Path, unreadable: list[tuple[str, str]]) -> list[Path]:
    """Supported files under a (resolved) folder, recursively, skipping hidden ones and the Sphinx page sources
    whose built page is there too (`sphinx.py`); sub-folders that cannot be read, and files that resolve outside
    the folder, are added to `unreadable` with the reason."""

    def note(error: OSError) -> None:
        unreadable.append((Path(error.filename or folder).as_posix(), f"cannot read folder: {error.strerror}"))

    roots = allowed_roots(folder)
    found: list[Path] = []
    for root, dirs, names in os.walk(folder, onerror=note):  # links to folders are not followed
        dirs[:] = sorted(d for d in dirs if not _hidden(d))
        for name in sorted(names):
            path = Path(root, name)
            if _hidden(name) or path.suffix.lower() not in SUPPORTED_SUFFIXES:
                continue
            if not _inside(path, roots):
                unreadable.append((path.as_posix(), OUTSIDE))
            elif path.is_file():
                found.append(path)
    if not found:
        raise CorpusError(f"{folder} contains no .md, .txt, .html, .pdf or .docx files")
    return without_page_sources(found)


def corpus_files(corpus_dir: Path) -> list[Path]:
    """The supported files of a corpus folder; raises `CorpusError` when the folder cannot be used."""
    return scan_folder(check_folder(corpus_dir), [])
