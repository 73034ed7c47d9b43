"""The benchmark's small web: the copied corpora served over HTTP on 127.0.0.1, and a fake Tavily whose hits
come from an independent BM25 search over the pages' visible text.

The search engine is deliberately not the product's (no repository, no chunking, no embedding): web mode
measures the product reading and reasoning over what an ordinary search engine returns.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from bs4 import BeautifulSoup
from support.fake_search_apis import FakeHit, FakeSearchApi

HITS = 8
SNIPPET_CHARS = 300
ROBOTS = b"User-agent: *\nAllow: /\n"
TOKEN = re.compile(r"[a-z0-9]+(?:[._][a-z0-9]+)*")
_STOPWORDS_TEXT = """a an and are as at be by can do does for from has have how i if in is it its of on or
that the this to was what when where which who why will with you your"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
INVISIBLE = ("script", "style", "noscript", "template", "head")


def tokens(text: str) -> list[str]:
    """Lower-case words (dotted and underscored names kept whole, and also split), without stopwords."""
    found: list[str] = []
    for token in TOKEN.findall(text.lower()):
        parts = re.split(r"[._]", token)
        found.extend(t for t in ([token, *parts] if len(parts) > 1 else [token]) if t not in STOPWORDS)
    return found


@dataclass(frozen=True)
class Page:
    path: str
    """Relative to the corpus root, with forward slashes."""
    title: str
    text: str
    """The visible text, whitespace collapsed."""


def read_page(root: Path, relative: Path) -> Page:
    """A page's title and visible text, as BeautifulSoup sees them."""
    soup = BeautifulSoup((root / relative).read_bytes(), "lxml")
    title = " ".join(soup.title.get_text().split()) if soup.title else relative.stem
    for tag in soup(INVISIBLE):
        tag.decompose()
    return Page(relative.as_posix(), title, " ".join(soup.get_text(" ").split()))


@dataclass
class Bm25:
    """Okapi BM25 (k1 1.2, b 0.75) over title and body; the title's words count twice."""

    pages: list[Page]
    k1: float = 1.2
    b: float = 0.75
    _postings: dict[str, list[tuple[int, int]]] = field(default_factory=dict, init=False)
    _lengths: list[int] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        for number, page in enumerate(self.pages):
            counts = Counter(tokens(page.title) * 2 + tokens(page.text))
            self._lengths.append(sum(counts.values()))
            for term, count in counts.items():
                self._postings.setdefault(term, []).append((number, count))
        self._average = sum(self._lengths) / max(len(self._lengths), 1)

    def search(self, query: str, limit: int = HITS) -> list[tuple[Page, float]]:
        """The best `limit` pages for `query`, best first (ties by path)."""
        scores: dict[int, float] = defaultdict(float)
        total = len(self.pages)
        for term in set(tokens(query)):
            postings = self._postings.get(term, [])
            idf = math.log(1 + (total - len(postings) + 0.5) / (len(postings) + 0.5))
            for number, count in postings:
                norm = self.k1 * (1 - self.b + self.b * self._lengths[number] / self._average)
                scores[number] += idf * count * (self.k1 + 1) / (count + norm)
        ranked = sorted(scores.items(), key=lambda item: (-item[1], self.pages[item[0]].path))
        return [(self.pages[number], score) for number, score in ranked[:limit]]


def snippet(text: str, query: str, size: int = SNIPPET_CHARS) -> str:
    """About `size` characters of `text` starting where most of the query's distinct words meet."""
    words = set(tokens(query))
    if len(text) <= size:
        return text
    places = [(m.start(), word) for m in TOKEN.finditer(text.lower()) for word in tokens(m.group(0)) if word in words]
    best, best_hits = 0, 0
    for number, (start, _) in enumerate(places):
        seen: set[str] = set()
        for at, word in places[number:]:
            if at >= start + size:
                break
            seen.add(word)
        hits = len(seen)
        if hits > best_hits:
            best, best_hits = start, hits
    best = max(0, best - size // 6)
    cut = text[best : best + size].strip()
    return ("\u2026" if best else "") + cut + ("\u2026" if best + size < len(text) else "")


class SearchEngine:
    """BM25 indexes per set, and the address each set's pages are served at."""

    def __init__(self) -> None:
        self._indexes: dict[str, Bm25] = {}
        self._bases: dict[str, str] = {}
        self.current: str | None = None

    def add(self, name: str, index: Bm25, base_url: str) -> None:
        self._indexes[name] = index
        self._bases[name] = base_url.rstrip("/")

    def hits(self, query: str) -> list[FakeHit]:
        """The current set's top pages for `query`, as Tavily hits."""
        if self.current is None:
            return []
        base = self._bases[self.current]
        return [
            FakeHit(f"{base}/{quote(page.path)}", page.title, snippet(page.text, query), round(score, 4))
            for page, score in self._indexes[self.current].search(query)
        ]


def build_index(root: Path, pages: Sequence[Path]) -> Bm25:
    return Bm25([read_page(root, relative) for relative in pages])


@dataclass
class BmTavily(FakeSearchApi):
    """The test suite's fake Tavily, answering every query from the search engine."""

    engine: SearchEngine = field(default_factory=SearchEngine)

    def hits_for(self, query: str) -> Sequence[FakeHit]:
        return self.engine.hits(query)


class PageServer(ThreadingHTTPServer):
    """Serves `<corpus of set>/<page>` at `/<set>/<page>`, and a robots.txt that allows everything."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _PageHandler)
        self.corpora: dict[str, Path] = {}
        self.requests = 0
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)

    def start(self) -> PageServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def base_url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{name}"

    def file_for(self, url_path: str) -> Path | None:
        name, _, rest = unquote(urlsplit(url_path).path).lstrip("/").partition("/")
        corpus = self.corpora.get(name)
        if corpus is None or not rest:
            return None
        path = (corpus / rest).resolve()
        return path if path.is_file() and path.is_relative_to(corpus.resolve()) else None


class _PageHandler(BaseHTTPRequestHandler):
    server: PageServer

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.requests += 1
        if self.path == "/robots.txt":
            self._send(200, "text/plain", ROBOTS)
            return
        path = self.server.file_for(self.path)
        if path is None:
            self._send(404, "text/plain", b"not found")
        else:
            self._send(200, "text/html", path.read_bytes())

    def _send(self, status: int, kind: str, body: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass
