"""The research page in a real browser: `streamlit run` on 127.0.0.1, driven by Playwright and Debian's Chromium.

The page is started as an analyst starts it (from the project root, offline, no keys), a research runs over the
sample corpus through the form, and the test checks what the analyst sees: the report's title, its numbered
citations, a Sources list naming files of the corpus, its figures in one row, the Markdown, PDF and Word downloads,
and the run opened by its link. A second test serves the page with its research held at a step
(`held_page_app.py`), so that the run is surely still going: the progress and Stop are in view the moment Research
is clicked, a reload finds the run again by its address, Stop stops it and Resume carries it to its report.
Screenshots are kept in the artifacts folder (`TEST_ARTIFACTS_DIR`, `test-artifacts/` by default): the whole
report (`page-report.png`) and the window while the research runs (`page-running.png`); when a test fails it
keeps `page-failure.png` there instead, and the assertion carries the server's log.

Nothing leaves the machine: the server gets no key and writes into temporary folders, and Chromium resolves
no name but 127.0.0.1 and sends anything not for 127.0.0.1 to a closed port.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from docx import Document as DocxDocument
from playwright.sync_api import Browser, Locator, Page, Request, expect, sync_playwright
from pypdf import PdfReader
from support.server_process import Server, free_port, stop, wait_until_ready

from research_assistant.corpus.files import SUPPORTED_SUFFIXES
from research_assistant.settings import Settings

pytestmark = pytest.mark.slow

# What the page shows, by label: update these when the page's labels change. ----------------------------------
QUESTION_FIELD = "Research question"  # text box
CORPUS_FIELD = "Documents folder"  # text box
LOCAL_SOURCES = "Local documents"  # checkbox, where the page has one: ticked
REVIEW_PLAN = re.compile(r"^Review the plan")  # checkbox, where the page has one: left off, or the run waits
DEPTH_GROUP, QUICK_DEPTH = "Depth", "quick"  # segmented control (a radio group) and its option
RESEARCH_BUTTON = "Research"  # the form's submit button, matched exactly ("Run again" is another button)
DOWNLOAD_BUTTON = re.compile(r"\breport \(markdown\)", re.IGNORECASE)  # "Download report (Markdown)", "Report (…)"
REPORT_TITLE = re.compile(r"manage memory and reclaim reference cycles", re.IGNORECASE)  # the report's h1
SOURCES_HEADING = "Sources"  # heading of the Sources list (or of the source cards)
NOT_CITED_HEADING = re.compile(r"^(Read but not cited|Could not be read)\b")  # lists after the cited sources' cards
REPORT_END = "Report as Markdown (to copy)"  # an expander drawn after the report's sources: the view is complete
CITATION = "[1]"
CITATION_LINKS = 'a[href^="#source-"]'  # clickable citations, where the page has them ...
CITATION_TEXT = re.compile(r"^\[\d+\]$")  # ... told from the headings' own "#source-n" anchor links by their text
STOP_BUTTON, RESUME_BUTTON = "Stop", "Resume"  # buttons of a running, and of a stopped, research
PROGRESS_BAR = '[data-testid="stProgress"]'  # the running research's progress bar
METRIC = '[data-testid="stMetric"]'  # the run's figures, in one row
HELD_STEP = re.compile(r"Judge progress")  # the step a held research waits in
STOPPED = re.compile(r"This run was cancelled")  # what the page says of a stopped run
FAILED = re.compile(r"failed", re.IGNORECASE)  # what the page says when a run fails

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "examples" / "python-memory"
QUESTION = "How does Python manage memory and reclaim reference cycles?"
ARTIFACTS = Path(os.environ.get("TEST_ARTIFACTS_DIR", ROOT / "test-artifacts"))
SCREENSHOT = "page-report.png"
RUNNING_SCREENSHOT = "page-running.png"
HELD_APP = "tests/e2e/held_page_app.py"
HOLD_VARIABLE = "PAGE_TEST_HOLD_FILE"
FAILURE_SCREENSHOT = "page-failure.png"

STARTUP_SECONDS = 60.0
SHUTDOWN_SECONDS = 10.0
REPORT_TIMEOUT_MS = 180_000  # a wait, not a limit: a loaded 2-core machine has taken over 60 s for the first run
WARNINGS_GRACE_MS = 5_000
ACTION_TIMEOUT_MS = 15_000
VIEWPORT = {"width": 1280, "height": 900}
MAX_SCREENSHOT_HEIGHT = 16_000

KEYS = ("TAVILY_API_KEY", "EXA_API_KEY", "RESEARCH_TAVILY_API_KEY", "RESEARCH_EXA_API_KEY")
"""Set empty for the server: no key, and none taken from a `.env` file either (the environment wins over it)."""
SECRET_WORDS = ("KEY", "TOKEN", "SECRET", "PASSWORD")
CHROMIUM_FENCE = (
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",  # every name lookup but 127.0.0.1 fails
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
)
DEAD_END_PROXY = {"server": "http://127.0.0.1:9", "bypass": "127.0.0.1"}
"""A closed port as proxy for everything but the page's own server: IP addresses cannot slip past the fence."""


