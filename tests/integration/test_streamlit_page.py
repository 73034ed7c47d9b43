"""The research page, driven with Streamlit's AppTest and fake services: its inputs, a run in the background
with its live progress, Stop and Resume, plan review, the report with its citations and source cards, the
downloads, History and comparison, and what the page says when something goes wrong.

The page's pure helpers are unit-tested in tests/unit/test_page_*.py.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pytest
import streamlit.testing.v1.app_test as app_test_module
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import Button, Checkbox, Widget
from support.fakes import (
    TRAM_DOCUMENTS,
    FakeDocuments,
    FakeProvider,
    FakeReader,
    FakeReasoner,
    FakeRepository,
    fake_services,
    make_document,
)

from research_assistant.context import CitationStyle, Context, Depth
from research_assistant.page.form import MODELS_MODE, OFFLINE_MODE, TOKENS_LABEL, USD_LABEL
from research_assistant.page.report_view import NO_FINDINGS
from research_assistant.reasoning.base import Step
from research_assistant.reasoning.llm.models import ROLES
from research_assistant.report.citations import unescape_markdown
from research_assistant.runner import saved_state
from research_assistant.runs.records import RunRecord, RunStatus
from research_assistant.runs.store import RunStore
from research_assistant.schemas import Finding, ProgressAssessment, ResearchReport, SourceType
from research_assistant.services import Services
from research_assistant.settings import get_settings

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
TRAM_QUESTION = "What is the tram fare?"  # what the fake services' documents answer


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("RESEARCH_DB_DIR", str(tmp_path / "db"))
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RESEARCH_CORPUS_DIR", str(CORPUS))
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    monkeypatch.delenv("EXA_API_KEY", raising=False)
    monkeypatch.delenv("RESEARCH_TAVILY_API_KEY", raising=False)
    monkeypatch.delenv("RESEARCH_EXA_API_KEY", raising=False)
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "RESEARCH_GEMINI_API_KEY", "RESEARCH_REASONER"):
        monkeypatch.delenv(name, raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


class RecordingMediaStorage(MemoryMediaFileStorage):
    """AppTest's media storage, kept reachable so that a test can read what a download button serves."""

    made: ClassVar[list[MemoryMediaFileStorage]] = []

    def __init__(self, media_endpoint: str) -> None:
        super().__init__(media_endpoint)
        RecordingMediaStorage.made.append(self)


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch) -> Callable[[AppTest], dict[str, tuple[str, bytes]]]:
    """label -> (file name, content) of every download button on the page."""
    RecordingMediaStorage.made = []
    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", RecordingMediaStorage)

    def read(app: AppTest) -> dict[str, tuple[str, bytes]]:
        served = {}
        for button in app.get("download_button"):
            name = button.proto.url.rsplit("/", 1)[-1]
            for storage in reversed(RecordingMediaStorage.made):
                try:
                    file = storage.get_file(name)
                except Exception:
                    continue
                served[button.proto.label] = (file.filename or "", file.content)
                break
        return served

    return read


@dataclass
class SlowReasoner(FakeReasoner):
    """Takes its time judging progress (until told not to), so that a run can be stopped mid-way."""

    slow: bool = True

    async def evaluate(self, *args: Any, **kwargs: Any) -> Step[ProgressAssessment]:
        if self.slow:
            self.calls.append("waiting")
            await asyncio.sleep(60)
        return await super().evaluate(*args, **kwargs)


class BrokenReasoner(FakeReasoner):
    async def plan(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the planner tripped\nover a second line")


def services_over(*documents: Any, reasoner: FakeReasoner | None = None) -> Services:
    """Fake services over the given documents, searched as local sources."""
    found = FakeDocuments({d.source_id: d for d in documents})
    return Services(
        reasoner=reasoner or FakeReasoner(),
        repository=FakeRepository(found),
        documents=found,
        providers=[FakeProvider(found)],
        readers={SourceType.LOCAL: FakeReader(found)},
    )


def page(services: Services | None = None) -> AppTest:
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=30).run()
    if services is not None:
        app.session_state["page"].services = services
    return app


def labelled(widgets: Any, label: str) -> Any:
    found = [w for w in widgets if w.label == label]
    assert len(found) == 1, f"{len(found)} widgets labelled {label!r}: {[w.label for w in widgets]}"
    return found[0]


def button(app: AppTest, label: str) -> Button:
    found: Button = labelled(app.button, label)
    return found


def checkbox(app: AppTest, name: str) -> Checkbox:
    """The form's checkbox for a kind of source ("source-web") or a provider ("provider-tavily")."""
    found = [c for c in app.checkbox if c.key and c.key.endswith(f"-{name}")]
    assert len(found) == 1, f"no checkbox {name}: {[c.key for c in app.checkbox]}"
    return found[0]


