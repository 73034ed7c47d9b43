"""The fetcher against the mini-web: real HTTP on 127.0.0.1, every misbehaviour it can meet, small limits."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import io
import ipaddress
import time
import tracemalloc
import warnings
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pypdf
import pytest
from support.miniweb import ARTICLE_AUTHOR, ARTICLE_PARAGRAPHS, NOTES_TEXT, PDF_LINES, MiniWeb, gzip_bomb

from research_assistant.settings import Settings
from research_assistant.web.fetched import FetchError, FetchRefused, PageFetcher
from research_assistant.web.fetcher import Fetcher, FetchLimits
from research_assistant.web.guard import AddressPolicy

LOOPBACK = AddressPolicy(allowed_networks=[ipaddress.ip_network("127.0.0.0/8")])
LIMITS = FetchLimits(
    connect_timeout=1.0,
    read_timeout=0.4,
    total_timeout=3.0,
    attempts=3,
    backoff_seconds=0.01,
    retry_after_max=5.0,
    user_agent="ResearchAssistantTests/1.0 (+https://example.org/bot)",
)


class SleepRecorder:
    """Stands in for asyncio.sleep: records each wait and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)
        await asyncio.sleep(0)


@pytest.fixture
def web() -> Iterator[MiniWeb]:
    with MiniWeb() as server:
        server.slow_seconds = 2.0
        yield server


@pytest.fixture
def sleeps() -> SleepRecorder:
    return SleepRecorder()


