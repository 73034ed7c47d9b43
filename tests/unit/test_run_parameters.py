"""A run's parameters have one schema, the `Context`: the CLI, the page and LangGraph's server are refused the
same values by it, and `refusal_line` says what was refused in one line."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from research_assistant.context import Context, refusal_line
from research_assistant.graph import build_graph


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


def test_a_bare_model_name_is_geminis() -> None:
    assert Context(models={"synthesis": " gemini-2.5-pro "}).models == {"synthesis": "google_genai:gemini-2.5-pro"}


@pytest.mark.parametrize(
    "context",
    [{"max_sources": 0}, {"models": {"synthesis": "openai:"}}, {"source_types": ["local", "intranet"]}],
)
def test_the_graph_given_its_context_as_json_refuses_what_the_context_refuses(context: dict[str, object]) -> None:
    """LangGraph's server hands the graph its context as JSON; the graph builds the Context from it."""
    with pytest.raises(ValidationError):
        build_graph().invoke({"question": "Q?", "run_id": "r1"}, context=context)
