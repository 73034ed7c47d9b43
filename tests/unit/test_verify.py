"""Citation checks before rendering (verify_report) and after (check_rendered_citations)."""

from __future__ import annotations

from support.citations import check_rendered_citations

from research_assistant.context import CitationStyle
from research_assistant.report.attribution import AttributionCheck, enforce_quote_citations
from research_assistant.report.render import render_report
from research_assistant.report.verify import (
    VerificationSummary,
    parse_sources,
    verify_report,
)
from research_assistant.schemas import (
    Conflict,
    Evidence,
    Finding,
    ReportSection,
    ResearchReport,
    SourceRecord,
    SourceStatus,
)

TEXTS = {
    "good": "The library was released in 2021.\nIt supports   streaming\nresponses and retries.",
    "other": "Critics say the library is slow on large inputs.",
    "broken": "The library never worked.",
}
SOURCES = {
    "good": SourceRecord(id="good", locator="/docs/good.md", title="Good", provider="local", status=SourceStatus.READ),
    "other": SourceRecord(
        id="other", locator="https://example.org/other", title="Other", provider="web", status=SourceStatus.READ
    ),
    "broken": SourceRecord(
        id="broken", locator="/docs/broken.pdf", title="Broken", provider="local", status=SourceStatus.FAILED
    ),
}
EVIDENCE = {
    "e1": Evidence(id="e1", claim="released", quote="released in 2021", source_id="good", sub_question_id="q1"),
    "e2": Evidence(
        id="e2", claim="streaming", quote="It supports streaming responses", source_id="good", sub_question_id="q1"
    ),
    "fake": Evidence(id="fake", claim="fast", quote="the fastest library ever", source_id="good", sub_question_id="q1"),
    "dead": Evidence(id="dead", claim="never", quote="never worked", source_id="broken", sub_question_id="q1"),
    "e3": Evidence(id="e3", claim="slow", quote="slow on large inputs", source_id="other", sub_question_id="q1"),
}


def _verify(report: ResearchReport, calls: list[str] | None = None) -> tuple[ResearchReport, VerificationSummary]:
    def text(source_id: str) -> str | None:
        if calls is not None:
            calls.append(source_id)
        return TEXTS.get(source_id)

    return verify_report(report, EVIDENCE, SOURCES, text)


def _report(**fields: object) -> ResearchReport:
    return ResearchReport.model_validate({"title": "T", "question": "Q?", **fields})


def test_fabricated_quote_and_failed_source_are_removed_and_counted() -> None:
    report = _report(
        key_findings=[
            Finding(text="Released in 2021, and fast", evidence_ids=["e1", "fake"]),
            Finding(text="It never worked", evidence_ids=["dead"]),
            Finding(text="Streams (whitespace differs)", evidence_ids=["e2"]),
        ]
    )
    calls: list[str] = []
    verified, summary = _verify(report, calls)
    assert [f.evidence_ids for f in verified.key_findings] == [["e1"], ["e2"]]
    assert summary.checked == 4
    assert summary.removed == 2
    assert summary.dropped_findings == 1
    assert any("fake" in r and "quote not found" in r for r in summary.reasons)
    assert any("dead" in r and "not read (failed)" in r for r in summary.reasons)
    assert calls == ["good"]  # the failed source's text is never asked for; each text once
    assert report.key_findings[0].evidence_ids == ["e1", "fake"]  # the input is untouched


def test_unknown_evidence_and_misquoted_verbatim_findings_are_dropped() -> None:
    report = _report(
        summary=[
            Finding(text="released in 2021.", evidence_ids=["e1"], verbatim=True),
            Finding(text="released in 2022.", evidence_ids=["e1"], verbatim=True),
            Finding(text="made up", evidence_ids=["ghost"]),
        ],
        sections=[ReportSection(heading="Empty", findings=[Finding(text="x", evidence_ids=["ghost"])])],
    )
    verified, summary = _verify(report)
    assert [f.text for f in verified.summary] == ["released in 2021."]
    assert verified.sections == [ReportSection(heading="Empty", findings=[])]
    assert summary.removed == 1 and summary.dropped_findings == 3
    assert any("ghost" in r for r in summary.reasons)


