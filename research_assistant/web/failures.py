"""Remembered failures: a page that could not be read is not fetched again for a while.

A re-run of the same research (another depth, another citation style) would
otherwise fetch every dead or refused page again, retries and robots.txt
included, only to fail the same way. Failures are kept per source in
`<cache_dir>/failures/<source_id>.json` for a shorter time than pages
(`RESEARCH_FAILURE_TTL_HOURS`); `--refresh` tries them again.
"""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import BaseModel

from research_assistant.caches import CacheEntries


class _Failure(BaseModel):
    reason: str
    failed_at: float


class FailureLog:
    def __init__(self, cache_dir: Path, ttl_seconds: float) -> None:
        self.entries = CacheEntries(Path(cache_dir) / "failures", None)  # in files, even for a team
        self.ttl_seconds = ttl_seconds

    def recent(self, source_id: str) -> str | None:
        """The reason a source failed, when it failed within the TTL."""
        failure = self.entries.load(source_id, _Failure)
        return failure.reason if failure and time.time() - failure.failed_at <= self.ttl_seconds else None

    def record(self, source_id: str, reason: str) -> None:
        self.entries.store(source_id, _Failure(reason=reason, failed_at=time.time()).model_dump_json().encode())

    def forget(self, source_id: str) -> None:
        self.entries.forget(source_id)
