"""One structured model call: cache, budget, the call itself, usage accounting, and re-asks.

Each call asks a role's model for a pydantic schema through structured output.
A reply that does not fit is answered with a correction and asked again, a
bounded number of times; then the step fails with `StepFailed`, which the
reasoner turns into the extractive fallback. A caller serves one run: usage is
recorded in its ledger per role, and reported as a progress event, so tokens
and cost appear in the run's trace; each step hands its usage to the run's
state. Every call is counted there:
those answered from the cache and those that failed as well. A call may be
accounted under its own label (the judge model's checking of statements is
`verification`, apart from its scoring of the report).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from research_assistant.progress import MODEL_NODE, ProgressEvent
from research_assistant.reasoning.llm.cache import ResponseCache
from research_assistant.reasoning.llm.ledger import TokenLedger
from research_assistant.reasoning.llm.models import ModelUnavailable, Role, build_chat_model, model_spec
from research_assistant.reasoning.llm.prompts import Messages, correction
from research_assistant.schemas import ModelUsage, TokenUsage
from research_assistant.settings import Settings, model_choice
from research_assistant.text.spaces import clip, error_line

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

T = TypeVar("T", bound=BaseModel)


class StepFailed(Exception):
    """A model step gave nothing usable; the message says why, in one line."""


def report_usage(role: str, usage: TokenUsage, cached: bool = False, failed: bool = False) -> None:
    """One call as a progress event (`llm/ROLE`): the trace, and so the run's metrics, count it."""
    from langgraph.config import get_stream_writer

    if cached:
        message = f"{role}: reply from the cache, 0 tokens"
    elif failed and not usage.input_tokens:
        message = f"{role}: the call failed, 0 tokens"
    else:
        message = f"{role}: {usage.input_tokens:,} tokens in, {usage.output_tokens:,} out, ${usage.cost_usd:.4f}"
        message += " (reply unusable)" if failed else ""
    event = ProgressEvent(
        node=f"{MODEL_NODE}{role}",
        message=message,
        counts={
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cost_usd": usage.cost_usd,
            "cached": int(cached),
            "failed": int(failed),
        },
    )
    with contextlib.suppress(RuntimeError):  # outside a graph run (a test, a script) nothing listens
        get_stream_writer()(event.model_dump(exclude_none=True))


_STATUS_REASONS = {
    400: "the request was refused",
    401: "the key was refused",
    403: "the key was refused",
    404: "the model was not found",
    408: "the service timed out",
    429: "the rate limit or quota was reached",
    500: "the service had an internal error",
    502: "the service was unavailable",
    503: "the model was overloaded or unavailable",
    504: "the service timed out",
}
_STATUS_IN_TEXT = re.compile(
    r"""['"]code['"]\s*:\s*(\d{3})\b|\b(\d{3})\s+(?:[A-Z][A-Z_]{3,}|Gateway|Service|Internal|Too)\b|\bHTTP\s*(\d{3})\b"""
)
_PAYLOAD = re.compile(r"[{\[].*", re.DOTALL)


def _status_code(error: BaseException) -> int | None:
    seen: BaseException | None = error
    for _ in range(5):  # the error, then what it was raised from
        if seen is None:
            break
        for name in ("code", "status_code"):
            value = getattr(seen, name, None)
            if isinstance(value, int) and 400 <= value <= 599:
                return value
        match = _STATUS_IN_TEXT.search(str(seen))
        if match:
            return int(next(group for group in match.groups() if group))
        seen = seen.__cause__ or seen.__context__
    return None


def call_failure(error: BaseException) -> str:
    """Why a model call failed, in a few plain words: never the provider's raw payload."""
    code = _status_code(error)
    if code is not None:
        return f"the model call failed: {_STATUS_REASONS.get(code, 'the service answered with an error')} ({code})"
    chain = [e for e in (error, error.__cause__, error.__context__) if e is not None]
    names = " ".join(type(e).__name__ for e in chain)
    detail = " ".join(_PAYLOAD.sub("", str(error)).split()).rstrip(" :;,-")
    if len(detail) > 100 or "<" in detail:  # an object's repr, a stack of wrapped messages: not for a reader
        detail = ""
    if any(isinstance(e, TimeoutError) for e in chain) or "Timeout" in names:
        return "the model call timed out"
    if any(isinstance(e, ConnectionRefusedError) for e in chain):
        return "the model could not be reached (connection refused)"
    if any(isinstance(e, ConnectionError) for e in chain) or "Connect" in names:
        return "the model could not be reached" + (f" ({detail})" if detail else "")
    return "the model call failed" + (f": {detail}" if detail else f" ({type(error).__name__})")


