"""A scripted chat model for node and reasoner tests: it answers each structured-output request from a script.

It stands in for a LangChain chat model exactly where the LLM reasoner uses
one: `with_structured_output(schema, include_raw=True)` returning a runnable
whose reply is `{"raw": AIMessage, "parsed": ..., "parsing_error": ...}`, the
raw message carrying `usage_metadata` as real models do.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel, ValidationError

Reply = BaseModel | dict[str, Any] | str | Exception
Script = Callable[[type[BaseModel], str], Reply]
"""(schema asked for, the whole prompt as text) -> a reply: data for the schema, raw text, or an error to raise."""


def prompt_text(messages: list[Any]) -> str:
    parts = []
    for message in messages:
        content = message[1] if isinstance(message, tuple) else getattr(message, "content", message)
        parts.append(str(content))
    return "\n".join(parts)


@dataclass
class ScriptedChatModel:
    script: Script
    calls: list[tuple[str, str]] = field(default_factory=list)
    """(schema name, prompt text) of every call made."""

    def with_structured_output(self, schema: type[BaseModel], **_: Any) -> RunnableLambda[Any, dict[str, Any]]:
        async def answer(messages: list[Any]) -> dict[str, Any]:
            text = prompt_text(messages)
            self.calls.append((schema.__name__, text))
            reply = self.script(schema, text)
            if isinstance(reply, Exception):
                raise reply
            body = reply if isinstance(reply, str) else json.dumps(_plain(reply))
            raw = AIMessage(
                content=body,
                usage_metadata={
                    "input_tokens": len(text.split()),
                    "output_tokens": len(body.split()),
                    "total_tokens": len(text.split()) + len(body.split()),
                },
            )
            try:
                return {"raw": raw, "parsed": schema.model_validate_json(body), "parsing_error": None}
            except ValidationError as error:
                return {"raw": raw, "parsed": None, "parsing_error": error}

        return RunnableLambda(answer)


def _plain(reply: BaseModel | dict[str, Any]) -> Any:
    return reply.model_dump(mode="json") if isinstance(reply, BaseModel) else reply
