"""The web reader's order of ways to a page's text: cache, plain fetch, browser, archive; and what it remembers."""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from research_assistant.knowledge.document_cache import DocumentCache
from research_assistant.knowledge.documents import source_id_for
from research_assistant.reading import CACHE_METHOD, ReadError
from research_assistant.schemas import SourceRecord, SourceType
from research_assistant.text.reading import READING_VERSION
from research_assistant.web.failures import FailureLog
from research_assistant.web.fetched import PAGE_TYPES, FetchedPage, FetchError, FetchRefused
from research_assistant.web.reader import WebPageReader
from research_assistant.web.render import RenderUnavailable

URL = "https://news.example.com/kites"
ARTICLE = "<html><head><title>Kites</title></head><body><article>{}</article></body></html>".format(
    "".join(
        f"<p>The tidal kite array delivered {n} GWh in season {n}, the cooperative reported.</p>" for n in range(12)
    )
)
SCRIPT_ONLY = (
    "<html><head><title>App</title></head><body><div id='root'></div>"
    "<noscript>Please enable JavaScript to view this page.</noscript><script src='/app.js'></script></body></html>"
)


def html(url: str, body: str) -> FetchedPage:
    return FetchedPage(
        url=url, final_url=url, status=200, content_type="text/html", body=body.encode(), charset="utf-8"
    )


