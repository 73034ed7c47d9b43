"""What the page's buttons do: start, resume, review and settle runs through the runner, open and reload them.

Runs go on in the background (`BackgroundRun`), so that the page stays
responsive and Stop can cancel them. No research logic lives here: the
runner drives the graph, and this module only builds its parameters.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from research_assistant.page.form import form_defaults, form_from_run, research_context, source_options
from research_assistant.page.state import Action, Job, LoadedRun, PageState, Submission, page_state
from research_assistant.page.text import one_line
from research_assistant.runs.background import BackgroundRun, Work
from research_assistant.runs.records import RunRecord, RunStatus
from research_assistant.runs.store import RunStore
from research_assistant.secrets import ScrubbingFilter, scrub
from research_assistant.settings import get_settings

if TYPE_CHECKING:
    from collections.abc import Sequence

    from research_assistant.context import Context
    from research_assistant.schemas import ResearchPlan
    from research_assistant.settings import Settings
    from research_assistant.web.setup import ProviderChoice

logger = logging.getLogger("research_assistant.page")
logger.addFilter(ScrubbingFilter())  # a failure's message or traceback may quote a key
T = TypeVar("T")
BUSY = "A research is running: stop it first."
KEPT_STATES = 4  # saved states kept in the session: the run shown, the one compared with it, a few recent
UPLOADS_FOLDER = "uploads"


def run_sync(value: T | Any) -> T:
    """`value`, or what it resolves to when it is awaitable (the runner's readers are coroutines)."""
    if not inspect.isawaitable(value):
        return cast(T, value)

    async def wait() -> T:
        return cast(T, await value)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wait())
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # called from inside a loop: use a loop of its own
        return pool.submit(asyncio.run, wait()).result()


@contextmanager
def open_store(db_dir: Path) -> Iterator[RunStore]:
    store = RunStore.at(db_dir)
    try:
        yield store
    finally:
        store.close()


def failure_message(error: BaseException, run_id: str) -> str:
    """One line for the analyst; an unexpected failure is logged with its traceback as well."""
    from research_assistant.corpus.files import CorpusError
    from research_assistant.runner import RunNotResumable
    from research_assistant.services import ConfigurationError

    if isinstance(error, CorpusError | ConfigurationError | RunNotResumable):
        return one_line(scrub(str(error)))
    logger.error("research run %s failed", run_id, exc_info=error)
    return one_line(
        f"The research failed unexpectedly ({type(error).__name__}: {one_line(scrub(str(error)), 120)}); "
        "the details are in the server log."
    )


def _start(state: PageState, run_id: str, action: Action, work: Work, context: Context, earlier: Any = ()) -> None:
    background = BackgroundRun(work).start()
    state.job = Job(
        run_id=run_id,
        action=action,
        background=background,
        iteration_limit=context.iteration_limit,
        earlier=tuple(earlier),
    )
    state.shown, state.error = "", ""


def start_research(state: PageState, submission: Submission, settings: Settings) -> None:
    """A new run of the submitted form, its uploads joined to its documents folder."""
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
            return
    context = research_context(values, corpus_dir, settings, state.services)
    run_id = new_run_id()
    question = values.question
    _start(
        state, run_id, "research", lambda on_event: run_research(question, context, on_event, run_id=run_id), context
    )


def _stopped_run(state: PageState, settings: Settings, run_id: str) -> tuple[RunRecord, Context, list[Any]] | None:
    """The run to carry on with, its context and its trace so far; None (with the page's error set) when it
    cannot be carried on with."""
    if state.busy:
        state.error = BUSY
        return None
    with open_store(settings.db_dir) as store:
        record = store.get(run_id)
        earlier = list(store.events(run_id)) if record is not None else []
    if record is None:
        state.error = f"Run {run_id} is not in the run store any more."
        return None
    context = record.parameters.context(db_dir=settings.db_dir, cache_dir=settings.cache_dir, services=state.services)
    return record, context, earlier


def resume(run_id: str, finish: bool) -> None:
    """Resume and Write-report buttons: carry on with a stopped run in the background."""
    from research_assistant.corpus.files import CorpusError, corpus_files
    from research_assistant.runner import resume_research

    state, settings = page_state(), get_settings()
    found = _stopped_run(state, settings, run_id)
    if found is None:
        return
    record, context, earlier = found
    if "local" in context.source_types and context.corpus_dir is not None and not finish:
        try:
            corpus_files(context.corpus_dir)
        except CorpusError as error:
            state.error = one_line(str(error))
            return
    action: Action = "finish" if finish else "resume"
    _start(
        state,
        run_id,
        action,
        lambda on_event: resume_research(record, context, on_event, finish=finish),
        context,
        earlier,
    )


def continue_with_plan(run_id: str, plan: ResearchPlan | None) -> None:
    """Plan review: carry on with the run that waits, with the edited plan (None approves it as proposed)."""
    from research_assistant.runner import resume_research

    state, settings = page_state(), get_settings()
    found = _stopped_run(state, settings, run_id)
    if found is None:
        return
    record, context, earlier = found
    _start(
        state,
        run_id,
        "review",
        lambda on_event: resume_research(record, context, on_event, plan=plan),
        context,
        earlier,
    )


def open_run(run_id: str) -> None:
    state = page_state()
    state.shown, state.error = run_id, ""
    if state.job is not None and state.job.background.done:
        state.job = None  # its progress belongs to the run it was, not to the one opened


def run_again(run_id: str, choices: Sequence[ProviderChoice]) -> None:
    """Run again: the form, filled with a past run's question and parameters, ready to be tweaked."""
    state, settings = page_state(), get_settings()
    with open_store(settings.db_dir) as store:
        record = store.get(run_id)
    if record is None:
        state.error = f"Run {run_id} is not in the run store any more."
        return
    options = source_options(choices)
    configured = [choice.name for choice in choices if not choice.missing]
    state.form = form_from_run(record, options, configured, form_defaults(settings, options))
    state.form_generation += 1


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
    loaded = LoadedRun(record.run_id, record.updated_at, values, plan)
    state.loaded[record.run_id] = loaded
    while len(state.loaded) > KEPT_STATES:
        del state.loaded[next(iter(state.loaded))]
    return loaded
