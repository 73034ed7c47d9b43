"""The extractive report: quoted findings, diversity, consensus, conflicts, gaps and caveats."""

from __future__ import annotations

from research_assistant.context import PROFILES, QUESTION_EVIDENCE_EXTRA, Depth
from research_assistant.reasoning.base import Reasoner
from research_assistant.reasoning.extractive.analysis import analyze_question
from research_assistant.reasoning.extractive.reasoner import ExtractiveReasoner
from research_assistant.reasoning.extractive.synthesis import OFFLINE_CAVEAT, SECTION_FINDINGS, write_report
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import (
    Evidence,
    Passage,
    ResearchPlan,
    ResearchReport,
    SourceRecord,
    SourceStatus,
    SubQuestion,
)

QUESTION = "What is the default recursion limit in Python?"
PLAN = ResearchPlan(
    sub_questions=[
        SubQuestion(id="q1", text=QUESTION, priority=1),
        SubQuestion(id="q2", text="How can the recursion limit be changed?", priority=2),
        SubQuestion(id="q3", text="How has the default recursion limit changed over time?", priority=3),
    ],
    min_sources=2,
    min_evidence_per_question=1,
)
SOURCES = [
    SourceRecord(id=s, locator=f"/docs/{s}.md", title=s, provider="local", status=SourceStatus.READ)
    for s in ("S1", "S2", "S3", "S4")
]


def item(n: int, sub_question: str, source: str, claim: str, score: float) -> Evidence:
    return Evidence(id=f"E{n}", claim=claim, quote=claim, source_id=source, sub_question_id=sub_question, score=score)


EVIDENCE = [
    item(1, "q1", "S1", "By default, Python sets the recursion limit to 1000 to protect against stack overflows.", 0.9),
    item(2, "q1", "S2", "By default, Python sets the recursion limit to 1000 to guard against stack overflows.", 0.85),
    item(3, "q1", "S3", "The recursion limit is the maximum depth of the Python interpreter stack.", 0.6),
    item(4, "q2", "S3", "Use sys.setrecursionlimit() to set the maximum depth of the Python interpreter stack.", 0.7),
    item(5, "q2", "S1", "A too-high limit can crash the interpreter because the C stack overflows.", 0.5),
]


def report(evidence: list[Evidence], sources: list[SourceRecord] = SOURCES) -> ResearchReport:
    return write_report(QUESTION, analyze_question(QUESTION), PLAN, evidence, sources, None, Embedder())


def all_findings(result: ResearchReport) -> list:
    return [finding for _, finding in result.findings()]


def test_every_finding_quotes_its_evidence_verbatim() -> None:
    by_id = {e.id: e for e in EVIDENCE}
    result = report(EVIDENCE)
    for finding in all_findings(result):
        assert finding.verbatim
        assert finding.evidence_ids and all(i in by_id for i in finding.evidence_ids)
        assert finding.text == by_id[finding.evidence_ids[0]].claim


def test_the_report_opens_with_the_direct_answer_and_does_not_repeat_it_in_the_summary() -> None:
    result = report(EVIDENCE)
    assert result.title == "What is the default recursion limit in Python"
    assert result.question == QUESTION
    assert [f.evidence_ids for f in result.answer] == [["E1"]]
    assert result.answer_note == ""
    assert all(f.evidence_ids != ["E1"] for f in result.summary)
    assert len(result.summary) <= 3


def test_a_value_that_no_quote_states_is_said_to_be_missing() -> None:
    without_value = [e for e in EVIDENCE if "1000" not in e.quote]
    result = report(without_value)
    assert result.answer == []
    assert "None of the sources read states this directly" in result.answer_note
    assert any("No source" in c or "limited" in g for c in result.caveats for g in [*result.gaps, ""])


