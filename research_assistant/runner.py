"""Drives the compiled graph for the interfaces: one durable, traced run at a time.

The CLI and the Streamlit page both run research through here. Every run gets
an id, a record in the run store, its services (opened here from its context,
once per run, and handed to the graph on that context), a SQLite checkpoint
after every step, and a trace that is also the progress the interface shows.
A run can be resumed from its last completed step; the steps that finished,
and the fetches and model calls they made, are not repeated, and what its
models spent (in its state) still counts against its budget.

Stopping early: when the run's time limit passes, the step in flight is
cancelled and the run goes straight to synthesis with what it has gathered.
When the caller cancels (Ctrl-C, the page's Stop), the step in flight is
cancelled, the run is recorded as cancelled, and everything gathered stays in
its checkpoint: `resume` carries on, or `resume --finish` writes the report.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from research_assistant.context import Context
from research_assistant.runs.records import RESUMABLE, EventKind, RunRecord, RunStatus
from research_assistant.runs.store import RunStore
from research_assistant.runs.trace import EventCallback, TraceRecorder
from research_assistant.schemas import ModelUsage, Notice, ResearchPlan
from research_assistant.services import Services
from research_assistant.state import OutputState, total_usage

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph.state import CompiledStateGraph
    from langgraph.types import Command, StreamMode

STREAM_MODES: list[StreamMode] = ["tasks", "custom"]
PLAN_REVIEW = "plan review"
OUTPUT_KEYS = tuple(OutputState.model_fields)


class DeadlinePassed(Exception):
    """The run's time limit passed before synthesis began."""


class RunNotResumable(Exception):
    """The run cannot be resumed (it completed, or it is still running); the message says why."""


def new_run_id() -> str:
    return uuid.uuid4().hex[:12]


async def run_research(
    question: str, context: Context, on_event: EventCallback | None = None, *, run_id: str | None = None
) -> dict[str, Any]:
    """Research `question` as a new run; return its output (report, sources, evidence, notices, stop reason, id).

    A configuration mistake (no source left to search, say) raises `ConfigurationError` before any run is recorded.
    """
    context = _opened(context)
    now = time.time()
    record = RunRecord(
        run_id=run_id or new_run_id(),
        question=question,
        parameters=context,
        status=RunStatus.RUNNING,
        started_at=now,
        updated_at=now,
        pid=os.getpid(),
    )
    return await _drive(record, context, on_event, {"question": question, "run_id": record.run_id})


async def resume_research(
    record: RunRecord,
    context: Context,
    on_event: EventCallback | None = None,
    *,
    finish: bool = False,
    plan: ResearchPlan | None = None,
) -> dict[str, Any]:
    """Continue `record`'s run from its last completed step; with `finish`, write the report from what it has.

    A run waiting for its plan to be reviewed goes on with `plan` (the analyst's edit), or with the plan it
    proposed when `plan` is None.
    """
    if record.status is RunStatus.COMPLETED:
        raise RunNotResumable(
            f"run {record.run_id} has completed; `research-assistant show {record.run_id}` prints its report"
        )
    if record.status not in RESUMABLE:
        raise RunNotResumable(f"run {record.run_id} is still running (process {record.pid})")
    spent = total_usage((await saved_state(context.db_dir, record.run_id)).get("model_usage", {}))
    context = _opened(context, spent)
    if isinstance(context.services, Services):  # a store that cannot open is named before the run goes on,
        await context.services.opened()  # even when the steps it has left would not need it
    record = record.model_copy(update={"status": RunStatus.RUNNING, "pid": os.getpid(), "error": "", "waiting": ""})
    review = {"plan": plan.model_dump(mode="json")} if plan is not None else {"approved": True}
    return await _drive(record, context, on_event, None, finish=finish, review=review)


async def _drive(
    record: RunRecord,
    context: Context,
    on_event: EventCallback | None,
    graph_input: dict[str, Any] | Command[Any] | None,
    *,
    finish: bool = False,
    review: dict[str, Any] | None = None,
) -> dict[str, Any]:
    from research_assistant.graph import build_graph
    from research_assistant.runs.checkpoints import open_checkpointer

    store = RunStore.at(context.db_dir)
    store.save(record)
    trace = TraceRecorder(record.run_id, store, on_event)
    context = dataclasses.replace(context, deadline=time.time() + context.max_seconds)
    config: RunnableConfig = {"configurable": {"thread_id": record.run_id}}
    trace.record(EventKind.RUN_START, message="resumed" if graph_input is None else "started")
    first_input = {"question": record.question, "run_id": record.run_id}
    values: dict[str, Any] = {}
    status, error, waiting = RunStatus.FAILED, "", ""
    try:
        async with open_checkpointer(context.db_dir) as saver:
            graph = build_graph(saver)
            if graph_input is None:
                snapshot = await graph.aget_state(config)
                if snapshot.interrupts:
                    from langgraph.types import Command  # after the graph's module, which sets up LangGraph's imports

                    graph_input = Command(resume=review)  # the run was waiting for its plan to be reviewed
                elif not _started(snapshot.values) and not finish:
                    graph_input = first_input  # stopped before its first checkpoint: start again from its question
            if isinstance(context.services, Services):
                context.services.warm_up()  # the repository opens while the first steps, which need none of it, run
            try:
                if finish:
                    await _skip_to_synthesis(graph, config, "stopped on request", first_input)
                await _stream(graph, graph_input, config, context, trace, deadline=context.deadline)
            except DeadlinePassed:
                reason = f"time limit reached ({context.max_seconds:g} s)"
                trace.record(EventKind.PROGRESS, node="runner", level="warning", message=f"{reason}; writing report")
                await _skip_to_synthesis(graph, config, reason, first_input)
                await _stream(graph, None, config, context, trace, deadline=None)
            snapshot = await graph.aget_state(config)
            values = dict(snapshot.values)
            status = RunStatus.INTERRUPTED if snapshot.next else RunStatus.COMPLETED
            if snapshot.interrupts:
                waiting = PLAN_REVIEW
                trace.record(EventKind.PROGRESS, node="review_plan", message="waiting for the plan to be reviewed")
    except asyncio.CancelledError:
        status = RunStatus.CANCELLED
        values = await saved_state(context.db_dir, record.run_id)
        raise
    except Exception as failure:
        error = f"{type(failure).__name__}: {failure}"
        values = await saved_state(context.db_dir, record.run_id)
        raise
    finally:
        _finish(store, record.model_copy(update={"waiting": waiting}), trace, status, values, error)
    return {key: values[key] for key in OUTPUT_KEYS if key in values}


