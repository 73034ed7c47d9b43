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

from pydantic import BaseModel, ValidationError

from research_assistant.database import shared_cache
from research_assistant.storage import write_atomically

T = TypeVar("T", bound=BaseModel)


class ResponseCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.shared = shared_cache("llm")
        """The team's database, when one is configured: replies are kept there instead of `folder`."""

    @staticmethod
    def key(model: str, schema: type[BaseModel], messages: list[tuple[str, str]]) -> str:
        material = json.dumps([model, schema.__name__, schema.model_json_schema(), messages], sort_keys=True)
        return hashlib.sha256(material.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str, schema: type[T]) -> T | None:
        path = self._path(key)
        try:
            raw = path.read_bytes() if self.shared is None else self.shared.get(key)
            return None if raw is None else schema.model_validate_json(raw)
        except (OSError, ValidationError, ValueError):
            return None

    def put(self, key: str, reply: BaseModel) -> None:
        if self.shared is not None:
            self.shared.put(key, reply.model_dump_json().encode())
            return
        write_atomically(self._path(key), reply.model_dump_json().encode())
