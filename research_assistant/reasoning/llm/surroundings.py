"""What a quote is about: the heading above it and the sentences around it in the passage it came from.

A quote such as "The collector only tracks container objects." does not say which collector; its source's
title and the section it sits in do. The verifier is shown both, so that a statement naming its source or
section is not taken for one that adds to its evidence.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass

from research_assistant.knowledge.passages import ENDS_SENTENCE

_SENTENCE_END = re.compile(r"""[.!?]["'”’)\]]*\s+""")
REACH = 300
"""Characters of text shown on either side of a quote, cut to whole sentences."""


@dataclass(frozen=True)
class Surroundings:
    heading: str = ""
    """The nearest heading above the quote in its passage ('' when the passage shows none)."""
    text: str = ""
    """The text around the quote, the quote itself written '[quote]'."""


def surroundings(passage_text: str, quote: str, reach: int = REACH) -> Surroundings:
    """The heading above `quote` in the passage, and up to `reach` characters of whole sentences either side."""
    words = quote.split()
    match = re.search(r"\s+".join(re.escape(word) for word in words), passage_text) if words else None
    if match is None:
        return Surroundings()
    before, after = passage_text[: match.start()], passage_text[match.end() :]
    lines = (line.strip().lstrip("#").strip() for line in reversed(before.split("\n")[:-1]))
    heading = next((line for line in lines if line and len(line) <= 100 and not ENDS_SENTENCE.search(line)), "")
    head = before
    if len(head) > reach:
        head = head[-reach:]
        starts = [m.end() for m in _SENTENCE_END.finditer(head)]
        head = head[starts[0] :] if starts else head.split(" ", 1)[-1]
    tail = after
    if len(tail) > reach:
        tail = tail[:reach]
        ends = [m.start() + len(m.group(0).rstrip()) for m in _SENTENCE_END.finditer(tail)]
        tail = tail[: ends[-1]] if ends else tail.rsplit(" ", 1)[0]
    text = " ".join(f"{head} [quote] {tail}".split())
    if heading and heading not in head:
        text = f"{heading}: {text}"
    return Surroundings(heading=heading, text="" if text == "[quote]" else text)


class SurroundingsMemo:
    """The surroundings of the evidence extracted lately, by evidence id (bounded: the oldest are forgotten).

    Evidence ids are content hashes, so an id names the same quote from the same source in every run, and the
    runs of a process share one memo; a resumed run whose evidence was extracted by another process finds none
    and shows titles only.
    """

    def __init__(self, size: int = 20_000) -> None:
        self._size = size
        self._items: OrderedDict[str, Surroundings] = OrderedDict()
        self._lock = threading.Lock()  # runs share it, and background runs run in threads of their own

    def remember(self, evidence_id: str, found: Surroundings) -> None:
        if not found.text:
            return
        with self._lock:
            self._items[evidence_id] = found
            self._items.move_to_end(evidence_id)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def get(self, evidence_id: str) -> Surroundings:
        with self._lock:
            return self._items.get(evidence_id, Surroundings())
