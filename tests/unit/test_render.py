"""The rendered report: numbering, sections, quotes, hostile text, run facts."""

from __future__ import annotations

import re

import pytest
from support.citations import check_rendered_citations

from research_assistant.context import CitationStyle
from research_assistant.report.render import render_report
from research_assistant.report.summary import RunSummary
from research_assistant.report.verify import parse_sources
from research_assistant.schemas import (
    Conflict,
    Evidence,
    Finding,
    Notice,
    ReportSection,
    ResearchReport,
    SourceRecord,
    SourceStatus,
)

TEXTS = {
    "/corpus/a.md": "Alpha says the cache is fast. It also says: restarts are rare.",
    "/corpus/b.md": "Beta reports that the cache is slow under load.",
    "/corpus/c.md": "Gamma notes nothing in particular.",
}
SOURCES = {
    sid: SourceRecord(id=sid, locator=loc, title=f"Doc {sid}", provider="local", status=SourceStatus.READ)
    for sid, loc in zip(("a", "b", "c"), TEXTS, strict=True)
}
EVIDENCE = {
    "ea": Evidence(id="ea", claim="fast", quote="the cache is fast", source_id="a", sub_question_id="q1"),
    "ea2": Evidence(id="ea2", claim="rare", quote="restarts are rare", source_id="a", sub_question_id="q1"),
    "eb": Evidence(id="eb", claim="slow", quote="the cache is slow under load", source_id="b", sub_question_id="q1"),
    "ec": Evidence(id="ec", claim="none", quote="nothing in particular", source_id="c", sub_question_id="q2"),
}


def _report(**fields: object) -> ResearchReport:
    return ResearchReport.model_validate({"title": "Cache report", "question": "Is the cache fast?", **fields})


def _render(report: ResearchReport, **kwargs: object) -> str:
    return render_report(report, SOURCES, EVIDENCE, CitationStyle.NUMERIC, **kwargs).markdown  # type: ignore[arg-type]


def _section(markdown: str, heading: str) -> str:
    match = re.search(rf"^## {heading}\n(.*?)(?=^## |\Z)", markdown, re.MULTILINE | re.DOTALL)
    assert match, f"no section {heading!r}"
    return match.group(1).strip()


def test_sources_are_numbered_by_first_citation() -> None:
    report = _report(
        summary=[Finding(text="Beta disagrees.", evidence_ids=["eb"])],
        key_findings=[Finding(text="Both were read", evidence_ids=["ea", "eb", "ea2"])],
        sections=[ReportSection(heading="Speed", findings=[Finding(text="Gamma", evidence_ids=["ec"])])],
    )
    markdown = _render(report)
    assert _section(markdown, "Summary") == "Beta disagrees [1]."
    assert _section(markdown, "Key findings") == "1. Both were read [1][2]"
    assert "### Speed\n\n- Gamma [3]" in markdown
    assert parse_sources(markdown) == {1: "/corpus/b.md", 2: "/corpus/a.md", 3: "/corpus/c.md"}
    sources = _section(markdown, "Sources")
    assert sources.index("[1] Doc b.") < sources.index("[2] Doc a.") < sources.index("[3] Doc c.")
    assert "  - \u201cthe cache is fast\u201d\n  - \u201crestarts are rare\u201d" in sources


def test_unknown_evidence_is_dropped_and_unsupported_findings_vanish() -> None:
    report = _report(
        key_findings=[
            Finding(text="Invented", evidence_ids=["nope"]),
            Finding(text="Partly real", evidence_ids=["nope", "ec"]),
        ]
    )
    markdown = _render(report)
    assert "Invented" not in markdown
    assert _section(markdown, "Key findings") == "1. Partly real [1]"
    assert list(parse_sources(markdown)) == [1]


