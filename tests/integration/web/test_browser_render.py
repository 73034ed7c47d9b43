"""Rendering with the real Chromium: scripts run, and every request the page makes goes through our fetcher."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Collection
from pathlib import Path
from typing import Any, TypeVar

import pytest

from research_assistant.web.extract import extract_page
from research_assistant.web.fetched import FetchedPage, FetchError, FetchRefused
from research_assistant.web.render import IDLE_WAIT, BrowserRenderer, RenderUnavailable

CHROMIUM = Path("/usr/bin/chromium")
Test = TypeVar("Test", bound=Callable[..., Any])


def needs_chromium(test: Test) -> Test:
    """A test that launches the real browser: a few seconds, and skipped where Chromium is not installed."""
    skip = pytest.mark.skipif(not CHROMIUM.is_file(), reason="needs Debian's Chromium at /usr/bin/chromium")
    return pytest.mark.slow(skip(test))


SITE = "https://app.example.org"
PARAGRAPHS = [
    "The depot on Harbour Street houses 52 trams and opened in 1911.",
    "Its roof was replaced in 2019 after a storm damaged the northern hall.",
]
SHELL = f"""<!DOCTYPE html><html><head><title>Depot history</title>
<link rel="stylesheet" href="{SITE}/style.css"></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div>
<img src="{SITE}/logo.png" alt="">
<script src="/static/app.js"></script></body></html>"""
SCRIPT = """
fetch("/api/depot.json")
  .then((response) => response.json())
  .then((data) => {
    const root = document.getElementById("root");
    root.innerHTML = "<h1>" + data.title + "</h1>" + data.paragraphs.map((p) => "<p>" + p + "</p>").join("");
    navigator.sendBeacon && navigator.sendBeacon("/track", "x");
  });
