"""The one confidence both reasoners report: whether the asked-for thing was found, not only term overlap."""

from __future__ import annotations

from datetime import date

import pytest

from research_assistant.reasoning.confidence import answer_certainty, confidence_score, value_found
from research_assistant.schemas import (
    Coverage,
    Credibility,
    Evidence,
    ResearchPlan,
    SourceRecord,
    SourceStatus,
    SourceType,
    SubQuestion,
)

TODAY = date(2026, 11, 21)
QUESTION = "What is the default timeout of the connection pool?"
PLAN = ResearchPlan(
    sub_questions=[SubQuestion(id="q1", text=QUESTION)],
    min_sources=1,
    min_evidence_per_question=1,
    completion_criteria="",
)
FULL = [Coverage(sub_question_id="q1", evidence_count=1, source_count=1, score=1.0, covered=True)]
SOURCE = SourceRecord(
    id="s1",
    locator="https://example.org/pool",
    title="Connection pools",
    provider="tavily",
    source_type=SourceType.WEB,
    published="2026-01-01",
    credibility=Credibility(score=1.0),
)


def _evidence(quote: str, sub_question: str = "q1") -> Evidence:
    return Evidence(id=f"E{abs(hash(quote))}", claim=quote, quote=quote, source_id="s1", sub_question_id=sub_question)


ANSWER = _evidence("The default timeout is 30 seconds.")
NEIGHBOUR = _evidence("The timeout determines how long a request waits for a free connection in the pool.")


def _score(evidence: list[Evidence], coverage: list[Coverage] = FULL, **kwargs: object) -> float:
    options: dict[str, object] = {"conflicts": 0, "needs_recent": False, "today": TODAY} | kwargs
    return confidence_score(QUESTION, PLAN, coverage, evidence, {"s1": SOURCE}, **options)  # type: ignore[arg-type]


def test_a_found_value_with_full_coverage_is_sure() -> None:
    assert value_found(QUESTION, PLAN, [ANSWER]) is True
    assert _score([ANSWER]) == 100.0


def test_a_value_question_whose_value_is_in_no_quote_never_looks_sure() -> None:
    assert value_found(QUESTION, PLAN, [NEIGHBOUR]) is False
    assert _score([NEIGHBOUR]) == 50.0
    assert _score([NEIGHBOUR]) < 80


def test_evidence_only_for_other_sub_questions_does_not_answer_the_question() -> None:
    other = _evidence("The default timeout is 30 seconds.", sub_question="q2")
    assert answer_certainty(QUESTION, PLAN, [other], FULL) < 0.5


def test_recency_reliability_and_conflicts_lower_it() -> None:
    old = SOURCE.model_copy(update={"published": "2001-01-01", "credibility": Credibility(score=0.5)})
    recent_needed = confidence_score(
        QUESTION, PLAN, FULL, [ANSWER], {"s1": old}, conflicts=0, needs_recent=True, today=TODAY
    )
    assert recent_needed == 40 + 30 * (0.4 * 0.5 + 0.3 + 0.3) + 15 * 0.3 + 15
    assert _score([ANSWER, ANSWER], conflicts=1) == 40 + 30 + 15 + 0
    assert _score([]) == 0.0
    unread = SOURCE.model_copy(update={"id": "s2", "status": SourceStatus.FAILED})
    read = SOURCE.model_copy(update={"status": SourceStatus.READ})
    with_failure = confidence_score(
        QUESTION, PLAN, FULL, [ANSWER], {"s1": read, "s2": unread}, conflicts=0, needs_recent=False, today=TODAY
    )
    assert with_failure == 100 - 30 * 0.3 * 0.5


def test_a_question_without_a_value_takes_its_reasoners_coverage_judgement() -> None:
    question = "How does the connection pool hand out connections?"
    plan = ResearchPlan(
        sub_questions=[SubQuestion(id="q1", text=question)],
        min_sources=1,
        min_evidence_per_question=1,
        completion_criteria="",
    )
    half = [FULL[0].model_copy(update={"score": 0.25})]
    assert value_found(question, plan, [NEIGHBOUR]) is None
    assert answer_certainty(question, plan, [NEIGHBOUR], half) == 0.5
    assert answer_certainty(question, plan, [NEIGHBOUR], FULL) == 1.0


def test_a_value_the_reasoner_judged_off_topic_does_not_count_as_found() -> None:
    judged_off_topic = ANSWER.model_copy(update={"answer": 0.3})
    assert value_found(QUESTION, PLAN, [judged_off_topic]) is False
    assert _score([judged_off_topic]) < 80
    assert value_found(QUESTION, PLAN, [ANSWER.model_copy(update={"answer": 0.9})]) is True


