"""Word classes and tokens for the question parser: auxiliaries, determiners, prepositions, adjectives."""

from __future__ import annotations

import re
from dataclasses import dataclass

TOKEN = re.compile(r"[A-Za-z0-9][\w'’+#.-]*[\w+#]|[A-Za-z0-9]|[,;:]")


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


DO = _set("do does did")
BE = _set("is are was were am")
HAVE = _set("has have had")
MODALS = _set("can could will would should shall may might must")
AUXILIARIES = DO | BE | HAVE | MODALS
PAST = _set("did was were had")
SINGULAR_AUX = _set("does is was has")
PLURAL_AUX = _set("do are were have")
WH_WORDS = _set("when where why how what which who whom whose")
HOW_ADVERBS = _set(
    "long often far old fast big large soon quickly much many well early late frequently high deep likely "
    "important effective effectively safe reliable accurate accurately"
)
DETERMINERS = _set("the a an this that these those its their his her our my your each every some any all both no")
PREPOSITIONS = _set(
    "of in on at for from to with by about into over under between among after before during since until "
    "without within through across against toward towards via per than like as instead onto upon around "
    "behind beyond near versus vs"
)
CLAUSE_WORDS = _set(
    "when where why how what which who whom whose if because while that whether although though unless so "
    "and or but nor not never"
)
PRONOUNS = _set("i you we they it he she one")
OBJECT_WORDS = _set("it them him her me us you this that these those")
ADJECTIVES = _set(
    """important necessary possible impossible true false good bad better worse best worst big bigger small
    smaller large larger high higher low lower fast faster slow slower safe safer unsafe dangerous expensive
    cheap cheaper popular common rare useful useless harmful helpful difficult hard harder easy easier free open
    closed blue red green white black yellow hot cold warm cool wet dry old new young rich poor strong stronger
    weak weaker heavy long longer short shorter different similar equal available unavailable responsible able
    unable likely unlikely healthy unhealthy toxic stable unstable mutable immutable efficient inefficient
    effective ineffective essential relevant significant accurate inaccurate reliable unreliable valid invalid
    vulnerable sustainable profitable legal illegal obsolete sufficient insufficient scarce abundant visible
    invisible alive dead extinct so too more less still always often"""
)
ADJECTIVE_SUFFIX = re.compile(r"[a-z]{3,}(?:ous|ful|ive|able|ible|ic|ant|ent|ary|less|al)$")
NOT_GERUNDS = _set("thing something anything everything nothing king ring spring string ceiling morning evening during")


@dataclass(frozen=True)
class Token:
    """A word or punctuation mark of a question, with its place in the text."""

    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.lower()

    @property
    def is_word(self) -> bool:
        return self.text[:1].isalnum()

    @property
    def capitalized(self) -> bool:
        return self.text[:1].isupper()


def tokenize(text: str) -> list[Token]:
    return [Token(m.group(), m.start(), m.end()) for m in TOKEN.finditer(text)]


def span(body: str, parts: list[Token]) -> str:
    """The text from the first token to the last, as written."""
    return body[parts[0].start : parts[-1].end] if parts else ""
