"""Tokens, cost and calls per role for one run, and the run's budget.

Usage comes from the models' own usage metadata; cost from the price table
setting (USD per million input and output tokens, by model name). Calls are
counted too: those answered from the cache (no tokens) and those that failed
(an error, or a reply that could not be used), so that a run whose usage is 0
tokens can say why. The ledger refuses a call once the run has spent its
budget, and tells research to stop a little earlier, so that the report can
still be written. What a step's calls spend is also counted in that step's
`spent` scope (a context variable, so steps that run at once each count only
their own calls), which the step hands to the run's state.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping
from contextvars import ContextVar

from research_assistant.schemas import ModelUsage, RoleUsage, TokenUsage

RESEARCH_SHARE = 0.8
"""Research stops once this share of a budget is spent; the rest is kept for writing the report."""


class BudgetExceeded(Exception):
    """The run has spent its token or USD budget; no further model call is made."""


def price_of(model: str, prices: Mapping[str, tuple[float, float]]) -> tuple[float, float]:
    """USD per million (input, output) tokens; the longest table entry the model name starts with, else 0."""
    name = model.split(":", 1)[-1].removeprefix("models/")
    matches = [key for key in prices if name == key or name.startswith(key + "-") or name.startswith(key + "@")]
    return prices[max(matches, key=len)] if matches else (0.0, 0.0)


class Spending:
    """What the model calls of one step spent, added to as they are made."""

    def __init__(self, ledger: TokenLedger) -> None:
        self.ledger = ledger
        self.usage = ModelUsage()


_STEP: ContextVar[Spending | None] = ContextVar("model_step", default=None)
"""The spending of the step whose calls are being made, in this task and the tasks it starts."""


class TokenLedger:
    """One run's model usage and budget: what was spent before this process opened the run (`spent`, from the
    run's checkpointed state) and what its calls add. A step's calls are counted in its `step` scope too, which
    the step puts in the run's state; `take` hands over the rest: calls made outside a step, or by a step cut
    short."""

    def __init__(
        self,
        prices: Mapping[str, tuple[float, float]],
        budget_tokens: int | None = None,
        budget_usd: float | None = None,
        spent: ModelUsage | None = None,
    ) -> None:
        self.prices = prices
        self.budget_tokens = budget_tokens
        self.budget_usd = budget_usd
        self._total = spent or ModelUsage()
        self._unclaimed = ModelUsage()
        self._lock = threading.Lock()

    def record(
        self, role: str, model: str, input_tokens: int, output_tokens: int, *, failed: bool = False
    ) -> TokenUsage:
        """Add one call's usage (`failed`: its reply could not be used); returns that call's usage with its cost."""
        per_input, per_output = price_of(model, self.prices)
        call = TokenUsage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            cost_usd=(input_tokens * per_input + output_tokens * per_output) / 1_000_000,
        )
        self._add(role, RoleUsage(**call.model_dump(), calls=1, failed=int(failed)))
        return call

    def count(self, role: str, *, cached: bool = False, failed: bool = False) -> None:
        """Count one call of a role: answered from the cache, failed, or neither (its usage is `record`ed)."""
        self._add(role, RoleUsage(calls=1, cached=int(cached), failed=int(failed)))

    def _add(self, role: str, usage: RoleUsage) -> None:
        step = ModelUsage(roles={role: usage})
        spending = _STEP.get()
        with self._lock:
            self._total += step
            if spending is not None and spending.ledger is self:
                spending.usage += step
            else:
                self._unclaimed += step

    @contextlib.contextmanager
    def step(self) -> Iterator[Spending]:
        """The scope of one step: the calls made in it (in this task, and tasks it starts) are counted in the
        spending it yields. A step cut short (cancelled, or failed) leaves what it spent to `take`."""
        spending = Spending(self)
        token = _STEP.set(spending)
        try:
            yield spending
        except BaseException:
            with self._lock:
                self._unclaimed += spending.usage
            raise
        finally:
            _STEP.reset(token)

    def take(self) -> ModelUsage:
        """The usage (added by this process) no step has handed over since the last `take`, and forget it."""
        with self._lock:
            taken, self._unclaimed = self._unclaimed, ModelUsage()
        return taken

    @property
    def usage(self) -> ModelUsage:
        """The run's usage so far, what it spent before it was resumed included."""
        return self._total

    def spent(self, share: float = 1.0) -> str | None:
        """Which cap `share` of has been reached ('12,000 tokens', '$0.50'), or None."""
        if self.budget_tokens is not None and self._total.tokens >= share * self.budget_tokens:
            return f"{self.budget_tokens:,} tokens"
        if self.budget_usd is not None and self._total.cost_usd >= share * self.budget_usd:
            return f"${self.budget_usd:.2f}"
        return None

    def check(self) -> None:
        cap = self.spent()
        if cap is not None:
            raise BudgetExceeded(f"the run's budget of {cap} is spent")
