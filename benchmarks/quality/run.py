"""The answer-quality benchmark: research each question of a documentation set and score the report.

    python benchmarks/quality/run.py [--sets python,sqlite,git,apache] [--depths quick,standard] [--modes offline,web]
        [--splits dev,test,absent] [--limit N] [--ids ID,...] [--model PROVIDER:MODEL] [--workdir DIR] [--out FILE]

Offline mode researches the set's copied pages as a local corpus; web mode serves them on 127.0.0.1 and
finds them through a fake Tavily backed by an independent BM25 search. Every run happens in this one
process, through `research_assistant.runner.run_research`, as the command line runs research. Results go
to `--out` (JSON: every run and a summary per set, mode, depth and split), a table to stdout, and each
report to `<workdir>/reports/`. See README.md beside this file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for _path in (HERE.parent, ROOT / "tests", ROOT):  # this package, the fake search APIs, the product
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from quality.corpus import Question, QuestionSet, copy_corpus, load_sets, page_files, page_of  # noqa: E402
from quality.score import score_report, summarise  # noqa: E402
from quality.websearch import Bm25, BmTavily, Page, PageServer, SearchEngine, read_page  # noqa: E402
from research_assistant.context import CitationStyle, Context, Depth, SourceKind  # noqa: E402
from research_assistant.settings import get_settings  # noqa: E402

QUESTIONS = HERE / "questions"
DEFAULT_WORKDIR = Path("/tmp/ra-quality")
DEFAULT_OUT = HERE / "results.json"
MODES = ("offline", "web")
FAKE_KEY = "fake-key"
DEFAULT_WEB_PORT = 18_741
"""Pages are served on a fixed port so that the search answers and pages cached under the workdir, which
name their URLs, stay valid for the next run."""
EXIT_OK, EXIT_FAILURE, EXIT_NO_EVIDENCE = 0, 1, 3
"""As the command line's exit codes: report written, unexpected failure, report without evidence."""


# ---- Where each set is researched ----------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One set researched in one mode: its corpus, its own research repository and caches."""

    set_name: str
    mode: str
    corpus_dir: Path
    db_dir: Path
    cache_dir: Path
    base: str
    """What the locators of its pages start with: the corpus folder, or the base URL it is served at."""

    @classmethod
    def at(cls, workdir: Path, set_name: str, mode: str, base_url: str = "") -> Target:
        folder = workdir / set_name
        corpus = (folder / "corpus").resolve()
        base = corpus.as_posix() if mode == "offline" else base_url
        return cls(set_name, mode, corpus, folder / mode / "db", folder / mode / "cache", base)

    def context(self, depth: str, models: Mapping[str, str] | None = None, max_seconds: float | None = None) -> Context:
        """The run's parameters, as the command line would build them for this set and mode."""
        offline = self.mode == "offline"
        sources: list[SourceKind] = ["local"] if offline else ["web"]
        extra: dict[str, Any] = {} if max_seconds is None else {"max_seconds": max_seconds}
        return Context(
            depth=Depth(depth),
            source_types=sources,
            corpus_dir=self.corpus_dir if offline else None,
            citation_style=CitationStyle.NUMERIC,  # whatever .env says: the scores read this layout
            db_dir=self.db_dir,
            cache_dir=self.cache_dir,
            providers=None if offline else ["tavily"],
            models=dict(models) if models else None,
            **extra,
        )


