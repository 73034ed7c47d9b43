"""The research page, put together: the form at the top, then the run in progress or the run shown, with the
History in the sidebar. The run shown is in the page's address (`?run=ID`), so that a reload, a bookmark or a
link opens it again, and finds it still running when it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from research_assistant.page import actions
from research_assistant.page.exports import download_buttons
from research_assistant.page.form import next_depth, refusal, research_form
from research_assistant.page.history import (
    COMPARE_LOOKBACK,
    HISTORY_LOOKBACK,
    comparable,
    compare_section,
    history,
    history_caption,
)
from research_assistant.page.plan_review import plan_review
from research_assistant.page.progress import ended_panel, live_panel, store_panel
from research_assistant.page.report_view import show_figures, show_report, show_warnings
from research_assistant.page.sources_view import has_findings, show_source_cards, source_cards
from research_assistant.page.state import PageState, page_state
from research_assistant.report.citations import escape_markdown
from research_assistant.report.locations import corpus_roots
from research_assistant.runs.records import RESUMABLE, RunRecord, RunStatus
from research_assistant.schemas import SourceStatus
from research_assistant.search.providers import ProviderChoice, provider_choices
from research_assistant.settings import Settings, SettingsError, get_settings
from research_assistant.text.spaces import one_line

__all__ = ["corpus_roots", "main"]
RUN_PARAMETER = "run"
"""The query parameter holding the id of the run shown: `?run=ID`."""
UNFINISHED = {
    RunStatus.CANCELLED: "was cancelled",
    RunStatus.FAILED: "failed",
    RunStatus.INTERRUPTED: "was interrupted before it finished",
}
"""What happened to a run that did not finish."""


def gathered_line(state: Mapping[str, Any]) -> str:
    """What a report written now would draw on, said before the analyst asks for it."""
    sources = state.get("sources", {})
    read = sum(1 for source in sources.values() if source.status is SourceStatus.READ)
    evidence = len(state.get("evidence", {}))
    if not evidence:
        found = f" ({read} sources read)" if read else ""
        return (
            f"Nothing has been gathered yet{found}: a report written now would have no findings. Resume the "
            "research instead."
        )
    return (
        f"Gathered so far: {evidence} evidence items from {read} sources read. Writing the report now uses only "
        "these; the research goes no further."
    )


def follow_link(state: PageState) -> None:
    """The run in the page's address, opened when the address changes (a reload, a link); a run this server
    is still running is found again, with its live progress and Stop."""
    linked = str(st.query_params.get(RUN_PARAMETER, ""))
    if not linked or linked == state.followed:
        return
    state.followed = linked
    if state.job is not None and state.job.run_id == linked:
        return
    job = actions.running_job(linked)
    if job is not None:
        state.job, state.shown = job, ""
    elif not state.busy:
        state.job, state.shown = None, linked


def update_link(state: PageState) -> None:
    """The page's address names the run going on, or the one shown."""
    current = state.job.run_id if state.busy and state.job is not None else state.shown
    if current and st.query_params.get(RUN_PARAMETER) != current:
        st.query_params[RUN_PARAMETER] = current
    elif not current and RUN_PARAMETER in st.query_params:
        del st.query_params[RUN_PARAMETER]
    state.followed = current


