"""analyze_query: what the question is about and what kind of answer it wants."""

from __future__ import annotations

import time
import uuid
from typing import Any

from langgraph.runtime import Runtime

from research_assistant.context import Context
from research_assistant.nodes.reasoner_notices import reasoner_notices, usage_of
from research_assistant.progress import emit
from research_assistant.services import services_of
from research_assistant.state import ResearchState


async def analyze_query(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    question = " ".join(state.question.split())
    if not question:
        raise ValueError("the question is empty")
    services = services_of(runtime.context)
    step = await services.reasoner.analyze(question)
    analysis = step.value
    emit(
        runtime,
        "analyze_query",
        f"{analysis.query_type.value} question; keywords: {', '.join(analysis.keywords[:5]) or 'none'}",
        keywords=len(analysis.keywords),
        entities=len(analysis.entities),
    )
    return {
        "question": question,
        "analysis": analysis,
        "run_id": state.run_id or uuid.uuid4().hex[:12],
        "started_at": time.time(),
        "notices": [*services.notices, *reasoner_notices(runtime, "analyze_query", step)],
        "model_usage": usage_of(step, "analyze_query"),
    }
