"""The research pipeline against its critical path: fake search, page and model servers with fixed latencies.

    python benchmarks/pipeline.py [--repeats 3] [--out benchmarks/pipeline-results.json]

Everything listens on 127.0.0.1 (no internet, no keys): the tests' fake Tavily answers each search after
300 ms, a small site serves pages after 300 ms each except one that takes 10 s, and the tests' fake Gemini
answers each model call after 200 ms. Runs go through `runner.run_research` in this process (after one
untimed warm-up run, so library imports and first-use set-up are not counted), web research at depth quick,
one round, four sources (the most a quick search returns per query).

For each run it reports the wall time against the critical path of dependent calls, computed from the run's
own calls: the model's analysis and plan, the round's search, the slowest page followed by its extraction
call, the assessment, then each wave of model calls the report makes (calls whose times overlap are one
wave). A stage barrier would add nothing to that path but would make every page's evidence wait for the
slow one, so it also reports when the other pages were done (read and their evidence found, from the
progress event each page's task sends), from the start and after the last of them was served, against a
control run whose slow page is as quick as the rest: the slow page's delay to the others is the
difference of the latter. Then the identical re-run (everything cached), and an
offline run over a local folder of the same articles, first and again.

Prints JSON (medians over `--repeats`) and writes it to `--out`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from support.fake_gemini import FakeGemini, FakeGeminiReply  # noqa: E402
from support.fake_search_apis import FakeHit, FakeSearchApi  # noqa: E402

SEARCH_S, PAGE_S, SLOW_PAGE_S, MODEL_S = 0.3, 0.3, 10.0, 0.2
PAGES = 4
SLOW = 4
"""The station whose page takes `SLOW_PAGE_S`."""
QUESTION = "How much power did the tidal kite at station 3 produce at mid-tide?"
KEY = "bench-key-not-secret"
DATA = re.compile(r'<data id="([^"]+)"([^>]*)>\n(.*?)\n</data>', re.DOTALL)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def article(number: int) -> str:
    paragraphs = "".join(
        f"<p>Station {number} of the survey recorded a tide of {number + k} centimetres on day {k}, "
        f"and the kite at station {number} produced {40 + number + k} kilowatts at mid-tide.</p>"
        for k in range(10)
    )
    title = f"<title>Tidal survey station {number}</title>"
    return f"<html><head>{title}</head><body><article>{paragraphs}</article></body></html>"


class Site(ThreadingHTTPServer):
    """Pages after `PAGE_S`, station `SLOW`'s after `slow` seconds; robots.txt at once (it is not a page).

    Each page is served from an address of its own (127.0.0.2, .3, ...), as pages of a search come from
    different sites: the fetcher's limit per host (2) is politeness, not a dependency.
    """

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, host: str, log: PageLog) -> None:
        super().__init__((host, 0), _Page)
        self.log = log
        threading.Thread(target=self.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}{path}"


@dataclass
class PageLog:
    slow: float = SLOW_PAGE_S
    requests: list[tuple[str, float, float]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Page(BaseHTTPRequestHandler):
    server: Site

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        began = time.perf_counter()
        if self.path.startswith("/station/"):
            number = int(self.path.rsplit("/", 1)[1])
            time.sleep(self.server.log.slow if number == SLOW else PAGE_S)
            status, body = 200, article(number).encode()
            with self.server.log.lock:
                self.server.log.requests.append((self.path, began, time.perf_counter()))
        else:
            status, body = 404, b"not found"
        self.send_response(status)
        self.send_header("Content-Type", "text/html" if status == 200 else "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@dataclass
class ModelLog:
    calls: list[tuple[str, float, float]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def competent(log: ModelLog) -> Callable[[str, dict[str, Any]], Any]:
    """A plain, honest model (as in tests/e2e/test_llm_research.py) answering each call after `MODEL_S`."""

    def answer(model: str, body: dict[str, Any]) -> Any:
        schema = body["generationConfig"]["responseJsonSchema"]["title"]
        began = time.perf_counter()
        with log.lock:
            log.calls.append((schema, began, began + MODEL_S))
        return FakeGeminiReply(_content(schema, body), delay=MODEL_S)

    return answer


def _content(schema: str, body: dict[str, Any]) -> Any:
    parts = [*body.get("systemInstruction", {}).get("parts", [])]
    parts += [part for content in body.get("contents", []) for part in content.get("parts", [])]
    text = "\n".join(str(part.get("text", "")) for part in parts)
    blocks = DATA.findall(text)
    if schema == "AnalysisOut":
        return {"keywords": ["tidal kite", "power", "station 3"], "query_type": "factual", "intent": "full_report"}
    if schema == "PlanOut":
        return {
            "sub_questions": [
                {"text": "How much power did the kite at station 3 produce?", "queries": ["station 3 kite power"]},
                {"text": "What tide did station 3 record?", "queries": ["station 3 tide"], "priority": 2},
            ],
            "completion_criteria": "The power is stated with its source.",
        }
    if schema == "ExtractionOut":
        evidence = [
            {"passage": int(label[1:]), "quote": sentence, "claim": "A figure from the source."}
            for label, _, passage in blocks
            if label.startswith("P")
            for sentence in SENTENCE_END.split(passage)
            if re.search(r"\d", sentence) and sentence.endswith(".")
        ]
        return {"evidence": evidence[:3]}
    if schema in ("ProgressOut", "AssessmentOut"):
        subs = re.findall(r"^- (q\d+):", text, flags=re.MULTILINE)
        return {"coverage": [{"sub_question": sub, "score": 1.0} for sub in subs]}
    if schema in ("ReportOut", "QuickAnswerOut"):
        cited = [(label, quote) for label, _, quote in blocks if label.startswith("E")]
        findings = [{"text": quote, "evidence": [label]} for label, quote in cited[:3]]
        if schema == "QuickAnswerOut":
            return {"title": "Station 3", "answer": findings[:2]}
        return {"title": "Station 3", "summary": findings[:2], "key_findings": findings}
    if schema == "VerificationOut":
        count = len(re.findall(r"^Statement \d+:", text, flags=re.MULTILINE))
        return {"verdicts": [{"statement": n, "supported": True} for n in range(1, count + 1)]}
    if schema == "JudgeOut":
        return {"relevance": 0.9, "accuracy": 0.8, "completeness": 0.7, "source_quality": 0.8, "strengths": ["cited"]}
    raise AssertionError(f"unexpected schema {schema}")


@dataclass
class Servers:
    site: PageLog
    tavily: FakeSearchApi
    gemini: FakeGemini
    model_log: ModelLog


@contextmanager
def servers() -> Iterator[Servers]:
    pages = PageLog()
    sites = [Site(f"127.0.0.{n + 1}", pages) for n in range(1, PAGES + 1)]
    hits = [
        FakeHit(site.url(f"/station/{n}"), f"Station {n}", "tidal survey", 0.9) for n, site in enumerate(sites, start=1)
    ]
    log = ModelLog()
    with (
        FakeSearchApi("tavily", api_key=KEY, default_hits=hits, latency_seconds=SEARCH_S) as tavily,
        FakeGemini(competent(log)) as gemini,
    ):
        try:
            yield Servers(pages, tavily, gemini, log)
        finally:
            for site in sites:
                site.shutdown()


def configure(servers: Servers, model: bool) -> None:
    """The settings a run reads: fakes, loopback allowed, no browser or archive, the reasoner asked for."""
    from research_assistant.settings import get_settings

    for name in [n for n in os.environ if n.startswith(("RESEARCH_", "TAVILY_", "EXA_", "GEMINI_"))]:
        del os.environ[name]
    os.environ.pop("GOOGLE_API_KEY", None)
    os.environ.update(
        RESEARCH_TAVILY_API_KEY=KEY,
        RESEARCH_TAVILY_BASE_URL=servers.tavily.base_url,
        RESEARCH_ALLOW_PRIVATE_NETWORKS="127.0.0.0/8",
        RESEARCH_WAYBACK_BASE_URL="",
        RESEARCH_BROWSER="false",
        RESEARCH_REASONER="llm" if model else "extractive",
    )
    if model:
        os.environ.update(
            GEMINI_API_KEY=KEY, RESEARCH_GEMINI_BASE_URL=servers.gemini.base_url, RESEARCH_LLM_MAX_RETRIES="0"
        )
    get_settings.cache_clear()


@dataclass
class Run:
    wall: float
    critical: float
    others_done: float | None
    """Seconds from the start until every page but station `SLOW`'s was read and its evidence found."""
    others_lag: float | None
    """Seconds from the last of those pages being served until its evidence was found."""
    evidence: int


