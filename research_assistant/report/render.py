"""The report as Markdown: numbered citations, sections, and a Sources list.

Citation numbers belong to sources, assigned in order of first citation while the
document is written top to bottom, so `[1]` is always the first source a reader meets.
Only findings that can cite at least one known source are written; a citation is
never printed without its Sources entry, and a quotation is followed only by the
citations of sources that hold it. All document-derived text goes through
`escape_markdown`; the renderer's own syntax (headings, list markers, `[n]`, the curly
quotes around verbatim findings) is the only live Markdown in the output.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from research_assistant.context import CitationStyle
from research_assistant.echo import counted, series, shorten
from research_assistant.report.citations import escape_markdown, format_locator, format_source, plain_text
from research_assistant.report.quotations import collapse, quotations, quoted_in
from research_assistant.report.summary import RunSummary, render_run_summary
from research_assistant.report.support import UNVERIFIED
from research_assistant.schemas import Evidence, Finding, Notice, ResearchReport, SourceRecord, SourceStatus
from research_assistant.text.tokens import OPTION_TERM, words

_QUIET_LEVELS = frozenset({"info", "debug"})
_UNVERIFIED = escape_markdown(UNVERIFIED)
_TRAILING = " .,;:!?)"


class _Citations:
    """Numbers sources by first citation and collects the quotes cited from each."""

    def __init__(self, sources: Mapping[str, SourceRecord], evidence: Mapping[str, Evidence]) -> None:
        self._sources = sources
        self._evidence = evidence
        self.numbers: dict[str, int] = {}
        self.quotes: dict[str, list[str]] = {}

    def resolve(self, finding: Finding) -> list[Evidence]:
        """The finding's evidence that leads to a known source, without numbering anything yet."""
        items = [self._evidence[eid] for eid in finding.evidence_ids if eid in self._evidence]
        return [item for item in items if item.source_id in self._sources]

    def cite(self, items: Sequence[Evidence]) -> str:
        """`[n]` marks for the items' distinct sources, ascending; numbers new sources as met."""
        numbers: set[int] = set()
        for item in items:
            numbers.add(self.numbers.setdefault(item.source_id, len(self.numbers) + 1))
            quotes = self.quotes.setdefault(item.source_id, [])
            normalised = " ".join(item.quote.split())
            if normalised and normalised not in quotes:
                quotes.append(normalised)
        return "".join(f"[{n}]" for n in sorted(numbers))

    def line(self, finding: Finding, items: Sequence[Evidence] | None = None, labelled: bool = False) -> str | None:
        """The finding with its citations, or None when nothing it cites is known.

        A verbatim finding is quoted and cited to its own evidence; each finding that agrees with it follows
        (`“A” [1]; similarly “B” [2]`), quoted and cited on its own. `labelled`: a quote whose words do not
        say what it is about opens with the heading it stands under in its source (`**High Concurrency:**
        “SQLite supports ...” [1]`). A model-written statement is cited at its end, and each quotation
        inside it right after the quotation, only to the evidence that holds it.
        """
        items = self.resolve(finding) if items is None else items
        if not finding.verbatim:
            return self._statement(finding.text, items) if items else None
        voices = [(finding, items), *((agreeing, self.resolve(agreeing)) for agreeing in finding.agreeing)]
        quoted = [f"\u201c{escape_markdown(voice.text)}\u201d {self.cite(cited)}" for voice, cited in voices if cited]
        if not quoted:
            return None
        first, *others = quoted
        label = _label(items) if labelled and voices[0][1] else ""
        if label:  # a question heading ('What is backscatter mail?') takes no colon
            first = f"**{escape_markdown(label)}{'' if label.endswith('?') else ':'}** {first}"
        if not others:
            return first
        return f"{first}; similarly {series(others)}"

    def _statement(self, statement: str, items: Sequence[Evidence]) -> str:
        """A model-written statement with its citations; a quotation in it is cited right after it, only to the
        items whose quote holds it (else marked unverified), and one that ends the statement ends its citations."""
        text = escape_markdown(statement)
        parts: list[str] = []
        position = 0
        for quotation in quotations(text):
            holders = [item for item in items if quoted_in(quotation.text, collapse(item.quote))]
            parts += [text[position : quotation.end], " ", self.cite(holders) if holders else _UNVERIFIED]
            position = quotation.end
        rest = text[position:]
        if parts and not rest.strip(_TRAILING):  # no other source may be cited right after the quotation
            return "".join(parts) + rest
        text, marks = "".join(parts) + rest, self.cite(items)
        if text.endswith(".") and not text.endswith("\\."):
            return f"{text[:-1]} {marks}."
        return f"{text} {marks}"