def submit(app: AppTest, question: str, corpus: Path | str = CORPUS) -> AppTest:
    app.text_area[0].input(question)
    labelled(app.text_input, "Documents folder").input(str(corpus))
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


def stop(app: AppTest) -> AppTest:
    """Click Stop, and let the page show the run once it has ended (Stop waits a moment only: a loaded machine
    may take longer to cancel the step in flight)."""
    job = app.session_state["page"].job
    button(app, "Stop").click()
    app.run()
    assert job is not None and job.background.wait(30), "the research did not stop"
    return app.run()


def markdown(app: AppTest) -> str:
    return "\n".join(m.value for m in app.markdown)


def runs(tmp_path: Path) -> list[RunRecord]:
    store = RunStore.at(tmp_path / "db")
    try:
        return store.recent()
    finally:
        store.close()


def state_of(tmp_path: Path, run_id: str) -> dict[str, Any]:
    return asyncio.run(saved_state(tmp_path / "db", run_id))


def errors(app: AppTest) -> list[str]:
    """The page's error messages as the analyst reads them (they are escaped Markdown)."""
    return [unescape_markdown(e.value) for e in app.error]


def no_html(app: AppTest) -> None:
    assert not [m.value for m in app.markdown if m.proto.allow_html], "nothing is rendered as HTML"


# The form -----------------------------------------------------------------------------------------------


def test_the_page_offers_the_research_inputs_and_labels_the_offline_mode() -> None:
    app = page()
    assert not app.exception
    assert app.title[0].value == "Research assistant"
    assert [t.label for t in app.text_area] == ["Research question"]
    assert [t.label for t in app.text_input] == ["Documents folder"]
    assert [f.label for f in app.get("file_uploader")] == ["Add documents"]
    assert [s.label for s in app.segmented_control] == ["Depth", "Citation style"]
    assert [n.label for n in app.number_input] == ["Max sources"] and app.number_input[0].value is None
    assert labelled(app.selectbox, "Published").value is None, "any date, unless chosen"
    assert [i.value for i in app.info] == [OFFLINE_MODE]
    assert any("budget cap" in c.value and "once a model is configured" in c.value for c in app.caption)
    assert not [m for m in app.markdown if "synthesis:" in m.value], "no models listed"
    widgets: list[Widget] = [*app.text_input, *app.number_input, *app.selectbox, *app.checkbox]
    assert not [w.label for w in widgets if "model" in w.label.lower() or "budget" in w.label.lower()]
    assert checkbox(app, "source-local").value and not checkbox(app, "source-web").value
    assert [h.value for h in app.sidebar.header] == ["History"]
    assert [c.value for c in app.sidebar.caption] == ["No research yet."]


ROLE_INPUTS = [f"{role.capitalize()} model" for role in ROLES]


def with_a_model_key(monkeypatch: pytest.MonkeyPatch, **settings: str) -> None:
    """Runs reason with Gemini (the fake services injected keep any model from being called)."""
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-page-test")
    for name, value in settings.items():
        monkeypatch.setenv(f"RESEARCH_{name.upper()}", value)
    get_settings.cache_clear()


def test_with_a_model_key_the_form_offers_a_model_per_role_and_the_budget_caps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with_a_model_key(monkeypatch, budget_usd="0.25", model_judge="gemini-2.5-pro")
    app = page()
    assert not app.exception
    assert [i.value for i in app.info] == [MODELS_MODE], "not the offline mode"
    assert [t.label for t in app.text_input] == ["Documents folder", *ROLE_INPUTS, TOKENS_LABEL, USD_LABEL]
    models = {role: labelled(app.text_input, label).value for role, label in zip(ROLES, ROLE_INPUTS, strict=True)}
    assert models == {
        "analysis": "google_genai:gemini-2.5-flash",
        "planning": "google_genai:gemini-2.5-flash",
        "extraction": "google_genai:gemini-2.5-flash",
        "evaluation": "google_genai:gemini-2.5-flash",
        "synthesis": "google_genai:gemini-2.5-pro",
        "judge": "google_genai:gemini-2.5-pro",  # the setting, written bare, as provider:model
    }
    assert labelled(app.text_input, TOKENS_LABEL).value == "", "no cap set: blank"
    assert labelled(app.text_input, USD_LABEL).value == "0.25"
    assert "RESEARCH_BUDGET_USD" in labelled(app.text_input, USD_LABEL).help
    shown = [markdown(app), *(c.value for c in app.caption), *(str(t.help) for t in app.text_input)]
    assert not any("gemini-page-test" in text for text in shown), "the key is never shown"


