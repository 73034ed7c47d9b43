#!/usr/bin/env python
"""Indexing benchmark: a real manual-sized corpus (Debian's python3-doc HTML) indexed into a fresh repository.

Each repeat runs in a fresh process (so imports, caches and peak memory are its own): a first sync into new
`research_db/` and `cache/` folders, a re-sync with nothing changed, then one with the document cache cleared
(the files are read again; the index should stay as it is). Reports the median wall time of the first sync, its
CPU time (all processes, workers included: steadier than wall time on a shared machine), that
of the main process alone (its own threads, Chroma's included: the serial chain that stores every chunk), the
re-sync time and peak resident memory. `--mode threads` indexes without worker processes, for comparison in the
same conditions; `--before DIR` also runs the package copied at DIR (say, `git archive` of the previous commit),
interleaved with this one, as the column `before`; `--large-mb` also indexes one generated text file of that
size. Writes JSON; runs offline with the default `hashing` embedding. Not a test (outside `tests/`). See
benchmarks/README.md.

    python benchmarks/indexing.py --repeat 3 --out benchmarks/indexing-results.json --workdir /tmp/ra-indexing
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CORPORA = (Path("/usr/share/doc/python3/html"), Path("/usr/share/doc/python3-doc/html"))
"""Where Debian's python3-doc package puts the HTML manual (the first is a link to the second on some releases)."""


def find_corpus() -> Path | None:
    return next((path.resolve() for path in CORPORA if (path / "index.html").is_file()), None)


# -- one measurement, in its own process ---------------------------------------------------------------------------


def child(corpus: Path, workdir: Path, mode: str) -> dict[str, Any]:
    """Index `corpus` into new folders under `workdir`, then re-sync it; what it took. Mode `cleared`: re-sync
    the corpus indexed there with its document cache cleared."""
    from research_assistant.corpus import indexer
    from research_assistant.corpus.indexer import CorpusIndexer
    from research_assistant.knowledge.document_cache import DocumentCache
    from research_assistant.services import repository_at

    if mode == "cleared":
        vectors = _vector_bytes(workdir / "research_db")
        shutil.rmtree(workdir / "cache" / "documents")
        started = time.perf_counter()
        sync = CorpusIndexer(corpus, repository_at(workdir / "research_db"), DocumentCache(workdir / "cache"))
        report = sync.sync()
        return {
            "cleared_cache_resync_s": round(time.perf_counter() - started, 2),
            "indexed_on_cleared_cache_resync": report.indexed,
            "vector_index_mb": round(vectors / 2**20, 1),
            "vector_index_mb_after_cleared_cache_resync": round(_vector_bytes(workdir / "research_db") / 2**20, 1),
        }
    if mode == "threads":
        indexer.process_pool = lambda files: None
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    started = time.perf_counter()
    repository = repository_at(workdir / "research_db")
    lines: list[str] = []
    sync = CorpusIndexer(corpus, repository, DocumentCache(workdir / "cache"))
    report = sync.sync(progress=lines.append)
    seconds = time.perf_counter() - started
    own = resource.getrusage(resource.RUSAGE_SELF)  # this process's threads (Chroma's too), not its workers
    again = time.perf_counter()
    unchanged = sync.sync()
    resync = time.perf_counter() - again
    status = Path("/proc/self/status").read_text()
    peak = int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:"))) // 1024
    return {
        "index_s": round(seconds, 2),
        "main_cpu_s": round(own.ru_utime + own.ru_stime, 1),
        "resync_s": round(resync, 3),
        "documents": report.indexed,
        "skipped": len(report.skipped),
        "unchanged_on_resync": unchanged.unchanged,
        "chunks": repository.chunk_count(),
        "progress_lines": len(lines),
        "main_peak_mb": peak,
    }


def _vector_bytes(folder: Path) -> int:
    """The size of Chroma's HNSW vector index files, which keep a deleted vector's space."""
    return sum(path.stat().st_size for path in folder.rglob("data_level0.bin"))


# -- the driver ----------------------------------------------------------------------------------------------------


def measure(corpus: Path, workdir: Path, mode: str, package: Path | None = None) -> dict[str, Any]:
    """One fresh process: its result, plus the CPU time and peak memory of it and its worker processes, then
    another for the re-sync with the document cache cleared. With `package`, the processes import
    `research_assistant` from that folder instead of this one."""
    load = os.getloadavg()[0]
    result = _process(corpus, workdir, ["--mode", mode], package)
    cleared = _process(corpus, workdir, ["--cleared"], package)
    return (
        result
        | {key: value for key, value in cleared.items() if key not in ("cpu_s", "peak_mb")}
        | {"load_average_at_start": round(load, 2)}
    )


