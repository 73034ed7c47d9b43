"""The research form: a run's question and parameters, checked before anything runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import streamlit as st

from research_assistant.context import PROFILES, CitationStyle, Context, Depth, SourceKind
from research_assistant.page.state import FormValues, PageState, Submission, Upload
from research_assistant.page.text import escape_markdown, one_line

if TYPE_CHECKING:
    from research_assistant.runs.records import RunRecord
    from research_assistant.services import Services
    from research_assistant.settings import Settings
    from research_assistant.web.setup import ProviderChoice

DEFAULT_CORPUS = "examples/python-memory"
OFFLINE_MODE = "Offline mode: extractive reasoning (no model configured)"
OFFLINE_NOTE = (
    "Findings are sentences quoted from the sources, each checked against its source. The model per role and "
    "a budget cap show here once a model is configured (GEMINI_API_KEY)."
)
MODELS_MODE = "Reasoning with language models"
MODELS_NOTE = "Set per installation: RESEARCH_MODEL_<ROLE>, RESEARCH_BUDGET_TOKENS and RESEARCH_BUDGET_USD."
UPLOAD_TYPES = ["pdf", "md", "markdown", "txt", "html", "htm", "docx"]
SOURCE_ORDER: tuple[SourceKind, ...] = ("local", "web", "news", "academic", "wiki")
SOURCE_LABELS: dict[SourceKind, str] = {
    "local": "Local documents",
    "web": "Web",
    "news": "News",
    "academic": "Academic",
    "wiki": "Wikipedia",
}
RECENCY_LABELS: dict[int | None, str] = {
    None: "Any time",
    7: "Past week",
    30: "Past month",
    365: "Past year",
    1825: "Past 5 years",
}


@dataclass(frozen=True)
class SourceOption:
    """A kind of source, and what it still needs ("" when it can be searched here)."""

    kind: SourceKind
    label: str
    missing: str = ""

    @property
    def available(self) -> bool:
        return not self.missing


# Pure helpers (unit-tested) ------------------------------------------------------------------------------


def source_options(choices: Sequence[ProviderChoice]) -> list[SourceOption]:
    """Every kind of source, in the form's order; a web kind no configured provider serves says what it needs."""
    options = [SourceOption("local", SOURCE_LABELS["local"])]
    for kind in SOURCE_ORDER[1:]:
        serving = [choice for choice in choices if kind in choice.kinds]
        if not serving or any(not choice.missing for choice in serving):
            missing = "" if serving else "no provider serves it"
        else:
            missing = " or ".join(f"{choice.label} ({choice.missing})" for choice in serving)
        options.append(SourceOption(kind, SOURCE_LABELS[kind], missing))
    return options


def configured(choices: Sequence[ProviderChoice]) -> list[str]:
    return [choice.name for choice in choices if not choice.missing]


def recency_label(days: int | None) -> str:
    return RECENCY_LABELS.get(days, f"Past {days} days")


def form_defaults(settings: Settings, options: Sequence[SourceOption]) -> FormValues:
    """Local documents, plus the web when a search key is set; the settings' depth and style."""
    available = {option.kind for option in options if option.available}
    return FormValues(
        sources=tuple(kind for kind in ("local", "web") if kind in available),
        corpus=str(settings.corpus_dir or DEFAULT_CORPUS),
        depth=str(settings.depth),
        style=str(settings.citation_style),
    )


def form_from_run(
    record: RunRecord, options: Sequence[SourceOption], providers: Sequence[str], defaults: FormValues
) -> FormValues:
    """The form filled with a past run's question and parameters; sources and providers not offered now are
    left out."""
    parameters = record.parameters
    available = {option.kind for option in options if option.available}
    chosen = None
    if parameters.providers is not None:
        chosen = tuple(name for name in parameters.providers if name in providers)
        chosen = None if set(chosen) == set(providers) else chosen
    return FormValues(
        question=record.question,
        sources=tuple(kind for kind in parameters.source_types if kind in available),
        providers=chosen,
        corpus=parameters.corpus_dir or defaults.corpus,
        depth=parameters.depth.value,
        style=parameters.citation_style.value,
        max_sources=parameters.max_sources,
        recency_days=parameters.recency_days,
        review_plan=parameters.review_plan,
        refresh=parameters.refresh,
    )