def environment_for(model: str | None, tavily_url: str | None) -> dict[str, str]:
    """The settings the runs need: the reasoner, and in web mode the fake Tavily and loopback access."""
    from research_assistant.reasoning.llm.models import ROLES

    variables: dict[str, str] = {}
    if model:
        variables["RESEARCH_REASONER"] = "llm"  # `auto` would quietly stay offline for a non-Gemini model
        for role in ROLES:  # the services check the configured models' keys, whatever a run's own models
            variables[f"RESEARCH_MODEL_{role.upper()}"] = model
    else:
        variables["RESEARCH_REASONER"] = "extractive"
    if tavily_url is not None:
        variables.update(
            RESEARCH_TAVILY_API_KEY=FAKE_KEY,
            TAVILY_API_KEY=FAKE_KEY,
            RESEARCH_TAVILY_BASE_URL=tavily_url,
            RESEARCH_ALLOW_PRIVATE_NETWORKS="127.0.0.0/8",
            RESEARCH_WAYBACK_BASE_URL="",  # no internet: a page that fails is not looked up in the archive
            RESEARCH_BROWSER="false",  # static pages: a browser would only cost time
        )
    return variables


def configure_environment(model: str | None, tavily_url: str | None) -> None:
    """Set `environment_for`'s variables. Settings are read once and cached, so this clears the cache."""
    os.environ.update(environment_for(model, tavily_url))
    get_settings.cache_clear()


# ---- Indexing ------------------------------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


async def index_offline(target: Target) -> dict[str, Any]:
    """Sync the set's corpus into its repository, timed; the first full indexing is remembered in the workdir,
    so a later run (which finds the index ready) still reports what indexing cost."""
    from research_assistant.search.local import LocalCorpusProvider
    from research_assistant.services import open_services

    services = open_services(target.context("quick"))
    await services.opened()  # the local corpus's provider opens on first use; here, before the clock starts
    provider = next(p for p in (d.get() for d in services.deferred) if isinstance(p, LocalCorpusProvider))
    start = time.perf_counter()
    report = await asyncio.to_thread(provider.indexer.sync, "quality-index")
    seconds = round(time.perf_counter() - start, 2)
    record = {"seconds": seconds, "indexed": report.indexed, "unchanged": report.unchanged, "at": _now()}
    record["skipped"] = [f"{path}: {reason}" for path, reason in report.skipped]
    first_file = target.db_dir.parent / "first-index.json"
    if report.indexed and not report.unchanged:
        first_file.write_text(json.dumps(record, indent=1))
    first = json.loads(first_file.read_text()) if first_file.is_file() else None
    return {"this_run": record, "first": first}


def search_index(target: Target, root: Path) -> tuple[Bm25, dict[str, Any]]:
    """The BM25 index of the set's pages; their extracted text is kept in the workdir for the next run."""
    start = time.perf_counter()
    stored = target.db_dir.parent / "pages.json"
    reused = stored.is_file()
    if reused:
        pages = [Page(**page) for page in json.loads(stored.read_text(encoding="utf-8"))]
    else:
        pages = [read_page(root, relative) for relative in page_files(root)]
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_text(json.dumps([page.__dict__ for page in pages]), encoding="utf-8")
    index = Bm25(pages)
    return index, {"seconds": round(time.perf_counter() - start, 2), "pages": len(pages), "text_reused": reused}


Web = tuple[PageServer, BmTavily]


def start_web(port: int = 0) -> Web:
    """The page server and the fake Tavily, serving until `stop_web`."""
    server = PageServer(port).start()
    return server, BmTavily("tavily", api_key=FAKE_KEY, engine=SearchEngine()).start()


def stop_web(web: Web) -> None:
    web[0].stop()
    web[1].close()


def serve_set(web: Web, workdir: Path, name: str) -> tuple[Target, dict[str, Any]]:
    """Serve the set's copied pages, and make the fake Tavily search them: the web target and index facts."""
    server, tavily = web
    corpus = (workdir / name / "corpus").resolve()
    server.corpora[name] = corpus
    target = Target.at(workdir, name, "web", server.base_url(name))
    index, info = search_index(target, corpus)
    tavily.engine.add(name, index, target.base)
    tavily.engine.current = name
    return target, info


# ---- One question -----------------------------------------------------------------------------------------


