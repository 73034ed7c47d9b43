"""The research form's helpers: what can be chosen, what is refused, and what reaches the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from research_assistant.context import CitationStyle, Context, Depth
from research_assistant.page.form import (
    SourceOption,
    chosen_providers,
    deeper,
    form_defaults,
    form_from_run,
    next_depth,
    recency_label,
    refusal,
    research_context,
    source_options,
)
from research_assistant.page.state import FormValues, Upload
from research_assistant.runs.records import RunRecord, RunStatus
from research_assistant.search.providers import ProviderChoice
from research_assistant.settings import Settings

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "corpus"
NO_KEYS = [
    ProviderChoice("tavily", "Tavily", ("web", "news"), "set TAVILY_API_KEY"),
    ProviderChoice("exa", "Exa", ("web", "news", "academic"), "set EXA_API_KEY"),
    ProviderChoice("wikipedia", "Wikipedia", ("wiki",)),
    ProviderChoice("arxiv", "arXiv", ("academic",)),
]
TAVILY = [ProviderChoice("tavily", "Tavily", ("web", "news")), *NO_KEYS[1:]]


def test_a_kind_that_no_configured_provider_serves_says_which_keys_it_needs() -> None:
    options = {option.kind: option for option in source_options(NO_KEYS)}
    assert list(options) == ["local", "web", "news", "academic", "wiki"]
    assert options["web"].missing == "Tavily (set TAVILY_API_KEY) or Exa (set EXA_API_KEY)"
    assert not options["web"].available and not options["news"].available
    assert options["local"].available and options["academic"].available and options["wiki"].available
    assert all(option.available for option in source_options(TAVILY))
    assert source_options([])[1] == SourceOption("web", "Web", "no provider serves it")


def test_the_defaults_add_the_web_when_it_can_be_searched(tmp_path: Path) -> None:
    settings = Settings(corpus_dir=tmp_path, depth="deep", citation_style="apa")
    assert form_defaults(settings, source_options(NO_KEYS)) == FormValues(
        sources=("local",), corpus=str(tmp_path), depth="deep", style="apa"
    )
    assert form_defaults(settings, source_options(TAVILY)).sources == ("local", "web")
    assert form_defaults(Settings(), source_options(NO_KEYS)).corpus == "examples/python-memory"


def test_all_configured_providers_ticked_means_every_one() -> None:
    assert chosen_providers(["tavily", "wikipedia", "arxiv"], TAVILY) is None
    assert chosen_providers(["arxiv", "tavily"], TAVILY) == ("tavily", "arxiv")
    assert chosen_providers(["exa", "arxiv"], TAVILY) == ("arxiv",), "an unconfigured provider is never passed on"
    assert chosen_providers([], TAVILY) == ()


def record(**parameters: object) -> RunRecord:
    fields: dict[str, object] = {
        "depth": Depth.DEEP,
        "source_types": ["local", "web", "wiki"],
        "corpus_dir": "/docs",
        "citation_style": CitationStyle.MLA,
        "max_seconds": 60,
        "refresh": True,
        "max_sources": 7,
        "recency_days": 30,
        "review_plan": True,
        "providers": ["tavily", "wikipedia"],
    }
    fields.update(parameters)
    return RunRecord(
        run_id="r",
        question="Q?",
        parameters=Context(**fields),  # type: ignore[arg-type]
        status=RunStatus.COMPLETED,
        started_at=0.0,
        updated_at=0.0,
    )


def test_run_again_takes_the_runs_question_and_parameters_but_only_what_is_offered_now() -> None:
    defaults = FormValues(corpus="/default")
    options = source_options(NO_KEYS)
    values = form_from_run(record(), options, ["wikipedia", "arxiv"], defaults)
    assert values == FormValues(
        question="Q?",
        sources=("local", "wiki"),
        providers=("wikipedia",),
        corpus="/docs",
        depth="deep",
        style="mla",
        max_sources=7,
        recency_days=30,
        review_plan=True,
        refresh=True,
    )
    assert form_from_run(record(corpus_dir=None), options, [], defaults).corpus == "/default"
    assert form_from_run(record(providers=None), options, ["arxiv"], defaults).providers is None
    every = form_from_run(record(providers=["wikipedia", "arxiv"]), options, ["wikipedia", "arxiv"], defaults)
    assert every.providers is None, "every provider configured now was chosen"


def test_the_form_is_refused_with_the_first_problem(tmp_path: Path) -> None:
    def problem(uploads: tuple[Upload, ...] = (), choices: list[ProviderChoice] = TAVILY, **values: object) -> str:
        form = FormValues(**{"question": "Q", "corpus": str(CORPUS), **values})  # type: ignore[arg-type]
        return refusal(form, uploads, choices, Settings())

    assert problem(question="") == "Write a question first."
    assert problem(sources=()).startswith("No source is configured: choose local documents")
    assert problem(corpus="") == "'local' sources need a corpus: give a documents folder or upload documents."
    (tmp_path / "empty").mkdir()
    assert "contains no .md" in problem(corpus=str(tmp_path / "empty"))
    assert problem(sources=("local", "web"), providers=("arxiv",)) == "Web needs one of its providers: tick Tavily."
    assert problem(sources=("academic",), providers=("tavily",)) == ("Academic needs one of its providers: tick arXiv.")
    assert problem(sources=("wiki",), uploads=(Upload("a.md", b"x"),)).startswith("Uploaded documents are local")
    assert problem(sources=("wiki",), corpus="") == ""
    assert problem(corpus="", uploads=(Upload("a.md", b"x"),)) == "", "uploads alone make a corpus"
    assert problem(sources=("local", "web"), providers=None) == ""
    assert problem() == ""


def test_the_forms_values_become_the_runs_context(tmp_path: Path) -> None:
    values = FormValues(
        question="Q",
        sources=("local", "wiki"),
        providers=("wikipedia",),
        depth="quick",
        style="apa",
        max_sources=4,
        recency_days=365,
        review_plan=True,
        refresh=True,
    )
    settings = Settings(db_dir=tmp_path / "db", cache_dir=tmp_path / "cache")
    context = research_context(values, tmp_path / "corpus", settings, services=None)
    assert (context.depth, context.citation_style) == (Depth.QUICK, CitationStyle.APA)
    assert context.source_types == ["local", "wiki"] and context.corpus_dir == tmp_path / "corpus"
    assert (context.max_sources, context.source_limit, context.recency_days) == (4, 4, 365)
    assert context.providers == ["wikipedia"] and context.review_plan and context.refresh
    assert (context.db_dir, context.cache_dir) == (tmp_path / "db", tmp_path / "cache")
    assert research_context(FormValues(question="Q"), None, settings, None).providers is None


@pytest.mark.parametrize(("days", "label"), [(None, "Any time"), (30, "Past month"), (90, "Past 90 days")])
def test_recency_labels(days: int | None, label: str) -> None:
    assert recency_label(days) == label


LLM = Settings(reasoner="llm", gemini_api_key="test-key")


def refused(**values: object) -> str:
    """What the form says of `values` (a question and the fixture corpus besides) when runs use models."""
    return refusal(FormValues(**{"question": "Q", "corpus": str(CORPUS), **values}), (), TAVILY, LLM)  # type: ignore[arg-type]


def test_a_role_model_is_provider_colon_model_and_a_bare_name_is_geminis() -> None:
    def models(*written: str) -> dict[str, str] | None:
        roles = ("analysis", "planning", "extraction", "evaluation")
        return research_context(FormValues(models=tuple(zip(roles, written, strict=False))), None, LLM, None).models

    assert models(" openai:gpt-4o-mini ", "gemini-2.5-flash-lite") == {
        "analysis": "openai:gpt-4o-mini",
        "planning": "google_genai:gemini-2.5-flash-lite",
    }
    assert models("ollama:llama3:8b", "huggingface:meta-llama/Llama-3-8b") == {
        "analysis": "ollama:llama3:8b",  # a model name may hold a colon
        "planning": "huggingface:meta-llama/Llama-3-8b",
    }
    for malformed in ("openai:", ":gpt-4o", "gemini 2.5 pro", "Open AI:gpt", "OpenAI:gpt-4o", "openai: gpt"):
        assert refused(models=(("judge", malformed),)).startswith("The judge model "), malformed


@pytest.mark.parametrize(("text", "tokens"), [("", None), (" 200000 ", 200_000), ("200,000", 200_000), ("1", 1)])
def test_a_token_cap_is_a_whole_number_above_zero_or_blank(text: str, tokens: int | None) -> None:
    assert research_context(FormValues(budget_tokens=text), None, LLM, None).budget_tokens == tokens
    assert refused(budget_tokens=text) == ""


@pytest.mark.parametrize("text", ["0", "-5", "1.5", "1e5", "lots", "²"])
def test_a_token_cap_that_is_no_whole_number_above_zero_is_refused(text: str) -> None:
    assert refused(budget_tokens=text) == "The budget cap in tokens must be a whole number above 0, or left blank."


def test_a_usd_cap_is_an_amount_above_zero_or_blank() -> None:
    def usd(text: str) -> float | None:
        return research_context(FormValues(budget_usd=text), None, LLM, None).budget_usd

    assert (usd(""), usd("0.5"), usd("$2"), usd("1,000")) == (None, 0.5, 2.0, 1000.0)
    for text in ("0", "-0.5", "nan", "inf", "cheap"):
        assert refused(budget_usd=text) == (
            "The budget cap in USD must be an amount above 0, such as 0.50, or left blank."
        ), text


def test_a_malformed_model_or_budget_is_refused_in_one_line() -> None:
    assert refused(models=(("planning", "gemini-2.5-flash"), ("synthesis", "openai:gpt-4o"))) == ""
    assert refused(models=(("synthesis", ""),)) == "", "blank: the installation's model"
    assert refused(models=(("synthesis", "gpt 4o\nplease"),)) == (
        "The synthesis model 'gpt 4o please' is not provider:model, such as google_genai:gemini-2.5-flash."
    )
    assert refused(budget_tokens="-5").startswith("The budget cap in tokens")
    assert refused(budget_tokens="1000", budget_usd="0.25") == ""


def test_only_the_roles_whose_model_changed_reach_the_run(tmp_path: Path) -> None:
    settings = Settings(reasoner="llm", model_judge="gemini-2.5-pro", budget_usd=1.0)
    values = FormValues(
        question="Q",
        models=(
            ("analysis", "google_genai:gemini-2.5-flash"),  # the setting
            ("judge", "gemini-2.5-pro"),  # the setting, written bare
            ("planning", ""),  # blank: the setting
            ("synthesis", "openai:gpt-4o"),
            ("extraction", "gemini-2.5-flash-lite"),
        ),
        budget_tokens="50,000",
        budget_usd="0.75",
    )
    context = research_context(values, None, settings, None)
    assert context.models == {"synthesis": "openai:gpt-4o", "extraction": "google_genai:gemini-2.5-flash-lite"}
    assert (context.budget_tokens, context.budget_usd) == (50_000, 0.75)
    unchanged = research_context(FormValues(question="Q", models=values.models[:3]), None, settings, None)
    assert unchanged.models is None and unchanged.budget_tokens is None and unchanged.budget_usd is None


def test_offline_no_model_or_budget_reaches_the_run() -> None:
    settings = Settings(reasoner="extractive", budget_tokens=1000)
    assert not settings.uses_llm
    values = FormValues(question="Q", models=(("synthesis", "openai:gpt-4o"),), budget_tokens="5", budget_usd="1")
    context = research_context(values, None, settings, None)
    assert (context.models, context.budget_tokens, context.budget_usd) == (None, None, None)
    assert form_defaults(settings, source_options(NO_KEYS)).budget_tokens == "", "no cap shown offline"


def test_the_budget_caps_start_from_the_settings_and_run_again_refills_the_models_and_caps() -> None:
    settings = Settings(reasoner="llm", budget_tokens=200_000, budget_usd=0.5)
    defaults = form_defaults(settings, source_options(NO_KEYS))
    assert (defaults.models, defaults.budget_tokens, defaults.budget_usd) == ((), "200000", "0.5")
    assert form_defaults(Settings(reasoner="llm", budget_usd=2.0), []).budget_usd == "2"

    past = record(models={"synthesis": "openai:gpt-4o", "analysis": "google_genai:x"}, budget_tokens=5000)
    values = form_from_run(past, source_options(NO_KEYS), [], defaults)
    assert values.models == (("analysis", "google_genai:x"), ("synthesis", "openai:gpt-4o")), "in the roles' order"
    assert (values.budget_tokens, values.budget_usd) == ("5000", "0.5"), "a cap the run did not set: the settings'"
    assert form_from_run(record(budget_usd=0.25), [], [], defaults).budget_usd == "0.25"


def test_a_run_again_deeper_goes_one_depth_further_without_the_runs_source_limit() -> None:
    quick = FormValues(question="Q", depth=Depth.QUICK.value, max_sources=3, style="apa")
    assert deeper(quick) == FormValues(question="Q", depth=Depth.STANDARD.value, max_sources=None, style="apa")
    assert deeper(deeper(quick)).depth == Depth.DEEP.value
    assert deeper(FormValues(depth=Depth.DEEP.value, max_sources=5)) == FormValues(depth=Depth.DEEP.value)
    assert [next_depth(d.value) for d in Depth] == [Depth.STANDARD.value, Depth.DEEP.value, None]
