"""The research form: a run's question and parameters, checked before anything runs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st
from pydantic import ValidationError

from research_assistant.context import PROFILES, CitationStyle, Context, Depth, SourceKind, refusal_line, source_refusal
from research_assistant.page.state import FormValues, PageState, Submission, Upload
from research_assistant.reasoning.llm.models import ROLES, Role, model_spec
from research_assistant.settings import MODEL_EXAMPLE
from research_assistant.text.spaces import one_line

if TYPE_CHECKING:
    from research_assistant.runs.records import RunRecord
    from research_assistant.search.providers import ProviderChoice
    from research_assistant.services import Services
    from research_assistant.settings import Settings

DEFAULT_CORPUS = "examples/python-memory"
OFFLINE_MODE = "Offline mode: extractive reasoning (no model configured)"
OFFLINE_NOTE = (
    "Findings are sentences quoted from the sources, each checked against its source. The model per role and "
    "a budget cap show here once a model is configured (GEMINI_API_KEY)."
)
MODELS_MODE = "Reasoning with language models"
MODELS_NOTE = (
    "The model of each role and the budget cap are set for each run in the form; the installation's own come "
    "from RESEARCH_MODEL_<ROLE>, RESEARCH_BUDGET_TOKENS and RESEARCH_BUDGET_USD."
)
ROLE_TASKS: dict[Role, str] = {
    "analysis": "reads the question",
    "planning": "writes the sub-questions and their searches",
    "extraction": "quotes the evidence from each source",
    "evaluation": "judges whether the research has found enough",
    "synthesis": "writes the report",
    "judge": "checks the report's statements and scores it",
}
TOKENS_LABEL = "Budget cap (tokens)"
USD_LABEL = "Budget cap (USD)"
FIELD_NAMES = {
    "models": "The {} model",
    "budget_tokens": "The budget cap in tokens",
    "budget_usd": "The budget cap in USD",
}
"""How a refusal names the `Context` fields the form writes as text."""
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
    """Local documents, plus the web when a search key is set; the settings' depth, style and (with a model
    configured) budget caps. The models of the roles are the settings' until the analyst changes them."""
    available = {option.kind for option in options if option.available}
    uses_llm = settings.uses_llm
    return FormValues(
        sources=tuple(kind for kind in ("local", "web") if kind in available),
        corpus=str(settings.corpus_dir or DEFAULT_CORPUS),
        depth=str(settings.depth),
        style=str(settings.citation_style),
        budget_tokens=tokens_text(settings.budget_tokens) if uses_llm else "",
        budget_usd=usd_text(settings.budget_usd) if uses_llm else "",
    )


def form_from_run(
    record: RunRecord, options: Sequence[SourceOption], providers: Sequence[str], defaults: FormValues
) -> FormValues:
    """The form filled with a past run's question and parameters; sources and providers not offered now are
    left out. Roles whose model the run did not change, and caps it did not set, show the settings' again."""
    parameters = record.parameters
    available = {option.kind for option in options if option.available}
    chosen = None
    if parameters.providers is not None:
        chosen = tuple(name for name in parameters.providers if name in providers)
        chosen = None if set(chosen) == set(providers) else chosen
    models = parameters.models or {}
    tokens, usd = tokens_text(parameters.budget_tokens), usd_text(parameters.budget_usd)
    return FormValues(
        question=record.question,
        sources=tuple(kind for kind in parameters.source_types if kind in available),
        providers=chosen,
        corpus=str(parameters.corpus_dir or defaults.corpus),
        depth=parameters.depth.value,
        style=parameters.citation_style.value,
        max_sources=parameters.max_sources,
        recency_days=parameters.recency_days,
        review_plan=parameters.review_plan,
        refresh=parameters.refresh,
        models=tuple((role, models[role]) for role in ROLES if models.get(role)),
        budget_tokens=tokens or defaults.budget_tokens,
        budget_usd=usd or defaults.budget_usd,
    )


def deeper(values: FormValues) -> FormValues:
    """The form of a run again that goes further than `values`: the next depth (more sources, queries and rounds)
    and the depth's own source limit; a deep run keeps its depth and loses only its limit."""
    return replace(values, depth=next_depth(values.depth) or values.depth, max_sources=None)


def next_depth(depth: str) -> str | None:
    """The depth after `depth`; None for the deepest."""
    depths = [d.value for d in Depth]
    return depths[depths.index(depth) + 1] if depth in depths[:-1] else None