def show_run(
    record: RunRecord, state: PageState, settings: Settings, choices: Sequence[ProviderChoice], others: list[RunRecord]
) -> None:
    """One run from the store: what became of it, its report, sources, downloads and comparison."""
    loaded = actions.load_run(state, record, settings.db_dir)
    saved = loaded.state
    roots = corpus_roots(record.parameters.corpus_dir)
    st.caption(f"Run {record.run_id} · {escape_markdown(history_caption(record, has_findings(saved)))}")
    if loaded.damaged:
        st.error(escape_markdown(loaded.damaged))
    if loaded.pending_plan is not None:
        plan_review(state, record.run_id, loaded.pending_plan)
    elif record.status in RESUMABLE:
        what = UNFINISHED.get(record.status, record.status.value)
        st.warning(f"This run {what}. What it gathered is kept: resume it, or write the report from what was gathered.")
        if record.error and not state.error:
            st.caption(f"Error: {escape_markdown(one_line(record.error))}")
    elif record.status is RunStatus.RUNNING:
        store_panel(record.run_id)
    unfinished = record.status in RESUMABLE and loaded.pending_plan is None
    if unfinished and saved:
        st.markdown(escape_markdown(gathered_line(saved)))
    empty = record.status is RunStatus.COMPLETED and has_findings(saved) is False
    further = next_depth(record.parameters.depth.value) if empty else None
    with st.container(horizontal=True):
        if unfinished:
            st.button(
                "Resume", on_click=actions.resume, args=(record.run_id, False), disabled=state.busy, type="primary"
            )
            st.button(
                "Write report from what was gathered",
                on_click=actions.resume,
                args=(record.run_id, True),
                disabled=state.busy or (bool(saved) and not saved.get("evidence")),
                help=gathered_line(saved) if saved else "Write the report from what the run gathered before it ended",
            )
        if further is not None:  # a report without findings: the way on is a run that goes further
            st.button(
                f"Run again deeper ({further})",
                on_click=actions.run_again,
                args=(record.run_id, choices, True),
                type="primary",
                icon=":material/travel_explore:",
                help=f"Fill the form with this run's question at {further} depth (more sources, queries and "
                "rounds), without its source limit, to change and run again",
            )
        download_buttons(record, saved)
        st.button(
            "Run again",
            on_click=actions.run_again,
            args=(record.run_id, choices),
            type="primary" if empty and further is None else "secondary",
            help="Fill the form with this run's question and parameters, to change and run again",
        )
        if record.status is not RunStatus.RUNNING:
            with st.popover("Delete", icon=":material/delete:"):
                st.markdown("Delete this run, its trace and its checkpoints? This cannot be undone.")
                st.button("Delete this run", on_click=actions.delete_run, args=(record.run_id,), key="delete-run")
    if not record.report_markdown:
        return
    show_warnings(saved, record, roots)
    show_figures(record, saved)
    compare_section(state, record, comparable(record, others), settings.db_dir, roots)
    cards = source_cards(saved, record.parameters.citation_style, record.report_markdown)
    with_cards = bool(saved.get("sources"))
    show_report(record.report_markdown, {card.number for card in cards}, with_cards)
    if with_cards:
        show_source_cards(cards, roots, saved, record.run_id)
    with st.expander("Report as Markdown (to copy)"):
        st.code(record.report_markdown, language="markdown", wrap_lines=True)


def main() -> None:
    st.set_page_config(page_title="Research assistant", layout="wide", initial_sidebar_state="expanded")
    state = page_state()
    follow_link(state)
    st.title("Research assistant")
    st.caption("Ask a question; get a report in which every claim is cited to a source you can open.")
    try:
        settings = get_settings()
    except SettingsError as error:
        st.error(str(error))
        st.stop()
    choices = provider_choices(settings)
    submission = research_form(state, settings, choices)
    if submission is not None:
        problem = refusal(submission.values, submission.uploads, choices, settings)
        if problem:
            state.error = problem
        elif state.busy:
            state.error = actions.BUSY
        elif actions.start_research(state, submission, settings):
            update_link(state)
            st.rerun()  # the form again, its Research button disabled while the run goes on
    actions.settle(state)
    update_link(state)
    run_area = st.container()
    try:
        with actions.open_store(settings.db_dir) as store:
            shown = store.get(state.shown) if state.shown else None
            records = store.recent(HISTORY_LOOKBACK)
            others = store.recent(COMPARE_LOOKBACK) if shown is not None and shown.report_markdown else []
    except Exception as error:  # a damaged run store: say which file and what to do, not a traceback
        damaged = actions.damage_message(error, settings.db_dir)
        if damaged is None:
            raise
        with run_area:
            st.error(escape_markdown(damaged))
        st.stop()
    with run_area:
        if state.error:
            st.error(escape_markdown(state.error))
        if state.busy:
            live_panel()
        elif state.job is not None:
            findings = None
            if shown is not None and shown.run_id == state.job.run_id and shown.report_markdown:
                findings = has_findings(actions.load_run(state, shown, settings.db_dir).state)
            ended_panel(state.job, findings)
        if shown is not None:  # right under the progress, no divider: the run's downloads stay in view
            show_run(shown, state, settings, choices, others)
        elif state.shown and not state.busy:
            st.warning(f"Run {escape_markdown(state.shown)} is not in the run store: it may have been deleted.")
        elif not state.busy and state.job is None:
            st.caption("The research you start, or open from History, is shown here.")
    with st.sidebar:
        history(records, state.shown)
