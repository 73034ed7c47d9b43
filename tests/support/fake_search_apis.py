"""Fake Tavily, Exa, MediaWiki and arXiv search APIs on 127.0.0.1, for driving the real client libraries.

Each `FakeSearchApi` is one small threaded HTTP server on an ephemeral port that speaks one API's wire
protocol closely enough for its real client (tavily-python, exa-py, httpx): the same paths, the same
authentication header, the same shape of answer and of error. Tests choose the hits per query, switch
on a failure mode, and read back every request the server received. Hit URLs are whatever the test
gives, so an end-to-end test can point them at a local mini-web; the MediaWiki fake also serves the
articles it finds at `/wiki/Title`, since Wikipedia result addresses are derived from the base URL.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal
from urllib.parse import parse_qsl, unquote, urlsplit
from xml.sax.saxutils import escape, quoteattr

ApiKind = Literal["tavily", "exa", "wikipedia", "arxiv"]
Failure = Literal["401", "429", "500", "malformed", "slow", "api_error", "entities"]
"""What the server does instead of answering: an HTTP status; a 200 whose body does not parse; an answer
after `slow_seconds`; the API's own error envelope (a 400, or MediaWiki's 200 with `error`); for arXiv,
a feed that declares XML entities."""

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class FakeHit:
    """One search hit; each API renders it in its own shape."""

    url: str
    """The result's address (MediaWiki has none: its fake serves the article at `/wiki/<title>`)."""
    title: str
    text: str = ""
    """Tavily's `content`, Exa's highlight, MediaWiki's HTML snippet, arXiv's abstract."""
    score: float | None = None
    published: str | None = None
    """As the API writes it: Tavily's RFC 1123 date, Exa's `publishedDate`, MediaWiki's timestamp, arXiv's."""
    authors: tuple[str, ...] = ()


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    """Header names in lower case."""
    body: Any
    """The decoded JSON body; None when there was none, or it was not JSON."""
    at: float
    """`time.monotonic()` when the request arrived."""


DEFAULT_HITS: dict[ApiKind, tuple[FakeHit, ...]] = {
    "tavily": (
        FakeHit("https://example.org/trams", "Trams of the city", "The tram network opened in 1987.", 0.91),
        FakeHit("https://example.org/fares", "Fares", "A single ticket costs 2.80 crowns.", 0.62),
    ),
    "exa": (
        FakeHit(
            "https://example.org/trams",
            "Trams of the city",
            "The tram network opened in 1987.",
            0.31,
            "2024-03-05T10:00:00.000Z",
            ("Ada Lane",),
        ),
        FakeHit("https://example.org/fares", "Fares", "A single ticket costs 2.80 crowns.", 0.22),
    ),
    "wikipedia": (
        FakeHit("", "Tram", 'A <span class="searchmatch">tram</span> is a vehicle', published="2024-05-01T08:00:00Z"),
        FakeHit("", "Tram stop", 'A <span class="searchmatch">tram</span> stop', published="2023-11-20T17:45:10Z"),
    ),
    "arxiv": (
        FakeHit(
            "http://arxiv.org/abs/2401.00001v1",
            "Scheduling Trams",
            "We study tram timetables.",
            published="2024-01-01T18:00:00Z",
            authors=("Ada Lane", "Bo Chen"),
        ),
    ),
}