def test_an_edited_model_and_a_budget_reach_the_run_and_run_again_refills_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_a_model_key(monkeypatch, budget_usd="0.25")
    app = page(fake_services())
    labelled(app.text_input, "Synthesis model").input("openai:gpt-4o-mini")
    labelled(app.text_input, "Extraction model").input("gemini-2.5-flash-lite")  # a bare name: Gemini's
    labelled(app.text_input, "Planning model").input("gemini-2.5-flash")  # the setting, written bare
    labelled(app.text_input, TOKENS_LABEL).input("50,000")
    app = finish(submit(app, TRAM_QUESTION))
    assert not app.exception and not app.error
    [record] = runs(tmp_path)
    assert record.status is RunStatus.COMPLETED
    assert record.parameters.models == {
        "extraction": "google_genai:gemini-2.5-flash-lite",
        "synthesis": "openai:gpt-4o-mini",
    }, "only the roles changed from the settings"
    assert (record.parameters.budget_tokens, record.parameters.budget_usd) == (50_000, 0.25)
    assert "budget 50,000 tokens" in app.sidebar.caption[0].value

    app = page(fake_services())  # a new session: the run comes from the store
    app.sidebar.button(key=f"history-{record.run_id}").click()
    button(app.run(), "Run again").click()
    app.run()
    assert labelled(app.text_input, "Synthesis model").value == "openai:gpt-4o-mini"
    assert labelled(app.text_input, "Extraction model").value == "google_genai:gemini-2.5-flash-lite"
    assert labelled(app.text_input, "Planning model").value == "google_genai:gemini-2.5-flash"
    assert labelled(app.text_input, TOKENS_LABEL).value == "50000"
    assert labelled(app.text_input, USD_LABEL).value == "0.25"


@pytest.mark.parametrize(
    ("label", "written", "refused"),
    [
        ("Synthesis model", "gpt 4o", "The synthesis model 'gpt 4o' is not provider:model, such as "),
        ("Judge model", "openai:", "The judge model 'openai:' is not provider:model, such as "),
        (TOKENS_LABEL, "-5000", "The budget cap in tokens must be a whole number above 0, or left blank."),
        (USD_LABEL, "-0.5", "The budget cap in USD must be an amount above 0, such as 0.50, or left blank."),
    ],
)
def test_a_malformed_model_or_a_negative_budget_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, label: str, written: str, refused: str
) -> None:
    with_a_model_key(monkeypatch)
    app = page(fake_services())
    labelled(app.text_input, label).input(written)
    app = submit(app, TRAM_QUESTION)
    assert not app.exception
    [error] = errors(app)
    assert error.startswith(refused) and "\n" not in error
    assert app.session_state["page"].job is None and runs(tmp_path) == []


def test_providers_without_their_key_are_disabled_and_name_it(monkeypatch: pytest.MonkeyPatch) -> None:
    app = page()
    for name, key in (("provider-tavily", "TAVILY_API_KEY"), ("provider-exa", "EXA_API_KEY")):
        assert checkbox(app, name).disabled and key in checkbox(app, name).help
    assert not checkbox(app, "provider-wikipedia").disabled and checkbox(app, "provider-wikipedia").value
    assert not checkbox(app, "provider-arxiv").disabled
    for kind in ("source-web", "source-news"):
        assert checkbox(app, kind).disabled
        assert "TAVILY_API_KEY" in checkbox(app, kind).help and "EXA_API_KEY" in checkbox(app, kind).help
    assert not checkbox(app, "source-academic").disabled and not checkbox(app, "source-wiki").disabled
    assert any(c.value.startswith("Web, News: needs Tavily (set TAVILY_API_KEY) or Exa") for c in app.caption)

    monkeypatch.setenv("TAVILY_API_KEY", "tvly-page-test")
    get_settings.cache_clear()
    app = page()
    assert not checkbox(app, "provider-tavily").disabled and checkbox(app, "provider-tavily").value
    assert checkbox(app, "provider-exa").disabled
    assert not checkbox(app, "source-web").disabled and checkbox(app, "source-web").value, "web by default"
    shown = [*(c.value for c in app.caption), markdown(app), *(c.help for c in app.checkbox)]
    assert not any("tvly-page-test" in str(text) for text in shown), "the key is never shown"


def test_the_chosen_sources_providers_and_limits_reach_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-page-test")
    get_settings.cache_clear()
    app = page(fake_services())
    checkbox(app, "source-web").uncheck()
    checkbox(app, "provider-wikipedia").uncheck()
    app.number_input[0].set_value(1)
    labelled(app.selectbox, "Published").set_value(30)
    app.segmented_control[0].set_value("quick")
    app = finish(submit(app, TRAM_QUESTION))
    assert not app.exception and not app.error
    [record] = runs(tmp_path)
    parameters = record.parameters
    assert parameters.source_types == ["local"] and parameters.depth is Depth.QUICK
    assert (parameters.max_sources, parameters.recency_days) == (1, 30)
    assert parameters.providers == ["tavily", "arxiv"]
    assert record.metrics.sources_read == 1, "the run read no more sources than asked"
    assert "max sources 1" in app.sidebar.caption[0].value and "last 30 days" in app.sidebar.caption[0].value