FOUND_IN = re.compile(r"evidence items found in Tidal survey station (\d+)$")


def research(servers: Servers, workdir: Path, run_id: str, *, offline: bool = False) -> Run:
    from research_assistant.context import Context, Depth
    from research_assistant.runner import run_research
    from research_assistant.runs.records import TraceEvent

    events: list[TraceEvent] = []
    context = Context(
        depth=Depth.QUICK,
        source_types=["local"] if offline else ["web"],
        corpus_dir=workdir / "corpus" if offline else None,
        db_dir=workdir / "db",
        cache_dir=workdir / "cache",
        providers=None if offline else ["tavily"],
        max_sources=PAGES,
        max_iterations=1,
        max_seconds=120,
    )
    servers.model_log.calls.clear()
    servers.site.requests.clear()
    servers.tavily.requests.clear()
    clock = time.perf_counter()
    to_clock = clock - time.time()  # trace events carry wall-clock times
    result = asyncio.run(run_research(QUESTION, context, events.append, run_id=run_id))
    wall = time.perf_counter() - clock
    found = [e.at + to_clock for e in events if (m := FOUND_IN.search(e.message)) and int(m[1]) != SLOW]
    served = [end for path, _, end in servers.site.requests if path != f"/station/{SLOW}"]
    others = max(found) - clock if found else None
    lag = max(found) - max(served) if found and served else None
    return Run(wall, critical_path(servers), others, lag, len(result.get("evidence", {})))


