"""The page fetcher: GET a URL politely and safely, within time and size limits, with a one-line reason on failure.

Every URL the assistant reads comes from outside (search results, links in
pages), so nothing about the response is trusted: redirects are followed by
hand and each hop is checked by the SSRF guard (and again at connect time by
the guarded transport), bodies are counted as they arrive rather than by
their Content-Length, compressed bodies are inflated in bounded steps so a
gzip bomb never costs more memory than the cap, and the whole fetch,
retries and their waits included, has one deadline.

Politeness: an honest User-Agent, robots.txt, a per-host connection limit,
and retries only where the server asked for patience (429, 5xx) or the
network failed, with exponential backoff and full jitter.

Services outlive event loops (the Streamlit page starts each research with a
new `asyncio.run`), and an httpx client or a semaphore belongs to the loop it
was first used on, so those are made lazily per running loop; the robots.txt
cache is shared.
"""

from __future__ import annotations

import asyncio
import email.utils
import mimetypes
import threading
import zlib
from collections.abc import AsyncGenerator, Awaitable, Callable, Collection
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from http import HTTPStatus
from urllib.parse import urldefrag, urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt, wait_random_exponential

from research_assistant.settings import Settings
from research_assistant.text.spaces import clip, error_line
from research_assistant.web.fetched import PAGE_TYPES, FetchedPage, FetchError, FetchRefused
from research_assistant.web.guard import AddressPolicy, guarded_transport

Sleep = Callable[[float], Awaitable[None]]

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_ROBOTS_MAX_BYTES = 512_000
"""robots.txt files larger than this are treated as absent (Google reads only the first 500 KiB)."""
_ROBOTS_REDIRECTS = 5
_INFLATE_STEP = 65_536
"""Most bytes inflated per step, so a chunk that inflates hugely is checked against the cap as it grows."""


@dataclass(frozen=True)
class FetchLimits:
    """How long, how much, how often and how politely pages are fetched; defaults match `Settings`."""

    connect_timeout: float = 10.0
    read_timeout: float = 20.0
    """Longest wait for the next bytes of a response."""
    total_timeout: float = 45.0
    """Deadline for one `fetch`, redirects, retries and their waits included."""
    max_bytes: int = 5_000_000
    """Most bytes read from the network per response, compressed or not."""
    max_decompressed_bytes: int = 20_000_000
    max_redirects: int = 5
    concurrency: int = 8
    per_host: int = 2
    attempts: int = 3
    """Tries per request, the first one included."""
    backoff_seconds: float = 0.5
    retry_after_max: float = 30.0
    """A server asking to wait longer than this fails the fetch at once rather than stalling the run."""
    user_agent: str = "ResearchAssistant/0.1 (research bot; +https://github.com/research-assistant)"
    respect_robots: bool = True

    @classmethod
    def from_settings(cls, settings: Settings) -> FetchLimits:
        """Each limit from its setting: `fetch_<name>`, except the user agent and robots.txt, which are shared."""
        shared = ("user_agent", "respect_robots")
        names = {f.name: f.name if f.name in shared else f"fetch_{f.name}" for f in fields(cls)}
        return cls(**{name: getattr(settings, setting) for name, setting in names.items()})


@dataclass
class _LoopState:
    """What belongs to one event loop: the client and its connections, the concurrency limits."""

    client: httpx.AsyncClient
    closer: AsyncGenerator[None, None]
    """Parked for the loop's lifetime; see `_close_at_loop_shutdown`."""
    slots: asyncio.Semaphore
    host_slots: dict[str, asyncio.Semaphore] = field(default_factory=dict)
    robots_locks: dict[str, asyncio.Lock] = field(default_factory=dict)


@dataclass(frozen=True)
class _Redirect:
    location: str


@dataclass(frozen=True)
class _Response:
    status: int
    content_type: str
    charset: str | None
    body: bytes
    headers: dict[str, str]


