"""Evidence for one sub-question: the passages' sentences that best answer it, quoted exactly.

Candidates (see `candidates`) are scored (see `scoring`); those at or above the
minimum relevance are taken best first, with a mild penalty for each item
already taken from the same source (so that sources vary) and, for a list
question, from under the same heading, skipping overlaps and near-duplicates. Every
quote is an exact span of its passage's text.

A list question takes a few more items than the depth's limit, and the items below
a sentence that announces a list (the first sentence under each short heading) share
that sentence's relevance and follow it once it is taken.
"""

from __future__ import annotations

import re

from research_assistant.reasoning.extractive.candidates import Candidate, candidates, is_term_line
from research_assistant.reasoning.extractive.scoring import MIN_RELEVANCE, STRONG_RELEVANCE, score_candidates
from research_assistant.reasoning.extractive.signals import evidence_id
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.reasoning.extractive.which import asked_types, singular
from research_assistant.reasoning.questions import asked_for
from research_assistant.schemas import Evidence, Passage, QueryAnalysis, SubQuestion
from research_assistant.text.spaces import collapse
from research_assistant.text.tokens import words

SAME_SOURCE_PENALTY = 0.85
"""Each item already taken from a source multiplies that source's next candidates by this."""
SAME_SECTION_PENALTY = 0.6
"""For a list question, each item already taken from under a heading multiplies its next candidates by this as
well: a list's items stand under headings of their own ('High Concurrency', 'Very large datasets')."""
DUPLICATE_COSINE = 0.9
LIST_EXTRA_ITEMS = 2
"""How many more items a list question takes than the depth's limit: a list's answer is several of its items,
and each usually stands in a sentence or an entry of its own."""


FALLBACK_RELEVANCE = 0.2
"""When fewer than `FALLBACK_ITEMS` sentences reach the relevance floor for the question as it was asked, the best
ones down to this are quoted too: an analyst gets the nearest passages (with the low confidence they earn) rather
than an empty report ('how does Ki differ from K?' against 'If 'i' is appended to the SI unit prefix ... powers of
1024 instead of powers of 1000', at 0.29), and a floor is no cliff between a sentence just above it and the answer
just below ('By default the hypervisor will try to pick a suitable shutdown method.' at 0.33 for virsh console's
escape key, the answer at 0.30)."""
FALLBACK_ITEMS = 3
"""The fewest sentences the question itself keeps: near the floor, scores hardly tell the answer from its
neighbours (for the memory each entry of borg mount's chunk cache costs, the answer scored 0.20, second to a
benchmark machine's description at 0.23)."""
ASKED_AS_WRITTEN = "q1"
"""The id of the plan's first sub-question: the question itself."""
INTRODUCED_RELEVANCE = 0.9
"""For a list question, the share of the relevance of the sentence that announces a list that each of its items
takes; once that sentence is taken, its items are taken next."""
LISTED_ITEMS = 6
"""The most items of a list quoted after the sentence that announces it."""
ANNOUNCED_REACH = 3000
"""How far (characters) below the sentence that announces them a list's items may stand: a section's opening
sentence, maybe a sub-section heading and its paragraph, then the items."""
_GLOSSED = re.compile(r"\S\s+[-–—:]\s+\S")
_FOLLOWING = re.compile(r"\bfollowing\b|:\s*$", re.IGNORECASE)


def announces(sentence: str, types: frozenset[str]) -> bool:
    """Whether a sentence announces a list: it ends with a colon, speaks of 'the following', or names the asked
    type of thing in the plural ('The state machine consists of five states.' for 'What states can ...?')."""
    if _FOLLOWING.search(sentence):
        return True
    for word in words(sentence.lower()):
        one = singular(word)
        if one != word and one in types:  # the asked thing, in the plural
            return True
    return False


