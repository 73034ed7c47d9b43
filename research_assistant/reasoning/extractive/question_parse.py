"""A light, classical parser for English questions: wh-phrase, auxiliary, subject and predicate.

'When did the Halvorsby tram network open?' -> wh 'When', auxiliary 'did', subject 'the Halvorsby tram
network', predicate 'open'; 'How does Python manage memory and reclaim reference cycles?' has two
predicates, 'manage memory' and 'reclaim reference cycles'. The planner uses the parts for headings
that read as English: the subject as the topic ('What is the Halvorsby tram network?'), the clause
in indirect questions ('... how Python manages memory'), and one sub-question per predicate.

Handled shapes: wh + auxiliary + subject + predicate ('Why did the Roman Empire fall?'), yes/no
questions ('Can photosynthesis occur without sunlight?'), subject questions ('Who invented the
telephone?', 'Which countries use the euro?') and 'Explain how X works'. The main verb after
'do'/'does'/'did' or a modal is found with a lexicon of base-form verbs (see `morphology`), scored so
that capitalized runs and 'the X Y' noun phrases stay whole; after 'is'/'was'/'has' the predicate
starts at a participle or an adjective. Anything else, and 'What is X?' (which the planner already
handles), gives None, and the planner falls back to keywords.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from research_assistant.reasoning.extractive.morphology import (
    base_of,
    gerund,
    is_base_verb,
    is_clear_verb,
    is_participle,
    is_plural_noun,
    past,
    third_person,
)

_TOKEN = re.compile(r"[A-Za-z0-9][\w'’+#.-]*[\w+#]|[A-Za-z0-9]|[,;:]")


def _set(text: str) -> frozenset[str]:
    return frozenset(text.split())


DO = _set("do does did")
BE = _set("is are was were am")
HAVE = _set("has have had")
MODALS = _set("can could will would should shall may might must")
AUXILIARIES = DO | BE | HAVE | MODALS
_PAST = _set("did was were had")
_SINGULAR_AUX = _set("does is was has")
_PLURAL_AUX = _set("do are were have")
WH_WORDS = _set("when where why how what which who whom whose")
_HOW_ADVERBS = _set(
    "long often far old fast big large soon quickly much many well early late frequently high deep likely "
    "important effective effectively safe reliable accurate accurately"
)
_TIME_NOUNS = _set("year years date day time month century decade")
DETERMINERS = _set("the a an this that these those its their his her our my your each every some any all both no")
PREPOSITIONS = _set(
    "of in on at for from to with by about into over under between among after before during since until "
    "without within through across against toward towards via per than like as instead onto upon around "
    "behind beyond near versus vs"
)
_CLAUSE_WORDS = _set(
    "when where why how what which who whom whose if because while that whether although though unless so "
    "and or but nor not never"
)
PRONOUNS = _set("i you we they it he she one")
_OBJECT_WORDS = _set("it them him her me us you this that these those")
_ADJECTIVES = _set(
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
_ADJECTIVE_SUFFIX = re.compile(r"[a-z]{3,}(?:ous|ful|ive|able|ible|ic|ant|ent|ary|less|al)$")
_NOT_GERUNDS = _set("thing something anything everything nothing king ring spring string ceiling morning evening during")
_YOU = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself", "am": "are"}


@dataclass(frozen=True)
class _Token:
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


@dataclass(frozen=True)
class ParsedQuestion:
    """The parts of a question, as written, and the clause rephrased as a statement."""

    wh: str
    """The wh-phrase as written: 'When', 'How many passengers'; '' for a yes/no question."""
    aux: str
    """The auxiliary, lower-cased: 'did', 'does', 'is', 'can'; '' for 'Who invented the telephone?'."""
    subject: str
    """The subject noun phrase: 'the Halvorsby tram network'; '' for subject questions."""
    predicates: tuple[str, ...]
    """The predicate, split at 'and' between verbs: ('manage memory', 'reclaim reference cycles')."""
    splittable: bool
    """Whether each predicate makes a question of its own (not 'find and load modules': a shared object)."""
    topic: str
    """The noun phrase the question is about: the subject, else the object ('the telephone')."""
    topic_plural: bool
    clause: str
    """The question as a statement: 'the Halvorsby tram network opened'."""
    embedded: str
    """The question as an indirect question: 'when the Halvorsby tram network opened'."""
    gerund: str
    """The clause as a gerund phrase ('the Roman Empire falling'); '' when it would not read well."""

    @property
    def past(self) -> bool:
        return self.aux in _PAST

    def sub_questions(self) -> list[str]:
        """One question per predicate, when the predicate is a compound of verb phrases; else none."""
        if not self.splittable or len(self.predicates) < 2 or not self.aux or not self.subject:
            return []
        lead = f"{self.wh} {self.aux}" if self.wh else self.aux
        lead = lead[:1].upper() + lead[1:]
        return [f"{lead} {self.subject} {p}?" for p in self.predicates]


def _tokens(text: str) -> list[_Token]:
    return [_Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _span(body: str, tokens: list[_Token]) -> str:
    return body[tokens[0].start : tokens[-1].end] if tokens else ""


def _valid_noun_phrase(tokens: list[_Token], limit: int = 8) -> bool:
    if not tokens or len(tokens) > limit or not all(t.is_word for t in tokens):
        return False
    last = tokens[-1].low
    if last in DETERMINERS or last in PREPOSITIONS or last in _CLAUSE_WORDS or last in AUXILIARIES:
        return False
    inner = [t.low for t in tokens[:-1]]
    return not any(w in AUXILIARIES or w == "to" or (w in _CLAUSE_WORDS and w not in ("and", "or")) for w in inner)


def _head(tokens: list[_Token]) -> _Token:
    """The head noun: the last word before a preposition ('the causes of the crisis' -> 'causes')."""
    for index, token in enumerate(tokens):
        if index and token.low in PREPOSITIONS:
            return tokens[index - 1]
    return tokens[-1]


def _plural(tokens: list[_Token]) -> bool:
    words = [t.low for t in tokens]
    if "and" in words and not all(t.capitalized for t in tokens if t.low != "and"):
        return True
    head = _head(tokens)
    return head.low in ("we", "they", "you") or is_plural_noun(head.text)


def _verb_split(rest: list[_Token], aux: str) -> int | None:
    """Where the base-form main verb starts after 'do'/'does'/'did' or a modal, by a small score:
    clear verbs beat noun-like ones ('the printing press change'), a subject that holds a verb or
    disagrees with the auxiliary loses, and capitalized words never start the predicate."""
    best: tuple[float, int] | None = None
    for i in range(1, min(len(rest), 10)):
        token = rest[i]
        if not token.is_word or token.capitalized or not is_base_verb(token.low):
            continue
        subject = rest[:i]
        if not _valid_noun_phrase(subject):
            continue
        score = 2.0 if is_clear_verb(token.low) else 1.0
        head = subject[-1]
        if not head.capitalized and is_clear_verb(head.low) and head.low not in PRONOUNS:
            score -= 1.5
        if head.low.endswith("ing") and len(subject) >= 2 and subject[-2].low in DETERMINERS:
            score -= 0.5
        score -= sum(1.0 for t in subject[:-1] if not t.capitalized and is_clear_verb(t.low))
        plural = _plural(subject)
        if aux == "does" and plural or aux == "do" and not plural and head.low not in PRONOUNS:
            score -= 1.0
        if best is None or score > best[0]:
            best = (score, i)
    return best[1] if best is not None and best[0] >= 0 else None


def _is_gerund(word: str) -> bool:
    return len(word) > 5 and word.endswith("ing") and word not in _NOT_GERUNDS


def _predicate_split(rest: list[_Token], aux: str) -> int | None:
    """Where the predicate starts after 'is'/'was'/'has': a participle, else an adjective."""
    be = aux in BE
    passes = [lambda w: is_participle(w) or be and _is_gerund(w)]
    if be:
        passes.append(lambda w: w in _ADJECTIVES)
    for accepts in passes:
        for i in range(1, min(len(rest), 10)):
            token, previous = rest[i], rest[i - 1].low
            if token.is_word and not token.capitalized and previous not in DETERMINERS and previous not in PREPOSITIONS:
                if accepts(token.low) and _valid_noun_phrase(rest[:i]):
                    return i
    if be:
        for i in range(1, min(len(rest), 10)):
            token, following = rest[i], rest[i + 1].low if i + 1 < len(rest) else ""
            ends = not following or following in PREPOSITIONS or following in ("and", "or", ",")
            if ends and not token.capitalized and _ADJECTIVE_SUFFIX.fullmatch(token.low):
                if rest[i - 1].low not in DETERMINERS and _valid_noun_phrase(rest[:i]):
                    return i
    return None


def _starts_verb(token: _Token, following: _Token | None, aux: str, after_bare_verb: bool) -> bool:
    """Whether a conjunct starts with a verb of the predicate's form (base form, or participle after be/have);
    a noun-like verb only when it cannot be a noun: after a bare verb ('find and load modules'), or
    before an object ('begin and end', 'raise and lower the rate')."""
    if not token.is_word or token.capitalized:
        return False
    if aux in BE or aux in HAVE:
        return is_participle(token.low)
    if is_clear_verb(token.low):
        return True
    if not is_base_verb(token.low):
        return False
    if following is None or after_bare_verb:
        return True
    low = following.low
    return low in DETERMINERS or low in PREPOSITIONS or low in _OBJECT_WORDS or low == "," or low.endswith("ly")


def _predicates(body: str, tokens: list[_Token], aux: str) -> tuple[list[str], bool]:
    """The predicate's conjuncts split at 'and' or commas before a verb, and whether to ask about each."""
    for k, token in enumerate(tokens):
        if k and token.low in WH_WORDS and tokens[k - 1].low in (",", "and", "or"):
            tokens = tokens[: k - 1]  # '..., and why does it matter?' asks a second question
            break
    cuts: list[int] = []
    for k, token in enumerate(tokens[:-1]):
        if k and (token.low == "and" or token.text == ",") and tokens[k + 1].low != "and":
            following = tokens[k + 2] if k + 2 < len(tokens) else None
            bare = k - (cuts[-1] + 1 if cuts else 0) == 1
            if _starts_verb(tokens[k + 1], following, aux, bare):
                cuts.append(k)
    pieces: list[list[_Token]] = []
    start = 0
    for cut in [*cuts, len(tokens)]:
        piece = tokens[start:cut]
        while piece and (piece[-1].low == "and" or piece[-1].text == ","):
            piece = piece[:-1]
        if piece:
            pieces.append(piece)
        start = cut + 1
    last = pieces[-1] if pieces else []
    shared_object = len(last) > 1 and last[1].is_word and last[1].low not in PREPOSITIONS
    splittable = len(pieces) > 1 and not (shared_object and any(len(p) == 1 for p in pieces[:-1]))
    return [_span(body, p) for p in pieces], splittable