def test_report_layout_and_optional_sections() -> None:
    plain = _render(_report(key_findings=[Finding(text="x", evidence_ids=["ea"])]))
    headings = re.findall(r"^#{1,2} .*$", plain, re.MULTILINE)
    assert headings == [
        "# Cache report",
        "## Summary",
        "## Key findings",
        "## Findings by sub-question",
        "## Gaps",
        "## Caveats",
        "## Sources",
    ]
    assert "**Question:** Is the cache fast?" in plain

    full = _render(
        _report(
            consensus=[Finding(text="Agreed", evidence_ids=["ea"])],
            conflicts=[
                Conflict(
                    topic="Speed",
                    sides=[Finding(text="fast", evidence_ids=["ea"]), Finding(text="slow", evidence_ids=["eb"])],
                ),
                Conflict(
                    topic="One-sided",
                    sides=[Finding(text="only", evidence_ids=["ec"]), Finding(text="x", evidence_ids=[])],
                ),
            ],
            gaps=["Nothing on cost"],
            caveats=["Small corpus"],
        ),
        notices=[Notice(message="skipped big.pdf: too large"), Notice(level="info", message="used cache")],
    )
    assert _section(full, "Consensus") == "- Agreed [1]"
    assert _section(full, "Conflicting evidence") == "- **Speed**\n  - fast [1]\n  - slow [2]"
    assert "One-sided" not in full and "[3]" not in full  # a skipped conflict numbers nothing
    assert _section(full, "Gaps") == "- Nothing on cost"
    assert _section(full, "Caveats") == "- Small corpus\n- skipped big.pdf: too large"
    assert "used cache" not in full


def test_verbatim_findings_are_curly_quoted_and_checkable() -> None:
    report = _report(summary=[Finding(text="restarts are rare.", evidence_ids=["ea2"], verbatim=True)])
    markdown = _render(report)
    assert _section(markdown, "Summary") == "\u201crestarts are rare.\u201d [1]"
    assert check_rendered_citations(markdown, TEXTS) == []


def test_hostile_quote_is_neutralised_but_still_verifies() -> None:
    hostile = "See ![x](http://evil/p.png) and <script>alert(1)</script> or [click](javascript:alert(1)) *now*"
    sources = {
        "h": SourceRecord(
            id="h", locator="https://evil.example/page", title="<img src=x> [t](javascript:x)", provider="web"
        )
    }
    evidence = {"eh": Evidence(id="eh", claim="c", quote=hostile, source_id="h", sub_question_id="q1")}
    report = _report(
        title="<script>bad()</script>",
        key_findings=[Finding(text=hostile, evidence_ids=["eh"], verbatim=True)],
        caveats=["![pixel](http://evil/track.gif)"],
    )
    markdown = render_report(report, sources, evidence, CitationStyle.APA).markdown
    for raw in ("<script>", "![", "](javascript:", "](http"):
        assert raw not in markdown
    assert re.findall(r"(?<!\\)<(?!https://evil\.example/page>)", markdown) == []  # no live HTML at all
    assert check_rendered_citations(markdown, {"https://evil.example/page": f"Intro. {hostile} Outro."}) == []
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").render(markdown)
    assert "<img" not in html and "<script" not in html
    assert re.findall(r'href="([^"]*)"', html) == ["https://evil.example/page"]


def test_run_summary_block_and_determinism() -> None:
    report = _report(summary=[Finding(text="fast", evidence_ids=["ea"])])
    meta = RunSummary(
        depth="quick",
        sources_read=3,
        sources_failed=1,
        evidence_count=4,
        confidence=72.4,
        iterations=2,
        stop_reason="confidence reached",
        reasoner="extractive",
        generated="2026-11-21",
    )
    markdown = _render(report, metadata=meta)
    assert markdown == _render(report, metadata=meta)
    about = _section(markdown, "About this report")
    assert "- Sources: 3 read, 1 failed" in about
    assert "- Confidence: 72/100" in about
    assert "- Research rounds: 2 (stopped: confidence reached)" in about
    assert "- Generated: 2026-11-21" in about
    assert markdown.index("## Sources") < markdown.index("## About this report")
    assert parse_sources(markdown) == {1: "/corpus/a.md"}


