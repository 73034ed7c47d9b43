"""Scores of one report against one question: pure functions over the report's Markdown and source texts.

The report's layout is the product's (`research_assistant/report/render.py`): a body, a `## Sources`
list of `[n] ... <url>` or `` `path` `` entries (each followed by the passages quoted from it), maybe a
`## Sources that could not be read` list, and a closing `## About this report` block. The body is what
a reader takes as the answer, so answers count only there: the Sources list repeats every quote and the
closing block repeats run facts.

The citation checks are deliberately independent of the product's own (`report/verify.py`): they
find quotations in straight as well as curly quotes, accept `[1, 3]` as well as `[1][3]`, check each
piece of an elided quote, and require a quote to be in EVERY source cited after it, not just one.
Only the Sources-entry locator syntax is borrowed (`parse_locator`), since it is the product's format.
"""

from __future__ import annotations

import html
import re
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urlsplit

from research_assistant.report.citations import parse_locator

SOURCES_HEADING = re.compile(r"^## Sources[ \t]*$", re.MULTILINE)
RUN_ACCOUNT_HEADING = re.compile(r"^## About this report[ \t]*$", re.MULTILINE)
NEXT_SECTION = re.compile(r"^## ", re.MULTILINE)
ENTRY = re.compile(r"^\[(\d+)\] (.*)$")
LISTED_QUOTE = re.compile(r"^[ \t]+- \u201c(.*)\u201d[ \t]*$")
QUESTION_LINE = re.compile(r"^(?:# .*|\*\*Question:\*\* .*)$", re.MULTILINE)

CITATION = re.compile(r"(?<!\\)\[(\d+(?:[ \t]*,[ \t]*\d+)*)\]")
"""`[1]` or `[1, 3]`; an escaped `\\[1]` is document text, not a citation."""
CITATIONS_AFTER = re.compile(r"[ \t]*((?:(?<!\\)\[\d+(?:[ \t]*,[ \t]*\d+)*\][ \t]*)+)")
"""One or more citations right after a closing quote: `[1]`, `[1][3]`, `[1] [3]`, `[1, 3]`."""
CURLY_QUOTATION = re.compile(r"\u201c([^\u201c\u201d\n]*)\u201d")
ENTITY_QUOTATION = re.compile(r"(?<!\\)&#8220;((?:(?!&#822[01];)[^\n])*)(?<!\\)&#8221;")
"""Curly quotes in document or model text, which the renderer writes as character references."""
STRAIGHT_QUOTATION = re.compile(r'(?<![\w"\\])"((?:[^"\n\\]|\\.)+)"(?!\w)')
"""`"…"` opened after no letter and closed before none, so that an inch mark (`5"`) opens nothing."""
ELLIPSIS = re.compile(r"\s*(?:\[\s*(?:\u2026|\.\.\.)\s*\]|\u2026|\.\.\.)\s*")
MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])|&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
TYPOGRAPHY = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u2026": "...",
        "\u00a0": " ",
    }
)
NO_DIRECT_ANSWER = ("answers the question directly", "answers the question closely")
"""Caveats the product writes when it knows its findings do not answer the question."""
CONFIDENT = 80.0


# ---- Reading a report ----------------------------------------------------------------------------------


def unescape(text: str) -> str:
    """What a CommonMark renderer shows for inline text: backslash escapes and character references resolved."""

    def replace(match: re.Match[str]) -> str:
        return match.group(1) if match.group(1) is not None else html.unescape(match.group(0))

    return MARKDOWN_ESCAPE.sub(replace, text)


def collapse(text: str) -> str:
    """Runs of whitespace (line breaks and no-break spaces included) as one space."""
    return " ".join(text.split())


def loose(text: str) -> str:
    """For finding an answer: case-folded, typographic quotes, dashes and ellipses made plain, whitespace collapsed."""
    return collapse(text.translate(TYPOGRAPHY)).casefold()


def body_of(markdown: str) -> str:
    """The report's body: everything before the Sources list, without the closing run-account block."""
    heading = SOURCES_HEADING.search(markdown)
    body = markdown[: heading.start()] if heading else markdown
    account = RUN_ACCOUNT_HEADING.search(body)
    return body[: account.start()] if account else body


def answer_text(markdown: str) -> str:
    """The body without its title and `**Question:**` line, which only restate the question."""
    return QUESTION_LINE.sub("", body_of(markdown))


