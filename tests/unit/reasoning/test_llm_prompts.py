"""What the LLM reasoner asks and how it reports: prompts that agree with their schemas, steps that fail in a few
plain words, verification that sees what a quote is about, a report that states each fact once, and every call
counted."""

from __future__ import annotations

import typing
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from support.fake_models import Script, ScriptedChatModel

from research_assistant.context import Context
from research_assistant.reasoning.base import joined
from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
from research_assistant.reasoning.llm import prompts
from research_assistant.reasoning.llm import reasoner as llm_reasoner
from research_assistant.reasoning.llm.cache import ResponseCache
from research_assistant.reasoning.llm.caller import StructuredCaller
from research_assistant.reasoning.llm.models import ROLES, model_spec
from research_assistant.reasoning.llm.outputs import (
    AnalysisOut,
    AssessmentOut,
    ExtractionOut,
    ProgressOut,
    QuickAnswerOut,
    ReportOut,
    VerificationOut,
)
from research_assistant.reasoning.llm.reasoner import UNVERIFIED, LLMReasoner, clip, model_evidence_limit
from research_assistant.schemas import (
    Credibility,
    Evidence,
    Intent,
    Passage,
    QueryAnalysis,
    ResearchPlan,
    SourceRecord,
    SourceStatus,
    SubQuestion,
)
from research_assistant.settings import Settings

FARES_TEXT = (
    "Tickets and fares\n\nA single tram fare costs 2.40 euros. Children under six ride free. "
    "A day ticket costs 7 euros."
)
PASSAGE = Passage(source_id="s1", text=FARES_TEXT, title="Halvorsby fares")
FARE = Evidence(
    id="E1", claim="fare", quote="A single tram fare costs 2.40 euros.", source_id="s1", sub_question_id="q1"
)
CHILDREN = Evidence(
    id="E2", claim="children", quote="Children under six ride free.", source_id="s1", sub_question_id="q1"
)
OTHER = Evidence(
    id="E3", claim="fare", quote="One ride on a tram costs 2.40 euros.", source_id="s2", sub_question_id="q1"
)
SUB = SubQuestion(id="q1", text="What does a tram fare cost?", queries=["tram fare"])
SUB2 = SubQuestion(id="q2", text="Who rides free?", queries=["free rides"])
PLAN = ResearchPlan(sub_questions=[SUB], min_sources=1, min_evidence_per_question=1)


def source(source_id: str, title: str, credibility: float = 0.9) -> SourceRecord:
    return SourceRecord(
        id=source_id,
        locator=f"https://city.example/{source_id}",
        title=title,
        provider="p",
        status=SourceStatus.READ,
        credibility=Credibility(score=credibility),
        published=date.today().isoformat(),
    )


SOURCES = [source("s1", "Halvorsby fares"), source("s2", "Transit guide")]


def reasoner(script: Script, tmp_path: Path, **values: Any) -> tuple[LLMReasoner, ScriptedChatModel]:
    config = Settings.model_construct(**{**Settings().model_dump(), **values})
    caller = StructuredCaller(config, ResponseCache(tmp_path / "llm"))
    model = ScriptedChatModel(script)
    for role in ROLES:
        caller._models[model_spec(config, role)] = model  # type: ignore[assignment]
    return LLMReasoner(caller, ExtractiveReasoner(), config.confidence_threshold), model


def answers(**by_schema: Any) -> Script:
    def script(schema: type[BaseModel], prompt: str) -> Any:
        reply = by_schema[schema.__name__]
        return reply(prompt) if callable(reply) else reply

    return script


def all_supported(prompt: str) -> VerificationOut:
    count = prompt.count("Statement ")
    return VerificationOut(verdicts=[{"statement": n, "supported": True} for n in range(1, count + 1)])


def in_a_run(monkeypatch: pytest.MonkeyPatch, **fields: Any) -> None:
    """The reasoner sees a run's context, as it does inside a LangGraph run."""
    context = Context(**fields)
    monkeypatch.setattr(llm_reasoner.LLMReasoner, "context", context)


# Prompts -------------------------------------------------------------------------------------------------


def test_plan_prompts_agree_in_number_and_name_the_runs_kinds_of_source() -> None:
    analysis = QueryAnalysis(keywords=["tram"])
    single = prompts.planning("Q?", analysis, 1, 1, ["local"])[1][1]
    assert "as a single sub-question" in single and "one search query in plain words" in single
    assert "up to 1" not in single and "1 sub-questions" not in single and "1 search queries" not in single
    assert "one kind of source only: local (the analyst's own documents)" in single and "wiki" not in single
    several = prompts.planning("Q?", analysis, 4, 2, ["web", "academic"], ["tavily", "arxiv"])[1][1]
    assert "as 4 sub-questions at most" in several and "up to 2 search queries" in several
    assert "web (general web search), academic (research papers)" in several and "tavily, arxiv" in several