class FakeFetcher:
    """Answers from a dict; an exception value is raised. Records every URL asked for."""

    def __init__(self, answers: dict[str, FetchedPage | FetchError]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    async def fetch(
        self, url: str, *, accept: Collection[str] | None = PAGE_TYPES, check_robots: bool = True
    ) -> FetchedPage:
        self.asked.append(url)
        answer = self.answers.get(url, FetchError("HTTP 404 Not Found", status=404))
        if isinstance(answer, FetchError):
            raise answer
        return answer


class FakeRenderer:
    def __init__(self, page: FetchedPage | FetchError) -> None:
        self.page = page
        self.rendered: list[str] = []

    async def render(self, url: str, *, main: FetchedPage | None = None) -> FetchedPage:
        assert main is not None and main.url == url, "the statically fetched document is handed over"
        self.rendered.append(url)
        if isinstance(self.page, FetchError):
            raise self.page
        return self.page

    async def aclose(self) -> None:
        pass


def source(url: str = URL) -> SourceRecord:
    return SourceRecord(
        id=source_id_for(url), locator=url, title="Found title", provider="tavily", source_type=SourceType.NEWS
    )


def reader(
    tmp_path: Path,
    fetcher: FakeFetcher,
    renderer: FakeRenderer | None = None,
    *,
    archive: str | None = None,
    ttl: float = 3600,
) -> WebPageReader:
    return WebPageReader(
        fetcher,
        DocumentCache(tmp_path),
        None,
        renderer=renderer,  # type: ignore[arg-type]
        archive_base_url=archive,
        ttl_seconds=ttl,
        render_min_chars=200,
        failures=FailureLog(tmp_path, 3600),
    )


async def test_a_page_is_fetched_once_then_served_from_the_cache(tmp_path: Path) -> None:
    fetcher = FakeFetcher({URL: html(URL, ARTICLE)})
    first = await reader(tmp_path, fetcher).read(source())
    assert first.access_method == "http" and first.title == "Kites"
    assert "delivered 3 GWh in season 3" in first.text
    again = await reader(tmp_path, fetcher).read(source())
    assert again.access_method == CACHE_METHOD and again.text == first.text
    assert fetcher.asked == [URL]
    await reader(tmp_path, fetcher).read(source(), refresh=True)
    assert fetcher.asked == [URL, URL]


async def test_a_cached_copy_older_than_the_ttl_is_fetched_again(tmp_path: Path) -> None:
    fetcher = FakeFetcher({URL: html(URL, ARTICLE)})
    document = await reader(tmp_path, fetcher).read(source())
    old = (datetime.now(UTC) - timedelta(hours=2)).isoformat()
    DocumentCache(tmp_path).put(document.model_copy(update={"fetched_at": old}))
    await reader(tmp_path, fetcher, ttl=3600).read(source())
    assert fetcher.asked == [URL, URL]


async def test_a_cached_copy_an_older_reading_made_is_read_again(tmp_path: Path) -> None:
    fetcher = FakeFetcher({URL: html(URL, ARTICLE)})
    document = await reader(tmp_path, fetcher).read(source())
    DocumentCache(tmp_path).put(document.model_copy(update={"reading": READING_VERSION - 1}))
    again = await reader(tmp_path, fetcher).read(source())
    assert fetcher.asked == [URL, URL] and again.reading == READING_VERSION


async def test_a_script_only_page_is_rendered(tmp_path: Path) -> None:
    renderer = FakeRenderer(html(URL, ARTICLE))
    document = await reader(tmp_path, FakeFetcher({URL: html(URL, SCRIPT_ONLY)}), renderer).read(source())
    assert renderer.rendered == [URL]
    assert document.access_method == "browser" and "season 5" in document.text


async def test_without_a_browser_the_static_text_is_used_and_the_document_says_so(tmp_path: Path) -> None:
    renderer = FakeRenderer(RenderUnavailable("no browser available: install Chromium"))
    static = SCRIPT_ONLY.replace("<div id='root'></div>", "<p>Kite array figures load here.</p>")
    document = await reader(tmp_path, FakeFetcher({URL: html(URL, static)}), renderer).read(source())
    assert document.access_method == "http"
    assert document.notes and "without running its JavaScript" in document.notes[0]
    assert "no browser available" in document.notes[0]


async def test_a_dead_page_is_read_from_its_archived_copy(tmp_path: Path) -> None:
    archive = "https://archive.example"
    snapshot = f"http://web.archive.example/web/20240105120000/{URL}"
    raw = f"http://web.archive.example/web/20240105120000id_/{URL}"
    availability = json.dumps(
        {"archived_snapshots": {"closest": {"available": True, "url": snapshot, "timestamp": "20240105120000"}}}
    )
    fetcher = FakeFetcher(
        {
            URL: FetchError("HTTP 410 Gone", status=410),
            f"{archive}/wayback/available?url=https%3A%2F%2Fnews.example.com%2Fkites": FetchedPage(
                url="a", final_url="a", status=200, content_type="application/json", body=availability.encode()
            ),
            raw: html(raw, ARTICLE),
        }
    )
    document = await reader(tmp_path, fetcher, archive=archive).read(source())
    assert document.access_method == "archive (Wayback Machine, 2024-01-05)"
    assert "season 7" in document.text
    assert "HTTP 410 Gone" in document.notes[0] and "2024-01-05" in document.notes[0]


async def test_a_refused_page_is_never_looked_up_in_the_archive(tmp_path: Path) -> None:
    fetcher = FakeFetcher({URL: FetchRefused("refused: robots.txt disallows it")})
    with pytest.raises(ReadError, match=r"robots\.txt"):
        await reader(tmp_path, fetcher, archive="https://archive.example").read(source())
    assert fetcher.asked == [URL]


async def test_a_failure_is_remembered_until_refresh(tmp_path: Path) -> None:
    fetcher = FakeFetcher({URL: FetchError("HTTP 500 Internal Server Error after 3 attempts", status=500)})
    with pytest.raises(ReadError, match="HTTP 500"):
        await reader(tmp_path, fetcher).read(source())
    with pytest.raises(ReadError, match="remembered from an earlier attempt"):
        await reader(tmp_path, fetcher).read(source())
    assert fetcher.asked == [URL]
    fetcher.answers[URL] = html(URL, ARTICLE)
    document = await reader(tmp_path, fetcher).read(source(), refresh=True)
    assert document.access_method == "http"
    assert FailureLog(tmp_path, 3600).recent(source().id) is None, "a success forgets the failure"