@dataclass
class FakeSearchApi:
    """One fake API; use as a context manager (it serves between `start()` and `close()`)."""

    kind: ApiKind
    api_key: str | None = None
    """The key Tavily and Exa accept; any other gets a 401 (whose body quotes the key it was sent)."""
    results: dict[str, Sequence[FakeHit]] = field(default_factory=dict)
    """Hits per query, matched on the query's words, case-insensitively; others get `default_hits`."""
    default_hits: Sequence[FakeHit] = ()
    failure: Failure | None = None
    slow_seconds: float = 2.0
    latency_seconds: float = 0.0
    """How long every answer takes, as a real API's round trip does (benchmarks of I/O-bound runs)."""
    requests: list[RecordedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.default_hits:
            self.default_hits = DEFAULT_HITS[self.kind]
        self._release = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake API is not serving")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> FakeSearchApi:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.api = self  # type: ignore[attr-defined]
        self._server = server
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def close(self) -> None:
        self._release.set()  # slow answers stop waiting
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeSearchApi:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def hits_for(self, query: str) -> Sequence[FakeHit]:
        words = _WORD.findall(query.lower())
        for key, hits in self.results.items():
            if _WORD.findall(key.lower()) == words:
                return hits
        return self.default_hits

    def wait(self, seconds: float) -> None:
        """Sleep in a handler, but wake up when the server closes."""
        self._release.wait(seconds)


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeSearchApi/1.0"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        api: FakeSearchApi = self.server.api  # type: ignore[attr-defined]
        parts = urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        request = RecordedRequest(
            method=method,
            path=parts.path,
            query=dict(parse_qsl(parts.query, keep_blank_values=True)),
            headers={name.lower(): value for name, value in self.headers.items()},
            body=body,
            at=time.monotonic(),
        )
        api.requests.append(request)
        try:
            status, content_type, payload = _answer(api, request)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            pass


class _Server(ThreadingHTTPServer):
    request_queue_size = 128
    """A real API accepts a burst of connections; the standard library's backlog of 5 resets them."""


_Answer = tuple[int, str, bytes]
_JSON = "application/json"
_ATOM = "application/atom+xml; charset=utf-8"


def _answer(api: FakeSearchApi, request: RecordedRequest) -> _Answer:
    routes = {
        "tavily": ("POST", "/search", _tavily),
        "exa": ("POST", "/search", _exa),
        "wikipedia": ("GET", "/w/api.php", _wikipedia),
        "arxiv": ("GET", "/api/query", _arxiv),
    }
    method, path, handler = routes[api.kind]
    if api.kind == "wikipedia" and request.method == "GET" and request.path.startswith("/wiki/"):
        return _wiki_article(api, unquote(request.path.removeprefix("/wiki/")))
    if (request.method, request.path) != (method, path):
        return 404, "text/plain", b"Not Found"
    if api.latency_seconds:
        api.wait(api.latency_seconds)
    if api.failure == "slow":
        api.wait(api.slow_seconds)
    elif api.failure in ("429", "500"):
        return _status(api.kind, int(api.failure))
    elif api.failure == "malformed":
        return (200, _ATOM, b"<feed><entry><title>cut") if api.kind == "arxiv" else (200, _JSON, b'{"results": [')
    return handler(api, request)


def _status(kind: ApiKind, status: int) -> _Answer:
    if kind == "tavily":
        messages = {429: "Rate limit exceeded.", 500: "Internal error."}
        return status, _JSON, _json({"detail": {"error": messages.get(status, "Error.")}})
    if kind == "exa":
        return status, _JSON, _json({"requestId": "fake", "error": f"HTTP {status}"})
    return status, "text/plain", f"HTTP {status}".encode()


def _unauthorized(kind: ApiKind, sent: str) -> _Answer:
    """A 401 that quotes the key it was sent, as careless APIs do: the provider must not pass it on."""
    if kind == "tavily":
        return 401, _JSON, _json({"detail": {"error": f"Unauthorized: invalid API key {sent!r}."}})
    return 401, _JSON, _json({"requestId": "fake", "error": f"Invalid API key {sent!r}", "tag": "INVALID_API_KEY"})


def _tavily(api: FakeSearchApi, request: RecordedRequest) -> _Answer:
    sent = request.headers.get("authorization", "").removeprefix("Bearer ")
    if api.failure == "401" or sent != api.api_key:
        return _unauthorized("tavily", sent)
    body = request.body if isinstance(request.body, dict) else {}
    if api.failure == "api_error" or not isinstance(body.get("query"), str):
        return 400, _JSON, _json({"detail": {"error": "Invalid request: query is required."}})
    topic = body.get("topic", "general")
    hits = api.hits_for(body["query"])[: int(body.get("max_results", 5))]
    results = [
        {
            "title": hit.title,
            "url": hit.url,
            "content": hit.text,
            "score": hit.score,
            "raw_content": None,
            **({"published_date": hit.published} if topic == "news" and hit.published else {}),
        }
        for hit in hits
    ]
    answer = {"query": body["query"], "follow_up_questions": None, "answer": None, "images": [], "results": results}
    return 200, _JSON, _json({**answer, "response_time": 0.01, "request_id": "fake"})


def _exa(api: FakeSearchApi, request: RecordedRequest) -> _Answer:
    sent = request.headers.get("x-api-key", "")
    if api.failure == "401" or sent != api.api_key:
        return _unauthorized("exa", sent)
    body = request.body if isinstance(request.body, dict) else {}
    if api.failure == "api_error" or not isinstance(body.get("query"), str):
        return 400, _JSON, _json({"requestId": "fake", "error": "Invalid request body", "tag": "INVALID_REQUEST"})
    contents = body.get("contents") or {}
    results = []
    for hit in api.hits_for(body["query"])[: int(body.get("numResults", 10))]:
        result: dict[str, Any] = {
            "id": hit.url,
            "url": hit.url,
            "title": hit.title,
            "score": hit.score,
            "publishedDate": hit.published,
            "author": ", ".join(hit.authors) or None,
        }
        if contents.get("highlights"):
            result |= {"highlights": [hit.text] if hit.text else [], "highlightScores": [hit.score or 0.5]}
        if contents.get("text"):
            result["text"] = hit.text
        results.append(result)
    answer = {"requestId": "fake", "resolvedSearchType": "neural", "results": results}
    return 200, _JSON, _json({**answer, "costDollars": {"total": 0.005}})


def _wikipedia(api: FakeSearchApi, request: RecordedRequest) -> _Answer:
    query = request.query
    if api.failure == "401":
        return _status("wikipedia", 401)
    if api.failure == "api_error":
        return 200, _JSON, _json({"error": {"code": "internal_api_error_DBQueryError", "info": "Database\nerror."}})
    if query.get("action") != "query" or query.get("list") != "search":
        return 200, _JSON, _json({"error": {"code": "badvalue", "info": "Unrecognized value for parameter."}})
    if not query.get("srsearch"):
        return 200, _JSON, _json({"error": {"code": "nosrsearch", "info": 'The "srsearch" parameter must be set.'}})
    hits = api.hits_for(query["srsearch"])
    shown = hits[: int(query.get("srlimit", "10"))]
    items = [
        {"ns": 0, "title": hit.title, "pageid": index + 1, "snippet": hit.text, "timestamp": hit.published}
        for index, hit in enumerate(shown)
    ]
    answer: dict[str, Any] = {"batchcomplete": "", "query": {"searchinfo": {"totalhits": len(hits)}, "search": items}}
    if len(hits) > len(shown):
        answer["continue"] = {"sroffset": len(shown), "continue": "-||"}
    return 200, _JSON, _json(answer)


def _wiki_article(api: FakeSearchApi, path_title: str) -> _Answer:
    hits = [*api.default_hits, *(hit for hits in api.results.values() for hit in hits)]
    for hit in hits:
        if hit.title.replace(" ", "_") == path_title:
            text = re.sub(r"<[^>]*>", "", hit.text)
            page = f"<html><head><title>{escape(hit.title)}</title></head><body><h1>{escape(hit.title)}</h1>"
            return 200, "text/html; charset=utf-8", f"{page}<p>{escape(text)}</p></body></html>".encode()
    return 404, "text/plain", b"No such article"


def _arxiv(api: FakeSearchApi, request: RecordedRequest) -> _Answer:
    search_query = request.query.get("search_query", "")
    if api.failure == "401":
        return _status("arxiv", 401)
    if api.failure == "api_error" or not search_query:
        return 400, _ATOM, _feed([], error="incorrect id format for 1234.56789")
    if api.failure == "entities":
        bomb = '<?xml version="1.0"?>\n<!DOCTYPE feed [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>\n'
        feed = '<feed xmlns="http://www.w3.org/2005/Atom"><entry><title>&b;</title></entry></feed>'
        return 200, _ATOM, (bomb + feed).encode()
    words = re.sub(r"\b(?:all|ti|abs|au):|\b(?:AND|OR|ANDNOT)\b", " ", search_query)
    start = int(request.query.get("start", "0"))
    hits = api.hits_for(words)[start : start + int(request.query.get("max_results", "10"))]
    return 200, _ATOM, _feed(hits)


def _feed(hits: Sequence[FakeHit], *, error: str | None = None) -> bytes:
    """An arXiv Atom feed of `hits`, or the one-entry feed arXiv sends for a query it cannot run."""
    if error is not None:
        entries = [
            "<entry><id>http://arxiv.org/api/errors#incorrect_id_format</id><title>Error</title>"
            f"<summary>{escape(error)}</summary><updated>2024-01-01T00:00:00-05:00</updated>"
            "<link href='http://arxiv.org/api/errors#incorrect_id_format' rel='alternate' type='text/html'/>"
            "<author><name>arXiv api core</name></author></entry>"
        ]
    else:
        entries = [_entry(hit) for hit in hits]
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" xmlns:arxiv="http://arxiv.org/schemas/atom">\n'
        "  <id>https://arxiv.org/api/fake</id>\n  <title>arXiv Query</title>\n"
        "  <updated>2024-01-02T00:00:00Z</updated>\n"
        f"  <opensearch:totalResults>{len(entries)}</opensearch:totalResults>\n"
        "  <opensearch:startIndex>0</opensearch:startIndex>\n"
    )
    return (head + "\n".join(entries) + "\n</feed>\n").encode()


def _entry(hit: FakeHit) -> str:
    authors = "".join(f"\n    <author><name>{escape(name)}</name></author>" for name in hit.authors)
    published = f"\n    <published>{hit.published}</published>" if hit.published else ""
    return (
        f"  <entry>\n    <id>{escape(hit.url)}</id>\n    <updated>2024-01-02T00:00:00Z</updated>{published}"
        f"\n    <title>{escape(hit.title)}</title>\n    <summary>  {escape(hit.text)}\n    </summary>{authors}"
        '\n    <arxiv:primary_category term="cs.AI" scheme="http://arxiv.org/schemas/atom"/>'
        f"\n    <link href={quoteattr(hit.url)} rel='alternate' type='text/html'/>"
        f"\n    <link title='pdf' href={quoteattr(hit.url.replace('/abs/', '/pdf/'))} rel='related'"
        " type='application/pdf'/>\n  </entry>"
    )


def _json(value: Mapping[str, Any]) -> bytes:
    return json.dumps(value).encode()
