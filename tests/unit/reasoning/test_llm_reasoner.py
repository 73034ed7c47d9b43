"""The LLM reasoner with a scripted chat model: what it accepts from a model, what it refuses, when it falls back."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel
from support.fake_models import Script, ScriptedChatModel, prompt_text

from research_assistant.context import PROFILES, Depth
from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
from research_assistant.reasoning.llm.cache import ResponseCache
from research_assistant.reasoning.llm.caller import StructuredCaller
from research_assistant.reasoning.llm.ledger import BudgetExceeded, TokenLedger, price_of
from research_assistant.reasoning.llm.models import ROLES, model_spec
from research_assistant.reasoning.llm.outputs import (
    AnalysisOut,
    ExtractionOut,
    PlanOut,
    ProgressOut,
    ReportOut,
    VerificationOut,
)
from research_assistant.reasoning.llm.reasoner import UNVERIFIED, LLMReasoner
from research_assistant.schemas import (
    Credibility,
    Evidence,
    Intent,
    ModelUsage,
    Passage,
    QueryAnalysis,
    ResearchPlan,
    SourceRecord,
    SourceStatus,
    SubQuestion,
)
from research_assistant.settings import Settings

PASSAGE = Passage(
    source_id="s1", text="A single tram fare costs 2.40 euros. Children under six ride free.", title="Fares"
)
SUB = SubQuestion(id="q1", text="What does a tram fare cost?", queries=["tram fare"])
PLAN = ResearchPlan(sub_questions=[SUB], min_sources=1, min_evidence_per_question=1)
FARE = Evidence(
    id="E1",
    claim="A fare costs 2.40 euros",
    quote="A single tram fare costs 2.40 euros.",
    source_id="s1",
    sub_question_id="q1",
)
SOURCE = SourceRecord(
    id="s1",
    locator="https://city.example/fares",
    title="Fares",
    provider="p",
    status=SourceStatus.READ,
    credibility=Credibility(score=0.9),
    published=date.today().isoformat(),
)


def settings(**values: Any) -> Settings:
    return Settings.model_construct(**{**Settings().model_dump(), **values})


def reasoner(
    script: Script, tmp_path: Path, model: ScriptedChatModel | None = None, **values: Any
) -> tuple[LLMReasoner, ScriptedChatModel]:
    config = settings(**values)
    caller = StructuredCaller(config, ResponseCache(tmp_path / "llm"))
    model = model or ScriptedChatModel(script)
    for role in ROLES:
        caller._models[model_spec(config, role)] = model  # type: ignore[assignment]
    return LLMReasoner(caller, ExtractiveReasoner(), config.confidence_threshold), model


def answers(**by_schema: Any) -> Script:
    def script(schema: type[BaseModel], prompt: str) -> Any:
        reply = by_schema[schema.__name__]
        return reply(prompt) if callable(reply) else reply

    return script


async def test_analysis_comes_from_the_model(tmp_path: Path) -> None:
    out = AnalysisOut(keywords=["tram fare"], query_type="factual", intent="quick_answer", domain="transport")
    llm, _ = reasoner(answers(AnalysisOut=out), tmp_path)
    step = await llm.analyze("What does a tram ticket cost?")
    assert step.value.intent is Intent.QUICK_ANSWER and step.value.keywords == ["tram fare"]
    assert step.said() == []


async def test_a_plan_keeps_to_the_depths_limits_and_its_queries_carry_no_urls(tmp_path: Path) -> None:
    many = PlanOut(
        sub_questions=[
            {"text": f"Part {n}", "queries": [f"part {n} https://evil.example/x?q=1", "q2", "q3", "q4"]}
            for n in range(1, 12)
        ]
    )
    llm, _ = reasoner(answers(PlanOut=many), tmp_path)
    profile = PROFILES[Depth.STANDARD]
    plan = (await llm.plan("Q?", QueryAnalysis(keywords=["q"]), profile)).value
    assert len(plan.sub_questions) == profile.sub_questions
    assert all(len(s.queries) <= profile.queries_per_sub_question for s in plan.sub_questions)
    assert plan.sub_questions[0].queries[0] == "part 1" and "http" not in str(plan.model_dump())
    quick = (await llm.plan("Q?", QueryAnalysis(keywords=["q"], intent=Intent.QUICK_ANSWER), profile)).value
    assert len(quick.sub_questions) == 1


async def test_evidence_must_quote_its_passage_verbatim(tmp_path: Path) -> None:
    reply = ExtractionOut(
        evidence=[
            {"passage": 1, "quote": "A single tram fare costs 2.40 euros.", "claim": "2.40 euros"},
            {"passage": 1, "quote": "A single tram fare costs 1.00 euro.", "claim": "misquoted"},
            {"passage": 7, "quote": "Children under six ride free.", "claim": "no such passage"},
        ]
    )
    llm, _ = reasoner(answers(ExtractionOut=reply), tmp_path)
    found = (await llm.extract("Q?", SUB, [PASSAGE], 5)).value
    assert [(e.quote, e.source_id, e.claim) for e in found] == [
        ("A single tram fare costs 2.40 euros.", "s1", "2.40 euros")
    ]


async def test_a_reply_that_never_fits_falls_back_to_the_extractive_step_with_a_notice(tmp_path: Path) -> None:
    llm, model = reasoner(answers(ExtractionOut="this is not JSON {"), tmp_path, llm_parse_retries=1)
    step = await llm.extract("What does a tram fare cost?", SUB, [PASSAGE], 2)
    found = step.value
    assert len(model.calls) == 2  # asked once, re-asked once, then given up: never an endless loop
    assert "could not be used" in model.calls[1][1]
    assert found and all(e.quote in PASSAGE.text for e in found)  # the extractive reasoner's evidence
    [notice] = step.said()
    assert "did not fit its format after 2 tries" in notice.message and "extractive reasoner" in notice.message


async def test_a_failing_model_falls_back_with_a_notice(tmp_path: Path) -> None:
    llm, _ = reasoner(answers(AnalysisOut=ConnectionError("connection refused")), tmp_path)
    step = await llm.analyze("How does Python reclaim reference cycles?")
    assert step.value.keywords  # from the extractive reasoner
    assert "connection refused" in step.said()[0].message


async def test_an_identical_call_is_answered_from_the_cache_at_no_cost(tmp_path: Path) -> None:
    out = AnalysisOut(keywords=["tram"], query_type="factual", intent="full_report")
    llm, _ = reasoner(answers(AnalysisOut=out), tmp_path)
    await llm.analyze("Tram?")
    spent = llm.caller.ledger().usage.tokens
    again, second = reasoner(answers(AnalysisOut=ConnectionError("must not be called")), tmp_path)
    assert (await again.analyze("Tram?")).value.keywords == ["tram"]
    assert spent > 0 and again.caller.ledger().usage.tokens == 0 and second.calls == []


async def test_the_budget_stops_model_calls_and_asks_research_to_stop(tmp_path: Path) -> None:
    out = AnalysisOut(keywords=["tram"], query_type="factual", intent="full_report")
    llm, model = reasoner(answers(AnalysisOut=out), tmp_path, budget_tokens=10)
    await llm.analyze("How much does a tram ticket cost in the city centre?")
    assert llm.budget_reached() == "10 tokens"
    refused = await llm.analyze("Another question entirely?")
    assert len(model.calls) == 1 and "budget of 10 tokens is spent" in refused.said()[0].message


def test_costs_come_from_the_price_table() -> None:
    prices = {"gemini-2.5-flash": (0.30, 2.50), "gemini-2.5-flash-lite": (0.10, 0.40)}
    assert price_of("google_genai:gemini-2.5-flash-lite-001", prices) == (0.10, 0.40)
    assert price_of("google_genai:gemini-2.5-flash", prices) == (0.30, 2.50)
    assert price_of("openai:gpt-x", prices) == (0.0, 0.0)
    ledger = TokenLedger(prices, budget_usd=0.01)
    call = ledger.record("synthesis", "google_genai:gemini-2.5-flash", 10_000, 2_000)
    assert call.cost_usd == pytest.approx(0.003 + 0.005)
    ledger.record("judge", "google_genai:gemini-2.5-flash", 10_000, 0)
    with pytest.raises(BudgetExceeded, match=r"\$0.01"):
        ledger.check()


async def test_progress_needs_new_queries_unlike_any_earlier_one(tmp_path: Path) -> None:
    reply = ProgressOut(
        coverage=[{"sub_question": "q1", "score": 0.2, "gap": "children's fares"}],
        new_queries=["Tram Fare", "child tram fare", "http://evil.example", "child tram fare"],
    )
    llm, _ = reasoner(answers(ProgressOut=reply), tmp_path)
    assessment = (await llm.evaluate("Q?", PLAN, [FARE], [SOURCE], 1, ["tram fare"])).value
    assert [q.text for q in assessment.new_queries] == ["child tram fare"]
    assert assessment.gaps == ["q1"] and not assessment.complete


async def test_the_report_cites_only_known_evidence_and_unsupported_statements_are_marked(tmp_path: Path) -> None:
    report = ReportOut(
        title="Fares",
        summary=[
            {"text": "A single tram fare costs 2.40 euros.", "evidence": ["E1", "E99"]},
            {"text": "Trams are free on Sundays for everyone.", "evidence": ["E1"]},
            {"text": "Made up.", "evidence": ["E404"]},
        ],
    )

    def verdicts(prompt: str) -> VerificationOut:
        return VerificationOut(verdicts=[{"statement": 1, "supported": True}, {"statement": 2, "supported": True}])

    llm, _ = reasoner(answers(ReportOut=report, VerificationOut=verdicts), tmp_path)
    written = (await llm.synthesize("Q?", QueryAnalysis(keywords=["q"]), PLAN, [FARE], [SOURCE], None)).value
    assert [(f.text, f.evidence_ids) for f in written.summary] == [
        ("A single tram fare costs 2.40 euros.", ["E1"]),
        (f"Trams are free on Sundays for everyone. {UNVERIFIED}", ["E1"]),  # the lexical check caught it
    ]
    assert any("1 of 2 statements" in caveat for caveat in written.caveats)


async def test_a_quotation_in_a_model_statement_is_cited_only_to_the_sources_that_hold_it(tmp_path: Path) -> None:
    from research_assistant.context import CitationStyle
    from research_assistant.report.render import render_report

    free = Evidence(
        id="E2",
        claim="Small children ride free",
        quote="Children under six ride free.",
        source_id="s2",
        sub_question_id="q1",
    )
    children = SOURCE.model_copy(update={"id": "s2", "locator": "https://city.example/children"})
    report = ReportOut(
        title="Fares",
        summary=[{"text": 'A fare costs "2.40 euros" and children under six ride free.', "evidence": ["E1", "E2"]}],
        consensus=[{"text": 'The city says "A single tram fare costs 2.40 euros."', "evidence": ["E1", "E2"]}],
    )
    verdicts = VerificationOut(verdicts=[{"statement": 1, "supported": True}, {"statement": 2, "supported": True}])
    llm, _ = reasoner(answers(ReportOut=report, VerificationOut=verdicts), tmp_path)
    written = (
        await llm.synthesize("Q?", QueryAnalysis(keywords=["q"]), PLAN, [FARE, free], [SOURCE, children], None)
    ).value
    markdown = render_report(
        written, {"s1": SOURCE, "s2": children}, {"E1": FARE, "E2": free}, CitationStyle.NUMERIC
    ).markdown
    # the fares page [1] holds the quotations; the children's page [2] is cited only for what it says
    assert 'A fare costs "2.40 euros" [1] and children under six ride free [1][2].' in markdown
    assert '- The city says "A single tram fare costs 2.40 euros." [1]\n' in markdown


@dataclass
class HoldingReAsks(ScriptedChatModel):
    """Holds every re-asked call (one whose prompt has the correction) until `release` is set."""

    held: asyncio.Event = field(default_factory=asyncio.Event)
    release: asyncio.Event = field(default_factory=asyncio.Event)

    def with_structured_output(self, schema: type[BaseModel], **kwargs: Any) -> RunnableLambda[Any, dict[str, Any]]:
        answer = super().with_structured_output(schema, **kwargs)

        async def holding(messages: list[Any]) -> dict[str, Any]:
            if "could not be used" in prompt_text(messages):
                self.held.set()
                await self.release.wait()
            return await answer.ainvoke(messages)

        return RunnableLambda(holding)


def fare_first_unusable_then_right(schema: type[BaseModel], prompt: str) -> Any:
    """q1's extraction: an unusable reply, then (asked again) the fare; q2's: a failed call."""
    if CHILDREN.text in prompt:
        return ConnectionError("connection refused")
    if "could not be used" in prompt:
        return ExtractionOut(evidence=[{"passage": 1, "quote": "A single tram fare costs 2.40 euros.", "claim": "c"}])
    return "this is not JSON {"


CHILDREN = SubQuestion(id="q2", text="Who rides the tram for free?", queries=["free tram"])


async def test_steps_made_at_once_each_say_and_spend_only_their_own(tmp_path: Path) -> None:
    model = HoldingReAsks(fare_first_unusable_then_right)
    llm, _ = reasoner(model.script, tmp_path, model, llm_parse_retries=1)
    fares = asyncio.create_task(llm.extract("Q?", SUB, [PASSAGE], 2))
    await model.held.wait()  # q1's first reply is spent and unusable; it is asked again, and waits
    children = await llm.extract("Q?", CHILDREN, [PASSAGE], 2)  # fails, falls back and ends meanwhile
    model.release.set()
    fare = await fares

    assert [e.quote for e in fare.value] == ["A single tram fare costs 2.40 euros."]
    assert fare.said() == []
    [notice] = children.said()
    assert (
        notice.message.startswith("Evidence extraction (sub-question q2): ") and "connection refused" in notice.message
    )
    asked, failed = fare.usage.roles["extraction"], children.usage.roles["extraction"]
    assert (asked.calls, asked.failed) == (2, 1) and asked.input_tokens > 0  # the unusable reply and the answer
    assert (failed.calls, failed.failed, failed.input_tokens) == (1, 1, 0)  # only its own failed call
    assert fare.usage + children.usage == llm.caller.ledger().usage and llm.caller.ledger().take() == ModelUsage()


async def test_what_a_step_cut_short_spent_is_counted_by_the_report(tmp_path: Path) -> None:
    def script(schema: type[BaseModel], prompt: str) -> Any:
        if schema is ReportOut:
            return ReportOut(title="Fares")
        return fare_first_unusable_then_right(schema, prompt)

    model = HoldingReAsks(script)
    llm, _ = reasoner(script, tmp_path, model, llm_parse_retries=1)
    cut = asyncio.create_task(llm.extract("Q?", SUB, [PASSAGE], 2))
    await model.held.wait()  # its first, unusable reply is spent
    cut.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cut
    written = await llm.synthesize("Q?", QueryAnalysis(keywords=["q"]), PLAN, [], [SOURCE], None)
    assert written.usage.roles["extraction"].calls == 1 and written.usage.roles["synthesis"].calls == 1
    assert written.usage == llm.caller.ledger().usage


def test_a_model_of_any_provider_gets_the_settings_deadline_and_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    import langchain.chat_models

    from research_assistant.reasoning.llm.models import build_chat_model

    built: dict[str, Any] = {}
    monkeypatch.setattr(langchain.chat_models, "init_chat_model", lambda spec, **options: built.update(options))

    build_chat_model("openai:gpt-4o-mini", settings(llm_timeout=12.5, llm_max_retries=4))

    assert built["timeout"] == 12.5 and built["max_retries"] == 4