"""


def page(url: str, content_type: str, body: str | bytes, *, final_url: str | None = None) -> FetchedPage:
    data = body.encode() if isinstance(body, str) else body
    return FetchedPage(url=url, final_url=final_url or url, status=200, content_type=content_type, body=data)


class DictFetcher:
    """A `PageFetcher` answering from a dict, recording each call; unknown URLs are a 404."""

    def __init__(self, pages: dict[str, FetchedPage | FetchError], *, slow: str = "", delay: float = 0.0) -> None:
        self.pages = pages
        self.calls: list[tuple[str, bool]] = []
        self.slow, self.delay = slow, delay
        self.in_flight = self.most_in_flight = 0

    async def fetch(self, url: str, *, accept: Collection[str] | None = None, check_robots: bool = True) -> FetchedPage:
        self.calls.append((url, check_robots))
        if url == self.slow:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
            await asyncio.sleep(self.delay)
            self.in_flight -= 1
        answer = self.pages.get(url) or FetchError(f"HTTP 404 for {url}", status=404)
        if isinstance(answer, FetchError):
            raise answer
        return answer

    @property
    def urls(self) -> list[str]:
        return [url for url, _ in self.calls]


def site() -> dict[str, FetchedPage | FetchError]:
    return {
        f"{SITE}/depot": page(f"{SITE}/depot", "text/html", SHELL),
        f"{SITE}/static/app.js": page(f"{SITE}/static/app.js", "application/javascript", SCRIPT),
        f"{SITE}/api/depot.json": page(
            f"{SITE}/api/depot.json", "application/json", json.dumps({"title": "Depot", "paragraphs": PARAGRAPHS})
        ),
        f"{SITE}/logo.png": page(f"{SITE}/logo.png", "image/png", b"\x89PNG"),
        f"{SITE}/style.css": page(f"{SITE}/style.css", "text/css", "body { color: red }"),
    }


@pytest.fixture
async def renderer() -> AsyncIterator[tuple[BrowserRenderer, DictFetcher]]:
    fetcher = DictFetcher(site())
    browser = BrowserRenderer(fetcher, CHROMIUM, timeout=20.0, max_bytes=1_000_000)
    yield browser, fetcher
    await browser.aclose()


@needs_chromium
async def test_a_document_already_fetched_is_rendered_without_fetching_it_again(
    renderer: tuple[BrowserRenderer, DictFetcher],
) -> None:
    browser, fetcher = renderer
    document = site()[f"{SITE}/depot"]
    assert isinstance(document, FetchedPage)

    rendered = await browser.render(f"{SITE}/depot", main=document)

    assert f"{SITE}/depot" not in fetcher.urls, "the handed-over document was used"
    assert f"{SITE}/static/app.js" in fetcher.urls
    assert PARAGRAPHS[0] in extract_page(rendered).text


@needs_chromium
async def test_scripts_build_the_page_from_json_fetched_through_our_fetcher(
    renderer: tuple[BrowserRenderer, DictFetcher],
) -> None:
    browser, fetcher = renderer

    rendered = await browser.render(f"{SITE}/depot")

    assert rendered.status == 200
    assert rendered.content_type == "text/html"
    assert rendered.final_url == f"{SITE}/depot"
    text = extract_page(rendered).text
    for paragraph in PARAGRAPHS:
        assert paragraph in text.split("\n\n")
    assert f"{SITE}/static/app.js" in fetcher.urls
    assert f"{SITE}/api/depot.json" in fetcher.urls
    # Only the main document is checked against robots.txt.
    assert fetcher.calls[0] == (f"{SITE}/depot", True)
    assert all(not robots for url, robots in fetcher.calls[1:])


@needs_chromium
async def test_images_stylesheets_and_posts_are_aborted_before_they_reach_the_fetcher(
    renderer: tuple[BrowserRenderer, DictFetcher],
) -> None:
    browser, fetcher = renderer

    await browser.render(f"{SITE}/depot")

    for never in (f"{SITE}/logo.png", f"{SITE}/style.css", f"{SITE}/track"):
        assert never not in fetcher.urls


@needs_chromium
async def test_a_refused_main_document_is_the_renders_error(renderer: tuple[BrowserRenderer, DictFetcher]) -> None:
    browser, fetcher = renderer
    fetcher.pages[f"{SITE}/private"] = FetchRefused("robots.txt disallows this page")

    with pytest.raises(FetchRefused, match=r"robots\.txt disallows this page"):
        await browser.render(f"{SITE}/private")


@needs_chromium
async def test_the_browser_starts_at_the_address_redirects_ended_on(
    renderer: tuple[BrowserRenderer, DictFetcher],
) -> None:
    browser, fetcher = renderer
    moved = page(f"{SITE}/old-depot", "text/html", SHELL, final_url=f"{SITE}/depot")
    fetcher.pages[f"{SITE}/old-depot"] = FetchedPage(
        url=moved.url, final_url=moved.final_url, status=200, content_type="text/html", body=moved.body,
        redirects=(f"{SITE}/old-depot",),
    )  # fmt: skip

    rendered = await browser.render(f"{SITE}/old-depot")

    assert rendered.url == f"{SITE}/old-depot"
    assert rendered.final_url == f"{SITE}/depot"
    assert rendered.redirects == (f"{SITE}/old-depot",)
    assert PARAGRAPHS[0] in extract_page(rendered).text


@needs_chromium
async def test_a_failing_script_leaves_the_shell(renderer: tuple[BrowserRenderer, DictFetcher]) -> None:
    browser, fetcher = renderer
    fetcher.pages[f"{SITE}/static/app.js"] = FetchRefused("address 10.0.0.1 is private")

    rendered = await browser.render(f"{SITE}/depot")

    assert b'<div id="root"></div>' in rendered.body
    assert f"{SITE}/api/depot.json" not in fetcher.urls


@needs_chromium
async def test_pages_larger_than_the_cap_are_refused() -> None:
    fetcher = DictFetcher(site())
    browser = BrowserRenderer(fetcher, CHROMIUM, timeout=20.0, max_bytes=200)
    try:
        with pytest.raises(FetchError, match="larger than 200 bytes"):
            await browser.render(f"{SITE}/depot")
    finally:
        await browser.aclose()


@needs_chromium
async def test_a_page_that_does_not_load_in_time_is_an_error() -> None:
    fetcher = DictFetcher(site(), slow=f"{SITE}/static/app.js", delay=60.0)  # the load event waits for the script
    browser = BrowserRenderer(fetcher, CHROMIUM, timeout=1.0, max_bytes=1_000_000)
    try:
        started = time.perf_counter()
        with pytest.raises(FetchError, match="rendering took longer than 1 s") as error:
            await browser.render(f"{SITE}/depot")
        assert time.perf_counter() - started < 20.0
        assert error.value.retryable
    finally:
        await browser.aclose()


@needs_chromium
async def test_the_browser_is_reused_and_at_most_two_pages_render_at_once() -> None:
    # Fetched while a page is open, slowly enough that the renders overlap even on a loaded machine.
    fetcher = DictFetcher(site(), slow=f"{SITE}/static/app.js", delay=1.0)
    browser = BrowserRenderer(fetcher, CHROMIUM, timeout=20.0, max_bytes=1_000_000)
    try:
        started = time.perf_counter()
        await browser.render(f"{SITE}/depot")
        first = time.perf_counter() - started
        launched = browser._session and browser._session.browser

        started = time.perf_counter()
        results = await asyncio.gather(*(browser.render(f"{SITE}/depot") for _ in range(5)))
        five = time.perf_counter() - started
    finally:
        await browser.aclose()

    assert all(PARAGRAPHS[1] in extract_page(result).text for result in results)
    assert fetcher.most_in_flight == 2
    assert launched is not None
    print(f"\nfirst render, with the launch: {first:.2f} s; five more: {five:.2f} s")


LATE_SHELL = f"""<!DOCTYPE html><html><head><title>Depot history</title></head>
<body><div id="root"></div><script src="{SITE}/static/late.js"></script></body></html>"""
LATE_SCRIPT = """
fetch("/api/depot.json")
  .then((response) => response.json())
  .then((data) => setTimeout(() => {
    document.getElementById("root").innerHTML = data.paragraphs.map((p) => "<p>" + p + "</p>").join("");
  }, 800));
