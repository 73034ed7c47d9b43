"""Model replies kept on disk (`cache/llm/`; for a team, in the PostgreSQL database's `research_cache`), so
that an identical re-run makes no model call at all.

The key is everything that decides a reply: the model, the output schema and
the messages. What is kept is the validated reply, never a raw one, and a hit
costs nothing: the ledger records no tokens for it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from research_assistant.caches import CacheEntries

T = TypeVar("T", bound=BaseModel)


class ResponseCache:
    def __init__(self, folder: Path) -> None:
        self.entries = CacheEntries(folder, "llm", fan_out=True)

    @staticmethod
    def key(model: str, schema: type[BaseModel], messages: list[tuple[str, str]]) -> str:
        material = json.dumps([model, schema.__name__, schema.model_json_schema(), messages], sort_keys=True)
        return hashlib.sha256(material.encode()).hexdigest()

    def get(self, key: str, schema: type[T]) -> T | None:
        return self.entries.load(key, schema)

    def put(self, key: str, reply: BaseModel) -> None:
        self.entries.store(key, reply.model_dump_json().encode())
