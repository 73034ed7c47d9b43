"""The command line: `research-assistant run QUESTION [--corpus DIR] [--sources ...]`, `resume RUN_ID`,
`runs`, `show RUN_ID`, `trace RUN_ID`, `export RUN_ID --format md|pdf|docx|json|csv`, `doctor` and `fetch URL`.

Progress goes to stderr, one line per step; the report goes to stdout or to
`--out`. Exit codes: 0 report written, 1 unexpected failure, 2 bad input (or,
for `fetch`, a refused or failed URL), 3 report written but no evidence was
found, 130 cancelled (Ctrl-C; the run can be resumed). A damaged store is named in one line, with
what to do, and exit code 2.
Heavy libraries load only once the input has been checked, so mistakes are
reported at once; a run's repository libraries load in the background while
its first steps run (`tests/integration/test_startup.py` keeps it so).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import gc
import os
import sys
import traceback
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast, get_args

from pydantic import ValidationError

from research_assistant.context import RULES, CitationStyle, Context, Depth, SourceKind, refusal_line, source_refusal
from research_assistant.damage import DamagedStore, is_damage
from research_assistant.echo import shorten
from research_assistant.secrets import ScrubbingWriter, scrub
from research_assistant.servers import ServerUnavailable
from research_assistant.settings import Settings, SettingsError, get_settings

if TYPE_CHECKING:
    from research_assistant.runs.records import RunRecord, TraceEvent

SOURCE_KINDS: tuple[str, ...] = get_args(SourceKind)
EXPORT_FORMATS = ("md", "pdf", "docx", "json", "csv")
FLAGS = {**{name: "--" + name.replace("_", "-") for name in RULES}, "recency_days": "--recency"}
"""The option that sets each `Context` field with a rule (`RULES`), for a refused value's line."""

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_NO_EVIDENCE, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class UsageError(Exception):
    """Bad input from the user; the message is printed as one line."""


