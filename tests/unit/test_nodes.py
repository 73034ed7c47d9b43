"""Each node on its own, with fake services."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest
from langgraph.runtime import Runtime
from support.fakes import (
    TRAM_DOCUMENTS,
    FakeDocuments,
    FakeReader,
    FakeReasoner,
    fake_context,
    fake_services,
    make_document,
)

from research_assistant.context import PROFILES, QUESTION_EVIDENCE_EXTRA, Context, Depth
from research_assistant.nodes import browse
from research_assistant.nodes.analyze import analyze_query
from research_assistant.nodes.browse import build_browse_graph
from research_assistant.nodes.evaluate import evaluate_progress, stop_reason
from research_assistant.nodes.extract import evidence_in, extract, select_evidence
from research_assistant.nodes.plan import plan_strategy, queries_of
from research_assistant.nodes.routing import route_after_evaluation
from research_assistant.nodes.search import build_search_graph
from research_assistant.reasoning.base import Step
from research_assistant.schemas import (
    Evidence,
    Passage,
    ProgressAssessment,
    QueryAnalysis,
    ResearchPlan,
    SearchQuery,
    SourceRecord,
    SourceStatus,
    SourceType,
    SubQuestion,
)
from research_assistant.services import Services
from research_assistant.state import ResearchState

FARES, HISTORY, DEPOT = TRAM_DOCUMENTS
PLAN = ResearchPlan(
    sub_questions=[SubQuestion(id="q1", text="What is the tram fare?", queries=["tram fare", "Tram  FARE", "fare"])],
    min_sources=1,
    min_evidence_per_question=1,
)


def runtime(context: Context) -> Runtime[Context]:
    return Runtime(context=context)


def read_source(document: object, status: SourceStatus = SourceStatus.READ) -> SourceRecord:
    return SourceRecord(
        id=document.source_id,  # type: ignore[attr-defined]
        locator=document.locator,  # type: ignore[attr-defined]
        title=document.title,  # type: ignore[attr-defined]
        provider="fake",
        status=status,
    )


async def test_analyze_query_normalizes_the_question_and_starts_the_clock() -> None:
    context = fake_context(fake_services())
    update = await analyze_query(ResearchState(question="  What is   the tram fare? "), runtime(context))
    assert update["question"] == "What is the tram fare?"
    assert isinstance(update["analysis"], QueryAnalysis)
    assert update["started_at"] > 0


async def test_analyze_query_refuses_an_empty_question() -> None:
    with pytest.raises(ValueError, match="empty"):
        await analyze_query(ResearchState(question="   "), runtime(fake_context(fake_services())))


def test_queries_of_a_plan_are_distinct_ignoring_case_and_spacing() -> None:
    assert [q.text for q in queries_of(PLAN)] == ["tram fare", "fare"]


async def test_plan_strategy_queues_the_plans_queries() -> None:
    reasoner = FakeReasoner(sub_questions=["What is the tram fare?", "When did the network open?"])
    state = ResearchState(question="q", analysis=QueryAnalysis(keywords=["tram"]))
    update = await plan_strategy(state, runtime(fake_context(fake_services(reasoner))))
    assert len(update["plan"].sub_questions) == 2
    assert [q.sub_question_id for q in update["pending_queries"]] == ["q1", "q2"]


async def test_search_runs_each_new_query_once_and_respects_the_source_budget() -> None:
    services = fake_services()
    context = fake_context(services, max_sources=2)
    state = {
        "question": "q",
        "search_history": ["tram fare"],
        "pending_queries": [
            SearchQuery(text="Tram fare", sub_question_id="q1"),
            SearchQuery(text="tram depot", sub_question_id="q1"),
        ],
    }
    out = await build_search_graph().ainvoke(state, context=context)
    assert services.providers[0].queries == ["tram depot"]  # type: ignore[attr-defined]
    assert out["search_history"] == ["tram fare", "tram depot"]
    assert len(out["to_browse"]) == 2
    assert out["to_browse"][0] == DEPOT.source_id  # the best match for "tram depot"


async def test_search_never_reads_a_known_source_again() -> None:
    services = fake_services()
    known = read_source(FARES)
    state = {
        "question": "q",
        "sources": {known.id: known},
        "pending_queries": [SearchQuery(text="tram fare", sub_question_id="q1")],
    }
    out = await build_search_graph().ainvoke(state, context=fake_context(services))
    assert FARES.source_id not in out["to_browse"]
    assert out["sources"][FARES.source_id].status is SourceStatus.READ


async def test_a_failing_provider_becomes_a_notice_not_a_crash() -> None:
    services = fake_services(failing_provider=True)
    state = {"question": "q", "pending_queries": [SearchQuery(text="tram fare", sub_question_id="q1")]}
    out = await build_search_graph().ainvoke(state, context=fake_context(services))
    assert out["to_browse"] == []
    assert any("backend unavailable" in notice.message for notice in out["notices"])


async def test_browse_reads_each_source_and_records_failures_with_their_reason() -> None:
    services = fake_services(broken={HISTORY.locator})
    sources = {d.source_id: read_source(d, SourceStatus.FOUND) for d in TRAM_DOCUMENTS}
    state = {"question": "q", "sources": sources, "to_browse": list(sources)}
    out = await build_browse_graph().ainvoke(state, context=fake_context(services))
    assert out["sources"][FARES.source_id].status is SourceStatus.READ
    assert out["sources"][FARES.source_id].accessed_at == "2026-11-21"
    failed = out["sources"][HISTORY.source_id]
    assert failed.status is SourceStatus.FAILED and failed.reason == "the file is unreadable"


async def test_a_web_page_still_loading_when_the_round_closes_is_left_unread_and_the_others_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Hanging(FakeReader):
        async def read(self, source: SourceRecord, *, run_id: str = "", refresh: bool = False) -> Any:
            if source.id == DEPOT.source_id:
                await asyncio.Event().wait()  # never answers
            return await super().read(source, run_id=run_id, refresh=refresh)

    monkeypatch.setattr(browse, "ROUND_READ_SECONDS", 0.05)
    services = comparing(fake_services())
    local = services.readers[SourceType.LOCAL]
    services.readers[SourceType.WEB] = Hanging(local.documents)  # type: ignore[attr-defined]
    sources = {
        d.source_id: read_source(d, SourceStatus.FOUND).model_copy(update={"source_type": SourceType.WEB})
        for d in (FARES, DEPOT)
    }
    state = {"question": "q", "plan": PLAN, "sources": sources, "to_browse": list(sources)}
    out = await build_browse_graph().ainvoke(state, context=fake_context(services))
    late = out["sources"][DEPOT.source_id]
    assert late.status is SourceStatus.FAILED
    assert late.reason == "still loading after 0.05 s; left unread so the round could close"
    assert out["sources"][FARES.source_id].status is SourceStatus.READ
    assert {e.source_id for e in out["found"].values()} == {FARES.source_id}


async def test_browse_with_nothing_to_read_reads_nothing() -> None:
    services = fake_services()
    await build_browse_graph().ainvoke({"question": "q"}, context=fake_context(services))
    assert services.readers[next(iter(services.readers))].reads == []  # type: ignore[attr-defined]


async def test_extract_reads_only_this_rounds_sources() -> None:
    services = fake_services()
    sources = {FARES.source_id: read_source(FARES), DEPOT.source_id: read_source(DEPOT)}
    state = ResearchState(question="q", plan=PLAN, sources=sources, to_browse=[FARES.source_id])
    update = await extract(state, runtime(fake_context(services)))
    assert {e.source_id for e in update["evidence"].values()} == {FARES.source_id}
    assert services.repository.calls == [("What is the tram fare?", (FARES.source_id,))]  # type: ignore[attr-defined]


async def test_extract_drops_quotes_that_are_not_in_the_passage() -> None:
    class Inventing(FakeReasoner):
        async def extract(
            self,
            question: str,
            sub_question: SubQuestion,
            passages: list[Passage],
            limit: int,
            analysis: QueryAnalysis | None = None,
        ) -> Step[list[Evidence]]:
            real = await super().extract(question, sub_question, passages, limit, analysis)
            fake = Evidence(
                id="E-x",
                claim="Trams are free",
                quote="Trams are free",
                source_id=FARES.source_id,
                sub_question_id="q1",
            )
            return Step([*real.value, fake])

    services = fake_services(Inventing())
    state = ResearchState(
        question="q", plan=PLAN, sources={FARES.source_id: read_source(FARES)}, to_browse=[FARES.source_id]
    )
    update = await extract(state, runtime(fake_context(services)))
    assert [e.quote for e in update["evidence"].values()] == ["A single tram fare costs 2.40 euros"]


def as_page(document: object, status: SourceStatus = SourceStatus.FOUND) -> SourceRecord:
    return read_source(document, status).model_copy(update={"source_type": SourceType.WEB})


def with_web_reader(services: Services) -> Services:
    services.readers[SourceType.WEB] = services.readers[SourceType.LOCAL]
    return services


def comparing(services: Services) -> Services:
    """Services whose reasoner's scores compare across calls, as a model's do."""
    services.reasoner.comparable_scores = True  # type: ignore[misc]
    return services


async def test_browse_finds_each_pages_evidence_in_that_page_alone_and_leaves_local_files_to_extract() -> None:
    services = comparing(with_web_reader(fake_services()))
    sources = {
        FARES.source_id: as_page(FARES),
        DEPOT.source_id: as_page(DEPOT),
        HISTORY.source_id: read_source(HISTORY, SourceStatus.FOUND),
    }
    state = {"question": "q", "plan": PLAN, "sources": sources, "to_browse": list(sources)}
    out = await build_browse_graph().ainvoke(state, context=fake_context(services))
    assert {e.source_id for e in out["found"].values()} == {FARES.source_id, DEPOT.source_id}
    assert sorted(services.repository.calls) == sorted(  # type: ignore[attr-defined]
        ("What is the tram fare?", (source_id,)) for source_id in (FARES.source_id, DEPOT.source_id)
    )


async def test_extract_keeps_only_this_rounds_evidence_from_pages() -> None:
    def found_in(document: object) -> Evidence:
        source_id = document.source_id  # type: ignore[attr-defined]
        return Evidence(id=f"E-{source_id}", claim="c", quote="q", source_id=source_id, sub_question_id="q1")

    sources = {d.source_id: as_page(d, SourceStatus.READ) for d in (FARES, DEPOT)}
    found = {item.id: item for item in (found_in(FARES), found_in(DEPOT))}
    state = ResearchState(question="q", plan=PLAN, sources=sources, found=found, to_browse=[FARES.source_id])
    update = await extract(state, runtime(fake_context(comparing(fake_services()))))
    assert {e.source_id for e in update["evidence"].values()} == {FARES.source_id}


async def test_a_rounds_pages_and_local_files_share_the_depths_evidence_per_sub_question() -> None:
    page = Evidence(id="E-p", claim="p", quote="p", source_id=DEPOT.source_id, sub_question_id="q1", score=0.99)
    sources = {FARES.source_id: read_source(FARES), DEPOT.source_id: as_page(DEPOT, SourceStatus.READ)}
    state = ResearchState(question="q", plan=PLAN, sources=sources, found={page.id: page}, to_browse=list(sources))
    update = await extract(state, runtime(fake_context(comparing(fake_services()))))
    assert [e.source_id for e in update["evidence"].values()] == [DEPOT.source_id, FARES.source_id]


async def test_without_comparable_scores_the_round_ranks_its_pages_and_files_together_again() -> None:
    services = fake_services()
    page = Evidence(id="E-p", claim="p", quote="p", source_id=DEPOT.source_id, sub_question_id="q1", score=0.99)
    sources = {FARES.source_id: read_source(FARES), DEPOT.source_id: as_page(DEPOT, SourceStatus.READ)}
    state = ResearchState(question="q", plan=PLAN, sources=sources, found={page.id: page}, to_browse=list(sources))
    update = await extract(state, runtime(fake_context(services)))
    assert "E-p" not in update["evidence"], "a page's own ranking does not decide what is kept"
    assert services.repository.calls == [  # type: ignore[attr-defined]
        ("What is the tram fare?", (FARES.source_id, DEPOT.source_id))
    ]


async def test_evidence_whose_quote_is_not_in_the_passage_is_dropped_from_a_page() -> None:
    class Inventing(FakeReasoner):
        async def extract(
            self,
            question: str,
            sub_question: SubQuestion,
            passages: list[Passage],
            limit: int,
            analysis: QueryAnalysis | None = None,
        ) -> Step[list[Evidence]]:
            real = await super().extract(question, sub_question, passages, limit, analysis)
            fake = Evidence(
                id="E-x",
                claim="Trams are free",
                quote="Trams are free",
                source_id=FARES.source_id,
                sub_question_id="q1",
            )
            return Step([*real.value, fake])

    context = fake_context(fake_services(Inventing()))
    found = await evidence_in([FARES.source_id], "q", PLAN.sub_questions, None, context)
    assert [e.quote for e in found.value] == ["A single tram fare costs 2.40 euros"]


async def test_a_definition_question_reads_the_glossary_entry_of_its_term() -> None:
    """Retrieval ranks chunks by the question's words, which a glossary entry rarely shares beyond its term."""
    glossary = make_document(
        "/corpus/glossary.md",
        "Terms used in this guide.\n\nbogie\n\nThe wheeled frame under each end of a tram car.\n\n"
        "depot\n\nWhere trams are kept and maintained.",
        "Glossary",
    )

    services = fake_services()
    services.documents = FakeDocuments({**services.documents.documents, glossary.source_id: glossary})  # type: ignore[attr-defined]
    question = SubQuestion(id="q1", text="When the manual talks about trams, what exactly is a Bogie?")
    found = await evidence_in([glossary.source_id], question.text, [question], None, fake_context(services))
    assert "bogie\n\nThe wheeled frame under each end of a tram car." in [e.quote for e in found.value]