def server_environment(workdir: Path) -> dict[str, str]:
    """The test's environment without keys or research and Streamlit settings, with the run's folders in `workdir`."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not any(word in name.upper() for word in SECRET_WORDS) and not name.startswith(("RESEARCH_", "STREAMLIT_"))
    }
    env.update(dict.fromkeys(KEYS, ""))
    env["RESEARCH_DB_DIR"] = str(workdir / "research_db")
    env["RESEARCH_CACHE_DIR"] = str(workdir / "cache")
    env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture
def chromium() -> Path:
    executable = Settings().chromium_executable()
    if executable is None:
        pytest.skip("no Chromium executable: install Debian's chromium or set RESEARCH_CHROMIUM_PATH")
    return executable


@contextmanager
def serving(script: str, workdir: Path, **environment: str) -> Iterator[Server]:
    """`streamlit run script` from the project root on a free port of 127.0.0.1, until the block ends."""
    port = free_port()
    server = Server(url=f"http://127.0.0.1:{port}", log=workdir / "streamlit.log")
    command = [
        sys.executable, "-m", "streamlit", "run", script,
        "--server.address", "127.0.0.1", "--server.port", str(port),
        "--server.headless", "true", "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none",
    ]  # fmt: skip
    with server.log.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env={**server_environment(workdir), **environment}, stdin=subprocess.DEVNULL,
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        wait_until_ready(process, server, "/_stcore/health", "streamlit run", STARTUP_SECONDS)
        yield server
    finally:
        stop(process, SHUTDOWN_SECONDS)


@pytest.fixture
def streamlit_server(tmp_path: Path) -> Iterator[Server]:
    with serving("streamlit_app.py", tmp_path) as server:
        yield server


@pytest.fixture
def hold(tmp_path: Path) -> Path:
    """While this file exists, a research of the held server waits at its first progress judgement."""
    path = tmp_path / "hold"
    path.touch()
    return path


@pytest.fixture
def held_server(tmp_path: Path, hold: Path) -> Iterator[Server]:
    """The page, its research held while `hold` exists (`held_page_app.py`): a run that is surely still going."""
    with serving(HELD_APP, tmp_path, **{HOLD_VARIABLE: str(hold)}) as server:
        yield server


@pytest.fixture(autouse=True)
def patient_assertions() -> Iterator[None]:
    """Assertions wait as long as actions: a loaded 2-core machine has taken over 5 s (Playwright's default wait)
    to load the code of widgets the page shows for the first time with the report (its downloads, its metrics)."""
    expect.set_options(timeout=ACTION_TIMEOUT_MS)
    try:
        yield
    finally:
        expect.set_options(timeout=None)  # Playwright's default again


@pytest.fixture
def browser(chromium: Path) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(chromium), headless=True, args=list(CHROMIUM_FENCE), proxy=DEAD_END_PROXY
        )
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def diagnosed(page: Page, server: Server) -> Iterator[None]:
    """On failure: a screenshot of the page as it was, and the server's log in the assertion."""
    try:
        yield
    except Exception as error:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        try:
            full_page_screenshot(page, ARTIFACTS / FAILURE_SCREENSHOT)
        except Exception as screenshot_error:  # the page may be gone; the log matters more
            error.add_note(f"(no failure screenshot: {screenshot_error})")
        raise AssertionError(
            f"{error}\n\nscreenshot: {ARTIFACTS / FAILURE_SCREENSHOT}\nserver log tail:\n{server.log_tail()}"
        ) from error


def corpus_files() -> list[str]:
    return sorted(path.name for path in CORPUS.iterdir() if path.suffix.lower() in SUPPORTED_SUFFIXES)


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def full_page_screenshot(page: Page, path: Path) -> bytes:
    """The whole page: Streamlit scrolls inside its own container, so the viewport grows to the content first."""
    height = page.evaluate("() => Math.max(...Array.from(document.querySelectorAll('*'), e => e.scrollHeight))")
    page.set_viewport_size(
        {"width": VIEWPORT["width"], "height": min(max(height, VIEWPORT["height"]), MAX_SCREENSHOT_HEIGHT)}
    )
    png = page.screenshot(full_page=True)
    page.set_viewport_size(VIEWPORT)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png)
    return png