class Cancelled(Exception):
    """The analyst pressed Ctrl-C during a run; the message says how to carry on."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="research-assistant", description="Research a question and write a cited Markdown report."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="research a question")
    run.add_argument("question", help="the research question, in quotes")
    run.add_argument("--corpus", type=Path, help="folder of local documents (.md .txt .html .pdf .docx)")
    run.add_argument("--depth", choices=[d.value for d in Depth], help="how thorough (default: standard)")
    run.add_argument("--style", choices=[s.value for s in CitationStyle], help="citation style (default: numeric)")
    run.add_argument("--max-sources", type=int, help="most sources to read")
    run.add_argument("--max-iterations", type=int, help="most research rounds (at most 10)")
    run.add_argument("--max-seconds", type=float, help="wall-clock limit for the run, in seconds (more than 0)")
    run.add_argument(
        "--sources",
        type=_source_kinds,
        help="comma-separated kinds of source: web,news,academic,wiki,local (default: local when a corpus is "
        "given, plus web when a Tavily or Exa key is set)",
    )
    run.add_argument(
        "--providers",
        type=_provider_names,
        help="comma-separated search providers to use: tavily,exa,wikipedia,arxiv (default: every configured one)",
    )
    run.add_argument("--recency", type=int, metavar="DAYS", help="leave out results older than DAYS days")
    run.add_argument("--refresh", action="store_true", help="ignore cached pages and searches; fetch anew")
    run.add_argument(
        "--review-plan", action="store_true", help="show the plan before research starts, to approve or edit it"
    )
    run.add_argument(
        "--model",
        action="append",
        type=_role_model,
        metavar="ROLE=PROVIDER:MODEL",
        help="the model of one role for this run (analysis, planning, extraction, evaluation, synthesis, judge); "
        "repeatable",
    )
    run.add_argument("--budget-tokens", type=int, metavar="N", help="most model tokens this run may use")
    run.add_argument("--budget-usd", type=float, metavar="USD", help="most USD this run may spend on models")
    _add_output_options(run)

    resume = commands.add_parser("resume", help="continue a cancelled, failed or interrupted run")
    resume.add_argument("run_id", help="the run's id (or its first characters), as `runs` lists it")
    resume.add_argument("--finish", action="store_true", help="research no further; write the report now")
    _add_output_options(resume)

    runs = commands.add_parser("runs", help="list past runs, newest first")
    runs.add_argument("--limit", type=_positive_int, default=20, help="how many runs to list (default: 20)")
    for name, about in (
        ("show", "print one run: its parameters, metrics and report, or its state so far"),
        ("trace", "print a run's trace as JSON lines"),
        ("export", "export a run: its report as Markdown, PDF or Word, its state as JSON, its evidence as CSV"),
    ):
        commands.add_parser(name, help=about).add_argument("run_id", help="the run's id (or its first characters)")
    export = commands.choices["export"]
    export.add_argument("--format", choices=EXPORT_FORMATS, default="md", help="what to export (default: md)")
    export.add_argument(
        "--out",
        type=Path,
        help="the file to write (default: stdout for md, json and csv; report-RUN_ID.pdf or .docx here for pdf "
        "and docx)",
    )

    commands.add_parser("doctor", help="check every store (runs, checkpoints, repository, caches): one line each")
    migrate = commands.add_parser(
        "migrate", help="copy this working directory's runs, checkpoints, caches and repository to a team's servers"
    )
    migrate.add_argument("--to", metavar="POSTGRESQL_URL", help="the team's database (default: RESEARCH_DATABASE_URL)")
    migrate.add_argument("--chroma", metavar="URL", help="the team's Chroma server (default: RESEARCH_CHROMA_URL)")

    fetch = commands.add_parser("fetch", help="show what research sees of one web page, or why it is refused")
    fetch.add_argument("url", help="an http(s) URL")
    fetch.add_argument("--refresh", action="store_true", help="ignore the cached copy; fetch anew")
    fetch.add_argument("--max-chars", type=_positive_int, default=4000, help="most characters of text to print")
    return parser


def _add_output_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--out", type=Path, help="write the report to this file instead of stdout")
    command.add_argument("--quiet", action="store_true", help="no progress on stderr")


def _source_kinds(text: str) -> list[SourceKind]:
    kinds = [part.strip().lower() for part in text.split(",") if part.strip()]
    unknown = [kind for kind in kinds if kind not in SOURCE_KINDS]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(
            f"unknown source kind {', '.join(unknown) or '(none)'}; choose from {', '.join(SOURCE_KINDS)}"
        )
    return [cast(SourceKind, kind) for kind in dict.fromkeys(kinds)]


def _provider_names(text: str) -> list[str]:
    """The providers named, refused as the `Context` refuses them, but at once, with the other options."""
    from research_assistant.context import PROVIDERS, provider_names

    names = [part for part in text.split(",") if part.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"name at least one provider: {', '.join(PROVIDERS)}")
    try:
        return provider_names(names)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _role_model(text: str) -> tuple[str, str]:
    from research_assistant.reasoning.llm.models import ROLES

    role, _, model = text.partition("=")
    if role.strip() not in ROLES or not model.strip():
        raise argparse.ArgumentTypeError(f"expected ROLE=PROVIDER:MODEL with ROLE one of {', '.join(ROLES)}")
    return role.strip(), model.strip()


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        # Whatever reaches the terminal (progress, reports, error lines) is scrubbed of every key the process knows.
        return run_command(args, _scrubbed(sys.stdout), _scrubbed(sys.stderr))
    except (UsageError, ServerUnavailable) as error:  # a server: the team's database or Chroma, and why, in one line
        _say(f"research-assistant: error: {error}")
        return EXIT_USAGE
    except DamagedStore as error:  # the whole path: the line says what to do with it
        print(scrub(f"research-assistant: error: {error}"), file=sys.stderr)
        return EXIT_USAGE
    except Cancelled as cancelled:
        print(f"research-assistant: {cancelled}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        print("research-assistant: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # the reader went away (`show RUN | head`): stop writing, quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILURE
    except Exception as error:  # a bug, not a user mistake: one line, the traceback only on request
        if os.environ.get("RESEARCH_DEBUG"):  # the traceback quotes messages, which may quote a key
            print(scrub(traceback.format_exc()), end="", file=sys.stderr)
            return EXIT_FAILURE
        # A database or the repository that could not grow (said so, not in SQLite's words), or that was found
        # damaged after it was opened (named).
        store = _full_disk(error) or (_damaged_store(error) if is_damage(error) else None)
        if store is not None:
            print(scrub(f"research-assistant: error: {store}"), file=sys.stderr)
            return EXIT_USAGE
        _say(f"research-assistant: unexpected error: {error!r} (set RESEARCH_DEBUG=1 for details)")
        return EXIT_FAILURE


def _full_disk(error: BaseException) -> str | None:
    """One line saying which working folder's disk is full, when that is what `error` comes from."""
    from research_assistant.damage import full_disk_line, is_full

    return next((full_disk_line(folder) for folder in _working_folders() if is_full(error, folder)), None)


