"""A small slice of the answer-quality benchmark (benchmarks/quality), end to end, on pages written here.

It needs none of the Debian documentation packages. It checks the benchmark's plumbing and the product's
citation honesty (every `[n]` resolves, no quotation is misattributed); whether the answer is found is left
to the benchmark itself, since answer quality is what the benchmark measures.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from quality import run
from quality.corpus import Question, copy_corpus
from quality.score import SCORE_KEYS

from research_assistant.settings import get_settings

SET = "tinydocs"


def page(title: str, *paragraphs: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    nav = "<div class='sphinxsidebar'><a href='index.html'>Contents</a></div>"
    return f"<html><head><title>{title}</title></head><body><h1>{title}</h1>{body}{nav}</body></html>"


PAGES = {
    "index.html": page("Quillmark handbook", "The Quillmark handbook describes the Quillmark markup compiler."),
    "guide/limits.html": page(
        "Limits",
        "A Quillmark document may nest sections at most 9 levels deep.",
        "Each included file may be at most 4 megabytes; larger files are rejected with error Q412.",
    ),
    "guide/cache.html": page(
        "The build cache",
        "Quillmark keeps compiled fragments in the build cache, a folder named .qmcache beside the source.",
        "A fragment is recompiled when the hash of its source differs from the hash stored in the cache.",
    ),
    "reference/glossary.html": page(
        "Glossary",
        "QML stands for Quillmark Markup Language.",
        "A fragment is the compiled form of one section of a document.",
    ),
    "history.html": page("History", "Quillmark 1.0 was released in 2019. Version 2.0 added the build cache in 2022."),
    "_static/theme.html": page("Theme", "Not a page: an asset folder."),
    "genindex.html": page("Index", "Quillmark cache limits glossary QML fragment."),
}
QUESTIONS = [
    Question(
        "tiny-01", "How deeply may Quillmark nest sections?", "limit", ("9 levels",), ("guide/limits.html",), "dev"
    ),
    Question(
        "tiny-02",
        "What does QML stand for?",
        "acronym",
        ("Quillmark Markup Language",),
        ("reference/glossary.html",),
        "test",
    ),
    Question(
        "tiny-03",
        "When does Quillmark recompile a fragment from its build cache?",
        "how",
        ("hash of its source differs",),
        ("guide/cache.html",),
        "dev",
    ),
]
RUN_KEYS = {"set", "mode", "depth", "id", "split", "kind", "seconds", "exit", "stop_reason", "confidence", "scores"}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workdir holding the set's copied corpus, as the runner leaves it."""
    root = tmp_path_factory.mktemp("tinydocs-root")
    for relative, html in PAGES.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(html, encoding="utf-8")
    (root / "guide" / "limits.txt").write_text("Sources beside the page: not for the loader.", encoding="utf-8")
    folder = tmp_path_factory.mktemp("quality")
    assert copy_corpus(root, folder / SET / "corpus") == 5
    return folder


@pytest.fixture
def offline_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, value in run.environment_for(None, None).items():
        monkeypatch.setenv(name, value)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def check(result: dict[str, Any], mode: str, question: Question) -> None:
    assert set(result) >= RUN_KEYS, result
    assert (result["set"], result["mode"], result["depth"], result["id"]) == (SET, mode, "quick", question.id)
    assert result["error"] == "" and result["exit"] in (0, 3), result
    scores = result["scores"]
    assert set(scores) == SCORE_KEYS
    assert isinstance(scores["answer_stated"], bool) and isinstance(scores["gold_cited"], bool)
    assert scores["citations_resolve"], scores["unresolved_citations"]
    assert scores["misattributed"] == 0 and scores["listed_quotes_misattributed"] == 0, scores["quote_problems"]
    if result["exit"] == 0:
        assert scores["quotes_checked"] > 0, "the extractive reasoner quotes its evidence"
    assert scores["confidence"] is not None and 0 <= scores["confidence"] <= 100
    assert Path(result["report"]).read_text(encoding="utf-8").startswith("# ")


def test_the_copied_corpus_has_only_the_pages(workdir: Path) -> None:
    corpus = workdir / SET / "corpus"
    copied = sorted(p.relative_to(corpus).as_posix() for p in corpus.rglob("*") if p.is_file())
    assert copied.pop(0) == ".copied", "the marker of a complete copy (hidden: the loader skips it)"
    assert copied == sorted(name for name in PAGES if not name.startswith(("_static", "genindex")))


def test_offline_runs_are_scored_with_resolving_honest_citations(workdir: Path, offline_settings: None) -> None:
    target = run.Target.at(workdir, SET, "offline")
    index = asyncio.run(run.index_offline(target))
    assert index["this_run"]["indexed"] == 5 and index["first"]["indexed"] == 5
    results = []
    for question in QUESTIONS:
        result = asyncio.run(run.run_question(question, target, "quick", reports_dir=workdir / "reports"))
        check(result, "offline", question)
        assert all(not cited.startswith("/") for cited in result["cited"]), "cited pages are relative to the corpus"
        results.append(result)
    summaries = run.summaries(results)
    assert [(s["split"], s["runs"]) for s in summaries] == [("dev", 2), ("test", 1)]
    assert sum(s["quotes_checked"] for s in summaries) > 0, "some quotation was checked: the check is not vacuous"
    assert all(s["quotes_misattributed"] == 0 and s["citations_unresolved"] == 0 for s in summaries)
    assert "| tinydocs | offline | quick | dev | 2 |" in run.table(summaries)


def test_web_runs_search_the_served_pages_through_the_fake_tavily(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    web = run.start_web()
    try:
        for name, value in run.environment_for(None, web[1].base_url).items():
            monkeypatch.setenv(name, value)
        get_settings.cache_clear()
        target, info = run.serve_set(web, workdir, SET)
        assert info["pages"] == 5
        hits = web[1].hits_for("QML stands for")
        assert hits[0].url == f"{target.base}/reference/glossary.html" and "QML" in hits[0].text
        result = asyncio.run(run.run_question(QUESTIONS[2], target, "quick", reports_dir=workdir / "reports"))
        check(result, "web", QUESTIONS[2])
        assert web[0].requests > 0 and web[1].requests, "pages were found by search and fetched"
    finally:
        run.stop_web(web)
        get_settings.cache_clear()
