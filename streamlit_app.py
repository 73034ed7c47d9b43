"""The research page: ask a question, watch the research, stop or resume it, read and download the report.

A thin page: it builds the run's parameters, starts the run through the runner
on a background thread (`BackgroundRun`), shows the run's trace while it goes,
and renders what the run store keeps. No research logic lives here. Report
text is rendered as Markdown only (never as HTML), since it quotes documents.

Everything the page remembers between reruns is one `PageState` in the
session. The script is executed as `__main__` by `streamlit run` and by
Streamlit's AppTest; imported under another name (the unit tests do), it only
defines its helpers.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import streamlit as st

from research_assistant.context import CitationStyle, Context, Depth, SourceKind
from research_assistant.runs.background import BackgroundRun
from research_assistant.runs.records import RESUMABLE, EventKind, RunRecord, RunStatus, TraceEvent
from research_assistant.runs.store import RunStore
from research_assistant.runs.views import when
from research_assistant.settings import Settings, SettingsError, get_settings

if TYPE_CHECKING:
    from research_assistant.services import Services

DEFAULT_CORPUS = "examples/python-memory"
# Module-level strings would be drawn on the page by Streamlit's "magic": these notes are comments.
REFRESH_SECONDS = 0.5  # how often the status panel looks at a running research
STOP_WAIT_SECONDS = 1.0  # how long Stop waits for the run to end before the page carries on
HISTORY_SIZE = 20
SHOWN_LINES = 200  # the status panel shows this many of the latest lines
logger = logging.getLogger("research_assistant.page")

Action = Literal["research", "resume", "finish"]
RUNNING_LABELS: dict[Action, str] = {
    "research": "Researching…",
    "resume": "Resuming the research…",
    "finish": "Writing the report from what was gathered…",
}
SOURCE_LABELS: dict[SourceKind, str] = {
    "local": "Local documents",
    "web": "Web",
    "news": "News",
    "academic": "Academic (arXiv)",
    "wiki": "Wikipedia",
}


@dataclass(frozen=True)
class FormValues:
    """What the research form shows; "Run again" replaces it with a past run's question and parameters."""

    question: str = ""
    sources: tuple[SourceKind, ...] = ("local",)
    corpus: str = ""
    depth: str = Depth.STANDARD.value
    style: str = CitationStyle.NUMERIC.value
    refresh: bool = False


@dataclass
class Job:
    """A run going on in the background (or just ended), and what the page has made of its end."""

    run_id: str
    action: Action
    background: BackgroundRun
    settled: bool = False


@dataclass
class PageState:
    """Everything the page remembers between reruns."""

    form: FormValues | None = None
    form_generation: int = 0
    """Counts "Run again"s: a new form (with fresh widgets) each time, even with the same values."""
    job: Job | None = None
    shown: str = ""
    """The id of the run shown below the form: the one that just ended, or one opened from History."""
    error: str = ""
    services: Services | None = None
    """Ready-made services for every run the page starts (tests inject fakes); built per run when None."""

    @property
    def busy(self) -> bool:
        return self.job is not None and not self.job.background.done


# Pure helpers (unit-tested) ------------------------------------------------------------------------------

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<$])")


def escape_markdown(text: str) -> str:
    """`text` on one line, shown literally by st.markdown: no links, images, emphasis, code or maths."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", " ".join(text.split()))


def one_line(text: str, width: int = 300) -> str:
    """The first non-blank line of `text`, clipped to `width` characters."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= width else line[: width - 1] + "…"


def status_lines(events: Iterable[TraceEvent]) -> list[str]:
    """One Markdown line per progress or source event; node starts and ends stay in the trace."""
    lines = []
    for event in events:
        if event.kind not in (EventKind.PROGRESS, EventKind.SOURCE):
            continue
        warning = "⚠️ " if event.level in ("warning", "error") else ""
        lines.append(f"{warning}**{escape_markdown(event.node)}**: {escape_markdown(event.message)}")
    return lines


