"""The research page, driven with Streamlit's AppTest: inputs, a run in the background, Stop and Resume,
History; and the page's pure helpers."""

from __future__ import annotations

import asyncio
import importlib.util
import logging
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Button
from support.fakes import FakeReasoner, fake_services

from research_assistant.context import CitationStyle, Depth
from research_assistant.runs.records import EventKind, RunParameters, RunRecord, RunStatus, TraceEvent
from research_assistant.runs.store import RunStore
from research_assistant.schemas import ProgressAssessment
from research_assistant.services import Services
from research_assistant.settings import get_settings

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
TRAM_QUESTION = "What is the tram fare?"  # what the fake services' documents answer


def load_page_module() -> ModuleType:
    """The page's script as a module: imported under a name other than __main__, it only defines its helpers."""
    spec = importlib.util.spec_from_file_location("streamlit_page_under_test", ROOT / "streamlit_app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


page_module = load_page_module()


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("RESEARCH_DB_DIR", str(tmp_path / "db"))
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RESEARCH_CORPUS_DIR", str(CORPUS))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@dataclass
class SlowReasoner(FakeReasoner):
    """Takes its time judging progress (until told not to), so that a run can be stopped mid-way."""

    slow: bool = True

    async def evaluate(self, *args: Any, **kwargs: Any) -> ProgressAssessment:
        if self.slow:
            self.calls.append("waiting")
            await asyncio.sleep(60)
        return await super().evaluate(*args, **kwargs)


class BrokenReasoner(FakeReasoner):
    async def plan(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the planner tripped\nover a second line")


def page(services: Services | None = None) -> AppTest:
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=30).run()
    if services is not None:
        app.session_state["page"].services = services
    return app


def submit(app: AppTest, question: str, corpus: Path | str = CORPUS) -> AppTest:
    app.text_input[0].input(question)
    app.text_input[1].input(str(corpus))
    button(app, "Research").click()
    return app.run()


def finish(app: AppTest, timeout: float = 30) -> AppTest:
    """Wait for the research the page started to end, then let the page show it."""
    job = app.session_state["page"].job
    assert job is not None, "no research was started"
    assert job.background.wait(timeout), "the research did not end"
    return app.run()


def wait_for(condition: Callable[[], bool], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def button(app: AppTest, label: str) -> Button:
    found = [b for b in app.button if b.label == label]
    assert len(found) == 1, f"{len(found)} buttons labelled {label!r}: {[b.label for b in app.button]}"
    return found[0]


def markdown(app: AppTest) -> str:
    return "\n".join(m.value for m in app.markdown)


def runs(tmp_path: Path) -> list[RunRecord]:
    store = RunStore.at(tmp_path / "db")
    try:
        return store.recent()
    finally:
        store.close()


# The form -----------------------------------------------------------------------------------------------


def test_the_page_offers_the_research_inputs_and_says_it_is_offline() -> None:
    app = page()
    assert not app.exception
    assert app.title[0].value == "Research assistant"
    assert [t.label for t in app.text_input] == ["Research question", "Documents folder"]
    assert "Offline mode" in app.caption[0].value
    assert [h.value for h in app.sidebar.header] == ["History"]
    assert [c.value for c in app.sidebar.caption] == ["No research yet."]


def test_an_empty_question_is_refused_with_a_message() -> None:
    app = submit(page(), "   ")
    assert [e.value for e in app.error] == ["Write a question first."]


def test_an_unknown_folder_is_refused_in_one_line_and_nothing_is_run(tmp_path: Path) -> None:
    app = submit(page(), "What is the fare?", tmp_path / "nowhere")
    assert not app.exception
    assert [e.value for e in app.error] == [f"corpus folder {tmp_path / 'nowhere'} does not exist"]
    assert app.session_state["page"].job is None
    assert runs(tmp_path) == []


def test_an_invalid_setting_is_shown_instead_of_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESEARCH_CITATION_STYLE", "chicago")
    get_settings.cache_clear()
    app = page()
    assert not app.exception
    assert "RESEARCH_CITATION_STYLE" in app.error[0].value


def test_web_sources_are_offered_only_with_a_search_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    monkeypatch.delenv("EXA_API_KEY", raising=False)
    app = page()
    assert app.multiselect[0].options == ["Local documents", "Academic (arXiv)", "Wikipedia"]
    assert any("TAVILY_API_KEY" in caption.value for caption in app.caption)

    monkeypatch.setenv("TAVILY_API_KEY", "tvly-page-test")
    get_settings.cache_clear()
    app = page()
    assert "Web" in app.multiselect[0].options and "News" in app.multiselect[0].options
    assert not any("TAVILY_API_KEY" in caption.value for caption in app.caption)
    shown = [*(c.value for c in app.caption), *(m.value for m in app.markdown), *(t.value for t in app.text_input)]
    assert not any("tvly-page-test" in str(text) for text in shown), "the key is never shown"


def test_a_research_with_no_source_chosen_is_refused_with_a_message() -> None:
    app = page()
    app.multiselect[0].set_value([])
    app = submit(app, "How many trams can the Kallbacka depot hold?")
    assert [e.value for e in app.error] == ["Choose at least one kind of source."]


# Runs ---------------------------------------------------------------------------------------------------


def test_a_research_shows_its_cited_report_and_the_history_lists_it(tmp_path: Path) -> None:
    question = "How many trams can the Kallbacka depot hold?"
    app = finish(submit(page(), question))  # the real offline services, over the fixture corpus
    assert not app.exception and not app.error
    report = markdown(app)
    assert "## Sources" in report and "52 trams" in report
    assert len(app.get("download_button")) == 1
    [record] = runs(tmp_path)
    assert record.status is RunStatus.COMPLETED and record.question == question
    assert [b.label for b in app.sidebar.button] == [question]
    assert "completed" in app.sidebar.caption[0].value and "standard, local" in app.sidebar.caption[0].value


def test_stop_cancels_a_slow_run_and_the_report_can_be_written_from_what_was_gathered(tmp_path: Path) -> None:
    reasoner = SlowReasoner()
    app = submit(page(fake_services(reasoner)), TRAM_QUESTION)
    wait_for(lambda: "waiting" in reasoner.calls)  # read and extracted; now judging progress, slowly
    app.run()
    assert button(app, "Research").disabled, "one research at a time"
    lines = markdown(app)
    assert "**plan\\_strategy**: 1 sub-questions, 1 queries" in lines, "the status panel shows progress"
    assert "node_start" not in lines and "**evaluate\\_progress**" not in lines
    assert [r.status for r in runs(tmp_path)] == [RunStatus.RUNNING]

    clicked = time.time()
    button(app, "Stop").click()
    app.run()
    [record] = runs(tmp_path)
    assert record.status is RunStatus.CANCELLED
    assert record.updated_at - clicked < 1, "the run ended within a second of Stop"
    assert any("cancelled" in w.value and "gathered is kept" in w.value for w in app.warning)
    assert not [b for b in app.button if b.label == "Stop"]
    assert "2.40 euros" not in markdown(app)

    button(app, "Write report from what was gathered").click()
    app = finish(app.run())
    assert not app.error
    [record] = runs(tmp_path)
    assert record.status is RunStatus.COMPLETED
    assert "“A single tram fare costs 2.40 euros”" in markdown(app)
    assert "stopped on request" in markdown(app)
    assert reasoner.calls.count("waiting") == 1, "the slow step was not run again"


def test_a_stopped_run_can_be_resumed_to_the_end(tmp_path: Path) -> None:
    reasoner = SlowReasoner()
    app = submit(page(fake_services(reasoner)), TRAM_QUESTION)
    wait_for(lambda: "waiting" in reasoner.calls)
    button(app, "Stop").click()
    app.run()
    assert [r.status for r in runs(tmp_path)] == [RunStatus.CANCELLED]

    reasoner.slow = False
    button(app, "Resume").click()
    app = finish(app.run())
    [record] = runs(tmp_path)
    assert record.status is RunStatus.COMPLETED
    assert "stopped on request" not in record.report_markdown
    assert "2.40 euros" in markdown(app)


def test_a_past_run_reopens_from_the_history_and_can_be_run_again(tmp_path: Path) -> None:
    first = page(fake_services())
    first.segmented_control[0].set_value("quick")
    first.segmented_control[1].set_value("apa")
    finish(submit(first, TRAM_QUESTION))
    [record] = runs(tmp_path)

    app = page(fake_services())  # a new session: what it shows comes from the run store
    assert "2.40 euros" not in markdown(app)
    app.sidebar.button(key=f"history-{record.run_id}").click()
    app.run()
    assert "“A single tram fare costs 2.40 euros”" in markdown(app)
    assert len(app.get("download_button")) == 1
    assert any(record.run_id in c.value and "completed" in c.value for c in app.caption)

    button(app, "Run again").click()
    app.run()
    assert [t.value for t in app.text_input] == [TRAM_QUESTION, str(CORPUS)]
    assert app.multiselect[0].value == ["local"]
    assert [s.value for s in app.segmented_control] == ["quick", "apa"]

    app = finish(submit(app, "What does a tram fare cost?"))  # the analyst's own variation
    app.sidebar.button(key=f"history-{record.run_id}").click()
    app.run()
    button(app, "Run again").click()
    app.run()
    assert app.text_input[0].value == TRAM_QUESTION, "the form is filled again, even with the same values"


def test_an_unfinished_past_run_offers_resume_and_write_report(tmp_path: Path) -> None:
    store = RunStore.at(tmp_path / "db")
    parameters = RunParameters(
        depth=Depth.QUICK, source_types=["local"], citation_style=CitationStyle.NUMERIC, max_seconds=60
    )
    store.save(
        RunRecord(
            run_id="0123456789ab",
            question="An interrupted question",
            parameters=parameters,
            status=RunStatus.RUNNING,
            started_at=1.0,
            updated_at=1.0,
            pid=2**22 + 7,  # no such process: the run was interrupted
        )
    )
    store.close()
    app = page()
    assert "interrupted" in app.sidebar.caption[0].value
    app.sidebar.button[0].click()
    app.run()
    assert any("interrupted" in w.value for w in app.warning)
    assert not button(app, "Resume").disabled and not button(app, "Write report from what was gathered").disabled
    assert not app.get("download_button")


def test_an_unexpected_failure_is_one_line_and_logged_with_its_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    app = submit(page(fake_services(BrokenReasoner())), TRAM_QUESTION)
    with caplog.at_level(logging.ERROR, logger="research_assistant.page"):
        app = finish(app)
    assert not app.exception
    [error] = [e.value for e in app.error]
    assert "RuntimeError: the planner tripped" in error and "\n" not in error and "second line" not in error
    [logged] = [r for r in caplog.records if r.name == "research_assistant.page"]
    assert logged.exc_info is not None and "the planner tripped" in str(logged.exc_info[1])
    [record] = runs(tmp_path)
    assert record.status is RunStatus.FAILED
    assert button(app, "Resume") and button(app, "Write report from what was gathered")


# The page's pure helpers ------------------------------------------------------------------------------------


def event(kind: EventKind, node: str = "search", message: str = "", level: str = "info") -> TraceEvent:
    return TraceEvent(run_id="r", seq=0, at=0.0, kind=kind, node=node, message=message, level=level)


def test_the_status_lines_are_the_progress_and_source_events_only() -> None:
    events = [
        event(EventKind.RUN_START, "", "started"),
        event(EventKind.NODE_START, "search"),
        event(EventKind.PROGRESS, "search", "3 queries, 5 results"),
        event(EventKind.SOURCE, "browse", "read: Fares (120 characters)"),
        event(EventKind.PROGRESS, "browse", "Exa failed", level="warning"),
        event(EventKind.NODE_END, "search"),
        event(EventKind.RUN_END, "", "completed"),
    ]
    assert page_module.status_lines(events) == [
        "**search**: 3 queries, 5 results",
        "**browse**: read: Fares (120 characters)",
        "⚠️ **browse**: Exa failed",
    ]


def test_status_lines_show_page_text_literally() -> None:
    [line] = page_module.status_lines(
        [event(EventKind.SOURCE, "browse/read_source", "read: ![x](http://t.example/p.png) *hi* <b>$5\nnext")]
    )
    assert line == "**browse/read\\_source**: read: !\\[x\\](http://t.example/p.png) \\*hi\\* \\<b>\\$5 next"


def test_one_line_keeps_the_first_line_and_clips_it() -> None:
    assert page_module.one_line("\n  first  \nsecond") == "first"
    assert page_module.one_line("x" * 400, width=10) == "x" * 9 + "…"
    assert page_module.one_line("") == ""


def test_run_again_takes_the_runs_question_and_parameters_but_only_sources_offered_now() -> None:
    record = RunRecord(
        run_id="r",
        question="Q?",
        parameters=RunParameters(
            depth=Depth.DEEP,
            source_types=["local", "web", "wiki"],
            corpus_dir="/docs",
            citation_style=CitationStyle.MLA,
            max_seconds=60,
            refresh=True,
        ),
        status=RunStatus.COMPLETED,
        started_at=0.0,
        updated_at=0.0,
    )
    defaults = page_module.FormValues(corpus="/default")
    values = page_module.form_from_run(record, ["local", "academic", "wiki"], defaults)
    assert values == page_module.FormValues(
        question="Q?", sources=("local", "wiki"), corpus="/docs", depth="deep", style="mla", refresh=True
    )
    web_only = record.model_copy(update={"parameters": record.parameters.model_copy(update={"corpus_dir": None})})
    assert page_module.form_from_run(web_only, ["local"], defaults).corpus == "/default"


def test_the_form_is_refused_with_the_first_problem(tmp_path: Path) -> None:
    values = page_module.FormValues
    assert page_module.refusal(values(question="", corpus=str(CORPUS))) == "Write a question first."
    assert page_module.refusal(values(question="Q", sources=())) == "Choose at least one kind of source."
    assert page_module.refusal(values(question="Q", corpus="")).startswith("Give a documents folder")
    (tmp_path / "empty").mkdir()
    assert "contains no .md" in page_module.refusal(values(question="Q", corpus=str(tmp_path / "empty")))
    assert page_module.refusal(values(question="Q", sources=("wiki",), corpus="")) == ""
    assert page_module.refusal(values(question="Q", corpus=str(CORPUS))) == ""
