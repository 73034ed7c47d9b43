"""Passages as a reader needs them: whole sentences, lists with their lead-in, no page navigation.

Retrieval returns chunks cut at a fixed size, so a chunk may begin or end inside a sentence ("... is
re-evaluated to see if the"), begin with the items of a list whose lead-in ("... contains the following
keys:") is in the chunk before, end on the heading of a section it does not hold, or carry a page's
navigation ("Prev | Up | Home | Next"). `widen_passages` widens each passage within its document to the
sentences it cuts and to the lead-in of a list it starts in, merges the passages of one document that then
overlap, and drops navigation lines and a dangling last heading. The text stays a span of the document
(navigation lines aside), so a quote taken from a passage is found in the document as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from research_assistant.schemas import Passage

CONTEXT_MARGIN = 900
"""Characters of whole paragraphs added on each side of a chunk: a chunk is cut at a fixed size, so the
sentence that answers is often in the paragraph before or after the one that matched ('hashable' / 'An
object is hashable if ...' ends one chunk; 'Hashability makes ...' starts the next)."""
MAX_WIDEN = 400
"""Characters a passage may grow at either end to finish the sentence it cuts."""
MAX_LEAD_IN = 600
"""Characters a passage may grow backwards to the lead-in of the list it starts in (or forwards to its items)."""
MAX_MERGED = 4000
"""Overlapping passages of one document are merged while the result stays within this many characters."""
_ITEM_CHARS = 300
"""A line this long or shorter can be a list item (HTML lists reach the text as one line per item)."""

_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "cf", "al", "mr", "mrs", "dr", "no", "fig", "approx", "ca"})
_SENTENCE_END = re.compile(r"""[.!?]["'”’)\]]*(?=\s)""")
ENDS_SENTENCE = re.compile(r"""[.!?:;]["'”’)\]]*\s*$""")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•·▪]\s|\d{1,3}[.)]\s|[a-z][.)]\s)")
_NAV_WORDS = frozenset({"prev", "previous", "next", "up", "home", "top", "contents", "index", "toc", "back"})
_NAV_SEPARATORS = re.compile(r"\s*(?:\||·|•|»|›|«|‹|::)\s*")
_TEXINFO_NAV = re.compile(r"^(?:next|previous|prev|up):\s", re.IGNORECASE)
_SECTION_NUMBER = re.compile(r"^\d+(?:\.\d+)+\.?$")


def is_navigation_line(line: str) -> bool:
    """Whether a line is a page's navigation: 'Prev | Up | Home | Next' or 'Next: X, Previous: Y, Up: Z'. (A bare
    section number is navigation only beside such a line: see `_navigation_lines`.)"""
    text = line.strip()
    if not text or len(text) > 200:
        return False
    if _TEXINFO_NAV.match(text):
        return sum(label in text.lower() for label in ("next:", "previous:", "prev:", "up:")) >= 2
    cells = [cell.strip().strip("[]()").lower() for cell in _NAV_SEPARATORS.split(text) if cell.strip()]
    return len(cells) >= 2 and sum(cell in _NAV_WORDS for cell in cells) >= 2


def _navigation_lines(lines: Sequence[str]) -> set[int]:
    """The indices of the navigation lines, and of a bare section number ('25.1.6') next to one (blank lines
    between aside), as it stands left of a breadcrumb. Elsewhere a bare number is content ('1.7', a code example's
    output), and dropping it would make a quote that spans it no span of the document."""
    navigation = {i for i, line in enumerate(lines) if is_navigation_line(line)}
    filled = [i for i, line in enumerate(lines) if line.strip()]
    for position, i in enumerate(filled):
        if _SECTION_NUMBER.match(lines[i].strip()):
            beside = filled[max(0, position - 1) : position] + filled[position + 1 : position + 2]
            if any(j in navigation for j in beside):
                navigation.add(i)
    return navigation


def _is_boundary(text: str, end: int) -> bool:
    """Whether a sentence-ending mark just before `end` really ends a sentence (not 'e.g.', not 'J.')."""
    word = re.search(r"(\S+)$", text[:end].rstrip("\"'”’)]"))
    token = word.group(1).rstrip(".!?").lower() if word else ""
    return not (token in _ABBREVIATIONS or (len(token) == 1 and token.isalpha()))


