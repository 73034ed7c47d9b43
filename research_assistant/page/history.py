"""History: past runs in the sidebar, and two runs of the same question compared."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from research_assistant.page.actions import load_run, open_run
from research_assistant.page.state import PageState
from research_assistant.page.text import locator_markdown
from research_assistant.report.citations import escape_markdown
from research_assistant.runs.compare import RunComparison, compare_runs
from research_assistant.runs.records import RunRecord, RunStatus
from research_assistant.runs.views import parameters_summary, when
from research_assistant.text.spaces import clip

HISTORY_SIZE = 20
HISTORY_LOOKBACK = 500  # runs searched by the History's search box and status filter
COMPARE_LOOKBACK = 200
ITEMS_SHOWN = 20

_TRAILING = re.compile(r"[\s?.!]+$")


# Pure helpers (unit-tested) ------------------------------------------------------------------------------


def question_key(question: str) -> str:
    """A question as compared with another: case, spacing and closing punctuation aside."""
    return _TRAILING.sub("", " ".join(question.split()).casefold())


def status_text(record: RunRecord, findings: bool | None = None) -> str:
    """The run's status in words; a report without findings is not merely "completed". `findings`: whether its
    report has any, when its state is at hand; otherwise a report written on no evidence at all has none."""
    if record.status is RunStatus.INTERRUPTED and record.waiting:
        return f"waiting for {record.waiting}"
    empty = findings is False or (findings is None and not record.metrics.evidence)
    if record.status is RunStatus.COMPLETED and record.report_markdown and empty:
        return "completed without findings"
    return record.status.value


def history_caption(record: RunRecord, findings: bool | None = None) -> str:
    return f"{when(record.started_at)} · {status_text(record, findings)} · {parameters_summary(record.parameters)}"


def filter_runs(
    records: Sequence[RunRecord], query: str = "", statuses: Sequence[str] = (), limit: int = HISTORY_SIZE
) -> list[RunRecord]:
    """The runs whose question (or id) holds every word of `query`, in one of `statuses` (any when none), the
    first `limit` of them."""
    words = query.casefold().split()
    found = []
    for record in records:
        text = f"{record.question} {record.run_id}".casefold()
        if all(word in text for word in words) and (not statuses or status_group(record) in statuses):
            found.append(record)
    return found[:limit]


STATUS_GROUPS = ("completed", "running", "waiting", "stopped", "failed")


def status_group(record: RunRecord) -> str:
    """What the History's status filter calls a run's status."""
    if record.status is RunStatus.INTERRUPTED:
        return "waiting" if record.waiting else "stopped"
    if record.status is RunStatus.CANCELLED:
        return "stopped"
    return record.status.value


def comparable(record: RunRecord, others: Sequence[RunRecord]) -> list[RunRecord]:
    """Other runs of the same question that wrote a report, newest first."""
    key = question_key(record.question)
    return [
        other
        for other in others
        if other.run_id != record.run_id and other.report_markdown and question_key(other.question) == key
    ]


def comparison_lines(comparison: RunComparison, roots: list[Path]) -> list[str]:
    """The comparison as safe Markdown lines: sources and findings added and removed, findings moved to another
    part of the report, and how many were kept."""
    lines = [
        f"**Sources**: {len(comparison.sources_added)} added, {len(comparison.sources_removed)} removed, "
        f"{comparison.sources_kept} in both"
    ]
    for sign, sources in (("➕ added", comparison.sources_added), ("➖ removed", comparison.sources_removed)):
        lines += [
            f"- {sign}: {escape_markdown(s.title) or 'Untitled'} {locator_markdown(s.locator, roots)}"
            for s in sources[:ITEMS_SHOWN]
        ]
    moved = f" ({len(comparison.findings_moved)} moved)" if comparison.findings_moved else ""
    lines.append(
        f"**Findings**: {len(comparison.findings_added)} added, {len(comparison.findings_removed)} removed, "
        f"{comparison.findings_kept} in both{moved}"
    )
    for sign, findings in (("➕ added", comparison.findings_added), ("➖ removed", comparison.findings_removed)):
        lines += [f"- {sign}: {escape_markdown(text)}" for text in findings[:ITEMS_SHOWN]]
    lines += [
        f"- ↕ moved: {escape_markdown(finding.text)} (from {escape_markdown(finding.before)} to "
        f"{escape_markdown(finding.after)})"
        for finding in comparison.findings_moved[:ITEMS_SHOWN]
    ]
    return lines


# Drawing -------------------------------------------------------------------------------------------------


def history(records: Sequence[RunRecord], shown: str) -> None:
    """The History: a search box, a status filter, and the runs that match, newest first."""
    st.header("History")
    if not records:
        st.caption("No research yet.")
        return
    query = st.text_input("Search the history", key="history-search", placeholder="Words of a question, or a run id")
    statuses = st.multiselect("Status", STATUS_GROUPS, key="history-status", placeholder="Any status")
    matching = filter_runs(records, query, statuses)
    if not matching:
        st.caption("No run matches.")
    for record in matching:
        st.button(
            escape_markdown(clip(record.question, 70)),
            key=f"history-{record.run_id}",
            on_click=open_run,
            args=(record.run_id,),
            type="primary" if record.run_id == shown else "secondary",
            width="stretch",
        )
        st.caption(escape_markdown(history_caption(record)))


def compare_section(
    state: PageState, record: RunRecord, candidates: Sequence[RunRecord], db_dir: Path, roots: list[Path]
) -> None:
    """Pick another run of this question; see what it found that this one did not, and the other way round.
    Folded away above the report, where it is seen without scrolling past the report and its sources."""
    if not candidates:
        return
    key = f"compare-{record.run_id}"
    by_id = {candidate.run_id: candidate for candidate in candidates}
    chosen_before = st.session_state.get(key) in by_id
    label = f"Compare with another run of this question ({len(candidates)} {'run' if len(candidates) == 1 else 'runs'})"
    with st.expander(label, expanded=chosen_before, icon=":material/compare_arrows:"):
        chosen = st.selectbox(
            "Compare with another run of this question",
            list(by_id),
            index=None,
            format_func=lambda run_id: (
                f"{when(by_id[run_id].started_at)} · " + parameters_summary(by_id[run_id].parameters)
            ),
            placeholder="Choose a run",
            key=key,
        )
        if chosen is None:
            return
        other = by_id[chosen]
        before, after = sorted((record, other), key=lambda r: r.started_at)
        comparison = compare_runs(load_run(state, before, db_dir).state, load_run(state, after, db_dir).state)
        st.caption(
            f"From the run of {when(before.started_at)} ({before.run_id}) to the run of "
            f"{when(after.started_at)} ({after.run_id})"
        )
        for line in comparison_lines(comparison, roots):
            st.markdown(line)
