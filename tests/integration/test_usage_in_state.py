"""Model usage is part of a run's checkpointed state: the report's line, `show` and a resumed run's budget
all count what the state holds."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, TypeVar

from support.fakes import FakeReasoner, fake_context, fake_services

from research_assistant.reasoning.base import Step
from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
from research_assistant.reasoning.llm.caller import StructuredCaller
from research_assistant.reasoning.llm.reasoner import LLMReasoner
from research_assistant.runner import resume_research, run_research, saved_state
from research_assistant.runs.store import RunStore
from research_assistant.schemas import (
    Evidence,
    ModelUsage,
    ProgressAssessment,
    QueryAnalysis,
    ResearchPlan,
    ResearchReport,
    RoleUsage,
)
from research_assistant.settings import Settings
from research_assistant.state import total_usage

T = TypeVar("T")
ONE_CALL = ModelUsage(roles={"analysis": RoleUsage(input_tokens=100, output_tokens=20, cost_usd=0.001, calls=1)})


def spending(step: Step[T]) -> Step[T]:
    """The step, as if it made one model call and had one answered from the cache."""
    return dataclasses.replace(step, usage=ONE_CALL + ModelUsage(roles={"analysis": RoleUsage(calls=1, cached=1)}))


class Spending(FakeReasoner):
    """A fake each of whose steps made one model call, and had one answered from the cache."""

    async def analyze(self, *args: Any, **kwargs: Any) -> Step[QueryAnalysis]:
        return spending(await super().analyze(*args, **kwargs))

    async def plan(self, *args: Any, **kwargs: Any) -> Step[ResearchPlan]:
        return spending(await super().plan(*args, **kwargs))

    async def extract(self, *args: Any, **kwargs: Any) -> Step[list[Evidence]]:
        return spending(await super().extract(*args, **kwargs))

    async def evaluate(self, *args: Any, **kwargs: Any) -> Step[ProgressAssessment]:
        return spending(await super().evaluate(*args, **kwargs))

    async def synthesize(self, *args: Any, **kwargs: Any) -> Step[ResearchReport]:
        return spending(await super().synthesize(*args, **kwargs))


async def test_each_step_adds_its_usage_to_the_state_and_the_report_says_what_show_says(tmp_path: Path) -> None:
    context = fake_context(fake_services(Spending()), db_dir=tmp_path, review_plan=True)
    await run_research("What is the tram fare?", context, run_id="r1")  # pauses for the plan's review
    paused = total_usage((await saved_state(tmp_path, "r1"))["model_usage"])
    assert paused.calls == 4 and paused.cached == 2 and paused.tokens == 240  # analysis and planning

    record = RunStore.at(tmp_path).get("r1")
    assert record is not None
    result = await resume_research(record, context)
    spent = total_usage((await saved_state(tmp_path, "r1"))["model_usage"])
    steps = 5  # analyse, plan, extract, evaluate, synthesize
    assert spent.calls == 2 * steps and spent.tokens == 120 * steps
    assert f"Model usage: {spent.tokens:,} tokens" in result["report_markdown"]
    assert f"({spent.calls} calls, {spent.cached} answered from the cache)" in result["report_markdown"]
    finished = RunStore.at(tmp_path).get("r1")
    assert finished is not None and finished.metrics.usage == spent


def test_a_resumed_runs_budget_counts_what_its_state_says_it_spent(tmp_path: Path) -> None:
    settings = Settings.model_construct(**{**Settings().model_dump(), "budget_tokens": None})
    caller = StructuredCaller(settings, None, budget_tokens=100, spent=ONE_CALL)
    reasoner = LLMReasoner(caller, ExtractiveReasoner(), 75.0)
    assert reasoner.budget_reached() == "100 tokens"
    assert caller.ledger().take() == ModelUsage(), "only what this process adds is handed to the state"
