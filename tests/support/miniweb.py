"""A small web on 127.0.0.1 for tests: ordinary pages and every way a server can misbehave, no internet needed.

Fetching, reading and rendering are tested against real HTTP over a real
socket, because the bugs worth catching live there: redirects, timeouts,
retries, compression, byte caps, robots.txt. The server counts hits per path
so a test can show that a page was never requested at all.

    with MiniWeb() as web:
        page = await fetcher.fetch(web.url("/articles/normal.html"))
        assert web.hits["/articles/normal.html"] == 1
"""

from __future__ import annotations

import json
import struct
import sys
import threading
import zlib
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from urllib.parse import urlsplit

ARTICLE_TITLE = "Tidal kites of the Marrow Estuary: a season of measurements"
ARTICLE_AUTHOR = "Ilse Varga"
ARTICLE_PUBLISHED = "2024-03-18T09:30:00Z"
ARTICLE_PARAGRAPHS = (
    "The Marrow Estuary tidal kite array, six underwater kites tethered to the seabed off Port Calden, "
    "completed its first full season of measurements in February 2024.",
    "Each kite carries a 120 kW turbine and flies a figure-of-eight path in the current, reaching water "
    "speeds about ten times faster than the tide itself, which lets a small turbine produce useful power "
    "from slow currents.",
    "Over the season the array delivered 2.9 GWh to the Calden grid, an average capacity factor of 46 percent, "
    "against the 40 percent the Marrow Energy Cooperative had forecast in its 2021 feasibility study.",
    "Maintenance was the main surprise: barnacle growth on the tethers cut output by about 7 percent within "
    "eleven weeks, and the cooperative now cleans the tethers every two months instead of twice a year.",
    "Local fishers had worried about the kites' effect on the sea trout run; the cooperative's sonar survey "
    "recorded no change in the number of fish passing the array compared with the two previous years.",
    "The cooperative plans to add four kites in 2025 if the regional council approves the grid connection, "
    "which would bring the array to ten kites and an expected 4.8 GWh a year.",
)

JS_ARTICLE_TITLE = "The glass footbridge at Orrin Falls"
JS_ARTICLE_PARAGRAPHS = (
    "The Orrin Falls footbridge, a 48-metre span with a laminated glass deck, opened to walkers on 4 May 2023 "
    "after three years of construction above the gorge.",
    "Its designers at Hallam & Reyes chose a single steel arch beneath the deck so that the view of the falls "
    "from the old mill path would not be blocked by cables or towers.",
    "In its first year the bridge counted 212,000 crossings, more than twice the 90,000 the county had expected, "
    "and the car park at the mill had to be extended in the autumn.",
    "The deck panels are replaced on a rolling schedule: each of the 32 panels is inspected every quarter and "
    "swapped when scratches reduce its light transmission below 85 percent.",
)

NOTES_TEXT = (
    "Field notes, Marrow Estuary, 12 January 2024.\n\n"
    "Kite 4 tether cleaned; output back to 118 kW at mid-tide.\n"
    "Sonar count at the estuary mouth: 1,460 sea trout this week.\n"
)

PDF_LINES = (
    "Marrow Energy Cooperative annual report 2024",
    "The tidal kite array produced 2.9 GWh in its first season.",
    "Tether cleaning is now scheduled every two months.",
)

ROBOTS_TXT = "User-agent: *\nDisallow: /private/\n"

BOMB_DECOMPRESSED_BYTES = 100 * 1024 * 1024
OVERSIZED_BYTES = 6 * 1024 * 1024


@dataclass
class _Page:
    body: bytes
    content_type: str
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