def _object_phrase(body: str, tokens: list[_Token]) -> tuple[str, bool]:
    """The first noun phrase of a predicate's remainder ('a list comprehension instead of a loop' -> 'a list
    comprehension'), with its number."""
    i = 0
    while i < len(tokens) and (tokens[i].low.endswith("ly") or tokens[i].low in PREPOSITIONS):
        i += 1
    phrase: list[_Token] = []
    for token in tokens[i:]:
        low = token.low
        if not token.is_word or low in _CLAUSE_WORDS or low in AUXILIARIES or low in PRONOUNS:
            break
        if low in PREPOSITIONS and low != "of":
            break
        if low in DETERMINERS and phrase and phrase[-1].low != "of":
            break
        phrase.append(token)
        if len(phrase) >= 6:
            break
    while phrase and (phrase[-1].low in DETERMINERS or phrase[-1].low == "of"):
        phrase = phrase[:-1]
    if not phrase or all(t.low in DETERMINERS for t in phrase):
        return "", False
    return _span(body, phrase), _plural(phrase)


def _you(text: str) -> str:
    """First person turned to second for statements: 'should I use my ...' -> 'you should use your ...'."""
    return re.sub(r"\b(I|me|my|mine|myself|am)\b", lambda m: _YOU[m.group().lower()], text)