def test_conflicts_need_two_sides_left() -> None:
    kept = Conflict(
        topic="Speed", sides=[Finding(text="a", evidence_ids=["e1"]), Finding(text="b", evidence_ids=["e3"])]
    )
    lost = Conflict(
        topic="Life", sides=[Finding(text="a", evidence_ids=["e1"]), Finding(text="b", evidence_ids=["dead"])]
    )
    verified, summary = _verify(_report(conflicts=[kept, lost]))
    assert verified.conflicts == [kept]
    assert summary.dropped_conflicts == 1


def test_clean_report_passes_unchanged() -> None:
    report = _report(key_findings=[Finding(text="ok", evidence_ids=["e1", "e3"])])
    verified, summary = _verify(report)
    assert verified == report
    assert summary == VerificationSummary(checked=2, removed=0)


def test_verified_report_renders_with_honest_citations() -> None:
    report = _report(
        summary=[Finding(text="It supports streaming\nresponses", evidence_ids=["e2", "fake"], verbatim=True)],
        key_findings=[Finding(text="slow on large inputs", evidence_ids=["e3", "dead"], verbatim=True)],
    )
    verified, _ = _verify(report)
    for style in CitationStyle:
        markdown = render_report(verified, SOURCES, EVIDENCE, style).markdown
        assert parse_sources(markdown) == {1: "/docs/good.md", 2: "https://example.org/other"}
        texts = {SOURCES[sid].locator: TEXTS[sid] for sid in SOURCES}
        assert check_rendered_citations(markdown, texts) == []
    # without verification the fabricated quote reaches the Sources list, and the checker sees it
    unverified = render_report(report, SOURCES, EVIDENCE, CitationStyle.NUMERIC).markdown
    problems = check_rendered_citations(unverified, {SOURCES[sid].locator: TEXTS[sid] for sid in SOURCES})
    assert any("the fastest library ever" in p for p in problems)


MARKDOWN = """# T

**Question:** Q?

## Summary

\u201cIt supports streaming responses\u201d [1] and \u201cslow on large inputs\u201d [2].

## Key findings

1. Something [3]

## Sources

[1] Good. `/docs/good.md`. _(local document)_
  - \u201creleased in 2021\u201d

[2] Other. <https://example.org/other>. _(web page)_

## About this report

- Depth: quick
"""


def test_checker_catches_dangling_citation_and_misquote() -> None:
    texts = {"/docs/good.md": TEXTS["good"], "https://example.org/other": TEXTS["other"]}
    problems = check_rendered_citations(MARKDOWN, texts)
    assert problems == ["citation [3] has no entry in Sources"]

    misquoted = MARKDOWN.replace("\u201cIt supports streaming", "\u201cIt supports fast streaming")
    problems = check_rendered_citations(misquoted, texts)
    assert len(problems) == 2 and "not found in [1]" in problems[1]

    wrong_source = MARKDOWN.replace("inputs\u201d [2]", "inputs\u201d [1]")
    assert any("slow on large inputs" in p for p in check_rendered_citations(wrong_source, texts))
    # cited to a source that holds it and to one that does not: each source cited must hold it
    also_wrong = MARKDOWN.replace("inputs\u201d [2]", "inputs\u201d [1][2]")
    assert check_rendered_citations(also_wrong, texts)[1:] == [
        "quotation in the body not found in [1]: \u201cslow on large inputs\u201d"
    ]


def test_checker_unescapes_before_comparing_and_reports_missing_text() -> None:
    markdown = "Body \u201ca \\*b\\* \\[c\\] &#8220;d&#8221;\u201d [1]\n\n## Sources\n\n[1] X. `/x.txt`.\n"
    assert check_rendered_citations(markdown, {"/x.txt": "a *b* [c] \u201cd\u201d"}) == []
    assert check_rendered_citations(markdown, {"/x.txt": "a \\*b\\* [c] d"}) != []
    assert check_rendered_citations(markdown, {}) == ["no text for source [1] (/x.txt)"]