async def test_only_a_question_that_is_a_definition_reads_the_sections_its_term_heads() -> None:
    """A plan's 'What is a depot?' beside a yes-or-no question would otherwise read every section that opens with
    the word, and on a manual that is every page that opens with the product's name."""
    yard = make_document(
        "/corpus/yard.md", "Depot of the North Line\n\nThe northern yard where trams sleep overnight.", "Yard"
    )
    services = fake_services()  # its reasoner quotes each passage it is given
    services.documents = FakeDocuments({**services.documents.documents, yard.source_id: yard})  # type: ignore[attr-defined]
    definition = SubQuestion(id="q1", text="What is a depot?")
    for question, heading_read in (("What is a depot?", True), ("Is the depot open at night?", False)):
        found = await evidence_in([yard.source_id], question, [definition], None, fake_context(services))
        quoted = [e.quote for e in found.value]
        assert any(quote.startswith("Depot of the North Line") for quote in quoted) is heading_read, question


def scored(source_id: str, score: float, sub_question_id: str = "q1", claim: str = "") -> Evidence:
    claim = claim or f"{source_id} {score}"
    return Evidence(
        id=f"E-{claim}", claim=claim, quote=claim, source_id=source_id, sub_question_id=sub_question_id, score=score
    )


def test_the_round_keeps_the_best_scored_evidence_per_sub_question_from_varied_sources() -> None:
    found = [
        scored("a", 0.9),
        scored("a", 0.8),
        scored("a", 0.7),
        scored("b", 0.75),
        scored("b", 0.2),
        scored("a", 0.5, "q2"),
        scored("b", 0.5, "q2", claim="a 0.5"),  # the same claim from another source is kept once
    ]
    order = {"a": 0, "b": 1}
    kept = select_evidence(found, order, {"q1": 0, "q2": 1}, lambda _: 3)
    # 0.8 * 0.85 (a second item from a) = 0.68 < 0.75: b's best comes second; then a's 0.8 beats 0.7.
    assert [e.claim for e in kept] == ["a 0.9", "b 0.75", "a 0.8", "a 0.5"]
    again = select_evidence(list(reversed(found)), order, {"q1": 0, "q2": 1}, lambda _: 3)
    assert again == kept  # arrival order is moot


