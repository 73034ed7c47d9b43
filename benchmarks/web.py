"""Web research timings on this machine, with no internet: a local site whose pages answer after a set
latency, the real Tavily client against the test suite's fake Tavily, and Debian's Chromium.

    python benchmarks/web.py [--pages 24] [--latency 0.15] [--repeats 3]

Prints medians as JSON: fetching the pages one at a time against the fetcher's concurrency, rendering a
JavaScript-only page (first launch, then warm), and a whole research run on the command line, first
against a re-run served from the caches.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from ipaddress import ip_network
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.fake_search_apis import FakeHit, FakeSearchApi  # noqa: E402

from research_assistant.settings import Settings  # noqa: E402
from research_assistant.web.fetcher import Fetcher, FetchLimits  # noqa: E402
from research_assistant.web.guard import AddressPolicy  # noqa: E402
from research_assistant.web.render import BrowserRenderer  # noqa: E402

JS_PAGE = (
    "<html><head><title>Rendered</title></head><body><div id='root'></div>"
    "<noscript>Please enable JavaScript.</noscript>"
    "<script>fetch('/data.json').then(r => r.json()).then(d => {"
    "document.getElementById('root').innerHTML = d.paragraphs.map(p => '<p>' + p + '</p>').join('');});"
    "</script></body></html>"
)


def article(number: int) -> str:
    paragraphs = "".join(
        f"<p>Station {number} of the survey recorded a tide of {number + k} centimetres on day {k}, "
        f"and the kite at station {number} produced {40 + number + k} kilowatts at mid-tide.</p>"
        for k in range(10)
    )
    title = f"<title>Tidal survey station {number}</title>"
    return f"<html><head>{title}</head><body><article>{paragraphs}</article></body></html>"


class Site(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128

    def __init__(self, latency: float) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.latency = latency
        self.hits = 0
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


class Handler(BaseHTTPRequestHandler):
    server: Site

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        self.server.hits += 1
        time.sleep(self.server.latency)
        if self.path == "/robots.txt":
            status, kind, body = 404, "text/plain", b""
        elif self.path == "/js.html":
            status, kind, body = 200, "text/html", JS_PAGE.encode()
        elif self.path == "/data.json":
            paragraphs = [f"Rendered paragraph {k} about the tidal kites and their measured output." for k in range(8)]
            status, kind, body = 200, "application/json", json.dumps({"paragraphs": paragraphs}).encode()
        elif self.path.startswith("/station/"):
            status, kind, body = 200, "text/html", article(int(self.path.rsplit("/", 1)[1])).encode()
        else:
            status, kind, body = 404, "text/plain", b"not found"
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def median_of(repeats: int, measure: Callable[[], float]) -> float:
    return round(statistics.median(measure() for _ in range(repeats)), 3)


def fetcher(concurrency: int) -> Fetcher:
    limits = FetchLimits.from_settings(Settings())
    limits = type(limits)(**{**limits.__dict__, "concurrency": concurrency, "per_host": concurrency})
    return Fetcher(limits, AddressPolicy([ip_network("127.0.0.0/8")]))


def fetch_all(site: Site, pages: int, concurrency: int) -> float:
    async def run() -> float:
        client = fetcher(concurrency)
        await client.fetch(site.url("/station/0"))  # robots.txt and the connection, outside the timing
        start = time.perf_counter()
        await asyncio.gather(*(client.fetch(site.url(f"/station/{n}")) for n in range(1, pages + 1)))
        elapsed = time.perf_counter() - start
        await client.aclose()
        return elapsed

    return asyncio.run(run())


def render_times(site: Site, repeats: int) -> dict[str, float]:
    async def run() -> dict[str, float]:
        renderer = BrowserRenderer(fetcher(8), Settings().chromium_executable(), timeout=30, max_bytes=5_000_000)
        start = time.perf_counter()
        await renderer.render(site.url("/js.html"))
        first = time.perf_counter() - start
        warm = []
        for _ in range(repeats):
            start = time.perf_counter()
            await renderer.render(site.url("/js.html"))
            warm.append(time.perf_counter() - start)
        await renderer.aclose()
        return {"render_first_s": round(first, 3), "render_warm_s": round(statistics.median(warm), 3)}

    return asyncio.run(run())


def research_runs(site: Site, pages: int) -> dict[str, Any]:
    hits = [FakeHit(site.url(f"/station/{n}"), f"Station {n}", "tidal survey", 0.9) for n in range(1, pages + 1)]
    with FakeSearchApi("tavily", api_key="bench", default_hits=hits) as tavily, tempfile.TemporaryDirectory() as work:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RESEARCH_", "TAVILY_", "EXA_"))}
        env.update(
            RESEARCH_TAVILY_API_KEY="bench",
            RESEARCH_TAVILY_BASE_URL=tavily.base_url,
            RESEARCH_ALLOW_PRIVATE_NETWORKS="127.0.0.0/8",
            RESEARCH_DB_DIR=f"{work}/db",
            RESEARCH_CACHE_DIR=f"{work}/cache",
        )
        question = "How much power did the tidal kite at station 3 produce at mid-tide?"
        command = [sys.executable, "-m", "research_assistant.cli", "run", question, "--sources", "web"]
        command += ["--depth", "deep", "--max-iterations", "1", "--max-sources", str(pages), "--quiet"]
        timings = []
        for _ in range(2):
            before = site.hits
            start = time.perf_counter()
            subprocess.run(command, env=env, cwd=work, check=True, capture_output=True)
            timings.append((time.perf_counter() - start, site.hits - before))
    return {
        "research_first_s": round(timings[0][0], 2),
        "research_first_page_requests": timings[0][1],
        "research_rerun_s": round(timings[1][0], 2),
        "research_rerun_page_requests": timings[1][1],
        "tavily_requests": len(tavily.requests),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=24)
    parser.add_argument("--latency", type=float, default=0.15, help="seconds each page takes to answer")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    site = Site(args.latency)
    results: dict[str, Any] = {"pages": args.pages, "latency_s": args.latency}
    results["fetch_one_at_a_time_s"] = median_of(args.repeats, lambda: fetch_all(site, args.pages, 1))
    results["fetch_concurrent_s"] = median_of(args.repeats, lambda: fetch_all(site, args.pages, 8))
    results["fetch_speedup"] = round(results["fetch_one_at_a_time_s"] / results["fetch_concurrent_s"], 1)
    results.update(render_times(site, args.repeats))
    results.update(research_runs(site, args.pages))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
