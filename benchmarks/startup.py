#!/usr/bin/env python
"""Start-up time of the command line: `--help`, a run's time to its first step, and a whole quick run.

Each measurement is a new `research-assistant` process (the console script next to this Python, not a
shell shim), over `examples/python-memory` indexed beforehand by one unmeasured run, so the figures are those
of a run over an indexed corpus:

- **help**: `research-assistant --help`, wall time.
- **first step**: from starting `research-assistant run QUESTION --corpus DIR --depth quick` to the start of its
  first step (analyze_query), read from the run's trace (`node_start` events carry wall-clock times).
- **quick run**: the same command, start to exit.

Wall times depend on what else the machine is doing; CPU times depend less on it and are reported alongside:
each process's user + system time (`os.wait4`), and **first step CPU**, the CPU time a `run` has used when its
first step starts (the same command in `python -c`, with `analyze_query` wrapped to print `time.process_time()`;
it counts the warm-up thread's work so far too). Prints medians and writes them to JSON. Not a test.

The package's bytecode is compiled before anything is measured, as an installed package has it: otherwise, with
`PYTHONDONTWRITEBYTECODE` set, every process would compile the package's modules from source again (about 0.1 s of
CPU before the first step, 0.2-0.3 s in a whole run).

    python benchmarks/startup.py --repeat 7 --out benchmarks/startup-results.json

`--baseline DIR` measures, interleaved with this tree, another version of the package found in DIR (put first on
`PYTHONPATH`), e.g. the last commit's: `git archive HEAD research_assistant | tar -x -C DIR`.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from research_assistant.runs.records import EventKind
from research_assistant.runs.store import RunStore

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "examples" / "python-memory"
QUESTION = "How does Python reclaim reference cycles?"
SCRIPT = Path(sys.executable).parent / "research-assistant"


# The graph's module is imported first, as a run does before any node, and the first step is replaced there, where
# the graph is built from.
CPU_AT_FIRST_STEP = """
import sys, time
import research_assistant.graph as graph

original = graph.analyze_query


async def timed(state, runtime):
    print(f"first step at {time.process_time()}", file=sys.__stderr__, flush=True)
    return await original(state, runtime)


graph.analyze_query = timed
from research_assistant.cli import main

sys.exit(main(sys.argv[1:]))
"""


def _environment(work: Path, package: Path | None) -> dict[str, str]:
    env = {**os.environ, "RESEARCH_DB_DIR": str(work / "db"), "RESEARCH_CACHE_DIR": str(work / "cache")}
    env.pop("RESEARCH_CORPUS_DIR", None)
    if package is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(package), *filter(None, [env.get("PYTHONPATH")])])
    return env


def compile_bytecode(work: Path, package: Path | None) -> None:
    """Compile the bytecode of the package that the command line imports in `work`."""
    code = (
        "import compileall, os, research_assistant as p; compileall.compile_dir(os.path.dirname(p.__file__), quiet=1)"
    )
    subprocess.run([sys.executable, "-c", code], cwd=work, env=_environment(work, package), check=True)


def timed(args: list[str], work: Path, package: Path | None) -> tuple[float, float, float]:
    """Run the command line in `work`; (wall-clock start, wall seconds, CPU seconds) of the process."""
    started, began = time.time(), time.perf_counter()
    process = subprocess.Popen(
        [str(SCRIPT), *args],
        cwd=work,
        env=_environment(work, package),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - began
    process.returncode = os.waitstatus_to_exitcode(status)
    errors = process.stderr.read().decode() if process.stderr else ""
    if process.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(args[:2])} failed ({process.returncode}): {errors}")
    return started, wall, usage.ru_utime + usage.ru_stime


def cpu_at_first_step(args: list[str], work: Path, package: Path | None) -> float:
    """The CPU seconds a run has used when its first step starts."""
    done = subprocess.run(
        [sys.executable, "-c", CPU_AT_FIRST_STEP, *args],
        cwd=work,
        env=_environment(work, package),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    return float(next(line for line in done.stderr.splitlines() if line.startswith("first step at ")).split()[-1])


def first_step_at(work: Path) -> float:
    """When the newest run's first step started (epoch seconds)."""
    store = RunStore.at(work / "db")
    [record] = store.recent(1)
    return next(e.at for e in store.events(record.run_id) if e.kind is EventKind.NODE_START)


NAMES = ("help", "help_cpu", "first_step", "first_step_cpu", "run", "run_cpu")


def measure(repeat: int, packages: dict[str, Path | None]) -> dict[str, dict[str, Any]]:
    """Medians and samples of every measure, for each version of the package (None: the installed one)."""
    run = ["run", QUESTION, "--corpus", str(CORPUS), "--depth", "quick", "--quiet"]
    samples: dict[str, dict[str, list[float]]] = {version: {name: [] for name in NAMES} for version in packages}
    with tempfile.TemporaryDirectory(prefix="startup-bench-") as folder:
        works = {version: Path(folder) / version for version in packages}
        for version, package in packages.items():
            works[version].mkdir()
            compile_bytecode(works[version], package)
            timed(run, works[version], package)  # indexes the corpus; not measured
        for _ in range(repeat):  # interleaved, so that a busy spell of the machine hits every measure alike
            for version, package in packages.items():
                work, taken = works[version], samples[version]
                _, wall, cpu = timed(["--help"], work, package)
                taken["help"].append(wall)
                taken["help_cpu"].append(cpu)
                started, wall, cpu = timed(run, work, package)
                taken["first_step"].append(first_step_at(work) - started)
                taken["run"].append(wall)
                taken["run_cpu"].append(cpu)
                taken["first_step_cpu"].append(cpu_at_first_step(run, work, package))
    return {
        version: {
            name: {"median_s": round(statistics.median(values), 3), "samples_s": [round(v, 3) for v in values]}
            for name, values in taken.items()
        }
        for version, taken in samples.items()
    }


def machine() -> dict[str, Any]:
    lines = Path("/proc/cpuinfo").read_text().splitlines()
    model = next((line.split(":", 1)[1].strip() for line in lines if "model name" in line), platform.processor())
    return {"cpu": model, "cores": os.cpu_count(), "python": platform.python_version(), "system": platform.platform()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="measurements of each kind (default: 7)")
    parser.add_argument("--baseline", type=Path, help="a folder holding another version of research_assistant")
    parser.add_argument("--out", type=Path, help="write the results as JSON here")
    args = parser.parse_args()
    packages: dict[str, Path | None] = {"current": None}
    if args.baseline:
        packages["baseline"] = args.baseline.resolve()
    load_before = os.getloadavg()
    results = measure(args.repeat, packages)
    load_after = os.getloadavg()
    report = {
        "question": QUESTION,
        "corpus": str(CORPUS.relative_to(ROOT)),
        "repeat": args.repeat,
        "machine": machine(),
        "load_average_1m": {"before": round(load_before[0], 2), "after": round(load_after[0], 2)},
        "results": results,
    }
    print(f"{'median, s':<15}" + "".join(f"{version:>10}" for version in results))
    for name in NAMES:
        print(f"{name:<15}" + "".join(f"{taken[name]['median_s']:>10.3f}" for taken in results.values()))
    print(f"load average (1 min): {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    if args.out:
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
