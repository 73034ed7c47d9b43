"""The compiled research graph, for `langgraph.json` (LangGraph Studio, `langgraph dev`).

`python graphs/research.py` redraws `graphs/research.mmd` and the copy of that
Mermaid diagram in the README; a test fails when either no longer matches.
"""

import re
from pathlib import Path

from research_assistant.graph import build_graph

graph = build_graph()


README = Path(__file__).resolve().parents[1] / "README.md"
README_DIAGRAM = re.compile(r"(```mermaid\n)(.*?)(```)", re.DOTALL)


def mermaid() -> str:
    return graph.get_graph(xray=1).draw_mermaid()


def readme_diagram(readme: str) -> str:
    """The Mermaid diagram in the README's architecture section."""
    match = README_DIAGRAM.search(readme)
    return match.group(2) if match else ""


if __name__ == "__main__":
    diagram = mermaid()
    Path(__file__).with_suffix(".mmd").write_text(diagram, encoding="utf-8")
    readme = README.read_text(encoding="utf-8")
    README.write_text(
        README_DIAGRAM.sub(lambda m: m.group(1) + diagram + m.group(3), readme, count=1), encoding="utf-8"
    )
