"""The status panel's helpers: one line per step from the trace, running totals, and the progress bar."""

from __future__ import annotations

from research_assistant.page.progress import (
    MARKS,
    WARNING_MARK,
    Step,
    progress_fraction,
    step_markdown,
    steps,
    totals,
    totals_line,
)
from research_assistant.progress import MODEL_NODE, SourceOutcome
from research_assistant.runs.records import EventKind, TraceEvent

DONE, RUNNING, FAILED = (MARKS[state] + " · " for state in ("done", "running", "failed"))
WARNING = WARNING_MARK + " "


def event(kind: EventKind, node: str = "", message: str = "", level: str = "info", **extra: object) -> TraceEvent:
    return TraceEvent(run_id="r", seq=0, at=0.0, kind=kind, node=node, message=message, level=level, **extra)  # type: ignore[arg-type]


def start(node: str) -> TraceEvent:
    return event(EventKind.NODE_START, node)


def end(node: str, seconds: float = 0.5, **counts: float) -> TraceEvent:
    return event(EventKind.NODE_END, node, seconds=seconds, counts=counts)


def progress(node: str, message: str, level: str = "info", **counts: float) -> TraceEvent:
    return event(EventKind.PROGRESS, node, message, level, counts=counts)


def source(source_id: str, outcome: str, title: str = "T") -> TraceEvent:
    outcome_record = SourceOutcome(source_id=source_id, locator=f"/c/{source_id}", title=title, outcome=outcome)
    return event(EventKind.SOURCE, "browse", f"{outcome}: {title}", source=outcome_record)


def round_of_research(confidence: float, evidence: int) -> list[TraceEvent]:
    return [
        start("search"),
        start("search/run_query"),
        start("search/run_query"),
        end("search/run_query"),
        end("search/run_query"),
        progress("search", "5 results, 3 new sources, 3 to read", results=5),
        end("search"),
        start("browse"),
        start("browse/read_source"),
        source("a", "fetched"),
        source("b", "cached"),
        event(
            EventKind.SOURCE,
            "browse",
            "failed: *Bad* page: 404",
            "warning",
            source=SourceOutcome(source_id="c", locator="https://x.example/c", outcome="failed", reason="404"),
        ),
        end("browse/read_source"),
        end("browse"),
        start("extract"),
        progress("extract", f"{evidence} evidence items from 2 sources", total_evidence=evidence),
        end("extract"),
        start("evaluate_progress"),
        progress("evaluate_progress", f"round 1: confidence {confidence:.0f}/100", confidence=confidence),
        end("evaluate_progress"),
    ]


SETUP = [
    event(EventKind.RUN_START, message="started"),
    start("analyze_query"),
    progress("analyze_query", "factual question; keywords: tram"),
    end("analyze_query"),
    start("plan_strategy"),
    progress("plan_strategy", "2 sub-questions, 2 queries"),
    end("plan_strategy"),
    start("review_plan"),
    end("review_plan"),
]


def test_each_step_is_one_line_with_what_it_did() -> None:
    found = steps([*SETUP, *round_of_research(62, 4), start("search"), start("search/run_query")])
    assert [(s.node, s.round, s.state) for s in found] == [
        ("analyze_query", 0, "done"),
        ("plan_strategy", 0, "done"),
        ("search", 1, "done"),
        ("browse", 1, "done"),
        ("extract", 1, "done"),
        ("evaluate_progress", 1, "done"),
        ("search", 2, "running"),
    ], "a plan review that did not pause is not a step worth a line"
    search, browse = found[2], found[3]
    assert search.detail() == "2 queries; 5 results, 3 new sources, 3 to read"
    assert browse.detail() == "2 read (1 fetched, 1 cached), 1 failed"
    assert browse.warnings == ["failed: *Bad* page: 404"]
    assert found[5].detail() == "confidence 62/100"
    assert found[6].detail() == "0 queries so far"


def test_a_step_line_escapes_what_documents_said_and_lists_its_warnings() -> None:
    step = Step(
        "browse", round=2, state="done", seconds=1.25, warnings=[f"failed: [x](javascript:{i})" for i in range(7)]
    )
    lines = step_markdown(step)
    assert lines[0] == DONE + "**Read sources** (round 2): 0 read, 0 failed · 1.2 s"
    assert lines[1] == WARNING + "failed: \\[x\\]\\(javascript:0)"
    assert len(lines) == 1 + 5 + 1 and lines[-1] == WARNING + "… and 2 more warnings"
    assert (
        step_markdown(Step("mystery_node", message="**bold**"))[0] == RUNNING + "**mystery\\_node**: \\*\\*bold\\*\\*"
    )
    failed = Step("extract", state="failed", warnings=["failed: boom"])
    assert step_markdown(failed) == [
        FAILED + "**Extract evidence**",
        WARNING + "failed: boom",
    ]


