"""The live status panel: one line per step of the graph as it runs, running totals, a progress bar, Stop.

Everything here is drawn from the run's trace (`TraceEvent`s), the same stream
the CLI prints; messages quote document titles, so they are escaped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import streamlit as st

from research_assistant.echo import counted
from research_assistant.page.state import Action, Job, page_state
from research_assistant.report.citations import escape_markdown
from research_assistant.runs.metrics import compute_metrics, model_usage
from research_assistant.runs.records import EventKind, RunMetrics, TraceEvent
from research_assistant.text.spaces import clip

REFRESH_SECONDS = 0.5  # how often the status panel looks at a running research
STOP_WAIT_SECONDS = 1.0  # how long Stop waits for the run to end before the page carries on
WARNINGS_PER_STEP = 5

RUNNING_LABELS: dict[Action, str] = {
    "research": "Researching…",
    "resume": "Resuming the research…",
    "finish": "Writing the report from what was gathered…",
    "review": "Researching with the reviewed plan…",
}
STEP_LABELS: dict[str, str] = {
    "analyze_query": "Analyse the question",
    "plan_strategy": "Plan",
    "review_plan": "Plan review",
    "search": "Search",
    "browse": "Read sources",
    "extract": "Extract evidence",
    "evaluate_progress": "Judge progress",
    "synthesize": "Write the report",
}
ROUND_STEPS = frozenset({"search", "browse", "extract", "evaluate_progress"})

_ROUND_PREFIX = re.compile(r"^round \d+: ")

StepState = Literal["running", "done", "failed", "stopped"]
MARKS: dict[StepState, str] = {
    "running": ":material/pending: Running",
    "done": ":material/check_circle: Done",
    "failed": ":material/error: Failed",
    "stopped": ":material/stop_circle: Stopped",
}
"""Each step's state in words, with an icon from the page's own icon font (no emoji font needed)."""
WARNING_MARK = ":material/warning: Warning:"
LOG_LINES = 14


@dataclass
class Step:
    """One execution of one top-level node, as far as the trace has told."""

    node: str
    round: int = 0
    state: StepState = "running"
    message: str = ""
    counts: dict[str, float] = field(default_factory=dict)
    queries: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    seconds: float | None = None
    tokens: int = 0
    cost_usd: float = 0.0

    @property
    def label(self) -> str:
        return STEP_LABELS.get(self.node, self.node)

    def detail(self) -> str:
        """What the step did, in plain text (escape before drawing)."""
        if self.node == "search":
            queries = f"{self.queries} queries" + (" so far" if self.state == "running" else "")
            return f"{queries}; {self.message}" if self.message else queries
        if self.node == "browse":
            read = sum(n for outcome, n in self.outcomes.items() if outcome != "failed")
            how = [f"{self.outcomes[o]} {o}" for o in ("fetched", "cached") if self.outcomes.get(o)]
            text = f"{read} read" + (f" ({', '.join(how)})" if how else "")
            return text + f", {self.outcomes.get('failed', 0)} failed"
        if self.node == "evaluate_progress":
            return _ROUND_PREFIX.sub("", self.message)  # the line says which round already
        return self.message


# Pure helpers (unit-tested) ------------------------------------------------------------------------------


def _top(node: str) -> str:
    return node.split("/", 1)[0]


def steps(events: Iterable[TraceEvent]) -> list[Step]:
    """One `Step` per top-level node execution, in the order they started, with what the trace said of it."""
    found: list[Step] = []
    open_steps: dict[str, Step] = {}
    rounds = 0
    for event in events:
        if event.kind in (EventKind.RUN_START, EventKind.RUN_END):
            for left in open_steps.values():  # stopped, failed, or its process died: they will not end now
                left.state = "stopped"
            open_steps.clear()
        elif event.kind is EventKind.NODE_START and event.node and "/" not in event.node:
            if event.node == "search":
                rounds += 1
            step = Step(event.node, round=rounds if event.node in ROUND_STEPS else 0)
            found.append(step)
            open_steps[event.node] = step
        elif event.kind is EventKind.NODE_END and "/" not in event.node:
            ended = open_steps.pop(event.node, None)
            if ended is not None:
                ended.state = "failed" if event.level == "error" else "done"
                ended.seconds = event.seconds
                ended.counts = {**ended.counts, **event.counts}
                if event.level == "error" and event.message:
                    ended.warnings.append(event.message)
        elif event.kind is EventKind.NODE_END and event.node == "search/run_query":
            if "search" in open_steps:
                open_steps["search"].queries += 1
        elif event.kind in (EventKind.PROGRESS, EventKind.SOURCE):
            current = open_steps.get(_top(event.node)) or (found[-1] if found else None)
            if current is None:
                continue
            call = model_usage(event)
            if event.level in ("warning", "error"):
                current.warnings.append(event.message)
            elif call is not None:
                current.tokens += call[1].input_tokens + call[1].output_tokens
                current.cost_usd += call[1].cost_usd
                continue
            elif event.kind is EventKind.PROGRESS:
                current.message = event.message
            if event.source is not None:
                current.outcomes[event.source.outcome] = current.outcomes.get(event.source.outcome, 0) + 1
            current.counts = {**current.counts, **event.counts}
    return [step for step in found if not (step.node == "review_plan" and not step.message and not step.warnings)]


def totals(events: Iterable[TraceEvent]) -> RunMetrics:
    """The run so far, what the status panel sums up under its lines: its metrics as the run store counts them
    from the trace (sources by outcome, model usage), with the queries run and the evidence and confidence the
    steps have reported."""
    events = list(events)
    evidence, confidence = 0, []
    for event in events:
        if event.kind in (EventKind.PROGRESS, EventKind.SOURCE):
            evidence = int(event.counts.get("total_evidence", evidence))
            if "confidence" in event.counts:
                confidence.append(event.counts["confidence"])
    queries = sum(1 for e in events if e.kind is EventKind.NODE_END and e.node == "search/run_query")
    update = {"queries": queries, "evidence": evidence, "confidence": confidence}
    return compute_metrics(events, {}).model_copy(update=update)


def progress_fraction(events: Sequence[TraceEvent], iteration_limit: int) -> float:
    """How far the run has got, from 0 to 1: steps ended out of the steps the longest run would take, then
    most of the way once the report is being written, and 1 once the run completed. Never goes back."""
    if any(event.kind is EventKind.RUN_END and event.message == "completed" for event in events):
        return 1.0
    top = [event for event in events if event.node in STEP_LABELS and event.node != "review_plan"]
    if any(event.kind is EventKind.NODE_START and event.node == "synthesize" for event in top):
        return 0.95
    planned = 3 + 4 * max(1, iteration_limit)
    ended = sum(1 for event in top if event.kind is EventKind.NODE_END)
    return min(ended / planned, 0.9)


def step_markdown(step: Step) -> list[str]:
    """The step's line, then one line per warning it raised (the first few)."""
    where = f" (round {step.round})" if step.round else ""
    took = f" · {step.tokens:,} tokens" if step.tokens else ""
    took += f", ${step.cost_usd:.4f}" if step.cost_usd else ""
    took += f" · {step.seconds:.1f} s" if step.seconds is not None else ""
    detail = escape_markdown(clip(step.detail(), 240))
    head = f"{MARKS[step.state]} · **{escape_markdown(step.label)}**{where}"
    lines = [head + (f": {detail}" if detail else "") + took]
    # A dead search service fails every query alike: each warning once, with a count.
    warnings = counted(clip(warning, 240) for warning in step.warnings)
    shown = warnings[:WARNINGS_PER_STEP]
    lines += [f"{WARNING_MARK} {escape_markdown(warning)}" for warning in shown]
    if len(warnings) > len(shown):
        lines.append(f"{WARNING_MARK} … and {len(warnings) - len(shown)} more warnings")
    return lines


