"""Where a cache keeps its entries, one way for the document, search, model-reply and failure caches: a JSON
file per key under the cache's folder (`<key>.json`, or `<ab>/<key>.json` for caches of many entries), written
atomically so that no reader sees half of one; or, for a team, a row of the PostgreSQL database's
`research_cache`. An entry that is missing, unreadable or not of its model reads as None, so the caller reads,
searches or asks again.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from research_assistant.database import shared_cache
from research_assistant.storage import write_atomically

M = TypeVar("M", bound=BaseModel)


class CacheEntries:
    """The entries of one cache, by key. `kind` names them in the team's database; None keeps them in files
    even when there is one."""

    def __init__(self, folder: Path, kind: str | None, *, fan_out: bool = False) -> None:
        self.folder = folder
        self.shared = shared_cache(kind) if kind else None
        """The team's database, when one is configured: entries are kept there instead of `folder`."""
        self._fan_out = fan_out

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json" if self._fan_out else self.folder / f"{key}.json"

    def load(self, key: str, model: type[M]) -> M | None:
        """The entry as `model`; None when it is missing, unreadable or not one."""
        try:
            raw = self.path(key).read_bytes() if self.shared is None else self.shared.get(key)
            return None if raw is None else model.model_validate_json(raw)
        except (OSError, ValidationError, ValueError):
            return None

    def store(self, key: str, payload: bytes) -> None:
        """Keep (or replace) the entry; `StorageError` (naming the file) when it cannot be written."""
        if self.shared is not None:
            self.shared.put(key, payload)
        else:
            write_atomically(self.path(key), payload)

    def forget(self, key: str) -> None:
        if self.shared is not None:
            self.shared.delete(key)
        else:
            self.path(key).unlink(missing_ok=True)
