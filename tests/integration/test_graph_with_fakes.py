"""The compiled graph end to end with fake services: wiring, looping, stopping."""

from __future__ import annotations

from support.fakes import TRAM_DOCUMENTS, FakeReasoner, fake_context, fake_services

from research_assistant.graph import build_graph
from research_assistant.report.verify import check_rendered_citations, parse_sources
from research_assistant.schemas import SourceStatus


async def test_a_confident_run_goes_straight_through_to_a_cited_report() -> None:
    reasoner = FakeReasoner(confidence=95)
    result = await build_graph().ainvoke(
        {"question": "What is the tram fare?"}, context=fake_context(fake_services(reasoner))
    )
    assert reasoner.calls[:2] == ["analyze", "plan"]
    assert reasoner.calls.count("evaluate") == 1 and reasoner.calls[-1] == "synthesize"
    assert "threshold" in result["stop_reason"]
    markdown = result["report_markdown"]
    number = parse_sources(markdown)
    fares = next(n for n, locator in number.items() if locator == "/corpus/fares.md")
    assert f"“A single tram fare costs 2.40 euros” [{fares}]" in markdown
    assert check_rendered_citations(markdown, {d.locator: d.text for d in TRAM_DOCUMENTS}) == []


async def test_the_research_loop_ends_at_the_iteration_limit_even_if_the_reasoner_never_is_satisfied() -> None:
    class Insatiable(FakeReasoner):
        async def evaluate(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            self.new_queries = [f"tram query {len(self.calls)}"]
            return await super().evaluate(*args, **kwargs)

    reasoner = Insatiable(confidence=5)
    services = fake_services(reasoner)
    result = await build_graph().ainvoke(
        {"question": "What is the tram fare?"}, context=fake_context(services, max_iterations=4)
    )
    assert reasoner.calls.count("evaluate") == 4
    assert result["stop_reason"] == "iteration limit reached (4)"
    queries = services.providers[0].queries  # type: ignore[attr-defined]
    assert len(queries) == len(set(queries))  # no query ran twice


async def test_a_source_that_fails_to_read_is_reported_and_the_run_goes_on() -> None:
    broken = TRAM_DOCUMENTS[0].locator
    services = fake_services(FakeReasoner(confidence=95, sub_questions=["tram fare network depot"]), broken={broken})
    result = await build_graph().ainvoke({"question": "tram fare network depot"}, context=fake_context(services))
    failed = [s for s in result["sources"].values() if s.status is SourceStatus.FAILED]
    assert [s.locator for s in failed] == [broken]
    assert result["evidence"] and all(e.source_id != failed[0].id for e in result["evidence"].values())