def test_empty_report_renders_placeholders() -> None:
    markdown = _render(_report())
    assert "_No sources were cited._" in markdown
    assert re.search(r"\[\d+\]", markdown) is None
    assert check_rendered_citations(markdown, {}) == []


def test_a_quick_answer_is_the_answer_its_sources_and_nothing_empty() -> None:
    answer = Finding(text="The cache is fast.", evidence_ids=["ea"])
    markdown = _render(_report(summary=[answer], key_findings=[answer], quick_answer=True))
    assert _section(markdown, "Answer") == "The cache is fast [1]."
    headings = re.findall(r"^## (.+)$", markdown, re.MULTILINE)
    assert headings == ["Answer", "Caveats", "Sources"]
    assert check_rendered_citations(markdown, TEXTS) == []


def test_a_consensus_quotes_each_agreeing_source_in_its_own_words() -> None:
    agreeing = Finding(text="the cache is slow under load", evidence_ids=["eb"], verbatim=True)
    third = Finding(text="nothing in particular", evidence_ids=["ec"], verbatim=True)
    lead = Finding(text="the cache is fast", evidence_ids=["ea"], verbatim=True)
    two = _render(_report(consensus=[lead.model_copy(update={"agreeing": [agreeing]})]))
    assert _section(two, "Consensus") == (
        "- \u201cthe cache is fast\u201d [1]; similarly \u201cthe cache is slow under load\u201d [2]"
    )
    assert check_rendered_citations(two, TEXTS) == []
    three = _render(_report(consensus=[lead.model_copy(update={"agreeing": [agreeing, third]})]))
    assert _section(three, "Consensus") == (
        "- \u201cthe cache is fast\u201d [1]; similarly \u201cthe cache is slow under load\u201d [2] and "
        "\u201cnothing in particular\u201d [3]"
    )
    unknown = _render(
        _report(consensus=[lead.model_copy(update={"agreeing": [Finding(text="x", evidence_ids=["?"])]})])
    )
    assert _section(unknown, "Consensus") == "- \u201cthe cache is fast\u201d [1]"


def test_a_quotation_in_a_written_statement_is_cited_only_to_evidence_that_holds_it() -> None:
    inside = Finding(text='Alpha calls it "fast" while Beta disagrees.', evidence_ids=["ea", "eb"])
    ending = Finding(text="Beta says \u201cslow under load\u201d.", evidence_ids=["ea", "eb"])
    invented = Finding(text='Gamma says "blazing".', evidence_ids=["ec", "ea"])
    markdown = _render(_report(key_findings=[inside, ending, invented]))
    assert _section(markdown, "Key findings").splitlines() == [
        '1. Alpha calls it "fast" [1] while Beta disagrees [1][2].',
        "2. Beta says &#8220;slow under load&#8221; [2].",  # no other source is cited right after the quotation
        '3. Gamma says "blazing" \\[unverified\\].',
    ]
    assert check_rendered_citations(markdown, TEXTS) == []


