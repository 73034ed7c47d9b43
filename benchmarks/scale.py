#!/usr/bin/env python
"""Scale benchmark: index, re-sync, query latency, end-to-end runs, accuracy and peak memory by corpus size.

For each size: write a synthetic corpus, measure it in a fresh process (so its peak RSS is that size's alone), then
run the command line once, cold. Prints a Markdown table and writes every measurement to JSON; runs offline. Not a
test (outside `tests/`, and not named `test_*`). See benchmarks/README.md.

    python benchmarks/scale.py --sizes 100,1000,5000 --out benchmarks/results.json --workdir /tmp/ra-scale
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

# -- the corpus ---------------------------------------------------------------------------------------------------
# Encyclopedia-style articles about invented towns, bridges, companies, observatories, museums and ships. Each states
# 4 or 5 planted facts amid filler in a vocabulary shared by every article of its kind, with passing mentions of
# other entities, so a question can only be answered by telling near-identical articles apart. Document i depends
# only on the seed and i, so it is the same at every size; the questions are about the first 100 documents.


def _words(text: str, separator: str | None = None) -> list[str]:
    return text.split(separator)


_PREFIXES = _words(
    "Ald Ber Brenn Dal Ek Fal Gran Hal Hag Is Jar Kall Lind Mar Nor Ost Ros Sand Tor Ulf Vall Varn Vik Ask Bjor Ced "
    "Dun Elm Fur Gull Hed Holm Kil Lov Mos Nyl Orn Ped Rav Sko Stav Tal Tun Ved Yst Bran Karr Lerv Mell Sol Aur Bode"
)
_SUFFIXES = _words(
    "by berg holm vik dal stad sund ness ford havn lund mark torp vall kulla strand borg asen fjord heim"
)
_PLACES = [prefix + suffix for prefix in _PREFIXES for suffix in _SUFFIXES]
_FIRST = _words("Ingrid Astrid Sigrid Maja Elin Karin Helga Freja Linnea Ebba Signe Tove Alva Greta Hedda Vera Nora")
_FIRST += _words("Erik Lars Nils Anders Gunnar Magnus Olof Sven Bertil Henrik Johan Leif Torsten Einar Arvid Viktor")
_LAST = _words("Holm Berg Lind Dahl Strand Ek Nyberg Sandell Falk Wiklund Norling Ahlgren Kvist Lundqvist Rask Bergman")
_LAST += _words("Hallberg Sjoberg Engstrom Akerlund Blom Forsell Granath Hedlund Isaksson Jonsson Karlsson Lofgren")
_RIVERS = _words("Olme Vessla Kara Trosa Ljung Aska Brisa Dalsa Eldra Fjala Gimma Harra Isla Jolna Klara Lomma")
_DISTRICTS = _words("Kallmark Nordvall Osterlund Sandhed Torvik Ulfsta Vallby Askeberg Brennland Dunmark Elmhult")
_FUNDS = ("Ekstrand", "Nordic Heritage", "Hallberg Memorial", "County Culture", "Lindqvist Science", "Coastal Trust")
_MONTHS = _words("January February March April May June July August September October November December")
_COMPANIES = ("Ironworks", "Textiles", "Shipping Company", "Brewery", "Instruments", "Paper Mill")
_MUSEUMS = ("Maritime History", "Local History", "Natural History", "Textile Art", "Railways", "Modern Art")
_SECTIONS = ("History", "Description", "Economy", "Recent years", "Notable people", "In culture")

# Planted facts: "kind | answer | sentence stating it | question asking for it". The answer is "date A B" (a day in
# a year from A to B), "year A B", "int A B unit", "tenths A B unit" (A/10 to B/10) or "person"; {y} is a recent year.
_FACTS = """
bridge | date 1890 2019 | The {name} opened to traffic on {a}. | When did the {name} open?
bridge | int 380 4200 metres | The {name} is {a} long. | How long is the {name}?
bridge | person | The {name} was designed by the engineer {a}. | Who designed the {name}?
bridge | int 40 2400 million crowns | Building the {name} cost {a}. | How much did the {name} cost to build?
bridge | int 3001 60999 vehicles | About {a} cross the {name} a day. | How many vehicles cross the {name} a day?
town | year 1150 1899 | {name} received its town charter in {a}. | When did {name} receive its town charter?
town | int 1200 240000 inhabitants | At the last census, {name} had {a}. | What is the population of {name}?
town | tenths 40 9000 square kilometres | {name} covers {a}. | How large is the municipality of {name}?
town | person | The current mayor of {name} is {a}. | Who is the mayor of {name}?
town | int 3 900 metres above sea level | The centre of {name} lies {a}. | At what elevation does {name} lie?
company | year 1790 1995 | {name} was founded in {a}. | When was {name} founded?
company | person | The founder of {name} was {a}. | Who founded {name}?
company | int 40 18000 people | {name} employs {a}. | How many people does {name} employ?
company | tenths 2 390 billion crowns | In {y}, {name} had revenue of {a}. | What revenue did {name} report in {y}?
observatory | date 1850 2015 | The {name} opened on {a}. | When did the {name} open?
observatory | int 120 2900 metres above sea level | The {name} stands {a}. | At what altitude is the {name}?
observatory | int 30 420 centimetres | The main mirror of the {name} measures {a}. | How large is the {name}'s mirror?
observatory | person | The {name} is directed by {a}. | Who directs the {name}?
observatory | int 3 480 asteroids | The {name} has discovered {a}. | How many asteroids has the {name} discovered?
museum | date 1860 2020 | The {name} opened on {a}. | When did the {name} open?
museum | int 800 900000 objects | The {name} holds about {a}. | How many objects does the {name} hold?
museum | int 2000 600000 visitors | In {y} the {name} received {a}. | How many visitors did the {name} have in {y}?
museum | person | The {name} was designed by the architect {a}. | Who designed the building of the {name}?
ship | date 1900 2021 | {name} was launched on {a}. | When was {name} launched?
ship | int 400 90000 gross tons | {name} measures {a}. | What is the gross tonnage of {name}?
ship | int 12 3200 passengers | {name} can carry {a}. | How many passengers can {name} carry?
ship | person | The first master of {name} was Captain {a}. | Who was the first captain of {name}?
"""
# Filler: events of each kind ("In 1967, the bridge ..."), then sentences any article can contain.
_EVENTS = {
    "bridge": "had its bearings replaced after cracks were found during an inspection | was closed for {n} days for "
    "resurfacing of the deck | received new lighting along the whole deck | saw its toll abolished after the loan "
    "was repaid | was repainted in its original grey-green colour | got a separate lane for cyclists | was fitted "
    "with sensors that record wind speed and deck movement | was struck by a barge, which damaged one of the piers",
    "town": "was largely destroyed by a fire that started in the harbour district | was connected to the national "
    "railway network | opened its first public library on the market square | merged with {n} surrounding parishes "
    "| built a new water treatment plant on the banks of the river {river} | lost its status as the seat of the "
    "{district} district court | saw its population fall as the sawmills closed | restored the medieval church",
    "company": "opened a second factory near the river {river} | was listed on the regional stock exchange | acquired "
    "a smaller competitor from {place} | cut {n} per cent of its workforce during a recession | introduced electric "
    "furnaces at its main plant | began exporting to markets across the Baltic | moved its head office to a new "
    "building by the harbour | set up a research laboratory with {n} engineers",
    "observatory": "installed a new spectrograph on its main telescope | began a long survey of variable stars | was "
    "connected to the national research network | replaced the wooden dome with one of aluminium | hosted a "
    "conference on minor planets | lost nights of observation to light pollution from {place} | trained {n} "
    "doctoral students in a single decade | received a grant from the {fund} foundation for a new camera",
    "museum": "acquired a large private collection from a family in {place} | opened a new wing for temporary "
    "exhibitions | was closed for {n} months for a renovation of its roof | started school visits across the "
    "{district} district | digitised its photographic archive | received a grant from the {fund} foundation | "
    "mounted a touring exhibition that travelled to {n} cities | appointed its first full-time conservator",
    "ship": "was lengthened by {n} metres at a yard in {place} | was transferred to the route between {place} and "
    "{place2} | ran aground in fog near the mouth of the river {river} | had her engines replaced with diesel "
    "engines | was chartered as an accommodation ship during a large fair | was repainted in the colours of a new "
    "owner | served as a troop transport for {n} months | was laid up for a winter because of low demand",
}
_GENERIC = _words(
    "{time}, {short} was the subject of a study commissioned by the {district} regional council. | {time}, {short} "
    "received a grant of {n} thousand crowns from the {fund} foundation. | {time}, a delegation from {place} visited "
    "{short}. | The {other} lies about {n} kilometres away. | Unlike the {other}, {short} has been in continuous use "
    "since it was completed. | Records from {year} describe {short} in detail, including a plan drawn by {person}. | "
    "Photographs in the county archive show {short} as it looked around {year}. | Comparisons are often drawn with "
    "the {other}, although the two differ in most respects. | Figures published in {year} put the annual running "
    "costs at about {n} million crowns. | An exhibition in {place} in {year} devoted a room to {short}. | Visitors "
    "from {place} often compare {short} with the {other}. | Maintenance of {short} is funded by the {district} "
    "district, which spends about {n} thousand crowns a year on it. | {person} has written {n} articles about {short} "
    "for the local newspaper. | A guided walk from {place} passes {short} every Sunday in summer.",
    " | ",
)


@dataclass(frozen=True)
class Fact:
    """A planted fact: the question asking for it, the answer as the document states it, and its file."""

    question: str
    answer: str
    file: str


def _person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _answer(spec: str, rng: random.Random) -> str:
    form, *rest = spec.split()
    if form == "person":
        return _person(rng)
    value = rng.randint(int(rest[0]), int(rest[1]))
    unit = " ".join(rest[2:])
    if form == "date":
        return f"{rng.randint(1, 28)} {rng.choice(_MONTHS)} {value}"
    if form == "year":
        return str(value)
    return f"{value / 10:.1f} {unit}" if form == "tenths" else f"{value:,} {unit}"


def _entities(seed: int) -> list[tuple[str, str]]:
    """Every (kind, name) the generator can make, in a seeded order: document i is about entity i."""
    out: list[tuple[str, str]] = []
    for i, place in enumerate(_PLACES):
        out += [("town", place), ("bridge", f"{place} Bridge"), ("observatory", f"{place} Observatory")]
        out += [("company", f"{place} {_COMPANIES[i % 6]}"), ("museum", f"{place} Museum of {_MUSEUMS[i % 6]}")]
        out.append(("ship", f"MS {place}"))
    random.Random(seed).shuffle(out)
    return out


def make_document(seed: int, index: int, entities: list[tuple[str, str]]) -> tuple[str, str, list[Fact]]:
    """(relative path, Markdown text, planted facts) of document `index`."""
    kind, name = entities[index]
    rng = random.Random(f"{seed}:{index}")
    path = f"{re.sub('y$', 'ie', kind)}s/{re.sub('[^a-z0-9]+', '-', name.lower())}.md"
    planted: list[tuple[str, Fact]] = []  # (the sentence stating it, the fact)
    specs = [line.split(" | ")[1:] for line in _FACTS.splitlines() if line.startswith(kind + " |")]
    for answer, stated, question in specs:
        values = {"name": name, "a": _answer(answer, rng), "y": str(rng.randint(2015, 2023))}
        planted.append((stated.format(**values), Fact(question.format(**values), values["a"], path)))
    answers = " ".join(fact.answer for _, fact in planted)
    events = _words(_EVENTS[kind], " | ")

    def year() -> int:  # never a planted answer's year or decade
        while True:
            y = rng.randint(1850, 2023)
            if str(y) not in answers and str(y // 10 * 10) not in answers:
                return y

    def other() -> str:  # another bridge, company, observatory or museum
        while True:
            other_kind, other_name = rng.choice(entities)
            if other_name != name and other_kind not in ("town", "ship"):
                return other_name

    def sentence() -> str:
        y = year()
        when = rng.choice(["In {y}", "During the {d}s", "By {y}", "In the autumn of {y}"]).format(y=y, d=y // 10 * 10)
        template = "{time}, {short} " + rng.choice(events) + "." if rng.random() < 0.5 else rng.choice(_GENERIC)
        slots = {"short": "the " + kind, "time": when, "year": y, "n": rng.randint(2, 95), "person": _person(rng)}
        slots |= {"river": rng.choice(_RIVERS), "district": rng.choice(_DISTRICTS), "fund": rng.choice(_FUNDS)}
        slots |= {"place": rng.choice(_PLACES), "place2": rng.choice(_PLACES)}
        text = template.format(**slots, other=other() if "{other}" in template else "")
        return text[0].upper() + text[1:]

    words = 0

    def paragraph(facts: list[str]) -> str:
        nonlocal words
        sentences = [sentence() for _ in range(rng.randint(3, 6))]
        for fact in facts:
            sentences.insert(rng.randint(0, len(sentences)), fact)
        words += sum(len(s.split()) for s in sentences)
        return " ".join(sentences)

    target_words = rng.randint(300, 1500)
    sections = rng.sample(_SECTIONS, rng.randint(3, 6))
    placed: dict[str, list[str]] = {}  # the intro ("") states a fact or two, the sections the others
    for number, (stated, _) in enumerate(planted):
        placed.setdefault("" if number < 2 and rng.random() < 0.6 else rng.choice(sections), []).append(stated)
    lines = ["---", f"title: {name}", f"date: {rng.randint(2015, 2024)}-{rng.randint(1, 12):02d}-01", "---", ""]
    intro = f"{name} is a {kind} of the {rng.choice(_DISTRICTS)} district. " + paragraph(placed.get("", []))
    lines += [f"# {name}", "", intro, ""]
    for number, heading in enumerate(sections):
        lines += [f"## {heading}", "", paragraph(placed.get(heading, [])), ""]
        for _ in range(round((target_words - words) / 60 / (len(sections) - number)) - 1):  # ~60 words a paragraph
            lines += [paragraph([]), ""]
    lines += ["## See also", "", *(f"- {o}" for o in sorted({other() for _ in range(rng.randint(2, 4))})), ""]
    return path, "\n".join(lines), [fact for _, fact in planted]


def generate_corpus(folder: Path, size: int, seed: int) -> int:
    """Write `size` documents under `folder`; returns their word count."""
    entities = _entities(seed)
    words = 0
    for index in range(size):
        path, text, _ = make_document(seed, index, entities)
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text, encoding="utf-8")
        words += len(text.split())
    return words


def pick_questions(seed: int) -> list[Fact]:
    """36 questions, one about each of 36 of the first 100 documents: 30 for latency, 3 per depth end to end."""
    entities = _entities(seed)
    rng = random.Random(f"{seed}:questions")
    return [rng.choice(make_document(seed, i, entities)[2]) for i in rng.sample(range(100), 36)]


def check_report(markdown: str, fact: Fact) -> bool:
    """Does the report quote the planted answer (“…” [n]) with a citation [n] to the file that states it?"""
    from research_assistant.report.citations import parse_locator, unescape_markdown

    body, _, sources = markdown.partition("\n## Sources")
    locators = {int(m[1]): parse_locator(m[0]) or "" for m in re.finditer(r"(?m)^\[(\d+)\]\s.*$", sources)}
    for quote in re.finditer(r"“([^”]+)”((?:\s*\[\d+\])+)", body):
        if fact.answer in " ".join(unescape_markdown(quote[1]).split()):
            cited = [locators.get(int(n), "") for n in re.findall(r"\d+", quote[2])]
            if any(locator.endswith("/" + fact.file) for locator in cited):
                return True
    return False


# -- one size, in its own process ---------------------------------------------------------------------------------


def _p(seconds: list[float], share: float) -> float:
    """Nearest-rank percentile, in milliseconds."""
    return round(sorted(seconds)[math.ceil(share * len(seconds)) - 1] * 1000, 1)


def measure(folder: Path, seed: int) -> dict[str, Any]:
    """Index `folder/corpus` into a new repository and cache, then re-sync, query and run research over it."""
    from research_assistant.context import Context, Depth
    from research_assistant.knowledge.repository import ResearchRepository
    from research_assistant.runner import run_research
    from research_assistant.search.local import LocalCorpusProvider
    from research_assistant.services import open_services
    from research_assistant.settings import get_settings

    def context(depth: str) -> Context:
        db, cache = folder / "research_db", folder / "cache"
        return Context(depth=Depth(depth), corpus_dir=folder / "corpus", db_dir=db, cache_dir=cache, max_seconds=600)

    def timed(step: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
        t = time.perf_counter()
        return step(*args, **kwargs), time.perf_counter() - t

    run = asyncio.Runner().run  # one event loop for every step
    services = open_services(context("quick"))
    run(services.opened())  # the repository and the local provider open on first use; here, untimed
    opened = [deferred.get() for deferred in services.deferred]
    provider = next(value for value in opened if isinstance(value, LocalCorpusProvider))
    repository = next(value for value in opened if isinstance(value, ResearchRepository))
    settings = get_settings()
    out: dict[str, Any] = {"settings": [settings.embedding, settings.chunk_size, settings.chunk_overlap]}
    notices, seconds = timed(run, provider.prepare())
    out |= {"index_s": round(seconds, 2), "index_notice": notices[0].message, "chunks": repository.chunk_count()}
    print(f"  indexed in {seconds:.1f} s: {notices[0].message}, {out['chunks']:,} chunks", flush=True)
    out["resync_s"] = round(statistics.median(timed(run, provider.prepare())[1] for _ in range(3)), 3)

    questions = pick_questions(seed)
    corpus = provider.indexer.corpus_id
    repository.retrieve("warm up the caches", 20, corpus=corpus)
    retrieve_s, search_s, ranks = [], [], []
    for fact in questions[:30]:
        retrieve_s.append(timed(repository.retrieve, fact.question, 20, corpus=corpus)[1])
        results, seconds = timed(run, provider.search(fact.question, 5))
        search_s.append(seconds)
        ranks.append(next((n for n, r in enumerate(results, 1) if r.locator.endswith("/" + fact.file)), None))
    out |= {key: [_p(v, 0.5), _p(v, 0.95)] for key, v in (("retrieve_ms", retrieve_s), ("search_ms", search_s))}
    out |= {"search_ranks": ranks, "hit_at_5": round(sum(rank is not None for rank in ranks) / len(ranks), 3)}
    print(f"  re-sync {out['resync_s']} s, retrieve {out['retrieve_ms']} ms, search {out['search_ms']} ms", flush=True)

    out["runs"] = []
    for depth, facts in (("quick", questions[30:33]), ("standard", questions[33:36])):
        for fact in facts:
            result, seconds = timed(run, run_research(fact.question, context(depth)))
            correct = check_report(result.get("report_markdown", ""), fact)
            out["runs"].append({"depth": depth, "question": fact.question, "seconds": seconds, "correct": correct})
            print(f"  {depth} {seconds:.1f} s, {'correct' if correct else 'WRONG'}: {fact.question}", flush=True)
        out[f"e2e_{depth}_s"] = round(statistics.median(r["seconds"] for r in out["runs"] if r["depth"] == depth), 2)
    out["accuracy"] = [sum(r["correct"] for r in out["runs"]), len(out["runs"])]
    return out


# -- the driver ---------------------------------------------------------------------------------------------------


def _spawn(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int, float, int]:
    """Run a command in a new process: (exit code, seconds, its peak RSS in MB)."""
    t = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    return os.waitstatus_to_exitcode(status), time.perf_counter() - t, round(usage.ru_maxrss / 1024)


def _machine() -> dict[str, Any]:
    info = Path("/proc/cpuinfo").read_text() + Path("/proc/meminfo").read_text()
    cpu, ram_kb = re.findall(r"model name\s*:\s*(.*)", info)[0], re.findall(r"MemTotal:\s*(\d+)", info)[0]
    root = Path(__file__).resolve().parent.parent
    git = [["git", "rev-parse", "HEAD"], ["git", "status", "--porcelain", "--", "research_assistant"]]
    commit, changes = (subprocess.run(c, cwd=root, capture_output=True, text=True).stdout.strip() for c in git)
    machine = {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": round(int(ram_kb) / 1024**2, 1), "commit": commit}
    machine |= {"python": platform.python_version(), "platform": platform.platform(), "changes": changes}
    return machine | {"date": datetime.now(UTC).isoformat(timespec="seconds")}


def run_size(size: int, folder: Path, seed: int) -> dict[str, Any]:
    """Generate the corpus, measure it in a fresh process, then run the command line once, cold."""
    shutil.rmtree(folder, ignore_errors=True)
    words = generate_corpus(folder / "corpus", size, seed)
    print(f"[{size}] generated {size:,} documents, {words:,} words", flush=True)
    worker = [sys.executable, str(Path(__file__).resolve()), "--worker", str(folder), "--seed", str(seed)]
    status, _, rss = _spawn(worker, cwd=folder)  # in the size's folder, so no stray .env is read
    if status != 0:
        raise SystemExit(f"[{size}] the worker failed (exit {status}); see its traceback above")
    result = {"size": size, "words": words, **json.loads((folder / "result.json").read_text()), "peak_rss_mb": rss}

    fact, report = pick_questions(seed)[30], folder / "cli.md"
    env = os.environ | {"RESEARCH_DB_DIR": str(folder / "research_db"), "RESEARCH_CACHE_DIR": str(folder / "cache")}
    command = [shutil.which("research-assistant") or "research-assistant", "run", fact.question, "--depth", "quick"]
    status, seconds, rss = _spawn([*command, "--corpus", "corpus", "--out", str(report), "--quiet"], folder, env)
    correct = report.exists() and check_report(report.read_text(encoding="utf-8"), fact)
    result["cli"] = {"exit": status, "seconds": round(seconds, 2), "peak_rss_mb": rss, "correct": correct}
    print(f"[{size}] CLI cold: {seconds:.1f} s, exit {status}, peak RSS {rss} MB", flush=True)
    return result


def table(results: list[dict[str, Any]]) -> str:
    head = "Docs | Words | Chunks | Index (s) | Re-sync (s) | retrieve p50/p95 (ms) | search p50/p95 (ms) | E2E quick"
    head += " (s) | E2E standard (s) | CLI cold quick (s) | Accuracy | Hit@5 | Peak RSS (MB) | CLI peak RSS (MB)"
    rows = [f"| {head} |", "|" + "---|" * (head.count("|") + 1)]
    for r in results:
        cells = [f"{r['size']:,}", f"{r['words']:,}", f"{r['chunks']:,}", f"{r['index_s']:.1f}", f"{r['resync_s']:.2f}"]
        cells += [f"{r[key][0]:.0f} / {r[key][1]:.0f}" for key in ("retrieve_ms", "search_ms")]
        cells += [f"{r['e2e_quick_s']:.1f}", f"{r['e2e_standard_s']:.1f}", f"{r['cli']['seconds']:.1f}"]
        cells[-1] += "" if r["cli"]["exit"] == 0 else f" (exit {r['cli']['exit']})"
        cells += [f"{r['accuracy'][0]}/{r['accuracy'][1]}", f"{r['hit_at_5']:.0%}"]
        cells += [f"{r['peak_rss_mb']:,}", f"{r['cli']['peak_rss_mb']:,}"]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,5000", help="comma-separated corpus sizes, at least 100")
    parser.add_argument("--out", type=Path, help="JSON results (default: WORKDIR/results.json)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/ra-scale"), help="corpora, databases, reports")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)  # one size's folder, in a fresh process
    args = parser.parse_args()
    if args.worker:
        (args.worker / "result.json").write_text(json.dumps(measure(args.worker, args.seed)))
        return 0

    sizes = [int(size) for size in args.sizes.split(",")]
    if min(sizes) < 100 or max(sizes) > len(_PLACES) * 6:
        parser.error(f"sizes run from 100 to {len(_PLACES) * 6:,} documents")
    out = (args.out or args.workdir / "results.json").resolve()
    machine = _machine()
    print(f"{machine['cpu']}, {machine['cores']} cores, {machine['ram_gb']} GB, Python {machine['python']}")
    results: list[dict[str, Any]] = []
    for size in sizes:
        results.append(run_size(size, args.workdir.resolve() / f"size-{size}", args.seed))
        report = {"machine": machine, "command": " ".join(["python", *sys.argv]), "seed": args.seed}
        report |= {"questions": [asdict(q) for q in pick_questions(args.seed)], "results": results}
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=1))  # after every size, so a long run keeps what it measured
    print("\n" + table(results) + f"\n\nresults written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