def test_the_analysis_prompt_defines_every_kind_of_question() -> None:
    prompt = prompts.analysis("How does Python's garbage collector work?")[1][1]
    kinds = typing.get_args(AnalysisOut.model_fields["query_type"].annotation)
    assert kinds and all(f"{kind}: " in prompt for kind in kinds)
    assert "exploratory: asks how something works" in prompt


async def test_planning_is_told_the_kinds_of_source_the_run_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    in_a_run(monkeypatch, source_types=["local"])
    plan = {"sub_questions": [{"text": "Fares?", "queries": ["fares"], "source_types": ["wiki", "local"]}]}
    llm, model = reasoner(answers(PlanOut=plan), tmp_path)
    made = (await llm.plan("Q?", QueryAnalysis(keywords=["q"]), Context(depth="standard").profile)).value
    assert "only: local (the analyst's own documents)" in model.calls[0][1]
    assert [kind.value for kind in made.sub_questions[0].source_types] == ["local"]


async def test_a_quick_answer_is_asked_for_in_its_own_schema(tmp_path: Path) -> None:
    reply = QuickAnswerOut(title="Fares", answer=[{"text": "A single tram fare costs 2.40 euros.", "evidence": ["E1"]}])
    llm, model = reasoner(answers(QuickAnswerOut=reply, VerificationOut=all_supported), tmp_path)
    analysis = QueryAnalysis(keywords=["fare"], intent=Intent.QUICK_ANSWER)
    report = (await llm.synthesize("What does a tram fare cost?", analysis, PLAN, [FARE], SOURCES, None)).value
    schema, prompt = model.calls[0]
    assert schema == "QuickAnswerOut" and "an answer of one to three sentences" in prompt
    assert "One to three sentences" in str(QuickAnswerOut.model_json_schema())
    assert set(QuickAnswerOut.model_fields) == {"title", "answer"}  # no sections, gaps or consensus to fill
    assert report.quick_answer and [f.text for f in report.summary] == ["A single tram fare costs 2.40 euros."]


async def test_the_last_round_asks_for_no_new_queries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    in_a_run(monkeypatch, max_iterations=1)
    judged = {"coverage": [{"sub_question": "q1", "score": 0.3}], "new_queries": ["never asked for"]}
    llm, model = reasoner(answers(AssessmentOut=judged, ProgressOut=judged), tmp_path)
    assessment = (await llm.evaluate("Q?", PLAN, [FARE], SOURCES, 1, ["tram fare"])).value
    schema, prompt = model.calls[0]
    assert schema == "AssessmentOut" and "new_queries" not in AssessmentOut.model_fields
    assert "last round" in prompt and "propose" not in prompt and "Queries already run" not in prompt
    assert assessment.new_queries == []
    in_a_run(monkeypatch, max_iterations=3)
    await llm.evaluate("Q?", PLAN, [FARE], SOURCES, 1, ["tram fare"])
    assert model.calls[1][0] == "ProgressOut" and "propose new search queries" in model.calls[1][1]


async def test_a_fully_answered_question_is_complete_whatever_its_sources_credibility(tmp_path: Path) -> None:
    judged = ProgressOut(coverage=[{"sub_question": "q1", "score": 1.0}])
    llm, _ = reasoner(answers(ProgressOut=judged), tmp_path)
    weak = [source("s1", "Halvorsby fares", credibility=0.2)]
    assessment = (await llm.evaluate("Q?", PLAN, [FARE], weak, 1, [])).value
    assert assessment.gaps == [] and assessment.complete


# Evidence ------------------------------------------------------------------------------------------------


async def test_a_model_keeps_more_evidence_than_the_depths_verbatim_limit(tmp_path: Path) -> None:
    sentences = ["A single tram fare costs 2.40 euros.", "Children under six ride free.", "A day ticket costs 7 euros."]
    reply = ExtractionOut(evidence=[{"passage": 1, "quote": s, "claim": s} for s in sentences])
    llm, model = reasoner(answers(ExtractionOut=reply), tmp_path)
    found = (await llm.extract("Q?", SUB, [PASSAGE], 2)).value
    assert model_evidence_limit(2) == 5 and "pick at most 5 pieces of evidence" in model.calls[0][1]
    assert [e.quote for e in found] == sentences


