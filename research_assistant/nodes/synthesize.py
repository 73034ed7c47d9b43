"""synthesize: the report, with every citation checked against its evidence, and every quotation of the
rendered report against the text of each source cited for it."""

from __future__ import annotations

from datetime import date
from functools import cache
from typing import Any

from langgraph.runtime import Runtime

from research_assistant.context import Context
from research_assistant.nodes.reasoner_notices import reasoner_notices
from research_assistant.progress import emit
from research_assistant.reading import CACHE_METHOD
from research_assistant.report.attribution import AttributionCheck, enforce_quote_citations
from research_assistant.report.exports import redact
from research_assistant.report.render import render_report
from research_assistant.report.summary import RunSummary
from research_assistant.report.support import UNVERIFIED
from research_assistant.report.verify import verify_report
from research_assistant.schemas import ModelUsage, Notice, QueryAnalysis, ResearchPlan, SourceStatus
from research_assistant.services import services_of
from research_assistant.settings import get_settings
from research_assistant.state import ResearchState


async def synthesize(state: ResearchState, runtime: Runtime[Context]) -> dict[str, Any]:
    services = services_of(runtime.context)
    reasoner = services.reasoner
    latest = state.assessments[-1] if state.assessments else None
    # A run stopped early (time limit, cancelled) may reach synthesis before analysis or planning finished.
    written = await reasoner.synthesize(
        state.question,
        state.analysis or QueryAnalysis(keywords=[]),
        state.plan or ResearchPlan(sub_questions=[], min_sources=1, min_evidence_per_question=1),
        list(state.evidence.values()),
        list(state.sources.values()),
        latest,
    )
    draft = written.value

    @cache
    def text_of(source_id: str) -> str | None:
        return services.documents.text(source_id)

    report, verification = verify_report(draft, state.evidence, state.sources, text_of)
    # A citation taken off a quotation is one more citation checked that did not check out.
    checked = verification.checked + verification.misattributed
    removed = verification.removed + verification.misattributed
    notices = [*state.notices, *reasoner_notices(runtime, "synthesize", written)]
    spent = written.usage  # with what a step cut short (by the time limit) had spent
    sources = list(state.sources.values())
    summary = RunSummary(
        depth=runtime.context.depth.value,
        sources_read=sum(1 for s in sources if s.status is SourceStatus.READ),
        sources_failed=sum(1 for s in sources if s.status is SourceStatus.FAILED),
        sources_cached=sum(1 for s in sources if s.status is SourceStatus.READ and s.access_method == CACHE_METHOD),
        evidence_count=len(state.evidence),
        confidence=latest.confidence if latest else 0.0,
        iterations=state.iteration,
        stop_reason=state.stop_reason,
        reasoner=reasoner.name,
        generated=date.today().isoformat(),
        model_usage=_asked(state.spent + spent),
    )
    read = {s.locator: s.id for s in sources if s.status is SourceStatus.READ}

    def rendered(removed: int, checked: int) -> tuple[str, AttributionCheck, list[str]]:
        """The report as Markdown with every quotation cited only to sources that hold it (the final check),
        and the ids of the sources it cites, in the order of their numbers."""
        caveats = [*notices, *_removals(removed, checked)]
        markdown, cited = render_report(
            report, state.sources, state.evidence, runtime.context.citation_style, notices=caveats, metadata=summary
        )
        locators = {number: state.sources[source_id].locator for number, source_id in enumerate(cited, 1)}
        checked_markdown, attribution = enforce_quote_citations(
            markdown, lambda locator: text_of(read[locator]) if locator in read else None, locators
        )
        return checked_markdown, attribution, cited

    markdown, attribution, cited = rendered(removed, checked)
    if attribution.removed:  # render again, so that the caveat counts them; the check takes off the same ones
        checked, removed = checked + attribution.removed, removed + attribution.removed
        markdown, attribution, cited = rendered(removed, checked)
    notices += _removals(removed, checked)
    markdown = redact(markdown, get_settings().secret_values())
    judged = await reasoner.evaluate_report(state.question, markdown)
    evaluation = judged.value
    if judged.usage.roles:  # the closing usage line counts the judge's scoring too, as `show` does
        spent += judged.usage
        summary = summary.model_copy(update={"model_usage": _asked(state.spent + spent)})
        markdown = redact(rendered(removed, checked)[0], get_settings().secret_values())
    unverified = len({f.text for f in report.statements() if UNVERIFIED in f.text})  # distinct statements marked
    emit(
        runtime,
        "synthesize",
        f"report with {len(report.key_findings)} key findings; {checked} citations checked, {removed} removed"
        + (
            f"; {unverified} {'statement' if unverified == 1 else 'statements'} marked {UNVERIFIED}"
            if unverified
            else ""
        ),
        findings=len(report.key_findings),
        removed=removed,
        unverified=unverified,
    )
    notices += reasoner_notices(runtime, "synthesize", judged)
    return {
        "report": report,
        "report_markdown": markdown,
        "cited_sources": cited,
        "notices": notices,
        "evaluation": evaluation,
        "model_usage": {"synthesize": spent} if spent.roles else {},
    }


def _asked(spent: ModelUsage) -> ModelUsage | None:
    """The run's model usage so far, for the closing usage line; None when no model was asked."""
    return spent if spent.calls else None


def _removals(removed: int, checked: int) -> list[Notice]:
    """The caveat that says how many citations were taken out, when any were."""
    if not removed:
        return []
    return [Notice(message=f"{removed} of {checked} citations did not check out and were removed")]