def test_the_round_keeps_as_many_as_the_reasoner_gave_one_source_when_that_is_more() -> None:
    found = [scored("a", 0.1 * i) for i in range(5, 0, -1)]
    assert len(select_evidence(found, {"a": 0}, {"q1": 0}, lambda _: 2)) == 5


def test_the_question_itself_keeps_more_evidence_than_the_other_sub_questions() -> None:
    profile = PROFILES[Depth.STANDARD]
    assert profile.evidence_limit(0) == profile.evidence_per_sub_question + QUESTION_EVIDENCE_EXTRA
    found = [scored(source, 0.9 - 0.01 * i, sub) for sub in ("q1", "q2") for i, source in enumerate("abcdefgh")]
    kept = select_evidence(found, {s: i for i, s in enumerate("abcdefgh")}, {"q1": 0, "q2": 1}, profile.evidence_limit)
    assert Counter(e.sub_question_id for e in kept) == {
        "q1": profile.evidence_limit(0),
        "q2": profile.evidence_limit(1),
    }


def evaluation_state(**fields: object) -> ResearchState:
    return ResearchState(question="q", plan=PLAN, started_at=10**10, **fields)  # type: ignore[arg-type]


async def test_evaluate_stops_when_confidence_reaches_the_threshold() -> None:
    update = await evaluate_progress(
        evaluation_state(), runtime(fake_context(fake_services(FakeReasoner(confidence=95))))
    )
    assert update["iteration"] == 1
    assert "threshold" in update["stop_reason"]


