"""The search cache: a provider's answer to a query, kept on disk for a while.

Web searches cost money and time, and an analyst who re-runs a research
(another depth, another citation style) asks the same queries again. Answers
are stored per provider, source kinds, normalized query and limit in
`<cache_dir>/search/<key>.json` and reused until they are older than the TTL.
Failures are never cached. The local corpus is not cached: its index is
always current.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ValidationError

from research_assistant.knowledge.text import normalize_query
from research_assistant.schemas import SearchResult
from research_assistant.storage import write_atomically


class _Entry(BaseModel):
    stored_at: float
    results: list[SearchResult]


class SearchCache:
    def __init__(self, cache_dir: Path, ttl_seconds: float) -> None:
        self.directory = Path(cache_dir) / "search"
        self.ttl_seconds = ttl_seconds

    @staticmethod
    def key(provider: str, kinds: Iterable[str], query: str, limit: int) -> str:
        raw = json.dumps([provider, sorted(str(kind) for kind in kinds), normalize_query(query), limit])
        return hashlib.sha256(raw.encode()).hexdigest()[:32]

    def get(self, key: str) -> list[SearchResult] | None:
        """The cached results, or None when missing, unreadable or stale."""
        try:
            entry = _Entry.model_validate_json((self.directory / f"{key}.json").read_bytes())
        except (OSError, ValidationError, ValueError):
            return None
        if time.time() - entry.stored_at > self.ttl_seconds:
            return None
        return entry.results

    def put(self, key: str, results: list[SearchResult]) -> None:
        payload = _Entry(stored_at=time.time(), results=results).model_dump_json().encode()
        write_atomically(self.directory / f"{key}.json", payload)