def test_near_duplicates_are_not_repeated_but_agree_as_consensus() -> None:
    result = report(EVIDENCE)
    key_ids = [i for f in result.key_findings for i in f.evidence_ids]
    assert "E1" in key_ids and "E2" not in key_ids  # MMR keeps one of the two near-identical sentences
    assert 3 <= len(result.key_findings) <= 6
    q1 = next(s for s in result.sections if s.heading == QUESTION)
    assert [f.evidence_ids for f in q1.findings] == [["E1"], ["E3"]]
    assert [[v.evidence_ids for v in (f, *f.agreeing)] for f in result.consensus] == [[["E1"], ["E2"]]]


def test_sections_follow_the_plan_and_missing_answers_are_gaps() -> None:
    result = report(EVIDENCE)
    assert [s.heading for s in result.sections] == [PLAN.sub_questions[0].text, PLAN.sub_questions[1].text]
    assert result.sections[1].findings[0].evidence_ids == ["E4"]  # best first
    assert result.gaps == ["No evidence was found for: How has the default recursion limit changed over time?"]


def test_the_question_itself_shows_as_many_more_findings_as_a_round_keeps_for_it() -> None:
    """A round keeps `QUESTION_EVIDENCE_EXTRA` more items for the question itself than for the other sub-questions,
    since its answer often scores below quotes that only repeat its words; the report shows them all."""
    topics = ("stack depth", "frame objects", "tail calls", "threads", "generators", "the C stack", "coroutines")
    many = [
        item(n, "q1", f"S{n % 4 + 1}", f"The recursion limit counts {topic}, as note {n} says.", 0.9 - 0.01 * n)
        for n, topic in enumerate(topics)
    ] + [
        item(20 + n, "q2", f"S{n % 4 + 1}", f"Calling setrecursionlimit changes how {topic} behave.", 0.8 - 0.01 * n)
        for n, topic in enumerate(topics)
    ]
    counts = [len(section.findings) for section in report(many).sections]
    assert counts == [SECTION_FINDINGS + QUESTION_EVIDENCE_EXTRA, SECTION_FINDINGS]


def test_sources_that_disagree_on_a_figure_are_a_conflict() -> None:
    clash = item(
        6, "q3", "S4", "By default, Python sets the recursion limit to 3000 to protect against stack overflows.", 0.8
    )
    result = report([*EVIDENCE, clash])
    assert len(result.conflicts) == 1
    sides = sorted(i for f in result.conflicts[0].sides for i in f.evidence_ids)
    assert sides == ["E1", "E6"]
    assert "recursion" in result.conflicts[0].topic
    assert any("disagree" in c for c in result.caveats)


def test_statements_about_different_things_or_years_are_not_conflicts() -> None:
    others = [
        item(7, "q2", "S4", "The GIL allows only one thread to run Python bytecode at a time, 2 threads at most.", 0.5),
        item(8, "q3", "S3", "Python 3.11 raised the default recursion limit to 1000 in 2022.", 0.5),
        item(9, "q3", "S4", "Python 3.12 raised the default recursion limit to 1000 in 2023.", 0.5),
    ]
    assert report([*EVIDENCE, *others]).conflicts == []


def test_sources_that_disagree_on_a_date_are_a_conflict() -> None:
    founded = [
        item(10, "q3", "S1", "The Bank of England was founded in 1694 by Royal Charter.", 0.6),
        item(11, "q3", "S2", "The Bank of England was founded in 1696 by Royal Charter.", 0.6),
    ]
    conflicts = report([*EVIDENCE, *founded]).conflicts
    assert [sorted(i for f in c.sides for i in f.evidence_ids) for c in conflicts] == [["E10", "E11"]]


def test_caveats_explain_the_mode_and_the_coverage() -> None:
    result = report(
        EVIDENCE[:1],
        sources=[*SOURCES, SourceRecord(id="F", locator="x", title="x", provider="web", status=SourceStatus.FAILED)],
    )
    assert result.caveats[0] == OFFLINE_CAVEAT
    assert any("1 distinct source" in c for c in result.caveats)
    assert any("could not be read" in c for c in result.caveats)


def test_evidence_from_an_unread_source_is_never_cited() -> None:
    unread = [s.model_copy(update={"status": SourceStatus.FAILED}) if s.id == "S3" else s for s in SOURCES]
    cited = {i for f in all_findings(report(EVIDENCE, sources=unread)) for i in f.evidence_ids}
    assert not cited & {"E3", "E4"}