class MiniWeb:
    """A threaded HTTP server on 127.0.0.1 with an ephemeral port; use it as a context manager."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        """Requests per path (without query), counted before answering; shared with the server threads."""
        self.peak_in_flight: Counter[str] = Counter()
        """The most requests for one path that were being answered at the same time."""
        self.last_headers: dict[str, dict[str, str]] = {}
        """The request headers last received per path, names in lower case."""
        self.slow_seconds = 3.0
        """How long /slow waits before answering: set it above the read timeout under test."""
        self.drip_interval = 0.2
        """Seconds between the bytes of /drip."""
        self.latency_seconds = 0.0
        """How long every answer waits before it starts, as a distant server's does (benchmarks of I/O-bound runs)."""
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._pages: dict[str, _Page] = {}
        self._in_flight: Counter[str] = Counter()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> MiniWeb:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> MiniWeb:
        server = _Server(self)
        self._server = server
        self._pages.update(self._standard_pages())
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def port(self) -> int:
        assert self._server is not None, "the mini-web is not started"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + (path if path.startswith("/") else "/" + path)

    def add_page(
        self,
        path: str,
        body: bytes | str,
        content_type: str,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Serve `body` at `path` (replacing any page there)."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        with self._lock:
            self._pages[path] = _Page(data, content_type, status, dict(headers or {}))

    def _standard_pages(self) -> dict[str, _Page]:
        html = "text/html; charset=utf-8"
        return {
            "/articles/normal.html": _Page(_article_html(self.base_url).encode(), html),
            "/articles/js-only.html": _Page(_JS_ONLY_HTML.encode(), html),
            "/api/article.json": _Page(
                json.dumps({"title": JS_ARTICLE_TITLE, "paragraphs": JS_ARTICLE_PARAGRAPHS}).encode(),
                "application/json",
            ),
            "/paper.pdf": _Page(_pdf(PDF_LINES), "application/pdf"),
            "/notes.txt": _Page(NOTES_TEXT.encode(), "text/plain; charset=utf-8"),
            "/image.png": _Page(_png(), "image/png"),
            "/robots.txt": _Page(ROBOTS_TXT.encode(), "text/plain"),
            "/private/secret.html": _Page(_simple_html("Secret", "Robots should have kept you out.").encode(), html),
            "/error500": _Page(b"internal error", "text/plain", status=500),
        }

    def _respond(self, handler: _Handler) -> None:
        path = urlsplit(handler.path).path
        with self._lock:
            self.hits[path] += 1
            hit = self.hits[path]
            self.last_headers[path] = {name.lower(): value for name, value in handler.headers.items()}
            self._in_flight[path] += 1
            self.peak_in_flight[path] = max(self.peak_in_flight[path], self._in_flight[path])
        try:
            if not (self.latency_seconds and self._stopping.wait(self.latency_seconds)):
                self._answer(handler, path, hit)
        finally:
            with self._lock:
                self._in_flight[path] -= 1

    def _answer(self, handler: _Handler, path: str, hit: int) -> None:
        route = _ROUTES.get(path)
        if route is not None:
            route(self, handler, hit)
            return
        if path.startswith("/redirect/") and path.removeprefix("/redirect/").isdigit():
            self._redirect_chain(handler, int(path.removeprefix("/redirect/")))
            return
        with self._lock:
            page = self._pages.get(path)
        if page is None:
            handler.send_body(404, "text/plain", b"not found")
        else:
            handler.send_body(page.status, page.content_type, page.body, page.headers)

    def _redirect_chain(self, handler: _Handler, remaining: int) -> None:
        """/redirect/n redirects n times in all before normal.html; relative and absolute Locations alternate."""
        if remaining <= 1:
            target = self.url("/articles/normal.html")
        elif remaining % 2:
            target = str(remaining - 1)  # relative to /redirect/
        else:
            target = f"/redirect/{remaining - 1}"
        handler.send_body(302, "text/plain", b"moved", {"Location": target})

    def _slow(self, handler: _Handler, hit: int) -> None:
        if self._stopping.wait(self.slow_seconds):
            return
        handler.send_body(200, "text/html", _simple_html("Slow", "Worth the wait?").encode())

    def _drip(self, handler: _Handler, hit: int) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True
        handler.wfile.write(b"<html><body>")
        while not self._stopping.wait(self.drip_interval):
            handler.wfile.write(b".")
            handler.wfile.flush()

    def _flaky(self, handler: _Handler, hit: int) -> None:
        if hit == 1:
            handler.send_body(500, "text/plain", b"try again")
        else:
            handler.send_body(200, "text/html", _simple_html("Flaky", "Second time lucky.").encode())

    def _rate_limited(self, handler: _Handler, hit: int) -> None:
        if hit == 1:
            handler.send_body(429, "text/plain", b"slow down", {"Retry-After": "1"})
        else:
            handler.send_body(200, "text/html", _simple_html("Patience", "Thanks for waiting.").encode())

    def _redirect_metadata(self, handler: _Handler, hit: int) -> None:
        handler.send_body(302, "text/plain", b"", {"Location": "http://169.254.169.254/latest/meta-data"})

    def _redirect_intranet(self, handler: _Handler, hit: int) -> None:
        handler.send_body(302, "text/plain", b"", {"Location": "http://10.0.0.1/"})

    def _oversized(self, handler: _Handler, hit: int) -> None:
        """6 MiB of HTML, chunked, with no Content-Length to go by."""
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        block = b"<p>" + b"filler " * 9358 + b"</p>\n"  # 65,516 bytes
        sent = 0
        while sent < OVERSIZED_BYTES and not self._stopping.is_set():
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(block), block))
            sent += len(block)
        handler.wfile.write(b"0\r\n\r\n")

    def _lying_length(self, handler: _Handler, hit: int) -> None:
        """Declares 100 bytes, then sends 6 MiB; HTTP framing means a client should stop after the 100."""
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Content-Length", "100")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.close_connection = True
        block = b"x" * 65_536
        for _ in range(OVERSIZED_BYTES // len(block)):
            if self._stopping.is_set():
                return
            handler.wfile.write(block)

    def _bomb(self, handler: _Handler, hit: int) -> None:
        """About 100 KB on the wire that inflate to 100 MiB of zeros."""
        handler.send_body(200, "text/html", gzip_bomb(), {"Content-Encoding": "gzip"})


_ROUTES: dict[str, Callable[[MiniWeb, _Handler, int], None]] = {
    "/slow": MiniWeb._slow,
    "/drip": MiniWeb._drip,
    "/flaky": MiniWeb._flaky,
    "/rate-limited": MiniWeb._rate_limited,
    "/redirect-private": MiniWeb._redirect_metadata,
    "/redirect-private-10": MiniWeb._redirect_intranet,
    "/oversized": MiniWeb._oversized,
    "/lying-length": MiniWeb._lying_length,
    "/bomb.html": MiniWeb._bomb,
}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, miniweb: MiniWeb) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.miniweb = miniweb

    def handle_error(self, request: object, client_address: object) -> None:
        """Quiet about clients that hang up (caps, deadlines, pooled connections closed); loud about the rest."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "MiniWeb/1.0"
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms delayed-ACK stall
    server: _Server

    def do_GET(self) -> None:
        try:
            self.server.miniweb._respond(self)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True  # the client went away: expected for caps and deadlines

    def send_body(self, status: int, content_type: str, body: bytes, headers: Mapping[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the hit counter says what tests need."""