def test_a_quote_opens_with_the_heading_it_stands_under_unless_it_says_so_itself() -> None:
    evidence = {
        "eh": Evidence(
            id="eh",
            claim="c",
            quote="Alpha says the cache is fast",
            source_id="a",
            sub_question_id="q1",
            section="High Concurrency",
        ),
        "es": Evidence(
            id="es", claim="c", quote="restarts are rare", source_id="a", sub_question_id="q1", section="Restarts"
        ),
        "ec": Evidence(
            id="ec",
            claim="c",
            quote="the cache is slow under load",
            source_id="b",
            sub_question_id="q1",
            section="tail -f error_log",
        ),
        "en": Evidence(
            id="en", claim="c", quote="nothing in particular", source_id="c", sub_question_id="q1", section="See also"
        ),
    }
    findings = [Finding(text=e.quote, evidence_ids=[e.id], verbatim=True) for e in evidence.values()]
    report = _report(
        answer=findings[:1],
        summary=findings[:1],
        key_findings=findings,
        sections=[ReportSection(sub_question_id="q1", heading="Is it fast?", findings=findings)],
    )
    markdown = render_report(report, SOURCES, evidence, CitationStyle.NUMERIC).markdown
    assert "1. **High Concurrency:** \u201cAlpha says the cache is fast\u201d [1]" in markdown
    assert "- **High Concurrency:** \u201cAlpha says the cache is fast\u201d [1]" in markdown
    assert "2. \u201crestarts are rare\u201d [1]" in markdown  # 'Restarts' is said by the quote itself
    # A code line read as a heading, or a heading that only says what kind of text follows, is no label.
    assert "3. \u201cthe cache is slow under load\u201d [2]" in markdown
    assert "4. \u201cnothing in particular\u201d [3]" in markdown
    assert "**High Concurrency:**" not in _section(markdown, "Summary")
    # The answer says what its quote is about when only the heading does.
    assert _section(markdown, "Answer") == "**High Concurrency:** \u201cAlpha says the cache is fast\u201d [1]"
    assert check_rendered_citations(markdown, TEXTS) == []


def test_a_question_heading_labels_its_quote_without_a_colon() -> None:
    evidence = {
        "eq": Evidence(
            id="eq",
            claim="c",
            quote="Alpha says the cache is fast",
            source_id="a",
            sub_question_id="q1",
            section="Why is the cache fast?",
        )
    }
    finding = Finding(text="Alpha says the cache is fast", evidence_ids=["eq"], verbatim=True)
    markdown = render_report(_report(key_findings=[finding]), SOURCES, evidence, CitationStyle.NUMERIC).markdown
    assert "1. **Why is the cache fast?** \u201cAlpha says the cache is fast\u201d [1]" in markdown


@pytest.mark.parametrize(
    ("section", "labelled"), [("Games/Blocks", True), ("/etc/hosts", False), ("docs/conf.py", False)]
)
def test_one_slash_between_words_is_a_title_and_a_path_is_not(section: str, labelled: bool) -> None:
    evidence = {
        "eq": Evidence(
            id="eq",
            claim="c",
            quote="Tetris-like games with falling blocks.",
            source_id="a",
            sub_question_id="q1",
            section=section,
        )
    }
    finding = Finding(text=evidence["eq"].quote, evidence_ids=["eq"], verbatim=True)
    markdown = render_report(_report(key_findings=[finding]), SOURCES, evidence, CitationStyle.NUMERIC).markdown
    assert (f"1. **{section}:** \u201cTetris-like" in markdown) is labelled


def test_an_options_entry_term_labels_its_description() -> None:
    evidence = {
        "eq": Evidence(
            id="eq",
            claim="c",
            quote="Do not output anything on standard output, also suppress warnings.",
            source_id="a",
            sub_question_id="q1",
            section="-Q",
        )
    }
    finding = Finding(text=evidence["eq"].quote, evidence_ids=["eq"], verbatim=True)
    markdown = render_report(_report(key_findings=[finding]), SOURCES, evidence, CitationStyle.NUMERIC).markdown
    assert "1. **\\-Q:** \u201cDo not output anything" in markdown


def test_a_key_finding_that_repeats_an_earlier_one_word_for_word_is_listed_once() -> None:
    twice = {
        **EVIDENCE,
        "ea3": Evidence(id="ea3", claim="fast", quote="the cache is fast", source_id="a", sub_question_id="q2"),
    }
    report = _report(
        key_findings=[
            Finding(text="the cache is fast", evidence_ids=["ea"], verbatim=True),
            Finding(text="restarts are rare", evidence_ids=["ea2"], verbatim=True),
            Finding(text="the cache is fast", evidence_ids=["ea3"], verbatim=True),
        ]
    )
    key = _section(render_report(report, SOURCES, twice, CitationStyle.NUMERIC).markdown, "Key findings")  # type: ignore[arg-type]
    assert key.count("the cache is fast") == 1
    assert key.splitlines()[-1].startswith("2. ")