def list_items(
    passages: list[Passage], found: list[Candidate], scores: list[float], types: frozenset[str]
) -> dict[int, list[int]]:
    """The items below each sentence that announces a list, by the sentence's index: the first sentence under each
    of a run of headings of one shape right below it ('Certain functions, if defined, have special meaning to the
    shell.' over 'chpwd' / 'Executed whenever the current working directory is changed.', 'precmd' / 'Executed
    before each prompt.'; 'The state machine consists of five states.' over 'FREQ - Frequency training state' /
    ...), in their order. Headings of other shapes below it ('SPECIAL CASE cron and daylight savings time', 'Restart
    the proxy after each boot') are sections of their own, not items, and a sentence with its items on lines of
    their own below it ('There are nine log message types' over 'Fatal' / 'Error' / ...) has no others. Headings of
    the shape of the sentence's own ('log_level (integer)' over 'There are nine log message types ...', then
    'log_pid (boolean)', 'pid_file (string)') are its entry's siblings, not its items."""
    items: dict[int, list[int]] = {}
    by_passage: dict[int, list[int]] = {}
    for i, candidate in enumerate(found):
        by_passage.setdefault(candidate.passage_index, []).append(i)
    for indices in by_passage.values():
        indices.sort(key=lambda i: (found[i].start, found[i].end))
        announcing = {i for i in indices if scores[i] and announces(found[i].focal, types)}
        for j in sorted(announcing):
            intro = found[j]
            below: list[int] = []
            for i in indices:
                item = found[i]
                if item.start < intro.end or i in announcing or not item.lead or item.heading == intro.heading:
                    continue
                if item.start - intro.end > ANNOUNCED_REACH:
                    break
                if item.heading and all(found[k].heading != item.heading for k in below):
                    below.append(i)
            run = _first_run([found[i].heading for i in below])
            if run is None:
                continue
            first = found[below[run.start]]
            siblings = bool(intro.heading) and _heading_shape(intro.heading) == _heading_shape(first.heading)
            if not siblings and not _lists_lines(passages[intro.passage_index].text[intro.start : first.start]):
                items[j] = [below[k] for k in run]
    return items


_MIN_ITEMS = 3
"""The fewest headings of one shape in a row that make a list."""
_ITEM_LINE = re.compile(r"^\s*\S+(?:\s+\S+){0,3}\s*$")


def _lists_lines(text: str) -> bool:
    """Whether the text holds a list of its own: at least `_MIN_ITEMS` short lines of at most four words with no
    full stop ('Fatal' / 'Error' / 'Warn'), as list items are laid out."""
    return (
        sum(bool(_ITEM_LINE.match(line)) and not line.rstrip().endswith(".") for line in text.splitlines())
        >= _MIN_ITEMS
    )


def _first_run(headings: list[str]) -> range | None:
    """Where the run of at least `_MIN_ITEMS` headings of one shape stands, if it starts at the first or second
    heading (the second when a sub-section's heading comes first: 'Hook Functions' over 'chpwd', 'periodic', ...)."""
    shapes = [_heading_shape(heading) for heading in headings]
    for first in range(min(2, len(shapes))):
        last = first
        while last + 1 < len(shapes) and shapes[last + 1] == shapes[first]:
            last += 1
        if last - first + 1 >= _MIN_ITEMS:
            return range(first, last + 1)
    return None


def _heading_shape(heading: str) -> tuple[bool, bool, bool, bool]:
    """What a list's items' headings share: a term ('precmd'), a term with its meaning ('FREQ - Frequency training
    state'), a label in capitals first ('SPECIAL CASE ...'), a short title ('High Concurrency')."""
    first = heading.split()[0]
    return (
        is_term_line(heading),
        bool(_GLOSSED.search(heading)),
        first.isupper() and len(first) > 1,
        len(heading.split()) <= 3,
    )


def _source(passages: list[Passage], candidate: Candidate) -> str:
    return passages[candidate.passage_index].source_id


