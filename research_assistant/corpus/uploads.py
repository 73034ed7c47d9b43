"""Files an analyst uploads join the run's corpus.

The page cannot add files to the analyst's own folder, so a run with uploads
researches a folder of its own: links to every document of the chosen folder
plus the uploaded files. The folder is named by a digest of its contents, so
the same folder and uploads give the same corpus, which is indexed only once.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

from research_assistant.corpus.files import SUPPORTED_SUFFIXES, CorpusError, check_folder, corpus_files

UPLOADS = "uploads"
LINKED = "folder"
_UNSAFE = re.compile(r"[^\w.\- ]+")


def safe_name(name: str) -> str:
    """The file name alone, without folders or characters a file system might mind."""
    base = _UNSAFE.sub("_", Path(name.replace("\\", "/")).name).strip(" .")
    return base or "upload"


def run_corpus(base: Path | None, uploads: Sequence[tuple[str, bytes]], workspace: Path) -> Path:
    """The folder to research: `base` itself when nothing was uploaded; otherwise a folder in `workspace` with
    links to `base`'s documents and the uploaded files. Raises `CorpusError` (one line) for an unusable upload."""
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
        names[clean] = content
    folder_files = corpus_files(base) if base is not None else []
    root = check_folder(base) if base is not None else None
    digest = hashlib.sha256()
    digest.update(str(root).encode())
    for name, content in sorted(names.items()):
        digest.update(name.encode() + b"\0" + hashlib.sha256(content).digest())
    folder = workspace / digest.hexdigest()[:16]
    (folder / UPLOADS).mkdir(parents=True, exist_ok=True)
    for name, content in names.items():
        target = folder / UPLOADS / name
        if not target.exists():
            target.write_bytes(content)
    if root is not None:
        for path in folder_files:
            link = folder / LINKED / path.relative_to(root)
            if not link.is_symlink():
                link.parent.mkdir(parents=True, exist_ok=True)
                os.symlink(path, link)
    return folder