def test_a_web_kind_with_none_of_its_providers_ticked_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-page-test")
    get_settings.cache_clear()
    app = page()
    checkbox(app, "provider-tavily").uncheck()
    app = submit(app, TRAM_QUESTION)
    assert errors(app) == ["Web needs one of its providers: tick Tavily."]
    assert app.session_state["page"].job is None and runs(tmp_path) == []


def test_an_empty_question_is_refused_with_a_message() -> None:
    app = submit(page(), "   ")
    assert errors(app) == ["Write a question first."]


def test_an_unknown_folder_is_refused_in_one_line_and_nothing_is_run(tmp_path: Path) -> None:
    app = submit(page(), "What is the fare?", tmp_path / "nowhere")
    assert not app.exception
    assert errors(app) == [f"corpus folder {tmp_path / 'nowhere'} does not exist"]
    assert app.session_state["page"].job is None
    assert runs(tmp_path) == []


def test_an_invalid_setting_is_shown_instead_of_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESEARCH_CITATION_STYLE", "chicago")
    get_settings.cache_clear()
    app = page()
    assert not app.exception
    assert "RESEARCH_CITATION_STYLE" in app.error[0].value


def test_a_research_with_no_source_chosen_is_refused_with_a_message() -> None:
    app = page()
    checkbox(app, "source-local").uncheck()
    app = submit(app, "How many trams can the Kallbacka depot hold?")
    (error,) = errors(app)
    assert error.startswith("No source is configured: choose local documents")


# Uploads ------------------------------------------------------------------------------------------------

NIGHT_TRAMS = (
    b"# Night trams\n\nThe night trams of Halvorsby are painted violet so that passengers can spot them after "
    b"dark. Night service runs from midnight until five in the morning.\n"
)


def test_an_uploaded_document_joins_the_corpus_and_is_cited(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "depot.md").write_text("# Depot\n\nThe Kallbacka depot holds 52 trams.\n", encoding="utf-8")
    app = page()  # the real offline services, over the folder and the upload
    app.get("file_uploader")[0].set_value(("night-trams.md", NIGHT_TRAMS, "text/markdown"))
    app.segmented_control[0].set_value("quick")
    app = finish(submit(app, "What colour are the night trams of Halvorsby painted?", folder))
    assert not app.exception and not app.error
    report = markdown(app)
    assert "“The night trams of Halvorsby are painted violet so that passengers can spot them after dark.”" in report
    [card] = [s for s in app.subheader if "Night trams" in s.value]
    assert card.proto.anchor.startswith("source-")
    assert f"](#{card.proto.anchor})" in report, "its citations link to its card"
    assert "`uploads/night-trams.md`" in report, "shown as a path in the run's corpus, not as a link"
    [record] = runs(tmp_path)
    corpus = Path(record.parameters.corpus_dir or "")
    assert corpus.is_relative_to(tmp_path / "cache" / "uploads")
    assert sorted(p.name for p in corpus.rglob("*.md")) == ["depot.md", "night-trams.md"], "the folder and the upload"
    assert [p.name for p in folder.iterdir()] == ["depot.md"], "the analyst's own folder is left alone"


def test_an_empty_upload_is_refused_in_one_line(tmp_path: Path) -> None:
    app = page(fake_services())
    app.get("file_uploader")[0].set_value(("notes.md", b"", "text/markdown"))
    app = submit(app, TRAM_QUESTION)
    assert errors(app) == ["notes.md is empty"]
    assert app.session_state["page"].job is None and runs(tmp_path) == []


def test_uploads_need_local_documents_ticked() -> None:
    app = page(fake_services())
    checkbox(app, "source-local").uncheck()
    checkbox(app, "source-wiki").check()
    app.get("file_uploader")[0].set_value(("notes.md", NIGHT_TRAMS, "text/markdown"))
    app = submit(app, TRAM_QUESTION)
    assert errors(app) == ["Uploaded documents are local documents: tick Local documents to research them."]


# The report ---------------------------------------------------------------------------------------------

HOSTILE_TITLE = "Fares <script>alert(1)</script> [click](javascript:alert(1)) ![x](http://t.example/p.png)"
WEB_FARES = make_document(
    "https://fares.example.org/tickets?id=1",
    "A single tram fare costs 2.40 euros. Children under six ride free.",
    HOSTILE_TITLE,
)
ODD_LOCATOR = make_document("javascript:alert(1)", "The tram network opened in 1911. It has five lines.", "Odd")