def set_checkbox(page: Page, name: str | re.Pattern[str], checked: bool) -> None:
    """Tick or clear a checkbox, when the page has it (Streamlit covers the box with its label: force the click)."""
    box = page.get_by_role("checkbox", name=name)
    if box.count() and box.is_checked() != checked:
        box.set_checked(checked, force=True)
        expect(box).to_be_checked(checked=checked)


def start_research(page: Page) -> None:
    research = page.get_by_role("button", name=RESEARCH_BUTTON, exact=True)
    page.get_by_role("textbox", name=QUESTION_FIELD, exact=True).fill(QUESTION)
    page.get_by_role("textbox", name=CORPUS_FIELD, exact=True).fill(str(CORPUS))
    set_checkbox(page, LOCAL_SOURCES, True)
    set_checkbox(page, REVIEW_PLAN, False)
    quick = page.get_by_role("radiogroup", name=DEPTH_GROUP).get_by_role("radio", name=QUICK_DEPTH, exact=True)
    if quick.is_visible():  # not waited for: a page without the choice researches at its default depth
        quick.click()
        expect(quick).to_be_checked()
    research.click()


def wait_for_report(main: Locator, trouble: Locator) -> Locator:
    """The report's title once it shows; a failure as soon as the page says something went wrong instead."""
    title = main.get_by_role("heading", name=REPORT_TITLE, level=1)
    expect(title.or_(trouble).first).to_be_visible(timeout=REPORT_TIMEOUT_MS)
    if not title.is_visible():
        try:
            expect(title).to_be_visible(timeout=WARNINGS_GRACE_MS)  # a report's own warnings come before it
        except AssertionError as error:
            raise AssertionError(f"the page shows no report but: {trouble.all_inner_texts()}") from error
    return title


def files_listed_between(start: Locator, end: Locator, scope: Locator, names: list[str]) -> list[str]:
    """Those of `names` shown in `scope` below `start` and above `end`, when the page has `end` (document order),
    each in a visible element."""
    bounds = [start.element_handle(), end.first.element_handle() if end.count() else None]
    between = (
        "(element, [start, end]) => Boolean(start.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_FOLLOWING)"
        " && (end === null || Boolean(end.compareDocumentPosition(element) & Node.DOCUMENT_POSITION_PRECEDING))"
    )
    return [
        name
        for name in names
        if any(element.is_visible() and element.evaluate(between, bounds) for element in scope.get_by_text(name).all())
    ]


def files_cited_in(markdown: str, names: list[str]) -> list[str]:
    """Those of `names` that the report's Sources list cites: named in one of its `[n]` entries."""
    sources = markdown.partition("\n## Sources\n")[2].partition("\n## ")[0]
    entries = [line for line in sources.splitlines() if re.match(r"\[\d+\] ", line)]
    return [name for name in names if any(name in entry for entry in entries)]


