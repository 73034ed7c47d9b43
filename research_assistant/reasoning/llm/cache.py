"""Model replies kept on disk (`cache/llm/`), so that an identical re-run makes no model call at all.

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

from research_assistant.storage import write_atomically

T = TypeVar("T", bound=BaseModel)


class ResponseCache:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @staticmethod
    def key(model: str, schema: type[BaseModel], messages: list[tuple[str, str]]) -> str:
        material = json.dumps([model, schema.__name__, schema.model_json_schema(), messages], sort_keys=True)
        return hashlib.sha256(material.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str, schema: type[T]) -> T | None:
        path = self._path(key)
        try:
            return schema.model_validate_json(path.read_bytes())
        except (OSError, ValidationError, ValueError):
            return None

    def put(self, key: str, reply: BaseModel) -> None:
        write_atomically(self._path(key), reply.model_dump_json().encode())