_LABEL_MAX_CHARS = 60
_NOT_A_TITLE = re.compile(
    r"[=@#\"'<>{}\[\]$\\|→]|(?:^|\s)-{1,2}\w|(?:^|\s)\d+(?:\s|$)"
    r"|(?:^|\s)(?:~|\.{1,2})?/|/\S*/|[\w-]*[._][\w-]*/|/[\w-]*[._]"
)
"""Marks of a code line, command or path read as a heading ('tail -f error_log', 'LimitRequestBody 102400',
'/etc/hosts', 'docs/conf.py'). One slash between words is a title's ('Games/Blocks', 'Input/Output')."""
_GENERIC_TITLES = frozenset(
    {
        *("note", "notes", "warning", "warnings", "caution", "important", "tip", "tips", "see", "summary"),
        *("description", "synopsis", "example", "examples", "overview", "introduction", "contents"),
    }
)
"""First words of headings that say what kind of text follows, not what it is about ('See also', 'Note')."""


def _label(items: Sequence[Evidence]) -> str:
    """The heading a quote stands under, when it reads as a title and the quote does not already say it."""
    section = items[0].section.strip().rstrip(":").strip() if items else ""
    if not section or len(section) > _LABEL_MAX_CHARS:
        return ""
    if OPTION_TERM.match(section):
        return section  # an option's entry term, though it has the marks of a command
    if _NOT_A_TITLE.search(section):
        return ""
    title = words(section)
    if not title or title[0] in _GENERIC_TITLES:
        return ""
    # Said by the quote already ('Restarts' / 'restarts are rare'); but a name of joined words is said only as it
    # is written ('Games/Blocks' / 'Tetris-like games involving falling blocks').
    said = set(title) <= set(words(items[0].quote))
    if said and ("/" not in section or section.casefold() in items[0].quote.casefold()):
        return ""
    return section


def _cited_lines(findings: Sequence[Finding], citations: _Citations, labelled: bool = False) -> list[str]:
    """Each finding's line; a line that repeats an earlier one word for word (the same quote, found for two
    sub-questions under headings that are not shown) is said once."""
    lines = (citations.line(f, labelled=labelled) for f in findings)
    return list(dict.fromkeys(line for line in lines if line is not None))


def _section(heading: str, body: Sequence[str], empty: str) -> list[str]:
    return [f"## {heading}", "", *(body or [f"_{empty}_"]), ""]


def _conflicts(report: ResearchReport, citations: _Citations) -> list[str]:
    """Each conflict whose sides still cite at least two known sources, topic then sides."""
    lines: list[str] = []
    for conflict in report.conflicts:
        sides = [(side, citations.resolve(side)) for side in conflict.sides]
        sides = [(side, items) for side, items in sides if items]
        if len(sides) < 2:
            continue
        lines.append(f"- **{escape_markdown(conflict.topic) or 'Conflict'}**")
        lines += [f"  - {citations.line(side, items)}" for side, items in sides]
    return lines


def _caveats(report: ResearchReport, notices: Sequence[Notice]) -> list[str]:
    """Each caveat once, with how many times it was repeated (a dead search service fails every query)."""
    said = counted(n.message for n in notices if n.level.lower() not in _QUIET_LEVELS and n.message.strip())
    messages = [*dict.fromkeys(m for m in report.caveats if m.strip()), *said]
    return [f"- {escape_markdown(shorten(m))}" for m in messages]