@dataclass(frozen=True)
class SourceEntry:
    number: int
    locator: str | None
    quotes: tuple[str, ...] = ()
    """The passages listed under the entry, as written (still escaped)."""


def source_entries(markdown: str) -> list[SourceEntry]:
    """The `[n]` entries of the Sources list, in order."""
    heading = SOURCES_HEADING.search(markdown)
    if heading is None:
        return []
    following = NEXT_SECTION.search(markdown, heading.end())
    section = markdown[heading.end() : following.start() if following else len(markdown)]
    entries: list[tuple[int, str | None, list[str]]] = []
    for line in section.splitlines():
        if entry := ENTRY.match(line):
            entries.append((int(entry.group(1)), parse_locator(entry.group(2)), []))
        elif (quote := LISTED_QUOTE.match(line)) and entries:
            entries[-1][2].append(quote.group(1))
    return [SourceEntry(number, locator, tuple(quotes)) for number, locator, quotes in entries]


def source_locators(markdown: str) -> dict[int, str]:
    """Citation number -> locator, from the Sources list."""
    return {e.number: e.locator for e in source_entries(markdown) if e.locator is not None}


def numbers_in(marks: str) -> list[int]:
    """The numbers of a run of citations such as `[1][3]` or `[1, 3]`, in order, without repeats."""
    found = (int(n) for group in CITATION.findall(marks) for n in re.findall(r"\d+", group))
    return list(dict.fromkeys(found))


def cited_numbers(markdown: str) -> list[int]:
    """Every number cited in the body, in order of first citation."""
    return numbers_in(body_of(markdown))


@dataclass(frozen=True)
class Quotation:
    text: str
    """As the reader sees it: unescaped, whitespace collapsed."""
    numbers: tuple[int, ...]


def _cited_after(line: str, end: int) -> tuple[int, ...]:
    match = CITATIONS_AFTER.match(line, end)
    return tuple(numbers_in(match.group(1))) if match else ()


def _line_quotations(line: str) -> list[Quotation]:
    """The cited quotations of one line: the renderer's `“…”` first; then, outside those (a verbatim quote may
    itself hold quotes), escaped curly quotes and straight ones. Positions are kept by masking with spaces."""
    found: list[tuple[int, Quotation]] = []
    masked = line
    for pattern in (CURLY_QUOTATION, ENTITY_QUOTATION, STRAIGHT_QUOTATION):
        for match in pattern.finditer(masked):
            if numbers := _cited_after(line, match.end()):
                found.append((match.start(), Quotation(collapse(unescape(match.group(1))), numbers)))
        masked = pattern.sub(lambda m: " " * len(m.group(0)), masked)
    return [quotation for _, quotation in sorted(found, key=lambda item: item[0])]


def quotations(markdown: str) -> list[Quotation]:
    """Every quotation in the body that is followed by citations, in order."""
    return [q for line in body_of(markdown).splitlines() for q in _line_quotations(line)]


# ---- Scores --------------------------------------------------------------------------------------------


def answer_stated(markdown: str, answers: Iterable[str]) -> bool:
    """Whether an accepted answer appears in the report's body (case, whitespace and typography aside)."""
    body = loose(unescape(answer_text(markdown)))
    return any(loose(answer) in body for answer in answers if answer.strip())


def unresolved_citations(markdown: str) -> list[int]:
    """Numbers cited in the body that have no entry in the Sources list."""
    listed = {entry.number for entry in source_entries(markdown)}
    return [n for n in cited_numbers(markdown) if n not in listed]


def citations_resolve(markdown: str) -> bool:
    return not unresolved_citations(markdown)


def cited_locators(markdown: str) -> list[str]:
    """The locators of the sources the body cites, in order of first citation."""
    locators = source_locators(markdown)
    return [locators[n] for n in cited_numbers(markdown) if n in locators]


def cited_holds_answer(markdown: str, answers: Iterable[str], texts: Mapping[str, str]) -> bool:
    """Whether some source the body cites has, in the text the product read, an accepted answer.

    `texts` is keyed by locator (as the Sources list writes it).
    """
    wanted = [loose(answer) for answer in answers if answer.strip()]
    for locator in cited_locators(markdown):
        text = texts.get(locator)
        if text is not None and any(answer in loose(text) for answer in wanted):
            return True
    return False


def locator_path(locator: str) -> str:
    """The path part of a URL, or the file path itself."""
    if re.match(r"^[a-z][a-z0-9+.-]*://", locator, re.IGNORECASE):
        return unquote(urlsplit(locator).path)
    return locator


