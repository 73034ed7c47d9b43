"""Relations between sources: consensus on the same facts, conflicts on the same measured thing."""

from __future__ import annotations

import pytest

from research_assistant.reasoning.extractive.analysis import analyze_question
from research_assistant.reasoning.extractive.relations import find_conflicts, find_consensus
from research_assistant.reasoning.extractive.synthesis import write_report
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import Evidence, ResearchPlan, SourceRecord, SourceStatus, SubQuestion

OPENED = "The network opened on 14 September 1987."
OPENED_LONG = (
    "The new network opened on 14 September 1987 with a single line between Central Station and Mollegard, "
    "a distance of about six kilometres."
)
CARRIED = "The network carried 27.8 million passengers in 2023."
CARRIED_MORE = "In 2023 the network carried 31.4 million passengers, an increase of 6 percent over the previous year."


def items(*claims: str, sources: tuple[str, ...] = ()) -> list[Evidence]:
    """One evidence item per claim, each from its own source unless `sources` says otherwise."""
    return [
        Evidence(
            id=f"E{n}",
            claim=claim,
            quote=claim,
            source_id=sources[n] if sources else f"S{n}",
            sub_question_id="q1",
            score=0.9 - 0.1 * n,
        )
        for n, claim in enumerate(claims)
    ]


def conflicts(a: str, b: str, question: str = "", same_source: bool = False) -> list[tuple[int, int]]:
    evidence = items(a, b, sources=("S1", "S1") if same_source else ())
    return [(d.first, d.second) for d in find_conflicts(evidence, Embedder(), question)]


def consensus(a: str, b: str, question: str = "") -> list[list[int]]:
    return find_consensus(items(a, b), Embedder(), question)


def test_two_sources_that_state_the_same_date_agree_though_one_says_more() -> None:
    assert consensus(OPENED, OPENED_LONG, "When did the Halvorsby tram network open?") == [[0, 1]]
    assert conflicts(OPENED, OPENED_LONG) == []


def test_the_same_facts_with_reordered_words_agree() -> None:
    assert consensus("The Kallbacka depot opened in 2009.", "Kallbacka depot, which opened in 2009, stores 40 trams.")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (OPENED, "The depot opened on 2 March 2009."),  # other facts
        (OPENED, "The museum at Central Station opened on 14 September 1987 with an exhibition of old trams."),
        (OPENED, "The network closed on 14 September 1987."),  # the same date, another event
        (OPENED, "The network did not open on 14 September 1987 as planned but a year later."),  # negated
        ("The network opened in 1987.", "Passenger numbers grew in 1987."),  # only the year in common
        (CARRIED, CARRIED_MORE),  # different figures
    ],
)
def test_statements_that_share_a_figure_but_not_the_fact_do_not_agree(a: str, b: str) -> None:
    assert consensus(a, b) == []


def test_a_figure_the_question_gives_is_not_a_shared_fact() -> None:
    question = "What happened to the network in 2023?"
    assert consensus("The network was busy in 2023.", "The network was renamed in 2023 after a vote.", question) == []


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (CARRIED, CARRIED_MORE),
        ("The fleet consists of 64 trams.", "Today the fleet consists of 72 trams, all of them low-floor."),
        ("A single ticket costs 30 crowns.", "A single ticket now costs 35 crowns."),
        ("Line 7 will be 5.4 km long.", "Line 7 will be 7.2 km long, with six stops."),
    ],
)
def test_different_figures_for_the_same_measured_thing_conflict(a: str, b: str) -> None:
    assert conflicts(a, b) == [(0, 1)]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "The network carried 27.8 million passengers in 2022.",
            "In 2023 the network carried 31.4 million passengers.",
        ),
        ("The line is 12 km long.", "The line is 7 miles long."),  # different units
        (CARRIED, "In 2023 the network carried 31.4 million journeys."),  # different measured nouns
        (
            "On an average weekday the network carried 104,000 passengers in 2023.",
            "On an average Saturday the network carried 61,000 passengers in 2023.",
        ),  # different periods
        ("On an average weekday the network carried 104,000 passengers.", CARRIED),  # weekday vs annual
        (
            "The share of low-floor trams was 60 percent in 2023.",
            "The share of low-floor trams increased by 20 percent in 2023.",
        ),  # a level vs a percentage change
        (
            "In 2023 the network had 7 lines, 82 stops, 64 trams and 112 kilometres of track.",
            "In 2023 the network had 9 lines and 90 stops.",
        ),  # a list of figures
        ("The Kallbacka depot has 42 tram stalls.", "The Sundvik depot has 30 tram stalls."),  # different entities
        (CARRIED, "In 2023 the network carried 28.5 million passengers."),  # within 10%
        ("A single ticket costs 30 crowns.", "A monthly pass costs 550 crowns."),  # different things
        ("Python 3.11 is 25% faster than Python 3.10.", "Python 3.12 is 5% faster than Python 3.11."),  # versions
    ],
)
def test_figures_for_different_things_times_or_units_do_not_conflict(a: str, b: str) -> None:
    assert conflicts(a, b) == []


def test_one_source_never_conflicts_with_itself() -> None:
    assert conflicts(CARRIED, CARRIED_MORE, same_source=True) == []


def test_a_sentence_never_conflicts_with_itself_quoted_with_the_sentence_after_it() -> None:
    wal = "A database uses the write-ahead log when it is in WAL mode."
    assert conflicts(wal, f"{wal} A database uses either a rollback journal or a WAL, but not both.") == []


QUESTION = "When did the Halvorsby tram network open?"
PLAN = ResearchPlan(
    sub_questions=[
        SubQuestion(id="q1", text=QUESTION),
        SubQuestion(id="q2", text="How has the Halvorsby tram network changed over time?"),
    ],
    min_sources=2,
    min_evidence_per_question=1,
)
SOURCES = [
    SourceRecord(id=f"S{n}", locator=f"/docs/{n}.md", title=f"Doc {n}", provider="local", status=SourceStatus.READ)
    for n in range(4)
]


def test_the_report_cites_every_agreeing_source_and_both_sides_of_a_conflict() -> None:
    evidence = [
        *items(OPENED, OPENED_LONG),
        *(
            e.model_copy(update={"id": f"E{n + 2}", "source_id": f"S{n + 2}", "sub_question_id": "q2"})
            for n, e in enumerate(items(CARRIED, CARRIED_MORE))
        ),
    ]
    report = write_report(QUESTION, analyze_question(QUESTION), PLAN, evidence, SOURCES, None, Embedder())
    # each agreeing source is quoted in its own words and cited alone: S1 never says OPENED word for word
    assert [[v.evidence_ids for v in (f, *f.agreeing)] for f in report.consensus] == [[["E0"], ["E1"]]]
    assert [v.text for v in (report.consensus[0], *report.consensus[0].agreeing)] == [OPENED, OPENED_LONG]
    assert [sorted(i for f in c.sides for i in f.evidence_ids) for c in report.conflicts] == [["E2", "E3"]]
    assert "passengers" in report.conflicts[0].topic
