"""The research graph.

analyze_query -> plan_strategy -> review_plan -> search => browse => extract
-> evaluate_progress -> (search again | synthesize). `review_plan` pauses the
run for the analyst when the run asks for it, and passes straight on
otherwise. `search` and `browse` are compiled subgraphs that fan out one task
per query and one per source with `Send`.
"""

from __future__ import annotations

from typing import Any

from research_assistant.deferred import defer_library_inits

defer_library_inits()  # before LangGraph is imported: it would run packages' `__init__` that no run needs

from langgraph.checkpoint.base import BaseCheckpointSaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.graph.state import CompiledStateGraph  # noqa: E402

from research_assistant.context import HARD_MAX_ITERATIONS, Context  # noqa: E402
from research_assistant.nodes.analyze import analyze_query  # noqa: E402
from research_assistant.nodes.browse import build_browse_graph  # noqa: E402
from research_assistant.nodes.evaluate import evaluate_progress  # noqa: E402
from research_assistant.nodes.extract import extract  # noqa: E402
from research_assistant.nodes.plan import plan_strategy  # noqa: E402
from research_assistant.nodes.review import review_plan  # noqa: E402
from research_assistant.nodes.routing import route_after_evaluation  # noqa: E402
from research_assistant.nodes.search import build_search_graph  # noqa: E402
from research_assistant.nodes.synthesize import synthesize  # noqa: E402
from research_assistant.state import InputState, OutputState, ResearchState  # noqa: E402

RECURSION_LIMIT = 8 + 4 * HARD_MAX_ITERATIONS
"""Supersteps a run may take: setup and synthesis plus four per round, for the most rounds any run may do."""


def build_graph(checkpointer: BaseCheckpointSaver[Any] | None = None) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The research graph, saving its checkpoints with `checkpointer` (None: none, or a parent's).

    Compiled anew for each caller: a compiled graph shared by the runs of a process, each with a copy bound to
    its own checkpointer, left a cancelled run's checkpoint database locked for the run that resumed it.
    """
    builder = StateGraph(ResearchState, context_schema=Context, input_schema=InputState, output_schema=OutputState)
    builder.add_node("analyze_query", analyze_query)
    builder.add_node("plan_strategy", plan_strategy)
    builder.add_node("review_plan", review_plan)
    builder.add_node("search", build_search_graph())
    builder.add_node("browse", build_browse_graph())
    builder.add_node("extract", extract)
    builder.add_node("evaluate_progress", evaluate_progress)
    builder.add_node("synthesize", synthesize)
    builder.add_edge(START, "analyze_query")
    builder.add_edge("analyze_query", "plan_strategy")
    builder.add_edge("plan_strategy", "review_plan")
    builder.add_edge("review_plan", "search")
    builder.add_edge("search", "browse")
    builder.add_edge("browse", "extract")
    builder.add_edge("extract", "evaluate_progress")
    builder.add_conditional_edges("evaluate_progress", route_after_evaluation, ["search", "synthesize"])
    builder.add_edge("synthesize", END)
    graph = builder.compile(checkpointer=checkpointer, name="research")
    return graph.with_config(recursion_limit=RECURSION_LIMIT)
