"""What the page's buttons do: start, resume, review and settle runs through the runner, open and reload them.

Runs go on in the background (`BackgroundRun`), so that the page stays
responsive and Stop can cancel them. No research logic lives here: the
runner drives the graph, and this module only builds its parameters.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from research_assistant.page.form import deeper, form_defaults, form_from_run, research_context, source_options
from research_assistant.page.state import Action, Job, LoadedRun, PageState, Submission, page_state
from research_assistant.runs.background import BackgroundRun, Work
from research_assistant.runs.records import RunRecord, RunStatus
from research_assistant.runs.store import RunStore
from research_assistant.secrets import ScrubbingFilter, scrub
from research_assistant.settings import get_settings
from research_assistant.text.spaces import one_line

if TYPE_CHECKING:
    from collections.abc import Coroutine, Sequence

    from research_assistant.context import Context
    from research_assistant.schemas import ResearchPlan
    from research_assistant.search.providers import ProviderChoice
    from research_assistant.settings import Settings

logger = logging.getLogger("research_assistant.page")
logger.addFilter(ScrubbingFilter())  # a failure's message or traceback may quote a key
T = TypeVar("T")
BUSY = "A research is running: stop it first."
KEPT_STATES = 4  # saved states kept in the session: the run shown, the one compared with it, a few recent
UPLOADS_FOLDER = "uploads"

_RUNNING: dict[str, Job] = {}
"""The runs this server is running, by id, whichever session started them: a reloaded page finds its run again
(and can stop it) through the run id in its address."""
_RUNNING_LOCK = threading.Lock()


def running_job(run_id: str) -> Job | None:
    """The run `run_id` when this server is running it; runs that ended are forgotten here."""
    with _RUNNING_LOCK:
        for done in [key for key, job in _RUNNING.items() if job.background.done]:
            del _RUNNING[done]
        return _RUNNING.get(run_id)


def run_sync(work: Coroutine[Any, Any, T]) -> T:
    """What `work` (one of the runner's readers, which are coroutines) returns, run to its end from the page."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # called from inside a loop: use a loop of its own
        return pool.submit(asyncio.run, work).result()


def open_store(db_dir: Path) -> closing[RunStore]:
    """The run store, closed when the `with` block that opens it ends."""
    return closing(RunStore.at(db_dir))


def failure_message(error: BaseException, run_id: str, db_dir: Path | None = None) -> str:
    """One line for the analyst; an unexpected failure is logged with its traceback as well. A damaged
    database (in `db_dir`) is named, with what to do."""
    from research_assistant.corpus.files import CorpusError
    from research_assistant.runner import RunNotResumable
    from research_assistant.servers import ServerUnavailable
    from research_assistant.services import ConfigurationError

    if isinstance(error, CorpusError | ConfigurationError | RunNotResumable | ServerUnavailable):
        return one_line(scrub(str(error)))
    from research_assistant.damage import full_disk_line, is_full

    db_dir = db_dir or get_settings().db_dir
    if is_full(error, db_dir):
        return one_line(f"The research stopped: {full_disk_line(db_dir)}.", 1000)
    damaged = damage_message(error, db_dir)
    if damaged is not None:
        return damaged
    logger.error("research run %s failed", run_id, exc_info=error)
    return one_line(
        f"The research failed unexpectedly ({type(error).__name__}: {one_line(scrub(str(error)), 120)}); "
        "the details are in the server log."
    )


def damage_message(error: BaseException, db_dir: Path) -> str | None:
    """What the page says of a damaged database behind `error`: the file and what to do; None for other errors."""
    from research_assistant.doctor import damaged_store_line
    from research_assistant.servers import ServerUnavailable

    if isinstance(error, ServerUnavailable):  # the team's database or Chroma server is down: which, and why
        return one_line(scrub(f"{str(error)[0].upper()}{str(error)[1:]}."), 1000)
    line = damaged_store_line(error, db_dir)
    if line is None:
        return None
    logger.warning("a damaged store stopped the page: %s", line)
    return scrub(f"{line[0].upper()}{line[1:]}. The page cannot go on until it is dealt with.")


@contextmanager
def store_problems(state: PageState, db_dir: Path) -> Iterator[None]:
    """Run a button's work on the stores; a damaged one is said in the page's error line, not as a traceback."""
    try:
        yield
    except Exception as error:
        message = damage_message(error, db_dir)
        if message is None:
            raise
        state.error = message


def _start(state: PageState, run_id: str, action: Action, work: Work, context: Context, earlier: Any = ()) -> None:
    background = BackgroundRun(work).start()
    state.job = Job(
        run_id=run_id,
        action=action,
        background=background,
        iteration_limit=context.iteration_limit,
        earlier=tuple(earlier),
    )
    with _RUNNING_LOCK:
        _RUNNING[run_id] = state.job
    state.shown, state.error = "", ""


def start_research(state: PageState, submission: Submission, settings: Settings) -> bool:
    """A new run of the submitted form, its uploads joined to its documents folder; whether it started."""
    from research_assistant.corpus.files import CorpusError
    from research_assistant.corpus.uploads import run_corpus
    from research_assistant.runner import new_run_id, run_research

    values = submission.values
    corpus_dir = None
    if "local" in values.sources:
        uploads = [(upload.name, upload.content) for upload in submission.uploads]
        try:
            base = Path(values.corpus) if values.corpus else None
            corpus_dir = run_corpus(base, uploads, settings.cache_dir / UPLOADS_FOLDER)
        except CorpusError as error:
            state.error = one_line(str(error))
            return False
    context = research_context(values, corpus_dir, settings, state.services)
    run_id = new_run_id()
    question = values.question
    _start(
        state, run_id, "research", lambda on_event: run_research(question, context, on_event, run_id=run_id), context
    )
    return True


def _stored_run(
    state: PageState, settings: Settings, run_id: str, events: bool = False
) -> tuple[RunRecord, list[Any]] | None:
    """The run's record (and, with `events`, its trace); None, with the page's error set, when it cannot be read."""
    record, earlier, state.error = None, [], ""
    with store_problems(state, settings.db_dir), open_store(settings.db_dir) as store:
        record = store.get(run_id)
        earlier = list(store.events(run_id)) if record is not None and events else []
    if record is None and not state.error:
        state.error = f"Run {run_id} is not in the run store any more."
    return None if record is None or state.error else (record, earlier)


def _stopped_run(state: PageState, settings: Settings, run_id: str) -> tuple[RunRecord, Context, list[Any]] | None:
    """The run to carry on with, its context and its trace so far; None (with the page's error set) when it
    cannot be carried on with."""
    if state.busy:
        state.error = BUSY
        return None
    found = _stored_run(state, settings, run_id, events=True)
    if found is None:
        return None
    record, earlier = found
    context = replace(record.parameters, db_dir=settings.db_dir, cache_dir=settings.cache_dir, services=state.services)
    return record, context, earlier


def resume(run_id: str, finish: bool) -> None:
    """Resume and Write-report buttons: carry on with a stopped run in the background."""
    _carry_on(run_id, "finish" if finish else "resume", finish=finish)


def continue_with_plan(run_id: str, plan: ResearchPlan | None) -> None:
    """Plan review: carry on with the run that waits, with the edited plan (None approves it as proposed)."""
    _carry_on(run_id, "review", plan=plan)


def _carry_on(run_id: str, action: Action, **options: Any) -> None:
    """Carry on with a stopped run in the background; `options` are `resume_research`'s. A run resumed to research
    further needs its documents folder still there."""
    from research_assistant.corpus.files import CorpusError, corpus_files
    from research_assistant.runner import resume_research

    state, settings = page_state(), get_settings()
    found = _stopped_run(state, settings, run_id)
    if found is None:
        return
    record, context, earlier = found
    if action == "resume" and "local" in context.source_types and context.corpus_dir is not None:
        try:
            corpus_files(context.corpus_dir)
        except CorpusError as error:
            state.error = one_line(str(error))
            return
    _start(
        state, run_id, action, lambda on_event: resume_research(record, context, on_event, **options), context, earlier
    )


def open_run(run_id: str) -> None:
    state = page_state()
    state.shown, state.error = run_id, ""
    if state.job is not None and state.job.background.done:
        state.job = None  # its progress belongs to the run it was, not to the one opened


def run_again(run_id: str, choices: Sequence[ProviderChoice], further: bool = False) -> None:
    """Run again: the form, filled with a past run's question and parameters, ready to be tweaked; `further`: at
    the next depth, without the run's source limit (a run that found nothing)."""
    from research_assistant.report.locations import chosen_folder

    state, settings = page_state(), get_settings()
    found = _stored_run(state, settings, run_id)
    if found is None:
        return
    record = found[0]
    options = source_options(choices)
    defaults = form_defaults(settings, options)
    # A run with uploads researched a folder of the upload cache: the form gets the folder the analyst chose.
    folder = chosen_folder(record.parameters.corpus_dir, settings.cache_dir / UPLOADS_FOLDER)
    parameters = replace(record.parameters, corpus_dir=Path(folder) if folder else None)
    record = record.model_copy(update={"parameters": parameters})
    state.form = form_from_run(record, options, [choice.name for choice in choices if not choice.missing], defaults)
    if further:
        state.form = deeper(state.form)
    state.form_generation += 1


def delete_run(run_id: str) -> None:
    """Delete button: the run's record, trace and checkpoints, gone (not while it runs)."""
    from research_assistant.runs.checkpoints import delete_checkpoints

    state, settings = page_state(), get_settings()
    if running_job(run_id) is not None:
        state.error = "This run is still going: stop it before deleting it."
        return
    state.error = ""
    with store_problems(state, settings.db_dir), open_store(settings.db_dir) as store:
        store.delete(run_id)
        run_sync(delete_checkpoints(settings.db_dir, run_id))
    state.loaded.pop(run_id, None)
    if state.shown == run_id:
        state.shown = ""
    if state.job is not None and state.job.run_id == run_id:
        state.job = None


def settle(state: PageState) -> None:
    """Once a run has ended: show it, and say in one line what went wrong if it failed."""
    job = state.job
    if job is None or job.settled or not job.background.done:
        return
    job.settled = True
    state.shown = job.run_id
    if job.background.error is not None:
        state.error = failure_message(job.background.error, job.run_id)


def load_run(state: PageState, record: RunRecord, db_dir: Path) -> LoadedRun:
    """The run's saved state (and the plan it waits on, if any), read once per change of its record."""
    from research_assistant.runner import pending_plan, saved_state

    loaded = state.loaded.pop(record.run_id, None)
    if loaded is not None and loaded.updated_at == record.updated_at:
        state.loaded[record.run_id] = loaded  # the most recently used last
        return loaded
    values: dict[str, Any] = {}
    plan: ResearchPlan | None = None
    if record.status is not RunStatus.RUNNING:
        values = dict(run_sync(saved_state(db_dir, record.run_id)) or {})
    if record.status is RunStatus.INTERRUPTED:
        try:
            plan = run_sync(pending_plan(db_dir, record.run_id))
        except Exception:  # a damaged checkpoint: the run is shown as merely interrupted
            logger.exception("cannot read the plan run %s waits on", record.run_id)
    loaded = LoadedRun(record.run_id, record.updated_at, values, plan, _checkpoints_damage(db_dir, values, record))
    state.loaded[record.run_id] = loaded
    while len(state.loaded) > KEPT_STATES:
        del state.loaded[next(iter(state.loaded))]
    return loaded


def _checkpoints_damage(db_dir: Path, values: dict[str, Any], record: RunRecord) -> str:
    """Why a run's saved state is missing when the checkpoint store is damaged; "" otherwise (or while it runs)."""
    from research_assistant.damage import DamagedStore, checkpoints_remedy, sqlite_problem
    from research_assistant.doctor import CHECKPOINTS_FILE

    path = db_dir / CHECKPOINTS_FILE
    if values or record.status is RunStatus.RUNNING or not path.exists():
        return ""
    problem = sqlite_problem(path)
    if problem is None:
        return ""
    return damage_message(DamagedStore(path, problem, checkpoints_remedy(path)), db_dir) or ""