def test_a_found_value_for_a_question_its_reasoner_counts_uncovered_is_not_sure() -> None:
    """The report lists the question itself among its gaps: a stated value may be the answer, never a sure one."""
    uncovered = [FULL[0].model_copy(update={"covered": False})]
    assert value_found(QUESTION, PLAN, [ANSWER]) is True
    assert answer_certainty(QUESTION, PLAN, [ANSWER], uncovered) == 0.75
    assert _score([ANSWER], uncovered) < 80
    assert _score([ANSWER]) == 100.0


@pytest.mark.parametrize(
    ("question", "quote"),
    [
        (
            "What is the difference between a graceful restart and a normal restart?",
            "Unlike a normal restart, a graceful restart lets children finish their requests.",
        ),
        (
            "How does the daemon decide when to lengthen the interval between its polls?",
            "Under normal conditions the interval increases in steps to the default maximum.",
        ),
        (
            "Which load-balancing algorithms can a backend use?",
            "The algorithm may be one of the following:\n\nroundrobin\n\nstatic-rr\n\nleastconn",
        ),
    ],
)
def test_a_judged_quote_never_makes_a_comparison_a_how_question_or_a_list_sure(question: str, quote: str) -> None:
    """A sentence that contrasts states a difference, one that gives a mechanism states a mechanism, maybe not the
    asked one: the extractive reasoner, which judges its quotes, cannot tell, so such reports stay under 80; a
    model's judgement is its own."""
    plan = PLAN.model_copy(update={"sub_questions": [SubQuestion(id="q1", text=question)]})
    quoted = _evidence(quote)
    judged = quoted.model_copy(update={"answer": 1.0})
    assert answer_certainty(question, plan, [judged], FULL) == 0.75
    assert answer_certainty(question, plan, [quoted], FULL) == 1.0


def test_a_judged_verdict_never_makes_a_yes_or_no_question_sure() -> None:
    """A denial next to the question's words ranks a quote first, but which way it settles the question only a
    reader can tell: the extractive reasoner's yes or no stays under 80."""
    question = "Can I run a repair as a time-limited partial check?"
    plan = PLAN.model_copy(update={"sub_questions": [SubQuestion(id="q1", text=question)]})
    quoted = _evidence("A partial check cannot be combined with the repair option.")
    assert answer_certainty(question, plan, [quoted.model_copy(update={"answer": 1.0})], FULL) == 0.6
    assert answer_certainty(question, plan, [quoted], FULL) == 1.0


def test_a_value_stated_only_by_a_loosely_relevant_quote_is_not_sure() -> None:
    """The extractive reasoner scores each quote: a value in one that shares little with the question is as often
    another setting's; a quote a model chose (no judged answer) is taken as relevant."""
    loose = ANSWER.model_copy(update={"answer": 0.9, "score": 0.35})
    clear = ANSWER.model_copy(update={"answer": 0.9, "score": 0.8})
    assert answer_certainty(QUESTION, PLAN, [loose], FULL) == 0.75
    assert _score([loose]) < 80
    assert answer_certainty(QUESTION, PLAN, [loose, clear], FULL) == 1.0
    assert answer_certainty(QUESTION, PLAN, [ANSWER.model_copy(update={"score": 0.1})], FULL) == 1.0


def test_a_name_the_question_asks_about_that_no_quote_or_source_mentions_is_not_found() -> None:
    question = "What is the default port of the Redis server?"
    plan = PLAN.model_copy(update={"sub_questions": [SubQuestion(id="q1", text=question)]})
    quote = _evidence("The server listens to port 8000 by default.")
    options: dict[str, object] = {"conflicts": 0, "needs_recent": False, "today": TODAY}
    elsewhere = confidence_score(question, plan, FULL, [quote], {"s1": SOURCE}, **options)  # type: ignore[arg-type]
    redis = SOURCE.model_copy(update={"title": "Redis configuration"})
    named = confidence_score(question, plan, FULL, [quote], {"s1": redis}, **options)  # type: ignore[arg-type]
    assert elsewhere <= 50 < 80 <= named


def test_a_name_the_question_asks_about_must_be_in_what_answers_the_question_itself() -> None:
    question = "What User-Agent header value does the client send by default?"
    plan = PLAN.model_copy(
        update={"sub_questions": [SubQuestion(id="q1", text=question), SubQuestion(id="q2", text="Headers")]}
    )
    quote = _evidence("By default it sends a 100 Continue line to the client.")
    named_aside = _evidence("The access log records the User-Agent of each request.", "q2")
    coverage = [*FULL, Coverage(sub_question_id="q2", evidence_count=1, source_count=1, score=1.0, covered=True)]
    options: dict[str, object] = {"conflicts": 0, "needs_recent": False, "today": TODAY}
    score = confidence_score(question, plan, coverage, [quote, named_aside], {"s1": SOURCE}, **options)  # type: ignore[arg-type]
    assert score <= 50


