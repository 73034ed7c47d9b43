"""Candidate quotes: the informative sentences of retrieved passages, with the context they need.

A candidate is one contiguous span of its passage, so its text is always an exact
quote. Fragments cut off at a chunk's edges are skipped; a sentence that opens
with a bare pronoun keeps the sentence before it, and a description right under
a signature line (as in API documentation) keeps that line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from research_assistant.reasoning.answers import ATTRIBUTE_LINE, expanded_in, is_lead_in
from research_assistant.reasoning.extractive.lexicon import AUXILIARY_VERBS, PRONOUN_STARTS
from research_assistant.reasoning.extractive.sentences import (
    API_SIGNATURE,
    COPULA,
    ENDS_SENTENCE,
    Sentence,
    holds_cells,
    is_informative,
    is_navigation_phrase,
    is_table_row,
    looks_like_code,
    split_sentences,
)
from research_assistant.reasoning.extractive.signals import uses_term
from research_assistant.schemas import Passage
from research_assistant.text.tokens import OPTION_TERM, content_terms, words

_SIGNATURE = re.compile(r"^@?(?:class\s+)?[A-Za-z_][\w.]*\([^()]{0,80}\)(?:\s*->\s*[\w.\[\], ]+)?:?$")
ANNOTATED_TERM = re.compile(r"^[%$@.\-]{0,2}[A-Za-z_][\w.:/-]*\s+\([^()]{1,60}\)$")
"""A setting's term line with a note in parentheses: its type or default ('max_connections (integer)',
'message_size_limit (default: 10240000)'), which the description under it does not repeat."""
_ENTRY_TERM = re.compile(r"^[%$@.\-]{0,2}[A-Za-z_][\w.:/-]*(?<!:)$")
_FIELD = re.compile(r"^[A-Za-z][\w ]{0,20}:\s*\S")
_FIELD_LINE = re.compile(r"^[A-Z][a-z]+(?: [a-z]+| [A-Z][a-z]+){0,3}:\s+\S[^\n]{0,100}$")
"""A labelled field on a line of its own under a term line ('Grammar: max-cache-ttl <duration>;', 'Blocks: options,
view', 'Type of value: File name relative to ca-directory') or a heading ('Supported Python Versions: 3.7 and
later'): the entry's metadata, not a heading of its own."""
_FIGURE_FIELD = re.compile(r"^\S+(?: \S+){1,3}:\s+[<>=~^]*v?\d")
"""A field whose label is a phrase and whose value begins with a figure ('Supported Python Versions: 3.7 and
later'): not one that names something ('Signal: USR1'), nor a program's output under an example ('Count: 42')."""
_VALUE_FIELD = re.compile(
    r"^(?:default(?: value)?|maximum|minimum|max|min|range|limit|allowed values|possible values)\s*:\s*\S"
    r"|^default\s+[\d\"'`][^\s.]*\.?$",
    re.IGNORECASE,
)
"""A field that holds one of its entry's values ('Default: 2', 'Maximum: 32' under 'thread_pools'): short, but the
answer to what the entry's default or bounds are."""


_DEFAULT_NOTE_LINE = re.compile(
    r"^[^\S\n]*[^\s()]+(?:[^\S\n]+[^\s()]+){0,3}[^\S\n]+\(default(?:s to|:)?[^\S\n]*[^()\s][^()\n]{0,40}\)[^\S\n]*$",
    re.IGNORECASE | re.MULTILINE,
)
"""An entry's term line that ends on its default in parentheses, as help files head an option's description
("'updatetime' 'ut'  number  (default 4000)"): the line that gives the option's default, and what the
description under it is about."""


def is_value_field(text: str) -> bool:
    """Whether the text is a field that holds one of its entry's values ('Default: 2', 'Maximum: 32')."""
    return bool(_VALUE_FIELD.match(text.strip()))


_GLOSSARY_TERM = re.compile(r"^[a-z][a-z-]*(?: [a-z][a-z-]*){1,3}$")
"""A glossary's term of a few lower-case words ('concrete model'), whose entry may be a short phrase ('A non-abstract
(abstract=False) model.') that is no sentence but all the glossary says of it."""


_DEMONSTRATIVES = frozenset({"this", "these", "that", "those", "such"})


@dataclass(frozen=True)
class Candidate:
    """A sentence (or a pronoun-led sentence with the one before it) of one passage."""

    passage_index: int
    start: int
    end: int
    quote: str
    """`passage.text[start:end]`, exactly."""
    focal: str
    """The sentence itself, without the context kept before it."""
    heading: str = ""
    """The nearest heading or term line above the sentence in its passage ('global interpreter lock' above
    its glossary definition): what the sentence is about when it does not say so itself."""
    lead: bool = False
    """Whether it is the first sentence under that heading: where a term's definition stands."""
    split: int = 0
    """For a span of two sentences or a lead-in with its list: where the second part starts (0 otherwise)."""
    row: bool = False
    """A table row: its heading holds the table's header row, which says what each cell is."""
    section: str = ""
    """The heading of the section the sentence stands in: the first of the short lines above it, where
    several stand together ('Graceful Restart' / 'Signal: USR1' / 'apache2ctl -k graceful'); else `heading`."""


def candidates(passages: list[Passage]) -> list[Candidate]:
    """Informative sentences of every passage, skipping fragments cut off at a chunk's edges.

    Beside each sentence: the sentence with the one after it in the same paragraph (documentation often
    names the thing in one sentence and gives its value in the next: 'Sets the maximum number of
    connections. The default is 100.'), a lead-in (`is_lead_in`: ending in a colon or on its verb, 'Valid values
    are', or announcing 'the following' things) with the list items under it (instead of the lead-in alone, which
    promises what it does not hold), and every table row, read with the table's header row as its heading. An
    option's term line that ends on its default is quoted and heads the description under it."""
    return [candidate for index, passage in enumerate(passages) for candidate in _passage_candidates(index, passage)]


def _passage_candidates(index: int, passage: Passage) -> list[Candidate]:
    found: list[Candidate] = []
    text = passage.text
    sentences = split_sentences(text)
    body_start = len(text) - len(text.lstrip())
    body_end = len(text.rstrip())
    heading, lead, section = "", False, ""
    header_row = ""
    under_heading, run = False, 0
    entry_start, entry_for = 0, -1  # where a hanging term stands, for the sentence that describes it

    def add(start: int, end: int, focal: str, heading: str, lead: bool, split: int = 0, row: bool = False) -> None:
        found.append(Candidate(index, start, end, text[start:end], focal, heading, lead, split, row, section))

    for position, sentence in enumerate(sentences):
        following = sentences[position + 1] if position + 1 < len(sentences) else None
        after_heading, under_heading = under_heading, False
        previous = sentences[position - 1] if position else None
        if _is_entry_row(sentence, previous, following):
            heading, lead, section = sentence.text, True, sentence.text
            continue
        term = hanging_term(text, sentence.start)
        if term:
            heading, lead = term, True
            if sentence.text.strip() == term:  # '!' ends a sentence: its description is the next one
                entry_start, entry_for = sentence.start, position + 1
                continue
        if heading and _is_field_line(sentence, previous, following):
            # The term line above still heads the description under its fields; a field that holds a
            # value ('Default: 50') is quoted under that term.
            under_heading = after_heading
            valued = is_informative(sentence.text) or is_value_field(sentence.text)
            valued = valued or _FIGURE_FIELD.match(sentence.text.strip()) is not None
            if valued and not sentence.text.rstrip().endswith(";"):
                add(sentence.start, sentence.end, sentence.text, heading, lead)
            continue
        if is_table_row(sentence.text):
            if _heads_table(text, sentence):
                header_row = sentence.text
            elif not (sentence.end == body_end and sentence.end < len(text.rstrip("\n"))):
                add(sentence.start, sentence.end, sentence.text, f"{heading} {header_row}".strip(), True, row=True)
            continue
        if note := _DEFAULT_NOTE_LINE.search(sentence.text):
            heading = section = note.group().split()[0]  # the term it opens with heads its description
            lead = True
            add(sentence.start, sentence.end, sentence.text, heading, lead)
            continue
        field = is_value_field(sentence.text) and not is_informative(sentence.text)
        entry = previous if previous is not None and previous.segment == sentence.segment else None
        if field and entry is not None and _PARAMETER_ENTRY.match(entry.text):
            # The value closing an entry's line ('peek_lock_seconds - Number of seconds ... Default 60').
            add(entry.start, sentence.end, sentence.text, heading, lead)
            continue
        if heading and field:
            if previous is None or previous.segment != sentence.segment:
                # A paragraph of fields that opens with the value ('Default: severe (4). Options: --halt.').
                add(sentence.start, sentence.end, sentence.text, heading, lead)
            continue
        glossary = _GLOSSARY_TERM.match(heading) is not None and previous is not None and previous.text == heading
        # A definition list's term line, a glossary's few words, or an API entry's signature over the phrase a
        # docstring opens with ('class structlog.BoundLoggerBase(logger, processors, context)' / 'Immutable context
        # carrier.'; not a label such as '410 Gone').
        docstring = API_SIGNATURE.fullmatch(heading) is not None and sentence.text.rstrip().endswith(".")
        termed = is_term_line(heading) or glossary or docstring
        described = not (is_informative(sentence.text) or _QUESTION_HEADING.match(sentence.text.strip()))
        if lead and termed and _is_entry(sentence.text) and described:
            # A definition-list entry: the term line and its short description ('%ar' / 'author date,
            # relative'), quoted together since the description alone does not say what it describes. A question
            # is no description but the next section's heading (a code block's last line 'mytable.drop(engine)' /
            # 'Does SQLAlchemy support ALTER TABLE?').
            add(sentences[position - 1].start, sentence.end, sentence.text, heading, True)
            lead = False
            continue
        if _RELEASE_HEADING.match(sentence.text.strip()) and (
            following is None or following.segment != sentence.segment
        ):
            add(sentence.start, sentence.end, sentence.text, heading, lead)  # '22.1.0 - 2022-07-28' says when
            heading = section = sentence.text.strip()  # and heads the release's changes
            lead, under_heading = True, True
            continue
        if _heads(text, sentence, previous, following):
            if _spells_out_abbreviation(sentence.text) or _spells_out_used(sentence.text, text):
                add(sentence.start, sentence.end, sentence.text, "", False)  # the heading itself says it
            heading, lead = _SECTION_NUMBER.sub("", sentence.text.lstrip("#* ")).strip(), True
            run = run + 1 if after_heading else 1
            # A few short lines together are a heading over term lines; more are a list or a table of
            # contents, whose last line heads what follows. A question is always a section's own title (an FAQ's),
            # and so is a numbered heading ('7.4.8. buffer-limit' after the last example line of the section before).
            numbered = _SECTION_NUMBER.match(sentence.text.lstrip("#* ")) is not None
            grouped = after_heading and run <= _SECTION_RUN and not _QUESTION_HEADING.match(heading) and not numbered
            section = section if grouped else heading
            under_heading = True
            continue
        if attribute := ATTRIBUTE_LINE.match(sentence.text):
            add(sentence.start, sentence.end, sentence.text, heading, lead)  # 'visibility_timeout = 3600'
            alone = _PARAGRAPH_START.search(text, 0, sentence.start) is not None  # no line of an example above
            if (
                alone
                and following is not None
                and following.segment != sentence.segment
                and is_informative(following.text)
            ):
                # An API reference's attribute with its description ('thread_pool = 10' / 'The number of worker
                # threads to start up in the pool.'): the value says nothing without the words under it. A line of a
                # configuration example ('tools.caching.on = True' / 'tools.caching.delay = 3600') has none.
                heading, lead = attribute.group("name"), True  # it heads that description
                add(sentence.start, following.end, text[sentence.start : following.end], heading, lead)
                under_heading = True
            continue
        introduces = is_lead_in(sentence.text)
        open_lead_in = introduces and not sentence.text.rstrip().endswith((":", "."))  # 'Valid values are'
        if not (is_informative(sentence.text) or open_lead_in) or _is_code_comment(text, sentence, previous, following):
            continue
        if sentence.start == body_start and sentence.text[:1].islower():
            continue  # starts mid-sentence: the chunk began inside it
        if sentence.end == body_end and not ENDS_SENTENCE.search(sentence.text):
            continue  # ends mid-sentence: the chunk was cut inside it
        start = entry_start if entry_for == position else _context_start(text, sentences, position)
        extensions = _extensions(text, sentences, position, body_end)
        if not (introduces and (extensions or open_lead_in)):
            add(start, sentence.end, sentence.text, heading, lead)  # a lead-in is never quoted without its list
        for end in extensions:
            # A list is read by its lead-in; two or three sentences by all of them.
            focal = sentence.text if introduces else text[sentence.start : end]
            add(start, end, focal, heading, lead, sentence.end)
        lead = lead and uses_term(sentence.text, content_terms(heading))  # a term's heading still heads its definition
    return found


_PARAGRAPH_START = re.compile(r"(?:\A|\n[ \t]*\n)[ \t]*\Z")
"""Where a paragraph starts: at the text's start or after a blank line (searched in the text before a line)."""
_HEADER_CELL_WORDS = 4
"""The most words in a header row's cell: headers name columns ('Length Specifier', 'Meaning')."""


def _heads_table(text: str, row: Sentence) -> bool:
    """Whether a row is its table's header: the line above it is no row (a long row, read as sentences, still is
    one). A passage may begin inside a table, so a row it begins with heads only when it reads as a header, its
    cells short names, none a sentence ('Length Specifier | Meaning', not 'w | This substitution works like
    %q except that it doubles all double-quote characters ...')."""
    above = text[: row.start].rstrip()
    if above:
        return not holds_cells(above.rsplit("\n", 1)[-1])
    cells = [cell.strip() for cell in row.text.split(" | ")]
    return all(len(cell.split()) <= _HEADER_CELL_WORDS and not ENDS_SENTENCE.search(cell) for cell in cells)


_COMMENT_MARK = re.compile(r"^\s*(?:#|//)\s*$")
_CODE_LINE_END = re.compile(r"[{};]\s*$")


def _is_code_comment(text: str, sentence: Sentence, previous: Sentence | None, following: Sentence | None) -> bool:
    """Whether the sentence is a comment line of a code example ('sub vcl_backend_response {' / '# Keep the response
    in cache for 4 hours if the response has' / 'set beresp.keep = 4h;'): it explains that example, not the
    product, and is often cut across lines."""
    if not _COMMENT_MARK.match(text[text.rfind("\n", 0, sentence.start) + 1 : sentence.start]):
        return False
    before = previous is not None and _code_line(previous.text, text[previous.end : sentence.start])
    return before or (following is not None and _code_line(following.text, text[sentence.end : following.start]))


def _code_line(line: str, gap: str) -> bool:
    """Whether `line`, `gap` away from a sentence, is code of the same block (no blank line between)."""
    return "\n\n" not in gap and (looks_like_code(line) or bool(_CODE_LINE_END.search(line)))


_PAIR_MAX_CHARS = 520
_FOLLOWING = 3
"""The most sentences of its paragraph a sentence is quoted with: reference entries name their subject first
and give its default last ('Maximum time between automatic checkpoints. [unit] [valid range] The default is
five minutes (5min).')."""
_LIST_MAX_CHARS = 700
_TERSE_ITEM_WORDS = 4
"""Items of at most this many words are names ('Debug1'), not sentences: a sentence after them ends the list."""
_ITEM_MAX_CHARS = 250
_LABELLED_ITEM = re.compile(r"^[^:\n]{1,40}:[ \t]+\S")
"""A list item that is a label and its value on one line ('Unix: ~/.config/foo-bar')."""


_ENTRY_MAX_CHARS = 160
_SYMBOL_TERM = re.compile(r"[%$]?[!#*?~^&@%$+=]")
"""A term line that is a symbol ('%#', '%?', '!'): a prompt escape or a status character in a definition list."""
_TERM = re.compile(rf"^(?:[%$@.\-]{{0,2}}[\w.:/<>=\[\]-]+(?:\(\))?|[\w.-]+\(.*\)|{_SYMBOL_TERM.pattern})$")
"""A term line of a definition list: one token, often code ('%ar', '--depth=<n>', 'core.compression'), or a
symbol ('%#', '!', '*': a prompt escape, a status character)."""


_HANGING = re.compile(r"[ \t]*(\S+(?: \S+)?)(?: {2,}|\t+)(?=[\w\"'(<])")


def hanging_term(text: str, start: int) -> str:
    """The term a line opens with when the line is a two-column entry, the term and then its description:
    '-p     Produce a traditional queue listing.', '!      The message is in the hold queue, i.e. ...', as man
    pages and plain-text references lay out options and codes. '' when the text at `start` opens no such line.

    Justified text also puts two spaces after a line's first word ('Each  queue entry shows ...'); an entry's
    description goes on under its own first word, so the next line must start in that column (or be blank).
    """
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return ""
    line_end = text.find("\n", start)
    line_end = len(text) if line_end < 0 else line_end
    match = _HANGING.match(text, line_start, line_end)
    if match is None or match.start(1) != start or not is_term_line(match.group(1)):
        return ""
    if looks_like_code(text[match.end() : line_end]):
        return ""  # a configuration example's line ('drop   condition = ${if > {$rcpt_count}{20}}')
    next_end = text.find("\n", line_end + 1)
    following = text[line_end + 1 : len(text) if next_end < 0 else next_end]
    indent = len(following) - len(following.lstrip(" "))
    return match.group(1) if not following.strip() or indent == match.end() - line_start else ""


def _is_entry(text: str) -> bool:
    """A short description under a term line, as in definition lists ('%ar' / 'author date, relative'):
    not a sentence, but the whole of what the documentation says about the term."""
    short = len(text) <= _ENTRY_MAX_CHARS and len(words(text)) >= 2
    return short and not looks_like_code(text) and "|" not in text and not is_navigation_phrase(text)


def _extensions(text: str, sentences: list[Sentence], position: int, body_end: int) -> list[int]:
    """Where the longer spans that start with sentence `position` end: with the next one or two sentences
    of the same paragraph, or with the items of a list that the sentence introduces (`is_lead_in`)."""
    sentence = sentences[position]
    rest = sentences[position + 1 :]
    if is_lead_in(sentence.text):
        end, segment, item_start = sentence.end, sentence.segment, sentence.start
        in_table = first_labelled = False
        item_words: list[int] = []
        for offset, item in enumerate(rest):
            if item.end - sentence.start > _LIST_MAX_CHARS or text[end : item.start].count("\n") > 2:
                break
            after = rest[offset + 1] if offset + 1 < len(rest) else None
            row = is_table_row(item.text)
            if in_table and not row:
                break  # the table the lead-in introduced has ended
            in_table = row
            labelled = _LABELLED_ITEM.match(item.text) is not None
            if (
                # What a colon introduces first is its list, not the next section's title, unless it is code; nor
                # is an item labelled as the first one was ('Mac OS X: ~/Library/...' / 'Unix: ~/.config/...').
                (item_words or _STATEMENT.search(item.text.strip()))
                and _is_heading(item, after)
                and not row
                and not (labelled and first_labelled)
                and (first_labelled or not _names_term(item.text.strip()) or _titles(item, item_words))
            ):
                break  # the next section's heading (not a table's header row): the list has ended
            if item.segment != segment:
                segment, item_start = item.segment, item.start
            elif segment == sentence.segment:
                if not sentence.text.rstrip().endswith("."):
                    break  # the lead-in's paragraph goes on: no list follows
                # 'The following routines are available for scanning strings. All of them ...': a sentence that
                # announces the following things, whose paragraph goes on before they come.
                end = item.end
                continue
            if item.end - item_start > _ITEM_MAX_CHARS:
                break  # a long paragraph: prose again, the list has ended
            if item_words and is_lead_in(item.text) and len(words(item.text)) > _TERSE_ITEM_WORDS:
                break  # the next lead-in ('If that does not work, restart it:') opens a list of its own, where a
                # label does not ('Unix (POSIX):' over its value)
            terse = len(item_words) >= 2 and max(item_words) <= _TERSE_ITEM_WORDS
            if terse and ENDS_SENTENCE.search(item.text) and len(words(item.text)) > _TERSE_ITEM_WORDS:
                break  # a sentence after one-word items ('Fatal' / 'Error' / ...): prose again
            if item.end == body_end and not ENDS_SENTENCE.search(item.text) and len(item.text) > 60:
                break  # cut off at the chunk's edge
            end = item.end
            first_labelled = labelled if not item_words else first_labelled
            item_words.append(len(words(item.text)))
        return [end] if end > sentence.end else []
    ends: list[int] = []
    for offset, following in enumerate(rest[:_FOLLOWING], start=position + 1):
        if following.segment != sentence.segment or following.end - sentence.start > _PAIR_MAX_CHARS:
            break
        if following.end == body_end and not ENDS_SENTENCE.search(following.text):
            break
        if (len(words(following.text)) < 3 and not is_value_field(following.text)) or looks_like_code(following.text):
            break  # a fragment or code; not a field that ends the paragraph with its value ('... Default: 32.')
        ends.append(following.end)
        if is_lead_in(following.text):  # '... The following levels are available:' and its list
            ends += _extensions(text, sentences, offset, body_end)
            break
    return ends


_SECTION_RUN = 3
"""The most short lines in a row that are read as one section's heading and its term lines."""
_HEADING_MAX_WORDS = 10
_HEADING_START = re.compile(r"^(?:#+\s*)?(?:(?:\d+\.)+\d*\s+)?(?:[A-Za-z_@]|[%$.-]{1,2}\w)")
_STATEMENT = re.compile(r"\s=\s|[;{]$")
"""An assignment or a statement of code: a line of an example, never a heading or a term."""
_CODE_STATEMENT = re.compile(
    r"^(?:return|raise|yield|await)\s+(?:[\"'(]|[A-Z]\w*(?:Error|Exception|Warning)\b|[\w.]+\(|\d)|^[bBuU][\"']"
)
"""A line of a code example or of its output, shaped like a term line: a statement that returns, raises or awaits
something ('return "<MyObject>"', 'raise NotImplementedError', 'await resp.text()'), or a bytes or unicode literal
printed by Python ("b'\\x1b[01m'", "u'Deutschland'"). Not a builtin's own entry ('return [n]')."""
_LITERAL_CALL = re.compile(r"[\w.]+\((?:[^()=]*,\s*)?[uUbBrRfF]?[\"'].*\)")
"""A call with a string literal for an argument ('print("WebSocket closed")', 'self.write(u"You said: " + m)',
'cherrypy.quickstart(myapp, '/', "app.conf")'): a line of code, where an entry's signature names its parameters
('setConfig(key, value)', "open(file, mode='r')")."""
_QUESTION_HEADING = re.compile(
    r"^(?:(?:\d+\.)+\d*\s+)?(?:what|how|why|when|where|which|who|can|do|does|is|are|should)\b"
    r"(?:\b(?:etc|e\.g|i\.e|vs)\.|[^.!;:])*\?$",
    re.IGNORECASE,
)
"""A heading that is a question, as FAQs and how-to guides write them."""
_QUESTION_HEADING_MAX_WORDS = 16
"""Questions make longer headings than titles do ('How can I save the result of each iteration in a loop into a
separate file?'); a line of its own ending in a question mark is still a heading at that length."""
_DECIMAL = re.compile(r"^[-+]?(?:\d*\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)$")
_SECTION_NUMBER = re.compile(r"^(?:\d+\.)+\d*\s+")
"""'3.3.2.4. ' before a heading's words."""


def _ends_paragraph(sentence: Sentence, previous: Sentence | None) -> bool:
    """Whether a short line is the last of a paragraph ('... in milliseconds. Range: [10-60000], default 2000'):
    it ends the paragraph and heads nothing. A section number before a heading ('9.2.') is no paragraph."""
    if previous is None or previous.segment != sentence.segment:
        return False
    return not _SECTION_NUMBER.fullmatch(previous.text.strip() + " ")


_ABBREVIATION_IN_PARENTHESES = re.compile(r"\(([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*|[a-z][0-9]{1,2}[a-z])\)")
"""'(DSN)', or a numeronym ('(l10n)': l, ten letters, n)."""


_CAPITALS = re.compile(r"\b[A-Z][A-Z0-9]{1,7}\b")


_RELEASE_HEADING = re.compile(
    r"^(?:\S+\s+)?v?\d+(?:\.\d+)+\s*(?:[-–—:]\s*|\(\s*)"
    r"(?:\d{4}-\d{2}-\d{2}|\d{1,2}\s+[A-Z][a-z]+\s+\d{4}|[A-Z][a-z]+\s+\d{1,2},?\s+\d{4})\)?$"
)
"""A change log's heading that dates a release ('22.1.0 - 2022-07-28', 'Version 2.0 (March 3, 2021)'): a fact of its
own, quoted like a sentence."""


def _spells_out_used(line: str, text: str) -> bool:
    """Whether a heading's words spell out, capital by capital, an abbreviation the text below it uses: a page
    titled 'FFmpeg Automated Testing Environment' that speaks of FATE says there what FATE stands for."""
    initials = "".join(word[0] for word in line.split() if word[:1].isupper())
    if len(initials) < 2 or len(initials) != len(line.split()):
        return False
    return any(found.group() == initials for found in _CAPITALS.finditer(text, text.find(line) + len(line)))


def _spells_out_abbreviation(line: str) -> bool:
    """Whether a heading spells out an abbreviation ('Delivery Status Notification (DSN) Support'): then it is
    where the manual says what the abbreviation stands for, and a quote of its own."""
    return any(expanded_in(found.group(1), line) for found in _ABBREVIATION_IN_PARENTHESES.finditer(line))


def _heads(text: str, sentence: Sentence, previous: Sentence | None, following: Sentence | None) -> bool:
    """Whether the sentence heads what follows: a heading or term line, not the last line of a paragraph nor a
    line of a code example ('for k = 1:n', 'endfor'), which, shaped like one, still ends a list above it."""
    return (
        _is_heading(sentence, following)
        and not _ends_paragraph(sentence, previous)
        and not _STATEMENT.search(sentence.text.strip())
        and not _closes_block(text, sentence)
        and not _prints_after_prompt(text, sentence)
    )


_PROMPT = re.compile(r"^\s*(?:>>>|\.\.\.)(?:\s|$)")


def _prints_after_prompt(text: str, sentence: Sentence) -> bool:
    """Whether a line is what an interactive session printed: the line right above it, with no blank line between,
    is a prompt's input ('>>> transform = etree.XSLT(doc)' / 'Resolved url honk:test as prefix honk')."""
    return bool(_PROMPT.match(_line_above(text, sentence.start)))


def _line_above(text: str, start: int) -> str:
    """The whole line above the one `start` stands on ('' on the first line)."""
    line_start = text.rfind("\n", 0, start) + 1
    return text[text.rfind("\n", 0, line_start - 1) + 1 : line_start - 1] if line_start else ""


def _closes_block(text: str, sentence: Sentence) -> bool:
    """Whether a line ends an indented block, as the last line of a code example does ('    endfor' / 'endfor'):
    the line right above it, with no blank line between, is indented more; or is the body of a block the line
    above opens ('async def on_startup(app):' / '    pass'). Such a line heads nothing."""
    above = _line_above(text, sentence.start)
    if not above.strip():
        return False
    prefix = text[text.rfind("\n", 0, sentence.start) + 1 : sentence.start]
    indent = 0 if prefix.strip() else len(prefix)
    above_indent = len(above) - len(above.lstrip())
    return above_indent > indent or (indent > above_indent and above.rstrip().endswith((":", "{", "(", "\\")))


def _is_heading(sentence: Sentence, following: Sentence | None) -> bool:
    """A short line of its own with no closing punctuation, followed by another block: a heading or a term."""
    if following is None or following.segment == sentence.segment:
        return False
    text = sentence.text.strip()
    if _LITERAL_CALL.fullmatch(text) or _CODE_STATEMENT.match(text):
        return False  # 'print("WebSocket closed")': a call in an example, not an entry's signature
    if _SYMBOL_TERM.fullmatch(text) or _quoted_terms(text):
        return True
    if not _HEADING_START.match(text):
        return False  # code ('>>> zip(a, b)'), output ('2 toe'), prompts
    if _QUESTION_HEADING.match(text):  # a FAQ's 'What is backscatter mail?', '7.32 How can I capture ...?'
        return len(_SECTION_NUMBER.sub("", text).split()) <= _QUESTION_HEADING_MAX_WORDS
    if _DECIMAL.match(text):
        return False  # a program's output ('-1.110223e-16'), not an option's term line
    if text[:1].islower() and COPULA.search(text):
        return False  # a sentence without its full stop ('slonik is Russian for "little elephant"'), not a title
    if is_lead_in(text):
        return False  # 'Valid values are': what it introduces follows
    return 0 < len(text.split()) <= _HEADING_MAX_WORDS and not re.search(r"[.!?;,:]$", text)


def _is_field_line(sentence: Sentence, previous: Sentence | None, following: Sentence | None) -> bool:
    """A labelled field alone on its line ('Tags: server'), not a sentence that happens to start with a label
    ('Note: the value is read once.') nor a lead-in ('Answer: use the purge command:')."""
    alone = all(other is None or other.segment != sentence.segment for other in (previous, following))
    text = sentence.text.strip()
    return alone and bool(_FIELD_LINE.match(text)) and not re.search(r"[.!?:]$", text) and not is_table_row(text)


def _is_entry_row(sentence: Sentence, previous: Sentence | None, following: Sentence | None) -> bool:
    """A term line written as a row of fields, alone: no table row stands right above or below it."""
    if not is_entry_row(sentence.text):
        return False
    return not any(other is not None and is_table_row(other.text) for other in (previous, following))


def is_entry_row(line: str) -> bool:
    """A setting's term line written as one row of fields ('recipients_max | Use: main | Type: integer |
    Default: 50000'), as reference manuals head each option's description."""
    term, *fields = line.strip().split(" | ")
    return bool(fields) and "\n" not in line and bool(_ENTRY_TERM.match(term)) and any(_FIELD.match(f) for f in fields)


def heads_entry(line: str) -> bool:
    """Whether a line is the term line of a reference entry, annotated ('max_connections (integer)') or
    written as a row of fields; the description under it is about that term in each of its sentences."""
    return bool(ANNOTATED_TERM.match(line.strip())) or is_entry_row(line)


def is_term_line(line: str) -> bool:
    """Whether a heading is the term of a reference or definition-list entry, a name rather than a title:
    one token such as 'max-cache-ttl', 'KEYTIMEOUT', 'core.compression' or 'precmd' (not 'Overview'), an option
    with its argument ('-d log_level'), or a term line annotated or written as a row of fields."""
    text = line.strip()
    term = _names_term(text) and not _TITLE_WORD.fullmatch(text)
    return term or heads_entry(text) or _quoted_terms(text)


_QUOTED_LINE = re.compile(r"^[‘`'](.+)[’']$")
_DIRECTIVE = re.compile(r"[%@#.]\w+ [\w.-]+(?:=\S+)?")
"""A directive that names an option in a configuration file ('%option backup', as flex's manual writes them)."""


def _quoted_terms(line: str) -> bool:
    """Whether a line is a quoted term or several, separated by commas, as Texinfo writes a table's item
    ('‘-b, --backup, %option backup’', '‘--ansi-definitions, %option ansi-definitions’')."""
    quoted = _QUOTED_LINE.match(line)
    return quoted is not None and all(
        _names_term(part) or _DIRECTIVE.fullmatch(part) for part in quoted.group(1).split(", ")
    )


def _titles(item: Sentence, item_words: list[int]) -> bool:
    """Whether a one-word line after items that were sentences is a section's title ('Miscellaneous'), not
    another item's term: the items so far were prose, and the word is a plain capitalised word, not code."""
    return bool(item_words) and min(item_words) > _TERSE_ITEM_WORDS and bool(_TITLE_WORD.fullmatch(item.text.strip()))


def _names_term(line: str) -> bool:
    """Whether a short line names a term, an option or a symbol (a list's item), rather than a section."""
    return bool(_TERM.match(line) or OPTION_TERM.match(line))


_TITLE_WORD = re.compile(r"[A-Z][a-z]+")
"""A capitalised word alone ('Overview'): a section's title, not a term."""


def _context_start(text: str, sentences: list[Sentence], position: int) -> int:
    """Where the quote starts: earlier when the sentence needs the line or sentence before it.

    A description right under a signature line ('sys.setrecursionlimit(limit)') or an annotated term line
    ('message_size_limit (default: 10240000)') keeps that line; a sentence opening with a bare pronoun ('It can
    be set by ...') keeps the sentence before it. The quote stays one contiguous span of the passage.
    """
    sentence = sentences[position]
    if position == 0:
        return sentence.start
    previous = sentences[position - 1]
    gap = text[previous.end : sentence.start]
    before = sentences[position - 2] if position > 1 else None
    entry = ANNOTATED_TERM.match(previous.text.strip()) or _is_entry_row(previous, before, sentence)
    if previous.segment != sentence.segment and (_SIGNATURE.match(previous.text) or entry) and gap.count("\n") <= 2:
        return previous.start if not gap.strip() else sentence.start
    joined = sentence.end - previous.start
    if _leans_on_previous(sentence.text) and previous.segment == sentence.segment and joined <= 500:
        if not is_informative(previous.text):
            return sentence.start
        if _NAMES_PREVIOUS.match(sentence.text) and _leans_on_previous(previous.text):
            # 'The reverse is done when writing. This is known as the "WSGI encoding dance".': what is named
            # starts a sentence further back.
            earlier = _context_start(text, sentences, position - 1)
            return earlier if sentence.end - earlier <= 500 else previous.start
        return previous.start
    if _PARAMETER_ENTRY.match(previous.text) and previous.segment == sentence.segment and joined <= 300:
        return previous.start  # 'priority (int) – Message priority. A number between 0 and 9.': the entry's name
    if _VERDICT.match(previous.text) and previous.segment == sentence.segment and joined <= 500:
        return previous.start  # 'It's impossible. Choosing what to compress ...': the answer, then its reason
    if _LEAD_IN_POINTS_BACK.match(sentence.text) and gap.count("\n") <= 2 and joined <= 500:
        # 'It's best to use some tool for starting them after a reboot.' / 'There are many ways to do it: ...'
        return previous.start if is_informative(previous.text) else sentence.start
    return sentence.start


_PARAMETER_ENTRY = re.compile(r"^\s*[A-Za-z_*][\w.*]*(?:\s+\([^()\n]{1,40}\))?\s+[–—-]{1,2}\s+\S[^.\n]{0,160}\.$")
"""The opening of a parameter's entry in an API reference, its name (and type) and a short description ('priority
(int) – Message priority.'), which the sentences after it in the same entry go on describing."""


_LEAD_IN_POINTS_BACK = re.compile(r"^[^:\n]{0,80}\b(?:it|this|that|them)\s*:\s*\S", re.IGNORECASE)
"""A lead-in whose list is of ways to do what the sentence before it says ('There are many ways to do it: ...')."""


_VERDICT = re.compile(
    r"^\s*(?:yes|no|not yet|not really|(?:it|this|that)(?:['’]s| is) (?:not |im)?possible|(?:it|this|that)"
    r"(?:['’]s| is)(?: not| n['’]t)? supported|unfortunately,? (?:no|not)|you can(?:not|['’]t))[.!]?\s*$",
    re.IGNORECASE,
)
"""A short answer too short to quote alone ('No.', 'It’s impossible.'), which the sentence after it explains."""


_NAMES_PREVIOUS = re.compile(
    r"^\s*(?:this|these|that|those|such)\s+(?:[\w-]+\s+){0,2}(?:is|are)\s+(?:(?:also|often|sometimes|commonly)\s+)?"
    r"(?:called|known\s+as|referred\s+to\s+as|termed|named)\b",
    re.IGNORECASE,
)
"""'This capability is called "shared networks"': the name of what the sentence before it describes."""


_COUNTERPART = re.compile(r"^\s*the\s+(?:reverse|opposite|converse|inverse)\b", re.IGNORECASE)
"""'The reverse is done when writing to the environ.': the counterpart of what the sentence before it says."""


def _leans_on_previous(sentence: str) -> bool:
    """'It is 1000 by default.': a bare pronoun subject that needs the sentence before it; 'This capability is
    called ...': a name given to what the sentence before it says."""
    if _NAMES_PREVIOUS.match(sentence) or _COUNTERPART.match(sentence):
        return True
    head = words(sentence)[:2]
    if not head or head[0] not in PRONOUN_STARTS:
        return False
    return head[0] not in _DEMONSTRATIVES or (len(head) > 1 and head[1] in AUXILIARY_VERBS)