def test_a_warning_repeated_in_a_step_is_shown_once_with_its_count() -> None:
    dead = "search provider 'tavily' failed: Tavily could not be reached at 127.0.0.1:9"
    events = [start("search"), *(progress("search", dead, "warning") for _ in range(24))]
    events += [progress("search", "search provider 'exa' failed: boom", "warning"), end("search")]
    [step] = steps(events)
    assert step_markdown(step)[1:] == [
        WARNING + f"{dead} (repeated 24 times)",
        WARNING + "search provider 'exa' failed: boom",
    ]


def test_a_failed_step_says_so() -> None:
    [step] = steps([start("extract"), event(EventKind.NODE_END, "extract", "failed: boom", "error")])
    assert step.state == "failed" and step.warnings == ["failed: boom"]


def test_a_step_a_run_left_unfinished_is_shown_stopped() -> None:
    cancelled = [*SETUP, start("search"), event(EventKind.RUN_END, message="cancelled")]
    assert steps(cancelled)[-1].state == "stopped" and step_markdown(steps(cancelled)[-1])[0].startswith(
        ":material/stop_circle: Stopped"
    )
    died = [*SETUP, start("browse")]  # the process died: no run_end; the resumed run starts over
    events = [*died, event(EventKind.RUN_START, message="resumed"), start("browse"), end("browse")]
    assert [(s.node, s.state) for s in steps(events)][-2:] == [("browse", "stopped"), ("browse", "done")]


def test_the_totals_sum_up_the_run_so_far() -> None:
    events = [*SETUP, *round_of_research(62, 4), *round_of_research(81, 7)]
    total = totals(events)
    sources = (total.sources_read, total.pages_fetched, total.pages_cached, total.pages_failed)
    assert (total.queries, *sources) == (4, 2, 1, 1, 1)
    assert (total.evidence, total.confidence, total.usage.tokens, total.usage.cost_usd) == (7, [62, 81], 0, 0.0)
    assert totals_line(total) == (
        "4 queries · 2 sources read (1 fetched, 1 from cache) · 1 failed · 7 evidence items · confidence 81/100"
    )


def test_tokens_and_cost_are_shown_only_when_a_model_reports_them() -> None:
    events = [progress(f"{MODEL_NODE}extraction", "x", input_tokens=1000, output_tokens=234, cost_usd=0.0125)]
    assert (
        totals_line(totals(events))
        == "0 queries · 0 sources read · 0 failed · 0 evidence items · 1,234 tokens · $0.0125"
    )


def test_the_progress_bar_moves_forward_and_ends_at_100_percent() -> None:
    events = [*SETUP, *round_of_research(62, 4), *round_of_research(81, 7)]
    events += [start("synthesize"), end("synthesize"), event(EventKind.RUN_END, message="completed")]
    fractions = [progress_fraction(events[:n], iteration_limit=3) for n in range(len(events) + 1)]
    assert fractions == sorted(fractions), "never goes back"
    assert fractions[0] == 0 and fractions[-1] == 1.0
    assert max(fractions[:-1]) < 1, "100% only once the run completed"
    assert progress_fraction(events[: events.index(start("synthesize")) + 1], 3) == 0.95
    many_rounds = [*SETUP, *(e for _ in range(12) for e in round_of_research(10, 1))]
    assert progress_fraction(many_rounds, 1) == 0.9, "more rounds than planned stay short of the report"


def test_a_run_that_ended_otherwise_does_not_reach_100_percent() -> None:
    events = [*SETUP, start("search"), event(EventKind.RUN_END, message="cancelled")]
    assert 0 < progress_fraction(events, 3) < 0.5


def test_model_calls_add_their_tokens_and_cost_to_the_step_that_made_them() -> None:
    events = [
        start("extract"),
        progress(
            "llm/extraction",
            "extraction: 1,000 tokens in, 200 out",
            input_tokens=1000,
            output_tokens=200,
            cost_usd=0.001,
        ),
        progress("extract", "4 evidence items from 2 sources", total_evidence=4),
        progress("llm/extraction", "extraction: reply from the cache, 0 tokens", cached=1),
        end("extract"),
    ]
    [step] = steps(events)
    assert (step.tokens, step.cost_usd, step.detail()) == (1200, 0.001, "4 evidence items from 2 sources")
    assert step_markdown(step) == [
        DONE + "**Extract evidence**: 4 evidence items from 2 sources · 1,200 tokens, $0.0010 · 0.5 s"
    ]
    assert totals(events).usage.tokens == 1200