class BytesRead:
    """Counts the bytes every response hands over from the network (before decompression), robots.txt included."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        raw = httpx.Response.aiter_raw

        async def counted(response: httpx.Response, chunk_size: int | None = None) -> AsyncIterator[bytes]:
            async for chunk in raw(response, chunk_size):
                self.count += len(chunk)
                yield chunk

        monkeypatch.setattr(httpx.Response, "aiter_raw", counted)


@pytest.fixture
def received(monkeypatch: pytest.MonkeyPatch) -> BytesRead:
    return BytesRead(monkeypatch)


@pytest.fixture
async def fetcher(sleeps: SleepRecorder) -> AsyncIterator[Fetcher]:
    fetcher = Fetcher(LIMITS, LOOPBACK, sleep=sleeps)
    yield fetcher
    await fetcher.aclose()


def make_fetcher(**changes: Any) -> Fetcher:
    return Fetcher(dataclasses.replace(LIMITS, **changes), LOOPBACK)


def test_fetcher_is_a_page_fetcher() -> None:
    fetcher: PageFetcher = Fetcher(LIMITS, LOOPBACK)
    assert fetcher is not None


def test_limits_from_settings_match_the_defaults() -> None:
    assert FetchLimits.from_settings(Settings.model_construct()) == FetchLimits()


async def test_normal_page(web: MiniWeb, fetcher: Fetcher, received: BytesRead) -> None:
    url = web.url("/articles/normal.html")
    page = await fetcher.fetch(url)
    assert (page.url, page.final_url, page.status, page.redirects) == (url, url, 200, ())
    assert page.content_type == "text/html"
    assert page.charset == "utf-8"
    text = page.text()
    assert ARTICLE_AUTHOR in text
    assert all(paragraph in text for paragraph in ARTICLE_PARAGRAPHS)
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert web.hits["/articles/normal.html"] == 1
    assert web.hits["/robots.txt"] == 1
    assert received.count >= len(page.body)


async def test_robots_txt_is_read_once_per_site(web: MiniWeb, fetcher: Fetcher) -> None:
    await asyncio.gather(*(fetcher.fetch(web.url(path)) for path in ("/notes.txt", "/paper.pdf", "/notes.txt")))
    assert web.hits["/robots.txt"] == 1


async def test_honest_user_agent_and_only_encodings_it_can_bound(web: MiniWeb, fetcher: Fetcher) -> None:
    await fetcher.fetch(web.url("/notes.txt"))
    for path in ("/notes.txt", "/robots.txt"):
        assert web.last_headers[path]["user-agent"] == LIMITS.user_agent
        assert web.last_headers[path]["accept-encoding"] == "gzip, deflate"
    assert "text/html" in web.last_headers["/notes.txt"]["accept"]


async def test_redirect_chain_of_five_is_followed(web: MiniWeb, fetcher: Fetcher) -> None:
    page = await fetcher.fetch(web.url("/redirect/5"))
    assert page.final_url == web.url("/articles/normal.html")
    assert page.redirects == (
        web.url("/redirect/4"),
        web.url("/redirect/3"),
        web.url("/redirect/2"),  # from the relative Location '2'
        web.url("/redirect/1"),
        web.url("/articles/normal.html"),
    )
    assert ARTICLE_PARAGRAPHS[0] in page.text()


async def test_redirect_chain_of_six_is_refused(web: MiniWeb, fetcher: Fetcher) -> None:
    with pytest.raises(FetchError, match="too many redirects: more than 5"):
        await fetcher.fetch(web.url("/redirect/6"))
    assert web.hits["/articles/normal.html"] == 0


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/redirect-private", "169.254.169.254 is a cloud metadata address"),
        ("/redirect-private-10", "10.0.0.1 is a private address"),
    ],
)
async def test_redirect_to_a_private_address_is_refused(web: MiniWeb, fetcher: Fetcher, path: str, reason: str) -> None:
    with pytest.raises(FetchRefused) as refused:
        await fetcher.fetch(web.url(path))
    assert str(refused.value).startswith("refused: redirect to http://")
    assert reason in str(refused.value)
    assert web.hits[path] == 1  # refused before a second attempt, and never retried


async def test_slow_server_times_out(web: MiniWeb) -> None:
    fetcher = make_fetcher(attempts=1)
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"timed out after 0\.4 s") as failed:
        await fetcher.fetch(web.url("/slow"), check_robots=False)
    assert time.monotonic() - started < 1.5
    assert failed.value.retryable
    await fetcher.aclose()


async def test_timeouts_are_retried(web: MiniWeb, fetcher: Fetcher, sleeps: SleepRecorder) -> None:
    with pytest.raises(FetchError, match=r"timed out after 0\.4 s .* after 3 attempts"):
        await fetcher.fetch(web.url("/slow"), check_robots=False)
    assert web.hits["/slow"] == 3
    assert len(sleeps.waits) == 2


async def test_drip_feeding_server_hits_the_total_deadline(web: MiniWeb, received: BytesRead) -> None:
    """A byte every 0.2 s never trips the 0.4 s read timeout: only the deadline ends it."""
    fetcher = make_fetcher(total_timeout=1.0)
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"^timed out after 1 s in total$"):
        await fetcher.fetch(web.url("/drip"), check_robots=False)
    assert 0.9 < time.monotonic() - started < 2.0
    assert received.count >= 3
    await fetcher.aclose()


async def test_deadline_covers_the_waits_between_retries(web: MiniWeb) -> None:
    web.add_page("/busy", "busy", "text/plain", status=503, headers={"Retry-After": "3"})
    fetcher = make_fetcher(total_timeout=0.5)  # a real asyncio.sleep(3): the deadline cuts it short
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"^timed out after 0\.5 s in total$"):
        await fetcher.fetch(web.url("/busy"), check_robots=False)
    assert time.monotonic() - started < 1.5
    assert web.hits["/busy"] == 1
    await fetcher.aclose()


async def test_server_error_is_retried_then_fails(web: MiniWeb, fetcher: Fetcher, sleeps: SleepRecorder) -> None:
    with pytest.raises(FetchError) as failed:
        await fetcher.fetch(web.url("/error500"))
    assert str(failed.value) == "HTTP 500 Internal Server Error after 3 attempts"
    assert failed.value.status == 500
    assert web.hits["/error500"] == LIMITS.attempts
    assert len(sleeps.waits) == 2
    assert 0 <= sleeps.waits[0] <= 0.01 and 0 <= sleeps.waits[1] <= 0.02  # full jitter under the backoff


async def test_flaky_server_recovers(web: MiniWeb, fetcher: Fetcher, sleeps: SleepRecorder) -> None:
    page = await fetcher.fetch(web.url("/flaky"))
    assert page.status == 200
    assert "Second time lucky" in page.text()
    assert web.hits["/flaky"] == 2
    assert len(sleeps.waits) == 1


async def test_rate_limit_honours_retry_after(web: MiniWeb, fetcher: Fetcher, sleeps: SleepRecorder) -> None:
    page = await fetcher.fetch(web.url("/rate-limited"))
    assert page.status == 200
    assert sleeps.waits == [1.0]
    assert web.hits["/rate-limited"] == 2


async def test_retry_after_longer_than_allowed_fails_at_once(
    web: MiniWeb, fetcher: Fetcher, sleeps: SleepRecorder
) -> None:
    web.add_page("/busy", "busy", "text/plain", status=429, headers={"Retry-After": "3600"})
    with pytest.raises(FetchError, match=r"HTTP 429 Too Many Requests: asked to retry after 3600 s, more than the 5 s"):
        await fetcher.fetch(web.url("/busy"))
    assert web.hits["/busy"] == 1
    assert sleeps.waits == []


async def test_retry_after_as_http_date(web: MiniWeb, fetcher: Fetcher, sleeps: SleepRecorder) -> None:
    web.add_page(
        "/maintenance", "down", "text/plain", status=503, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}
    )
    with pytest.raises(FetchError, match="HTTP 503 Service Unavailable after 3 attempts"):
        await fetcher.fetch(web.url("/maintenance"))
    assert sleeps.waits == [0.0, 0.0]  # a date in the past: retry now


async def test_not_found_is_not_retried(web: MiniWeb, fetcher: Fetcher, sleeps: SleepRecorder) -> None:
    with pytest.raises(FetchError) as failed:
        await fetcher.fetch(web.url("/missing.html"))
    assert str(failed.value) == "HTTP 404 Not Found"
    assert failed.value.status == 404
    assert not failed.value.retryable
    assert web.hits["/missing.html"] == 1
    assert sleeps.waits == []


async def test_oversized_body_without_length_is_refused(web: MiniWeb, fetcher: Fetcher, received: BytesRead) -> None:
    with pytest.raises(FetchError, match=r"^too large: over 5,000,000 bytes$"):
        await fetcher.fetch(web.url("/oversized"))
    assert received.count < LIMITS.max_bytes + 200_000  # stopped reading at the cap
    assert web.hits["/oversized"] == 1


async def test_declared_length_too_large_is_refused_before_reading(web: MiniWeb, received: BytesRead) -> None:
    web.add_page("/big.html", b"x" * 2_000, "text/html")
    small = make_fetcher(max_bytes=1_000)
    with pytest.raises(FetchError, match=r"too large: over 1,000 bytes"):
        await small.fetch(web.url("/big.html"), check_robots=False)
    assert received.count == 0
    await small.aclose()


async def test_lying_content_length_does_not_let_more_in(web: MiniWeb, fetcher: Fetcher, received: BytesRead) -> None:
    """The server declares 100 bytes and sends 6 MiB: HTTP framing stops the read at 100, nothing more is taken."""
    page = await fetcher.fetch(web.url("/lying-length"))
    assert len(page.body) == 100
    assert received.count < 100_000


async def test_gzip_bomb_is_refused_without_inflating_it(web: MiniWeb) -> None:
    gzip_bomb()  # built (and its memory counted) before measuring
    fetcher = make_fetcher(max_decompressed_bytes=2_000_000)
    tracemalloc.start()
    try:
        with pytest.raises(FetchError, match=r"^too large: over 2,000,000 bytes once decompressed$"):
            await fetcher.fetch(web.url("/bomb.html"), check_robots=False)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 12_000_000  # the bomb inflates to 100 MiB
    await fetcher.aclose()


async def test_gzip_and_deflate_bodies_are_inflated(web: MiniWeb, fetcher: Fetcher) -> None:
    import gzip
    import zlib

    text = "<p>" + "compressed text " * 500 + "</p>"
    web.add_page("/gzip.html", gzip.compress(text.encode()), "text/html", headers={"Content-Encoding": "gzip"})
    web.add_page("/zlib.html", zlib.compress(text.encode()), "text/html", headers={"Content-Encoding": "deflate"})
    raw = zlib.compressobj(wbits=-15)
    web.add_page(
        "/raw.html", raw.compress(text.encode()) + raw.flush(), "text/html", headers={"Content-Encoding": "deflate"}
    )
    for path in ("/gzip.html", "/zlib.html", "/raw.html"):
        assert (await fetcher.fetch(web.url(path))).text() == text


async def test_unknown_encoding_is_refused(web: MiniWeb, fetcher: Fetcher) -> None:
    web.add_page("/brotli.html", b"\x0b\x02\x80hello\x03", "text/html", headers={"Content-Encoding": "br"})
    with pytest.raises(FetchError, match="unsupported content encoding br"):
        await fetcher.fetch(web.url("/brotli.html"))


async def test_pdf_and_text_are_accepted(web: MiniWeb, fetcher: Fetcher) -> None:
    pdf = await fetcher.fetch(web.url("/paper.pdf"))
    assert pdf.content_type == "application/pdf"
    extracted = pypdf.PdfReader(io.BytesIO(pdf.body)).pages[0].extract_text()
    assert all(line in extracted for line in PDF_LINES)
    notes = await fetcher.fetch(web.url("/notes.txt"))
    assert (notes.content_type, notes.text()) == ("text/plain", NOTES_TEXT)


async def test_png_is_skipped_with_a_reason(web: MiniWeb, fetcher: Fetcher, received: BytesRead) -> None:
    with pytest.raises(FetchError, match=r"^skipped: unsupported content type image/png$"):
        await fetcher.fetch(web.url("/image.png"))
    web.add_page("/photo.png", b"\x89PNG" + bytes(1_000_000), "image/png")
    with pytest.raises(FetchError, match=r"^skipped: unsupported content type image/png$"):
        await fetcher.fetch(web.url("/photo.png"))
    assert received.count < 100_000  # judged by its headers, the body left unread


async def test_any_type_when_accept_is_none(web: MiniWeb, fetcher: Fetcher) -> None:
    page = await fetcher.fetch(web.url("/image.png"), accept=None)
    assert page.content_type == "image/png"
    assert page.body.startswith(b"\x89PNG")


async def test_robots_disallowed_page_is_never_requested(web: MiniWeb, fetcher: Fetcher) -> None:
    with pytest.raises(FetchRefused, match=r"^refused: robots\.txt disallows http://127\.0\.0\.1:\d+/private/"):
        await fetcher.fetch(web.url("/private/secret.html"))
    assert web.hits["/private/secret.html"] == 0


async def test_robots_can_be_ignored_per_fetch_or_by_setting(web: MiniWeb, fetcher: Fetcher) -> None:
    assert (await fetcher.fetch(web.url("/private/secret.html"), check_robots=False)).status == 200
    ignoring = make_fetcher(respect_robots=False)
    assert (await ignoring.fetch(web.url("/private/secret.html"))).status == 200
    assert web.hits["/robots.txt"] == 0
    await ignoring.aclose()


@pytest.mark.parametrize("status", [404, 403, 500])
async def test_unavailable_robots_txt_allows_everything(web: MiniWeb, fetcher: Fetcher, status: int) -> None:
    web.add_page("/robots.txt", "User-agent: *\nDisallow: /\n", "text/plain", status=status)
    page = await fetcher.fetch(web.url("/notes.txt"))
    assert page.status == 200
    assert web.hits["/robots.txt"] == 1  # not retried either


async def test_loopback_refused_when_no_network_is_allowed(web: MiniWeb) -> None:
    fetcher = Fetcher(LIMITS, AddressPolicy())
    with pytest.raises(FetchRefused, match=r"^refused: 127\.0\.0\.1 is a loopback address$"):
        await fetcher.fetch(web.url("/articles/normal.html"))
    assert sum(web.hits.values()) == 0
    await fetcher.aclose()


@pytest.mark.parametrize(("per_host", "concurrency", "peak"), [(2, 8, 2), (4, 1, 1), (8, 8, 4)])
async def test_concurrency_limits(web: MiniWeb, per_host: int, concurrency: int, peak: int) -> None:
    """Four slow pages on one host at once: the server never sees more than the tighter limit allows."""
    web.slow_seconds = 0.2
    fetcher = make_fetcher(per_host=per_host, concurrency=concurrency, read_timeout=2.0)
    pages = await asyncio.gather(*(fetcher.fetch(web.url("/slow"), check_robots=False) for _ in range(4)))
    assert [page.status for page in pages] == [200] * 4
    assert web.peak_in_flight["/slow"] == peak
    await fetcher.aclose()


def test_connections_are_closed_when_the_loop_ends(web: MiniWeb) -> None:
    """Without an aclose(): asyncio.run's shutdown closes the loop's client, so no socket is left open."""
    fetcher = Fetcher(LIMITS, LOOPBACK)
    gc.collect()  # what earlier tests left behind warns now, not inside the check below
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        assert asyncio.run(fetcher.fetch(web.url("/notes.txt"))).status == 200
        gc.collect()
    assert [warning for warning in caught if issubclass(warning.category, ResourceWarning)] == []


def test_works_from_successive_event_loops(web: MiniWeb) -> None:
    fetcher = Fetcher(LIMITS, LOOPBACK)

    async def fetch(path: str) -> int:
        return (await fetcher.fetch(web.url(path))).status

    assert asyncio.run(fetch("/articles/normal.html")) == 200
    assert asyncio.run(fetch("/notes.txt")) == 200
    assert web.hits["/robots.txt"] == 1  # the robots cache outlives the first loop
    assert (web.hits["/articles/normal.html"], web.hits["/notes.txt"]) == (1, 1)

    async def close() -> None:
        await fetcher.aclose()

    asyncio.run(close())