def _unread(sources: Mapping[str, SourceRecord]) -> list[str]:
    """Each failed source with its reason, so the analyst sees what the report could not draw on."""
    failed = [source for source in sources.values() if source.status is SourceStatus.FAILED]
    return [
        f"- {escape_markdown(plain_text(source.title)) or 'Untitled'}: {format_locator(source.locator)} "
        f"({escape_markdown(source.reason or 'unknown reason')})"
        for source in sorted(failed, key=lambda s: s.locator)
    ]


def _report_body(report: ResearchReport, summary: str, citations: _Citations) -> list[str]:
    """A full report's sections between the answer and the caveats (no Summary when the answer says it all)."""
    lines: list[str] = []
    if summary or not report.answer:
        lines += _section("Summary", [summary] if summary else [], "No summary could be supported by the sources.")
    numbered = enumerate(_cited_lines(report.key_findings, citations, labelled=True), start=1)
    key = [f"{i}. {line}" for i, line in numbered]
    lines += _section("Key findings", key, "No key findings could be supported by the sources.")

    by_question: list[str] = []
    for section in report.sections:
        found = _cited_lines(section.findings, citations, labelled=True)
        body = [f"- {line}" for line in found] or ["_No verified findings._"]
        by_question += [f"### {escape_markdown(section.heading) or 'Findings'}", "", *body, ""]
    lines += _section("Findings by sub-question", by_question[:-1], "No findings.")

    consensus = [f"- {line}" for line in _cited_lines(report.consensus, citations)]
    if consensus:
        lines += _section("Consensus", consensus, "")
    conflicts = _conflicts(report, citations)
    if conflicts:
        lines += _section("Conflicting evidence", conflicts, "")

    gaps = [f"- {escape_markdown(gap)}" for gap in report.gaps if gap.strip()]
    lines += _section("Gaps", gaps, "None identified.")
    return lines


class RenderedReport(NamedTuple):
    markdown: str
    cited: list[str]
    """Ids of the sources the report cites, in the order of their numbers: `[n]` cites the n-th."""


def render_report(
    report: ResearchReport,
    sources: Mapping[str, SourceRecord],
    evidence: Mapping[str, Evidence],
    style: CitationStyle,
    notices: Sequence[Notice] = (),
    metadata: RunSummary | None = None,
) -> RenderedReport:
    """The report as deterministic Markdown, ending with its Sources list (and run facts), with the numbering
    of its citations.

    `sources` and `evidence` are keyed by id. Evidence ids that are unknown, or whose
    source is unknown, are left out; a finding left with no citation is not rendered.
    Run `verify_report` first: this function trusts the quotes it is given.
    """
    citations = _Citations(sources, evidence)
    lines = [f"# {escape_markdown(report.title) or 'Research report'}", ""]
    lines += [f"**Question:** {escape_markdown(report.question)}", ""]
    # The answer names what each quote is about when only its heading does ('**post-receive:** “This hook ...”').
    answer = " ".join(_cited_lines(report.answer, citations, labelled=True))
    if not report.quick_answer and (answer or report.answer_note):
        lines += _section("Answer", [answer or f"_{escape_markdown(report.answer_note)}_"], "")
    summary = " ".join(_cited_lines(report.summary, citations, labelled=report.quick_answer))  # there, the answer
    if report.quick_answer:
        lines += _section("Answer", [summary] if summary else [], "No answer could be supported by the sources.")
    else:
        lines += _report_body(report, summary, citations)
    lines += _section("Caveats", _caveats(report, notices), "None.")

    entries: list[str] = []
    for source_id, number in citations.numbers.items():
        entries += [format_source(sources[source_id], number, style, citations.quotes[source_id]), ""]
    lines += _section("Sources", entries[:-1], "No sources were cited.")
    unread = _unread(sources)
    if unread:
        lines += _section("Sources that could not be read", unread, "")
    if metadata is not None:
        lines += render_run_summary(metadata)
    return RenderedReport("\n".join(lines).strip() + "\n", list(citations.numbers))
