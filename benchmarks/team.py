#!/usr/bin/env python
"""Team throughput: N runs through PostgreSQL and a Chroma server, one after another, then by W worker processes
at once (each in its own working directory, as on separate machines).

Two kinds of run:

- **offline**: the local corpus and the extractive reasoner, CPU-bound; on a 2-core machine the gain is bounded
  by the cores.
- **web**: the fake Tavily API and a local site (`tests/support`) whose every answer takes `--latency` seconds,
  I/O-bound. Every search gets pages of its own (the corpus's documents under addresses naming the query), so no
  run reads another's pages from the shared cache.

The package's bytecode is compiled first, as an installed package has it: with `PYTHONDONTWRITEBYTECODE` set (as on
the machine these figures come from), every run's process would otherwise compile the package's modules from source
again, about 0.3 s of CPU a run.

Each timing gets a fresh database and Chroma server (nothing cached by the timing before it), warmed by one run of
a question outside the set, as in a team's steady state. Alongside the wall time it records the CPU seconds the
workers and the servers spent (user + system), so a speed-up short of the goal can be told apart: CPU the machine
did not give us (other load: fewer of its cores busy with our processes than it has), or work the workers added
(more CPU seconds for the same runs). The machine's load average before and after each timing says how much other
work it shared the cores with; what the machine's CPUs did meanwhile (/proc/stat: idle, stolen by the hypervisor,
busy with other processes) says it more exactly. A probe measures the machine's speed during each timing: the CPU
that a fixed piece of work costs a small process that runs it every 0.1 s. Where a run costs more CPU in one timing
than in another, and the probe and the servers (whose work is the same in both) cost more too, the machine ran
slower, not the runs. Prints a Markdown table and writes the figures to JSON: the median timing per mode, and every
timing. Not a test.

Set `TEAM_BENCH_WRAPPER` to a command to run each run through (a profiler: `py-spy record -o run.txt --format raw
--`, `strace -f -c -o run.strace`, ...).

    python benchmarks/team.py --mode both --runs 8 --workers 4 --out benchmarks/team-results.json
"""

from __future__ import annotations

import argparse
import hashlib
import html
import json
import os
import platform
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fixtures.corpus_facts import FACTS  # noqa: E402
from support.fake_search_apis import FakeHit, FakeSearchApi  # noqa: E402
from support.miniweb import MiniWeb  # noqa: E402
from support.server_process import stop, wait_until_ready  # noqa: E402
from support.team_servers import Postgres, postgres_bin, start_chroma, start_postgres, stop_postgres  # noqa: E402

from research_assistant.corpus.loaders import load_file  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "corpus"
WEB_DOCUMENTS = ("overview.md", "history.md", "ridership-2023.md", "depot.txt", "fares.html")
WARM_QUESTION = "What does a single fare on the Halvorsby trams cost?"
API_KEY = "team-bench"
WRAPPER = shlex.split(os.environ.get("TEAM_BENCH_WRAPPER", ""))
"""A command that each run's command is passed to (a profiler, say: `py-spy record -o run.json --`), when
`TEAM_BENCH_WRAPPER` is set."""


@dataclass(frozen=True)
class Timing:
    seconds: float
    cpu_seconds: float
    """User + system time of the worker processes."""
    servers_cpu_seconds: float
    """User + system time of the Chroma server and the PostgreSQL backends meanwhile."""
    load: float
    """The machine's load average (1 minute) at the end: runnable processes, ours and others'."""
    load_before: float
    """The same just before the timing started: other work on the machine, which the workers then share it with."""
    machine: MachineTimes
    """What the whole machine's CPUs did meanwhile (/proc/stat)."""
    probe_cpu_ms: float
    """The machine probe's CPU milliseconds per piece of its fixed work meanwhile (`PROBE`)."""
    system_cpu_seconds: float
    """The kernel's part of `cpu_seconds`."""


