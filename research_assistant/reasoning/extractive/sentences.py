"""Sentence splitting with character spans, and the test for what counts as a real sentence.

Text is first cut into segments at blank lines and at line breaks that end a
heading, a list item, a table row or a sentence; lines that merely wrap are
joined. Each segment is then split with NLTK's Punkt English model, loaded from
the copy that llama-index-core ships (nothing is ever downloaded). Every span is
exact: `text[s.start:s.end] == s.text`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from research_assistant.reasoning.extractive.lexicon import AUXILIARY_VERBS, NAVIGATION_LABELS, NAVIGATION_PHRASES
from research_assistant.text.tokens import FILE_PATH, words

_LINE = re.compile(r"[^\n]*\n?")
_LIST_MARKER = re.compile(r"^\s*(?:[-*•·▪–—+>#]|\|(?![^\s|]+\|)|\d{1,3}[.)]\s|[a-zA-Z][.)]\s)")
ENDS_SENTENCE = re.compile(r"""[.!?:;]["'”’)\]]*$""")
_VALUE_LABEL_END = re.compile(
    r"(?:^|[.;]\s+)(?:default|defaults|maximum|minimum|max|min|range|values?|type|units?|limit)\s*:$", re.IGNORECASE
)
"""A line that ends on the label of a value ('... using krt_metric attribute. Default:'): a manual wrapped its line
there, and the value on the next line ('32.') completes the sentence; a lead-in's colon ('The options are:') does not
end this way."""
_WRAPPED_VALUE_CHARS = 40
_LEADING_JUNK = re.compile(r"^(?!>>>)(?:[#>*•·▪\-–—+|]+\s+|\d{1,3}[.)]\s+|\[\d{1,3}\]\s*|\[[a-z]\]\s*)+")
_CODE_START = re.compile(
    r"^(?:>>>|\.\.\.\s|\$\s|#include|def\s|class\s+\w+\s*[(:]|import\s|from\s+\S+\s+import\s|return\s|"
    r"print\(|[{}\]]|\[(?![A-Z][a-z]+[\s,:])|<(?![\w.*-]+>\s+[A-Za-z][a-z]*\s)|[A-Za-z_][\w.]*\s*=[^=])"
)
"""How a line of code opens; not an argument's description ('<timeout> is the time ...') nor a remark in
brackets ('[Interesting side note: ...')."""
_CODE_SYMBOLS = frozenset("{}[]()<>=;_\\/*&^%$#@~`|")
COPULA = re.compile(r"\s(?:is|are|was|were|means|stands for)\s")
"""A verb that makes a short line a statement ('slon is Russian for "elephant"'), not a term or title."""
_COPULA_LINE_WORDS = 5
_VERB_SUFFIX = re.compile(r"(?:ed|ing|es|s|ize|ise|ify|ate)$")
_REFERENCE = re.compile(
    r"^\^|\bRetrieved (?:on )?(?:\d{1,2} \w+|\w+ \d{1,2},?) \d{4}|\bArchived from the original\b|"
    r"\bISBN[ :]|\bdoi:\s*10\.",
    re.IGNORECASE,
)
"""Lines of a reference list ('^ a b "Reef facts". ... Retrieved 2 September 2023.')."""
_BREADCRUMB = re.compile(r"[»›]|\s>\s.*\s>\s")
_NAVIGATION = re.compile(rf"\b(?:{'|'.join(map(re.escape, NAVIGATION_PHRASES))})\b", re.IGNORECASE)
_NAVIGATION_LABEL = re.compile(rf"^\W*(?:{'|'.join(map(re.escape, NAVIGATION_LABELS))})\b", re.IGNORECASE)
_COLUMN_BAR = re.compile(r"(?<=\s)\|(?=\s)")
"""A bar between spaces, as the reader joins a table row's cells ('h | short | 2'); not an operator ('||')."""

_EXTRA_ABBREVIATIONS = ("e.g", "i.e", "cf", "vs", "approx", "al", "fig", "eq", "incl", "resp", "ca", "viz")
"""Abbreviations of technical prose that the news-trained Punkt model does not know."""

MAX_SENTENCE_CHARS = 420
"""Longer spans are split at semicolons; anything still longer than twice this is not evidence."""
API_SIGNATURE = re.compile(
    r"^@?(?:(?:class|exception|function|property|attribute|data|(?:abstract|async|static|class)?method)\s+)?"
    r"(?P<name>[A-Za-z_][\w.:]*)\([^()\n]*\)[^\n]*"
)
"""The line an API reference heads an entry with: a name (group `name`) and its parameters, after the kind of
thing it is ('class psycopg2.sql.Identifier(*strings)', 'get_logger(*args)', 'Xapian::Database::compact(...)')."""


