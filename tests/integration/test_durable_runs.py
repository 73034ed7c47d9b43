"""Runs through the runner: recorded, traced, measured, cancellable, bounded in time, resumable."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from support.fakes import TRAM_DOCUMENTS, FakeReader, FakeReasoner, fake_context, fake_services

from research_assistant.context import Context
from research_assistant.runner import RunNotResumable, resume_research, run_research
from research_assistant.runs.checkpoints import safe_serializer
from research_assistant.runs.records import EventKind, RunStatus, TraceEvent
from research_assistant.runs.store import RunStore
from research_assistant.schemas import SourceRecord, SourceStatus, SourceType
from research_assistant.services import Services

TOP_LEVEL_NODES = [
    "analyze_query",
    "plan_strategy",
    "review_plan",
    "search",
    "browse",
    "extract",
    "evaluate_progress",
    "synthesize",
]


class SlowReader(FakeReader):
    """Reads the depot slowly; remembers reads that were cancelled."""

    def __init__(self, reader: FakeReader, delay: float) -> None:
        super().__init__(reader.documents)
        self.delay = delay
        self.cancelled: list[str] = []

    async def read(self, source: SourceRecord, *, run_id: str = "", refresh: bool = False) -> Any:
        if "depot" in source.locator:
            try:
                await asyncio.sleep(self.delay)
            except asyncio.CancelledError:
                self.cancelled.append(source.locator)
                raise
        return await super().read(source, run_id=run_id, refresh=refresh)


@dataclass
class SlowToEvaluate(FakeReasoner):
    evaluating: asyncio.Event = field(default_factory=asyncio.Event)

    async def evaluate(self, *args: Any) -> Any:
        self.evaluating.set()
        await asyncio.sleep(30)
        return await super().evaluate(*args)


def services_with_slow_depot(delay: float, reasoner: FakeReasoner | None = None) -> tuple[Services, SlowReader]:
    services = fake_services(reasoner or FakeReasoner(sub_questions=["tram fare depot network"], confidence=95))
    local = services.readers[SourceType.LOCAL]
    assert isinstance(local, FakeReader)
    reader = SlowReader(local, delay)
    services.readers[SourceType.LOCAL] = reader
    return services, reader


def context(tmp_path: Path, services: Services, **overrides: Any) -> Context:
    return fake_context(services, db_dir=tmp_path / "db", **overrides)


async def test_a_run_is_recorded_with_its_trace_and_metrics(tmp_path: Path) -> None:
    events: list[TraceEvent] = []
    ctx = context(tmp_path, fake_services(FakeReasoner(sub_questions=["tram fare depot network"], confidence=95)))
    result = await run_research("What is the tram fare?", ctx, events.append, run_id="run-1")

    store = RunStore.at(tmp_path / "db")
    record = store.get("run-1")
    assert record is not None and record.status is RunStatus.COMPLETED and record.finished_at
    assert record.report_markdown == result["report_markdown"] and record.question == "What is the tram fare?"
    assert record.parameters.depth == ctx.depth and record.parameters.source_types == ["local"]

    trace = list(store.events("run-1"))
    assert trace == events  # the callback and the store see one stream
    for node in TOP_LEVEL_NODES:
        kinds = [e.kind for e in trace if e.node == node and e.kind in (EventKind.NODE_START, EventKind.NODE_END)]
        assert kinds == [EventKind.NODE_START, EventKind.NODE_END], node
    assert {e.node for e in trace} >= {"browse/read_source", "search/run_query"}
    traced_sources = {e.source.source_id: e.source.outcome for e in trace if e.source}
    assert traced_sources == {source_id: "read" for source_id in result["sources"]}
    browse_end = next(e for e in trace if e.node == "browse" and e.kind is EventKind.NODE_END)
    assert browse_end.counts["read"] == 3 and browse_end.seconds is not None

    metrics = record.metrics
    assert metrics.sources_read == 3 and metrics.pages_failed == 0
    assert metrics.evidence == len(result["evidence"]) and metrics.queries >= 1
    assert metrics.confidence == [95.0]
    assert set(metrics.node_seconds) == set(TOP_LEVEL_NODES) and metrics.elapsed_seconds > 0


async def test_a_failed_source_is_traced_with_its_reason(tmp_path: Path) -> None:
    services = fake_services(FakeReasoner(sub_questions=["tram fare depot network"]), broken={"/corpus/depot.md"})
    await run_research("tram depot", context(tmp_path, services), run_id="run-f")
    store = RunStore.at(tmp_path / "db")
    failed = [e.source for e in store.events("run-f") if e.source and e.source.outcome == "failed"]
    assert [(s.locator, s.reason) for s in failed] == [("/corpus/depot.md", "the file is unreadable")]
    assert store.get("run-f").metrics.pages_failed == 1  # type: ignore[union-attr]


async def test_cancelling_ends_the_run_within_a_second_and_keeps_what_was_gathered(tmp_path: Path) -> None:
    services, reader = services_with_slow_depot(60)
    started = asyncio.Event()

    def on_event(event: TraceEvent) -> None:
        if event.node == "browse/read_source" and event.kind is EventKind.NODE_START:
            started.set()

    task = asyncio.create_task(run_research("tram fare depot", context(tmp_path, services), on_event, run_id="c"))
    await asyncio.wait_for(started.wait(), 10)
    await asyncio.sleep(0.2)
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - cancelled_at < 1.0
    assert reader.cancelled == ["/corpus/depot.md"]  # the read in flight was cancelled, not abandoned
    assert asyncio.all_tasks() == {asyncio.current_task()}  # nothing left running

    record = RunStore.at(tmp_path / "db").get("c")
    assert record is not None and record.status is RunStatus.CANCELLED and record.pid is None
    assert record.metrics.queries >= 1  # the searches that finished are kept

    # What was gathered can still become a report.
    services.readers[SourceType.LOCAL] = FakeReader(reader.documents)
    result = await resume_research(record, context(tmp_path, services), finish=True)
    assert result["stop_reason"] == "stopped on request"
    assert RunStore.at(tmp_path / "db").get("c").status is RunStatus.COMPLETED  # type: ignore[union-attr]


async def test_finishing_a_cancelled_run_reports_the_evidence_it_had(tmp_path: Path) -> None:
    reasoner = SlowToEvaluate(sub_questions=["tram fare depot network"])
    ctx = context(tmp_path, fake_services(reasoner))
    task = asyncio.create_task(run_research("tram fare", ctx, run_id="e"))
    await asyncio.wait_for(reasoner.evaluating.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    record = RunStore.at(tmp_path / "db").find("e")
    result = await resume_research(record, ctx, finish=True)
    assert result["evidence"] and "A single tram fare costs 2.40 euros" in result["report_markdown"]
    assert reasoner.calls.count("extract") == 1  # finishing repeats no step


async def test_a_run_that_reaches_its_deadline_still_ends_with_a_report(tmp_path: Path) -> None:
    reasoner = SlowToEvaluate(sub_questions=["tram fare depot network"])
    began = time.monotonic()
    result = await run_research("tram fare", context(tmp_path, fake_services(reasoner), max_seconds=1.0), run_id="d")
    assert time.monotonic() - began < 5
    assert result["stop_reason"].startswith("time limit reached (1 s)")
    assert result["evidence"]  # gathered before the deadline, and reported
    assert "Research stopped early: time limit reached (1 s)." in result["report_markdown"]
    assert "A single tram fare costs 2.40 euros" in result["report_markdown"]
    assert RunStore.at(tmp_path / "db").get("d").status is RunStatus.COMPLETED  # type: ignore[union-attr]


async def test_a_deadline_before_planning_ends_still_gives_a_report(tmp_path: Path) -> None:
    class SlowToPlan(FakeReasoner):
        async def plan(self, *args: Any) -> Any:
            await asyncio.sleep(30)
            return await super().plan(*args)

    ctx = context(tmp_path, fake_services(SlowToPlan()), max_seconds=0.5)
    result = await run_research("tram fare", ctx, run_id="p")
    assert result["report_markdown"].startswith("# ") and "time limit reached" in result["stop_reason"]


async def test_a_completed_run_cannot_be_resumed(tmp_path: Path) -> None:
    ctx = context(tmp_path, fake_services())
    await run_research("What is the tram fare?", ctx, run_id="done")
    record = RunStore.at(tmp_path / "db").find("do")
    with pytest.raises(RunNotResumable, match="has completed"):
        await resume_research(record, ctx)


async def test_a_failing_step_marks_the_run_failed_and_resume_retries_it(tmp_path: Path) -> None:
    class Flaky(FakeReasoner):
        fail = True

        async def evaluate(self, *args: Any) -> Any:
            if self.fail:
                raise RuntimeError("model unavailable")
            return await super().evaluate(*args)

    reasoner = Flaky()
    ctx = context(tmp_path, fake_services(reasoner))
    with pytest.raises(RuntimeError):
        await run_research("What is the tram fare?", ctx, run_id="flaky")
    record = RunStore.at(tmp_path / "db").find("flaky")
    assert record.status is RunStatus.FAILED and "model unavailable" in record.error
    reasoner.fail = False
    result = await resume_research(record, ctx)
    assert result["report_markdown"] and reasoner.calls.count("analyze") == 1


def test_checkpoints_never_unpickle_or_import_unknown_classes() -> None:
    class Intruder(BaseModel):
        command: str = "rm -rf /"

    serializer = safe_serializer()
    assert not isinstance(serializer.loads_typed(serializer.dumps_typed(Intruder())), Intruder)
    with pytest.raises(NotImplementedError):
        serializer.loads_typed(("pickle", b"cos\nsystem\n(S'echo owned'\ntR."))
    source = SourceRecord(id="s", locator="/a.md", title="A", provider="p", source_type=SourceType.LOCAL)
    assert serializer.loads_typed(serializer.dumps_typed(source)) == source  # our own records do round-trip
    assert serializer.loads_typed(serializer.dumps_typed(SourceStatus.READ)) is SourceStatus.READ


def test_tram_documents_are_what_the_runs_read() -> None:
    assert {d.locator for d in TRAM_DOCUMENTS} == {"/corpus/fares.md", "/corpus/history.md", "/corpus/depot.md"}


async def test_a_run_can_pause_for_plan_review_and_go_on_with_the_edited_plan(tmp_path: Path) -> None:
    from research_assistant.runner import pending_plan

    reasoner = FakeReasoner(confidence=95, sub_questions=["tram network history", "tram depot"])
    ctx = context(tmp_path, fake_services(reasoner), review_plan=True)
    result = await run_research("What is the tram fare?", ctx, run_id="rv")
    assert "report_markdown" not in result and reasoner.calls == ["analyze", "plan"]
    store = RunStore.at(tmp_path / "db")
    record = store.find("rv")
    assert record.status is RunStatus.INTERRUPTED and record.waiting == "plan review"

    plan = await pending_plan(tmp_path / "db", "rv")
    assert plan is not None and [s.text for s in plan.sub_questions] == ["tram network history", "tram depot"]
    first = plan.sub_questions[0].model_copy(update={"text": "What does a fare cost?", "queries": ["tram fare"]})
    result = await resume_research(record, ctx, plan=plan.model_copy(update={"sub_questions": [first]}))

    assert "### What does a fare cost?" in result["report_markdown"] and "tram depot" not in result["report_markdown"]
    assert reasoner.calls.count("plan") == 1  # the plan was not made again
    assert store.find("rv").status is RunStatus.COMPLETED and await pending_plan(tmp_path / "db", "rv") is None


async def test_resuming_a_paused_run_without_an_edit_approves_the_plan(tmp_path: Path) -> None:
    reasoner = FakeReasoner(confidence=95, sub_questions=["tram fare"])
    ctx = context(tmp_path, fake_services(reasoner), review_plan=True)
    await run_research("What is the tram fare?", ctx, run_id="ok")
    result = await resume_research(RunStore.at(tmp_path / "db").find("ok"), ctx)
    assert "### tram fare" in result["report_markdown"]
    events = [e.message for e in RunStore.at(tmp_path / "db").events("ok") if e.node == "review_plan"]
    assert "waiting for the plan to be reviewed" in events and "plan approved as proposed" in events