_bomb_lock = threading.Lock()
_bomb_cache: list[bytes] = []


def gzip_bomb() -> bytes:
    """100 MiB of zeros, gzip-compressed once per process (about 100 KB)."""
    with _bomb_lock:
        if not _bomb_cache:
            compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
            zeros = bytes(1024 * 1024)
            parts = [compressor.compress(zeros) for _ in range(BOMB_DECOMPRESSED_BYTES // len(zeros))]
            _bomb_cache.append(b"".join(parts) + compressor.flush())
        return _bomb_cache[0]


def _article_html(base_url: str) -> str:
    paragraphs = "\n".join(f"      <p>{text}</p>" for text in ARTICLE_PARAGRAPHS)
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{ARTICLE_TITLE} | Coastal Energy Review</title>
  <meta name="author" content="{ARTICLE_AUTHOR}">
  <meta property="article:published_time" content="{ARTICLE_PUBLISHED}">
  <meta name="description" content="A season of measurements from the Marrow Estuary tidal kite array.">
  <link rel="canonical" href="{base_url}/articles/normal.html">
  <link rel="stylesheet" href="/static/site.css">
  <script>window.dataLayer = window.dataLayer || []; window.dataLayer.push({{"page": "article"}});</script>
</head>
<body>
  <header class="site-header">
    <a class="logo" href="/">Coastal Energy Review</a>
    <nav>
      <ul>
        <li><a href="/news">News</a></li>
        <li><a href="/analysis">Analysis</a></li>
        <li><a href="/data">Data</a></li>
        <li><a href="/subscribe">Subscribe</a></li>
      </ul>
    </nav>
  </header>
  <div class="cookie-banner" role="banner">We use cookies to improve your experience. <button>Accept all</button></div>
  <aside class="ad ad-top">Advertisement: Save 20% on marine-grade cable this spring at CableWorld.</aside>
  <main>
    <article>
      <h1>{ARTICLE_TITLE}</h1>
      <p class="byline">By <span class="author">{ARTICLE_AUTHOR}</span>,
        <time datetime="{ARTICLE_PUBLISHED}">18 March 2024</time></p>
{paragraphs}
    </article>
    <aside class="related">
      <h2>Related</h2>
      <ul>
        <li><a href="/articles/wave-farm.html">Wave farm trials stall over permits</a></li>
        <li><a href="/articles/grid.html">Why the Calden grid needs storage</a></li>
      </ul>
    </aside>
  </main>
  <aside class="ad ad-bottom">Advertisement: Offshore jobs available now. Apply today!</aside>
  <footer>
    <p>&copy; 2024 Coastal Energy Review. All rights reserved.</p>
    <p><a href="/privacy">Privacy</a> · <a href="/terms">Terms</a> · <a href="/contact">Contact</a></p>
  </footer>
</body>
</html>
"""


_JS_ONLY_HTML = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Loading…</title>
</head>
<body>
  <noscript>This article needs JavaScript to display.</noscript>
  <main id="app"></main>
  <script>
    fetch("/api/article.json")
      .then((response) => response.json())
      .then((article) => {
        document.title = article.title;
        const app = document.getElementById("app");
        const article_element = document.createElement("article");
        const heading = document.createElement("h1");
        heading.textContent = article.title;
        article_element.appendChild(heading);
        for (const text of article.paragraphs) {
          const paragraph = document.createElement("p");
          paragraph.textContent = text;
          article_element.appendChild(paragraph);
        }
        app.appendChild(article_element);
      });
  </script>
</body>
</html>
"""


def _simple_html(title: str, text: str) -> str:
    return f"<!DOCTYPE html><html><head><title>{title}</title></head><body><h1>{title}</h1><p>{text}</p></body></html>"


def _pdf(lines: tuple[str, ...]) -> bytes:
    """A one-page PDF with `lines` in Helvetica, written by hand with a correct cross-reference table."""

    def escape(text: str) -> str:
        return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    shown = " T* ".join(f"({escape(line)}) Tj" for line in lines)
    content = f"BT /F1 12 Tf 16 TL 72 720 Td {shown} ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> "
        b"/Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _png() -> bytes:
    """A valid 1x1 red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