def log_line(event: TraceEvent) -> str | None:
    """One event of the trace as a line of the live log (plain text: escape before drawing); None for events
    the log leaves out (steps' starts and ends, which the step lines show, and model calls)."""
    if event.kind is EventKind.NODE_START and event.message:
        what, _, subject = event.message.partition(": ")
        if what == "query":
            return f"Searching: {subject}"
        if what == "source":
            return f"Reading: {subject}"
        return None
    if event.kind is EventKind.SOURCE and event.source is not None:
        source = event.source
        name = source.title or source.locator
        if source.outcome == "failed":
            return f"Failed: {name}: {source.reason or 'unknown reason'}"
        how = source.outcome + (f" via {source.method}" if source.method else "")
        return f"Read ({how}): {name}"
    if event.kind is EventKind.PROGRESS and model_usage(event) is None and event.message:
        if event.level in ("warning", "error"):
            return f"Warning: {event.message}"
        return f"{STEP_LABELS.get(_top(event.node), _top(event.node))}: {event.message}"
    return None


def totals_line(total: RunMetrics) -> str:
    parts = [f"{total.queries} queries", f"{total.sources_read} sources read"]
    how = [f"{n} {what}" for n, what in ((total.pages_fetched, "fetched"), (total.pages_cached, "from cache")) if n]
    if how:
        parts[-1] += f" ({', '.join(how)})"
    parts += [f"{total.pages_failed} failed", f"{total.evidence} evidence items"]
    if total.confidence:
        parts.append(f"confidence {total.confidence[-1]:.0f}/100")
    if total.usage.tokens:
        parts.append(f"{total.usage.tokens:,} tokens")
    if total.usage.cost_usd:
        parts.append(f"${total.usage.cost_usd:.4f}")
    return " · ".join(parts)


