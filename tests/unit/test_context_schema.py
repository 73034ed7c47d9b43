"""What LangGraph Studio shows of a run's parameters: every field of the context says what it means."""

from __future__ import annotations

from research_assistant.graph import build_graph


def test_every_context_field_has_a_description_in_the_json_schema() -> None:
    schema = build_graph().get_context_jsonschema()
    assert schema is not None
    undescribed = [name for name, field in schema["properties"].items() if not field.get("description")]
    assert undescribed == []