def test_the_report_links_each_citation_to_its_source_card(tmp_path: Path) -> None:
    app = finish(submit(page(services_over(WEB_FARES, ODD_LOCATOR, TRAM_DOCUMENTS[2])), TRAM_QUESTION))
    assert not app.exception and not app.error
    no_html(app)
    report = markdown(app)
    cards = {s.proto.anchor: s.value for s in app.subheader}
    assert set(cards) == {"source-1", "source-2", "source-3"}
    for anchor in cards:
        assert f"[\\[{anchor[7:]}\\]](#{anchor})" in report, f"a citation links to {anchor}"
    [web] = [anchor for anchor, title in cards.items() if "Fares" in title]
    assert "<script>" not in cards[web] and "\\<script\\>" in cards[web], "the title is shown literally"
    assert "](javascript" not in report and "](http://t.example" not in report, "no link comes from a title"
    assert "<https://fares.example.org/tickets?id=1>" in report, "a web source links to its page"
    assert "fares.example.org · web page" not in report  # the fake documents are local ones…
    assert "fares.example.org · local document" in report  # …on a web domain
    assert "`javascript:alert(1)`" in report and "(javascript:alert(1))" not in report, "other locators are inert"
    assert "- “A single tram fare costs 2.40 euros”" in report, "the card quotes the passage cited, in plain text"
    labels = [e.label for e in app.expander if not e.label.startswith("More settings")]
    assert labels[:3] == ["Summary", "Key findings", "Findings by sub-question"]
    assert "Sources" not in labels, "the cards replace the report's Sources list"
    assert [m.label for m in app.metric][:3] == ["Confidence", "Sources read", "Failed"]
    assert not [m for m in app.metric if m.label in ("Tokens", "Cost")], "no model, no tokens"


class InventingReasoner(FakeReasoner):
    """Writes a finding on evidence it never found, so that the citation check removes it."""

    async def synthesize(self, *args: Any, **kwargs: Any) -> Step[ResearchReport]:
        report = (await super().synthesize(*args, **kwargs)).value
        invented = Finding(text="Trams are free on Sundays", evidence_ids=["E-invented"], verbatim=True)
        return Step(report.model_copy(update={"key_findings": [*report.key_findings, invented]}))


def test_warnings_say_what_failed_and_what_was_removed(tmp_path: Path) -> None:
    services = services_over(*TRAM_DOCUMENTS, reasoner=InventingReasoner())
    assert isinstance(services.documents, FakeDocuments)
    services.readers[SourceType.LOCAL] = FakeReader(services.documents, broken={"/corpus/depot.md"})
    app = finish(submit(page(services), TRAM_QUESTION))
    [failed] = [s for s in app.subheader if "Could not be read" in s.value]
    assert failed.value == "Could not be read (1)" and failed.proto.anchor == "sources-failed"
    assert "Depot: `/corpus/depot.md` (the file is unreadable)" in markdown(app)
    assert [w.value for w in app.warning] == [
        "1 of 3 citations did not check out and were removed",
        "1 sources could not be read: they are listed with their reasons under [Sources](#sources-failed).",
    ]
    assert "free on Sundays" not in markdown(app)


def test_the_report_run_and_evidence_can_be_downloaded(
    tmp_path: Path, downloads: Callable[[AppTest], dict[str, tuple[str, bytes]]]
) -> None:
    fares = make_document(
        "/corpus/fares.md",
        "A single tram fare costs 2.40 euros. Tickets are sold at every stop and on board, and day passes too. "
        "Night buses cost extra.",
        "Fares",
    )
    app = finish(submit(page(services_over(fares, *TRAM_DOCUMENTS[1:])), TRAM_QUESTION))
    [record] = runs(tmp_path)
    served = downloads(app)
    assert set(served) == {"Report (Markdown)", "Run (JSON)", "Evidence (CSV)"}, "PDF and Word: made on click"
    labels = [b.label for b in app.get("download_button")]
    assert "Report (PDF)" in labels and "Report (Word)" in labels

    name, report = served["Report (Markdown)"]
    assert name == f"report-{record.run_id}.md"
    assert report.decode() == record.report_markdown
    assert "## Sources" in report.decode() and "“A single tram fare costs 2.40 euros”" in report.decode()

    name, data = served["Run (JSON)"]
    document = json.loads(data)
    assert name == f"run-{record.run_id}.json"
    assert document["question"] == TRAM_QUESTION and document["run_id"] == record.run_id
    assert document["parameters"]["depth"] == "standard" and document["metrics"]["evidence"] == 3
    assert {s["title"] for s in document["sources"].values()} == {"Fares", "History", "Depot"}
    assert "Night buses cost extra" not in data.decode(), "no page bodies, only what was quoted"

    name, table = served["Evidence (CSV)"]
    rows = list(csv.DictReader(io.StringIO(table.decode())))
    assert name == f"evidence-{record.run_id}.csv"
    assert {row["source_title"]: row["quote"] for row in rows}["Fares"] == "A single tram fare costs 2.40 euros"
    assert {row["locator"] for row in rows} == {"/corpus/fares.md", "/corpus/history.md", "/corpus/depot.md"}