def _process(corpus: Path, workdir: Path, options: list[str], package: Path | None) -> dict[str, Any]:
    command = [sys.executable, __file__, "--child", str(corpus), "--workdir", str(workdir), *options]
    env = {key: value for key, value in os.environ.items() if not key.startswith("RESEARCH_")}
    env["PYTHONPATH"] = str(package or Path(__file__).resolve().parents[1])
    out = workdir.parent / f"{workdir.name}.json"
    process = subprocess.Popen([*command, "--out", str(out)], env=env)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the measurement failed: {' '.join(command)}")
    result: dict[str, Any] = json.loads(out.read_text())
    # wait4's usage covers the child and the worker processes it waited for; its peak is the largest of them.
    return result | {"cpu_s": round(usage.ru_utime + usage.ru_stime, 1), "peak_mb": round(usage.ru_maxrss / 1024)}


def large_corpus(folder: Path, megabytes: int) -> Path:
    """A folder holding one generated text file of about `megabytes` MB: paragraphs of plausible prose."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    words = [*re.findall(r"[a-z]+", Path(__file__).read_text().lower()), "memory", "collector", "reference"]
    with (folder / "large.txt").open("w", encoding="utf-8") as handle:
        written = 0
        while written < megabytes * 2**20:
            sentences = [" ".join(rng.choices(words, k=rng.randint(8, 20))).capitalize() + "." for _ in range(6)]
            paragraph = " ".join(sentences) + "\n\n"
            written += handle.write(paragraph)
    return folder


def _machine() -> dict[str, Any]:
    info = Path("/proc/cpuinfo").read_text() + Path("/proc/meminfo").read_text()
    cpu, ram_kb = re.findall(r"model name\s*:\s*(.*)", info)[0], re.findall(r"MemTotal:\s*(\d+)", info)[0]
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gb": round(int(ram_kb) / 2**20, 1),
        "python": platform.python_version(),
        "load_average": [round(load, 2) for load in os.getloadavg()],
    }


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "index_s": statistics.median(run["index_s"] for run in runs),
        "cpu_s": statistics.median(run["cpu_s"] for run in runs),
        "main_cpu_s": statistics.median(run["main_cpu_s"] for run in runs),
        "resync_s": statistics.median(run["resync_s"] for run in runs),
        "cleared_cache_resync_s": statistics.median(run["cleared_cache_resync_s"] for run in runs),
        "vector_index_mb": runs[0]["vector_index_mb"],
        "vector_index_mb_after_cleared_cache_resync": max(
            run["vector_index_mb_after_cleared_cache_resync"] for run in runs
        ),
        "peak_mb": max(run["peak_mb"] for run in runs),
        "main_peak_mb": max(run["main_peak_mb"] for run in runs),
        "documents": runs[0]["documents"],
        "chunks": runs[0]["chunks"],
        "runs": runs,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mode", choices=["processes", "threads", "both"], default="processes")
    parser.add_argument("--large-mb", type=int, default=0, help="also index one generated text file this large")
    parser.add_argument(
        "--before", type=Path, default=None, help="also run the package copied in this folder, interleaved, as 'before'"
    )
    parser.add_argument("--corpus", type=Path, default=None, help="default: the python3-doc HTML manual")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/ra-indexing"))
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("indexing-results.json"))
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cleared", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        args.out.write_text(json.dumps(child(args.child, args.workdir, "cleared" if args.cleared else args.mode)))
        return 0

    corpus = args.corpus or find_corpus()
    if corpus is None:
        print("no corpus: install Debian's python3-doc (apt-get install python3-doc) or pass --corpus", file=sys.stderr)
        return 2
    machine = _machine()
    print(f"{machine['cpu']}, {machine['cores']} cores, {machine['ram_gb']} GB, load {machine['load_average']}")
    report: dict[str, Any] = {"machine": machine, "command": " ".join(["python", *sys.argv]), "corpus": str(corpus)}
    modes = ["processes", "threads"] if args.mode == "both" else [args.mode]
    if args.before is not None:
        modes = ["before", *modes]
    for repeat in range(args.repeat):
        for mode in modes:  # interleaved, so that a busy spell on a shared machine hits every column alike
            package = args.before if mode == "before" else None
            result = measure(corpus, args.workdir / f"{mode}-{repeat}", "processes" if package else mode, package)
            report.setdefault("runs", {}).setdefault(mode, []).append(result)
            print(
                f"  {mode}: {result['index_s']} s ({result['cpu_s']} s CPU, main process {result['main_cpu_s']} s), "
                f"re-sync {result['resync_s']} s, with the document cache cleared {result['cleared_cache_resync_s']} s "
                f"(vectors {result['vector_index_mb']} -> {result['vector_index_mb_after_cleared_cache_resync']} MB), "
                f"{result['documents']} documents, {result['chunks']} chunks, peak {result['peak_mb']} MB"
            )
    report["results"] = {mode: summary(runs) for mode, runs in report.pop("runs").items()}
    if args.before is not None:
        report["before"] = str(args.before)
    if args.large_mb:
        folder = large_corpus(args.workdir / "large-corpus", args.large_mb)
        result = measure(folder, args.workdir / "large", "processes")
        report["large_file"] = {"megabytes": args.large_mb, **result}
        print(f"  one {args.large_mb} MB text file: {result['index_s']} s, peak {result['peak_mb']} MB")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1))
    print(f"results written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
