"""Rendering JavaScript-built pages in headless Chromium, without letting the browser touch the network.

Some pages ship an empty shell that scripts fill in. For those, Chromium runs
the scripts, but every request the page makes is intercepted: documents,
scripts and XHR/fetch GETs are fetched through our own `PageFetcher` and
answered from its result, so the SSRF guard, the byte caps and robots.txt
apply to each of them; everything else (images, media, fonts, stylesheets,
websockets, other methods and schemes) is aborted, since text does not need
it. As a second line of defence the browser's own name resolution fails for
every host and its proxy is a closed local port, so a request that slipped
past the interception would go nowhere.

The main document is fetched before the browser opens (with robots.txt
checked), so its `FetchError` is the render's error and the browser starts at
the address that redirects ended on: Chromium does not follow redirects
that interception answers for navigations.

One browser serves the renderer's whole life, a fresh context per page, at
most `PAGES_AT_ONCE` pages at a time. Playwright's objects belong to the event
loop that started them, and the services outlive loops (each research on the
page is its own `asyncio.run`), so a call from a new loop launches a new
browser; the old one is shut down as its loop ends, or at the latest killed
when the next loop arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from research_assistant.text.spaces import one_line
from research_assistant.web.fetched import FetchedPage, FetchError, PageFetcher

if TYPE_CHECKING:
    from playwright.async_api import Browser, Request, Route, WebSocketRoute
    from playwright.async_api import Page as PlaywrightPage

log = logging.getLogger(__name__)

NO_BROWSER = "no browser available: install Chromium (apt-get install chromium) or set RESEARCH_CHROMIUM_PATH"
PAGES_AT_ONCE = 2
IDLE_WAIT = 3.0
"""Most seconds to wait, after the load event, for the page's requests, timers and text to settle."""
QUIET = 0.25
"""Seconds without a request in flight that count as settled (Playwright's "networkidle" waits 0.5 s)."""
PENDING_WORK = """(() => {
  const pending = new Set(), set = window.setTimeout, clear = window.clearTimeout;
  window.setTimeout = function (callback, delay, ...rest) {
    if (typeof callback !== "function" || !(Number(delay || 0) <= LIMIT)) {
      return set.call(this, callback, delay, ...rest);
    }
    const run = function () { pending.delete(id); return callback.apply(this, arguments); };
    const id = set.call(this, run, delay, ...rest);
    pending.add(id);
    return id;
  };
  window.clearTimeout = function (id) { pending.delete(id); return clear.call(this, id); };
  Object.defineProperty(window, "__researchPendingTimers", { value: () => pending.size });
})();""".replace("LIMIT", f"{IDLE_WAIT * 1000:.0f}")
"""Run before the page's own scripts: counts its pending short timers, work it will still do without a request.

Only `setTimeout` up to `IDLE_WAIT` is counted; intervals and longer timers would never let a page settle.
"""
PAGE_STATE = """[
  window.__researchPendingTimers ? window.__researchPendingTimers() : 0,
  document.body ? document.body.innerText.length : 0,
]"""
"""The page's pending short timers and the length of its text, read once per poll of `_settle`."""
LAUNCH_TIMEOUT = 30.0
STOP_TIMEOUT = 5.0

CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)
"""Headless flags for a closed network; the last makes every name lookup of the browser's own fail."""
DEAD_END_PROXY = {"server": "http://127.0.0.1:9", "bypass": "<-loopback>"}
"""A closed port as proxy, loopback included, for requests to IP addresses that escaped interception."""
FETCHED_TYPES = frozenset({"document", "script", "xhr", "fetch"})
"""What a page needs to build its text; every other resource type is aborted."""


class RenderUnavailable(FetchError):
    """No browser: none is installed, or it failed to start. Rendering is skipped, not retried."""


@dataclass
class _Session:
    """A browser and the Playwright driver behind it, bound to the event loop that started them."""

    loop: asyncio.AbstractEventLoop
    slots: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(PAGES_AT_ONCE))
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    manager: Any = None
    playwright: Any = None
    browser: Browser | None = None
    guard: AsyncGenerator[None, None] | None = None
    stopped: bool = False


@dataclass
class _Page:
    """One render's state, shared with its request handler."""

    main: FetchedPage
    served_main: bool = False
    in_flight: int = 0
    last_activity: float = 0.0