@dataclass(frozen=True)
class MachineTimes:
    """Seconds the machine's CPUs, all of them together, spent busy (user, nice, system, interrupts), idle (with
    I/O wait) and stolen by the hypervisor (a virtual CPU that wanted to run, not given a physical one), from the
    first line of /proc/stat. Busy time less our workers' and servers' is other processes' work: a truer measure
    of a shared machine's load during a timing than the load average."""

    busy: float
    idle: float
    steal: float

    @staticmethod
    def now() -> MachineTimes:
        fields = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
        user, nice, system, idle, iowait, irq, softirq, steal = fields
        tick = os.sysconf("SC_CLK_TCK")
        return MachineTimes((user + nice + system + irq + softirq) / tick, (idle + iowait) / tick, steal / tick)

    def __sub__(self, other: MachineTimes) -> MachineTimes:
        return MachineTimes(self.busy - other.busy, self.idle - other.idle, self.steal - other.steal)


PROBE = """
import sys, threading, time
def chunk():
    d = {}
    for i in range(20000):
        d[str(i)] = i
    return len(d)
ended = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), ended.set()), daemon=True).start()
spent = []
while not ended.wait(0.1):
    started = time.thread_time()
    chunk()
    spent.append(time.thread_time() - started)
spent.sort()
print(spent[len(spent) // 2] * 1000 if spent else 0.0)
"""
"""The machine's speed meanwhile: every 0.1 s a fixed piece of pure-Python work (a few milliseconds, about 2% of a
core), whose median CPU milliseconds are printed when stdin closes. The same work costs more CPU where the machine
runs a process slower (its virtual CPU waking from idle, say), whatever our workers do."""