def test_a_value_stated_only_in_another_settings_entry_is_not_sure() -> None:
    """The level at which processing stops is not told by the 'traceback' setting's default, however plainly it
    states one; the entry of the asked setting is."""
    question = "At what system message level does Docutils stop processing by default?"
    plan = PLAN.model_copy(update={"sub_questions": [SubQuestion(id="q1", text=question)]})

    def entry(section: str) -> Evidence:
        quote = "Default: disabled (None) unless Docutils is run programmatically."
        return _evidence(quote).model_copy(update={"section": section, "score": 0.9})

    assert answer_certainty(question, plan, [entry("traceback")], FULL) == 0.75
    assert answer_certainty(question, plan, [entry("halt_level")], FULL) == 1.0  # the level's own setting


def test_an_option_headed_with_its_arguments_is_another_settings_entry() -> None:
    """Manuals head an option's entry with its arguments ('rxcost num', '--label=label', 'hello interval time
    s|ms'): the name is the first word, and a default under it is that option's, not the asked interval's."""
    question = "How often does the Device protocol rescan the interface list by default?"
    plan = PLAN.model_copy(update={"sub_questions": [SubQuestion(id="q1", text=question)]})
    quote = _evidence("Default: 96 for wired interfaces, 256 for wireless.").model_copy(update={"score": 0.9})
    for section in ("rxcost num", "--label=label", "hello interval time s|ms"):
        assert answer_certainty(question, plan, [quote.model_copy(update={"section": section})], FULL) == 0.75
    assert answer_certainty(question, plan, [quote.model_copy(update={"section": "scan time num"})], FULL) == 1.0


def test_another_settings_entry_does_not_make_a_loosely_stated_value_sure() -> None:
    """'The default is 4' under 'worker_prefetch_multiplier' is clearly a default, but of another setting; beside
    it, a loosely relevant quote's value is still only loosely found."""
    question = "How long does the queue keep unconsumed messages by default?"
    plan = PLAN.model_copy(update={"sub_questions": [SubQuestion(id="q1", text=question)]})
    other = _evidence("The default is 4 (four for each process).").model_copy(
        update={"section": "worker_prefetch_multiplier", "score": 0.9, "answer": 1.0}
    )
    loose = _evidence("The default visibility timeout is 30 minutes.").model_copy(update={"score": 0.3, "answer": 1.0})
    assert answer_certainty(question, plan, [other, loose], FULL) == 0.75
    assert answer_certainty(question, plan, [other, loose.model_copy(update={"score": 0.9})], FULL) == 1.0


def test_an_entry_whose_text_speaks_of_what_the_question_asks_is_the_asked_settings() -> None:
    question = "How long does a connection wait on a locked database before raising an error, by default?"
    plan = PLAN.model_copy(update={"sub_questions": [SubQuestion(id="q1", text=question)]})
    entry = _evidence(
        "timeout (float) – How many seconds the connection should wait before raising an exception, if the "
        "database is locked by another connection. Default five seconds."
    ).model_copy(update={"section": "Reference", "score": 0.6, "answer": 1.0})
    assert answer_certainty(question, plan, [entry], FULL) == 1.0


def test_a_value_beside_other_code_than_the_asked_is_not_sure() -> None:
    """Click's 80-column help width is no default of `click.progressbar`: a quote that names neither the asked code
    nor stands in its section gives the value of something else."""
    question = "What is the default width of click.progressbar in characters?"
    plan = PLAN.model_copy(update={"sub_questions": [SubQuestion(id="q1", text=question)]})
    other = _evidence("By default Click will not format content for more than 80 characters width.")
    other = other.model_copy(update={"score": 0.9, "answer": 1.0, "section": "Help Page Formatting"})
    assert answer_certainty(question, plan, [other], FULL) == 0.75
    assert answer_certainty(question, plan, [other.model_copy(update={"section": "progressbar"})], FULL) == 1.0
    named = _evidence("The progressbar is 36 characters wide by default.").model_copy(update={"score": 0.9})
    assert answer_certainty(question, plan, [named], FULL) == 1.0


def test_a_definition_never_makes_a_question_what_something_is_for_sure() -> None:
    """'The virtproxyd program is a server side daemon component of ...' says what virtproxyd is, not what it is
    for: the extractive reasoner judges it a definition of the subject, which a reader has to weigh."""
    question = "What is virtproxyd for?"
    plan = PLAN.model_copy(update={"sub_questions": [SubQuestion(id="q1", text=question)]})
    defined = _evidence("The virtproxyd program is a server side daemon component of the libvirt system.")
    judged = defined.model_copy(update={"answer": 1.0})
    assert answer_certainty(question, plan, [judged], FULL) == 0.75
    asked_what = plan.model_copy(update={"sub_questions": [SubQuestion(id="q1", text="What is virtproxyd?")]})
    assert answer_certainty("What is virtproxyd?", asked_what, [judged], FULL) == 1.0
