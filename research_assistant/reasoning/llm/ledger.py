"""Tokens, cost and calls per role for one run, and the run's budget.

Usage comes from the models' own usage metadata; cost from the price table
setting (USD per million input and output tokens, by model name). Calls are
counted too: those answered from the cache (no tokens) and those that failed
(an error, or a reply that could not be used), so that a run whose usage is 0
tokens can say why. The ledger refuses a call once the run has spent its
budget, and tells research to stop a little earlier, so that the report can
still be written.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

from research_assistant.schemas import TokenUsage

RESEARCH_SHARE = 0.8
"""Research stops once this share of a budget is spent; the rest is kept for writing the report."""


class BudgetExceeded(Exception):
    """The run has spent its token or USD budget; no further model call is made."""


def price_of(model: str, prices: Mapping[str, tuple[float, float]]) -> tuple[float, float]:
    """USD per million (input, output) tokens; the longest table entry the model name starts with, else 0."""
    name = model.split(":", 1)[-1].removeprefix("models/")
    matches = [key for key in prices if name == key or name.startswith(key + "-") or name.startswith(key + "@")]
    return prices[max(matches, key=len)] if matches else (0.0, 0.0)


@dataclass(frozen=True)
class CallCounts:
    """How many replies a role (or a run) asked for: in all, answered from the cache, and failed."""

    calls: int = 0
    cached: int = 0
    failed: int = 0

    def __add__(self, other: CallCounts) -> CallCounts:
        return CallCounts(self.calls + other.calls, self.cached + other.cached, self.failed + other.failed)


class TokenLedger:
    def __init__(
        self,
        prices: Mapping[str, tuple[float, float]],
        budget_tokens: int | None = None,
        budget_usd: float | None = None,
    ) -> None:
        self.prices = prices
        self.budget_tokens = budget_tokens
        self.budget_usd = budget_usd
        self.roles: dict[str, TokenUsage] = {}
        self.calls: dict[str, CallCounts] = {}
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
        self.add(role, call, CallCounts(1, 0, int(failed)))
        return call

    def add(self, role: str, usage: TokenUsage, calls: CallCounts | None = None) -> None:
        """Add usage (and the calls it took) to a role, e.g. what a resumed run had spent before."""
        with self._lock:
            total = self.roles.get(role, TokenUsage())
            self.roles[role] = TokenUsage(
                input_tokens=total.input_tokens + usage.input_tokens,
                output_tokens=total.output_tokens + usage.output_tokens,
                cost_usd=total.cost_usd + usage.cost_usd,
            )
            if calls is not None:
                self.calls[role] = self.calls.get(role, CallCounts()) + calls

    def count(self, role: str, *, cached: bool = False, failed: bool = False) -> None:
        """Count one call of a role: answered from the cache, failed, or neither (its usage is `record`ed)."""
        with self._lock:
            self.calls[role] = self.calls.get(role, CallCounts()) + CallCounts(1, int(cached), int(failed))

    @property
    def call_counts(self) -> CallCounts:
        """The run's calls, all roles together."""
        return sum(self.calls.values(), CallCounts())

    @property
    def tokens(self) -> int:
        return sum(u.input_tokens + u.output_tokens for u in self.roles.values())

    @property
    def cost_usd(self) -> float:
        return sum(u.cost_usd for u in self.roles.values())

    def spent(self, share: float = 1.0) -> str | None:
        """Which cap `share` of has been reached ('12,000 tokens', '$0.50'), or None."""
        if self.budget_tokens is not None and self.tokens >= share * self.budget_tokens:
            return f"{self.budget_tokens:,} tokens"
        if self.budget_usd is not None and self.cost_usd >= share * self.budget_usd:
            return f"${self.budget_usd:.2f}"
        return None

    def check(self) -> None:
        cap = self.spent()
        if cap is not None:
            raise BudgetExceeded(f"the run's budget of {cap} is spent")
