"""The whole offline research, end to end, over a fixture corpus of known facts.

Every report must state the fact it was asked for in a quotation cited to the
file that holds it, and every citation must check out against the text of the
file it names, read independently of the run's own cache.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from fixtures.corpus_facts import CONFLICT, CONSENSUS, FACTS
from support.citations import check_rendered_citations

from research_assistant.context import Context, Depth
from research_assistant.corpus.files import SUPPORTED_SUFFIXES
from research_assistant.corpus.loaders import load_file
from research_assistant.report.citations import unescape_markdown
from research_assistant.report.verify import parse_sources
from research_assistant.runner import run_research
from research_assistant.services import repository_at

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
EXAMPLES = ROOT / "examples" / "python-memory"
QUOTED = re.compile(r"“([^”]*)”((?:\s?\[\d+\])+)")


@cache
def texts_of(folder: Path) -> dict[str, str]:
    """Each document's text, keyed by the locator reports show, loaded afresh from disk."""
    return {
        path.resolve().as_posix(): load_file(path).text
        for path in sorted(folder.iterdir())
        if path.suffix.lower() in SUPPORTED_SUFFIXES
    }


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("research")


def research(question: str, workdir: Path, depth: Depth = Depth.QUICK, corpus: Path = CORPUS) -> dict[str, Any]:
    context = Context(depth=depth, corpus_dir=corpus, db_dir=workdir / "db", cache_dir=workdir / "cache")
    return asyncio.run(run_research(question, context))


def cited_quotes(markdown: str) -> list[tuple[str, list[str]]]:
    """(quotation, locators it cites) for every quotation in the report's body."""
    sources = parse_sources(markdown)
    body = markdown.split("\n## Sources")[0]
    return [
        (" ".join(unescape_markdown(quote).split()), [sources[int(n)] for n in re.findall(r"\d+", marks)])
        for quote, marks in QUOTED.findall(body)
    ]


@pytest.mark.parametrize(("question", "expected", "file_name"), FACTS, ids=[f[2] + ":" + f[1] for f in FACTS])
def test_the_report_states_the_fact_cited_to_the_file_that_holds_it(
    workdir: Path, question: str, expected: str, file_name: str
) -> None:
    markdown = research(question, workdir)["report_markdown"]
    supporting = [locators for quote, locators in cited_quotes(markdown) if expected in quote]
    assert supporting, f"no quotation states {expected!r}:\n{markdown}"
    assert any(locator.endswith("/" + file_name) for locators in supporting for locator in locators)
    assert check_rendered_citations(markdown, texts_of(CORPUS)) == []


def test_a_fact_two_documents_state_is_cited_to_both(workdir: Path) -> None:
    markdown = research(CONSENSUS["question"], workdir, Depth.STANDARD)["report_markdown"]
    cited = {
        Path(locator).name
        for quote, locators in cited_quotes(markdown)
        if CONSENSUS["expected"] in quote
        for locator in locators
    }
    assert set(CONSENSUS["files"]) <= cited
    assert check_rendered_citations(markdown, texts_of(CORPUS)) == []


def test_both_sides_of_a_disagreement_are_reported(workdir: Path) -> None:
    markdown = research(CONFLICT["question"], workdir, Depth.STANDARD)["report_markdown"]
    quotes = cited_quotes(markdown)
    for file_name, value in CONFLICT["values"].items():
        assert any(value in quote and any(loc.endswith("/" + file_name) for loc in locs) for quote, locs in quotes)
    assert check_rendered_citations(markdown, texts_of(CORPUS)) == []


def test_every_source_in_the_report_was_read_and_every_failure_has_a_reason(workdir: Path) -> None:
    result = research("What does the Kallbacka depot do?", workdir, Depth.STANDARD)
    read = {s.locator for s in result["sources"].values() if s.status.value == "read"}
    assert set(parse_sources(result["report_markdown"]).values()) <= read
    assert all(s.reason for s in result["sources"].values() if s.status.value == "failed")


def test_the_repository_records_which_run_indexed_each_document(tmp_path: Path) -> None:
    context = Context(depth=Depth.QUICK, corpus_dir=CORPUS, db_dir=tmp_path / "db", cache_dir=tmp_path / "cache")
    result = asyncio.run(run_research("How long is the network?", context))
    collection = repository_at(context.db_dir)._collection
    firsts = collection.get(where={"chunk": 0}, include=["metadatas"])["metadatas"]  # a document's fields
    assert result["run_id"] and {chunk["run_id"] for chunk in firsts} == {result["run_id"]}
    assert {"source_id", "locator", "title", "fetched_at", "corpus"} <= set(firsts[0])


def test_the_same_corpus_and_question_give_the_same_report(tmp_path: Path) -> None:
    question = "What are the fares and how long is the network?"
    first = research(question, tmp_path / "one", Depth.STANDARD)["report_markdown"]
    again = research(question, tmp_path / "one", Depth.STANDARD)["report_markdown"]  # indexed already
    fresh = research(question, tmp_path / "two", Depth.STANDARD)["report_markdown"]  # indexed anew
    assert first == again == fresh


def test_the_readme_command_researches_the_sample_corpus(tmp_path: Path) -> None:
    """The quickstart's research command, as a newcomer runs it: a report whose citations all check out."""
    out = tmp_path / "report.md"
    completed = subprocess.run(
        [
            sys.executable, "-m", "research_assistant.cli", "run",
            "How does Python manage memory and reclaim reference cycles?",
            "--corpus", str(EXAMPLES), "--out", str(out),
        ],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert "Traceback" not in completed.stderr
    markdown = out.read_text(encoding="utf-8")
    assert len(cited_quotes(markdown)) >= 5
    assert check_rendered_citations(markdown, texts_of(EXAMPLES)) == []
    assert any(s in markdown for s in ("cycle", "garbage collector"))