# Drawing -------------------------------------------------------------------------------------------------


def stop() -> None:
    """The Stop button: cancel the run and give it a moment to record itself as cancelled."""
    job = page_state().job
    if job is not None:
        job.background.cancel()
        job.background.wait(STOP_WAIT_SECONDS)


def _lines(found: Sequence[Step], events: Sequence[TraceEvent]) -> None:
    for step in found:
        for line in step_markdown(step):
            st.markdown(line)
    st.caption(totals_line(totals(events)))


def _log(events: Sequence[TraceEvent]) -> None:
    lines = [line for line in (log_line(event) for event in events) if line][::-1][:LOG_LINES]  # newest first
    st.markdown("**Live log** (newest first)")
    if not lines:
        st.caption("Starting: loading the document index and the search providers…")
        return
    with st.container(height=260):
        st.markdown("\n".join(f"- {escape_markdown(clip(line, 240))}" for line in lines))


@st.fragment(run_every=REFRESH_SECONDS)
def live_panel() -> None:
    """The running research: its progress, refreshed on its own, the Stop button and the live log."""
    job = page_state().job
    if job is None or job.background.done:
        st.rerun()  # the whole page: the report, or what became of the run
    events = job.events
    found = steps(events)
    current = next((step for step in reversed(found) if step.state == "running"), None)
    doing = f" {current.label}" + (f" (round {current.round})" if current.round else "") if current else ""
    st.progress(progress_fraction(events, job.iteration_limit), text=f"{RUNNING_LABELS[job.action]}{doing}")
    st.button("Stop", on_click=stop, help="Stop the research; what it has gathered is kept.", type="primary")
    title = f"Run {job.run_id}: {len(found)} steps so far" if found else f"Run {job.run_id}: starting"
    with st.status(title, expanded=True):
        _lines(found, events)
    _log(events)


STORE_REFRESH_SECONDS = 1.0


@st.fragment(run_every=STORE_REFRESH_SECONDS)
def store_panel(run_id: str) -> None:
    """A run going on elsewhere (another page server, the command line): its progress as the run store has it,
    and the whole page again once it ends."""
    from research_assistant.page.actions import open_store
    from research_assistant.runs.records import RunStatus
    from research_assistant.settings import get_settings

    with open_store(get_settings().db_dir) as store:
        record = store.get(run_id)
        events = list(store.events(run_id)) if record is not None else []
    if record is None or record.status is not RunStatus.RUNNING:
        st.rerun()
    st.info(
        "This run is going on in another process: its progress follows the run store. Stop it where it was "
        "started (Ctrl-C for the command line).",
        icon=":material/sync:",
    )
    found = steps(events)
    with st.status(f"Run {run_id}: {len(found)} steps so far", expanded=True):
        _lines(found, events)
    _log(events)


def ended_outcome(job: Job, findings: bool | None = None) -> tuple[str, Literal["complete", "error"]]:
    """The label and state of the panel of a run that has ended; a report without `findings` (False; None: not
    known) is never called complete."""
    background = job.background
    ends = [event for event in background.events if event.kind is EventKind.RUN_END]
    if background.cancelled:
        return "Research stopped", "error"
    if background.error is not None:
        return "Research failed", "error"
    if ends and ends[-1].message.startswith("interrupted"):
        return "Research paused: waiting for your review of the plan", "complete"
    if findings is False:
        return "Report written without findings: nothing gathered could be cited", "error"
    return "Research complete", "complete"


def ended_panel(job: Job, findings: bool | None = None) -> None:
    """The progress of the run that just ended, folded away."""
    events = job.events
    found = steps(events)
    label, state = ended_outcome(job, findings)
    st.progress(progress_fraction(events, job.iteration_limit), text=label)
    with st.status(f"{label}: {len(found)} steps", state=state, expanded=False):
        _lines(found, events)
