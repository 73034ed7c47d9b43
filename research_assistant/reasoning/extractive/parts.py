"""The parts of a compound question, as sub-questions that quote them.

Two shapes, both read from the wording alone (the plan and the report must agree on the parts):

- two questions joined by 'and': 'What are the fares and how long is the network?' gives 'What are the
  fares?' and 'How long is the network?', each as the question writes it;
- one question with two predicates: 'How does Python manage memory and reclaim reference cycles?' gives
  'Aspect: manage memory (Python)' and 'Aspect: reclaim reference cycles (Python)'. Rewriting a part as
  a question ('How does Python reclaim ...?') would need the subject and the verb's form, so a part is
  quoted in a label instead. The first part needs a name to start the subject ('How does Python ...'),
  and what follows the name must end in a content word: in 'How does the Python import system find and
  load modules?' it ends in 'find', whose object is shared, so only 'Aspect: load modules (Python)'.

Anything else has no parts: a question needs exactly one 'and', and a second part that starts with a
name, an article, a pronoun or an auxiliary is not a predicate of its own. A compound subject can still
pass for two predicates ('How do honey bees and wasps build nests?' gives the label 'Aspect: wasps build
nests'); the label quotes the question, so it still reads as English.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from research_assistant.reasoning.extractive.analysis import classify
from research_assistant.reasoning.extractive.phrases import extract_entities
from research_assistant.reasoning.extractive.slots import keyword_query
from research_assistant.schemas import QueryType
from research_assistant.text.spaces import collapse
from research_assistant.text.tokens import STOPWORDS

_AND = re.compile(r",?\s+and\s+", re.IGNORECASE)
_WH = re.compile(r"^(?:what|which|who|whom|whose|when|where|why|how)\b", re.IGNORECASE)
_HOW_AUX = re.compile(
    r"^(?:how|why)\s+(?:do|does|did|can|could|should|would|will|is|are|was|were|has|have|had)\s+(?:the\s+)?",
    re.IGNORECASE,
)
_NOT_A_PREDICATE = frozenset(
    """the a an this that these those it its they them their he she his her we our you your i my
    is are was were be been being am do does did can could should would will may might must shall has have had
    not also then so""".split()  # noqa: SIM905 (a word list reads best as words)
)
_ASPECT = "Aspect: {part}"
"""'Aspect' is a framing word (`lexicon.FRAMING_WORDS`): it never counts as a term a sentence must hold."""


@dataclass(frozen=True)
class Part:
    """One part of a compound question: its sub-question and its keyword query."""

    text: str
    query: str


def _aspect(predicate: str, name: str) -> Part:
    text = _ASPECT.format(part=predicate) + (f" ({name})" if name else "")
    return Part(text, keyword_query(f"{name} {predicate}"))


def question_parts(question: str) -> list[Part]:
    """The parts of `question`, in order; none when it is not a compound question (or is a comparison)."""
    body = collapse(question).rstrip(" ?.!")
    pieces = _AND.split(body)
    if len(pieces) != 2 or classify(body) is QueryType.COMPARATIVE:
        return []
    first, second = (piece.strip(" ,;:") for piece in pieces)
    if _WH.match(first) and _WH.match(second):
        return [Part(f"{q[:1].upper()}{q[1:]}?", keyword_query(q)) for q in (first, second)]
    lead = _HOW_AUX.match(first)
    words = second.split()
    if lead is None or len(first.split()) < 4 or len(words) < 2:
        return []
    if second[:1].isupper() or words[0].lower() in _NOT_A_PREDICATE:
        return []
    name = next((e for e in extract_entities(first) if e.lower() not in second.lower()), "")
    parts = [_aspect(second, name)]
    subject = first[lead.end() :]
    rest = subject[len(name) + 1 :].split() if name and subject.startswith(f"{name} ") else []
    if len(rest) >= 2 and rest[-1].lower() not in STOPWORDS:  # 'Python manage memory' -> 'manage memory'
        parts.insert(0, _aspect(" ".join(rest), name))
    return parts