def test_no_evidence_gives_an_honest_empty_report() -> None:
    result = report([])
    assert result.summary == [] and result.key_findings == [] and result.sections == []
    assert len(result.gaps) == 3
    assert any("no findings" in c for c in result.caveats)


def test_the_report_is_deterministic() -> None:
    assert report(EVIDENCE) == report(list(reversed(EVIDENCE)))


async def test_the_reasoner_runs_the_whole_loop_offline() -> None:
    reasoner: Reasoner = ExtractiveReasoner()
    assert reasoner.name == "extractive"
    passages = [
        Passage(source_id="S1", text=" ".join(e.claim for e in EVIDENCE if e.source_id == "S1"), score=0.9),
        Passage(source_id="S3", text=" ".join(e.claim for e in EVIDENCE if e.source_id == "S3"), score=0.7),
    ]
    analysis = (await reasoner.analyze(QUESTION)).value
    plan = (await reasoner.plan(QUESTION, analysis, PROFILES[Depth.QUICK])).value
    evidence = [e for sq in plan.sub_questions for e in (await reasoner.extract(QUESTION, sq, passages, 2)).value]
    assert evidence[0].claim.startswith("By default, Python sets the recursion limit to 1000")
    searched = [q for sq in plan.sub_questions for q in sq.queries]
    assessment = (await reasoner.evaluate(QUESTION, plan, evidence, SOURCES, 1, searched)).value
    result = (await reasoner.synthesize(QUESTION, analysis, plan, evidence, SOURCES, assessment)).value
    assert result.answer[0].text == evidence[0].claim
    assert {i for f in all_findings(result) for i in f.evidence_ids} <= {e.id for e in evidence}


def test_the_summary_answers_each_part_of_a_compound_question_first() -> None:
    question = "How does Python manage memory and reclaim reference cycles?"
    plan = ResearchPlan(
        sub_questions=[
            SubQuestion(id="q1", text=question),
            SubQuestion(id="q2", text="Aspect: manage memory (Python)", priority=2),
            SubQuestion(id="q3", text="Aspect: reclaim reference cycles (Python)", priority=2),
            SubQuestion(id="q4", text="Definition of Python", priority=3),
        ],
        min_sources=2,
        min_evidence_per_question=1,
    )
    evidence = [
        item(1, "q1", "S1", "Reference counting cannot reclaim a reference cycle.", 0.8),
        item(2, "q1", "S2", "Typical reference counting implementations cannot reclaim objects in a cycle.", 0.75),
        item(3, "q2", "S3", "Python manages memory in a private heap controlled by the Python memory manager.", 0.6),
        item(4, "q3", "S4", "The cyclic garbage collector periodically finds and reclaims unreachable cycles.", 0.55),
        item(5, "q4", "S1", "Python is a high-level, general-purpose programming language.", 0.9),
    ]
    result = write_report(question, analyze_question(question), plan, evidence, SOURCES, None, Embedder())
    assert [f.evidence_ids for f in result.summary] == [["E1"], ["E3"], ["E4"]]
    key = [f.evidence_ids[0] for f in result.key_findings]
    assert key[:3] == ["E1", "E3", "E4"]  # the key findings lead with the direct answers; background comes later


def test_a_sentence_that_a_longer_key_finding_quotes_whole_is_not_a_key_finding_again() -> None:
    whole = (
        "By default, Python sets the recursion limit to 1000, and a program that recurses deeper raises a "
        "RecursionError. The recursion limit is the maximum depth of the Python interpreter stack."
    )
    part = "The recursion limit is the maximum depth of the Python interpreter stack."
    result = report([item(1, "q1", "S1", whole, 0.9), item(2, "q2", "S2", part, 0.8), *EVIDENCE[3:]])
    key_ids = [i for f in result.key_findings for i in f.evidence_ids]
    assert "E1" in key_ids and "E2" not in key_ids
