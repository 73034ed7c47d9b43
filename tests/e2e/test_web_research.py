"""Web research end to end: the real command line, the real Tavily client against a fake Tavily on
127.0.0.1, and a local mini-web serving good, JavaScript-only, failing, refused and PDF pages.

Nothing here touches the internet: the mini-web and the fake API listen on loopback, which the run is
allowed to fetch through `RESEARCH_ALLOW_PRIVATE_NETWORKS=127.0.0.0/8` (and nothing else private).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.citations import check_rendered_citations
from support.fake_search_apis import FakeHit, FakeSearchApi
from support.miniweb import ARTICLE_PARAGRAPHS, ARTICLE_TITLE, JS_ARTICLE_PARAGRAPHS, MiniWeb

from research_assistant.report.verify import parse_sources

QUESTION = "How much energy did the Marrow Estuary tidal kite array deliver in its first season?"
KEY = "tvly-test-key-not-secret"
PAGES = {
    "/articles/normal.html": "Tidal kites of the Marrow Estuary",
    "/articles/js-only.html": "The glass footbridge at Orrin Falls",
    "/paper.pdf": "Marrow Energy Cooperative annual report",
    "/error500": "Cooperative results page",
    "/private/secret.html": "Internal kite memo",
    "/redirect-private": "Kite array dashboard",
    "/gone.html": "Old kite article",
}
FAILED_REASONS = {
    "/error500": "HTTP 500",
    "/private/secret.html": "robots.txt",
    "/redirect-private": "refused",
    "/gone.html": "HTTP 404",
}


@pytest.fixture(scope="module")
def web() -> Iterator[tuple[MiniWeb, FakeSearchApi]]:
    with MiniWeb() as miniweb:
        hits = [
            FakeHit(miniweb.url(path), title, "Marrow Estuary tidal kite array.", 0.9) for path, title in PAGES.items()
        ]
        with FakeSearchApi("tavily", api_key=KEY, default_hits=hits) as tavily:
            yield miniweb, tavily


def environment(tavily: FakeSearchApi, workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RESEARCH_", "TAVILY_", "EXA_"))}
    env.update(
        RESEARCH_TAVILY_API_KEY=KEY,
        RESEARCH_TAVILY_BASE_URL=tavily.base_url,
        RESEARCH_ALLOW_PRIVATE_NETWORKS="127.0.0.0/8",
        RESEARCH_WAYBACK_BASE_URL="",
        RESEARCH_DB_DIR=str(workdir / "db"),
        RESEARCH_CACHE_DIR=str(workdir / "cache"),
        RESEARCH_FETCH_ATTEMPTS="2",
        RESEARCH_FETCH_BACKOFF_SECONDS="0.05",
        RESEARCH_FETCH_READ_TIMEOUT="5",
        RESEARCH_FETCH_TOTAL_TIMEOUT="20",
    )
    return env


def run_cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "research_assistant.cli", *args]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=180, check=False)


def cached_texts(cache: Path) -> dict[str, str]:
    documents = [json.loads(path.read_text()) for path in (cache / "documents").glob("*.json")]
    return {doc["locator"]: doc["text"] for doc in documents}


@pytest.mark.slow
def test_a_web_research_is_cited_lists_failures_and_a_rerun_fetches_nothing(
    web: tuple[MiniWeb, FakeSearchApi], tmp_path: Path
) -> None:
    miniweb, tavily = web
    env = environment(tavily, tmp_path)
    args = ["run", QUESTION, "--sources", "web", "--depth", "deep", "--max-iterations", "1", "--max-sources", "10"]
    args += ["--out", "report.md"]

    first = run_cli(args, env, tmp_path)
    assert first.returncode == 0, first.stderr
    report = (tmp_path / "report.md").read_text()
    texts = cached_texts(tmp_path / "cache")
    assert check_rendered_citations(report, texts) == []
    cited = set(parse_sources(report).values())
    assert miniweb.url("/articles/normal.html") in cited
    assert "2.9 GWh" in report.split("## Sources")[0], "the answer is stated in the report's body"
    assert any(paragraph[:60] in texts[miniweb.url("/articles/normal.html")] for paragraph in ARTICLE_PARAGRAPHS)
    assert ARTICLE_TITLE.split(":")[0] in report

    unread = report.split("## Sources that could not be read")[1].split("\n## ")[0]
    for path, reason in FAILED_REASONS.items():
        line = next(line for line in unread.splitlines() if miniweb.url(path) in line)
        assert reason in line, line
    assert miniweb.hits["/private/secret.html"] == 0, "robots.txt refused it before any request"
    assert miniweb.hits["/articles/normal.html"] == 1, "found by every query, fetched once"
    fetched_twice = {path: n for path, n in miniweb.hits.items() if n > 1 and path != "/error500"}
    assert fetched_twice == {}, "no page is fetched twice (the browser reuses the static fetch)"

    if shutil.which("chromium"):
        rendered = texts[miniweb.url("/articles/js-only.html")]
        assert JS_ARTICLE_PARAGRAPHS[0][:50] in rendered, "the JavaScript-only page was rendered"
        assert "via browser" in report or miniweb.url("/articles/js-only.html") not in cited
    assert "[fetch] " not in first.stderr
    assert "from cache" not in first.stderr

    hits_before, searches_before = sum(miniweb.hits.values()), len(tavily.requests)
    second = run_cli(args, env, tmp_path)
    assert second.returncode == 0, second.stderr
    assert sum(miniweb.hits.values()) == hits_before, "the second identical run fetched no page"
    again = [request.body for request in tavily.requests[searches_before:]]
    assert again == [], first.stderr
    assert "from cache" in second.stderr
    rerun = (tmp_path / "report.md").read_text()
    assert rerun.split("## Sources")[0] == report.split("## Sources")[0], "the same findings, cited the same way"
    assert "from cache" in rerun.split("## About this report")[1]


def test_fetch_shows_what_research_sees_of_a_page_or_why_it_is_refused(
    web: tuple[MiniWeb, FakeSearchApi], tmp_path: Path
) -> None:
    miniweb, tavily = web
    env = environment(tavily, tmp_path)
    shown = run_cli(["fetch", miniweb.url("/articles/normal.html")], env, tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "Access method:" in shown.stdout and "http" in shown.stdout
    assert "Author:        Ilse Varga" in shown.stdout
    assert ARTICLE_PARAGRAPHS[2][:40] in shown.stdout

    refused = run_cli(["fetch", miniweb.url("/redirect-private")], env, tmp_path)
    assert refused.returncode == 2
    assert "refused" in refused.stderr and "169.254.169.254" in refused.stderr
    assert "Traceback" not in refused.stderr

    not_a_url = run_cli(["fetch", "file:///etc/passwd"], env, tmp_path)
    assert not_a_url.returncode == 2 and "not an http(s) URL" in not_a_url.stderr