class BrowserRenderer:
    """Renders pages in headless Chromium; every request the page makes goes through `fetcher`."""

    def __init__(self, fetcher: PageFetcher, executable_path: Path | None, *, timeout: float, max_bytes: int) -> None:
        self._fetcher = fetcher
        self._executable = executable_path
        self._timeout = timeout
        self._max_bytes = max_bytes
        self._session: _Session | None = None
        self._unavailable: RenderUnavailable | None = None

    async def render(self, url: str, *, main: FetchedPage | None = None) -> FetchedPage:
        """The page at `url` as its scripts leave it: status, final URL and the rendered DOM as HTML.

        `main` is the page's document when the caller has already fetched it (the reader fetches every
        page statically first), so it is not downloaded again. Raises `RenderUnavailable` when there is
        no browser, the main document's `FetchError`, or a `FetchError` when the page cannot be rendered
        within the timeout and the byte cap.
        """
        if self._unavailable is not None:
            raise self._unavailable
        if self._executable is None or not self._executable.is_file():
            self._unavailable = RenderUnavailable(NO_BROWSER)
            raise self._unavailable
        session = self._current_session()
        browser = await self._browser(session)
        if main is None:
            main = await self._fetcher.fetch(url, accept=None, check_robots=True)  # within the fetcher's own limits
        if main.content_type not in ("text/html", "application/xhtml+xml"):
            return main  # nothing to run: the page is what was fetched
        async with session.slots:
            try:
                async with asyncio.timeout(self._timeout):
                    return await self._render_page(browser, url, main)
            except TimeoutError:
                raise FetchError(f"rendering took longer than {self._timeout:g} s", retryable=True) from None

    async def aclose(self) -> None:
        """Close the browser and the driver; the next render launches them again."""
        session, self._session = self._session, None
        if session is None:
            return
        if session.loop is asyncio.get_running_loop():
            await _stop(session)
            if session.guard is not None:
                with contextlib.suppress(Exception):
                    await session.guard.aclose()
        else:
            _kill(session)

    # --- The browser --------------------------------------------------------------------------------------------

    def _current_session(self) -> _Session:
        loop = asyncio.get_running_loop()
        session = self._session
        if session is not None and session.loop is loop:
            return session
        if session is not None:  # its loop has ended (or runs elsewhere): its objects cannot be used from here
            _kill(session)
        self._session = _Session(loop)
        return self._session

    async def _browser(self, session: _Session) -> Browser:
        async with session.lock:
            if session.browser is not None and session.browser.is_connected():
                return session.browser
            if session.manager is not None:  # the browser crashed or was closed: start over
                await _stop(session)
                session.stopped = False
            if self._unavailable is not None:
                raise self._unavailable
            session.browser = await self._launch(session)
            if session.guard is None:
                session.guard = _stop_at_loop_end(session)
                await anext(session.guard)
            return session.browser

    async def _launch(self, session: _Session) -> Browser:
        from playwright.async_api import async_playwright

        started = asyncio.get_running_loop().time()
        session.manager = async_playwright()
        try:
            session.playwright = await session.manager.start()
            browser = await session.playwright.chromium.launch(
                executable_path=str(self._executable),
                headless=True,
                args=list(CHROMIUM_ARGS),
                proxy=DEAD_END_PROXY,
                timeout=LAUNCH_TIMEOUT * 1000,
            )
        except Exception as error:  # a missing library, a broken binary, a driver that would not start
            await _stop(session)
            session.manager = session.playwright = None
            self._unavailable = RenderUnavailable(
                f"{NO_BROWSER} ({self._executable} failed to start: {_error_text(error)})"
            )
            raise self._unavailable from None
        log.info("browser launched in %.2f s", asyncio.get_running_loop().time() - started)
        return browser

    # --- One page -----------------------------------------------------------------------------------------------

    async def _render_page(self, browser: Browser, url: str, main: FetchedPage) -> FetchedPage:
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import TimeoutError as PlaywrightTimeout

        state = _Page(main)
        context = await browser.new_context(java_script_enabled=True, accept_downloads=False, service_workers="block")
        try:
            await context.route("**/*", lambda route, request: self._answer(route, request, state))
            await context.route_web_socket("**/*", _refuse_socket)
            await context.add_init_script(PENDING_WORK)
            page = await context.new_page()
            try:
                await page.goto(main.final_url, wait_until="load", timeout=self._timeout * 1000)
            except PlaywrightTimeout:
                raise FetchError(f"rendering took longer than {self._timeout:g} s", retryable=True) from None
            except PlaywrightError as error:
                raise FetchError(f"the page could not be rendered ({_error_text(error)})") from None
            await _settle(state, page)
            html = await page.content()
            final_url = page.url
        finally:
            with contextlib.suppress(Exception):
                await context.unroute_all(behavior="ignoreErrors")
            with contextlib.suppress(Exception):
                await context.close()
        body = html.encode("utf-8")
        if len(body) > self._max_bytes:
            raise FetchError(f"the rendered page is larger than {self._max_bytes} bytes")
        return FetchedPage(
            url=url,
            final_url=final_url if final_url.startswith(("http://", "https://")) else main.final_url,
            status=state.main.status,
            content_type="text/html",
            body=body,
            charset="utf-8",
            redirects=state.main.redirects,
        )

    async def _answer(self, route: Route, request: Request, state: _Page) -> None:
        """Fulfil a request of the page from our fetcher, or abort it."""
        url = request.url
        if (
            request.method != "GET"
            or request.resource_type not in FETCHED_TYPES
            or urlsplit(url).scheme not in ("http", "https")
        ):
            await _abort(route, "blockedbyclient")
            return
        try:
            is_main = request.is_navigation_request() and request.frame.parent_frame is None
        except Exception:  # a request without a frame (a worker's): not the main document
            is_main = False
        state.in_flight += 1
        try:  # in flight until the browser has the answer, so the quiet time starts when the page can use it
            if is_main and not state.served_main and url == state.main.final_url:
                state.served_main = True
                fetched = state.main
            else:
                fetched = await self._fetcher.fetch(url, accept=None, check_robots=is_main)
                if is_main:
                    state.main = fetched
            content_type = fetched.content_type + (f"; charset={fetched.charset}" if fetched.charset else "")
            with contextlib.suppress(Exception):  # the page may have closed while the fetch ran
                await route.fulfill(status=fetched.status, headers={"content-type": content_type}, body=fetched.body)
        except FetchError as error:
            log.debug("render: %s refused: %s", url, error)
            await _abort(route, "failed")
        finally:
            state.in_flight -= 1
            state.last_activity = asyncio.get_running_loop().time()