def critical_path(servers: Servers) -> float:
    """The longest chain of dependent calls in the run just made (one round), from what the servers saw.

    Model calls before the search (analysis, plan) come one after another; the round is its searches (one
    wave: they run at once), then the slowest page plus, with a model, the extraction call that page waits
    for; then every later wave of model calls (the assessment, the report and its checks): calls whose times
    overlap are one wave. Pages are timed where they were served; a cached page or search costs nothing.
    """
    searches = SEARCH_S if servers.tavily.requests else 0.0
    pages = [end - began for _, began, end in servers.site.requests]
    slowest_page = max(pages, default=0.0)
    calls = sorted(servers.model_log.calls, key=lambda call: call[1])
    before = [c for c in calls if c[0] in ("AnalysisOut", "PlanOut")]
    extraction = [c for c in calls if c[0] == "ExtractionOut"]
    after = [c for c in calls if c[0] not in ("AnalysisOut", "PlanOut", "ExtractionOut")]
    waves, wave_end = 0, -1.0
    for _, began, end in after:
        if began >= wave_end:
            waves += 1
        wave_end = max(wave_end, end) if began < wave_end else end
    return round(
        len(before) * MODEL_S + searches + slowest_page + (MODEL_S if extraction else 0.0) + waves * MODEL_S, 3
    )