def _sentence_start(doc: str, start: int) -> int:
    """The start of the sentence (or line) that `start` falls in, at most MAX_WIDEN characters back."""
    if start <= 0 or doc[start - 1] == "\n":
        return max(start, 0)
    floor = max(0, start - MAX_WIDEN)
    best = None
    newline = doc.rfind("\n", floor, start)
    if newline >= 0:
        best = newline + 1
    for match in _SENTENCE_END.finditer(doc, best if best is not None else floor, start):
        if _is_boundary(doc, match.end()):
            best = match.end()
    if best is None:
        return -1 if floor > 0 else 0
    while best < start and doc[best].isspace():
        best += 1
    return best


def _sentence_end(doc: str, end: int) -> int:
    """The end of the sentence (or line) that `end` falls in, at most MAX_WIDEN characters on."""
    if end >= len(doc) or doc[end] == "\n" or (ENDS_SENTENCE.search(doc[:end]) and doc[end].isspace()):
        return min(end, len(doc))
    ceiling = min(len(doc), end + MAX_WIDEN)
    newline = doc.find("\n", end, ceiling)
    limit = newline if newline >= 0 else ceiling
    for match in _SENTENCE_END.finditer(doc, end, limit):
        if _is_boundary(doc, match.end()):
            return match.end()
    return limit if newline >= 0 or ceiling == len(doc) else -1


def _item_like(line: str) -> bool:
    return bool(_LIST_MARKER.match(line)) or 0 < len(line.strip()) <= _ITEM_CHARS


def _lead_in_start(doc: str, start: int) -> int:
    """Where the lead-in ('... the following keys:') of the list that `start` begins in starts; else `start`."""
    if start > 0 and doc[start - 1] != "\n":
        return start
    first_line = doc[start : doc.find("\n", start) if "\n" in doc[start:] else len(doc)]
    if not _item_like(first_line) or first_line.rstrip().endswith(":"):
        return start
    floor = max(0, start - MAX_LEAD_IN)
    position = start
    while position > floor:
        line_start = doc.rfind("\n", 0, position - 1) + 1
        if line_start < floor:
            break
        line = doc[line_start : position - 1] if doc[position - 1] == "\n" else doc[line_start:position]
        if line.strip().endswith(":"):
            return line_start
        if line.strip() and not _item_like(line):
            break
        position = line_start
    return start


def _items_end(doc: str, end: int) -> int:
    """When a passage ends on a lead-in ('... as follows:'), the end of the list items that follow it."""
    if not doc[:end].rstrip().endswith(":"):
        return end
    ceiling = min(len(doc), end + MAX_LEAD_IN)
    position, last = end, end
    while position < ceiling:
        newline = doc.find("\n", position)
        line_end = newline if newline >= 0 else len(doc)
        if line_end > ceiling:
            break
        line = doc[position:line_end]
        if line.strip():
            if not _item_like(line):
                break
            last = line_end
        position = line_end + 1
    return last


@dataclass
class _Span:
    passage: Passage
    start: int
    end: int


def _paragraph_start(doc: str, start: int, margin: int) -> int:
    """The start of the first whole paragraph within `margin` characters before `start` (else `start`)."""
    cut = doc.find("\n\n", max(0, start - margin), start)
    return cut + 2 if cut >= 0 else start


def _paragraph_end(doc: str, end: int, margin: int) -> int:
    """The end of the last whole paragraph within `margin` characters after `end` (else `end`)."""
    cut = doc.rfind("\n\n", end, min(len(doc), end + margin))
    return cut if cut >= 0 else end


def _widen(passage: Passage, doc: str, margin: int) -> _Span | None:
    at = passage.start if passage.start >= 0 and doc.startswith(passage.text, passage.start) else doc.find(passage.text)
    if at < 0:
        return None
    first, last = _paragraph_start(doc, at, margin), _paragraph_end(doc, at + len(passage.text), margin)
    start, end = _sentence_start(doc, first), _sentence_end(doc, last)
    if start < 0:  # no sentence start within reach: begin at the first one inside the passage
        start = _first_sentence_start(doc, at, at + len(passage.text))
    if end < 0:
        end = _last_sentence_end(doc, start, at + len(passage.text))
    start = _lead_in_start(doc, start)
    end = _items_end(doc, end)
    return _Span(passage, start, end)