def available_sources(settings: Settings) -> tuple[list[SourceKind], str]:
    """The source kinds this installation can search, and a line about the ones that need a key."""
    kinds: list[SourceKind] = ["local", "academic", "wiki"]
    if settings.tavily_api_key or settings.exa_api_key:
        return ["local", "web", "news", "academic", "wiki"], ""
    return kinds, "Web and news search need a key: set TAVILY_API_KEY or EXA_API_KEY."


def form_defaults(settings: Settings) -> FormValues:
    return FormValues(
        corpus=str(settings.corpus_dir or DEFAULT_CORPUS),
        depth=str(settings.depth),
        style=str(settings.citation_style),
    )


def form_from_run(record: RunRecord, available: Sequence[SourceKind], defaults: FormValues) -> FormValues:
    """The form filled with a past run's question and parameters; kinds of source not offered now are left out."""
    parameters = record.parameters
    return FormValues(
        question=record.question,
        sources=tuple(kind for kind in parameters.source_types if kind in available),
        corpus=parameters.corpus_dir or defaults.corpus,
        depth=parameters.depth.value,
        style=parameters.citation_style.value,
        refresh=parameters.refresh,
    )


def refusal(values: FormValues) -> str:
    """Why the form's values cannot start a research, in one line; "" when they can."""
    from research_assistant.corpus.files import CorpusError, corpus_files

    if not values.question:
        return "Write a question first."
    if not values.sources:
        return "Choose at least one kind of source."
    if "local" in values.sources:
        if not values.corpus:
            return "Give a documents folder, or leave out local documents."
        try:
            corpus_files(Path(values.corpus))
        except CorpusError as error:
            return one_line(str(error))
    return ""


def research_context(values: FormValues, settings: Settings, services: Services | None) -> Context:
    return Context(
        depth=Depth(values.depth),
        source_types=list(values.sources),
        corpus_dir=Path(values.corpus) if values.corpus else None,
        citation_style=CitationStyle(values.style),
        refresh=values.refresh,
        db_dir=settings.db_dir,
        cache_dir=settings.cache_dir,
        services=services,
    )


def clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def history_caption(record: RunRecord) -> str:
    return f"{when(record.started_at)} · {record.status.value} · {record.parameters.summary()}"


def unfinished_message(record: RunRecord) -> str:
    """What happened to a run that did not finish, and what can be done with it."""
    what = {
        RunStatus.CANCELLED: "was cancelled",
        RunStatus.FAILED: "failed",
        RunStatus.INTERRUPTED: "was interrupted before it finished",
    }.get(record.status, record.status.value)
    return f"This run {what}. What it gathered is kept: resume it, or write the report from what was gathered."


def failure_message(error: BaseException, run_id: str) -> str:
    """One line for the analyst; an unexpected failure is logged with its traceback as well."""
    from research_assistant.corpus.files import CorpusError
    from research_assistant.runner import RunNotResumable
    from research_assistant.services import ConfigurationError

    if isinstance(error, CorpusError | ConfigurationError | RunNotResumable):
        return one_line(str(error))
    logger.error("research run %s failed", run_id, exc_info=error)
    return one_line(
        f"The research failed unexpectedly ({type(error).__name__}: {one_line(str(error), 120)}); "
        "the details are in the server log."
    )


# State and actions -------------------------------------------------------------------------------------


def page_state() -> PageState:
    if "page" not in st.session_state:
        st.session_state["page"] = PageState()
    state: PageState = st.session_state["page"]
    return state


@contextmanager
def open_store(db_dir: Path) -> Iterator[RunStore]:
    store = RunStore.at(db_dir)
    try:
        yield store
    finally:
        store.close()


