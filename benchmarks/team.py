#!/usr/bin/env python
"""Team throughput: N offline runs through PostgreSQL and a Chroma server, one after another, then by W worker
processes at once (each in its own working directory, as on separate machines).

Starts its own throwaway PostgreSQL cluster (Debian's `postgresql` package) and `chroma run` on loopback, warms the
shared repository with one run, then times both ways. CPU-bound (the offline extractive reasoner), so on a 2-core
machine the gain is bounded by the cores. Prints a Markdown table and writes the figures to JSON. Not a test.

    python benchmarks/team.py --runs 8 --workers 4 --out benchmarks/team-results.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fixtures.corpus_facts import FACTS  # noqa: E402
from support.server_process import stop, wait_until_ready  # noqa: E402
from support.team_servers import postgres_bin, start_chroma, start_postgres, stop_postgres  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "corpus"


def research(workdir: Path, env: dict[str, str], questions: list[str]) -> None:
    """One worker: its questions one after another, each a `research-assistant run` process."""
    workdir.mkdir(parents=True, exist_ok=True)
    child = {**os.environ, **env, "RESEARCH_DB_DIR": str(workdir / "db"), "RESEARCH_CACHE_DIR": str(workdir / "cache")}
    for question in questions:
        command = [sys.executable, "-m", "research_assistant.cli", "run", question, "--corpus", str(CORPUS)]
        subprocess.run(
            [*command, "--depth", "quick", "--quiet"], cwd=workdir, env=child, check=True, capture_output=True
        )


def timed(work: list[tuple[Path, list[str]]], env: dict[str, str]) -> float:
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(work)) as pool:
        for future in [pool.submit(research, folder, env, questions) for folder, questions in work]:
            future.result()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    binaries = postgres_bin()
    if binaries is None:
        sys.exit("PostgreSQL is not installed: apt-get install -y postgresql")
    questions = [FACTS[i % len(FACTS)][0] for i in range(args.runs)]
    load = os.getloadavg()[0]  # other work on the machine bounds what the workers can gain
    base = Path(tempfile.mkdtemp(prefix="research-team-bench-"))
    database = start_postgres(binaries)
    chroma, server = start_chroma(base / "chroma")
    try:
        wait_until_ready(chroma, server, "/api/v2/heartbeat", "chroma run", 60)
        env = {"RESEARCH_DATABASE_URL": database.url(), "RESEARCH_CHROMA_URL": server.url}
        research(base / "warm", env, [questions[0]])  # the shared repository indexed, as in a team's steady state
        one = timed([(base / "one", questions)], env)
        split = [(base / f"w{n}", questions[n :: args.workers]) for n in range(args.workers)]
        many = timed(split, env)
    finally:
        stop(chroma, 10)
        stop_postgres(database)
    figures = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "runs": args.runs,
        "workers": args.workers,
        "one_after_another_seconds": round(one, 1),
        "workers_seconds": round(many, 1),
        "speedup": round(one / many, 2),
        "load_average_before": round(load, 2),
    }
    print(f"| Offline runs | One worker | {args.workers} workers | Speed-up |\n| --- | --- | --- | --- |")
    print(f"| {args.runs} | {one:.1f} s | {many:.1f} s | {one / many:.2f}x |")
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