async def test_evaluate_continues_with_only_queries_never_run() -> None:
    reasoner = FakeReasoner(confidence=10, new_queries=["tram fare", "tram fare zones", "Tram fare zones"])
    state = evaluation_state(search_history=["tram fare"])
    update = await evaluate_progress(state, runtime(fake_context(fake_services(reasoner), max_iterations=3)))
    assert update["stop_reason"] is None
    assert [q.text for q in update["pending_queries"]] == ["tram fare zones"]


async def test_evaluate_stops_when_nothing_new_is_left_to_search() -> None:
    reasoner = FakeReasoner(confidence=10, new_queries=["tram fare"])
    state = evaluation_state(search_history=["tram fare"])
    update = await evaluate_progress(state, runtime(fake_context(fake_services(reasoner), max_iterations=3)))
    assert update["stop_reason"] == "no new queries left to try"


async def test_evaluate_stops_at_the_iteration_limit() -> None:
    reasoner = FakeReasoner(confidence=10, new_queries=["something new"])
    update = await evaluate_progress(
        evaluation_state(iteration=2), runtime(fake_context(fake_services(reasoner), max_iterations=3))
    )
    assert update["stop_reason"] == "iteration limit reached (3)"


async def test_evaluate_stops_at_the_time_limit() -> None:
    reasoner = FakeReasoner(confidence=10, new_queries=["something new"])
    state = ResearchState(question="q", plan=PLAN, started_at=1.0)
    update = await evaluate_progress(
        state, runtime(fake_context(fake_services(reasoner), max_iterations=3, max_seconds=5))
    )
    assert update["stop_reason"].startswith("time limit")


