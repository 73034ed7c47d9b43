"""The page's actions that need no Streamlit: reading the runner's coroutines, caching saved states, settling runs."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from research_assistant.context import CitationStyle, Context, Depth
from research_assistant.corpus.files import CorpusError
from research_assistant.page import actions
from research_assistant.page.actions import failure_message, load_run, run_sync, settle
from research_assistant.page.state import Job, PageState
from research_assistant.runs.background import BackgroundRun
from research_assistant.runs.records import RunRecord, RunStatus
from research_assistant.schemas import ResearchPlan, SubQuestion

PLAN = ResearchPlan(sub_questions=[SubQuestion(id="q1", text="Q?")], min_sources=1, min_evidence_per_question=1)


def record(run_id: str, status: RunStatus = RunStatus.COMPLETED, updated_at: float = 1.0) -> RunRecord:
    parameters = Context(
        depth=Depth.QUICK, source_types=["local"], citation_style=CitationStyle.NUMERIC, max_seconds=60
    )
    return RunRecord(
        run_id=run_id, question="Q", parameters=parameters, status=status, started_at=0.0, updated_at=updated_at
    )


def test_run_sync_awaits_coroutines() -> None:
    async def answer() -> int:
        return 42

    assert run_sync(answer()) == 42


async def test_run_sync_works_inside_a_running_loop() -> None:
    async def answer() -> str:
        return "from a loop of its own"

    assert run_sync(answer()) == "from a loop of its own"


@pytest.fixture
def runner_reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """The runner's readers, faked: each read is noted."""
    from research_assistant import runner

    reads: list[tuple[str, str]] = []

    async def saved_state(db_dir: Path, run_id: str) -> dict[str, Any]:
        reads.append(("state", run_id))
        return {"run_id": run_id}

    async def pending_plan(db_dir: Path, run_id: str) -> ResearchPlan | None:
        reads.append(("plan", run_id))
        return PLAN

    monkeypatch.setattr(runner, "saved_state", saved_state)
    monkeypatch.setattr(runner, "pending_plan", pending_plan)
    return reads


def test_a_saved_state_is_read_once_per_change_of_its_run(runner_reads: list[tuple[str, str]], tmp_path: Path) -> None:
    state = PageState()
    first = load_run(state, record("a"), tmp_path)
    assert first.state == {"run_id": "a"} and first.pending_plan is None, "only a run that waits has a plan"
    assert load_run(state, record("a"), tmp_path) is first
    assert runner_reads == [("state", "a")]
    load_run(state, record("a", updated_at=2.0), tmp_path)
    assert runner_reads == [("state", "a"), ("state", "a")], "the run changed: read again"


def test_a_run_waiting_for_review_has_its_plan_and_a_running_one_no_state(
    runner_reads: list[tuple[str, str]], tmp_path: Path
) -> None:
    state = PageState()
    assert load_run(state, record("w", RunStatus.INTERRUPTED), tmp_path).pending_plan == PLAN
    assert load_run(state, record("r", RunStatus.RUNNING), tmp_path).state == {}
    assert runner_reads == [("state", "w"), ("plan", "w")], "a running run's checkpoint is not read"


def test_only_a_few_saved_states_are_kept(runner_reads: list[tuple[str, str]], tmp_path: Path) -> None:
    state = PageState()
    for run_id in "abcde":
        load_run(state, record(run_id), tmp_path)
    load_run(state, record("b"), tmp_path)  # used again: kept longest
    load_run(state, record("f"), tmp_path)
    assert actions.KEPT_STATES == 4 and list(state.loaded) == ["d", "e", "b", "f"]


def test_a_failed_plan_read_leaves_the_run_merely_interrupted(
    monkeypatch: pytest.MonkeyPatch, runner_reads: list[tuple[str, str]], tmp_path: Path
) -> None:
    from research_assistant import runner

    async def broken(db_dir: Path, run_id: str) -> ResearchPlan | None:
        raise ValueError("damaged checkpoint")

    monkeypatch.setattr(runner, "pending_plan", broken)
    assert load_run(PageState(), record("w", RunStatus.INTERRUPTED), tmp_path).pending_plan is None


def test_expected_failures_are_told_in_one_line_and_others_logged(caplog: pytest.LogCaptureFixture) -> None:
    assert failure_message(CorpusError("corpus folder /x does not exist\nmore"), "r") == (
        "corpus folder /x does not exist"
    )
    with caplog.at_level(logging.ERROR, logger="research_assistant.page"):
        message = failure_message(KeyError("boom"), "r1")
    assert message.startswith("The research failed unexpectedly (KeyError: 'boom')")
    assert [r.getMessage() for r in caplog.records] == ["research run r1 failed"]


def test_a_run_that_ended_is_shown_once_and_its_failure_said() -> None:
    async def fail(on_event: Any) -> dict[str, Any]:
        raise RuntimeError("planner tripped")

    background = BackgroundRun(fail).start()
    assert background.wait(5)
    state = PageState(shown="older", job=Job(run_id="r1", action="research", background=background))
    settle(state)
    assert state.shown == "r1" and "RuntimeError: planner tripped" in state.error
    state.shown, state.error = "other", ""
    settle(state)
    assert (state.shown, state.error) == ("other", ""), "settled once"


def test_stop_pressed_after_the_run_ended_cancels_nothing() -> None:
    """The page's Stop may come just after the run's loop has closed: that is no error."""

    async def quick(on_event: Any) -> dict[str, Any]:
        return {}

    background = BackgroundRun(quick).start()
    assert background.wait(5)
    background.cancel()
    assert background.result == {} and not background.cancelled


async def test_settle_waits_for_the_run_to_end() -> None:
    async def slow(on_event: Any) -> dict[str, Any]:
        await asyncio.sleep(0.2)
        return {}

    background = BackgroundRun(slow).start()
    state = PageState(job=Job(run_id="r1", action="research", background=background))
    settle(state)
    assert state.shown == "" and not state.job.settled  # type: ignore[union-attr]
    background.wait(5)
    settle(state)
    assert state.shown == "r1"


def test_a_full_disk_or_a_damaged_store_is_said_with_what_to_do(tmp_path: Path) -> None:
    import sqlite3

    from research_assistant.damage import DamagedStore

    full = failure_message(sqlite3.OperationalError("database or disk is full"), "r1", tmp_path)
    assert full.startswith(f"The research stopped: the disk holding {tmp_path} is full") and "free some space" in full
    path = tmp_path / "chroma.sqlite3"
    assert failure_message(RuntimeError("indexing failed"), "r1", tmp_path).startswith("The research failed unexpect")
    try:
        raise RuntimeError("indexing failed") from DamagedStore(path, "file is not a database", "move it aside")
    except RuntimeError as error:
        named = failure_message(error, "r1", tmp_path)
    assert named.startswith(f"{path} is damaged (file is not a database); move it aside")
