"""Files an analyst uploads join the run's corpus.

The page cannot add files to the analyst's own folder, so a run with uploads
researches a folder of its own: links to every document of the chosen folder
plus the uploaded files. The folder is named by a digest of its contents, so
the same folder and uploads give the same corpus, which is indexed only once.

Such a run folder's links point outside it, into the chosen documents folder.
"Inside the corpus" then means inside the run folder or inside that documents
folder, which the run folder records (`.linked-folder`); the record is only
believed in the app's own upload workspace, never in a folder an analyst
chose, so a corpus cannot widen its own reach. A link that lands anywhere else
(a document of the chosen folder later replaced by a link out of it) is
refused like any link out of a corpus.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

from research_assistant.corpus.files import (
    LINKED_FROM,
    OUTSIDE,
    SUPPORTED_SUFFIXES,
    CorpusError,
    check_folder,
    max_file_bytes,
    scan_folder,
    too_large,
    trust_workspace,
)

UPLOADS = "uploads"
LINKED = "folder"
_UNSAFE = re.compile(r"[^\w.\- ]+")


def safe_name(name: str) -> str:
    """The file name alone, without folders or characters a file system might mind."""
    base = _UNSAFE.sub("_", Path(name.replace("\\", "/")).name).strip(" .")
    return base or "upload"


def run_corpus(
    base: Path | None, uploads: Sequence[tuple[str, bytes]], workspace: Path, max_bytes: int | None = None
) -> Path:
    """The folder to research: `base` itself when nothing was uploaded; otherwise a folder in `workspace` with
    links to `base`'s documents and the uploaded files. Raises `CorpusError` (one line) for an unusable upload,
    such as one larger than `max_bytes` (by default the `RESEARCH_MAX_FILE_MB` setting)."""
    limit = max_file_bytes() if max_bytes is None else max_bytes
    if not uploads:
        if base is None:
            raise CorpusError("choose a documents folder or upload some documents")
        return base
    names: dict[str, bytes] = {}
    for name, content in uploads:
        clean = safe_name(name)
        if Path(clean).suffix.lower() not in SUPPORTED_SUFFIXES:
            raise CorpusError(f"cannot use {clean}: upload PDF, Markdown, text, HTML or Word (.docx) files")
        if not content:
            raise CorpusError(f"{clean} is empty")
        reason = too_large(len(content), limit)
        if reason:  # refused now, not skipped minutes later while the corpus is indexed
            raise CorpusError(f"cannot use {clean}: {reason}")
        names[clean] = content
    root = check_folder(base) if base is not None else None
    folder_files: list[Path] = []
    if root is not None:
        refused: list[tuple[str, str]] = []
        folder_files = scan_folder(root, refused)
        # Links out of the folder are linked too, so that indexing the run's folder refuses them with a warning
        # the analyst sees, as it would in the folder itself; they are never read.
        folder_files += [Path(path) for path, reason in refused if reason == OUTSIDE]
    digest = hashlib.sha256()
    digest.update(str(root).encode())
    for name, content in sorted(names.items()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(content).digest())
    folder = workspace / digest.hexdigest()[:16]
    (folder / UPLOADS).mkdir(parents=True, exist_ok=True)
    trust_workspace(workspace)
    for name, content in names.items():
        target = folder / UPLOADS / name
        if not target.exists():
            target.write_bytes(content)
    if root is not None:
        marker = folder / LINKED_FROM
        if not marker.is_file():
            marker.write_text(f"{root}\n", encoding="utf-8")
        for path in folder_files:
            link = folder / LINKED / path.relative_to(root)
            if not link.is_symlink():
                link.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(path, link)
    return folder
