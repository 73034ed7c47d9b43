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

from pydantic import BaseModel, ValidationError

from research_assistant.database import shared_cache
from research_assistant.schemas import SearchResult
from research_assistant.storage import write_atomically
from research_assistant.text.tokens import normalize_query


class _Entry(BaseModel):
    stored_at: float
    results: list[SearchResult]


class SearchCache:
    def __init__(self, cache_dir: Path, ttl_seconds: float) -> None:
        self.directory = Path(cache_dir) / "search"
        self.ttl_seconds = ttl_seconds
        self.shared = shared_cache("search")
        """The team's database, when one is configured: answers are kept there instead of `directory`."""

    @staticmethod
    def key(provider: str, kinds: Iterable[str], query: str, limit: int) -> str:
        raw = json.dumps([provider, sorted(str(kind) for kind in kinds), normalize_query(query), limit])
        return hashlib.sha256(raw.encode()).hexdigest()[:32]

    def get(self, key: str) -> list[SearchResult] | None:
        """The cached results, or None when missing, unreadable or stale."""
        try:
            raw = (self.directory / f"{key}.json").read_bytes() if self.shared is None else self.shared.get(key)
            if raw is None:
                return None
            entry = _Entry.model_validate_json(raw)
        except (OSError, ValidationError, ValueError):
            return None
        if time.time() - entry.stored_at > self.ttl_seconds:
            return None
        return entry.results

    def put(self, key: str, results: list[SearchResult]) -> None:
        payload = _Entry(stored_at=time.time(), results=results).model_dump_json().encode()
        if self.shared is not None:
            self.shared.put(key, payload)
            return
        write_atomically(self.directory / f"{key}.json", payload)
