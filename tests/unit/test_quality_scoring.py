"""The answer-quality benchmark's scores (benchmarks/quality/score.py), on hand-written and rendered reports."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from quality import score

from research_assistant.context import CitationStyle
from research_assistant.report.render import render_report
from research_assistant.report.summary import RunSummary
from research_assistant.schemas import (
    Coverage,
    Evidence,
    Finding,
    ProgressAssessment,
    ResearchPlan,
    ResearchReport,
    SourceRecord,
    SourceStatus,
    SubQuestion,
)

LANTERN = "/docs/corpus/lanterns/harbour.html"
FERRY = "http://127.0.0.1:8000/tiny/ferries/night-ferry.html"
TEXTS = {
    LANTERN: "The harbour lantern  was lit in 1871.\nIts keeper\u2019s log records 212 storms.",
    FERRY: "The night ferry crosses in forty minutes. It was built in 1871 as well.",
}


def report(body: str, sources: str | None = None, account: bool = True) -> str:
    """A report laid out as the product renders one: title, question, body, Sources, closing block."""
    if sources is None:
        sources = (
            f"[1] Harbour lantern. `{LANTERN}`. Accessed 2026-11-24. _(local document)_\n"
            "  - \u201cThe harbour lantern was lit in 1871.\u201d\n\n"
            f"[2] Night ferry. <{FERRY}>. Accessed 2026-11-24. _(web page)_"
        )
    closing = "\n\n## About this report\n\n- Depth: quick\n- Confidence: 72/100\n" if account else "\n"
    return (
        "# When was the lantern lit\n\n**Question:** When was the lantern lit?\n\n"
        f"## Summary\n\n{body}\n\n## Caveats\n\n- None.\n\n## Sources\n\n{sources}{closing}"
    )


# ---- answer_stated -------------------------------------------------------------------------------------------


def test_an_answer_in_the_body_is_stated_whatever_its_case_spacing_and_typography() -> None:
    markdown = report("\u201cIts keeper\u2019s log   records 212\nstorms.\u201d [1]")
    assert score.answer_stated(markdown, ["KEEPER'S LOG RECORDS 212 STORMS"])
    assert score.answer_stated(report("Built 1871\u20131872 [1]."), ["1871-1872"])
    assert not score.answer_stated(markdown, ["213 storms"])


def test_an_answer_only_in_the_sources_list_or_the_closing_block_is_not_stated() -> None:
    markdown = report("Nothing of note [2].")
    assert "lit in 1871" in markdown.split("## Sources")[1], "the Sources list quotes it"
    assert not score.answer_stated(markdown, ["lit in 1871"])
    assert not score.answer_stated(markdown, ["72/100"]), "the closing block is not the body"


def test_the_title_and_question_lines_do_not_state_an_answer() -> None:
    assert not score.answer_stated(report("Nothing of note [2]."), ["lantern lit"])


def test_markdown_escapes_are_read_as_the_reader_sees_them() -> None:
    markdown = report("\u201cSet\\_lamp\\_oil to 2\\*\\*3 litres &#8220;daily&#8221;.\u201d [1]")
    assert score.answer_stated(markdown, ["set_lamp_oil to 2**3 litres"])
    assert score.answer_stated(markdown, ['"daily"'])


def test_body_stops_at_the_sources_heading_and_drops_the_run_account() -> None:
    markdown = report("Lit in 1871 [1].")
    body = score.body_of(markdown)
    assert "Lit in 1871 [1]." in body and "## Sources" not in body and "Confidence" not in body
    no_sources = "# T\n\nBody [1].\n\n## About this report\n\n- Confidence: 50/100\n"
    assert "Confidence" not in score.body_of(no_sources)


# ---- citations_resolve -------------------------------------------------------------------------------------


def test_a_citation_without_a_sources_entry_does_not_resolve() -> None:
    markdown = report("Lit in 1871 [1][3]. Crossing in forty minutes [2, 4].")
    assert not score.citations_resolve(markdown)
    assert score.unresolved_citations(markdown) == [3, 4]
    assert score.citations_resolve(report("Lit in 1871 [1]. Forty minutes [2]."))


def test_escaped_brackets_from_a_document_are_not_citations() -> None:
    markdown = report("The log says \\[7\\] storms [1].")
    assert score.cited_numbers(markdown) == [1]
    assert score.citations_resolve(markdown)


def test_sources_entries_are_read_with_their_locators_and_listed_quotes() -> None:
    entries = score.source_entries(report("x [1]"))
    assert [(e.number, e.locator) for e in entries] == [(1, LANTERN), (2, FERRY)]
    assert entries[0].quotes == ("The harbour lantern was lit in 1871.",)


# ---- cited_holds_answer and gold_cited -----------------------------------------------------------------------


def test_the_cited_source_holds_the_answer_only_when_a_cited_source_has_it() -> None:
    assert score.cited_holds_answer(report("A claim [1]."), ["212 STORMS"], TEXTS)
    assert not score.cited_holds_answer(report("A claim [2]."), ["212 storms"], TEXTS), "only [1] has it"
    assert score.cited_holds_answer(report("A claim [2]."), ["forty minutes"], TEXTS)
    assert not score.cited_holds_answer(report("A claim [1]."), ["212 storms"], {}), "no text, no credit"


def test_gold_is_matched_on_the_page_path_at_the_end_of_a_file_path_or_url() -> None:
    assert score.gold_cited(report("A claim [1]."), ["lanterns/harbour.html"])
    assert score.gold_cited(report("A claim [2]."), ["ferries/night-ferry.html", "other.html"])
    assert not score.gold_cited(report("A claim [2]."), ["lanterns/harbour.html"]), "[1] is not cited"
    assert not score.gold_cited(report("A claim [1]."), ["harbour.htm", "bour.html"])
    assert score.is_page("http://127.0.0.1:8/tiny/a%20b/c.html?x=1", "a b/c.html")


# ---- quotations ----------------------------------------------------------------------------------------------


def test_verbatim_quotes_pass_each_source_they_cite() -> None:
    markdown = report("\u201cThe harbour lantern was lit in 1871.\u201d [1] \u201cIt was built in 1871\u201d [2].")
    check = score.check_quotes(markdown, TEXTS)
    assert (check.checked, check.misattributed, check.inexact, check.unresolved) == (2, 0, 0, 0)
    assert check.listed_checked == 1 and check.listed_misattributed == 0
    assert score.score_report(markdown, ["1871"], [], TEXTS)["quotes_verbatim"]


def test_a_quote_cited_to_a_source_that_lacks_it_is_misattributed() -> None:
    markdown = report("\u201cIts keeper\u2019s log records 212 storms.\u201d [2]")
    check = score.check_quotes(markdown, TEXTS)
    assert (check.checked, check.misattributed) == (1, 1)
    assert "not in [2]" in check.problems[0]


def test_a_quote_must_be_in_every_source_cited_after_it_not_just_one() -> None:
    for marks in ("[1][2]", "[1] [2]", "[1, 2]"):
        check = score.check_quotes(report(f"\u201cThe harbour lantern was lit in 1871.\u201d {marks}"), TEXTS)
        assert (check.checked, check.misattributed) == (1, 1), marks


def test_straight_quotes_followed_by_citations_are_checked_too() -> None:
    check = score.check_quotes(report('The note says "crosses in forty minutes" [2] and "sinks" [1].'), TEXTS)
    assert (check.checked, check.misattributed) == (2, 1)
    unquoted = score.check_quotes(report('A "lantern" of note, lit in 1871 [1].'), TEXTS)
    assert unquoted.checked == 0, "a quoted word not followed by a citation is not a quotation of a source"


def test_an_elided_quote_is_checked_piece_by_piece_in_order() -> None:
    for good in ("\u201cThe harbour lantern \u2026 lit in 1871.\u201d [1]", '"The harbour \\[...\\] 1871." [1]'):
        check = score.check_quotes(report(good), TEXTS)
        assert (check.checked, check.misattributed) == (1, 0), good
    for bad in (
        "\u201cThe harbour lantern ... lit in 1872.\u201d [1]",
        "\u201clit in 1871 \u2026 The harbour\u201d [1]",
    ):
        assert score.check_quotes(report(bad), TEXTS).misattributed == 1, bad


def test_escaped_curly_quotes_in_a_statement_are_quotations_too() -> None:
    statement = "The log counts &#8220;212 storms&#8221; [1] and &#8220;213 storms&#8221; [2]."
    check = score.check_quotes(report(statement), TEXTS)
    assert (check.checked, check.misattributed) == (2, 1)
    nested = "\u201cHe wrote &#8220;lit in 1871&#8221; in the log.\u201d [2]"
    assert score.quotations(report(nested)) == [score.Quotation("He wrote \u201clit in 1871\u201d in the log.", (2,))]


def test_an_inch_mark_does_not_open_a_quotation() -> None:
    markdown = report('A 5" lens and "crosses in forty minutes" [2].')
    assert score.quotations(markdown) == [score.Quotation("crosses in forty minutes", (2,))]


def test_a_quote_that_differs_only_in_case_or_typography_is_inexact_not_misattributed() -> None:
    check = score.check_quotes(report("\u201cits keeper's log records 212 storms.\u201d [1]"), TEXTS)
    assert (check.misattributed, check.inexact) == (0, 1)
    assert not score.score_report(report("\u201cits keeper's log\u201d [1]"), [], [], TEXTS)["quotes_verbatim"]


def test_quotes_with_unresolved_or_textless_citations_are_counted_apart() -> None:
    check = score.check_quotes(report("\u201cThe harbour lantern was lit in 1871.\u201d [1][5]"), TEXTS)
    assert (check.unresolved, check.misattributed) == (1, 0)
    check = score.check_quotes(report("\u201cThe harbour lantern was lit in 1871.\u201d [1]"), {})
    assert (check.no_text, check.misattributed) == (1, 0)


def test_a_passage_listed_under_the_wrong_source_is_caught() -> None:
    sources = f"[1] Night ferry. <{FERRY}>. _(web page)_\n  - \u201cThe harbour lantern was lit in 1871.\u201d"
    check = score.check_quotes(report("x [1]", sources), TEXTS)
    assert (check.listed_checked, check.listed_misattributed) == (1, 1)


# ---- the product's own signals -------------------------------------------------------------------------------


def _state(covered: bool, caveats: list[str], confidence: float = 64.0) -> dict[str, object]:
    plan = ResearchPlan(
        sub_questions=[
            SubQuestion(id="q2", text="What else?", priority=2),
            SubQuestion(id="q1", text="When was the lantern lit?", priority=1),
        ],
        min_sources=1,
        min_evidence_per_question=1,
    )
    coverage = [
        Coverage(sub_question_id="q1", evidence_count=1, source_count=1, score=0.9, covered=covered),
        Coverage(sub_question_id="q2", evidence_count=1, source_count=1, score=0.9, covered=True),
    ]
    return {
        "question": "When was the  lantern lit?",
        "plan": plan,
        "assessments": [ProgressAssessment(iteration=1, coverage=coverage, confidence=confidence)],
        "report": ResearchReport(title="t", question="q", caveats=caveats),
    }


def test_confidence_comes_from_the_last_assessment_else_from_the_closing_block() -> None:
    assert score.confidence_of(_state(True, [], 64.0)) == 64.0
    assert score.confidence_of({"assessments": [{"confidence": 12.5}]}) == 12.5
    assert score.confidence_of({}, report("x [1]")) == 72.0
    assert score.confidence_of({}, report("x [1]", account=False)) is None


def test_the_product_found_the_answer_when_its_question_is_covered_without_a_no_answer_caveat() -> None:
    assert score.answer_found_by_product(_state(True, []))
    assert not score.answer_found_by_product(_state(False, []))
    caveat = "None of the sources answers the question directly; the findings cover related aspects only."
    assert not score.answer_found_by_product(_state(True, [caveat]))
    assert score.answer_found_by_product({}) is None


# ---- a report rendered by the product ------------------------------------------------------------------------


def test_a_report_rendered_by_the_product_scores_as_expected() -> None:
    sources = {
        "s1": SourceRecord(
            id="s1", locator=LANTERN, title="Harbour [lantern]", provider="local", status=SourceStatus.READ
        ),
        "s2": SourceRecord(id="s2", locator=FERRY, title="Night ferry", provider="tavily", status=SourceStatus.READ),
    }
    evidence = {
        "e1": Evidence(
            id="e1", claim="c", quote="Its keeper\u2019s log records 212 storms.", source_id="s1", sub_question_id="q1"
        ),
        "e2": Evidence(id="e2", claim="c", quote="It was built in 1871 as well.", source_id="s2", sub_question_id="q1"),
    }
    draft = ResearchReport(
        title="Lantern",
        question="How many storms?",
        summary=[Finding(text="Its keeper\u2019s log records 212 storms.", evidence_ids=["e1"], verbatim=True)],
        key_findings=[
            Finding(text="It was built in 1871 as well.", evidence_ids=["e2"], verbatim=True),
            Finding(text="The ferry is as old as the lantern.", evidence_ids=["e1", "e2"]),
        ],
    )
    markdown = render_report(
        draft, sources, evidence, CitationStyle.NUMERIC, metadata=RunSummary(depth="quick", confidence=81.0)
    ).markdown
    scores = score.score_report(markdown, ["212 storms"], ["lanterns/harbour.html"], TEXTS)
    assert scores["answer_stated"] and scores["cited_holds_answer"] and scores["gold_cited"]
    assert scores["citations_resolve"] and scores["quotes_verbatim"]
    assert (scores["quotes_checked"], scores["misattributed"], scores["listed_quotes_checked"]) == (2, 0, 2)
    assert scores["confidence"] == 81.0
    assert set(scores) == score.SCORE_KEYS


# ---- summaries -----------------------------------------------------------------------------------------------


def _run(stated: bool, confidence: float, seconds: float) -> dict[str, object]:
    scores = score.score_report("", [], [], {})
    scores.update(answer_stated=stated, confidence=confidence, quotes_checked=2, misattributed=int(not stated))
    return {"scores": scores, "seconds": seconds}


def test_summaries_split_confidence_by_right_and_wrong_answers() -> None:
    runs = [_run(True, 90, 1.0), _run(True, 70, 3.0), _run(False, 85, 2.0), _run(False, 40, 4.0)]
    runs.append({"scores": None, "seconds": 9.0})
    summary = score.summarise(runs)
    assert summary["runs"] == 5 and summary["errors"] == 1
    assert summary["answer_stated_pct"] == pytest.approx(50.0)
    assert (summary["median_confidence_right"], summary["median_confidence_wrong"]) == (80.0, 62.5)
    assert summary["wrong_confident"] == 1
    assert (summary["quotes_checked"], summary["quotes_misattributed"]) == (8, 2)
    assert summary["median_seconds"] == 3.0