def write_corpus(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number in range(1, 41):
        (folder / f"station-{number}.html").write_text(article(number), encoding="utf-8")


def median(values: list[float]) -> float:
    return round(statistics.median(values), 3)


def measured(values: list[float | None]) -> float | None:
    """The median of what was measured; None when nothing was: without a model no page's evidence is found
    before the round closes, when all pages are extracted together."""
    found = [value for value in values if value is not None]
    return median(found) if found else None


def in_ms(seconds: float | None) -> int | None:
    return None if seconds is None else round(1000 * seconds)


def scenario(servers: Servers, model: bool, repeats: int) -> dict[str, Any]:
    """First runs with the slow page, their identical re-runs, and control runs with no slow page, interleaved."""
    configure(servers, model)
    first: list[Run] = []
    again: list[Run] = []
    control: list[Run] = []
    for repeat in range(repeats):
        with tempfile.TemporaryDirectory() as work:
            servers.site.slow = SLOW_PAGE_S
            first.append(research(servers, Path(work), f"first-{repeat}"))
            again.append(research(servers, Path(work), f"again-{repeat}"))
        with tempfile.TemporaryDirectory() as work:
            servers.site.slow = PAGE_S
            control.append(research(servers, Path(work), f"control-{repeat}"))
    wall, critical = median([r.wall for r in first]), median([r.critical for r in first])
    rerun = median([r.wall for r in again])
    lag, lag_control = in_ms(measured([r.others_lag for r in first])), in_ms(measured([r.others_lag for r in control]))
    return {
        "wall_s": wall,
        "critical_path_s": critical,
        "wall_over_critical": round(wall / critical, 3),
        "goal_wall_at_most_s": round(1.2 * critical + 0.5, 3),
        "others_done_s": measured([r.others_done for r in first]),
        "others_done_without_slow_page_s": measured([r.others_done for r in control]),
        "others_done_after_their_pages_ms": lag,
        "others_done_after_their_pages_without_slow_page_ms": lag_control,
        "slow_page_delays_others_ms": None if lag is None or lag_control is None else lag - lag_control,
        "control_wall_s": median([r.wall for r in control]),
        "control_critical_path_s": median([r.critical for r in control]),
        "evidence": first[0].evidence,
        "rerun_s": rerun,
        "rerun_over_first": round(rerun / wall, 3),
        "rerun_evidence": again[0].evidence,
    }


def offline(servers: Servers, repeats: int) -> dict[str, Any]:
    """A local folder of 40 articles: the first run indexes it, the identical re-run finds it indexed."""
    configure(servers, model=False)
    first, again = [], []
    for repeat in range(repeats):
        with tempfile.TemporaryDirectory() as work:
            write_corpus(Path(work) / "corpus")
            first.append(research(servers, Path(work), f"offline-{repeat}", offline=True).wall)
            again.append(research(servers, Path(work), f"offline-again-{repeat}", offline=True).wall)
    return {
        "first_s": median(first),
        "rerun_s": median(again),
        "rerun_over_first": round(median(again) / median(first), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "pipeline-results.json")
    args = parser.parse_args()
    results: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "latencies_s": {"search": SEARCH_S, "page": PAGE_S, "slow_page": SLOW_PAGE_S, "model_call": MODEL_S},
        "pages": PAGES,
        "repeats": args.repeats,
    }
    with servers() as running:
        for model in (False, True):  # untimed warm-up: imports, first-use set-up
            configure(running, model)
            with tempfile.TemporaryDirectory() as work:
                running.site.slow = PAGE_S
                research(running, Path(work), f"warm-up-{model}")
        results["web_without_model"] = scenario(running, model=False, repeats=args.repeats)
        print(json.dumps(results["web_without_model"]), file=sys.stderr, flush=True)
        results["web_with_model"] = scenario(running, model=True, repeats=args.repeats)
        print(json.dumps(results["web_with_model"]), file=sys.stderr, flush=True)
        results["offline"] = offline(running, args.repeats)
    text = json.dumps(results, indent=2)
    args.out.write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