"""
RESTLESS_SHELL = """<!DOCTYPE html><html><body><p id="clock">0</p><script>
let ticks = 0;
setInterval(() => { ticks += 1; document.getElementById("clock").textContent = "tick ".repeat(ticks); }, 100);
</script></body></html>"""


@needs_chromium
async def test_text_a_script_writes_well_after_its_last_request_is_waited_for(
    renderer: tuple[BrowserRenderer, DictFetcher],
) -> None:
    browser, fetcher = renderer
    fetcher.pages[f"{SITE}/late"] = page(f"{SITE}/late", "text/html", LATE_SHELL)
    fetcher.pages[f"{SITE}/static/late.js"] = page(f"{SITE}/static/late.js", "application/javascript", LATE_SCRIPT)

    rendered = await browser.render(f"{SITE}/late")

    assert PARAGRAPHS[1] in extract_page(rendered).text


@needs_chromium
async def test_a_page_that_never_stops_changing_is_taken_when_the_wait_runs_out(
    renderer: tuple[BrowserRenderer, DictFetcher],
) -> None:
    browser, fetcher = renderer
    fetcher.pages[f"{SITE}/clock"] = page(f"{SITE}/clock", "text/html", RESTLESS_SHELL)
    await browser.render(f"{SITE}/depot")  # the launch, not timed

    started = time.perf_counter()
    rendered = await browser.render(f"{SITE}/clock")

    assert b"tick" in rendered.body
    assert time.perf_counter() - started < IDLE_WAIT + 5.0


def render_in_new_loop(browser: BrowserRenderer, url: str) -> FetchedPage:
    return asyncio.run(browser.render(url))


@needs_chromium
def test_each_new_event_loop_gets_a_working_browser_and_the_old_one_is_shut_down() -> None:
    fetcher = DictFetcher(site())
    browser = BrowserRenderer(fetcher, CHROMIUM, timeout=20.0, max_bytes=1_000_000)

    first = render_in_new_loop(browser, f"{SITE}/depot")
    old = browser._session
    second = render_in_new_loop(browser, f"{SITE}/depot")
    asyncio.run(browser.aclose())

    assert PARAGRAPHS[0] in extract_page(first).text
    assert PARAGRAPHS[0] in extract_page(second).text
    assert old is not None and old.stopped
    assert browser._session is None


async def test_a_missing_browser_is_reported_in_one_line() -> None:
    browser = BrowserRenderer(DictFetcher(site()), Path("/nonexistent/chromium"), timeout=5.0, max_bytes=1000)

    with pytest.raises(RenderUnavailable) as error:
        await browser.render(f"{SITE}/depot")

    assert str(error.value) == (
        "no browser available: install Chromium (apt-get install chromium) or set RESEARCH_CHROMIUM_PATH"
    )
    assert isinstance(error.value, FetchError)


async def test_no_configured_browser_is_reported_too() -> None:
    browser = BrowserRenderer(DictFetcher(site()), None, timeout=5.0, max_bytes=1000)

    with pytest.raises(RenderUnavailable, match="no browser available"):
        await browser.render(f"{SITE}/depot")


async def test_a_browser_that_fails_to_start_is_unavailable(tmp_path: Path) -> None:
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    browser = BrowserRenderer(DictFetcher(site()), fake, timeout=5.0, max_bytes=1000)

    with pytest.raises(RenderUnavailable, match="no browser available") as error:
        await browser.render(f"{SITE}/depot")

    assert "\n" not in str(error.value)
    with pytest.raises(RenderUnavailable):  # remembered: no second launch attempt
        await browser.render(f"{SITE}/depot")
