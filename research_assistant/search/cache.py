"""The search cache: a provider's answer to a query, kept on disk for a while.

Web searches cost money and time, and an analyst who re-runs a research
(another depth, another citation style) asks the same queries again. Answers
are stored per provider, source kinds, normalized query and limit in
`<cache_dir>/search/<key>.json` (for a team, in the PostgreSQL database's `research_cache`) and reused
until they are older than the TTL.
Failures are never cached. The local corpus is not cached: its index is
always current.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

from research_assistant.caches import CacheEntries
from research_assistant.schemas import SearchResult
from research_assistant.text.tokens import normalize_query


class _Entry(BaseModel):
    stored_at: float
    results: list[SearchResult]


class SearchCache:
    def __init__(self, cache_dir: Path, ttl_seconds: float) -> None:
        self.entries = CacheEntries(Path(cache_dir) / "search", "search")
        self.ttl_seconds = ttl_seconds

    @staticmethod
    def key(provider: str, kinds: Iterable[str], query: str, limit: int) -> str:
        raw = json.dumps([provider, sorted(str(kind) for kind in kinds), normalize_query(query), limit])
        return hashlib.sha256(raw.encode()).hexdigest()[:32]

    def get(self, key: str) -> list[SearchResult] | None:
        """The cached results, or None when missing, unreadable or stale."""
        entry = self.entries.load(key, _Entry)
        if entry is None or time.time() - entry.stored_at > self.ttl_seconds:
            return None
        return entry.results

    def put(self, key: str, results: list[SearchResult]) -> None:
        self.entries.store(key, _Entry(stored_at=time.time(), results=results).model_dump_json().encode())