def _replace_first(phrase: str, form: str) -> str:
    first, _, rest = phrase.partition(" ")
    return f"{form} {rest}".strip()


def _join(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _clauses(aux: str, subject: str, predicates: list[str], pronoun: bool) -> tuple[str, str]:
    """(statement, gerund phrase) of an inverted question's parts."""
    first_verbs = [p.split(" ", 1)[0].lower() for p in predicates]
    if aux in DO:
        if aux == "does":
            forms = [third_person(v) for v in first_verbs]
        elif aux == "did":
            forms = [past(v) for v in first_verbs]
        else:
            forms = first_verbs
        finite = _join([_replace_first(p, f) for p, f in zip(predicates, forms, strict=True)])
        clause = f"{subject} {finite}"
        ing = f"{subject} {_join([_replace_first(p, gerund(v)) for p, v in zip(predicates, first_verbs, strict=True)])}"
    elif aux in MODALS:
        clause = f"{subject} {aux} {_join(predicates)}"
        ing = f"{subject} {_join([_replace_first(p, gerund(v)) for p, v in zip(predicates, first_verbs, strict=True)])}"
    else:
        clause = f"{subject} {aux} {_join(predicates)}".strip()
        if not predicates:
            ing = ""
        elif aux in BE and _is_gerund(first_verbs[0]):
            ing = f"{subject} {_join(predicates)}"
        else:
            ing = f"{subject} {'being' if aux in BE else 'having'} {_join(predicates)}"
    if subject == "I":
        clause = _you(clause)
    return clause, "" if pronoun else ing


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if not re.match(r"I\b|[A-Z]{2}|[A-Z]\w*[A-Z]", text) else text


def noun_phrase_is_plural(text: str) -> bool:
    """Whether a noun phrase reads as plural: 'reference cycles', 'TCP and UDP'; not 'the Bank of England'."""
    tokens = [t for t in _tokens(text) if t.is_word]
    return bool(tokens) and _plural(tokens)


def _inverted(body: str, tokens: list[_Token], at: int) -> ParsedQuestion | None:
    """wh-phrase + auxiliary + subject + predicate, with the auxiliary at `at`."""
    wh = _span(body, tokens[:at]) if at else ""
    aux = tokens[at].low
    rest = tokens[at + 1 :]
    if aux in DO or aux in MODALS:
        split = _verb_split(rest, aux)
    else:
        split = _predicate_split(rest, aux)
        if split is None and tokens and tokens[0].low in ("when", "where") and _valid_noun_phrase(rest):
            split = len(rest)  # 'Where is the Eiffel Tower?'
    if split is None:
        return None
    subject_tokens = rest[:split]
    subject = _span(body, subject_tokens)
    predicates, splittable = _predicates(body, rest[split:], aux)
    pronoun = subject.lower() in PRONOUNS
    if pronoun and predicates:
        after_verb = rest[split + 1 :] if aux in DO or aux in MODALS else rest[split:]
        topic, topic_plural = _object_phrase(body, after_verb)
    else:
        topic = subject
        topic_plural = aux in _PLURAL_AUX if aux in _PLURAL_AUX | _SINGULAR_AUX else _plural(subject_tokens)
    clause, ing = _clauses(aux, subject, predicates, pronoun)
    embedded = f"{_lower_first(wh)} {clause}" if wh else f"whether {clause}"
    return ParsedQuestion(
        wh=wh,
        aux=aux,
        subject=subject,
        predicates=tuple(predicates),
        splittable=splittable,
        topic=topic,
        topic_plural=topic_plural,
        clause=clause,
        embedded=embedded,
        gerund=ing,
    )


def _finite_split(rest: list[_Token]) -> tuple[int, str] | None:
    """The finite verb of a statement ('CRISPR gene editing works'): its index and the auxiliary it implies."""
    for i in range(1, min(len(rest), 10)):
        token = rest[i]
        if not token.is_word or token.capitalized or not _valid_noun_phrase(rest[:i]):
            continue
        low = token.low
        if low in AUXILIARIES:
            return i, low
        base = base_of(low)
        if base is None:
            continue
        if low == base:
            if _plural(rest[:i]):
                return i, "do"
        elif low == third_person(base):
            return i, "does"
        elif low == past(base) or low.endswith("ed"):
            return i, "did"
    return None


def _declarative(body: str, tokens: list[_Token]) -> ParsedQuestion | None:
    """'Explain how CRISPR gene editing works': parsed as 'How does CRISPR gene editing work?'."""
    rest = tokens[2:]
    found = _finite_split(rest)
    if found is None:
        return None
    index, aux = found
    verb = rest[index]
    wh = tokens[1].text[:1].upper() + tokens[1].text[1:]
    subject = _span(body, rest[:index])
    if verb.low in AUXILIARIES:
        question = f"{wh} {verb.low} {subject} {body[verb.end :].strip()}"
    else:
        remainder = body[verb.end :]
        for previous, token in reversed(list(zip(rest[index:], rest[index + 1 :], strict=False))):
            base = base_of(token.low)
            if previous.low in ("and", ",") and base and base != token.low and not token.capitalized:
                at, end = token.start - verb.end, token.end - verb.end
                remainder = remainder[:at] + base + remainder[end:]
        question = f"{wh} {aux} {subject} {base_of(verb.low) or verb.low}{remainder}"
    return _inverted(question, _tokens(question), 1)


def _subject_question(body: str, tokens: list[_Token], core: int) -> ParsedQuestion | None:
    """'Who invented the telephone?', 'Which countries use the euro?': the verb follows the wh-phrase."""
    first = tokens[0].low
    candidates = [core] if first in ("who", "what") else range(core + 1, min(len(tokens), core + 5))
    for i in candidates:
        if i >= len(tokens):
            return None
        token = tokens[i]
        if not token.is_word or token.capitalized:
            continue
        low, main = token.low, i
        if low in AUXILIARIES:
            if low in BE and first in ("who", "what") or i + 1 >= len(tokens):
                return None  # 'What is X?', 'Who was X?': the planner's noun-phrase path
            main = i + 1
            while main < len(tokens) - 1 and tokens[main].low in ("been", "not", "also"):
                main += 1
            if base_of(tokens[main].low) is None and not is_participle(tokens[main].low):
                continue
        elif base_of(low) is None:
            continue
        topic, plural = _object_phrase(body, tokens[main + 1 :])
        if not topic and core < i:
            topic, plural = _span(body, tokens[core:i]), _plural(tokens[core:i])
        if not topic:
            return None
        statement = _lower_first(body)
        return ParsedQuestion(
            wh=_span(body, tokens[:core]),
            aux="",
            subject="",
            predicates=(),
            splittable=False,
            topic=topic,
            topic_plural=plural,
            clause=statement,
            embedded=statement,
            gerund="",
        )
    return None


def _wh_end(tokens: list[_Token]) -> int:
    """The index just after the wh-phrase's fixed part: 'how many', 'how long', 'what', 'when'."""
    if tokens[0].low == "how" and len(tokens) > 1 and tokens[1].low in _HOW_ADVERBS:
        return 2
    return 1


def _auxiliary_at(tokens: list[_Token], core: int) -> int | None:
    """Where the auxiliary is: right after the wh-phrase, or after its nouns ('how many passengers did')."""
    if core < len(tokens) and tokens[core].low in AUXILIARIES:
        return core
    first = tokens[0].low
    if first in ("what", "which", "whose") or tokens[core - 1].low in ("many", "much"):
        for i in range(core + 1, min(len(tokens), core + 5)):
            words = tokens[core:i]
            if tokens[i].low in AUXILIARIES and all(
                t.is_word and t.low not in PREPOSITIONS and t.low not in _CLAUSE_WORDS for t in words
            ):
                return i
    return None


def parse_question(question: str) -> ParsedQuestion | None:
    """The question's parts, or None when it has none of the shapes this parser knows."""
    body = question.strip().rstrip(" ?!.")
    tokens = _tokens(body)
    if len(tokens) < 2:
        return None
    first = tokens[0].low
    if first in ("explain", "describe") and tokens[1].low in ("how", "why", "when", "where", "whether"):
        return _declarative(body, tokens) if len(tokens) > 3 else None
    if first in AUXILIARIES:
        return _inverted(body, tokens, 0)
    if first not in WH_WORDS:
        return None
    core = _wh_end(tokens)
    at = _auxiliary_at(tokens, core)
    parsed = _inverted(body, tokens, at) if at is not None else None
    if parsed is None and (first in ("who", "what", "which", "whose") or tokens[1].low in ("many", "much")):
        return _subject_question(body, tokens, core)
    return parsed
