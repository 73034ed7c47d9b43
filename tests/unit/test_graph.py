"""The compiled graph: its nodes, its committed diagram, and schemas LangGraph tools can read."""

from __future__ import annotations

import importlib.util
from pathlib import Path

GRAPHS = Path(__file__).resolve().parents[2] / "graphs"


def test_the_mermaid_diagram_matches_the_compiled_graph() -> None:
    spec = importlib.util.spec_from_file_location("graphs_research", GRAPHS / "research.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    committed = (GRAPHS / "research.mmd").read_text(encoding="utf-8")
    readme = module.readme_diagram((GRAPHS.parent / "README.md").read_text(encoding="utf-8"))
    redraw = "the graph changed: run `python graphs/research.py` to redraw the diagrams"
    assert module.mermaid() == committed, redraw
    assert module.mermaid() == readme, redraw


def test_the_graph_has_the_pipelines_nodes() -> None:
    from research_assistant.graph import build_graph

    nodes = set(build_graph().get_graph().nodes)
    assert {"analyze_query", "plan_strategy", "search", "browse", "extract", "evaluate_progress", "synthesize"} <= nodes


def test_the_graphs_schemas_are_plain_json_for_langgraph_studio() -> None:
    from research_assistant.graph import build_graph

    graph = build_graph()
    context = graph.get_context_jsonschema()
    assert context is not None
    assert {"depth", "source_types", "corpus_dir", "citation_style", "max_sources"} <= set(context["properties"])
    assert graph.get_input_jsonschema()["required"] == ["question"]
    assert "report_markdown" in graph.get_output_jsonschema()["properties"]