# The final check on the rendered Markdown (enforce_quote_citations) ------------------------------------------

SHARED = "Both sources agree that the library is stable."
LOCATED = {
    "/docs/good.md": f"{TEXTS['good']} {SHARED}",
    "https://example.org/other": f"{TEXTS['other']}\n{SHARED}",
}


def _enforced(body: str, texts: dict[str, str] = LOCATED) -> tuple[str, AttributionCheck, list[str]]:
    markdown = f"# T\n\n{body}\n\n## Sources\n\n[1] Good. `/docs/good.md`.\n\n[2] Other. <https://example.org/other>.\n"
    calls: list[str] = []

    def text(locator: str) -> str | None:
        calls.append(locator)
        return texts.get(locator)

    repaired, check = enforce_quote_citations(markdown, text, parse_sources(markdown))
    assert check_rendered_citations(repaired, texts) == []  # the repaired report passes the checker
    assert len(calls) == len(set(calls))  # each source's text is read once
    return repaired.split("## Sources")[0].removeprefix("# T").strip("\n"), check, calls


def test_a_misattributed_quotation_loses_the_citation_and_keeps_the_right_one() -> None:
    body, check, _ = _enforced("- \u201cslow on large inputs\u201d [1][2]")
    assert body == "- \u201cslow on large inputs\u201d [2]"
    assert (check.checked, check.removed, check.dropped) == (2, 1, 0)
    assert check.reasons == ["[1] does not hold \u201cslow on large inputs\u201d"]


def test_a_quotation_every_cited_source_holds_keeps_all_its_citations() -> None:
    for marks in ("[1][2]", "[1] [2]", "[1, 2]"):
        body, check, _ = _enforced(f"\u201c{SHARED}\u201d {marks} and \u201creleased in 2021\u201d [1].")
        assert body == f"\u201c{SHARED}\u201d {marks} and \u201creleased in 2021\u201d [1]."  # untouched
        assert (check.checked, check.removed) == (3, 0)


def test_quotations_with_ellipses_are_checked_piece_by_piece() -> None:
    kept = "- \u201cThe library was released \u2026 streaming responses\u201d [1]"
    assert _enforced(kept)[0] == kept
    assert _enforced("- \u201creleased in 2021 [\u2026] It supports streaming\u201d [1]")[1].removed == 0
    assert _enforced("- \u201creleased in 2021 ... slow on large inputs\u201d [1][2]")[0] == ""  # in neither
    out_of_order = _enforced("- \u201cstreaming responses \u2026 The library was released\u201d [1]")
    assert out_of_order[1].removed == 1


def test_both_quote_styles_in_statements_are_checked_and_marked_when_left_uncited() -> None:
    body, check, _ = _enforced(
        '1. Critics call it "slow on large inputs" [1][2] yet it is "stable" [1].\n'
        "2. The docs say &#8220;It supports streaming responses&#8221; [2] and more [1][2]."
    )
    assert body == (
        '1. Critics call it "slow on large inputs" [2] yet it is "stable" [1].\n'
        "2. The docs say &#8220;It supports streaming responses&#8221; \\[unverified\\] and more [1][2]."
    )
    assert (check.removed, check.marked, check.dropped) == (2, 1, 0)


def test_a_quoted_finding_left_without_citations_is_dropped_like_verify_report_drops_it() -> None:
    body, check, _ = _enforced(
        "## Summary\n\n\u201creleased in 2021\u201d [1] \u201cthe fastest library ever\u201d [1] \u201cslow on large"
        " inputs\u201d [2]\n\n## Key findings\n\n1. \u201cthe fastest library ever\u201d [1][2]\n2. \u201cIt supports"
        " streaming responses\u201d [1]"
    )
    assert body == (
        "## Summary\n\n\u201creleased in 2021\u201d [1] \u201cslow on large inputs\u201d [2]\n\n## Key findings\n\n"
        "2. \u201cIt supports streaming responses\u201d [1]"
    )
    assert (check.removed, check.dropped) == (3, 2)