class _Retry(Exception):
    """A failure worth another attempt; `wait` is the server's Retry-After in seconds, if it gave one."""

    def __init__(self, reason: str, *, status: int | None = None, wait: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.wait = wait


class Fetcher:
    """Fetches web pages within the guard and the limits; implements `PageFetcher`."""

    def __init__(self, limits: FetchLimits, policy: AddressPolicy, *, sleep: Sleep = asyncio.sleep) -> None:
        self.limits = limits
        self._policy = policy
        self._sleep = sleep
        self._states: dict[asyncio.AbstractEventLoop, _LoopState] = {}
        self._states_lock = threading.Lock()
        self._robots: dict[str, RobotFileParser | None] = {}
        """Rules per scheme://host:port; None when the site has no usable robots.txt (everything allowed)."""

    async def fetch(
        self, url: str, *, accept: Collection[str] | None = PAGE_TYPES, check_robots: bool = True
    ) -> FetchedPage:
        """GET `url` within the guard and the limits; `accept=None` takes any content type. Raises FetchError."""
        self._policy.check_url(url)
        accepted = None if accept is None else frozenset(kind.lower() for kind in accept)
        state = await self._state()
        # The deadline starts once a slot is free: waiting behind this run's own fetches is not the site's fault.
        async with state.slots:
            try:
                async with asyncio.timeout(self.limits.total_timeout) as deadline:
                    return await self._follow(state, url, accepted, check_robots and self.limits.respect_robots)
            except TimeoutError:
                if not deadline.expired():
                    raise
                raise FetchError(
                    f"timed out after {_seconds(self.limits.total_timeout)} s in total", retryable=True
                ) from None

    async def aclose(self) -> None:
        """Close this loop's connections; the fetcher stays usable and reconnects when used again."""
        loop = asyncio.get_running_loop()
        with self._states_lock:
            state = self._states.pop(loop, None)
            self._forget_closed_loops()
        if state is not None:
            await state.closer.aclose()

    async def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        with self._states_lock:
            self._forget_closed_loops()
            state = self._states.get(loop)
            if state is not None:
                return state
            client = self._new_client()
            state = _LoopState(client, _close_at_loop_shutdown(client), asyncio.Semaphore(self.limits.concurrency))
            self._states[loop] = state
        await anext(state.closer)
        return state

    def _forget_closed_loops(self) -> None:
        """Drop what belonged to loops that have ended (`asyncio.run` has closed their connections by then)."""
        for loop in [loop for loop in self._states if loop.is_closed()]:
            del self._states[loop]

    def _new_client(self) -> httpx.AsyncClient:
        limits = self.limits
        return httpx.AsyncClient(
            transport=guarded_transport(self._policy, connect_timeout=limits.connect_timeout),
            timeout=httpx.Timeout(
                connect=limits.connect_timeout,
                read=limits.read_timeout,
                write=limits.read_timeout,
                pool=limits.total_timeout,
            ),
            follow_redirects=False,
            trust_env=False,
            # Only encodings this module inflates itself, within the decompressed-size cap.
            headers={"User-Agent": limits.user_agent, "Accept-Encoding": "gzip, deflate"},
        )

    async def _follow(
        self, state: _LoopState, url: str, accept: frozenset[str] | None, check_robots: bool
    ) -> FetchedPage:
        """Fetch `url`, following at most `max_redirects` redirects, each hop checked like the first URL."""
        current = url
        hops: list[str] = []
        while True:
            if check_robots:
                await self._check_robots(state, current)
            outcome = await self._with_retries(state, current, accept)
            if isinstance(outcome, _Response):
                return FetchedPage(
                    url=url,
                    final_url=current,
                    status=outcome.status,
                    content_type=outcome.content_type,
                    body=outcome.body,
                    charset=outcome.charset,
                    redirects=tuple(hops),
                    headers=outcome.headers,
                )
            if len(hops) >= self.limits.max_redirects:
                raise FetchError(f"too many redirects: more than {self.limits.max_redirects}")
            target = urldefrag(urljoin(current, outcome.location)).url
            try:
                self._policy.check_url(target)
            except FetchRefused as refusal:
                reason = str(refusal).removeprefix("refused: ")
                raise FetchRefused(f"refused: redirect to {clip(target, 120)}: {reason}") from None
            hops.append(target)
            current = target

    async def _with_retries(self, state: _LoopState, url: str, accept: frozenset[str] | None) -> _Response | _Redirect:
        """`_request`, tried again on what another attempt may fix: after the server's Retry-After if it gave
        one, else after a full-jitter backoff (a random wait up to the exponential one, so retrying clients do
        not stampede). A server asking to wait longer than `retry_after_max` fails the fetch at once."""
        limits = self.limits
        backoff = wait_random_exponential(multiplier=limits.backoff_seconds)

        def too_long(failure: _Retry) -> bool:
            return failure.wait is not None and failure.wait > limits.retry_after_max

        def wait(retry_state: RetryCallState) -> float:
            failure = retry_state.outcome.exception() if retry_state.outcome else None
            asked = failure.wait if isinstance(failure, _Retry) else None
            return asked if asked is not None else backoff(retry_state)

        retrying = AsyncRetrying(
            stop=stop_after_attempt(limits.attempts),
            wait=wait,
            retry=retry_if_exception(lambda error: isinstance(error, _Retry) and not too_long(error)),
            sleep=self._sleep,
            reraise=True,
        )
        try:
            return await retrying(self._request, state, url, accept)
        except _Retry as failure:
            if too_long(failure):
                raise FetchError(
                    f"{failure.reason}: asked to retry after {_seconds(failure.wait or 0)} s, "
                    f"more than the {_seconds(limits.retry_after_max)} s allowed",
                    retryable=True,
                    status=failure.status,
                ) from None
            suffix = f" after {limits.attempts} attempts" if limits.attempts > 1 else ""
            raise FetchError(failure.reason + suffix, retryable=True, status=failure.status) from None

    async def _request(
        self, state: _LoopState, url: str, accept: frozenset[str] | None, *, robots: bool = False
    ) -> _Response | _Redirect:
        """One GET. Raises `_Retry` for what another attempt may fix, FetchError for the rest."""
        parts = httpx.URL(url)
        host_key = f"{parts.host}:{parts.port or (443 if parts.scheme == 'https' else 80)}"
        host_slot = state.host_slots.setdefault(host_key, asyncio.Semaphore(self.limits.per_host))
        headers = {"Accept": "*/*" if accept is None else ", ".join(sorted(accept))}
        limits = self.limits
        async with host_slot:
            try:
                async with state.client.stream("GET", url, headers=headers) as response:
                    return await self._read(response, url, accept, _ROBOTS_MAX_BYTES if robots else limits.max_bytes)
            except httpx.ConnectTimeout:
                raise _Retry(f"connection timed out after {_seconds(limits.connect_timeout)} s") from None
            except (httpx.ReadTimeout, httpx.WriteTimeout):
                raise _Retry(f"timed out after {_seconds(limits.read_timeout)} s waiting for the server") from None
            except httpx.PoolTimeout:
                raise _Retry("timed out waiting for a free connection") from None
            except httpx.ConnectError as error:
                raise _Retry(f"could not connect to {parts.host}: {error_line(error)}") from None
            except (httpx.NetworkError, httpx.RemoteProtocolError) as error:
                raise _Retry(f"connection to {parts.host} failed: {error_line(error)}") from None
            except (httpx.HTTPError, httpx.InvalidURL) as error:
                raise FetchError(f"request failed: {error_line(error)}") from None
            except FetchRefused:
                raise
            except FetchError as error:  # from reading the body, or from the guard's DNS lookup (maybe transient)
                if error.retryable:
                    raise _Retry(str(error)) from None
                raise

    async def _read(
        self, response: httpx.Response, url: str, accept: frozenset[str] | None, max_bytes: int
    ) -> _Response | _Redirect:
        """Judge the status and headers, then read the body within the caps (only when it is wanted)."""
        status = response.status_code
        status_text = f"HTTP {status} {_phrase(status, response.reason_phrase)}".rstrip()
        location = response.headers.get("location")
        if status in _REDIRECTS and location:
            return _Redirect(location)
        if status == 429 or status >= 500:
            wait = _retry_after(response.headers.get("retry-after")) if status in (429, 503) else None
            raise _Retry(status_text, status=status, wait=wait)
        if not 200 <= status < 300:
            raise FetchError(status_text, status=status)
        content_type, charset = _content_type(response.headers.get("content-type"), url)
        if accept is not None and content_type not in accept:
            raise FetchError(f"skipped: unsupported content type {content_type}", status=status)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise FetchError(f"too large: over {max_bytes:,} bytes")
        inflater = _inflater_for(response.headers.get("content-encoding", ""), self.limits.max_decompressed_bytes)
        body = bytearray()
        received = 0
        async for chunk in response.aiter_raw():
            received += len(chunk)
            if received > max_bytes:
                raise FetchError(f"too large: over {max_bytes:,} bytes")
            body += inflater.feed(chunk) if inflater else chunk
        if inflater:
            body += inflater.flush()
        return _Response(status, content_type, charset, bytes(body), dict(response.headers))

    async def _check_robots(self, state: _LoopState, url: str) -> None:
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2].lower()
        origin = f"{parts.scheme.lower()}://{netloc}"
        if origin not in self._robots:
            lock = state.robots_locks.setdefault(origin, asyncio.Lock())
            async with lock:  # one request per site, however many of its pages are fetched at once
                if origin not in self._robots:
                    self._robots[origin] = await self._load_robots(state, origin + "/robots.txt")
        rules = self._robots[origin]
        if rules is not None and not rules.can_fetch(self.limits.user_agent, url):
            raise FetchRefused(f"refused: robots.txt disallows {clip(url, 120)}")

    async def _load_robots(self, state: _LoopState, robots_url: str) -> RobotFileParser | None:
        """The site's rules; None (everything allowed) when robots.txt is missing, refused, failing or unreachable."""
        current = robots_url
        for _ in range(_ROBOTS_REDIRECTS + 1):
            try:
                self._policy.check_url(current)
                outcome = await self._request(state, current, None, robots=True)
            except (_Retry, FetchError):
                return None
            if isinstance(outcome, _Response):
                rules = RobotFileParser(robots_url)
                rules.parse(outcome.body.decode("utf-8", errors="replace").splitlines())
                return rules
            current = urldefrag(urljoin(current, outcome.location)).url
        return None


