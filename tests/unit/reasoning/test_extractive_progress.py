"""Progress: coverage, confidence, gaps and new queries that never repeat the history."""

from __future__ import annotations

from research_assistant.reasoning.extractive.progress import assess_progress, distinct_claims
from research_assistant.reasoning.extractive.reformulation import referenced_titles
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import (
    Evidence,
    ProgressAssessment,
    ResearchPlan,
    SourceRecord,
    SourceStatus,
    SubQuestion,
)
from research_assistant.text.tokens import normalize_query

QUESTION = "What is the default recursion limit in Python?"
PLAN = ResearchPlan(
    sub_questions=[
        SubQuestion(
            id="q1",
            text=QUESTION,
            priority=1,
            queries=["What is the default recursion limit in Python?", "default recursion limit Python"],
        ),
        SubQuestion(
            id="q2",
            text="What limitations, exceptions or caveats apply to the default recursion limit in Python?",
            priority=2,
            queries=["default recursion limit Python limitations", "default recursion limit exceptions"],
        ),
    ],
    min_sources=2,
    min_evidence_per_question=2,
    completion_criteria="",
)


def item(n: int, sub_question: str, source: str, claim: str, score: float) -> Evidence:
    return Evidence(id=f"E{n}", claim=claim, quote=claim, source_id=source, sub_question_id=sub_question, score=score)


ANSWERS = [
    item(
        1, "q1", "S1", "By default, Python sets the recursion limit to 1000 to protect against stack overflows.", 0.88
    ),
    item(2, "q1", "S2", "The default recursion limit in CPython is 1000 frames.", 0.6),
]
CAVEATS = [
    item(3, "q2", "S3", "If the new limit is too low at the current recursion depth, a RecursionError is raised.", 0.5),
    item(4, "q2", "S1", "A too-high limit can lead to a crash because the C stack overflows.", 0.45),
]
SOURCES = [
    SourceRecord(id=f"S{i}", locator=f"/docs/{i}.md", title=f"Doc {i}", provider="local", status=SourceStatus.READ)
    for i in (1, 2, 3)
]


def assess(
    evidence: list[Evidence], sources: list[SourceRecord] = SOURCES, history: list[str] | None = None
) -> ProgressAssessment:
    history = history if history is not None else [q for sq in PLAN.sub_questions for q in sq.queries]
    return assess_progress(QUESTION, PLAN, evidence, sources, 2, history, Embedder())


def test_everything_covered_means_complete_and_confident() -> None:
    result = assess(ANSWERS + CAVEATS)
    assert result.complete
    assert result.gaps == []
    # Queries for the question itself, run only if confidence stays under the run's threshold.
    assert {query.sub_question_id for query in result.new_queries} == {"q1"}
    assert [c.covered for c in result.coverage] == [True, True]
    assert result.coverage[0].evidence_count == 2 and result.coverage[0].source_count == 2
    assert result.confidence >= 90
    assert result.iteration == 2


def test_a_sub_question_without_enough_evidence_is_a_gap_with_new_queries() -> None:
    result = assess(ANSWERS + CAVEATS[:1])
    assert not result.complete
    assert result.gaps == ["q2"]
    assert result.coverage[1].covered is False
    assert result.new_queries
    assert all(q.sub_question_id == "q2" for q in result.new_queries)
    assert assess(ANSWERS + CAVEATS).confidence > result.confidence


def test_weak_evidence_does_not_cover_a_sub_question() -> None:
    weak = [e.model_copy(update={"score": 0.3}) for e in CAVEATS]
    result = assess(ANSWERS + weak)
    assert result.gaps == ["q2"]


def test_new_queries_are_never_in_the_history_and_never_repeat() -> None:
    history = [q for sq in PLAN.sub_questions for q in sq.queries] + [
        "  DEFAULT recursion limit python LIMITATIONS exceptions ",
        "What limitations, exceptions or caveats apply to the default recursion limit in Python?",
    ]
    seen = {normalize_query(q) for q in history}
    for _ in range(4):  # the loop keeps asking for new queries; none is ever run twice
        result = assess(ANSWERS, history=history)
        assert result.gaps == ["q2"]
        texts = [normalize_query(q.text) for q in result.new_queries]
        assert texts, "a gap always gets a query while reformulations remain"
        assert len(texts) == len(set(texts))
        assert not seen & set(texts)
        seen.update(texts)
        history += [q.text for q in result.new_queries]


def test_no_evidence_gives_low_confidence_and_queries_for_every_sub_question() -> None:
    result = assess([])
    assert result.confidence < 30
    assert result.gaps == ["q1", "q2"]
    assert {q.sub_question_id for q in result.new_queries} == {"q1", "q2"}


def test_failed_sources_lower_reliability() -> None:
    failed = [
        *SOURCES,
        *(
            SourceRecord(
                id=f"F{i}",
                locator=f"https://x/{i}",
                title="x",
                provider="web",
                status=SourceStatus.FAILED,
                reason="timeout",
            )
            for i in range(3)
        ),
    ]
    assert assess(ANSWERS + CAVEATS, sources=failed).confidence < assess(ANSWERS + CAVEATS).confidence


def test_conflicting_sources_lower_confidence() -> None:
    clash = item(5, "q1", "S3", "The default recursion limit in CPython is 3000 frames.", 0.6)
    assert assess([*ANSWERS, clash, *CAVEATS]).confidence < assess(ANSWERS + CAVEATS).confidence


def test_recent_questions_get_less_recency_credit_offline() -> None:
    recent = "What is the latest default recursion limit in Python?"
    plain = assess_progress(QUESTION, PLAN, ANSWERS + CAVEATS, SOURCES, 1, [], Embedder())
    dated = assess_progress(recent, PLAN, ANSWERS + CAVEATS, SOURCES, 1, [], Embedder())
    assert dated.confidence < plain.confidence


def test_assessment_is_deterministic() -> None:
    assert assess(ANSWERS) == assess(ANSWERS)


def test_the_same_words_under_two_headings_are_two_claims() -> None:
    quote = "This hook is invoked by git-receive-pack when it reacts to git push."
    items = [
        Evidence(id=f"E{n}", claim=quote, quote=quote, source_id="s", sub_question_id="q1", section=section, score=s)
        for n, (section, s) in enumerate([("pre-receive", 0.9), ("post-receive", 0.8), ("post-receive", 0.7)])
    ]
    assert [e.id for e in distinct_claims(items)] == ["E0", "E1"]


def test_a_section_the_evidence_refers_to_is_searched_first() -> None:
    """'See Controlling the Prompt, for ...': the manual answers in the section it points to, whatever its words."""
    pointer = item(5, "q2", "S1", "See Stack Depth Control, for the complete list of the interpreter's limits.", 0.5)
    result = assess([*ANSWERS, pointer])
    assert next(q.text for q in result.new_queries if q.sub_question_id == "q2") == "Stack Depth Control"


def test_only_a_title_is_a_reference() -> None:
    quotes = [
        "The value is expanded (see PROMPTING below) and used as the primary prompt string.",
        'For details, see Section 4.2, "Access Control".',
        "See the documentation for more. You will see that it works.",
    ]
    found = referenced_titles([item(n, "q1", "S1", quote, 0.5) for n, quote in enumerate(quotes)])
    assert found == ["PROMPTING", "Access Control"]
