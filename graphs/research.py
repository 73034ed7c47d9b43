"""The compiled research graph, for `langgraph.json` (LangGraph Studio, `langgraph dev`).

`python graphs/research.py` redraws `graphs/research.mmd`, the Mermaid diagram
the README shows; a test fails when the diagram no longer matches the graph.
"""

from pathlib import Path

from research_assistant.graph import build_graph

graph = build_graph()


def mermaid() -> str:
    return graph.get_graph(xray=1).draw_mermaid()


if __name__ == "__main__":
    Path(__file__).with_suffix(".mmd").write_text(mermaid(), encoding="utf-8")
