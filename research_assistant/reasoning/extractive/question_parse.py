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
starts at a participle or an adjective (see `constituents`; word classes in `question_words`).
Anything else, and 'What is X?' (which the planner already handles), gives None, and the planner
falls back to keywords.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from research_assistant.reasoning.extractive.constituents import (
    finite_split,
    is_gerund,
    is_plural,
    object_phrase,
    predicate_split,
    split_predicate,
    valid_noun_phrase,
    verb_split,
)
from research_assistant.reasoning.extractive.morphology import base_of, gerund, is_participle, past, third_person
from research_assistant.reasoning.extractive.question_words import (
    AUXILIARIES,
    BE,
    CLAUSE_WORDS,
    DO,
    HAVE,
    HOW_ADVERBS,
    MODALS,
    PAST,
    PLURAL_AUX,
    PREPOSITIONS,
    PRONOUNS,
    SINGULAR_AUX,
    WH_WORDS,
    Token,
    span,
    tokenize,
)

_LEADING_PREPOSITION = re.compile(
    r"^(?:in|on|at|for|by|from|to|during|since|until|after|before|with)\s+(w)(hich|hat|hen|hom)\b", re.IGNORECASE
)
_YOU = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself", "am": "are"}


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
    """Whether the topic is plural ('vaccines'): for 'What are ...?' rather than 'What is ...?'."""
    clause: str
    """The question as a statement: 'the Halvorsby tram network opened'."""
    embedded: str
    """The question as an indirect question: 'when the Halvorsby tram network opened'."""
    gerund: str
    """The clause as a gerund phrase ('the Roman Empire falling'); '' when it would not read well."""

    @property
    def past(self) -> bool:
        return self.aux in PAST

    def sub_questions(self) -> list[str]:
        """One question per predicate, when the predicate is a compound of verb phrases; else none."""
        if not self.splittable or len(self.predicates) < 2 or not self.aux or not self.subject:
            return []
        lead = f"{self.wh} {self.aux}" if self.wh else self.aux
        lead = lead[:1].upper() + lead[1:]
        return [f"{lead} {self.subject} {p}?" for p in self.predicates]


def _you(text: str) -> str:
    """First person turned to second for statements: 'should I use my ...' -> 'you should use your ...'."""
    return re.sub(r"\b(I|me|my|mine|myself|am)\b", lambda m: _YOU[m.group().lower()], text)


def _replace_first(phrase: str, form: str) -> str:
    return f"{form} {phrase.partition(' ')[2]}".strip()


def _join(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return "".join(items) if len(items) < 2 else ", ".join(items[:-1]) + " and " + items[-1]


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
        elif aux in BE and is_gerund(first_verbs[0]):
            ing = f"{subject} {_join(predicates)}"
        else:
            ing = f"{subject} {'being' if aux in BE else 'having'} {_join(predicates)}"
    if subject == "I":
        clause = _you(clause)
    return clause, "" if pronoun else ing


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if not re.match(r"I\b|[A-Z]{2}|[A-Z]\w*[A-Z]", text) else text


def _inverted(body: str, tokens: list[Token], at: int) -> ParsedQuestion | None:
    """wh-phrase + auxiliary + subject + predicate, with the auxiliary at `at`."""
    wh = span(body, tokens[:at]) if at else ""
    aux = tokens[at].low
    rest = tokens[at + 1 :]
    if aux in DO or aux in MODALS:
        split = verb_split(rest, aux)
    else:  # after 'what is', 'who was': only a participle ('What is X used for?'), never an adjective
        split = predicate_split(rest, aux, adjectives=not wh or tokens[0].low not in ("what", "which", "who", "whose"))
        if split is None and tokens and tokens[0].low in ("when", "where") and valid_noun_phrase(rest):
            split = len(rest)  # 'Where is the Eiffel Tower?'
    if split is None:
        return None
    subject_tokens = rest[:split]
    subject = span(body, subject_tokens)
    predicates, splittable = split_predicate(body, rest[split:], aux)
    pronoun = subject.lower() in PRONOUNS
    if pronoun and predicates:
        after_verb = rest[split + 1 :] if aux in DO or aux in MODALS else rest[split:]
        topic, topic_plural = object_phrase(body, after_verb)
    else:
        topic = subject
        topic_plural = aux in PLURAL_AUX if aux in PLURAL_AUX | SINGULAR_AUX else is_plural(subject_tokens)
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


def _declarative(body: str, tokens: list[Token]) -> ParsedQuestion | None:
    """'Explain how CRISPR gene editing works': parsed as 'How does CRISPR gene editing work?'."""
    rest = tokens[2:]
    found = finite_split(rest)
    if found is None:
        return None
    index, aux = found
    verb = rest[index]
    wh = tokens[1].text[:1].upper() + tokens[1].text[1:]
    subject = span(body, rest[:index])
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
    return _inverted(question, tokenize(question), 1)


def _subject_question(body: str, tokens: list[Token], core: int) -> ParsedQuestion | None:
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
            main = i + 1
            while main < len(tokens) - 1 and tokens[main].low in ("been", "not", "also"):
                main += 1
            verb = tokens[main].low if main < len(tokens) else ""
            if not (is_participle(verb) if low in BE | HAVE else base_of(verb) == verb):
                return None  # 'What are reference cycles?', 'Which line was the busiest?': a copula, not a verb
        else:
            base = base_of(low)
            if base is None or (low == base and not (core < i and is_plural(tokens[core:i]))):
                continue  # a base form needs a plural subject: 'which countries use'; 'which tram line' does not
        topic, plural = object_phrase(body, tokens[main + 1 :])
        if not topic and core < i:
            topic, plural = span(body, tokens[core:i]), is_plural(tokens[core:i])
        statement = _lower_first(body)
        return ParsedQuestion(
            wh=span(body, tokens[:core]),
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


def _wh_end(tokens: list[Token]) -> int:
    """The index just after the wh-phrase's fixed part: 'how many', 'how long', 'what', 'when'."""
    if tokens[0].low == "how" and len(tokens) > 1 and tokens[1].low in HOW_ADVERBS:
        return 2
    return 1


def _auxiliary_at(tokens: list[Token], core: int) -> int | None:
    """Where the auxiliary is: right after the wh-phrase, or after its nouns ('how many passengers did')."""
    if core < len(tokens) and tokens[core].low in AUXILIARIES:
        return core
    first = tokens[0].low
    if first in ("what", "which", "whose") or tokens[core - 1].low in ("many", "much"):
        for i in range(core + 1, min(len(tokens), core + 5)):
            words = tokens[core:i]
            if tokens[i].low in AUXILIARIES and all(
                t.is_word and t.low not in PREPOSITIONS and t.low not in CLAUSE_WORDS for t in words
            ):
                return i
    return None


def parse_question(question: str) -> ParsedQuestion | None:
    """The question's parts, or None when it has none of the shapes this parser knows."""
    body = question.strip().rstrip(" ?!.")
    body = body.lower() if body.isupper() else body  # 'HOW DOES PYTHON WORK?'
    body = _LEADING_PREPOSITION.sub(lambda m: m.group(1).upper() + m.group(2), body)  # 'In which year ...'
    tokens = tokenize(body)
    if len(tokens) < 2:
        return None
    first = tokens[0].low
    if first in ("explain", "describe") and tokens[1].low in ("how", "why", "when", "where"):
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