@contextmanager
def machine_probe() -> Iterator[list[float]]:
    """Run `PROBE` for the block; the list then holds its median CPU milliseconds per piece of work."""
    result: list[float] = []
    probe = subprocess.Popen([sys.executable, "-c", PROBE], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        yield result
    finally:
        output, _ = probe.communicate("", timeout=30)
        result.append(float(output.strip() or 0.0))


def process_cpu(pid: int) -> float:
    """CPU seconds of process `pid` and of its children that have ended (/proc/PID/stat: utime, stime, cutime,
    cstime); 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return sum(int(field) for field in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def postmaster_pid(database: Postgres) -> int:
    return int((database.folder / "data" / "postmaster.pid").read_text().split()[0])


def html_page(path: Path) -> str:
    """A corpus document as a plain web page: its title, and its text in paragraphs."""
    text = load_file(path).text
    blocks = [block.strip() for block in text.split("\n\n") if block.strip()]
    paragraphs = "".join(
        f"<h2>{html.escape(block.lstrip('#').strip())}</h2>"
        if block.startswith("#")
        else f"<p>{html.escape(block)}</p>"
        for block in blocks
    )
    title = html.escape(path.stem.replace("-", " ").title())
    return (
        f"<html><head><title>{title}</title></head><body><article><h1>{title}</h1>{paragraphs}</article></body></html>"
    )


class PerQuerySearch(FakeSearchApi):
    """Fake Tavily whose hits for a query are the site's documents under addresses naming that query."""

    site: MiniWeb | None = None

    def hits_for(self, query: str) -> Sequence[FakeHit]:
        assert self.site is not None
        tag = hashlib.sha256(query.encode()).hexdigest()[:10]
        return [
            FakeHit(self.site.url(f"/doc/{Path(name).stem}.html?q={tag}"), Path(name).stem, query, 0.9 - k / 20)
            for k, name in enumerate(WEB_DOCUMENTS)
        ]


@contextmanager
def fake_web(latency: float) -> Iterator[dict[str, str]]:
    """The fake search API and site, both answering after `latency` seconds; the settings that point a worker
    at them."""
    search = PerQuerySearch("tavily", api_key=API_KEY, latency_seconds=latency)
    with MiniWeb() as site, search:
        site.latency_seconds = latency
        for name in WEB_DOCUMENTS:
            site.add_page(f"/doc/{Path(name).stem}.html", html_page(CORPUS / name), "text/html; charset=utf-8")
        search.site = site
        yield {
            "RESEARCH_TAVILY_API_KEY": API_KEY,
            "RESEARCH_TAVILY_BASE_URL": search.base_url,
            "RESEARCH_ALLOW_PRIVATE_NETWORKS": "127.0.0.0/8",
        }


def research(workdir: Path, env: dict[str, str], questions: list[str], sources: str) -> None:
    """One worker: its questions one after another, each a `research-assistant run` process."""
    workdir.mkdir(parents=True, exist_ok=True)
    child = {k: v for k, v in os.environ.items() if not k.startswith(("RESEARCH_", "TAVILY_", "EXA_"))}
    child.update(env, RESEARCH_DB_DIR=str(workdir / "db"), RESEARCH_CACHE_DIR=str(workdir / "cache"))
    for question in questions:
        command = [
            *WRAPPER,
            sys.executable,
            "-m",
            "research_assistant.cli",
            "run",
            question,
            "--depth",
            "quick",
            "--quiet",
        ]
        command += ["--corpus", str(CORPUS)] if sources == "local" else ["--sources", sources]
        done = subprocess.run(command, cwd=workdir, env=child, check=False, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(
                f"{question!r} ended with {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
            )


def compile_bytecode() -> None:
    """Compile the bytecode of the package that the workers' processes import (this environment's)."""
    code = (
        "import compileall, os, research_assistant as p; compileall.compile_dir(os.path.dirname(p.__file__), quiet=1)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def children_system_cpu() -> float:
    """The system (kernel) part of `children_cpu`: page faults, system calls, wake-ups of other threads."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_stime


def timed(work: list[tuple[Path, list[str]]], env: dict[str, str], sources: str, servers: list[int]) -> Timing:
    """Run the workers' questions; the wall time, the workers' CPU time and the servers' (processes `servers`,
    whose ended children count: the PostgreSQL backends of workers that have finished)."""

    def servers_cpu() -> float:
        return sum(process_cpu(pid) for pid in servers)

    load = os.getloadavg()[0]
    with machine_probe() as probe:  # ended after the workers' CPU is read: its own is not theirs
        cpu, server_cpu, machine, started = children_cpu(), servers_cpu(), MachineTimes.now(), time.perf_counter()
        system = children_system_cpu()
        with ThreadPoolExecutor(max_workers=len(work)) as pool:
            for future in [pool.submit(research, folder, env, questions, sources) for folder, questions in work]:
                future.result()
        seconds, machine = time.perf_counter() - started, MachineTimes.now() - machine
        time.sleep(0.5)  # the backends of the last workers end
        cpu, server_cpu, system = children_cpu() - cpu, servers_cpu() - server_cpu, children_system_cpu() - system
    return Timing(seconds, cpu, server_cpu, os.getloadavg()[0], load, machine, probe[0], system)


@contextmanager
def fresh_servers(database: Postgres, base: Path, name: str) -> Iterator[tuple[dict[str, str], list[int]]]:
    """A new, empty database on the cluster and a Chroma server of its own: nothing cached by an earlier timing.
    The workers' settings, and the servers' process ids."""
    chroma, server = start_chroma(base / f"chroma-{name}")
    try:
        wait_until_ready(chroma, server, "/api/v2/heartbeat", "chroma run", 60)
        settings = {"RESEARCH_DATABASE_URL": database.new_database(name), "RESEARCH_CHROMA_URL": server.url}
        yield settings, [chroma.pid, postmaster_pid(database)]
    finally:
        stop(chroma, 10)


def measure(
    database: Postgres, base: Path, mode: str, questions: list[str], workers: int, extra: dict[str, str]
) -> tuple[Timing, Timing]:
    sources = "local" if mode == "offline" else "web"
    timings = []
    for name, split in (("one", 1), ("workers", workers)):
        with fresh_servers(database, base, f"{mode}_{name}") as (settings, pids):
            env = {**settings, **extra}
            research(base / f"{mode}-{name}-warm", env, [WARM_QUESTION], sources)
            work = [(base / f"{mode}-{name}-{n}", questions[n::split]) for n in range(split)]
            timings.append(timed(work, env, sources, pids))
    return timings[0], timings[1]


def figures(mode: str, runs: int, one: Timing, many: Timing, extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "mode": mode,
        **extra,
        "one_after_another_seconds": round(one.seconds, 1),
        "workers_seconds": round(many.seconds, 1),
        "speedup": round(one.seconds / many.seconds, 2),
        "one_after_another_cpu_seconds": round(one.cpu_seconds, 1),
        "workers_cpu_seconds": round(many.cpu_seconds, 1),
        "one_after_another_cpu_seconds_per_run": round(one.cpu_seconds / runs, 2),
        "workers_cpu_seconds_per_run": round(many.cpu_seconds / runs, 2),
        "one_after_another_servers_cpu_seconds": round(one.servers_cpu_seconds, 1),
        "workers_servers_cpu_seconds": round(many.servers_cpu_seconds, 1),
        "one_after_another_cores_busy": round((one.cpu_seconds + one.servers_cpu_seconds) / one.seconds, 2),
        "workers_cores_busy": round((many.cpu_seconds + many.servers_cpu_seconds) / many.seconds, 2),
        "one_after_another_load_average_before": round(one.load_before, 2),
        "one_after_another_load_average_after": round(one.load, 2),
        "workers_load_average_before": round(many.load_before, 2),
        "workers_load_average_after": round(many.load, 2),
        **{
            f"{name}_{key}": value
            for name, timing in (("one_after_another", one), ("workers", many))
            for key, value in machine_figures(timing).items()
        },
    }


def machine_figures(timing: Timing) -> dict[str, float]:
    """The machine's side of a timing: how much of its CPUs sat idle, how much the hypervisor took, and how much
    other processes used (the machine's busy time less our workers' and servers'; this script's own process, which
    serves the fake web, among them)."""
    machine = timing.machine
    others = machine.busy - timing.cpu_seconds - timing.servers_cpu_seconds
    return {
        "machine_idle_fraction": round(machine.idle / max(machine.busy + machine.idle + machine.steal, 1e-9), 2),
        "machine_steal_seconds": round(machine.steal, 1),
        "other_processes_cpu_seconds": round(max(others, 0.0), 1),
        "machine_probe_cpu_ms": round(timing.probe_cpu_ms, 2),
        "runs_system_cpu_seconds": round(timing.system_cpu_seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=["offline", "web", "both"], default="both")
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--latency", type=float, default=1.0, help="seconds each search and page takes (web)")
    parser.add_argument("--repeats", type=int, default=1, help="timings per mode; the median speed-up is kept")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    binaries = postgres_bin()
    if binaries is None:
        sys.exit("PostgreSQL is not installed: apt-get install -y postgresql")
    compile_bytecode()
    questions = [FACTS[i % len(FACTS)][0] for i in range(args.runs)]
    modes = ["offline", "web"] if args.mode == "both" else [args.mode]
    load = os.getloadavg()[0]  # other work on the machine bounds what the workers can gain
    base = Path(tempfile.mkdtemp(prefix="research-team-bench-"))
    database = start_postgres(binaries)
    results: list[dict[str, Any]] = []
    every: list[dict[str, Any]] = []
    try:
        for mode in modes:
            rounds = []
            for repeat in range(args.repeats):
                with ExitStack() as stack:
                    extra = stack.enter_context(fake_web(args.latency)) if mode == "web" else {}
                    one, many = measure(database, base / f"r{repeat}", mode, questions, args.workers, extra)
                rounds.append(
                    figures(mode, args.runs, one, many, {"latency_seconds": args.latency} if mode == "web" else {})
                )
                print(json.dumps(rounds[-1]), file=sys.stderr)
            results.append(
                min(rounds, key=lambda r: abs(r["speedup"] - statistics.median(x["speedup"] for x in rounds)))
            )
            every.extend(rounds)
    finally:
        stop_postgres(database)
        shutil.rmtree(base, ignore_errors=True)
    report = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "bytecode": "compiled before timing",
        "runs": args.runs,
        "workers": args.workers,
        "repeats": args.repeats,
        "load_average_before": round(load, 2),
        "results": results,
        "every_timing": every,
    }
    print(f"| Runs | One worker | {args.workers} workers | Speed-up | Cores busy (one / {args.workers}) |")
    print("| --- | --- | --- | --- | --- |")
    for r in results:
        busy = f"{r['one_after_another_cores_busy']} / {r['workers_cores_busy']}"
        print(f"| {args.runs} {r['mode']} | {r['one_after_another_seconds']} s | {r['workers_seconds']} s "
              f"| {r['speedup']:.2f}x | {busy} |")  # fmt: skip
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