def check_citation_links(page: Page, main: Locator) -> None:
    """Clickable citations, where the page has them: the first leads to its source, an anchor that exists once."""
    links = main.locator(CITATION_LINKS).filter(has_text=CITATION_TEXT)
    if not links.count():
        return
    link = links.first
    anchor = (link.get_attribute("href") or "#")[1:]
    link.click()
    target = page.locator(f'[id="{anchor}"]')
    expect(target).to_have_count(1)
    expect(target).to_be_in_viewport()


def test_a_research_on_the_page_shows_a_cited_report_and_downloads_its_markdown(
    browser: Browser, streamlit_server: Server, tmp_path: Path
) -> None:
    for name in (SCREENSHOT, FAILURE_SCREENSHOT):  # the artifacts folder shows this run, not an earlier one
        (ARTIFACTS / name).unlink(missing_ok=True)
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    elsewhere: list[str] = []

    def note_request(request: Request) -> None:
        if not request.url.startswith((streamlit_server.url, "data:", "blob:")):
            elsewhere.append(request.url)

    context.on("request", note_request)
    page = context.new_page()
    try:
        with diagnosed(page, streamlit_server):
            page.goto(streamlit_server.url)
            main = page.get_by_role("main")
            expect(page.get_by_role("button", name=RESEARCH_BUTTON, exact=True)).to_be_enabled()  # the form is drawn
            alerts = main.get_by_role("alert")  # Streamlit's errors and warnings
            known = alerts.count()  # the form's own, if any; a new one means trouble
            start_research(page)
            wait_for_report(main, alerts.nth(known))
            expect(main.get_by_text(CITATION).first).to_be_visible()
            download = page.get_by_role("button", name=DOWNLOAD_BUTTON)
            expect(download).to_be_visible()
            assert in_viewport(page, download), f"the report's downloads are out of view: {download.bounding_box()}"
            sources = main.get_by_role("heading", name=SOURCES_HEADING, exact=True)
            expect(sources).to_be_visible()
            expect(main.get_by_text(REPORT_END, exact=True)).to_be_visible()  # every source card is drawn
            not_cited = main.get_by_role("heading", name=NOT_CITED_HEADING)
            cited = files_listed_between(sources, not_cited, main, corpus_files())  # the cards, not the sources after
            assert cited, f"no file of {CORPUS} is cited under {SOURCES_HEADING!r}"

            metrics = main.locator(METRIC)
            expect(metrics.last).to_be_visible()  # Streamlit loads the metric's code on first use
            tops = {round(box["y"]) for box in (metric.bounding_box() for metric in metrics.all()) if box}
            assert metrics.count() and len(tops) == 1, f"the run's figures wrap onto {len(tops)} rows"

            png = full_page_screenshot(page, ARTIFACTS / SCREENSHOT)
            assert (ARTIFACTS / SCREENSHOT).is_file()
            check_citation_links(page, main)

            with page.expect_download() as download_info:
                page.get_by_role("button", name=DOWNLOAD_BUTTON).click()
            downloaded = tmp_path / download_info.value.suggested_filename
            download_info.value.save_as(downloaded)
            documents = {}
            for label in ("Report (PDF)", "Report (Word)"):
                with page.expect_download(timeout=60_000) as other:
                    page.get_by_role("button", name=label).click()
                documents[label] = tmp_path / other.value.suggested_filename
                other.value.save_as(documents[label])

            link = page.url
            assert "run=" in link, f"the address does not name the run: {link}"
            reopened = context.new_page()  # a colleague opening the link: the same report, no new research
            with diagnosed(reopened, streamlit_server):
                reopened.goto(link)
                expect(reopened.get_by_role("main").get_by_text(CITATION).first).to_be_visible()
    finally:
        context.close()

    pdf_text = "".join(page_.extract_text() for page_ in PdfReader(documents["Report (PDF)"]).pages)
    assert CITATION in pdf_text, pdf_text[:500]
    assert "Sources" in pdf_text, pdf_text[-1500:]
    word = DocxDocument(str(documents["Report (Word)"]))
    word_text = "".join(node.text or "" for node in word.element.body.iter() if node.tag.endswith("}t"))  # links too
    assert CITATION in word_text, word_text[:500]
    missing = [name for name in cited if name not in word_text]
    assert not missing, f"{missing} are cited on the page but not in the Word report: {word_text[-1500:]}"

    markdown = downloaded.read_text(encoding="utf-8")
    assert markdown.startswith("# "), markdown[:200]
    assert "\n## Sources\n" in markdown, markdown
    assert CITATION in markdown, markdown
    in_report = files_cited_in(markdown, corpus_files())
    assert cited == in_report, f"the page cites {cited}, the downloaded report {in_report}"
    assert str(CORPUS.resolve()) not in markdown, "an export names documents relative to their folder"

    width, height = png_size(png)
    assert len(png) > 20_000, f"a {len(png)}-byte screenshot cannot show the report"
    assert width == VIEWPORT["width"] and height > VIEWPORT["height"], "the screenshot should show the whole report"
    assert not elsewhere, f"the page asked for something other than its server: {elsewhere}"


