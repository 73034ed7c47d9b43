"""The research page, driven with Streamlit's AppTest: inputs, a run, the report, errors."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from research_assistant.settings import get_settings

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("RESEARCH_DB_DIR", str(tmp_path / "db"))
    monkeypatch.setenv("RESEARCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("RESEARCH_CORPUS_DIR", str(CORPUS))
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def page() -> AppTest:
    return AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120).run()


def submit(app: AppTest, question: str, corpus: Path | str = CORPUS) -> AppTest:
    app.text_input[0].input(question)
    app.text_input[1].input(str(corpus))
    app.button[0].click()
    return app.run()


def test_the_page_offers_the_research_inputs_and_says_it_is_offline() -> None:
    app = page()
    assert not app.exception
    assert app.title[0].value == "Research assistant"
    assert [t.label for t in app.text_input] == ["Research question", "Documents folder"]
    assert "Offline mode" in app.caption[0].value


def test_a_research_shows_its_cited_report_and_offers_the_markdown() -> None:
    app = submit(page(), "How many trams can the Kallbacka depot hold?")
    assert not app.exception
    report = "\n".join(m.value for m in app.markdown)
    assert "## Sources" in report and "52 trams" in report
    assert not app.error
    assert len(app.get("download_button")) == 1


def test_an_empty_question_is_refused_with_a_message() -> None:
    app = submit(page(), "   ")
    assert [e.value for e in app.error] == ["Write a question first."]


def test_a_missing_folder_is_refused_with_a_message(tmp_path: Path) -> None:
    app = submit(page(), "What is the fare?", tmp_path / "nowhere")
    assert not app.exception
    assert "does not exist" in app.error[0].value


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