def source_texts(sources: Mapping[str, Any], cache_dir: Path) -> dict[str, str]:
    """The text the product read of each source, by locator: the document cache of the run's sources."""
    from research_assistant.knowledge.document_cache import DocumentCache

    cache = DocumentCache(cache_dir)
    texts: dict[str, str] = {}
    for source in sources.values():
        text = cache.text(source.id)
        if text is not None:
            texts[source.locator] = text
    return texts


def report_path(reports_dir: Path, target: Target, depth: str, question_id: str) -> Path:
    return reports_dir / f"{target.set_name}-{target.mode}-{depth}-{question_id}.md"


async def run_question(
    question: Question,
    target: Target,
    depth: str,
    *,
    models: Mapping[str, str] | None = None,
    reports_dir: Path | None = None,
    max_seconds: float | None = None,
) -> dict[str, Any]:
    """Research one question against one target and score its report; never raises for a failed run."""
    from research_assistant.runner import new_run_id, run_research, saved_state

    context = target.context(depth, models, max_seconds)
    run_id = new_run_id()
    error = ""
    start = time.perf_counter()
    try:
        output = await run_research(question.question, context, run_id=run_id)
    except Exception as failure:  # a crash is a result too: recorded, and the benchmark goes on
        output, error = {}, f"{type(failure).__name__}: {failure}"
    seconds = round(time.perf_counter() - start, 3)
    state = {**(await saved_state(context.db_dir, run_id)), **output}
    markdown = str(state.get("report_markdown") or "")
    texts = source_texts(state.get("sources") or {}, context.cache_dir)
    scores = score_report(markdown, question.answers, question.pages, texts, state) if markdown else None
    exit_code = EXIT_FAILURE if error or not markdown else EXIT_OK if state.get("evidence") else EXIT_NO_EVIDENCE
    written = None
    if reports_dir is not None and markdown:
        written = report_path(reports_dir, target, depth, question.id)
        written.parent.mkdir(parents=True, exist_ok=True)
        written.write_text(markdown, encoding="utf-8")
    cited = _cited_pages(markdown, target.base)
    return {
        "set": target.set_name,
        "mode": target.mode,
        "depth": depth,
        "id": question.id,
        "split": question.split,
        "kind": question.kind,
        "question": question.question,
        "run_id": run_id,
        "seconds": seconds,
        "exit": exit_code,
        "stop_reason": state.get("stop_reason"),
        "error": error,
        "confidence": scores["confidence"] if scores else None,
        "answer_found_by_product": scores["answer_found_by_product"] if scores else None,
        "scores": scores,
        "cited": cited,
        "sources_read": sum(1 for s in (state.get("sources") or {}).values() if s.status.value == "read"),
        "evidence": len(state.get("evidence") or {}),
        "report": str(written) if written else None,
    }


def _cited_pages(markdown: str, base: str) -> list[str]:
    from quality.score import cited_locators

    return [page_of(locator, base) for locator in cited_locators(markdown)]


# ---- The whole benchmark -------------------------------------------------------------------------------


@dataclass
class Options:
    sets: list[str]
    depths: list[str]
    modes: list[str]
    splits: list[str]
    limit: int | None
    ids: list[str]
    model: str | None
    workdir: Path
    out: Path
    questions: Path
    web_port: int
    max_seconds: float | None


def _names(text: str, allowed: Iterable[str] | None = None) -> list[str]:
    names = list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if allowed is not None:
        unknown = [name for name in names if name not in allowed]
        if unknown or not names:
            raise argparse.ArgumentTypeError(f"choose from {', '.join(allowed)} (got {text!r})")
    return names


SPLITS = ("dev", "test", "absent")
"""`absent` questions have no answer in their set's pages: what is scored is whether the report admits it."""