def chosen_providers(ticked: Sequence[str], choices: Sequence[ProviderChoice]) -> tuple[str, ...] | None:
    """The providers the form passes on: None (every configured one) when all of them are ticked."""
    names = configured(choices)
    kept = tuple(name for name in names if name in ticked)
    return None if kept == tuple(names) else kept


def refusal(values: FormValues, uploads: Sequence[Upload], choices: Sequence[ProviderChoice]) -> str:
    """Why the form's values cannot start a research, in one line; "" when they can."""
    from research_assistant.corpus.files import CorpusError, corpus_files

    if not values.question:
        return "Write a question first."
    if not values.sources:
        return "Choose at least one kind of source."
    allowed = set(configured(choices) if values.providers is None else values.providers)
    for kind in values.sources:
        serving = [choice for choice in choices if kind in choice.kinds and not choice.missing]
        if kind != "local" and serving and not any(choice.name in allowed for choice in serving):
            names = " or ".join(choice.label for choice in serving)
            return f"{SOURCE_LABELS[kind]} needs one of its providers: tick {names}."
    if uploads and "local" not in values.sources:
        return "Uploaded documents are local documents: tick Local documents to research them."
    if "local" in values.sources:
        if not values.corpus and not uploads:
            return "Give a documents folder or upload documents, or leave out local documents."
        if values.corpus:
            try:
                corpus_files(Path(values.corpus))
            except CorpusError as error:
                return one_line(str(error))
    return ""


def research_context(
    values: FormValues, corpus_dir: Path | None, settings: Settings, services: Services | None
) -> Context:
    return Context(
        depth=Depth(values.depth),
        source_types=list(values.sources),
        corpus_dir=corpus_dir,
        citation_style=CitationStyle(values.style),
        max_sources=values.max_sources,
        providers=None if values.providers is None else list(values.providers),
        recency_days=values.recency_days,
        review_plan=values.review_plan,
        refresh=values.refresh,
        db_dir=settings.db_dir,
        cache_dir=settings.cache_dir,
        services=services,
    )


def model_lines(settings: Settings) -> list[str]:
    """The model of each role, as `role: provider:model` lines, and the run's budget cap."""
    from research_assistant.reasoning.llm.models import ROLES, model_spec

    lines = [f"{role}: {model_spec(settings, role)}" for role in ROLES]
    caps = []
    if settings.budget_tokens is not None:
        caps.append(f"{settings.budget_tokens:,} tokens")
    if settings.budget_usd is not None:
        caps.append(f"${settings.budget_usd:.2f}")
    lines.append("budget cap per run: " + (" or ".join(caps) if caps else "none"))
    return lines


def max_sources_help() -> str:
    limits = ", ".join(f"{depth.value} {profile.max_sources}" for depth, profile in PROFILES.items())
    return f"Most sources read. Leave empty for the depth's own limit ({limits})."


# Drawing -------------------------------------------------------------------------------------------------


def model_panel(settings: Settings) -> None:
    """Which reasoning runs use: the models per role and the budget cap, or the offline mode, said plainly."""
    if not settings.uses_llm:
        st.info(OFFLINE_MODE, icon=":material/offline_bolt:")
        st.caption(OFFLINE_NOTE)
        return
    st.info(MODELS_MODE, icon=":material/neurology:")
    st.markdown("\n".join(f"- {escape_markdown(line)}" for line in model_lines(settings)))
    st.caption(MODELS_NOTE)