def _first_sentence_start(text: str, start: int, end: int) -> int:
    """Where the first whole sentence after `start` begins, if within the first two thirds; else `start`."""
    for match in _SENTENCE_END.finditer(text, start, end):
        if match.end() > start + 2 * (end - start) // 3:
            break
        if _is_boundary(text, match.end()):
            position = match.end()
            while position < end and text[position].isspace():
                position += 1
            return position
    return start


def _last_sentence_end(text: str, start: int, end: int) -> int:
    """Where the last whole sentence before `end` ends, if within the last two thirds; else `end`."""
    found = end
    for match in _SENTENCE_END.finditer(text, start + (end - start) // 3, min(len(text), end + 1)):
        if match.end() <= end and _is_boundary(text, match.end()):
            found = match.end()
    return found


def _trimmed(text: str) -> str:
    """A passage not found in its document: cut to the sentences it holds whole, where it has some."""
    start = 0 if not text[:1].islower() else _first_sentence_start(text, 0, len(text))
    end = len(text) if ENDS_SENTENCE.search(text) else _last_sentence_end(text, start, len(text))
    return text[start:end]


def _clean(text: str) -> str:
    """Without navigation lines, and without a last heading whose section the passage does not hold."""
    every = text.split("\n")
    navigation = _navigation_lines(every)
    lines = [line for i, line in enumerate(every) if i not in navigation]
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) >= 3 and not lines[-2].strip():
        last = lines[-1].strip()
        if len(last) <= 80 and not ENDS_SENTENCE.search(last):
            lines = lines[:-2]
    while lines and not lines[0].strip():
        lines.pop(0)
    return "\n".join(lines).strip()


def widen_passages(
    passages: Sequence[Passage], text_of: Callable[[str], str | None], margin: int = CONTEXT_MARGIN
) -> list[Passage]:
    """The passages widened by the whole paragraphs within `margin` around them, to whole sentences and to
    list lead-ins, merged where they overlap, in their order.

    `text_of` gives a source's full text (None when it is not at hand: the passage is then only trimmed to
    the sentences it holds whole).
    """
    documents: dict[str, str | None] = {}
    spans: list[_Span | Passage] = []
    for passage in passages:
        if passage.source_id not in documents:
            documents[passage.source_id] = text_of(passage.source_id)
        doc = documents[passage.source_id]
        span = _widen(passage, doc, margin) if doc else None
        if span is None:
            spans.append(passage.model_copy(update={"text": _clean(_trimmed(passage.text)) or passage.text}))
            continue
        for earlier in spans:
            if (
                isinstance(earlier, _Span)
                and earlier.passage.source_id == passage.source_id
                and span.start <= earlier.end
                and earlier.start <= span.end
                and max(span.end, earlier.end) - min(span.start, earlier.start) <= MAX_MERGED
            ):
                earlier.start, earlier.end = min(span.start, earlier.start), max(span.end, earlier.end)
                break
        else:
            spans.append(span)
    prepared = []
    for item in spans:
        if isinstance(item, Passage):
            prepared.append(item)
            continue
        doc = documents[item.passage.source_id] or ""
        text = _clean(doc[item.start : item.end])
        if text:
            prepared.append(item.passage.model_copy(update={"text": text, "start": doc.find(text, item.start)}))
    return prepared


KEYED_LIMIT = 4
"""Passages added per sub-question for the rows and entries keyed by a name the question uses."""
_TABLE_REACH = 3000
"""How far back a keyed table row looks for its table's header row."""


def _row_cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split(" | ")] if " | " in line else []


def _key_of(line: str) -> str:
    """What a line is keyed by: a table row's first cell, or a term line's whole text."""
    cells = _row_cells(line)
    return (cells[0] if cells else line.strip()).strip("'\"`‘’“” ")


def _table_start(doc: str, start: int) -> int:
    """The start of the table a row at `start` belongs to: its first row, where the header is."""
    floor = max(0, start - _TABLE_REACH)
    position = start
    while position > floor:
        previous_end = doc.rfind("\n\n", floor, position - 1)
        line_start = previous_end + 2 if previous_end >= 0 else floor
        line = doc[line_start:position].strip()
        if not _row_cells(line):
            break
        position = line_start
    return position


