"""A run's parameters have one schema, the `Context`: the run store keeps its kept fields as JSON and builds the
Context from them again, and the CLI, the page and LangGraph's server are refused the same values by it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from research_assistant.context import CitationStyle, Context, Depth, refusal_line
from research_assistant.graph import build_graph
from research_assistant.runs.records import RunRecord, RunStatus
from research_assistant.runs.store import RunStore
from research_assistant.settings import Settings

STORED = (
    '{"depth":"quick","source_types":["local","wiki"],"corpus_dir":"/docs","citation_style":"apa","max_sources":4,'
    '"max_iterations":null,"max_seconds":60.0,"refresh":false,"providers":["wikipedia"],"recency_days":30,'
    '"review_plan":false,"models":{"synthesis":"openai:gpt-4o"},"budget_tokens":5000,"budget_usd":0.5}'
)
"""A run's parameters as the run store has kept them since before the Context was their schema."""


RECORD = f'{{"run_id":"r1","question":"Q?","parameters":{STORED},"status":"completed","started_at":1,"updated_at":1}}'


def test_a_stored_runs_parameters_load_as_its_context_with_this_processs_folders(tmp_path: Path) -> None:
    store = RunStore.at(tmp_path)
    store._put("r1", 1.0, RECORD)
    record = store.get("r1")
    assert record is not None
    context = record.parameters
    assert isinstance(context, Context)
    assert (context.depth, context.citation_style) == (Depth.QUICK, CitationStyle.APA)
    assert context.corpus_dir == Path("/docs")
    assert (context.source_limit, context.recency_days, context.providers) == (4, 30, ["wikipedia"])
    assert (context.models, context.budget_tokens, context.budget_usd) == ({"synthesis": "openai:gpt-4o"}, 5000, 0.5)
    settings = Settings()
    assert (context.db_dir, context.cache_dir, context.deadline, context.services) == (
        settings.db_dir,
        settings.cache_dir,
        None,
        None,
    )


def test_a_run_keeps_its_parameters_as_before_without_folders_deadline_or_services(tmp_path: Path) -> None:
    context = Context(
        depth="quick",
        source_types=["local", "wiki"],
        corpus_dir="/docs",
        citation_style="apa",
        max_sources=4,
        max_seconds=60,
        providers=["wikipedia"],
        recency_days=30,
        models={"synthesis": "openai:gpt-4o"},
        budget_tokens=5000,
        budget_usd=0.5,
        db_dir=tmp_path / "db",
        deadline=123.0,
        services=object(),
    )
    record = RunRecord(
        run_id="r1", question="Q?", parameters=context, status=RunStatus.COMPLETED, started_at=1.0, updated_at=1.0
    )
    kept = json.loads(record.model_dump_json())["parameters"]
    assert json.dumps(kept, separators=(",", ":")) == STORED, "the same JSON, key for key, as stored before"
    assert RunRecord.model_validate_json(record.model_dump_json()).parameters == Context(
        **{**json.loads(STORED), "db_dir": Settings().db_dir}
    )


@pytest.mark.parametrize(
    ("values", "line"),
    [
        ({"max_sources": 0}, "max sources must be at least 1"),
        ({"max_seconds": float("nan")}, "max seconds must be a number of seconds more than 0"),
        ({"budget_usd": "cheap"}, "budget usd must be an amount above 0, such as 0.50"),
        ({"budget_tokens": "1.5"}, "budget tokens must be a whole number above 0"),
        ({"models": {"judge": "gpt 4o"}}, "the judge model 'gpt 4o' is not provider:model, such as "),
        ({"models": {"critic": "openai:gpt-4o"}}, "the critic model is not a role: analysis, planning"),
        ({"depth": "thorough"}, "depth: input should be 'quick', 'standard' or 'deep'"),
        ({"providers": ["tavily", "google"]}, "providers includes unknown provider google; choose from tavily, exa"),
    ],
)
def test_a_refused_value_is_said_in_one_line(values: dict[str, object], line: str) -> None:
    with pytest.raises(ValidationError) as refused:
        Context(**values)  # type: ignore[arg-type]
    assert refusal_line(refused.value).startswith(line)
    assert "\n" not in refusal_line(refused.value)


def test_an_interface_names_the_field_its_own_way() -> None:
    with pytest.raises(ValidationError) as refused:
        Context(max_seconds=-1)
    assert refusal_line(refused.value, {"max_seconds": "--max-seconds"}) == (
        "--max-seconds must be a number of seconds more than 0"
    )


def test_providers_are_named_by_family_each_once() -> None:
    assert Context(providers=[" Tavily", "arxiv", "tavily"]).providers == ["tavily", "arxiv"]
    assert Context(providers=[]).providers == []  # no search provider: local documents only


def test_the_providers_a_context_may_name_are_those_the_search_offers() -> None:
    from research_assistant.context import PROVIDERS
    from research_assistant.search.providers import provider_choices

    assert tuple(choice.name for choice in provider_choices(Settings())) == PROVIDERS


def test_a_bare_model_name_is_geminis() -> None:
    assert Context(models={"synthesis": " gemini-2.5-pro "}).models == {"synthesis": "google_genai:gemini-2.5-pro"}


@pytest.mark.parametrize(
    "context",
    [
        {"max_sources": 0},
        {"models": {"synthesis": "openai:"}},
        {"source_types": ["local", "intranet"]},
        {"providers": ["google"]},
    ],
)
def test_the_graph_given_its_context_as_json_refuses_what_the_context_refuses(context: dict[str, object]) -> None:
    """LangGraph's server hands the graph its context as JSON; the graph builds the Context from it."""
    with pytest.raises(ValidationError):
        build_graph().invoke({"question": "Q?", "run_id": "r1"}, context=context)