class StructuredCaller:
    """One run's model calls: its models per role, its budget and its ledger (seeded with what it spent before)."""

    def __init__(
        self,
        settings: Settings,
        cache: ResponseCache | None,
        *,
        models: Mapping[str, str] | None = None,
        budget_tokens: int | None = None,
        budget_usd: float | None = None,
        spent: ModelUsage | None = None,
    ) -> None:
        self.settings = settings
        self.cache = cache
        self.models = {role: model_choice(model) for role, model in (models or {}).items()}
        """The run's own model per role (`provider:model`; a bare name is Gemini's), over the settings."""
        self._models: dict[str, BaseChatModel] = {}
        self._ledger = TokenLedger(
            settings.llm_prices, budget_tokens or settings.budget_tokens, budget_usd or settings.budget_usd, spent
        )

    def ledger(self) -> TokenLedger:
        """The run's ledger: its usage and budget."""
        return self._ledger

    def spec(self, role: Role) -> str:
        """The model a role uses in this run: the run's own choice, else the setting."""
        return self.models.get(role) or model_spec(self.settings, role)

    def model(self, spec: str) -> BaseChatModel:
        if spec not in self._models:
            self._models[spec] = build_chat_model(spec, self.settings)
        return self._models[spec]

    async def ask(self, role: Role, schema: type[T], messages: Messages, *, label: str | None = None) -> T:
        """The role's model's reply as `schema`; usage, cost and the call counted under `label` (the role)."""
        label = label or role
        spec = self.spec(role)
        key = ResponseCache.key(spec, schema, messages)
        if self.cache is not None:
            hit = self.cache.get(key, schema)
            if hit is not None:
                self.ledger().count(label, cached=True)
                report_usage(label, TokenUsage(), cached=True)
                return hit
        ledger = self.ledger()
        ledger.check()
        try:
            structured = self._structured(spec, schema)
        except ModelUnavailable as error:
            raise StepFailed(str(error)) from None
        conversation: list[Any] = list(messages)
        attempts = self.settings.llm_parse_retries + 1
        for _ in range(attempts):
            try:
                reply = await structured.ainvoke(conversation)
            except Exception as error:  # the provider's errors are many; each is a few words to the analyst
                ledger.count(label, failed=True)
                report_usage(label, TokenUsage(), failed=True)
                raise StepFailed(call_failure(error)) from error
            raw = reply.get("raw")
            parsed, problem = reply.get("parsed"), reply.get("parsing_error")
            finish = str(getattr(raw, "response_metadata", {}).get("finish_reason", "") or "STOP")
            if finish.upper() != "STOP":  # a reply cut short can still parse, into something incomplete
                parsed, problem = None, f"the reply ended early ({finish})"
            usable = isinstance(parsed, schema) and problem is None
            usage = getattr(raw, "usage_metadata", None) or {}
            call = ledger.record(
                label, spec, int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0)), failed=not usable
            )
            report_usage(label, call, failed=not usable)
            if usable and isinstance(parsed, schema):
                if self.cache is not None:
                    self.cache.put(key, parsed)
                return parsed
            said = str(getattr(raw, "content", ""))[:4000]
            conversation += [("ai", said), correction(clip(error_line(problem or "empty"), 200))]
        raise StepFailed(f"the model's reply did not fit its format after {attempts} tries")

    def _structured(self, spec: str, schema: type[BaseModel]) -> Any:
        model = self.model(spec)
        if spec.startswith("google_genai:"):
            return model.with_structured_output(schema, method="json_schema", include_raw=True)
        return model.with_structured_output(schema, include_raw=True)