def parse_options(argv: Sequence[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=_names, default=[], help="question sets (default: every set)")
    depths = [d.value for d in Depth]
    parser.add_argument("--depths", type=lambda t: _names(t, depths), default=["quick", "standard"])
    parser.add_argument("--modes", type=lambda t: _names(t, MODES), default=["offline"])
    parser.add_argument("--splits", type=lambda t: _names(t, SPLITS), default=list(SPLITS))
    parser.add_argument("--limit", type=int, help="at most N questions per set")
    parser.add_argument("--ids", type=_names, default=[], help="only these question ids")
    parser.add_argument("--model", help="PROVIDER:MODEL for every role (default: the offline extractive reasoner)")
    parser.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="folder of question sets (*.json)")
    parser.add_argument("--web-port", type=int, default=DEFAULT_WEB_PORT, help="port the pages are served on")
    parser.add_argument("--max-seconds", type=float, help="time limit of each run (default: the setting, 600)")
    args = parser.parse_args(argv)
    return Options(**vars(args))


def models_for(model: str | None) -> dict[str, str] | None:
    from research_assistant.reasoning.llm.models import ROLES

    return {role: model for role in ROLES} if model else None


def _line(run: Mapping[str, Any]) -> str:
    scores = run["scores"]
    tag = f"[{run['set']} {run['mode']} {run['depth']}] {run['id']}"
    if scores is None:
        return f"{tag}: no report ({run['error'] or 'exit ' + str(run['exit'])}) {run['seconds']:.1f}s"
    flags = " ".join(
        f"{name}={'yes' if scores[key] else 'no'}"
        for name, key in (("stated", "answer_stated"), ("holds", "cited_holds_answer"), ("gold", "gold_cited"))
    )
    confidence = "-" if scores["confidence"] is None else f"{scores['confidence']:.0f}"
    quotes = (
        f"quotes={scores['quotes_checked']}/{scores['misattributed']} unresolved={len(scores['unresolved_citations'])}"
    )
    return f"{tag}: {flags} {quotes} conf={confidence} {run['seconds']:.1f}s"