def start_research(state: PageState, values: FormValues, settings: Settings) -> None:
    from research_assistant.runner import new_run_id, run_research

    context = research_context(values, settings, state.services)
    run_id = new_run_id()
    background = BackgroundRun(lambda on_event: run_research(values.question, context, on_event, run_id=run_id))
    state.job = Job(run_id=run_id, action="research", background=background.start())
    state.shown, state.error = "", ""


def resume(run_id: str, finish: bool) -> None:
    """Resume and Write-report buttons: carry on with a stopped run in the background."""
    from research_assistant.corpus.files import CorpusError, corpus_files
    from research_assistant.runner import resume_research

    state, settings = page_state(), get_settings()
    if state.busy:
        state.error = "A research is running: stop it first."
        return
    with open_store(settings.db_dir) as store:
        record = store.get(run_id)
    if record is None:
        state.error = f"Run {run_id} is not in the run store any more."
        return
    context = record.parameters.context(db_dir=settings.db_dir, cache_dir=settings.cache_dir, services=state.services)
    if "local" in context.source_types and context.corpus_dir is not None and not finish:
        try:
            corpus_files(context.corpus_dir)
        except CorpusError as error:
            state.error = one_line(str(error))
            return
    background = BackgroundRun(lambda on_event: resume_research(record, context, on_event, finish=finish))
    state.job = Job(run_id=run_id, action="finish" if finish else "resume", background=background.start())
    state.shown, state.error = "", ""


def stop() -> None:
    """The Stop button: cancel the run and give it a moment to record itself as cancelled."""
    job = page_state().job
    if job is not None:
        job.background.cancel()
        job.background.wait(STOP_WAIT_SECONDS)


def open_run(run_id: str) -> None:
    state = page_state()
    state.shown, state.error = run_id, ""
    if state.job is not None and state.job.background.done:
        state.job = None  # its progress belongs to the run it was, not to the one opened


def run_again(run_id: str) -> None:
    state, settings = page_state(), get_settings()
    with open_store(settings.db_dir) as store:
        record = store.get(run_id)
    if record is None:
        state.error = f"Run {run_id} is not in the run store any more."
        return
    kinds, _ = available_sources(settings)
    state.form = form_from_run(record, kinds, form_defaults(settings))
    state.form_generation += 1


def settle(state: PageState) -> None:
    """Once a run has ended: show it, and say in one line what went wrong if it failed."""
    job = state.job
    if job is None or job.settled or not job.background.done:
        return
    job.settled = True
    state.shown = job.run_id
    if job.background.error is not None:
        state.error = failure_message(job.background.error, job.run_id)


# Rendering ---------------------------------------------------------------------------------------------


def research_form(state: PageState, settings: Settings) -> FormValues | None:
    """The form; its values when it was submitted."""
    defaults = state.form or form_defaults(settings)
    kinds, missing = available_sources(settings)
    with st.form(f"research-{state.form_generation}"):
        question = st.text_input(
            "Research question", value=defaults.question, placeholder="How does Python reclaim reference cycles?"
        )
        sources = st.multiselect(
            "Sources",
            kinds,
            default=[kind for kind in defaults.sources if kind in kinds],
            format_func=lambda kind: SOURCE_LABELS[kind],
            help=missing or None,
        )
        if missing:
            st.caption(missing)
        corpus = st.text_input("Documents folder", value=defaults.corpus)
        refresh = st.checkbox("Fetch pages again (ignore cached copies)", value=defaults.refresh)
        left, right = st.columns(2)
        depth = left.segmented_control("Depth", [d.value for d in Depth], default=defaults.depth)
        style = right.segmented_control("Citation style", [s.value for s in CitationStyle], default=defaults.style)
        submitted = st.form_submit_button("Research", type="primary", disabled=state.busy)
    if not submitted:
        return None
    return FormValues(
        question=" ".join(question.split()),
        sources=tuple(sources),
        corpus=corpus.strip(),
        depth=depth or str(settings.depth),
        style=style or str(settings.citation_style),
        refresh=refresh,
    )


