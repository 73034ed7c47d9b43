"""One structured model call: cache, budget, the call itself, usage accounting, and re-asks.

Each call asks a role's model for a pydantic schema through structured output.
A reply that does not fit is answered with a correction and asked again, a
bounded number of times; then the step fails with `StepFailed`, which the
reasoner turns into the extractive fallback. Usage is recorded per run (the
LangGraph thread) and per role, and reported as a progress event, so tokens
and cost appear in the run's trace and metrics.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from research_assistant.progress import MODEL_NODE, ProgressEvent
from research_assistant.reasoning.llm.cache import ResponseCache
from research_assistant.reasoning.llm.ledger import TokenLedger
from research_assistant.reasoning.llm.models import ModelUnavailable, Role, build_chat_model, model_spec
from research_assistant.reasoning.llm.prompts import Messages, correction
from research_assistant.schemas import TokenUsage
from research_assistant.settings import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

T = TypeVar("T", bound=BaseModel)


class StepFailed(Exception):
    """A model step gave nothing usable; the message says why, in one line."""


def current_run() -> str:
    """The id of the run this call belongs to (its LangGraph thread), or '' outside a run."""
    from langgraph.config import get_config

    try:
        return str(get_config().get("configurable", {}).get("thread_id", ""))
    except RuntimeError:
        return ""


def run_context() -> Any:
    """The current run's `Context` (its per-run models and budget), or None outside a run."""
    from langgraph.runtime import get_runtime

    try:
        return get_runtime().context
    except (RuntimeError, KeyError, AttributeError):
        return None


def report_usage(role: str, usage: TokenUsage, cached: bool) -> None:
    from langgraph.config import get_stream_writer

    message = (
        f"{role}: reply from the cache, 0 tokens"
        if cached
        else f"{role}: {usage.input_tokens:,} tokens in, {usage.output_tokens:,} out, ${usage.cost_usd:.4f}"
    )
    event = ProgressEvent(
        node=f"{MODEL_NODE}{role}",
        message=message,
        counts={
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cost_usd": usage.cost_usd,
            "cached": int(cached),
        },
    )
    with contextlib.suppress(RuntimeError):  # outside a graph run (a test, a script) nothing listens
        get_stream_writer()(event.model_dump(exclude_none=True))


def _short(error: object) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 200 else text[:199] + "…"


class StructuredCaller:
    def __init__(self, settings: Settings, cache: ResponseCache | None) -> None:
        self.settings = settings
        self.cache = cache
        self._models: dict[str, BaseChatModel] = {}
        self._ledgers: dict[str, TokenLedger] = {}

    def ledger(self, run_id: str | None = None) -> TokenLedger:
        """The ledger of a run (the current one by default), made on first use."""
        run_id = current_run() if run_id is None else run_id
        if run_id not in self._ledgers:
            context = run_context()
            tokens = getattr(context, "budget_tokens", None) or self.settings.budget_tokens
            usd = getattr(context, "budget_usd", None) or self.settings.budget_usd
            self._ledgers[run_id] = TokenLedger(self.settings.llm_prices, tokens, usd)
        return self._ledgers[run_id]

    def spec(self, role: Role) -> str:
        """The model a role uses in this run: the run's own choice, else the setting."""
        chosen = (getattr(run_context(), "models", None) or {}).get(role)
        if chosen:
            return chosen if ":" in chosen else f"google_genai:{chosen}"
        return model_spec(self.settings, role)

    def model(self, spec: str) -> BaseChatModel:
        if spec not in self._models:
            self._models[spec] = build_chat_model(spec, self.settings)
        return self._models[spec]

    async def ask(self, role: Role, schema: type[T], messages: Messages) -> T:
        spec = self.spec(role)
        key = ResponseCache.key(spec, schema, messages)
        if self.cache is not None:
            hit = self.cache.get(key, schema)
            if hit is not None:
                report_usage(role, TokenUsage(), cached=True)
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
            except Exception as error:  # the provider's errors are many; each is one line to the analyst
                raise StepFailed(f"the {role} model call failed: {_short(error)}") from error
            raw = reply.get("raw")
            usage = getattr(raw, "usage_metadata", None) or {}
            call = ledger.record(role, spec, int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0)))
            report_usage(role, call, cached=False)
            parsed, problem = reply.get("parsed"), reply.get("parsing_error")
            finish = str(getattr(raw, "response_metadata", {}).get("finish_reason", "") or "STOP")
            if finish.upper() != "STOP":  # a reply cut short can still parse, into something incomplete
                parsed, problem = None, f"the reply ended early ({finish})"
            if isinstance(parsed, schema) and problem is None:
                if self.cache is not None:
                    self.cache.put(key, parsed)
                return parsed
            conversation += [("ai", str(getattr(raw, "content", ""))[:4000]), correction(_short(problem or "empty"))]
        raise StepFailed(f"the {role} model's reply did not fit its format after {attempts} tries")

    def _structured(self, spec: str, schema: type[BaseModel]) -> Any:
        model = self.model(spec)
        if spec.startswith("google_genai:"):
            return model.with_structured_output(schema, method="json_schema", include_raw=True)
        return model.with_structured_output(schema, include_raw=True)