def test_a_conflict_left_with_one_side_goes_and_a_consensus_loses_only_the_wrong_citation() -> None:
    body, check, _ = _enforced(
        "## Consensus\n\n- \u201creleased in 2021\u201d [1]; similarly \u201cslow on large inputs\u201d [1][2]\n\n"
        "## Conflicting evidence\n\n- **Speed**\n  - \u201cslow on large inputs\u201d [2]\n"
        "  - \u201cthe fastest library ever\u201d [1]\n- **Kept**\n  - \u201creleased in 2021\u201d [1]\n"
        "  - \u201cslow on large inputs\u201d [2]"
    )
    assert body == (
        "## Consensus\n\n- \u201creleased in 2021\u201d [1]; similarly \u201cslow on large inputs\u201d [2]\n\n"
        "## Conflicting evidence\n\n- **Kept**\n  - \u201creleased in 2021\u201d [1]\n"
        "  - \u201cslow on large inputs\u201d [2]"
    )
    assert check.removed == 2


def test_unknown_sources_missing_texts_and_listed_quotes() -> None:
    body, check, _ = _enforced("- \u201creleased in 2021\u201d [1][3]", texts={"/docs/good.md": TEXTS["good"]})
    assert body == "- \u201creleased in 2021\u201d [1]" and check.removed == 1  # [3] has no Sources entry
    assert _enforced("- \u201creleased in 2021\u201d [1]", texts={})[0] == ""  # no text: nothing is proven

    markdown = (
        "# T\n\n- \u201creleased in 2021\u201d [1]\n\n## Sources\n\n[1] Good. `/docs/good.md`.\n"
        "  - \u201creleased in 2021\u201d\n  - \u201cthe fastest library ever\u201d\n\n## About this report\n\n- x\n"
    )
    repaired, check = enforce_quote_citations(markdown, {"/docs/good.md": TEXTS["good"]}.get, parse_sources(markdown))
    assert repaired == markdown.replace("  - \u201cthe fastest library ever\u201d\n", "")
    assert (check.checked, check.removed, check.dropped) == (3, 1, 1)


def test_escaped_brackets_and_inch_marks_are_not_citations_or_quotes() -> None:
    texts = {"/docs/good.md": 'a 5" screen [1] or "more"', "https://example.org/other": "x"}
    kept = '- A 5" screen \\[1\\] is "more" [1] than 7" ones [1][2].'
    body, check, _ = _enforced(kept, texts)
    assert body == kept and (check.checked, check.removed) == (1, 0)


def test_a_verbatim_finding_cites_only_the_sources_that_hold_its_words() -> None:
    shared = Finding(text="slow on large inputs", evidence_ids=["e3", "e1"], verbatim=True)
    verified, summary = _verify(_report(key_findings=[shared]))
    assert verified.key_findings == [shared.model_copy(update={"evidence_ids": ["e3"]})]
    assert summary.misattributed == 1 and summary.removed == 0


def test_a_consensus_keeps_its_agreeing_voices_and_needs_two() -> None:
    lead = Finding(text="released in 2021", evidence_ids=["e1"], verbatim=True)
    other = Finding(text="slow on large inputs", evidence_ids=["e3"], verbatim=True)
    fake = Finding(text="the fastest library ever", evidence_ids=["fake"], verbatim=True)
    consensus = [
        lead.model_copy(update={"agreeing": [other, fake]}),
        fake.model_copy(update={"agreeing": [other]}),
    ]
    verified, summary = _verify(_report(consensus=consensus))
    assert verified.consensus == [lead.model_copy(update={"agreeing": [other]})]
    assert any("consensus dropped" in reason for reason in summary.reasons)