def test_router_loops_until_a_stop_reason_is_set() -> None:
    assert route_after_evaluation(ResearchState(question="q")) == "search"
    assert route_after_evaluation(ResearchState(question="q", stop_reason="done")) == "synthesize"


async def test_synthesize_drops_a_citation_that_does_not_check_out_and_says_so() -> None:
    from research_assistant.nodes.synthesize import synthesize
    from research_assistant.schemas import Finding, ResearchReport

    class Misquoting(FakeReasoner):
        async def synthesize(self, *args: object, **kwargs: object) -> Step[ResearchReport]:  # type: ignore[override]
            return Step(
                ResearchReport(
                    title="Fares",
                    question="q",
                    key_findings=[
                        Finding(text="A single tram fare costs 2.40 euros", evidence_ids=["E-good"], verbatim=True),
                        Finding(text="Trams are free on Sundays", evidence_ids=["E-bad"], verbatim=True),
                    ],
                )
            )

    def quoting(evidence_id: str, quote: str) -> Evidence:
        return Evidence(id=evidence_id, claim=quote, quote=quote, source_id=FARES.source_id, sub_question_id="q1")

    evidence = {
        "E-good": quoting("E-good", "A single tram fare costs 2.40 euros"),
        "E-bad": quoting("E-bad", "Trams are free on Sundays"),  # not in the fares document
    }
    state = ResearchState(
        question="q",
        analysis=QueryAnalysis(keywords=["fare"]),
        plan=PLAN,
        sources={FARES.source_id: read_source(FARES)},
        evidence=evidence,
        stop_reason="done",
    )
    update = await synthesize(state, runtime(fake_context(fake_services(Misquoting()))))
    markdown = update["report_markdown"]
    assert "“A single tram fare costs 2.40 euros” [1]" in markdown
    assert "Trams are free" not in markdown.split("## Caveats")[0]
    assert any("1 of 2 citations did not check out" in notice.message for notice in update["notices"])