async def _settle(state: _Page, page: PlaywrightPage) -> None:
    """Wait until the page is done building its text, at most `IDLE_WAIT` seconds.

    Done means: no request in flight for `QUIET` seconds (every request passes through `_answer`, which
    counts them), no short timer pending, and the same text length in two polls `QUIET` apart. Network
    quiet alone is not enough: a script runs after its last response, or after a timer, and on a loaded
    machine that can be well after the network went quiet. A page that keeps polling or changing never
    settles and is taken as it is when the wait runs out. A static page costs two reads and `QUIET` seconds.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + IDLE_WAIT
    seen: object = None
    while loop.time() < deadline:
        quiet_for = loop.time() - state.last_activity
        if state.in_flight or quiet_for < QUIET:
            await asyncio.sleep(QUIET - quiet_for if state.in_flight == 0 else QUIET / 5)
            continue
        try:
            timers, text_length = await page.evaluate(PAGE_STATE)
        except Exception:  # the page is navigating: its next document's requests and text are awaited too
            timers, text_length = 1, None
        if timers == 0 and text_length == seen:
            return
        seen = None if timers else text_length
        await asyncio.sleep(QUIET)


async def _abort(route: Route, reason: str) -> None:
    with contextlib.suppress(Exception):  # the page may have closed meanwhile
        await route.abort(reason)


async def _refuse_socket(socket: WebSocketRoute) -> None:
    with contextlib.suppress(Exception):
        await socket.close()


async def _stop_at_loop_end(session: _Session) -> AsyncGenerator[None, None]:
    """Suspended until its event loop shuts down its async generators (asyncio.run does), then stops `session`.

    By then asyncio.run has cancelled Playwright's reader task, so the driver is ended directly, within the
    loop that owns its process, rather than leaking a browser per finished loop.
    """
    try:
        yield
    finally:
        await _stop(session)


async def _stop(session: _Session) -> None:
    """Close the browser and the driver of `session`, from its own loop; kill them if they do not answer."""
    if session.stopped:
        return
    session.stopped = True
    with contextlib.suppress(Exception):
        if session.browser is not None:
            await asyncio.wait_for(session.browser.close(), STOP_TIMEOUT)
    with contextlib.suppress(Exception):
        if session.playwright is not None:
            await asyncio.wait_for(session.playwright.stop(), STOP_TIMEOUT)
    process = _driver_process(session)
    if process is not None and process.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
    session.browser = None


def _kill(session: _Session) -> None:
    """End a session whose loop is gone: kill its driver (Chromium exits with it). Nothing to await."""
    if session.stopped:
        return
    session.stopped = True
    process = _driver_process(session)
    transport = getattr(process, "_transport", None)
    popen = transport.get_extra_info("subprocess") if transport is not None else None
    if popen is not None and popen.poll() is None:
        popen.kill()


def _driver_process(session: _Session) -> asyncio.subprocess.Process | None:
    """The Playwright driver's process. Playwright does not expose it; found defensively in its internals."""
    client = getattr(session.manager, "_client", None)
    process = getattr(getattr(client, "_transport", None), "_proc", None)
    return process if isinstance(process, asyncio.subprocess.Process) else None


def _error_text(error: BaseException) -> str:
    """Playwright's error on one line: its first (a call log follows on the next ones)."""
    return one_line(str(error), 200) or type(error).__name__