async def run_set(
    qset: QuestionSet,
    questions: Sequence[Question],
    options: Options,
    web: Web | None,
    emit: Callable[[str], None],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Copy the set's corpus, index it once per mode, then research every question at every depth."""
    corpus = options.workdir / qset.name / "corpus"
    start = time.perf_counter()
    pages = copy_corpus(qset.root, corpus, qset.skip_pages)
    info: dict[str, Any] = {
        "root": str(qset.root),
        "pages": pages,
        "copy_seconds": round(time.perf_counter() - start, 2),
    }
    missing = sorted({f"{q.id}: {page}" for q in questions for page in q.pages if not (corpus / page).is_file()})
    if missing:
        emit(f"[{qset.name}] gold pages not in the corpus (gold_cited cannot hold for them): {', '.join(missing)}")
        info["missing_gold_pages"] = missing
    runs: list[dict[str, Any]] = []
    models = models_for(options.model)
    for mode in options.modes:
        if mode == "web":
            assert web is not None
            emit(f"[{qset.name}] building the BM25 search over {pages} pages...")
            target, info["search_index"] = serve_set(web, options.workdir, qset.name)
        else:
            target = Target.at(options.workdir, qset.name, mode)
            emit(f"[{qset.name}] indexing {pages} pages (reused when already indexed)...")
            info["index"] = await index_offline(target)
            emit(f"[{qset.name}] index: {json.dumps(info['index']['this_run'])}")
        for depth in options.depths:
            for question in questions:
                run = await run_question(
                    question,
                    target,
                    depth,
                    models=models,
                    reports_dir=options.workdir / "reports",
                    max_seconds=options.max_seconds,
                )
                emit(_line(run))
                runs.append(run)
    return info, runs


def summaries(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One summary per set x mode x depth x split, in the order the runs came."""
    groups: dict[tuple[str, str, str, str], list[Mapping[str, Any]]] = {}
    for run in runs:
        groups.setdefault((run["set"], run["mode"], run["depth"], run["split"]), []).append(run)
    return [
        {"set": s, "mode": m, "depth": d, "split": sp, **summarise(group)} for (s, m, d, sp), group in groups.items()
    ]


COLUMNS = (
    ("set", "set"),
    ("mode", "mode"),
    ("depth", "depth"),
    ("split", "split"),
    ("n", "runs"),
    ("stated%", "answer_stated_pct"),
    ("holds%", "cited_holds_pct"),
    ("gold%", "gold_cited_pct"),
    ("found%", "product_found_pct"),
    ("quotes", "quotes_checked"),
    ("misattr", "quotes_misattributed"),
    ("unresolved", "citations_unresolved"),
    ("conf right", "median_confidence_right"),
    ("conf wrong", "median_confidence_wrong"),
    ("wrong>=80", "wrong_confident"),
    ("median s", "median_seconds"),
    ("errors", "errors"),
)


def table(rows: Sequence[Mapping[str, Any]]) -> str:
    """The summaries as a Markdown table."""

    def cell(value: Any) -> str:
        if value is None:
            return "-"
        return f"{value:g}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(title for title, _ in COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell(row[key]) for _, key in COLUMNS) + " |" for row in rows]
    return "\n".join(lines)


def environment(options: Options, argv: Sequence[str]) -> dict[str, Any]:
    """What the numbers depend on: the commit, whether the product had uncommitted changes, the machine."""

    def git(*args: str) -> str:
        try:
            done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=20, check=False)
        except OSError:
            return ""
        return done.stdout.strip()

    settings = get_settings()
    return {
        "started": _now(),
        "command": " ".join(["python", "benchmarks/quality/run.py", *argv]),
        "commit": git("rev-parse", "--short", "HEAD"),
        "product_changed": bool(git("status", "--porcelain", "--", "research_assistant")),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "reasoner": settings.reasoner,
        "model": options.model,
        "embedding": settings.embedding,
        "workdir": str(options.workdir),
    }


async def benchmark(options: Options, argv: Sequence[str], emit: Callable[[str], None]) -> dict[str, Any]:
    sets = load_sets(options.questions, options.sets or None)
    web: Web | None = None
    if "web" in options.modes:
        try:
            web = start_web(options.web_port)
        except OSError as error:
            raise SystemExit(f"cannot serve the pages on port {options.web_port} ({error}); pass --web-port") from None
    configure_environment(options.model, web[1].base_url if web else None)
    if options.model and options.model.startswith("google_genai:") and get_settings().gemini_api_key is None:
        raise SystemExit(f"--model {options.model} needs a Gemini key: set GEMINI_API_KEY (or GOOGLE_API_KEY)")
    results: dict[str, Any] = {"environment": environment(options, argv), "sets": {}, "runs": []}
    try:
        for qset in sets:
            if not qset.root.is_dir():
                emit(f"[{qset.name}] skipped: {qset.root} is missing; install it with `apt-get install {qset.package}`")
                results["sets"][qset.name] = {"skipped": f"{qset.root} missing (Debian package {qset.package})"}
                continue
            questions = qset.select(options.splits, options.ids or None, options.limit)
            if not questions:
                emit(f"[{qset.name}] no question matches the splits and ids chosen")
                continue
            info, runs = await run_set(qset, questions, options, web, emit)
            results["sets"][qset.name] = info
            results["runs"] += runs
    finally:
        if web is not None:
            stop_web(web)
    results["summaries"] = summaries(results["runs"])
    results["environment"]["finished"] = _now()
    return results


def main(argv: Sequence[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    options = parse_options(argv)
    results = asyncio.run(benchmark(options, argv, lambda line: print(line, file=sys.stderr, flush=True)))
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(json.dumps(results, indent=1, default=str) + "\n", encoding="utf-8")
    print(table(results["summaries"]))
    print(f"\n{len(results['runs'])} runs; results in {options.out}, reports in {options.workdir / 'reports'}")


if __name__ == "__main__":
    main()