def is_page(locator: str, page: str) -> bool:
    """Whether a locator (file path or URL) is the gold page `page` (a path relative to the corpus root)."""
    path = locator_path(locator).replace("\\", "/")
    page = page.strip("/")
    return path == page or path.endswith("/" + page)


def gold_cited(markdown: str, pages: Iterable[str]) -> bool:
    """Whether the body cites one of the gold pages."""
    gold = [page for page in pages if page.strip()]
    return any(is_page(locator, page) for locator in cited_locators(markdown) for page in gold)


@dataclass
class QuoteCheck:
    """What checking the quotations found. A quotation is misattributed when a source cited right after it
    does not contain it (each piece, for an elided quote), even ignoring case and typography; inexact when
    every cited source contains it only that loosely. Unresolved and textless citations are counted apart."""

    checked: int = 0
    misattributed: int = 0
    inexact: int = 0
    unresolved: int = 0
    no_text: int = 0
    listed_checked: int = 0
    listed_misattributed: int = 0
    problems: list[str] = field(default_factory=list)


def quote_pieces(text: str) -> list[str]:
    """The parts of a quotation between ellipses, each of which must be in the source."""
    return [piece for piece in (collapse(p) for p in ELLIPSIS.split(text)) if piece.strip(" .,;:")]


def _in_order(pieces: Sequence[str], text: str) -> bool:
    """Whether every piece occurs in `text`, each after the one before."""
    position = 0
    for piece in pieces:
        found = text.find(piece, position)
        if found < 0:
            return False
        position = found + len(piece)
    return bool(pieces)


def _verdict(text: str, source: str) -> str:
    """'exact', 'loose' or 'missing': how the quotation's pieces occur, in order, in one source's collapsed text."""
    pieces = quote_pieces(text)
    if _in_order(pieces, source):
        return "exact"
    if _in_order([loose(piece) for piece in pieces], loose(source)):
        return "loose"
    return "missing"


def _short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def check_quotes(markdown: str, texts: Mapping[str, str]) -> QuoteCheck:
    """Check every quotation of the body against EACH source cited right after it, and every passage the
    Sources list shows under an entry against that entry's source. `texts` is keyed by locator."""
    locators = source_locators(markdown)
    collapsed: dict[str, str] = {}

    def text_of(number: int) -> str | None:
        locator = locators.get(number)
        if locator is None or locator not in texts:
            return None
        if locator not in collapsed:
            collapsed[locator] = collapse(texts[locator])
        return collapsed[locator]

    result = QuoteCheck()
    for quotation in quotations(markdown):
        result.checked += 1
        verdicts: list[str] = []
        for number in quotation.numbers:
            if number not in locators:
                result.unresolved += 1
                result.problems.append(f"[{number}] after \u201c{_short(quotation.text)}\u201d has no Sources entry")
                continue
            source = text_of(number)
            if source is None:
                result.no_text += 1
                result.problems.append(f"no text for [{number}] ({locators[number]})")
                continue
            verdicts.append(_verdict(quotation.text, source))
            if verdicts[-1] == "missing":
                result.problems.append(f"\u201c{_short(quotation.text)}\u201d is not in [{number}] {locators[number]}")
        if "missing" in verdicts:
            result.misattributed += 1
        elif "loose" in verdicts:
            result.inexact += 1
    for entry in source_entries(markdown):
        source = text_of(entry.number)
        for quote in entry.quotes:
            result.listed_checked += 1
            if source is not None and _verdict(collapse(unescape(quote)), source) == "missing":
                result.listed_misattributed += 1
                result.problems.append(f"listed under [{entry.number}] but not in it: \u201c{_short(quote)}\u201d")
    return result


# ---- Product signals from the run's final state ----------------------------------------------------------


def _field(record: Any, name: str, default: Any = None) -> Any:
    """A field of a pydantic record or of its JSON form."""
    return record.get(name, default) if isinstance(record, Mapping) else getattr(record, name, default)


def confidence_of(state: Mapping[str, Any], markdown: str = "") -> float | None:
    """The run's confidence (0-100): its last progress assessment, else the report's closing block."""
    assessments = state.get("assessments") or []
    if assessments:
        return float(_field(assessments[-1], "confidence"))
    match = re.search(r"^- Confidence: (\d+(?:\.\d+)?)/100$", markdown, re.MULTILINE)
    return float(match.group(1)) if match else None


