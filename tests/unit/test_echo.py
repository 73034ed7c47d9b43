"""What is echoed to the analyst: a huge URL is shortened wherever it is shown, and a message said many times
is shown once, with its count."""

from __future__ import annotations

from research_assistant.context import CitationStyle
from research_assistant.echo import URL_WIDTH, counted, shorten
from research_assistant.progress import ProgressEvent, SourceOutcome
from research_assistant.report.render import render_report
from research_assistant.runs.records import EventKind, RunRecord, TraceEvent
from research_assistant.schemas import Notice, ResearchReport, SourceRecord, SourceType
from research_assistant.secrets import REDACTED, remember
from research_assistant.state import union

HUGE_URL = "https://example.org/search?q=" + "kite" * 25_000  # 100 kB
RUN = {
    "run_id": "r",
    "question": "q",
    "parameters": {"depth": "quick", "source_types": ["web"], "citation_style": "numeric", "max_seconds": 60},
    "status": "failed",
    "started_at": 0.0,
    "updated_at": 0.0,
}


def test_a_huge_url_is_cut_to_a_line_and_the_rest_of_the_message_kept() -> None:
    shown = shorten(f"failed: {HUGE_URL}: HTTP 414 URI Too Long")
    assert shown.startswith("failed: https://example.org/search?q=kitekite")
    assert shown.endswith("… HTTP 414 URI Too Long") or shown.endswith("…: HTTP 414 URI Too Long")
    assert len(shown) < len("failed: ") + URL_WIDTH + len(": HTTP 414 URI Too Long") + 2


def test_short_text_and_paths_are_left_alone() -> None:
    assert shorten("read via http: Tidal kites") == "read via http: Tidal kites"
    path = "/tmp/" + "deep/" * 40 + "runs.sqlite"  # a path the analyst must be able to copy
    assert shorten(f"cannot write {path}: No space left on device") == f"cannot write {path}: No space left on device"


def test_a_key_in_a_huge_url_is_scrubbed_before_the_url_is_cut() -> None:
    key = "tvly-ECHOED-KEY-0123456789abcdef"
    remember(key)
    url = "https://api.example.org/v1/" + "x" * (URL_WIDTH - 40) + "?api_key=" + key + "&q=" + "y" * 1000
    shown = shorten(url)
    assert "tvly-ECHO" not in shown and len(shown) == URL_WIDTH
    assert REDACTED[:5] in shorten(f"{url[: URL_WIDTH - 10]} {key}")


def test_every_record_that_reaches_the_analyst_shortens_what_it_quotes() -> None:
    assert len(Notice(message=f"fetching {HUGE_URL} failed").message) < 200
    assert len(ProgressEvent(node="browse", message=f"failed: {HUGE_URL}").message) < 200
    outcome = SourceOutcome(source_id="s", locator=HUGE_URL, title=HUGE_URL, outcome="failed", reason=HUGE_URL)
    assert max(len(outcome.locator), len(outcome.title), len(outcome.reason)) == URL_WIDTH
    event = TraceEvent(run_id="r", seq=0, at=0.0, kind=EventKind.PROGRESS, message=HUGE_URL, source=outcome)
    assert len(event.model_dump_json()) < 1000
    record = RunRecord.model_validate({**RUN, "error": f"FetchError: {HUGE_URL}"})
    assert record.error.startswith("FetchError: https://example.org/") and len(record.error) < 200
    source = SourceRecord(id="s", locator=HUGE_URL, title="t", provider="p", source_type=SourceType.WEB)
    assert source.locator == HUGE_URL, "a source's locator is its identity: kept whole"
    failed = SourceRecord.model_validate({**source.model_dump(), "reason": f"redirect to {HUGE_URL}"})
    assert failed.reason is not None and len(failed.reason) < 200


def test_the_same_message_is_counted_not_repeated() -> None:
    assert counted(["a", "b", "a", "a"]) == ["a (repeated 3 times)", "b"]
    assert counted([]) == []


def test_a_provider_failing_for_every_query_is_one_caveat_with_its_count() -> None:
    dead = "search provider 'tavily' failed: Tavily could not be reached at 127.0.0.1:9"
    notices: list[Notice] = []
    for query in (f"query {n}" for n in range(56)):  # one search task per query, each with its notice
        notices = union(notices, [Notice(message=dead, subject=query)])
    notices = union(notices, notices)  # a subgraph hands back what it was given: nothing is counted twice
    notices = union(notices, [Notice(message=f"fetching {HUGE_URL} failed")])
    report = ResearchReport(title="Kites", question="How much?", caveats=["Offline extractive mode."])

    markdown = render_report(report, {}, {}, CitationStyle.NUMERIC, notices=notices).markdown

    caveats = markdown.split("## Caveats")[1].split("\n## ")[0].strip().splitlines()
    assert caveats[0] == "- Offline extractive mode."
    assert caveats[1] == f"- {dead} (repeated 56 times)"
    assert caveats[2].startswith("- fetching https\\://example.org/search?q=kite") and len(caveats[2]) < 200
    assert len(caveats) == 3