def extract_evidence(
    question: str,
    sub_question: SubQuestion,
    passages: list[Passage],
    limit: int,
    embedder: Embedder,
    min_relevance: float = MIN_RELEVANCE,
    *,
    analysis: QueryAnalysis | None = None,
) -> list[Evidence]:
    """At most `limit` evidence items, best first, from different sources where possible."""
    if limit <= 0 or not passages:
        return []
    found = candidates(passages)
    scored = score_candidates(question, sub_question, passages, found, embedder, analysis)
    scores = [relevance for relevance, _ in scored]
    listing = asked_for(sub_question.text).kind == "list"
    items_of: dict[int, list[int]] = {}
    if listing:
        limit += LIST_EXTRA_ITEMS
        items_of = list_items(passages, found, scores, asked_types(sub_question.text))
        for intro, items in items_of.items():  # the items rarely repeat the question's words; their lead-in does
            for i in items:
                scores[i] = max(scores[i], INTRODUCED_RELEVANCE * scores[intro])
    ranked = sorted(range(len(found)), key=lambda i: (-scores[i], i))
    pool = [i for i in ranked if scores[i] >= min_relevance]
    if len(pool) < FALLBACK_ITEMS and sub_question.id == ASKED_AS_WRITTEN:
        nearest = [i for i in ranked if FALLBACK_RELEVANCE <= scores[i] < min_relevance]
        pool += nearest[: FALLBACK_ITEMS - len(pool)]
    chosen: list[int] = []
    per_source: dict[str, int] = {}
    per_item: dict[tuple[str, str], int] = {}

    def item_of(i: int) -> tuple[str, str]:
        """Where a candidate stands: its source, and the heading it is under (a list's item) or its section."""
        return _source(passages, found[i]), found[i].heading or found[i].section

    def adjusted(i: int) -> tuple[float, int]:
        penalty = SAME_SOURCE_PENALTY ** per_source.get(_source(passages, found[i]), 0)
        if listing:
            penalty *= SAME_SECTION_PENALTY ** per_item.get(item_of(i), 0)
        return scores[i] * penalty, -i

    def repeats(i: int, j: int) -> bool:
        a, b = found[i], found[j]
        if a.passage_index == b.passage_index and a.start < b.end and b.start < a.end:
            return True  # overlapping spans of one passage
        if listing and a.section and a.section != b.section:
            return False  # the same words said of two items of a list ('This hook is invoked by ...')
        return (
            collapse(b.quote).lower() == collapse(a.quote).lower()
            or embedder.similarity(a.quote, b.quote) >= DUPLICATE_COSINE
        )

    following: list[int] = []  # the items of a chosen lead-in: taken next, beyond the limit if need be
    while pool:
        item = next((i for i in following if i in pool), None)
        if item is None and len(chosen) >= limit:
            break
        best = item if item is not None else max(pool, key=adjusted)
        pool.remove(best)
        if any(repeats(best, j) for j in chosen):
            continue
        chosen.append(best)
        following += items_of.get(best, [])[:LISTED_ITEMS]
        place = item_of(best)
        per_source[place[0]] = per_source.get(place[0], 0) + 1
        per_item[place] = per_item.get(place, 0) + 1
    evidence = []
    for i in chosen:
        candidate = found[i]
        source_id = passages[candidate.passage_index].source_id
        evidence.append(
            Evidence(
                id=evidence_id(source_id, sub_question.id, candidate.quote, candidate.section),
                claim=collapse(candidate.quote),
                quote=candidate.quote,
                source_id=source_id,
                sub_question_id=sub_question.id,
                score=round(min(1.0, scores[i]), 4),
                # How surely the quote answers: less when it is only loosely relevant ('Defaults to 78.' about
                # e-mail lines, for a question on a style guide's line length).
                answer=round(scored[i][1] * min(1.0, scores[i] / STRONG_RELEVANCE), 4),
                section=candidate.section,
            )
        )
    return evidence