# Runs: progress, Stop, Resume ---------------------------------------------------------------------------


def test_stop_cancels_a_slow_run_and_the_report_can_be_written_from_what_was_gathered(tmp_path: Path) -> None:
    reasoner = SlowReasoner()
    app = submit(page(fake_services(reasoner)), TRAM_QUESTION)
    wait_for(lambda: "waiting" in reasoner.calls)  # read and extracted; now judging progress, slowly
    app.run()
    assert button(app, "Research").disabled, "one research at a time"
    lines = markdown(app)
    assert "Done · **Plan**: 1 sub-questions, 1 queries" in lines, "one line per step, with its counts, in words"
    assert "Done · **Search** (round 1): 1 queries; 3 results, 3 new sources, 3 to read" in lines
    assert "Done · **Read sources** (round 1): 3 read, 0 failed" in lines
    assert "Running · **Judge progress** (round 1)" in lines, "the step running now"
    assert "- Searching: What is the tram fare" in lines, "the live log names each query…"
    assert "- Read (read via local-file): Fares" in lines, "…and each source read"
    assert any("1 queries · 3 sources read · 0 failed · 3 evidence items" in c.value for c in app.caption)
    [bar] = app.get("progress")
    assert 0.3 < bar.proto.value / 100 < 1 and "Judge progress" in bar.proto.text
    assert [r.status for r in runs(tmp_path)] == [RunStatus.RUNNING]

    stop(app)
    [record] = runs(tmp_path)
    assert record.status is RunStatus.CANCELLED
    assert any("cancelled" in w.value and "gathered is kept" in w.value for w in app.warning)
    assert not [b for b in app.button if b.label == "Stop"]
    assert "2.40 euros" not in markdown(app)

    button(app, "Write report from what was gathered").click()
    app = finish(app.run())
    assert not app.error
    [record] = runs(tmp_path)
    assert record.status is RunStatus.COMPLETED
    assert "“A single tram fare costs 2.40 euros”" in markdown(app)
    assert any("stopped on request" in w.value for w in app.warning), "the report says research stopped early"
    assert reasoner.calls.count("waiting") == 1, "the slow step was not run again"
    [bar] = app.get("progress")
    assert bar.proto.value == 100, "a run that completed is at 100%"


def test_a_stopped_run_can_be_resumed_to_the_end(tmp_path: Path) -> None:
    reasoner = SlowReasoner()
    app = submit(page(fake_services(reasoner)), TRAM_QUESTION)
    wait_for(lambda: "waiting" in reasoner.calls)
    stop(app)
    assert [r.status for r in runs(tmp_path)] == [RunStatus.CANCELLED]

    reasoner.slow = False
    button(app, "Resume").click()
    app = finish(app.run())
    [record] = runs(tmp_path)
    assert record.status is RunStatus.COMPLETED
    assert "stopped on request" not in record.report_markdown
    assert "2.40 euros" in markdown(app)
    assert "Done · **Plan**: 1 sub-questions, 1 queries" in markdown(app), "the progress goes on from before the stop"


# Plan review --------------------------------------------------------------------------------------------


def start_with_plan_review(tmp_path: Path, reasoner: FakeReasoner) -> AppTest:
    app = page(fake_services(reasoner))
    labelled(app.checkbox, "Review the plan before searching").check()
    app = finish(submit(app, TRAM_QUESTION))
    [record] = runs(tmp_path)
    assert record.status is RunStatus.INTERRUPTED and record.parameters.review_plan
    assert any("review" in i.value for i in app.info), "the page asks for the review"
    assert "waiting for plan review" in app.sidebar.caption[0].value
    assert not [b for b in app.button if b.label == "Resume"], "the plan is reviewed, not resumed"
    assert reasoner.calls == ["analyze", "plan"], "nothing was searched yet"
    return app


def test_a_plan_can_be_approved_as_proposed(tmp_path: Path) -> None:
    reasoner = FakeReasoner()
    app = start_with_plan_review(tmp_path, reasoner)
    assert labelled(app.text_area, "Sub-question 1").value == TRAM_QUESTION
    button(app, "Approve plan and research").click()
    app = finish(app.run())
    assert not app.error
    [record] = runs(tmp_path)
    assert record.status is RunStatus.COMPLETED
    assert state_of(tmp_path, record.run_id)["plan"].sub_questions[0].text == TRAM_QUESTION
    assert "“A single tram fare costs 2.40 euros”" in markdown(app)
    assert "plan approved as proposed" in markdown(app)