def _opened(context: Context, spent: ModelUsage | None = None) -> Context:
    """The run's context with its services: those a test injected, or opened now for this run (`spent`: what a
    resumed run's models spent before, from its checkpoint, which its budget counts)."""
    from research_assistant.services import open_services

    if context.services is not None:
        return context
    return dataclasses.replace(context, services=open_services(context, spent))


async def _stream(
    graph: CompiledStateGraph[Any, Any, Any, Any],
    graph_input: dict[str, Any] | Command[Any] | None,
    config: RunnableConfig,
    context: Context,
    trace: TraceRecorder,
    *,
    deadline: float | None,
) -> None:
    """Run the graph until it ends or pauses; `DeadlinePassed` when `deadline` comes before synthesis starts."""
    loop = asyncio.get_running_loop()
    when = None if deadline is None else loop.time() + max(0.0, deadline - time.time())
    timeout = asyncio.timeout_at(when)
    try:
        async with timeout:
            async for part in graph.astream(
                graph_input,
                config,
                context=context,
                stream_mode=STREAM_MODES,
                subgraphs=True,
                durability="sync",
                version="v2",
            ):
                if part["type"] == "custom":
                    trace.progress(part["ns"], part["data"])
                elif part["type"] == "tasks":
                    task = dict(part["data"])
                    trace.task(part["ns"], task)
                    if not part["ns"] and task["name"] == "synthesize" and "input" in task:
                        timeout.reschedule(None)  # the report is being written: let it finish
    except TimeoutError:
        if timeout.expired():
            raise DeadlinePassed from None
        raise  # raised inside the graph, not by the deadline


def _started(values: dict[str, Any]) -> bool:
    """Whether a checkpoint holds the run's state: a run stopped before its first step has none (or only the
    input, not yet taken in)."""
    return bool(values.get("question"))


async def _skip_to_synthesis(
    graph: CompiledStateGraph[Any, Any, Any, Any], config: RunnableConfig, why: str, first_input: dict[str, Any]
) -> None:
    """Record a stop reason as if evaluate_progress had decided it, so the run's next step is synthesis.

    A run stopped before its first step has gathered nothing; its state starts here, from its question, and
    its report says that nothing was found.
    """
    snapshot = await graph.aget_state(config)
    started = _started(snapshot.values)
    if started and (not snapshot.next or "synthesize" in snapshot.next):
        return
    notice = Notice(message=f"Research stopped early: {why}. The report covers what was gathered until then.")
    update = {"stop_reason": why, "notices": [notice]}
    if not started:
        update = {**first_input, **update}
    await graph.aupdate_state(config, update, as_node="evaluate_progress")


async def pending_plan(db_dir: Path, run_id: str) -> ResearchPlan | None:
    """The plan a run is waiting to have reviewed, or None when it is not waiting for one."""
    from research_assistant.graph import build_graph
    from research_assistant.runs.checkpoints import open_checkpointer

    async with open_checkpointer(db_dir) as saver:
        snapshot = await build_graph(saver).aget_state({"configurable": {"thread_id": run_id}})
    for pending in snapshot.interrupts:
        if isinstance(pending.value, dict) and "plan" in pending.value:
            return ResearchPlan.model_validate(pending.value["plan"])
    return None


async def saved_state(db_dir: Path, run_id: str) -> dict[str, Any]:
    """A run's state after its last completed step, read back from its checkpoint ({} if there is none)."""
    from research_assistant.runs.checkpoints import open_checkpointer

    try:
        async with open_checkpointer(db_dir) as saver:
            checkpoint = await saver.aget({"configurable": {"thread_id": run_id}})
    except (asyncio.CancelledError, Exception):  # only ever used to report on a run that is ending or ended
        return {}
    return dict(checkpoint["channel_values"]) if checkpoint else {}


def _finish(
    store: RunStore,
    record: RunRecord,
    trace: TraceRecorder,
    status: RunStatus,
    values: dict[str, Any],
    error: str,
) -> None:
    from research_assistant.runs.metrics import compute_metrics

    message = status.value + (f": {error}" if error else "")
    trace.record(EventKind.RUN_END, message=message, level="error" if error else "info")
    now = time.time()
    record = record.model_copy(
        update={
            "status": status,
            "updated_at": now,
            "finished_at": now if status is RunStatus.COMPLETED else None,
            "stop_reason": values.get("stop_reason"),
            "error": error,
            "report_markdown": values.get("report_markdown", ""),
            "metrics": compute_metrics(store.events(record.run_id), values),
            "pid": None,
        }
    )
    store.save(record)
    store.close()
