"""synthesize: the report, with every citation checked against its evidence."""

from __future__ import annotations

from datetime import date
from typing import Any

from langgraph.runtime import Runtime

from research_assistant.context import Context
from research_assistant.nodes.reasoner_notices import reasoner_notices
from research_assistant.progress import emit
from research_assistant.reading import CACHE_METHOD
from research_assistant.report.exports import redact
from research_assistant.report.render import render_markdown
from research_assistant.report.summary import RunSummary
from research_assistant.report.verify import verify_report
from research_assistant.schemas import Notice, QueryAnalysis, ResearchPlan, SourceStatus
from research_assistant.services import services_for
from research_assistant.settings import get_settings
from research_assistant.state import ResearchState


async def synthesize(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    services = services_for(runtime.context)
    latest = state.assessments[-1] if state.assessments else None
    # A run stopped early (time limit, cancelled) may reach synthesis before analysis or planning finished.
    draft = await services.reasoner.synthesize(
        state.question,
        state.analysis or QueryAnalysis(keywords=[]),
        state.plan or ResearchPlan(sub_questions=[], min_sources=1, min_evidence_per_question=1),
        list(state.evidence.values()),
        list(state.sources.values()),
        latest,
    )
    report, verification = verify_report(draft, state.evidence, state.sources, services.documents.text)
    notices = [*state.notices, *reasoner_notices(runtime, "synthesize", services)]
    if verification.removed:
        notices.append(
            Notice(
                message=f"{verification.removed} of {verification.checked} citations did not check out and were removed"
            )
        )
    sources = list(state.sources.values())
    usage = getattr(services.reasoner, "usage", None)
    spent = usage() if usage is not None else None
    summary = RunSummary(
        depth=runtime.context.depth.value,
        sources_read=sum(1 for s in sources if s.status is SourceStatus.READ),
        sources_failed=sum(1 for s in sources if s.status is SourceStatus.FAILED),
        sources_cached=sum(1 for s in sources if s.status is SourceStatus.READ and s.access_method == CACHE_METHOD),
        evidence_count=len(state.evidence),
        confidence=latest.confidence if latest else 0.0,
        iterations=state.iteration,
        stop_reason=state.stop_reason,
        reasoner=services.reasoner.name,
        generated=date.today().isoformat(),
        model_tokens=spent.input_tokens + spent.output_tokens if spent else None,
        model_cost_usd=spent.cost_usd if spent else None,
    )
    markdown = render_markdown(
        report, state.sources, state.evidence, runtime.context.citation_style, notices=notices, metadata=summary
    )
    markdown = redact(markdown, get_settings().secret_values())
    judge = getattr(services.reasoner, "evaluate_report", None)
    evaluation = await judge(state.question, markdown) if judge is not None else None
    emit(
        runtime,
        "synthesize",
        f"report with {len(report.key_findings)} key findings; {verification.checked} citations checked, "
        f"{verification.removed} removed",
        findings=len(report.key_findings),
        removed=verification.removed,
    )
    notices += reasoner_notices(runtime, "synthesize", services)
    return {"report": report, "report_markdown": markdown, "notices": notices, "evaluation": evaluation}