async def _close_at_loop_shutdown(client: httpx.AsyncClient) -> AsyncGenerator[None, None]:
    """Closes `client` when its event loop shuts down, so connections do not outlive their loop.

    Started once and left waiting at its `yield`: `asyncio.run` (and
    `asyncio.Runner`) finalize every unfinished async generator of the loop
    before closing it, which runs the `finally` on that loop. The loop state
    keeps a reference, or the generator would be collected, and so closed, early.
    """
    try:
        yield
    finally:
        await client.aclose()


class _Inflater:
    """Inflates a gzip or deflate body in bounded steps, refusing it once it grows past `limit` bytes."""

    def __init__(self, encoding: str, limit: int) -> None:
        self._gzip = encoding in ("gzip", "x-gzip")
        self._limit = limit
        self._size = 0
        self._started = False
        self._inflater = zlib.decompressobj(wbits=31 if self._gzip else 15)

    def feed(self, data: bytes) -> bytes:
        out = bytearray()
        pending = data
        while pending:
            try:
                piece = self._inflater.decompress(pending, min(_INFLATE_STEP, self._limit - self._size + 1))
            except zlib.error as error:
                if self._gzip or self._started:
                    raise FetchError(f"could not decompress the body: {error}") from None
                # 'deflate' is meant to be zlib-wrapped, but some servers send it raw.
                self._inflater = zlib.decompressobj(wbits=-15)
                self._started = True
                continue
            self._started = True
            self._grow(piece)
            out += piece
            if not self._inflater.eof:
                pending = self._inflater.unconsumed_tail
                continue
            pending = self._inflater.unused_data
            if self._gzip and pending.startswith(b"\x1f\x8b"):  # another gzip member follows
                self._inflater = zlib.decompressobj(wbits=31)
            else:
                pending = b""  # padding or garbage after the end of the stream
        return bytes(out)

    def flush(self) -> bytes:
        piece = self._inflater.flush(self._limit - self._size + 1)
        self._grow(piece)
        return piece

    def _grow(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._size > self._limit:
            raise FetchError(f"too large: over {self._limit:,} bytes once decompressed")


def _inflater_for(header: str, limit: int) -> _Inflater | None:
    codings = [coding.strip().lower() for coding in header.split(",") if coding.strip()]
    codings = [coding for coding in codings if coding != "identity"]
    if not codings:
        return None
    if len(codings) == 1 and codings[0] in ("gzip", "x-gzip", "deflate"):
        return _Inflater(codings[0], limit)
    raise FetchError(f"unsupported content encoding {header.strip()}")


def _content_type(header: str | None, url: str) -> tuple[str, str | None]:
    """The MIME type without parameters and the charset; guessed from the path when the server names none."""
    mime, _, parameters = (header or "").partition(";")
    mime = mime.strip().lower()
    charset = None
    for parameter in parameters.split(";"):
        key, _, value = parameter.partition("=")
        if key.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
    if not mime:
        mime = mimetypes.guess_type(urlsplit(url).path)[0] or "application/octet-stream"
    return mime, charset


def _retry_after(value: str | None) -> float | None:
    """Retry-After as seconds to wait: either delay-seconds or an HTTP-date; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _phrase(status: int, given: str) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return error_line(given)


def _seconds(value: float) -> str:
    return f"{value:g}"