def keyed_passages(
    names: set[str], source_ids: Sequence[str], text_of: Callable[[str], str | None], limit: int = KEYED_LIMIT
) -> list[Passage]:
    """Passages for the table rows and definition-list terms keyed by one of `names` in the given sources.

    Retrieval ranks chunks by their words, and the row that answers 'the standard size of the 'h' format
    character' shares almost none with it: the question names the row's key instead. So every source
    read is searched for a line keyed by a name the question uses (a row's first cell, a term line), and
    the table (from its header row) or the entry around it becomes a passage of its own.
    """
    if not names:
        return []
    wanted = {name.strip("'\"`‘’“” ") for name in names}
    found: list[Passage] = []
    for source_id in source_ids:
        doc = text_of(source_id)
        if not doc:
            continue
        position = 0
        for line in doc.split("\n"):
            start, position = position, position + len(line) + 1
            if len(line) > 400 or _key_of(line) not in wanted:
                continue
            if _row_cells(line):  # the table from its header row down to this row
                first, end = _table_start(doc, start), start + len(line)
            else:  # the term line and the entry under it
                first, end = start, doc.find("\n\n", start + len(line) + 2)
                end = len(doc) if end < 0 else end
            text = doc[first:end]
            found.append(Passage(source_id=source_id, text=text, start=first, chunk_id=f"{source_id}@{first}"))
            if len(found) >= limit:
                return found
    return found


_HEADING_NUMBER = re.compile(r"^(?:#+\s*)?(?:(?:\d+|[A-Z])(?:\.\d+)*\.?\s+)?")
"""'8.4. ', 'A.2 ', '## ' before a heading's words."""
_HEADING_MAX_CHARS = 80
SECTION_CHARS = 1200
"""How much of a section under a heading is read as its opening: the paragraphs that say what it is about."""


def paragraphs_where(
    wanted: Callable[[str], bool],
    source_ids: Sequence[str],
    text_of: Callable[[str], str | None],
    limit: int = KEYED_LIMIT,
    *,
    reach: int = 0,
) -> list[Passage]:
    """Passages for the paragraphs of the given sources that `wanted` accepts; with `reach`, each passage goes on
    to the end of the paragraph that passes `reach` characters after the accepted one's start.

    What a question asks for may stand where retrieval does not look: an acronym is expanded once, on a page
    that uses it everywhere, in a paragraph that shares little else with the question.
    """
    found: list[Passage] = []
    for source_id in source_ids:
        doc = text_of(source_id)
        if not doc:
            continue
        start = 0
        while start < len(doc) and len(found) < limit:
            end = doc.find("\n\n", start)
            end = len(doc) if end < 0 else end
            if doc[start:end].strip() and wanted(doc[start:end]):
                close = doc.find("\n\n", start + reach) if reach else end
                close = len(doc) if close < 0 else close
                found.append(
                    Passage(source_id=source_id, text=doc[start:close], start=start, chunk_id=f"{source_id}@{start}")
                )
            start = end + 2
    return found


def sections_headed(
    term: str, source_ids: Sequence[str], text_of: Callable[[str], str | None], limit: int = KEYED_LIMIT
) -> list[Passage]:
    """Passages for the openings of the sections whose heading starts with `term` and goes on ('8.4. Shared
    Networks in DHCPv4' for 'shared network'), in the given sources.

    A manual defines a thing at the top of the section about it, often naming it only once ('This capability is
    called "shared networks"') on pages that use the name everywhere, so retrieval ranks that paragraph low."""
    if not term.strip():
        return []
    heading = re.compile(rf"{re.escape(term.strip().lower())}(?:e?s)?\s+\S")  # a term line alone is `keyed_passages`'s

    def headed(paragraph: str) -> bool:
        line = paragraph.strip()
        short = 0 < len(line) <= _HEADING_MAX_CHARS and "\n" not in line and line[-1] not in ".:;,?!"
        return short and heading.match(_HEADING_NUMBER.sub("", line).lower()) is not None

    return paragraphs_where(headed, source_ids, text_of, limit, reach=SECTION_CHARS)
