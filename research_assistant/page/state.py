"""Everything the page remembers between reruns: one `PageState` in the session."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from research_assistant.context import CitationStyle, Depth, SourceKind

if TYPE_CHECKING:
    from research_assistant.reasoning.llm.models import Role
    from research_assistant.runs.background import BackgroundRun
    from research_assistant.runs.records import TraceEvent
    from research_assistant.schemas import ResearchPlan
    from research_assistant.services import Services

Action = Literal["research", "resume", "finish", "review"]

SESSION_KEY = "page"


@dataclass(frozen=True)
class FormValues:
    """What the research form shows; "Run again" replaces it with a past run's question and parameters."""

    question: str = ""
    sources: tuple[SourceKind, ...] = ("local",)
    providers: tuple[str, ...] | None = None
    """Provider families chosen; None means every configured one."""
    corpus: str = ""
    depth: str = Depth.STANDARD.value
    style: str = CitationStyle.NUMERIC.value
    max_sources: int | None = None
    """None: the depth's own limit."""
    recency_days: int | None = None
    """None: any date."""
    review_plan: bool = False
    refresh: bool = False
    models: tuple[tuple[Role, str], ...] = ()
    """(role, model) as written in the form: `provider:model`, or a bare Gemini model name. A role left out, or
    left blank, uses the installation's model. Only offered when a model is configured."""
    budget_tokens: str = ""
    """The run's cap on model tokens, as written; blank: none of its own."""
    budget_usd: str = ""
    """The run's cap on the USD its model calls cost, as written; blank: none of its own."""


@dataclass(frozen=True)
class Upload:
    """A file the analyst uploaded with the form: it joins the run's corpus."""

    name: str
    content: bytes


@dataclass(frozen=True)
class Submission:
    """The form, submitted."""

    values: FormValues
    uploads: tuple[Upload, ...] = ()


@dataclass
class Job:
    """A run going on in the background (or just ended), and what the page has made of its end."""

    run_id: str
    action: Action
    background: BackgroundRun
    iteration_limit: int = 3
    """The run's research rounds at most, for the progress bar."""
    earlier: tuple[TraceEvent, ...] = ()
    """The trace of the run before this segment (a resumed run), so its progress carries on."""
    settled: bool = False

    @property
    def events(self) -> list[TraceEvent]:
        return [*self.earlier, *self.background.events]


@dataclass
class LoadedRun:
    """A run's saved state, read once per change of its record."""

    run_id: str
    updated_at: float
    state: dict[str, Any]
    pending_plan: ResearchPlan | None = None
    damaged: str = ""
    """What the page says when its state could not be read from a damaged checkpoint store."""


@dataclass
class PageState:
    """Everything the page remembers between reruns."""

    form: FormValues | None = None
    form_generation: int = 0
    """Counts "Run again"s: a new form (with fresh widgets) each time, even with the same values."""
    job: Job | None = None
    shown: str = ""
    """The id of the run shown below the form: the one that just ended, or one opened from History."""
    error: str = ""
    followed: str = ""
    """The run id of the page's address (`?run=ID`) last acted on: a new one opens that run."""
    loaded: dict[str, LoadedRun] = field(default_factory=dict)
    """Saved states of the runs shown (and compared), by run id."""
    services: Services | None = None
    """Ready-made services for every run the page starts (tests inject fakes); built per run when None."""

    @property
    def busy(self) -> bool:
        return self.job is not None and not self.job.background.done


def page_state() -> PageState:
    """The session's `PageState`, created on first use."""
    import streamlit as st

    if SESSION_KEY not in st.session_state:
        st.session_state[SESSION_KEY] = PageState()
    state: PageState = st.session_state[SESSION_KEY]
    return state