async def test_failed_steps_say_which_and_why_in_a_few_words_once(tmp_path: Path) -> None:
    class ServerError(Exception):
        code = 504

    payload = "504 DEADLINE_EXCEEDED. {'error': {'code': 504, 'message': 'no reply', 'status': 'DEADLINE_EXCEEDED'}}"
    llm, _ = reasoner(answers(ExtractionOut=ServerError(payload)), tmp_path)
    long = SUB.model_copy(update={"text": "What does a single tram fare cost on the Halvorsby network? " * 4})
    steps = [await llm.extract("Q?", long, [PASSAGE], 2), await llm.extract("Q?", SUB2, [PASSAGE], 2)]
    [notice] = joined(steps).said()
    assert notice.message == (
        "Evidence extraction (sub-questions q1 and q2): the model call failed: the service timed out (504); "
        "the extractive reasoner did these steps instead."
    )


# The report ----------------------------------------------------------------------------------------------


async def test_the_report_states_each_fact_once_and_consensus_needs_two_sources(tmp_path: Path) -> None:
    fare = {"text": "A single tram fare costs 2.40 euros.", "evidence": ["E1"]}
    children = {"text": "Children under six ride free.", "evidence": ["E2"]}
    reply = ReportOut(
        title="Fares",
        summary=[fare],
        key_findings=[{"text": "A single tram fare costs 2.40 euros", "evidence": ["E1"]}, children],
        sections=[{"heading": "What does a tram fare cost on the network " * 8, "findings": [fare, children]}],
        consensus=[fare, {"text": "A single tram fare costs 2.40 euros.", "evidence": ["E1", "E3"]}],
    )
    llm, _ = reasoner(answers(ReportOut=reply, VerificationOut=all_supported), tmp_path)
    report = (
        await llm.synthesize("Q?", QueryAnalysis(keywords=["q"]), PLAN, [FARE, CHILDREN, OTHER], SOURCES, None)
    ).value
    assert [f.text for f in report.key_findings] == ["Children under six ride free."]
    assert [f.text for f in report.sections[0].findings] == [fare["text"], children["text"]]  # kept, not emptied
    assert [f.evidence_ids for f in report.consensus] == [["E1", "E3"]]  # one source alone is no consensus
    heading, written = report.sections[0].heading, "What does a tram fare cost on the network " * 8
    assert len(heading) <= 200 and heading.endswith("…")
    assert written.startswith(heading[:-1]) and written[len(heading) - 1] == " "  # cut between words


def test_clipping_cuts_at_a_word_and_says_so() -> None:
    assert clip("short", 10) == "short"
    assert clip("How does the collector find reference cycles", 20) == "How does the…"


async def test_verification_is_its_own_role_and_sees_titles_and_surroundings(tmp_path: Path) -> None:
    reply = ReportOut(
        title="Fares",
        summary=[{"text": "The Halvorsby fares page says a single tram fare costs 2.40 euros.", "evidence": ["E1"]}],
    )
    quoted = ExtractionOut(evidence=[{"passage": 1, "quote": FARE.quote, "claim": "2.40 euros"}])

    def verdicts(prompt: str) -> VerificationOut:
        return VerificationOut(verdicts=[{"statement": 1, "supported": "Tickets and fares" in prompt}])

    llm, model = reasoner(answers(ExtractionOut=quoted, ReportOut=reply, VerificationOut=verdicts), tmp_path)
    [fare] = (await llm.extract("What does a tram fare cost?", SUB, [PASSAGE], 2)).value  # its surroundings are kept
    reply.summary[0].evidence = [fare.id]
    report = (await llm.synthesize("Q?", QueryAnalysis(keywords=["q"]), PLAN, [fare], SOURCES, None)).value
    prompt = next(text for schema, text in model.calls if schema == "VerificationOut")
    assert 'source="Halvorsby fares"' in prompt and "[quote]" in prompt and "Tickets and fares" in prompt
    assert UNVERIFIED not in report.summary[0].text and not report.caveats
    roles = llm.caller.ledger().usage.roles
    assert "verification" in roles and "judge" not in roles


# Accounting ----------------------------------------------------------------------------------------------


async def test_every_call_is_counted_cached_and_failed_ones_too(tmp_path: Path) -> None:
    out = AnalysisOut(keywords=["tram"], query_type="factual", intent="full_report")
    llm, _ = reasoner(answers(AnalysisOut=out, PlanOut=ConnectionError("connection refused")), tmp_path)
    await llm.analyze("Tram?")
    await llm.analyze("Tram?")  # the same question: answered from the cache
    planned = await llm.plan("Tram?", QueryAnalysis(keywords=["tram"]), Context(depth="quick").profile)
    usage = llm.caller.ledger().usage
    assert (usage.calls, usage.cached, usage.failed) == (3, 1, 1)
    planning = usage.roles["planning"]
    assert (planning.calls, planning.cached, planning.failed) == (1, 0, 1)
    assert "Planning: the model could not be reached (connection refused)" in planned.said()[0].message
