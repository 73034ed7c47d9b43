"""Constituents of a question for the parser: noun phrases, the main verb, the predicate and its parts.

Each function takes the question's tokens (see `question_words`) and finds one boundary by rules: where
the subject ends and the verb starts ('did | the printing press | change ...'), where a predicate after
'is'/'has' starts, where 'and' joins two verb phrases, and which noun phrase follows a verb.
"""

from __future__ import annotations

from research_assistant.reasoning.extractive.morphology import (
    base_of,
    is_base_verb,
    is_clear_verb,
    is_participle,
    is_plural_noun,
    past,
    third_person,
)
from research_assistant.reasoning.extractive.question_words import (
    ADJECTIVE_SUFFIX,
    ADJECTIVES,
    AUXILIARIES,
    BE,
    CLAUSE_WORDS,
    DETERMINERS,
    HAVE,
    NOT_GERUNDS,
    OBJECT_WORDS,
    PREPOSITIONS,
    PRONOUNS,
    WH_WORDS,
    Token,
    span,
    tokenize,
)


def valid_noun_phrase(tokens: list[Token], limit: int = 8) -> bool:
    """Whether tokens can be a subject: words only, no auxiliary or clause inside, not ending in 'the' or 'of'."""
    if not tokens or len(tokens) > limit or not all(t.is_word for t in tokens):
        return False
    last = tokens[-1].low
    if last in DETERMINERS or last in PREPOSITIONS or last in CLAUSE_WORDS or last in AUXILIARIES:
        return False
    inner = [t.low for t in tokens[:-1]]
    return not any(w in AUXILIARIES or w == "to" or (w in CLAUSE_WORDS and w not in ("and", "or")) for w in inner)


def head_of(tokens: list[Token]) -> Token:
    """The head noun: the last word before a preposition ('the causes of the crisis' -> 'causes')."""
    for index, token in enumerate(tokens):
        if index and token.low in PREPOSITIONS:
            return tokens[index - 1]
    return tokens[-1]


def is_plural(tokens: list[Token]) -> bool:
    """Whether a noun phrase is plural: its head is ('the causes of X'), or it joins lower-case nouns by 'and'."""
    words = [t.low for t in tokens]
    if "and" in words and not all(t.capitalized for t in tokens if t.low != "and"):
        return True
    head = head_of(tokens)
    return head.low in ("we", "they", "you") or is_plural_noun(head.text)


def verb_split(rest: list[Token], aux: str) -> int | None:
    """Where the base-form main verb starts after 'do'/'does'/'did' or a modal, by a small score:
    clear verbs beat noun-like ones ('the printing press change'), a subject that holds a verb or
    disagrees with the auxiliary loses, and capitalized words never start the predicate."""
    best: tuple[float, int] | None = None
    for i in range(1, min(len(rest), 10)):
        token = rest[i]
        if not token.is_word or token.capitalized or not is_base_verb(token.low):
            continue
        subject = rest[:i]
        if not valid_noun_phrase(subject):
            continue
        score = 2.0 if is_clear_verb(token.low) else 1.0
        head = subject[-1]
        if not head.capitalized and is_clear_verb(head.low) and head.low not in PRONOUNS:
            score -= 1.5
        if head.low.endswith("ing") and len(subject) >= 2 and subject[-2].low in DETERMINERS:
            score -= 0.5
        score -= sum(1.0 for t in subject[:-1] if not t.capitalized and is_clear_verb(t.low))
        following = rest[i + 1] if i + 1 < len(rest) else None
        if following is not None and following.is_word and is_base_verb(following.low):
            score -= 0.5  # a noun before the verb: 'a monthly pass cost', 'the printing press change'
        plural = is_plural(subject)
        if (aux == "does" and plural) or (aux == "do" and not plural and head.low not in PRONOUNS):
            score -= 1.0
        if best is None or score > best[0]:
            best = (score, i)
    return best[1] if best is not None and best[0] >= 0 else None


def is_gerund(word: str) -> bool:
    """An -ing form ('melting'), not a noun such as 'thing' or 'morning'."""
    return len(word) > 5 and word.endswith("ing") and word not in NOT_GERUNDS


def predicate_split(rest: list[Token], aux: str, adjectives: bool = True) -> int | None:
    """Where the predicate starts after 'is'/'was'/'has': a participle, else (if `adjectives`) an adjective."""
    be = aux in BE and adjectives
    passes = [lambda w: is_participle(w) or (be and is_gerund(w))]
    if be:
        passes.append(lambda w: w in ADJECTIVES)
    for accepts in passes:
        for i in range(1, min(len(rest), 10)):
            token, previous = rest[i], rest[i - 1].low
            fits = token.is_word and not token.capitalized and accepts(token.low)
            if fits and previous not in DETERMINERS and previous not in PREPOSITIONS and valid_noun_phrase(rest[:i]):
                return i
    if be:
        for i in range(1, min(len(rest), 10)):
            token, following = rest[i], rest[i + 1].low if i + 1 < len(rest) else ""
            ends = not following or (following in PREPOSITIONS and following != "of") or following in ("and", "or", ",")
            fits = ends and not token.capitalized and ADJECTIVE_SUFFIX.fullmatch(token.low) is not None
            if fits and rest[i - 1].low not in DETERMINERS and valid_noun_phrase(rest[:i]):
                return i
    return None


def starts_verb(token: Token, following: Token | None, aux: str, after_bare_verb: bool) -> bool:
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
    return low in DETERMINERS or low in PREPOSITIONS or low in OBJECT_WORDS or low == "," or low.endswith("ly")


def split_predicate(body: str, tokens: list[Token], aux: str) -> tuple[list[str], bool]:
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
            if starts_verb(tokens[k + 1], following, aux, bare):
                cuts.append(k)
    pieces: list[list[Token]] = []
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
    return [span(body, p) for p in pieces], splittable


def object_phrase(body: str, tokens: list[Token]) -> tuple[str, bool]:
    """The first noun phrase of a predicate's remainder ('a list comprehension instead of a loop' -> 'a list
    comprehension'), with its number."""
    i = 0
    while i < len(tokens) and (tokens[i].low.endswith("ly") or tokens[i].low in PREPOSITIONS):
        i += 1
    phrase: list[Token] = []
    for token in tokens[i:]:
        low = token.low
        if not token.is_word or low in CLAUSE_WORDS or low in AUXILIARIES or low in PRONOUNS:
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
    if not phrase or all(t.low in DETERMINERS or not t.text[:1].isalpha() for t in phrase):
        return "", False  # nothing, or only a number ('in 1876')
    return span(body, phrase), is_plural(phrase)


def noun_phrase_is_plural(text: str) -> bool:
    """Whether a noun phrase reads as plural: 'reference cycles', 'TCP and UDP'; not 'the Bank of England'."""
    tokens = [t for t in tokenize(text) if t.is_word]
    return bool(tokens) and is_plural(tokens)


def finite_split(rest: list[Token]) -> tuple[int, str] | None:
    """The finite verb of a statement ('CRISPR gene editing works'): its index and the auxiliary it implies."""
    for i in range(1, min(len(rest), 10)):
        token = rest[i]
        if not token.is_word or token.capitalized or not valid_noun_phrase(rest[:i]):
            continue
        low = token.low
        if low in AUXILIARIES:
            return i, low
        base = base_of(low)
        if base is None:
            continue
        if low == base:
            if is_plural(rest[:i]):
                return i, "do"
        elif low == third_person(base):
            return i, "does"
        elif low == past(base) or low.endswith("ed"):
            return i, "did"
    return None