@dataclass(frozen=True)
class Sentence:
    """One sentence of a text: `text` is exactly `source[start:end]`."""

    text: str
    start: int
    end: int
    segment: int
    """Index of the paragraph-like segment it came from; sentences of one segment are contiguous prose."""


def _read_lines(path: Path) -> list[str]:
    return [line.rstrip("\n") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@lru_cache(maxsize=1)
def _punkt() -> Any:
    """The Punkt English tokenizer, built from the bundled punkt_tab files (never downloaded)."""
    import llama_index.core
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    folder = Path(llama_index.core.__file__).parent / "_static" / "nltk_cache" / "tokenizers" / "punkt_tab" / "english"
    params = PunktParameters()
    params.abbrev_types = set(_read_lines(folder / "abbrev_types.txt"))
    params.sent_starters = set(_read_lines(folder / "sent_starters.txt"))
    params.collocations = {
        (pair[0], pair[1])
        for pair in (line.split("\t") for line in _read_lines(folder / "collocations.tab"))
        if len(pair) == 2
    }
    for line in _read_lines(folder / "ortho_context.tab"):
        word, _, value = line.partition("\t")
        if value.strip().isdigit():
            params.ortho_context[word] = int(value)
    params.abbrev_types.update(_EXTRA_ABBREVIATIONS)
    return PunktSentenceTokenizer(params)


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line's content, without its line break."""
    spans = []
    for match in _LINE.finditer(text):
        if match.start() == match.end():
            break
        end = match.end() - 1 if match.group().endswith("\n") else match.end()
        spans.append((match.start(), end))
    return spans


def _segments(text: str) -> list[tuple[int, int]]:
    """Paragraph-like spans: blank lines and hard line breaks separate them; wrapped lines are joined."""
    paragraphs: list[list[tuple[int, int]]] = [[]]
    for start, end in _lines(text):
        if text[start:end].strip():
            paragraphs[-1].append((start, end))
        elif paragraphs[-1]:
            paragraphs.append([])
    segments: list[tuple[int, int]] = []
    for lines in paragraphs:
        if not lines:
            continue
        widths = [len(text[s:e].strip()) for s, e in lines]
        seg_start, prev_end = lines[0]
        for i, (start, end) in enumerate(lines[1:], start=1):
            prev = text[seg_start:prev_end].splitlines()[-1].strip()
            widest = max(widths[max(0, i - 3) : i + 2])
            wrapped = (
                widest >= 40
                and len(prev) >= 0.6 * widest
                and not ENDS_SENTENCE.search(prev)
                and not _LIST_MARKER.match(text[start:end])
            ) or (bool(_VALUE_LABEL_END.search(prev)) and widths[i] <= _WRAPPED_VALUE_CHARS)
            if not wrapped:
                segments.append((seg_start, prev_end))
                seg_start = start
            prev_end = end
        segments.append((seg_start, prev_end))
    return segments


def _split_long(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Cut an over-long span after semicolons so that each piece stays readable."""
    if end - start <= MAX_SENTENCE_CHARS:
        return [(start, end)]
    pieces: list[tuple[int, int]] = []
    piece_start = start
    for match in re.finditer(r";\s+", text[start:end]):
        cut = start + match.start() + 1
        if cut - piece_start >= 80:
            pieces.append((piece_start, cut))
            piece_start = start + match.end()
    pieces.append((piece_start, end))
    return pieces


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """Drop surrounding whitespace, list markers and leading citation marks, keeping the span exact."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    junk = _LEADING_JUNK.match(text[start:end])
    if junk and junk.end() < end - start:
        start += junk.end()
    return start, end


def split_sentences(text: str) -> list[Sentence]:
    """All sentences of `text`, in order, each with its exact character span."""
    tokenizer = _punkt()
    sentences: list[Sentence] = []
    for index, (first, last) in enumerate(_segments(text)):
        row = text[first:last].strip()
        if is_table_row(row):  # a row is read whole, however many sentences its cells hold, and its first
            row_start = first + text[first:last].index(row)  # cell may be symbols ('-> | additional address')
            sentences.append(Sentence(row, row_start, row_start + len(row), index))
            continue
        seg_start, seg_end = _trim(text, first, last)
        segment = text[seg_start:seg_end]
        for s, e in _joined_after_etc(segment, list(tokenizer.span_tokenize(segment))):
            for a, b in _split_long(text, seg_start + s, seg_start + e):
                start, end = _trim(text, a, b)
                if end > start:
                    sentences.append(Sentence(text[start:end], start, end, index))
    return sentences


def _joined_after_etc(segment: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Punkt's spans, rejoined where one ends on 'etc.' and the next begins with a lower-case letter ('Which file
    types, attributes, etc. are not preserved?'): 'etc.' ends sentences too often to be an abbreviation Punkt
    never splits at, but no sentence begins in lower case after it."""
    joined: list[tuple[int, int]] = []
    for start, end in spans:
        if joined and segment[joined[-1][0] : joined[-1][1]].endswith("etc.") and segment[start : start + 1].islower():
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined


ROW_MAX_CHARS = 600
_ROW = re.compile(r"\S \| \S")


_ALTERNATIVES = re.compile(r"\[[^\[\]]*\]|\{[^{}]*\}")
"""A synopsis's optional or alternative parts: '[ -p | -h ]', '{start|stop}'."""


def is_table_row(text: str) -> bool:
    """A table row as the HTML extractor writes it: cells joined by ' | ', on one line; not a command's synopsis,
    whose bars stand between alternatives in brackets ('prompt [ -p | -h ] [ theme ... ]')."""
    return len(text) <= ROW_MAX_CHARS and holds_cells(text)


def holds_cells(line: str) -> bool:
    """Whether a line is a table's row, however long: cells joined by ' | ', not a synopsis's alternatives."""
    if "\n" in line or not _ROW.search(line):
        return False
    return bool(_ROW.search(_ALTERNATIVES.sub("[]", line)))


_QUOTED = re.compile(r"\"[^\"]+\"|“[^”]+”")


def _is_title_case(sentence: str) -> bool:
    """Whether most longer words are capitalized, as in headings ('Installing Python Packages'); words in quotation
    marks are a name the sentence mentions ('Docutils is short for "Python Documentation Utilities".')."""
    raw = re.findall(r"[A-Za-z][A-Za-z'-]*", _QUOTED.sub(" ", sentence))
    long_words = [w for w in raw if len(w) > 3]
    return bool(long_words) and sum(w[0].isupper() for w in long_words) >= 0.75 * len(long_words)


def has_verb(tokens: list[str]) -> bool:
    """Whether the tokens contain something verb-like: a common verb or a verb-shaped word after the first."""
    if any(t in AUXILIARY_VERBS for t in tokens):
        return True
    return any(len(t) > 3 and t.isalpha() and _VERB_SUFFIX.search(t) for t in tokens[1:])


_IDENTIFIER_CALL = re.compile(rf"\b[A-Za-z_][\w.]*\(\)|_|https?://\S+|(?<![\w|])\|[^\s|]+\|(?![\w|])|{FILE_PATH}")
"""Names, addresses, links and file paths written in prose ('its __hash__() method', 'sys.setrecursionlimit()',
'found at https://...', a help file's link to a tag: 'support for |Lists| in |viminfo|', 'Default is
/var/state/ups.'): not a sign of code."""


_SETTING_IN_PROSE = re.compile(r"^[A-Za-z_][\w.]*=\S+\s+(?:[a-z]+,?\s+){3,}.*\.$")
"""A keyword argument that opens a sentence of prose ('read_file=False does not imply write_file=False, all controls
are independent.'): words after it and a full stop, which a line of code ('x = compute(y)') does not have."""


def looks_like_code(sentence: str) -> bool:
    if _CODE_START.match(sentence):
        return not _SETTING_IN_PROSE.match(sentence)
    nonspace = [c for c in _IDENTIFIER_CALL.sub("x", sentence) if not c.isspace()]
    return bool(nonspace) and sum(c in _CODE_SYMBOLS for c in nonspace) > 0.1 * len(nonspace)


def is_navigation_phrase(text: str) -> bool:
    """Whether the text holds a phrase of a page's navigation ('Table of Contents', 'Skip to content'), never what
    the page is about. (A whole line of links, 'Prev | Up | Next', is `knowledge.passages.is_navigation_line`.)"""
    return bool(_NAVIGATION.search(text) or _NAVIGATION_LABEL.match(text))


def is_informative(sentence: str) -> bool:
    """Whether a sentence can serve as evidence: real prose, not a heading, code, navigation or a question."""
    s = sentence.strip()
    if len(s) < 20 or len(s) > 2 * MAX_SENTENCE_CHARS:
        return False
    tokens = words(s)
    if len(tokens) < 4:
        return False
    nonspace = sum(not c.isspace() for c in s)
    if sum(c.isalpha() for c in s) < 0.55 * nonspace or looks_like_code(s):
        return False
    if is_navigation_phrase(s) or len(_COLUMN_BAR.findall(s)) >= 2 or _BREADCRUMB.search(s):
        return False
    if _REFERENCE.search(s) or s.endswith("?"):
        return False
    if not ENDS_SENTENCE.search(s):
        # A line without a full stop (a list item, a caption, a heading) says something when it is long and has a
        # verb, or when a copula joins its words ('slonik is Russian for "little elephant"').
        if _is_title_case(s):
            return False
        return (len(tokens) >= 8 and has_verb(tokens)) or (len(tokens) >= _COPULA_LINE_WORDS and bool(COPULA.search(s)))
    if len(tokens) < 8 and _is_title_case(s):
        return False
    return len(tokens) >= 6 or has_verb(tokens)
