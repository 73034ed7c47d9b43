"""The files of a saved BM25 index, and how to tell a damaged one.

A saved index is a folder: bm25s's files, the chunk ids its rows stand for (`chunk_ids.json`) and a
manifest with the SHA-256 of every other file. An index whose files do not match their digests (garbled,
truncated, emptied) is damaged; it is derived data, so the repository rebuilds it from Chroma.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

MANIFEST = "manifest.json"
CHUNK_IDS = "chunk_ids.json"


def digests(folder: Path) -> dict[str, str]:
    """The SHA-256 of every file in `folder` but the manifest."""
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.iterdir())
        if path.is_file() and path.name != MANIFEST
    }


def read_manifest(folder: Path) -> dict[str, Any]:
    """The index's manifest, once its files are checked against it; raises `ValueError` saying what is wrong."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"unreadable manifest: {error}") from None
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        raise ValueError("the manifest lists no file digests")
    try:
        found = digests(folder)
    except OSError as error:
        raise ValueError(f"unreadable file: {error}") from None
    if found != manifest["files"]:
        changed = sorted(set(found.items()) ^ set(manifest["files"].items()))
        raise ValueError(f"{changed[0][0]} does not match its digest")
    return manifest


def read_chunk_ids(folder: Path, expected: int) -> list[str]:
    """The chunk ids of a checked index: `expected` strings, or `ValueError`."""
    chunk_ids = json.loads((folder / CHUNK_IDS).read_text(encoding="utf-8"))
    if not isinstance(chunk_ids, list) or not all(isinstance(i, str) for i in chunk_ids):
        raise ValueError("the chunk ids are not a list of strings")
    if len(chunk_ids) != expected:
        raise ValueError(f"{len(chunk_ids)} chunk ids for an index of {expected} chunks")
    return chunk_ids


def problem(folder: Path) -> str | None:
    """What is wrong with the saved index in `folder`, or None when its files check out."""
    try:
        manifest = read_manifest(folder)
        read_chunk_ids(folder, int(manifest.get("chunks", -1)))
    except (ValueError, TypeError, OSError) as error:
        return str(error)
    return None
