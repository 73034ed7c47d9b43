"""An identical re-run of an offline research finds its evidence remembered: it extracts nothing again and writes
the very same report, in the same process or in another one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from support.corpora import written_corpus
from support.extractions import counted_extractions

from research_assistant import services
from research_assistant.context import Context, Depth
from research_assistant.runner import run_research

QUESTION = "How many trams does the Kallbacka depot hold?"
FILES = {
    "overview.md": "# The Tram Network\n\nThe network opened in 1987 and has six lines with 42.5 km of route.\n",
    "depot.md": "# Kallbacka Depot\n\nThe depot opened in 2009. It holds 52 trams on fourteen covered tracks.\n",
    "fares.md": "# Fares\n\nA single adult ticket costs 2.80 crowns. A monthly pass costs 58 crowns.\n",
}


@pytest.fixture
def extractions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sub-questions the extractive reasoner extracts evidence for, call by call."""
    return counted_extractions(monkeypatch)


def research(tmp_path: Path) -> dict[str, Any]:
    corpus = tmp_path / "corpus"
    context = Context(
        depth=Depth.QUICK,
        corpus_dir=corpus.resolve() if corpus.exists() else written_corpus(corpus, FILES),
        db_dir=tmp_path / "db",
        cache_dir=tmp_path / "cache",
    )
    return asyncio.run(run_research(QUESTION, context))


def test_an_identical_rerun_extracts_nothing_again(tmp_path: Path, extractions: list[str]) -> None:
    first = research(tmp_path)
    assert extractions and first["evidence"]
    extractions.clear()
    again = research(tmp_path)
    assert extractions == []
    assert again["report_markdown"] == first["report_markdown"] and "52 trams" in first["report_markdown"]


def test_a_rerun_in_another_process_finds_the_evidence_on_disk(
    tmp_path: Path, extractions: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    first = research(tmp_path)
    extractions.clear()
    monkeypatch.setattr(services, "_shared", {})  # nothing kept in memory, as in a new process
    again = research(tmp_path)
    assert extractions == []
    assert again["report_markdown"] == first["report_markdown"]


def test_an_edited_file_is_extracted_again(tmp_path: Path, extractions: list[str]) -> None:
    first = research(tmp_path)
    (tmp_path / "corpus" / "depot.md").write_text(FILES["depot.md"].replace("52 trams", "61 trams"))
    extractions.clear()
    again = research(tmp_path)
    assert extractions
    assert "61 trams" in again["report_markdown"] and "52 trams" in first["report_markdown"]
