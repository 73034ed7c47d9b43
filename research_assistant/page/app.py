"""The research page, put together: the form, the run in progress, the run shown, the History sidebar."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from research_assistant.page.actions import (
    BUSY,
    load_run,
    open_store,
    resume,
    run_again,
    settle,
    start_research,
)
from research_assistant.page.exports import download_buttons
from research_assistant.page.form import model_panel, refusal, research_form
from research_assistant.page.history import (
    COMPARE_LOOKBACK,
    HISTORY_SIZE,
    comparable,
    compare_section,
    history,
    history_caption,
)
from research_assistant.page.plan_review import plan_review
from research_assistant.page.progress import ended_panel, live_panel
from research_assistant.page.report_view import show_figures, show_report, show_warnings
from research_assistant.page.sources_view import show_source_cards, source_cards
from research_assistant.page.state import PageState, page_state
from research_assistant.page.text import escape_markdown, one_line
from research_assistant.runs.records import RESUMABLE, RunRecord, RunStatus
from research_assistant.settings import Settings, SettingsError, get_settings
from research_assistant.web.setup import ProviderChoice, provider_choices

LINKED = "folder"  # where a corpus with uploads keeps its links to the chosen folder's documents


def corpus_roots(corpus_dir: str | None) -> list[Path]:
    """The folders a run's local sources lie in: its corpus folder and, for a corpus with uploads, the folder
    its linked documents come from."""
    if not corpus_dir:
        return []
    root = Path(corpus_dir).expanduser().resolve()
    roots = [root]
    linked = root / LINKED
    if linked.is_dir():
        for folder, _, names in os.walk(linked):
            links = [Path(folder, name) for name in names if Path(folder, name).is_symlink()]
            if links:
                depth = len(links[0].relative_to(linked).parts)
                roots.append(links[0].resolve().parents[depth - 1])
                break
    return roots


def unfinished_message(record: RunRecord) -> str:
    """What happened to a run that did not finish, and what can be done with it."""
    what = {
        RunStatus.CANCELLED: "was cancelled",
        RunStatus.FAILED: "failed",
        RunStatus.INTERRUPTED: "was interrupted before it finished",
    }.get(record.status, record.status.value)
    return f"This run {what}. What it gathered is kept: resume it, or write the report from what was gathered."


def show_run(
    record: RunRecord, state: PageState, settings: Settings, choices: Sequence[ProviderChoice], others: list[RunRecord]
) -> None:
    """One run from the store: what became of it, its report, sources, downloads and comparison."""
    loaded = load_run(state, record, settings.db_dir)
    saved = loaded.state
    roots = corpus_roots(record.parameters.corpus_dir)
    st.caption(f"Run {record.run_id} · {escape_markdown(history_caption(record))}")
    if loaded.pending_plan is not None:
        plan_review(state, record.run_id, loaded.pending_plan)
    elif record.status in RESUMABLE:
        st.warning(unfinished_message(record))
        if record.error and not state.error:
            st.caption(f"Error: {escape_markdown(one_line(record.error))}")
    elif record.status is RunStatus.RUNNING:
        st.info("This run is still running.")
    with st.container(horizontal=True):
        if record.status in RESUMABLE and loaded.pending_plan is None:
            st.button("Resume", on_click=resume, args=(record.run_id, False), disabled=state.busy, type="primary")
            st.button(
                "Write report from what was gathered",
                on_click=resume,
                args=(record.run_id, True),
                disabled=state.busy,
            )
        download_buttons(record, saved)
        st.button(
            "Run again",
            on_click=run_again,
            args=(record.run_id, choices),
            help="Fill the form with this run's question and parameters, to change and run again",
        )
    if not record.report_markdown:
        return
    show_warnings(saved, record, roots)
    show_figures(record, saved)
    cards = source_cards(record.report_markdown, saved)
    with_cards = bool(saved.get("sources"))
    show_report(record.report_markdown, {card.number for card in cards}, with_cards)
    if with_cards:
        show_source_cards(cards, roots)
    compare_section(state, record, comparable(record, others), settings.db_dir, roots)


def main() -> None:
    st.set_page_config(page_title="Research assistant", layout="wide")
    st.title("Research assistant")
    st.caption("Ask a question; get a report in which every claim is cited to a source you can open.")
    state = page_state()
    try:
        settings = get_settings()
    except SettingsError as error:
        st.error(str(error))
        st.stop()
    choices = provider_choices(settings)
    form_column, run_column = st.columns([2, 3], gap="large")
    with form_column:
        model_panel(settings)
        submission = research_form(state, settings, choices)
    if submission is not None:
        problem = refusal(submission.values, submission.uploads, choices)
        if problem:
            state.error = problem
        elif state.busy:
            state.error = BUSY
        else:
            start_research(state, submission, settings)
    settle(state)
    with open_store(settings.db_dir) as store:
        shown = store.get(state.shown) if state.shown else None
        records = store.recent(HISTORY_SIZE)
        others = store.recent(COMPARE_LOOKBACK) if shown is not None and shown.report_markdown else []
    with run_column:
        if state.error:
            st.error(escape_markdown(state.error))
        if state.busy:
            live_panel()
        elif state.job is not None:
            ended_panel(state.job)
        if shown is not None:
            if state.job is not None:
                st.divider()  # the run's progress above, the run itself below
            show_run(shown, state, settings, choices, others)
        elif not state.busy and state.job is None:
            st.caption("The research you start, or open from History, is shown here.")
    with st.sidebar:
        history(records, state.shown)