async def test_synthesize_checks_every_rendered_quotation_against_each_source_cited_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from research_assistant.nodes import synthesize as node
    from research_assistant.report.render import RenderedReport
    from research_assistant.schemas import Finding, ResearchReport

    class Quoting(FakeReasoner):
        async def synthesize(self, *args: object, **kwargs: object) -> Step[ResearchReport]:  # type: ignore[override]
            return Step(
                ResearchReport(
                    title="Trams",
                    question="q",
                    key_findings=[
                        Finding(text="A single tram fare costs 2.40 euros.", evidence_ids=["E-fare"], verbatim=True),
                        Finding(text="The tram network opened in 1911.", evidence_ids=["E-open"], verbatim=True),
                    ],
                )
            )

    render = node.render_report

    def misattributing(*args: Any, **kwargs: Any) -> RenderedReport:  # a renderer bug the final check must catch
        markdown, cited = render(*args, **kwargs)
        return RenderedReport(markdown.replace("\u201d [1]", "\u201d [1][2]", 1), cited)

    monkeypatch.setattr(node, "render_report", misattributing)
    evidence = {
        "E-fare": Evidence(
            id="E-fare",
            claim="fare",
            quote="A single tram fare costs 2.40 euros.",
            source_id=FARES.source_id,
            sub_question_id="q1",
        ),
        "E-open": Evidence(
            id="E-open",
            claim="opened",
            quote="The tram network opened in 1911.",
            source_id=HISTORY.source_id,
            sub_question_id="q1",
        ),
    }
    state = ResearchState(
        question="q",
        plan=PLAN,
        sources={d.source_id: read_source(d) for d in (FARES, HISTORY)},
        evidence=evidence,
        stop_reason="done",
    )
    update = await node.synthesize(state, runtime(fake_context(fake_services(Quoting()))))
    markdown = update["report_markdown"]
    assert "1. \u201cA single tram fare costs 2.40 euros.\u201d [1]\n" in markdown
    assert "[1][2]" not in markdown
    assert "- 1 of 3 citations did not check out and were removed" in markdown  # counted in the caveat
    assert any(n.message == "1 of 3 citations did not check out and were removed" for n in update["notices"])


def test_complete_research_under_the_confidence_threshold_says_so() -> None:
    context = fake_context(fake_services(FakeReasoner(confidence=48)))
    assessment = ProgressAssessment(iteration=1, coverage=[], confidence=48, complete=True)
    reason, queries = stop_reason(evaluation_state(), context, assessment, 1, 0.0)
    assert reason is not None and reason.startswith("completion criteria met, but confidence 48/100")
    assert queries == []


def test_complete_research_under_the_threshold_searches_again_for_the_answer_while_it_can() -> None:
    """Every part has evidence, yet confidence says the answer may not be among it: the reasoner's new queries for
    the question run next round; once none is new, research stops saying why."""
    context = fake_context(fake_services(FakeReasoner(confidence=48)))
    again = [SearchQuery(text="recursion limit default value", sub_question_id="q1")]
    assessment = ProgressAssessment(iteration=1, coverage=[], confidence=48, complete=True, new_queries=again)
    assert stop_reason(evaluation_state(), context, assessment, 1, 0.0) == (None, again)
    ran = evaluation_state(search_history=["recursion limit default value"])
    reason, queries = stop_reason(ran, context, assessment, 1, 0.0)
    assert reason is not None and reason.startswith("completion criteria met, but confidence 48/100")
    assert queries == []
