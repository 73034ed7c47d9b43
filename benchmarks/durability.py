#!/usr/bin/env python
"""What durability costs, and how fast a run stops: offline research on the sample corpus.

Compares, in one process and interleaved, the compiled graph run bare (`ainvoke`, no checkpointer, no trace) with
the same research through the runner (SQLite checkpoint after every step, run record, trace written as it
happens), and measures how long a cancelled run takes to end. Prints medians and writes them to JSON. Not a test.

    python benchmarks/durability.py --repeat 5 --out benchmarks/durability-results.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from research_assistant.context import Context, Depth
from research_assistant.graph import build_graph
from research_assistant.runner import run_research
from research_assistant.runs.records import EventKind, TraceEvent

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "How does Python manage memory and reclaim reference cycles?"


async def bare(context: Context) -> float:
    began = time.perf_counter()
    await build_graph().ainvoke({"question": QUESTION}, context=context)
    return time.perf_counter() - began


async def durable(context: Context) -> tuple[float, int]:
    events: list[TraceEvent] = []
    began = time.perf_counter()
    await run_research(QUESTION, context, events.append)
    return time.perf_counter() - began, len(events)


async def cancel_latency(context: Context) -> float:
    """Cancel once the sources are being read; seconds until the run has ended."""
    reading = asyncio.Event()

    def on_event(event: TraceEvent) -> None:
        if event.kind is EventKind.SOURCE:
            reading.set()

    task = asyncio.create_task(run_research(QUESTION, context, on_event))
    await reading.wait()
    began = time.perf_counter()
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    return time.perf_counter() - began


async def measure(repeat: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="ra-durability-"))
    corpus = ROOT / "examples" / "python-memory"
    samples: dict[str, list[float]] = {"bare": [], "durable": [], "cancel": []}
    for depth in (Depth.STANDARD, Depth.DEEP):
        context = Context(depth=depth, corpus_dir=corpus, db_dir=work / "db", cache_dir=work / "cache")
        await bare(context)  # warm: index the corpus, load the libraries
        for _ in range(repeat):
            samples.setdefault(f"bare-{depth}", []).append(await bare(context))
            seconds, events = await durable(context)
            samples.setdefault(f"durable-{depth}", []).append(seconds)
            samples.setdefault(f"events-{depth}", []).append(events)
            samples.setdefault(f"cancel-{depth}", []).append(await cancel_latency(context))
    medians: dict[str, Any] = {name: round(statistics.median(values), 4) for name, values in samples.items() if values}
    medians["machine"] = f"{platform.processor() or platform.machine()}, Python {platform.python_version()}"
    return {"medians": medians, "samples": samples}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    results = asyncio.run(measure(args.repeat))
    print(json.dumps(results["medians"], indent=2))
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