def test_an_edited_sub_question_is_the_one_researched(tmp_path: Path) -> None:
    reasoner = FakeReasoner()
    app = start_with_plan_review(tmp_path, reasoner)
    edited = "Do children ride the tram free?"
    labelled(app.text_area, "Sub-question 1").input(edited)
    labelled(app.text_area, "Add a sub-question (optional)").input("When did the depot open?")
    button(app, "Approve plan and research").click()
    app = finish(app.run())
    assert not app.error
    [record] = runs(tmp_path)
    assert record.status is RunStatus.COMPLETED
    plan = state_of(tmp_path, record.run_id)["plan"]
    assert [(s.text, s.queries) for s in plan.sub_questions] == [
        (edited, [edited]),
        ("When did the depot open?", ["When did the depot open?"]),
    ]
    assert f"### {edited}" in record.report_markdown, "the report is written on the edited plan"
    assert "edited plan: 2 sub-questions, 2 queries" in markdown(app)


def test_a_plan_with_every_sub_question_cleared_is_refused(tmp_path: Path) -> None:
    app = start_with_plan_review(tmp_path, FakeReasoner())
    labelled(app.text_area, "Sub-question 1").input("  ")
    button(app, "Approve plan and research").click()
    app.run()
    assert errors(app) == ["Keep at least one sub-question."]
    assert [r.status for r in runs(tmp_path)] == [RunStatus.INTERRUPTED]


# History ------------------------------------------------------------------------------------------------


def test_a_past_run_reopens_from_the_history_and_can_be_run_again(tmp_path: Path) -> None:
    first = page(fake_services())
    first.segmented_control[0].set_value("quick")
    first.segmented_control[1].set_value("apa")
    first.number_input[0].set_value(3)
    labelled(first.selectbox, "Published").set_value(365)
    finish(submit(first, TRAM_QUESTION))
    [record] = runs(tmp_path)

    app = page(fake_services())  # a new session: what it shows comes from the run store
    assert "2.40 euros" not in markdown(app)
    assert TRAM_QUESTION in [b.label for b in app.sidebar.button]
    assert "completed" in app.sidebar.caption[0].value and "quick, local, max sources 3" in app.sidebar.caption[0].value
    app.sidebar.button(key=f"history-{record.run_id}").click()
    app.run()
    assert "“A single tram fare costs 2.40 euros”" in markdown(app)
    assert [b.label for b in app.get("download_button")] == [
        "Report (Markdown)",
        "Report (PDF)",
        "Report (Word)",
        "Run (JSON)",
        "Evidence (CSV)",
    ]
    assert any(record.run_id in c.value and "completed" in c.value for c in app.caption)

    button(app, "Run again").click()
    app.run()
    assert app.text_area[0].value == TRAM_QUESTION
    assert labelled(app.text_input, "Documents folder").value == str(CORPUS)
    assert checkbox(app, "source-local").value
    assert [s.value for s in app.segmented_control] == ["quick", "apa"]
    assert app.number_input[0].value == 3 and labelled(app.selectbox, "Published").value == 365

    app.number_input[0].set_value(2)  # a tweak
    app = finish(submit(app, "What does a tram fare cost?"))
    newest = runs(tmp_path)[0]
    assert newest.parameters.max_sources == 2 and newest.parameters.recency_days == 365
    app.sidebar.button(key=f"history-{record.run_id}").click()
    app.run()
    button(app, "Run again").click()
    app.run()
    assert app.text_area[0].value == TRAM_QUESTION, "the form is filled again, even with the same values"


def test_two_runs_of_a_question_are_compared(tmp_path: Path) -> None:
    fares_2024, history = TRAM_DOCUMENTS[0], TRAM_DOCUMENTS[1]
    fares_2025 = make_document("/corpus/fares-2025.md", "A single tram fare costs 2.80 euros from May.", "Fares 2025")
    app = finish(submit(page(services_over(fares_2024, history)), TRAM_QUESTION))
    app.session_state["page"].services = services_over(fares_2025, history)
    app = finish(submit(app, "what is the tram fare"))  # the same question, written differently
    older, newer = sorted(runs(tmp_path), key=lambda r: r.started_at)

    picker = labelled(app.selectbox, "Compare with another run of this question")
    assert picker.options and picker.value is None
    folds = [e.label for e in app.expander]
    [compare] = [label for label in folds if label.startswith("Compare with another run of this question")]
    assert folds.index(compare) < folds.index("Summary"), "Compare is above the report, not below its sources"
    picker.set_value(older.run_id)
    app.run()
    lines = markdown(app)
    assert "**Sources**: 1 added, 1 removed, 1 in both" in lines
    assert "- ➕ added: Fares 2025 `/corpus/fares-2025.md`" in lines
    assert "- ➖ removed: Fares `/corpus/fares.md`" in lines
    assert "- ➕ added: A single tram fare costs 2.80 euros from May." in lines
    assert "- ➖ removed: A single tram fare costs 2.40 euros" in lines
    assert any(older.run_id in c.value and newer.run_id in c.value for c in app.caption)