def research_form(state: PageState, settings: Settings, choices: Sequence[ProviderChoice]) -> Submission | None:
    """The form; what was submitted, when it was."""
    options = source_options(choices)
    defaults = state.form or form_defaults(settings, options)
    generation = state.form_generation
    with st.form(f"research-{generation}"):
        question = st.text_area(
            "Research question",
            value=defaults.question,
            height=80,
            placeholder="How does Python reclaim reference cycles?",
        )
        kinds = _source_checkboxes(options, defaults, generation)
        ticked = _provider_checkboxes(choices, defaults, generation)
        corpus = st.text_input(
            "Documents folder", value=defaults.corpus, help="A folder of your own documents: local sources."
        )
        files = st.file_uploader(
            "Add documents",
            type=UPLOAD_TYPES,
            accept_multiple_files=True,
            help="PDF, Markdown, text, HTML or Word files; they join the documents folder for this run.",
        )
        depth = st.segmented_control("Depth", [d.value for d in Depth], default=defaults.depth, required=True)
        style = st.segmented_control(
            "Citation style", [s.value for s in CitationStyle], default=defaults.style, required=True
        )
        limit_column, recency_column = st.columns(2)
        max_sources = limit_column.number_input(
            "Max sources",
            min_value=1,
            max_value=100,
            value=defaults.max_sources,
            step=1,
            placeholder="depth's limit",
            help=max_sources_help(),
        )
        recency_options = list(RECENCY_LABELS)
        if defaults.recency_days not in recency_options:
            recency_options.append(defaults.recency_days)
        recency = recency_column.selectbox(
            "Published",
            recency_options,
            index=recency_options.index(defaults.recency_days),
            format_func=recency_label,
            help="Leaves out search results published earlier; results without a date are kept.",
        )
        review_plan = st.checkbox(
            "Review the plan before searching",
            value=defaults.review_plan,
            help="The research pauses after planning, so that you can edit or approve its sub-questions.",
        )
        refresh = st.checkbox("Fetch pages again (ignore cached copies)", value=defaults.refresh)
        submitted = st.form_submit_button("Research", type="primary", disabled=state.busy)
    if not submitted:
        return None
    values = FormValues(
        question=" ".join(question.split()),
        sources=kinds,
        providers=chosen_providers(ticked, choices),
        corpus=corpus.strip(),
        depth=depth or str(settings.depth),
        style=style or str(settings.citation_style),
        max_sources=int(max_sources) if max_sources is not None else None,
        recency_days=recency,
        review_plan=review_plan,
        refresh=refresh,
    )
    uploads = tuple(Upload(file.name, file.getvalue()) for file in files or [])
    return Submission(values, uploads)


def _source_checkboxes(
    options: Sequence[SourceOption], defaults: FormValues, generation: int
) -> tuple[SourceKind, ...]:
    st.markdown("**Sources**")
    chosen: list[SourceKind] = []
    with st.container(horizontal=True):
        for option in options:
            ticked = st.checkbox(
                option.label,
                value=option.available and option.kind in defaults.sources,
                key=f"form{generation}-source-{option.kind}",
                disabled=not option.available,
                help=f"Needs {option.missing}" if option.missing else None,
            )
            if ticked and option.available:
                chosen.append(option.kind)
    unavailable: dict[str, list[str]] = {}
    for option in options:
        if option.missing:
            unavailable.setdefault(option.missing, []).append(option.label)
    if unavailable:
        st.caption(" ".join(f"{', '.join(labels)}: needs {missing}." for missing, labels in unavailable.items()))
    return tuple(chosen)


def _provider_checkboxes(choices: Sequence[ProviderChoice], defaults: FormValues, generation: int) -> list[str]:
    st.markdown("**Search providers** (for web, news, academic and Wikipedia sources)")
    ticked: list[str] = []
    with st.container(horizontal=True):
        for choice in choices:
            on = st.checkbox(
                choice.label,
                value=not choice.missing and (defaults.providers is None or choice.name in defaults.providers),
                key=f"form{generation}-provider-{choice.name}",
                disabled=bool(choice.missing),
                help=f"Needs a key: {choice.missing}" if choice.missing else None,
            )
            if on and not choice.missing:
                ticked.append(choice.name)
    missing = [f"{choice.label}: {choice.missing}." for choice in choices if choice.missing]
    if missing:
        st.caption("Not configured here: " + " ".join(missing))
    return ticked