def tokens_text(tokens: int | None) -> str:
    return "" if tokens is None else str(tokens)


def usd_text(usd: float | None) -> str:
    return "" if usd is None else str(usd).removesuffix(".0")


def chosen_providers(ticked: Sequence[str], choices: Sequence[ProviderChoice]) -> tuple[str, ...] | None:
    """The providers the form passes on: None (every configured one) when all of them are ticked."""
    names = configured(choices)
    kept = tuple(name for name in names if name in ticked)
    return None if kept == tuple(names) else kept


def refusal(
    values: FormValues, uploads: Sequence[Upload], choices: Sequence[ProviderChoice], settings: Settings
) -> str:
    """Why the form's values cannot start a research, in one line; "" when they can."""
    from research_assistant.corpus.files import CorpusError, corpus_files

    if not values.question:
        return "Write a question first."
    if problem := source_refusal(
        values.sources, bool(values.corpus or uploads), "give a documents folder or upload documents"
    ):
        return f"{problem[:1].upper()}{problem[1:]}."
    try:
        research_context(values, None, settings, None)
    except ValidationError as error:  # what the Context refuses, named as the form names it
        blank = str(error.errors()[0]["loc"][0]) in ("budget_tokens", "budget_usd")
        return refusal_line(error, FIELD_NAMES) + (", or left blank." if blank else ".")
    allowed = set(configured(choices) if values.providers is None else values.providers)
    for kind in values.sources:
        serving = [choice for choice in choices if kind in choice.kinds and not choice.missing]
        if kind != "local" and serving and not any(choice.name in allowed for choice in serving):
            names = " or ".join(choice.label for choice in serving)
            return f"{SOURCE_LABELS[kind]} needs one of its providers: tick {names}."
    if uploads and "local" not in values.sources:
        return "Uploaded documents are local documents: tick Local documents to research them."
    if "local" in values.sources and values.corpus:
        try:
            corpus_files(Path(values.corpus))
        except CorpusError as error:
            return one_line(str(error))
    return ""


def research_context(
    values: FormValues, corpus_dir: Path | None, settings: Settings, services: Services | None
) -> Context:
    """The run's context, built (and so checked: `pydantic.ValidationError`) from the form's values. The models
    and budget caps only when runs reason with a model; the models only of the roles changed from the settings'."""
    uses_llm = settings.uses_llm
    models: dict[str, str] = {role: text for role, text in values.models if text.strip()} if uses_llm else {}
    context = Context(
        depth=Depth(values.depth),
        source_types=list(values.sources),
        corpus_dir=corpus_dir,
        citation_style=CitationStyle(values.style),
        max_sources=values.max_sources,
        providers=None if values.providers is None else list(values.providers),
        recency_days=values.recency_days,
        review_plan=values.review_plan,
        refresh=values.refresh,
        models=models or None,
        budget_tokens=_cap(values.budget_tokens) if uses_llm else None,
        budget_usd=_cap(values.budget_usd) if uses_llm else None,
        db_dir=settings.db_dir,
        cache_dir=settings.cache_dir,
        services=services,
    )
    chosen = context.models or {}
    changed: dict[str, str] = {
        role: chosen[role] for role in ROLES if role in chosen and chosen[role] != model_spec(settings, role)
    }
    return replace(context, models=changed or None) if context.models else context


def _cap(text: str) -> Any:
    """A budget cap's text as the Context takes it: None when blank; thousands separators and a $ left out."""
    return text.strip().removeprefix("$").replace(",", "").replace("_", "").strip() or None


# Drawing -------------------------------------------------------------------------------------------------


def model_panel(settings: Settings) -> None:
    """Which reasoning runs use, said plainly: language models (chosen in the form), or the offline mode."""
    if not settings.uses_llm:
        st.info(OFFLINE_MODE, icon=":material/offline_bolt:")
        st.caption(OFFLINE_NOTE)
        return
    st.info(MODELS_MODE, icon=":material/neurology:")
    st.caption(MODELS_NOTE)


MORE_SETTINGS = "More settings: upload documents, search providers, citation style, limits"