@st.fragment(run_every=REFRESH_SECONDS)
def live_panel() -> None:
    """The running research: its progress, refreshed on its own, and the Stop button."""
    job = page_state().job
    if job is None or job.background.done:
        st.rerun()  # the whole page: the report, or what became of the run
    st.button("Stop", on_click=stop, help="Stop the research; what it has gathered is kept.")
    lines = status_lines(job.background.events)
    with st.status(f"{RUNNING_LABELS[job.action]} {len(lines)} steps so far", expanded=True):
        if len(lines) > SHOWN_LINES:
            st.caption(f"… {len(lines) - SHOWN_LINES} earlier steps")
        for line in lines[-SHOWN_LINES:]:
            st.markdown(line)


def ended_panel(job: Job) -> None:
    """The progress of the run that just ended, folded away."""
    background = job.background
    lines = status_lines(background.events)
    state: Literal["complete", "error"]
    if background.cancelled:
        label, state = "Research stopped", "error"
    elif background.error is not None:
        label, state = "Research failed", "error"
    else:
        label, state = "Research complete", "complete"
    with st.status(f"{label} ({len(lines)} steps)", state=state, expanded=False):
        for line in lines[-SHOWN_LINES:]:
            st.markdown(line)


def show_run(record: RunRecord, state: PageState) -> None:
    """One run from the store: its report, or what became of it and how to carry on."""
    st.caption(f"Run {record.run_id} · {history_caption(record)}")
    if record.status in RESUMABLE:
        st.warning(unfinished_message(record))
        if record.error and not state.error:
            st.caption(f"Error: {one_line(record.error)}")
    elif record.status is RunStatus.RUNNING:
        st.info("This run is still running.")
    with st.container(horizontal=True):
        if record.status in RESUMABLE:
            st.button("Resume", on_click=resume, args=(record.run_id, False), disabled=state.busy, type="primary")
            st.button(
                "Write report from what was gathered",
                on_click=resume,
                args=(record.run_id, True),
                disabled=state.busy,
            )
        if record.report_markdown:
            st.download_button(
                "Download report (Markdown)",
                record.report_markdown,
                file_name=f"report-{record.run_id}.md",
                mime="text/markdown",
                on_click="ignore",
            )
        st.button("Run again", on_click=run_again, args=(record.run_id,), help="Fill the form with this run's question")
    if record.report_markdown:
        st.markdown(record.report_markdown)


def history(records: Sequence[RunRecord], shown: str) -> None:
    st.header("History")
    if not records:
        st.caption("No research yet.")
    for record in records:
        st.button(
            clip(record.question, 70),
            key=f"history-{record.run_id}",
            on_click=open_run,
            args=(record.run_id,),
            type="primary" if record.run_id == shown else "secondary",
            width="stretch",
        )
        st.caption(history_caption(record))


def main() -> None:
    st.set_page_config(page_title="Research assistant", layout="wide")
    st.title("Research assistant")
    st.caption("Offline mode: extractive reasoning; findings are sentences quoted from the sources, each checked.")
    state = page_state()
    try:
        settings = get_settings()
    except SettingsError as error:
        st.error(str(error))
        st.stop()
    values = research_form(state, settings)
    if values is not None:
        problem = refusal(values)
        if problem:
            state.error = problem
        elif state.busy:
            state.error = "A research is running: stop it first."
        else:
            start_research(state, values, settings)
    settle(state)
    if state.busy:
        live_panel()
    elif state.job is not None:
        ended_panel(state.job)
    if state.error:
        st.error(state.error)
    with open_store(settings.db_dir) as store:
        shown = store.get(state.shown) if state.shown else None
        records = store.recent(HISTORY_SIZE)
    if shown is not None:
        show_run(shown, state)
    with st.sidebar:
        history(records, state.shown)


if __name__ == "__main__":
    main()