def question_covered(state: Mapping[str, Any]) -> bool | None:
    """Whether the last assessment counts the question's own sub-question as covered (the plan's sub-question
    whose text is the question, else its first by priority); None when the run has no plan or assessment."""
    plan, assessments = state.get("plan"), state.get("assessments") or []
    subs = list(_field(plan, "sub_questions", None) or []) if plan is not None else []
    if not subs or not assessments:
        return None
    question = collapse(str(state.get("question", ""))).casefold()
    own = next((s for s in subs if collapse(str(_field(s, "text", ""))).casefold() == question), None)
    own = own or min(subs, key=lambda s: int(_field(s, "priority", 1)))
    coverage = {_field(c, "sub_question_id"): c for c in _field(assessments[-1], "coverage", [])}
    item = coverage.get(_field(own, "id"))
    return bool(_field(item, "covered", False)) if item is not None else False


def no_direct_answer_caveat(state: Mapping[str, Any]) -> bool:
    """Whether the report's caveats say that no source answers the question directly or closely."""
    report = state.get("report")
    caveats = [str(c) for c in (_field(report, "caveats", None) or [])] if report is not None else []
    return any(phrase in caveat for caveat in caveats for phrase in NO_DIRECT_ANSWER)


def answer_found_by_product(state: Mapping[str, Any]) -> bool | None:
    """The product's own view: its question is covered and it did not caveat that nothing answers it."""
    covered = question_covered(state)
    return None if covered is None else covered and not no_direct_answer_caveat(state)


# ---- One report, all scores --------------------------------------------------------------------------------


def score_report(
    markdown: str,
    answers: Sequence[str],
    pages: Sequence[str],
    texts: Mapping[str, str],
    state: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Every score of one report: `texts` maps locators to the text the product read; `state` is the run's
    final state (for confidence and the product's own view), when there is one."""
    quotes = check_quotes(markdown, texts)
    state = state or {}
    return {
        "answer_stated": answer_stated(markdown, answers),
        "cited_holds_answer": cited_holds_answer(markdown, answers, texts),
        "gold_cited": gold_cited(markdown, pages),
        "citations_resolve": citations_resolve(markdown),
        "unresolved_citations": unresolved_citations(markdown),
        "quotes_verbatim": quotes.misattributed == 0 and quotes.inexact == 0,
        "quotes_checked": quotes.checked,
        "misattributed": quotes.misattributed,
        "quotes_inexact": quotes.inexact,
        "quotes_without_text": quotes.no_text,
        "listed_quotes_checked": quotes.listed_checked,
        "listed_quotes_misattributed": quotes.listed_misattributed,
        "quote_problems": quotes.problems,
        "confidence": confidence_of(state, markdown),
        "answer_found_by_product": answer_found_by_product(state),
        "question_covered": question_covered(state),
        "no_direct_answer_caveat": no_direct_answer_caveat(state),
    }


SCORE_KEYS = frozenset(score_report("", [], [], {}).keys())


# ---- Summaries -----------------------------------------------------------------------------------------


def _median(values: Sequence[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def _percent(flags: Sequence[bool]) -> float | None:
    return round(100 * sum(flags) / len(flags), 1) if flags else None


def summarise(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The summary of a group of runs. A run is right when its body states an accepted answer."""
    scored = [run for run in runs if run.get("scores")]
    scores = [run["scores"] for run in scored]
    right = [s["confidence"] for s in scores if s["answer_stated"] and s["confidence"] is not None]
    wrong = [s["confidence"] for s in scores if not s["answer_stated"] and s["confidence"] is not None]
    return {
        "runs": len(runs),
        "errors": len(runs) - len(scored),
        "answer_stated_pct": _percent([s["answer_stated"] for s in scores]),
        "cited_holds_pct": _percent([s["cited_holds_answer"] for s in scores]),
        "gold_cited_pct": _percent([s["gold_cited"] for s in scores]),
        "product_found_pct": _percent([bool(s["answer_found_by_product"]) for s in scores]),
        "quotes_checked": sum(s["quotes_checked"] for s in scores),
        "quotes_misattributed": sum(s["misattributed"] for s in scores),
        "quotes_inexact": sum(s["quotes_inexact"] for s in scores),
        "citations_unresolved": sum(len(s["unresolved_citations"]) for s in scores),
        "median_confidence_right": _median(right),
        "median_confidence_wrong": _median(wrong),
        "wrong_confident": sum(1 for c in wrong if c >= CONFIDENT),
        "median_seconds": _median([float(run["seconds"]) for run in runs if run.get("seconds") is not None]),
    }