def in_viewport(page: Page, element: Locator) -> bool:
    """Whether the whole of `element` is on screen as the page is (Streamlit scrolls inside its own container, so
    the box is measured against the window's viewport, where the analyst sees it)."""
    box = element.bounding_box()
    viewport = page.viewport_size
    assert box is not None and viewport is not None, "the element is not drawn"
    return box["y"] >= 0 and box["x"] >= 0 and box["y"] + box["height"] <= viewport["height"]


def test_a_research_shows_its_progress_in_view_survives_a_reload_stops_and_resumes(
    browser: Browser, held_server: Server, hold: Path
) -> None:
    (ARTIFACTS / RUNNING_SCREENSHOT).unlink(missing_ok=True)
    context = browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    page = context.new_page()
    try:
        with diagnosed(page, held_server):
            page.goto(held_server.url)
            main = page.get_by_role("main")
            expect(page.get_by_role("button", name=RESEARCH_BUTTON, exact=True)).to_be_enabled()
            start_research(page)
            # The moment Research is clicked, the running research is in view: no scrolling to find it.
            stop_button = main.get_by_role("button", name=STOP_BUTTON, exact=True)
            expect(stop_button).to_be_visible()
            progress = main.locator(PROGRESS_BAR)
            expect(progress).to_be_visible()
            assert in_viewport(page, progress), f"the progress bar is out of view: {progress.bounding_box()}"
            assert in_viewport(page, stop_button), f"Stop is out of view: {stop_button.bounding_box()}"
            expect(page.get_by_role("button", name=RESEARCH_BUTTON, exact=True)).to_be_disabled()
            expect(main.get_by_text(HELD_STEP).first).to_be_visible(timeout=REPORT_TIMEOUT_MS)  # waiting at the hold
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=ARTIFACTS / RUNNING_SCREENSHOT)  # what the analyst sees, as they see it
            expect(page).to_have_url(re.compile(r"[?&]run=\w+"))
            run_link = page.url

            page.reload()  # the session is new; the run is found again by the run id in the address
            main = page.get_by_role("main")
            stop_button = main.get_by_role("button", name=STOP_BUTTON, exact=True)
            expect(stop_button).to_be_visible()
            assert page.url == run_link
            expect(main.get_by_text(HELD_STEP).first).to_be_visible()
            stop_button.click()
            expect(main.get_by_text(STOPPED)).to_be_visible()
            expect(stop_button).to_have_count(0)
            resume = main.get_by_role("button", name=RESUME_BUTTON, exact=True)
            expect(resume).to_be_enabled()
            expect(page.get_by_role("button", name=RESEARCH_BUTTON, exact=True)).to_be_enabled()

            hold.unlink()  # the research may go on now
            resume.click()
            wait_for_report(main, main.get_by_role("alert").filter(has_text=FAILED))
            expect(main.get_by_text(CITATION).first).to_be_visible()
    finally:
        context.close()