def test_a_run_of_another_question_is_not_offered_for_comparison(tmp_path: Path) -> None:
    app = finish(submit(page(fake_services()), TRAM_QUESTION))
    app = finish(submit(app, "When did the tram network open?"))
    assert len(runs(tmp_path)) == 2
    assert not [s for s in app.selectbox if s.label.startswith("Compare")]


def test_an_unfinished_past_run_offers_resume_and_write_report(tmp_path: Path) -> None:
    store = RunStore.at(tmp_path / "db")
    parameters = Context(
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
    assert not app.exception
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
    [error] = errors(app)
    assert "RuntimeError: the planner tripped" in error and "\n" not in error and "second line" not in error
    [logged] = [r for r in caplog.records if r.name == "research_assistant.page"]
    assert logged.exc_info is not None and "the planner tripped" in str(logged.exc_info[1])
    [record] = runs(tmp_path)
    assert record.status is RunStatus.FAILED
    assert button(app, "Resume") and button(app, "Write report from what was gathered")
    assert "Research failed" in app.get("progress")[0].proto.text


# Links, History, honest states ----------------------------------------------------------------------------


def test_a_run_has_a_link_that_opens_it_and_can_be_deleted(tmp_path: Path) -> None:
    app = finish(submit(page(fake_services()), TRAM_QUESTION))
    [record] = runs(tmp_path)
    assert app.query_params["run"] in (record.run_id, [record.run_id]), "the page's address names the run"

    linked = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=30)
    linked.query_params["run"] = record.run_id
    linked.run()
    assert not linked.exception
    assert "“A single tram fare costs 2.40 euros”" in markdown(linked), "the link opens the run"
    assert [b.label for b in linked.get("download_button")][:3] == [
        "Report (Markdown)",
        "Report (PDF)",
        "Report (Word)",
    ]

    labelled(linked.text_input, "Search the history").input("no such words")
    linked.run()
    assert record.run_id not in [b.key for b in linked.sidebar.button if b.key]
    labelled(linked.text_input, "Search the history").input("tram fare")
    linked.run()
    assert f"history-{record.run_id}" in [b.key for b in linked.sidebar.button]

    linked.button(key="delete-run").click()
    linked.run()
    assert runs(tmp_path) == [], "the run is gone from the store"
    assert "run" not in linked.query_params


class EmptyHandedReasoner(FakeReasoner):
    """Finds no evidence in anything it reads: the report it writes has no findings."""

    async def extract(self, *args: Any, **kwargs: Any) -> Step[list[Any]]:
        await super().extract(*args, **kwargs)
        return Step([])


def test_a_report_without_findings_is_not_called_complete_and_offers_a_deeper_run(tmp_path: Path) -> None:
    app = page(fake_services(EmptyHandedReasoner()))
    app.segmented_control[0].set_value("quick")
    app.number_input[0].set_value(2)
    app = finish(submit(app, TRAM_QUESTION))
    assert not app.exception and not app.error
    [record] = runs(tmp_path)
    assert record.status is RunStatus.COMPLETED and record.metrics.evidence == 0
    [bar] = app.get("progress")
    assert "Research complete" not in bar.proto.text and "without findings" in bar.proto.text
    assert [s.label for s in app.status if "without findings" in s.label], "the status says it too"
    assert NO_FINDINGS in [w.value for w in app.warning]
    assert "completed without findings" in app.sidebar.caption[0].value, "the History does not call it complete"
    assert not [b for b in app.button if b.label in ("Resume", "Write report from what was gathered")]

    deeper = button(app, "Run again deeper (standard)")
    assert deeper.proto.type == "primary", "the way on is the first thing offered"
    deeper.click()
    app.run()
    assert app.text_area[0].value == TRAM_QUESTION
    assert app.segmented_control[0].value == "standard" and app.number_input[0].value is None
    app = finish(submit(app, TRAM_QUESTION))
    assert runs(tmp_path)[0].parameters.depth is Depth.STANDARD


def test_write_report_is_not_offered_for_a_run_stopped_before_it_gathered_anything(tmp_path: Path) -> None:
    reasoner = SlowReasoner()
    services = fake_services(EmptyHandedReasoner())
    services.reasoner = reasoner  # slow judging, and nothing gathered: stopped while judging an empty round
    reasoner.extract = EmptyHandedReasoner().extract  # type: ignore[method-assign]
    app = submit(page(services), TRAM_QUESTION)
    wait_for(lambda: "waiting" in reasoner.calls)
    stop(app)
    assert [r.status for r in runs(tmp_path)] == [RunStatus.CANCELLED]
    assert "Nothing has been gathered yet (3 sources read)" in unescape_markdown(markdown(app))
    assert button(app, "Write report from what was gathered").disabled, "it would write a report of nothing"
    assert not button(app, "Resume").disabled