def research_form(state: PageState, settings: Settings, choices: Sequence[ProviderChoice]) -> Submission | None:
    """The form: the question and the main choices at hand, the other settings folded away; what was submitted,
    when it was. Research is disabled while a run of this page is going."""
    options = source_options(choices)
    defaults = state.form or form_defaults(settings, options)
    generation = state.form_generation
    with st.form(f"research-{generation}", border=False):
        question = st.text_area(
            "Research question",
            value=defaults.question,
            height=80,
            placeholder="How does Python reclaim reference cycles?",
        )
        sources_column, corpus_column, depth_column = st.columns([5, 4, 4], vertical_alignment="top")
        with sources_column:
            kinds = _source_checkboxes(options, defaults, generation)
        corpus = corpus_column.text_input(
            "Documents folder", value=defaults.corpus, help="A folder of your own documents: local sources."
        )
        depth = depth_column.segmented_control("Depth", [d.value for d in Depth], default=defaults.depth, required=True)
        with st.expander(MORE_SETTINGS + (", models" if settings.uses_llm else "")):
            model_panel(settings)
            files = st.file_uploader(
                "Add documents",
                type=UPLOAD_TYPES,
                accept_multiple_files=True,
                help="PDF, Markdown, text, HTML or Word files; they join the documents folder for this run.",
            )
            ticked = _provider_checkboxes(choices, defaults, generation)
            style = st.segmented_control(
                "Citation style",
                [s.value for s in CitationStyle],
                default=defaults.style,
                required=True,
                help="How the Sources list and the source cards write each source: numeric, APA or MLA.",
            )
            limit_column, recency_column = st.columns(2)
            limits = ", ".join(f"{depth.value} {profile.max_sources}" for depth, profile in PROFILES.items())
            max_sources = limit_column.number_input(
                "Max sources",
                min_value=1,
                max_value=100,
                value=defaults.max_sources,
                step=1,
                placeholder="depth's limit",
                help=f"Most sources read. Leave empty for the depth's own limit ({limits}).",
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
            models, budget_tokens, budget_usd = (
                _model_inputs(settings, defaults, generation) if settings.uses_llm else ((), "", "")
            )
        submitted = st.form_submit_button(
            "Research",
            type="primary",
            disabled=state.busy,
            help="One research at a time: stop the one going first." if state.busy else None,
        )
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
        models=models,
        budget_tokens=budget_tokens.strip(),
        budget_usd=budget_usd.strip(),
    )
    uploads = tuple(Upload(file.name, file.getvalue()) for file in files or [])
    return Submission(values, uploads)


def _model_inputs(
    settings: Settings, defaults: FormValues, generation: int
) -> tuple[tuple[tuple[Role, str], ...], str, str]:
    """A model per role, prefilled with the run's (after "Run again") or the settings'; the two budget caps."""
    st.markdown("**Models** (`provider:model`; a bare name is a Gemini model)")
    chosen = dict(defaults.models)
    models: list[tuple[Role, str]] = []
    for number, role in enumerate(ROLES):
        if number % 2 == 0:
            row = st.columns(2)  # a row per pair of roles: they read, and tab, in the order they work
        setting = model_spec(settings, role)
        text = row[number % 2].text_input(
            f"{role.capitalize()} model",
            value=chosen.get(role) or setting,
            key=f"form{generation}-model-{role}",
            help=(
                f"The model that {ROLE_TASKS[role]}, such as `{MODEL_EXAMPLE}` or `openai:gpt-4o-mini` (its "
                f"LangChain integration installed and its key set). Blank: the installation's, `{setting}`."
            ),
        )
        models.append((role, text.strip()))
    tokens_column, usd_column = st.columns(2)
    tokens = tokens_column.text_input(
        TOKENS_LABEL,
        value=defaults.budget_tokens,
        key=f"form{generation}-budget-tokens",
        placeholder="none",
        help="Most model tokens (read and written) this run may use; when reached, it writes its report from "
        "what it gathered. " + _blank_cap("RESEARCH_BUDGET_TOKENS", settings.budget_tokens, "{:,} tokens"),
    )
    usd = usd_column.text_input(
        USD_LABEL,
        value=defaults.budget_usd,
        key=f"form{generation}-budget-usd",
        placeholder="none",
        help="Most USD this run's model calls may cost; when reached, it writes its report from what it "
        "gathered. " + _blank_cap("RESEARCH_BUDGET_USD", settings.budget_usd, "USD {:.2f}"),
    )
    return tuple(models), tokens, usd


def _blank_cap(setting: str, cap: float | None, form: str) -> str:
    if cap is None:
        return "Blank: no cap."
    return f"Blank: the installation's cap, {setting} ({form.format(cap)})."


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