def _say(line: str) -> None:
    """An error line on stderr: scrubbed of keys, a long URL or path in it shortened."""
    print(shorten(scrub(line)), file=sys.stderr)


def _damaged_store(error: BaseException) -> str:
    """One line naming the damaged database behind `error`: the first SQLite store that fails its check."""
    from research_assistant.doctor import damaged_store_line

    return damaged_store_line(error, _working_folders()[0]) or str(error)


def _working_folders() -> tuple[Path, Path]:
    """The database and cache folders of the settings; the default ones when the settings cannot be read."""
    try:
        settings = get_settings()
    except SettingsError:
        return Path("research_db"), Path("cache")
    return settings.db_dir, settings.cache_dir


def _scrubbed(stream: TextIO) -> TextIO:
    return cast("TextIO", ScrubbingWriter(stream))


def run_command(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    if args.command == "fetch":
        return fetch_command(args.url, stdout, stderr, refresh=args.refresh, max_chars=args.max_chars)
    if args.command in ("runs", "show", "trace"):
        return inspect_command(args, stdout)
    if args.command == "export":
        return export_command(args, stdout, stderr)
    if args.command == "resume":
        return resume_command(args, stdout, stderr)
    if args.command == "doctor":
        return doctor_command(stdout)
    if args.command == "migrate":
        return migrate_command(args, stdout)
    question = " ".join(args.question.split())
    if not question:
        raise UsageError("the question is empty; write what you want to find out, in quotes")
    settings = _settings()
    corpus = args.corpus or settings.corpus_dir
    source_types = args.sources or _default_sources(corpus is not None, settings)
    try:
        context = Context(
            depth=Depth(args.depth or settings.depth),
            source_types=source_types,
            corpus_dir=corpus,
            citation_style=CitationStyle(args.style or settings.citation_style),
            max_sources=args.max_sources,
            max_iterations=args.max_iterations,
            max_seconds=args.max_seconds if args.max_seconds is not None else settings.max_seconds,
            refresh=args.refresh,
            providers=args.providers,
            recency_days=args.recency,
            review_plan=args.review_plan,
            models=dict(args.model) if args.model else None,
            budget_tokens=args.budget_tokens,
            budget_usd=args.budget_usd,
        )
    except ValidationError as error:
        raise UsageError(refusal_line(error, FLAGS)) from None
    if problem := source_refusal(source_types, corpus is not None):
        raise UsageError(problem)
    if corpus is not None and "local" in source_types:
        _check_corpus(corpus)
    _check_writable(args.out)
    from research_assistant.runner import new_run_id, run_research

    run_id = new_run_id()
    printer = _progress_printer(None if args.quiet else stderr)
    result = _research(run_research(question, context, printer, run_id=run_id), run_id)
    if args.review_plan:
        reviewed = _review_plans(run_id, context, printer, sys.stdin, stderr)
        if reviewed is None:
            return EXIT_OK
        result = reviewed
    return _deliver(result, args, stdout, stderr)


def _review_plans(
    run_id: str, context: Context, printer: Callable[[TraceEvent], None] | None, answers: TextIO, stderr: TextIO
) -> dict[str, Any] | None:
    """Show the plan the run waits on; research it as is, edited, or not now. The run's result, or None."""
    from research_assistant.plan_text import plan_from_text, plan_to_text
    from research_assistant.runner import pending_plan, resume_research
    from research_assistant.runs.store import RunStore

    plan = asyncio.run(pending_plan(context.db_dir, run_id))
    if plan is None:
        return None
    print(plan_to_text(plan), file=stderr)
    print("Research this plan? [Y]es, [e]dit it, [n]o (keep it for later): ", end="", file=stderr, flush=True)
    answer = (answers.readline() or "y").strip().lower()[:1]
    if answer == "n":
        print(
            f"research-assistant: run {run_id} waits for its plan; `research-assistant resume {run_id}` researches "
            "it as proposed",
            file=stderr,
        )
        return None
    edited = None
    if answer == "e":
        edited = plan_from_text(_edit_text(plan_to_text(plan)), plan)
    record = RunStore.at(context.db_dir).find(run_id)
    return _research(resume_research(record, context, printer, plan=edited), run_id)


def _edit_text(text: str) -> str:
    """`text` after the analyst has edited it in $VISUAL or $EDITOR (vi when neither is set)."""
    import shlex
    import subprocess
    import tempfile

    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w+", suffix=".txt", prefix="plan-", delete=False, encoding="utf-8") as file:
        file.write(text)
    path = Path(file.name)
    try:
        subprocess.run([*shlex.split(editor), str(path)], check=True)
        return path.read_text(encoding="utf-8")
    except (OSError, subprocess.CalledProcessError) as error:
        raise UsageError(f"the editor {editor!r} did not work ({error}); set EDITOR to one that does") from None
    finally:
        path.unlink(missing_ok=True)


def resume_command(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Continue a stopped run from its last completed step, with the parameters it was started with."""
    from research_assistant.runner import resume_research

    settings = _settings()
    record = _find_run(settings, args.run_id)
    context = dataclasses.replace(record.parameters, db_dir=settings.db_dir, cache_dir=settings.cache_dir)
    if "local" in context.source_types and context.corpus_dir is not None and not args.finish:
        _check_corpus(context.corpus_dir)
    _check_writable(args.out)
    work = resume_research(record, context, _progress_printer(None if args.quiet else stderr), finish=args.finish)
    return _deliver(_research(work, record.run_id), args, stdout, stderr)


def inspect_command(args: argparse.Namespace, stdout: TextIO) -> int:
    """`runs`, `show RUN_ID` and `trace RUN_ID`: read the run store, change nothing."""
    from research_assistant.runs.metrics import compute_metrics
    from research_assistant.runs.records import EventKind, RunStatus
    from research_assistant.runs.store import RunStore
    from research_assistant.runs.views import run_details, runs_table

    settings = _settings()
    if args.command == "runs":
        stdout.write(runs_table(RunStore.at(settings.db_dir).recent(args.limit)))
        return EXIT_OK
    record = _find_run(settings, args.run_id)
    events = RunStore.at(settings.db_dir).events(record.run_id)
    if args.command == "trace":
        stdout.writelines(event.model_dump_json(exclude_none=True) + "\n" for event in events)
        return EXIT_OK
    if record.status is RunStatus.COMPLETED:
        stdout.write(run_details(record, record.metrics, {}))
        return EXIT_OK
    from research_assistant.runner import saved_state

    state = asyncio.run(saved_state(settings.db_dir, record.run_id))
    trace = list(events)
    messages = [event for event in trace if event.kind not in (EventKind.NODE_START, EventKind.NODE_END)]
    stdout.write(run_details(record, compute_metrics(trace, state), state, messages[-8:]))
    return EXIT_OK


def export_command(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """`export RUN_ID --format F [--out FILE]`: the run's report, state or evidence, local documents named by
    their paths inside the documents folder."""
    from research_assistant.report.exports import ExportFormat, NothingToExport, export_run, stored_run_export
    from research_assistant.runner import saved_state
    from research_assistant.storage import StorageError, default_file_mode, write_atomically

    settings = _settings()
    record = _find_run(settings, args.run_id)
    fmt = ExportFormat(args.format)
    state = asyncio.run(saved_state(settings.db_dir, record.run_id)) if fmt is not ExportFormat.MARKDOWN else {}
    try:
        made = export_run(stored_run_export(record, dict(state or {}), settings.secret_values()), fmt)
    except NothingToExport as error:
        raise UsageError(str(error)) from None
    out = args.out
    if out is None and fmt in (ExportFormat.PDF, ExportFormat.WORD):
        out = Path(made.file_name)
    if out is None:
        stdout.write(made.data.decode("utf-8"))
        return EXIT_OK
    _check_writable(out)
    try:
        write_atomically(out, made.data, mode=default_file_mode(out), durable=True)
    except StorageError as error:
        raise UsageError(f"cannot write {out}: {error.strerror}") from None
    print(f"{made.label} written to {out}", file=stderr)
    return EXIT_OK


def migrate_command(args: argparse.Namespace, stdout: TextIO) -> int:
    """Copy the embedded stores to the servers named (or configured); one line per store."""
    from research_assistant.runs.migrate import migrate
    from research_assistant.secrets import remember
    from research_assistant.settings import postgres_url_problem, redact_url, url_password

    settings = _settings()
    database, chroma = (args.to or settings.database_url).strip(), (args.chroma or settings.chroma_url).strip()
    remember(url_password(database), url_password(chroma))  # never shown, whatever fails
    if not database and not chroma:
        raise UsageError("no server to migrate to: pass --to postgresql://... and/or --chroma http://host:port")
    problem = postgres_url_problem(database) if database else None
    if problem:
        raise UsageError(f"--to {redact_url(database)!r} {problem}")
    migrate(settings.db_dir, settings.cache_dir, database, chroma.rstrip("/"), lambda line: print(line, file=stdout))
    return EXIT_OK


def doctor_command(stdout: TextIO) -> int:
    """Check each store and print one line for each; exit code 2 when a database needs the analyst."""
    from research_assistant.doctor import check_stores

    settings = _settings()
    findings = check_stores(settings.db_dir, settings.cache_dir)
    stdout.writelines(finding.line() + "\n" for finding in findings)
    return EXIT_USAGE if any(finding.status in ("damaged", "unreachable") for finding in findings) else EXIT_OK


def _settings() -> Settings:
    try:
        return get_settings()
    except SettingsError as error:
        raise UsageError(str(error)) from None


def _find_run(settings: Settings, run_id: str) -> RunRecord:
    from research_assistant.runs.store import RunNotFound, RunStore

    try:
        return RunStore.at(settings.db_dir).find(run_id)
    except RunNotFound as error:
        raise UsageError(str(error)) from None


def _deliver(result: dict[str, Any], args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Write the report where the analyst asked; the exit code says whether it has evidence."""
    from research_assistant.storage import StorageError, default_file_mode, write_atomically

    markdown = result["report_markdown"]
    if args.out is not None:
        try:  # a temporary file renamed over the target: a full disk leaves the previous report whole
            write_atomically(args.out, markdown.encode("utf-8"), mode=default_file_mode(args.out), durable=True)
        except StorageError as error:
            raise UsageError(f"cannot write the report to {args.out}: {error.strerror}") from None
        if not args.quiet:
            print(f"report written to {args.out}", file=stderr)
    else:
        stdout.write(markdown)
    if not result["evidence"]:
        print("research-assistant: no evidence was found in the sources; the report lists the gaps", file=stderr)
        return EXIT_NO_EVIDENCE
    return EXIT_OK


def _progress_printer(progress: TextIO | None) -> Callable[[TraceEvent], None] | None:
    """Progress lines on stderr: the messages of the run's trace (node starts and ends stay in the trace).

    A warning repeated in the run is shown the first time, and once more at the end with its count.
    """
    from research_assistant.echo import repeated
    from research_assistant.runs.records import EventKind
    from research_assistant.runs.repeats import Repeats

    if progress is None:
        return None
    shown = {EventKind.RUN_START, EventKind.PROGRESS, EventKind.SOURCE}
    repeats = Repeats()

    def line(node: str, level: str, message: str) -> None:
        print(f"[{node}] {'warning: ' if level == 'warning' else ''}{message}", file=progress, flush=True)

    def show(event: TraceEvent) -> None:
        if event.kind is EventKind.RUN_END:
            for node, level, message, times in repeats.held_back():
                line(node, level, repeated(message, times))
        elif event.kind in shown and repeats.first(event):
            node = "run" if event.kind is EventKind.RUN_START else event.node
            message = f"{event.message} {event.run_id}" if event.kind is EventKind.RUN_START else event.message
            line(node, event.level, message)

    return show


def _research(work: Coroutine[Any, Any, dict[str, Any]], run_id: str) -> dict[str, Any]:
    """Run the research; Ctrl-C cancels it, keeping what was gathered for `resume`."""
    from research_assistant.corpus.files import CorpusError
    from research_assistant.runner import RunNotResumable
    from research_assistant.services import ConfigurationError
    from research_assistant.storage import StorageError

    try:  # the graph's libraries take most of a second to load: here a Ctrl-C stops them, in the run's loop it
        # cannot. The repository's (Chroma, LlamaIndex) load in the background while the first steps run.
        import research_assistant.graph
        import research_assistant.runs.checkpoints  # noqa: F401
    except KeyboardInterrupt:
        work.close()  # never started: nothing to keep
        raise
    try:
        return asyncio.run(work)
    except (CorpusError, ConfigurationError, RunNotResumable, StorageError) as error:
        raise UsageError(str(error)) from None
    except KeyboardInterrupt:
        raise Cancelled(
            f"cancelled run {run_id}; what it gathered is kept. `research-assistant resume {run_id}` continues "
            f"it; add --finish to write the report from what it has"
        ) from None


def _default_sources(has_corpus: bool, settings: Settings) -> list[SourceKind]:
    """Local documents when a corpus is given; the web when a search key is configured."""
    kinds: list[SourceKind] = ["local"] if has_corpus else []
    if settings.tavily_api_key or settings.exa_api_key:
        kinds.append("web")
    return kinds


def fetch_command(url: str, stdout: TextIO, stderr: TextIO, *, refresh: bool, max_chars: int) -> int:
    """Print what browse and extract see of one page: metadata, access method, credibility and text."""
    from research_assistant.text.urls import is_web_url
    from research_assistant.web.fetched import FetchError

    if not is_web_url(url.strip()):
        raise UsageError(f"not an http(s) URL: {url!r}")
    _settings()
    from research_assistant.storage import StorageError

    try:
        report = asyncio.run(_fetch(url.strip(), refresh, max_chars))
    except FetchError as error:
        print(shorten(f"research-assistant: {url}: {error}"), file=stderr)
        return EXIT_USAGE
    except StorageError as error:  # the page was read, but the cache cannot keep it (a full disk)
        raise UsageError(str(error)) from None
    stdout.write(report)
    return EXIT_OK if report else EXIT_USAGE


async def _fetch(url: str, refresh: bool, max_chars: int) -> str:
    from research_assistant.knowledge.document_cache import DocumentCache
    from research_assistant.knowledge.documents import source_id_for
    from research_assistant.reading import ReadError
    from research_assistant.schemas import SourceRecord, SourceType
    from research_assistant.search.credibility import assess_credibility
    from research_assistant.text.urls import normalize_url
    from research_assistant.web.fetched import FetchError
    from research_assistant.web.setup import build_web_reader

    settings = get_settings()
    # No repository: the page lands in the document cache, and a research run indexes it from there.
    reader = build_web_reader(settings, DocumentCache(settings.cache_dir), None)
    locator = normalize_url(url)
    source = SourceRecord(
        id=source_id_for(locator), locator=locator, title=locator, provider="fetch", source_type=SourceType.WEB
    )
    try:
        document = await reader.read(source, refresh=refresh)
    except ReadError as error:
        raise FetchError(str(error)) from None
    finally:
        await reader.aclose()
    credibility = assess_credibility(
        locator, source_type=SourceType.WEB, author=document.author, published=document.published
    )
    text = document.text if len(document.text) <= max_chars else document.text[:max_chars] + " …"
    fields = [
        ("URL", locator),
        ("Final URL", document.final_url or locator),
        ("Title", document.title),
        ("Author", document.author or "unknown"),
        ("Published", document.published or "unknown"),
        ("Access method", document.access_method),
        ("Fetched at", document.fetched_at),
        ("Credibility", f"{credibility.score:.2f} ({credibility.category.value}: {'; '.join(credibility.reasons)})"),
        ("Characters", f"{len(document.text):,}"),
        *(("Note", note) for note in document.notes),
    ]
    header = "\n".join(f"{name + ':':<15}{value}" for name, value in fields)
    return f"{header}\n\n{text}\n"


def _check_corpus(corpus: Path) -> None:
    from research_assistant.corpus.files import CorpusError, corpus_files

    try:
        corpus_files(corpus)
    except CorpusError as error:
        raise UsageError(str(error)) from None


def _check_writable(out: Path | None) -> None:
    if out is None:
        return
    if out.is_dir():
        raise UsageError(f"cannot write the report to {out}: it is a folder")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"cannot write the report to {out}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (out.exists() and not os.access(out, os.W_OK)):
        raise UsageError(f"cannot write the report to {out}: permission denied")


def entry_point() -> None:
    """The console script: `main`, then a fast exit."""
    code = main()
    sys.stdout.flush()
    # The libraries leave hundreds of thousands of objects behind; tearing them down one by one takes most
    # of a second. Everything is written and flushed by now, so freezing them skips that collection.
    gc.freeze()
    sys.exit(code)


if __name__ == "__main__":
    entry_point()
