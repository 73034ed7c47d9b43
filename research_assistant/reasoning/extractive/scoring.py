"""Relevance of candidate quotes to a sub-question.

Each candidate gets features in 0..1 and a raw relevance

    raw = ( 0.45 * BM25 over the candidates, relative to the query's ideal score
          + 0.20 * cosine of embedding vectors (HashingEmbedding: 0.5 already counts as 1)
          + 0.10 * retrieval prior (the passage's rank among the retrieved passages)
          + 0.15 * concept coverage (see below)
          + 0.10 * focus: the subject appears in the sentence's first words (idf-weighted)
          + bonuses: the answer's expected shape (a figure for 'how many', a date for 'when',
            a definition or API signature for 'what is', a contrast for comparisons, an
            instruction for 'how do I'), the question's entities, a table row or entry keyed
            by a name the question uses, and a section heading made of the question's words )
        * a length factor (very short or very long sentences lose a little)
        * (0.4 + 0.6 * concept coverage);

the reported score is `min(1, raw / SCORE_SCALE)`. Concepts are the question's
keyword and entity phrases the sub-question mentions plus the sub-question's own
phrases; coverage is the share of them a sentence holds, each weighted by 1 + idf
(shrunk for small pools), so a sentence must touch every part of the question to
score well, and the part that tells candidates apart ('threats') counts most.
Query terms weigh 1.5/sqrt(phrase length) for topic phrases, 1.0 for other
sub-question terms, 0.6 for template words, 0.3 for the question's other topic
terms, and synonyms half (never diluting the ideal). A candidate that shares no
specific term with the sub-question (or, for a generic one, with the question)
is never evidence.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from research_assistant.reasoning.answers import answer_strength, expands, states_setting_value
from research_assistant.reasoning.extractive.aliases import acronym_aliases, with_aliases
from research_assistant.reasoning.extractive.bm25 import BM25
from research_assistant.reasoning.extractive.candidates import Candidate, is_term_line, is_value_field
from research_assistant.reasoning.extractive.query import Concept, Query, build_query
from research_assistant.reasoning.extractive.shapes import entity_bonus, entry_defines, length_factor, shape_bonus
from research_assistant.reasoning.extractive.signals import (
    defines,
    names_numbered_sibling,
    names_other_version,
    numbered_names,
)
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.reasoning.extractive.which import (
    INSTANCE_ANSWER,
    SIBLING_FIT,
    asked_phrase,
    asked_types,
    entry_owner,
    letter_names,
    names_instance,
    names_setting,
    setting_named,
)
from research_assistant.reasoning.questions import Asked, asked_for, without_context
from research_assistant.schemas import Passage, QueryAnalysis, SubQuestion
from research_assistant.text.synonyms import synonyms
from research_assistant.text.tokens import compound_pairs, content_terms, names_in, quoted_literals, terms_of, words

SCORE_SCALE = 1.3
"""Raw relevance (weighted parts plus bonuses) divided by this gives the 0..1 score."""
MIN_RELEVANCE = 0.3
"""Below this a sentence is not evidence."""
MISSING_SHAPE_FIT = 0.8
"""A 'how many' or 'when' question is not answered by a sentence without a figure or a date."""
VERSION_NOTE = re.compile(r"^(?:changed|new|added|deprecated|removed) (?:in|since) version\b", re.IGNORECASE)
VERSION_NOTE_FIT = 0.6
"""'Changed in version 3.7: ...' notes in reference documentation record history; they rarely answer."""
META_SENTENCE = re.compile(
    r"^(?:\S+\s+){0,12}?(?:this|these|the following|the present)\s+(?:document|section|page|chapter|article|"
    r"guide|tutorial|howto|manual|notes?)\s+(?:\w+\s+){0,3}?(?:describes?|explains?|covers?|discusses|attempts|"
    r"shows|is available|documents|introduces|gives|summari[sz]es?|outlines?)\b",
    re.IGNORECASE,
)
META_SENTENCE_FIT = 0.4
"""'This document describes ...': about the document, not the subject; such a sentence repeats the question's
words and points to the answer without giving it."""
LEAD_IN_ALONE_FIT = 0.7
"""A span that ends on its colon and holds nothing of the asked kind ('It is also worth knowing the meanings of
certain Russian words:'): a lead-in without what it introduces, which the span of the lead-in with its items
holds, repeating the same words. (A sentence that states the value before its colon, '... precision (defaulting
to 28 places) which can be as large as needed:', is not one.)"""
OTHER_THAN_COMPARED_FIT = 0.5
"""A span that names neither of two compared symbols ('-q' and '-Q'): the question's other words ('running
sphinx-build') only say where the symbols are used, and match every sentence about that."""
OTHER_VERSION_FIT = 0.5
"""A span of a page or section on another numbered version of the asked thing ('The DHCPv6 Server' for kea-dhcp4):
its words match the question's as well as the asked version's would, but it answers for the other."""
ANSWER_WEIGHT = 0.3
"""How much holding the asked-for thing adds to a span's raw relevance."""
NO_VALUE_FIT = 0.7
"""A question that asks for a value is not answered by a span without one."""
NO_EXPANSION_FIT = 0.4
"""What an acronym stands for is told only by words whose initials spell it, which `expands` recognises surely:
a sentence that only uses the acronym, however often, does not answer."""
EXTENSION_FIT = 0.75
"""A two-sentence span (or a lead-in with its list) that holds no more of the answer than its first part."""
SHAPED_ANSWERS = {"definition": 0.2, "comparison": 0.16, "procedure": 0.16}
"""`shape_bonus` at which a span answers these kinds outright: a definition of the subject (a glossary or API
entry, '<subject> is a ...'). A contrast naming both sides (0.12) or an instruction with its command (0.12)
reach three quarters: their form alone does not prove they answer."""
WAYS_ASKED = frozenset({"procedure", "explanation"})
"""Questions asking how to do something or how it works: a table row that shares one of their words ('Leases | yes |
yes' for 'What command brings my lease database's schema up to date?') is not about the asked thing, as a row
keyed by the words of a value question's measured thing is ('field size | 1 GB')."""
ANSWERING_CONCEPTS = 0.5
"""Concept coverage below which a span holding a value of the asked kind may be about something else."""
STRONG_RELEVANCE = 0.4
"""At or above this a sentence answers its sub-question well; progress counts such items."""


def _with_identifier_matches(
    terms: list[str],
    query_terms: list[str],
    compounds: Mapping[str, tuple[str, str]] | None = None,
    whole: frozenset[str] = frozenset(),
) -> list[str]:
    """`terms` plus the query terms (5+ letters) hidden inside its long identifiers ('setrecursionlimit'), and
    the two query terms a compound of the text joins (`compounds`: 'sendmail' for a question's 'send mail').
    A query term in `whole` (one the question writes as a name: 'TIMEFORMAT') is matched only where no letter
    goes on from it: inside a longer identifier it is another name ('HISTTIMEFORMAT'), while a converter's digits
    glued to it are not ('4#4rot_x5#5', as LaTeX2HTML writes math, holds 'rot_x')."""
    joined = [part for t in terms if compounds and t in compounds for part in compounds[t] if part not in terms]
    long_tokens = [t for t in terms if len(t) >= 12 or "." in t or "_" in t]
    if not long_tokens:
        return terms + joined
    hidden = [
        q
        for q in query_terms
        if len(q) >= 5 and q not in terms and any(_holds(token, q, q in whole) for token in long_tokens)
    ]
    return terms + joined + hidden


def _holds(token: str, term: str, whole: bool) -> bool:
    """Whether the token holds the term; a `whole` term not with a letter on either side."""
    if not whole:
        return term in token
    return re.search(rf"(?<![a-z]){re.escape(term)}(?![a-z])", token) is not None


def _rank_prior(passages: list[Passage]) -> list[float]:
    order = sorted(range(len(passages)), key=lambda i: (-passages[i].score, i))
    prior = [0.0] * len(passages)
    for rank, index in enumerate(order):
        prior[index] = 1.0 - rank / max(len(passages), 1)
    return prior


@dataclass(frozen=True)
class Features:
    """The parts of a candidate's relevance, each in 0..1 except the bonuses."""

    bm25: float
    cosine: float
    prior: float
    concepts: float
    focus: float
    bonus: float
    length: float
    shape_fit: float = 1.0
    """Below 1 when the question asks for a value (a figure, a default, a date, an expansion) and the span has
    none, or when a two-sentence span adds nothing its parts lack."""
    answer: float = 0.0
    """How clearly the span holds what the sub-question asks for (see `reasoning.answers`)."""
    sureness: float = 1.0
    """The most `judged_answer` may be: less when only the span's form says it answers (`DEFINING_SENTENCE`)."""

    @property
    def raw(self) -> float:
        base = 0.45 * self.bm25 + 0.20 * self.cosine + 0.10 * self.prior + 0.15 * self.concepts + 0.10 * self.focus
        base += ANSWER_WEIGHT * self.answer
        return (base + self.bonus) * self.length * self.shape_fit * (0.4 + 0.6 * self.concepts)

    @property
    def judged_answer(self) -> float:
        """How surely the span answers: its answer strength, less when it touches few of the question's
        concepts ('Defaults to 78.' about e-mail lines, for the line length a style guide recommends)."""
        return min(self.sureness, self.answer * min(1.0, self.concepts / ANSWERING_CONCEPTS))

    @property
    def rank(self) -> float:
        """The relevance before it is capped at 1: candidates that all reach 1 still rank apart."""
        return self.raw / SCORE_SCALE

    @property
    def total(self) -> float:
        """The relevance in 0..1: the raw sum scaled so that a perfect match with its shape bonus is 1."""
        return round(min(1.0, self.raw / SCORE_SCALE), 4)


CONTEXT_CREDIT = 0.5
"""How much a term counts when it is not in the sentence but in the passage around it: documents name
their subject once ('The Halvorsby network ...') and then state facts without repeating it ('It has six
lines.'), so such a sentence still answers a question about that subject."""


def _held(term: str, present: set[str], context: frozenset[str] = frozenset()) -> float:
    if term in present:
        return 1.0
    if any(s in present for s in synonyms(term)):
        return 0.5
    return CONTEXT_CREDIT if term in context else 0.0


def concept_coverage(
    concepts: list[Concept],
    present: set[str],
    idf: Callable[[str], float] | None = None,
    context: frozenset[str] = frozenset(),
) -> float:
    """The weighted share of the query's concepts that the text holds; a concept held in part counts in part.

    With `idf`, a concept also weighs its terms' mean idf, so that the concept that sets candidates
    apart ('threats') counts more than the one they all share ('Great Barrier Reef').
    """
    total = held = 0.0
    for concept in filter(lambda c: c.terms, concepts):
        rarity = sum(idf(t) for t in concept.terms) / len(concept.terms) if idf is not None else 1.0
        parts = [_held(t, present, context) for t in concept.terms]
        share = max(parts) if concept.any_term else sum(parts) / len(parts)
        total += concept.weight * rarity
        held += concept.weight * rarity * share
    return held / total if total else 0.0


CONTEXT_COSINE = 0.8
"""Similarity that comes from the title and heading around a sentence counts for less than its own."""
PHRASE_BONUS = 0.08


def phrase_bonus(concepts: list[Concept], sequences: list[list[str]]) -> float:
    """A bonus for each multi-word concept found as a phrase (its terms in order, side by side), as in
    phrase search: 'global interpreter lock' is the concept; 'the interpreter's global import lock' is not."""
    found = 0
    for concept in concepts:
        size = len(concept.terms)
        if size < 2 or concept.any_term:
            continue
        if any(tuple(sequence[i : i + size]) == concept.terms for sequence in sequences for i in range(len(sequence))):
            found += 1
    return min(2, found) * PHRASE_BONUS


def _named_by(candidate: Candidate) -> str:
    """What names a candidate's setting: a quote that names one ('Default: | KeepAliveTimeout 5') is judged by
    that name, not by the headings above it, which may belong to the setting before."""
    return candidate.quote if names_setting(candidate.quote) else f"{candidate.section}\n{candidate.heading}"


def candidate_features(
    question: str,
    sub_question: SubQuestion,
    passages: list[Passage],
    found: list[Candidate],
    embedder: Embedder,
    analysis: QueryAnalysis | None = None,
) -> list[Features | None]:
    """The relevance features of every candidate; None for those that may never be evidence."""
    query = build_query(question, sub_question, analysis)
    asked = asked_for(sub_question.text)
    literals = quoted_literals(sub_question.text)
    # 'Besides SHARED and EXCLUSIVE, what other lock states ...?': the names set aside are not what is asked.
    aside = _SET_ASIDE.match(sub_question.text)
    excluded = names_in(aside.group(1)) if aside else set()
    names = (names_in(sub_question.text) | letter_names(sub_question.text)) - excluded
    query_vector = embedder.vector(query.text)
    aliases = acronym_aliases(f"{passage.title}\n{passage.text}" for passage in passages)
    compounds = compound_pairs(sub_question.text)
    as_names = frozenset(term for name in names for term in terms_of(name))
    terms = [
        with_aliases(_with_identifier_matches(terms_of(c.quote), list(query.expanded), compounds, as_names), aliases)
        for c in found
    ]
    # Each sentence is indexed with its source's title, as a title field is in document search: the
    # subject a document names once still counts for the sentences that state facts about it.
    described = entry_descriptions(passages, found)
    titles = [
        terms_of(f"{passages[c.passage_index].title}\n{c.heading}\n{d}") for c, d in zip(found, described, strict=True)
    ]
    titles = [
        title + [t for t in terms_of(c.section) if t not in title] for title, c in zip(titles, found, strict=True)
    ]
    index = BM25(
        [sentence + [t for t in title if t not in sentence] for sentence, title in zip(terms, titles, strict=True)],
        b=0.5,
    )
    prior = _rank_prior(passages)
    asked_terms = frozenset(terms_of(sub_question.text))
    # Rows of a table that has a row keyed by an asked name are about other things; elsewhere a name the
    # question uses ('JSON', 'SQLite') says nothing about which row is meant.
    # A row is keyed by a value's holder ('field size | 1 GB'), never by a way to do something.
    asked_words = (
        frozenset()
        if asked.kind in WAYS_ASKED
        else frozenset(content_terms(sub_question.text)) - frozenset(content_terms(" ".join(excluded)))
    )
    selecting = bool(WHICH_THING.match(without_context(sub_question.text)))
    meaning_asked = bool(_MEANING.search(sub_question.text))
    instance_of = asked_types(sub_question.text) if selecting or asked.kind == "list" else frozenset()
    if instance_of:
        # 'Which mod_headers format specifier ...?': a row keyed 'mod_headers' (a module index's) is not the answer.
        qualifier = asked_phrase(sub_question.text)
        names -= names_in(qualifier)
        asked_words -= frozenset(content_terms(qualifier))
    keyed_tables = {(c.passage_index, c.heading) for c in found if c.row and key_fit(names, c, asked_words)[0]}
    # Concepts weigh 1 + idf; with few candidates idf is noisy, so it is shrunk towards 0 (uniform weights).
    shrink = min(1.0, len(found) / 30)
    idf = index.rarity({t: 1.0 for concept in query.concepts for t in concept.terms})
    rarity = {t: 1.0 + shrink * value for t, value in idf.items()}
    top_idf = max((index.idf(t) for t in query.subject), default=1.0) or 1.0
    contexts = [frozenset(terms_of(f"{passage.title} {passage.text}")) for passage in passages]
    symbols = compared_symbols(query)
    versions = numbered_names(sub_question.text)
    features: list[Features | None] = []
    for i, candidate in enumerate(found):
        # The first sentence under a term line reads with it ('global interpreter lock' / 'The mechanism ...').
        heading = set(terms_of(candidate.heading))
        titled_by_heading = heading_bonus(asked_terms, "" if candidate.row else candidate.heading)
        titled_by_section = heading_bonus(asked_terms, "" if candidate.row else candidate.section)
        titled_by_question = max(titled_by_heading, titled_by_section)
        # The section's own heading reads with each of its sentences when it is the question's own words.
        # A setting's entry ('checkpoint_timeout (integer)') is about the setting in each of its sentences.
        entry = is_term_line(candidate.heading)
        present = set(terms[i]) | (heading if candidate.lead or titled_by_heading or entry else set())
        present |= set(terms_of(candidate.section)) if titled_by_section else set()
        present |= set(terms_of(described[i]))
        keyed = key_fit(names, candidate, asked_words)
        if excluded and (key := row_key(candidate)) is not None and _keyed_by(key, excluded):
            features.append(None)  # a row or entry about a thing the question sets aside answers nothing
            continue
        if candidate.row and (selecting or (candidate.passage_index, candidate.heading) not in keyed_tables):
            # No row of this table is the one asked about, so none is another one; and 'Which specifier adds
            # ...?' asks for a row's key, whatever names the question uses.
            keyed = (keyed[0], 1.0)
        # Anything under a heading or term line is about what it names ('PYTHONHASHSEED' / 'The integer must
        # be ...'), so a sentence that leaves its subject to the heading may still be evidence; so is a row
        # keyed by a name too short to be a search term ('%W | week of year: 00-53').
        if (
            not keyed[0]
            and not any(_held(t, present | heading) for t in query.required)
            # but 'the Least Recently Used key will be discarded' answers what LRU stands for
            and not (asked.kind == "expansion" and expands(asked.acronym, candidate.quote) == 1.0)
            # and 'an option -P ... works like -O' compares the options of 'pygmentize -O vs -P'
            and not (symbols and _names_symbol(symbols, candidate))
        ):
            features.append(None)
            continue
        titled = f"{passages[candidate.passage_index].title}. {candidate.heading}. {described[i]} {candidate.focal}"
        cosine = max(
            *(float(embedder.vector(text) @ query_vector) for text in (candidate.quote, candidate.focal)),
            CONTEXT_COSINE * float(embedder.vector(titled) @ query_vector),
        )
        opening = set(content_terms(" ".join(words(candidate.focal)[:8])))
        defined = candidate.heading if candidate.lead else ""
        shape = shape_bonus(query.kind, candidate.quote, question, query.subject, present, defined, query.sides)
        # A table row is read with its header row ('Item | Upper Limit' over 'field size | 1 GB').
        # A table row is read with its header row ('Item | Upper Limit' over 'field size | 1 GB'), a value field with
        # its entry's term ('thread_pools' over 'Maximum: 32').
        read_with_heading = candidate.row or (candidate.lead and is_value_field(candidate.quote))
        answered = f"{candidate.heading}\n{candidate.quote}" if read_with_heading else candidate.quote
        answer = answer_strength(asked, answered, sub_question.text)
        sureness = 1.0
        # 'What is NUT?' asks for an expansion or a definition: 'NUT is a low overhead generic container format.'
        # answers it, though less surely than the spelled-out name would.
        defined_acronym = asked.kind == "expansion" and query.kind == "definition"
        if query.kind in SHAPED_ANSWERS and (asked.kind in (None, query.kind) or defined_acronym):
            shaped = min(1.0, shape / SHAPED_ANSWERS[query.kind])
            if defined_acronym:
                shaped = min(shaped, DEFINING_SENTENCE)
            if (
                query.kind == "definition"
                and shaped > answer
                and entry_defines(candidate.quote, query.subject, defined) is None
            ):
                sureness = DEFINING_SENTENCE  # unless a rule below finds more than its form
            answer = max(answer, shaped)
        formed = answer
        # 'Which specifier ...?': a row names one in its first cell, an entry line or a term line its own.
        listed = selecting and asked.kind is None and not keyed[0]  # checked first: the line's form costs a match
        if listed and (candidate.row or (candidate.lead and entry) or names_then_describes(candidate.quote)):
            answer = max(answer, SELECTED_ROW)
        if meaning_asked and keyed[0] == KEY_BONUS:
            answer = max(answer, KEYED_DEFINITION)  # 'What does K mean?': the entry 'K' / 'to be killed'
        if instance_of and candidate.section and not titled_by_section and names_instance(instance_of, candidate):
            answer = max(answer, INSTANCE_ANSWER)  # 'Which hooks ...?': 'post-receive' / 'This hook is invoked ...'
        names_compared = not symbols or _names_symbol(symbols, candidate)
        if query.kind == "comparison" and (
            (keyed[0] and names_compared) or any(_defines_side(candidate.focal, side) for side in query.sides if side)
        ):
            # 'DEFERRED means that the transaction does not actually start ...'; the entry of an option or a
            # symbol the question compares ('-Q' / 'Do not output anything ..., also suppress warnings.')
            answer = max(answer, SIDE_DEFINED)
        contrasts_symbols = bool(symbols) and all(_names_symbol((symbol,), candidate) for symbol in symbols)
        if contrasts_symbols:
            answer = max(answer, SIDE_DEFINED)  # '-P ... works like -O but can only pass one option per -P'
        if (
            asked.kind == "comparison"
            and titled_by_question >= HEADING_BONUS
            and set(query.subject) & set(terms[i])
            and _names_a_side(query.sides, f"{candidate.heading} {candidate.section}")
        ):
            answer = max(answer, COMPARED_IN_SECTION)  # a sentence of the section 'Differences between A and B'
        own_setting = 0.0
        setting_value = asked.wants_value and asked.kind != "expansion"  # 'prdr_enable' spells out PRDR
        owner = entry_owner(passages[candidate.passage_index].text, candidate.start) if setting_value else None
        named = setting_named(sub_question.text, owner or _named_by(candidate)) if setting_value else None
        if (
            named == "sibling"
            or (owner and not named and names_setting(sub_question.text))
            or (setting_value and _under_other_options(names, candidate.heading, candidate.section))
        ):
            answer *= SIBLING_FIT  # 'RequestReadTimeout ...' for the default Timeout: another setting's value
        elif named == "asked" and answer:
            own_setting = OWN_SETTING_BONUS  # 'message_size_limit | Default: 50M' for the largest message
        phrases = phrase_bonus(query.concepts, [terms_of(candidate.heading), terms_of(candidate.quote)])
        features.append(
            Features(
                answer=answer,
                sureness=sureness if answer <= formed else 1.0,
                bm25=index.normalized(query.expanded, i, query.core),
                cosine=min(1.0, max(0.0, cosine) / 0.5),
                prior=prior[candidate.passage_index],
                # A row or entry keyed by the asked name is about the asked thing, whatever words it repeats.
                concepts=max(
                    KEYED_CONCEPTS if keyed[0] or contrasts_symbols else 0.0,
                    concept_coverage(query.concepts, present, rarity.__getitem__, contexts[candidate.passage_index]),
                ),
                focus=max((index.idf(t) for t in query.subject if t in opening), default=0.0) / top_idf,
                bonus=shape
                + phrases
                + entity_bonus(query.entities, candidate.quote)
                + literal_bonus(literals, candidate.quote)
                + (0.0 if asked.kind == "expansion" and answer < 1.0 else keyed[0])  # 'cET: parse (T1)': a use
                + titled_by_question
                + own_setting,
                length=1.0 if row_key(candidate) is not None else length_factor(candidate.focal),  # short by nature
                shape_fit=_answer_fit(asked, answer, candidate, sub_question.text, literals)
                * keyed[1]
                * (MISSING_SHAPE_FIT if query.kind in ("number", "date") and not shape and _value_asked(asked) else 1.0)
                * (VERSION_NOTE_FIT if VERSION_NOTE.match(candidate.focal) else 1.0)
                * (META_SENTENCE_FIT if META_SENTENCE.match(candidate.focal) else 1.0)
                * (LEAD_IN_ALONE_FIT if _lead_in_alone(candidate, answer, asked) else 1.0)
                * (1.0 if names_compared else OTHER_THAN_COMPARED_FIT)
                * (OTHER_VERSION_FIT if _of_other_version(versions, sub_question.text, passages, candidate) else 1.0),
            )
        )
    return features


_OPTION = re.compile(r"(?<![\w-])--?[A-Za-z0-9][\w-]*")


def _under_other_options(names: set[str], *headings: str) -> bool:
    """Whether a span stands in the entry of options other than the ones the question names (its term line, else
    its section, names options): 'flex defaults to generating an 8-bit scanner' under '-8, --8bit' says nothing of
    what holds without a '-C' flag ('-Cr, --read' is one of its forms)."""
    asked = [name for name in names if name.startswith("-")]
    opened = [h.strip().lstrip("‘'\"`") for h in headings]
    entry = next((_OPTION.findall(h[:80]) for h in opened if h.startswith("-")), [])
    return bool(asked and entry) and not any(option.startswith(name) for option in entry for name in asked)


def compared_symbols(query: Query) -> tuple[str, ...]:
    """The two symbols or options a comparison compares ('-q' and '-Q', '$*' and '$@', '!=' and '!=='), when
    its sides are such names, without words of their own."""
    sides = [side[0] for side in query.sides if len(side) == 1]
    return tuple(sides) if query.kind == "comparison" and len(sides) == 2 and not terms_of(" ".join(sides)) else ()


def _names_symbol(symbols: tuple[str, ...], candidate: Candidate) -> bool:
    """Whether the candidate is the entry or row of one of the compared symbols, or names one of them whole
    ('!=' is not named by '!==', nor '-q' by '-quiet')."""
    key = row_key(candidate) or (_unquoted(candidate.heading) if candidate.lead else "")
    if key and _keyed_by(key, set(symbols)):
        return True
    return any(
        re.search(rf"(?<![\w{_SYMBOL_MARKS}]){re.escape(symbol)}(?![\w{_SYMBOL_MARKS}])", candidate.quote)
        for symbol in symbols
    )


_SYMBOL_MARKS = re.escape("-$@*!=<>~%&|")
"""Characters that continue a symbol: '!=' followed by '=' is '!=='."""


def _of_other_version(
    versions: dict[str, frozenset[str]], question: str, passages: list[Passage], candidate: Candidate
) -> bool:
    """Whether the candidate, its headings or its page's title name another numbered version of what the question
    names by its number ('The DHCPv6 Server' for a question about kea-dhcp4), and none of them the asked one; or
    its page's title or headings name by a number alone what the question names without one ('Invoking diff3'
    for a question on diff)."""
    headings = f"{passages[candidate.passage_index].title}\n{candidate.section}\n{candidate.heading}"
    if versions:
        return names_other_version(versions, f"{headings}\n{candidate.quote}")
    return names_numbered_sibling(question, headings)


def _lead_in_alone(candidate: Candidate, answer: float, asked: Asked) -> bool:
    """Whether the span ends on its colon without what it introduces and so holds no answer: nothing of the asked
    kind, or, when a list is asked for, none of its items ('The special document names are:')."""
    return candidate.quote.rstrip().endswith(":") and (not answer or asked.kind == "list")


def entry_descriptions(passages: list[Passage], found: list[Candidate]) -> list[str]:
    """For each candidate that states a value in another paragraph of a reference entry, the entry's first
    sentence that is no field line, which says what the term is ('Specifies the longest time that the server
    caches ordinary answers.'); else ''. The value may stand below it, or above it among the entry's fields
    ('sendmail' / 'Type: path' / 'Default: "/usr/sbin/sendmail -oem -oi"' / 'Specifies the program ...').

    An entry describes its setting first and gives the value paragraphs below ('The default max-cache-ttl is
    604800.'), so such a sentence is read with the description, as every sentence is read with its title. (In
    the description's own paragraph, the span of both sentences is a candidate already.)
    """
    first: dict[tuple[int, str], Candidate] = {}
    for candidate in found:
        if not candidate.row and is_term_line(candidate.heading) and not is_value_field(candidate.focal):
            first.setdefault((candidate.passage_index, candidate.heading), candidate)
    described = []
    for c in found:
        lead = first.get((c.passage_index, c.heading))
        text = passages[c.passage_index].text
        apart = lead is not None and "\n" in (
            text[lead.end : c.start] if lead.end <= c.start else text[c.end : lead.start]
        )
        value = (states_setting_value(c.focal) or is_value_field(c.focal)) and not VERSION_NOTE.match(c.focal)
        described.append(lead.focal if lead is not None and apart and value else "")
    return described


WHICH_THING = re.compile(
    r"^\s*(?:which|what)\s+(?!(?:is|are|was|were|does|do|did|can|should|will|would)\b)[\w-]+", re.IGNORECASE
)
"""'Which specifier ...?', 'What function ...?': the question asks which thing it is, a name."""
_SET_ASIDE = re.compile(r"^\s*(?:besides|apart from|aside from|other than|except(?: for)?)\s+([^,?]+),", re.I)
SELECTED_ROW = 0.5
"""The answer strength of a table row (or an entry line) for a question that asks which thing it is: the row's
first cell names a thing, and whether its other cells describe what was asked is for relevance to say."""
_ENTRY_LINE = re.compile(
    r"^(?:[a-z][\w.-]*|[A-Z][A-Z0-9_]+|-{1,2}[\w-]+|[\w.-]*_[\w.-]*)(?:\s+[\[(][^\])\n]{1,20}[\])])?\s*(?::|\s[–—-])\s+\w"
)
"""A name written as code, maybe with a bracketed remark ('[..BS]', '(int)'), then a colon or a dash and words."""
_ENTRY_LABELS = frozenset({"default", "note", "example", "type", "value", "values", "see", "usage", "syntax", "e.g"})
"""Labels that open a line as a name would ('default: 5'), naming no thing."""


def names_then_describes(quote: str) -> bool:
    """Whether a quote is one entry of a list of names, the name first and its description after a colon or a
    dash: 'wretr [..BS]: number of times a connection to a server was retried.', 'timeout – How long ...'. The
    name is written as code (lower case, capitals, an option, joined by underscores), not a label ('Note:')."""
    match = _ENTRY_LINE.match(quote)
    if match is None or "\n" in quote[: match.end()]:
        return False
    return quote.split()[0].rstrip(":").lower() not in _ENTRY_LABELS


DEFINING_SENTENCE = 0.75
"""The most a definition question's span counts as its answer when only its form, '<subject> is a ...', says so
and it is not the entry under the subject's name (`shapes.entry_defines`): such a sentence may stand anywhere and
define the word in another sense or context, which only a reader can tell; so a report that rests on it is not
one to be sure of (`reasoning.confidence`)."""
COMPARED_IN_SECTION = 0.75
"""The answer strength of a sentence about either side under a heading that is the comparison asked about."""
SIDE_DEFINED = 0.6
"""The answer strength, for a comparison, of a sentence that defines one side in its own terms ('DEFERRED means
that ...', 'A shallow copy is ...'): what that side is, which the difference is made of."""
HEADING_BONUS = 0.12
"""For a sentence in a section whose heading is made of the question's own words ('Differences between FTS3 and
FTS4' for 'What are the main differences between FTS3 and FTS4?'): the section is about what was asked."""


def _names_a_side(sides: tuple[tuple[str, ...], tuple[str, ...]], heading: str) -> bool:
    """Whether a heading names a side of the comparison, when the question names them ('Differences between FTS3
    and FTS4', 'Graceful Restart'); a heading of the question's other words ('Running the build' for '... running
    sphinx-build with -q and with -Q') is not a section about what is compared."""
    if not all(sides):
        return True
    present = set(terms_of(heading)) | set(heading.split())
    return any(term in present for side in sides for term in side)


def _defines_side(sentence: str, side: tuple[str, ...]) -> bool:
    """Whether the sentence opens with one side of a comparison and says what it is or means ('DEFERRED means
    that ...'), not merely names it somewhere before a verb ('The BEGIN IMMEDIATE might fail if ... is')."""
    opening = set(content_terms(" ".join(words(sentence)[:_SIDE_OPENING])))
    return bool(opening & set(side)) and defines(sentence, list(side)) >= STRONG_DEFINITION


_SIDE_OPENING = 4
STRONG_DEFINITION = 0.2


HEADING_SHARE = 0.75
"""The share of a heading's terms the question must use for the heading to be the question's own (half will
do when three or more are shared: 'How the server selects the proper name-based virtual host')."""


def heading_bonus(asked_terms: frozenset[str], heading: str) -> float:
    """`HEADING_BONUS` when the question uses at least two terms of the heading and nearly all of them; a
    one-word heading ('Overview') says little, and one shared word ('JSON arguments') is not the topic."""
    terms = set(terms_of(heading))
    shared = len(terms & asked_terms)
    own = (shared >= 2 and shared >= HEADING_SHARE * len(terms)) or (shared >= 3 and shared >= len(terms) / 2)
    return HEADING_BONUS if own else 0.0


LITERAL_BONUS = 0.15
"""For a span that holds a literal the question quotes ('the 'x' mode'): too short to be a search term, it
is still what the question is about."""


def literal_bonus(literals: list[str], quote: str) -> float:
    found = set(quoted_literals(quote))
    return LITERAL_BONUS if any(literal in found for literal in literals) else 0.0


KEY_BONUS = 0.5
OWN_SETTING_BONUS = 0.2
"""For a value stated for a setting named with the question's own words and measure words ('message_size_limit'
for the largest message): the name says the value is the asked one, more surely than a heading of the question's
words says a section is about it (`HEADING_BONUS`), less than the asked name itself (`KEY_BONUS`)."""
KEYED_CONCEPTS = 0.75
OTHER_KEY_FIT = 0.6
"""For a table row whose first cell, or a definition-list entry whose term, is a name the question uses:
the row or entry is about exactly what was asked ('h | short | integer | 2' for the 'h' format character,
'%ar' / 'author date, relative' for the %ar placeholder)."""


KEYED_DEFINITION = 0.75
"""The answer strength, for a question asking what X means, of the table row or list entry keyed by X: it
gives X's meaning in the source's own terms ('K' / 'to be killed'). Not for 'What is X?' or a plan's
'Definition of X', which a row about X (a feature table's) need not answer."""
_MEANING = re.compile(r"\bwhat\s+(?:does|do)\b.*\b(?:mean|denote|indicate|signify|represent)s?\b", re.IGNORECASE)


ENTRY_KEY_BONUS = 0.25
"""For a sentence further down an entry whose term line is a name the question uses ('PYTHONHASHSEED' /
... / 'The integer must be a decimal number in the range [0,4294967295].'): about the asked thing too, but
one of several sentences, so what it holds of the answer decides among them."""


def _unquoted(key: str) -> str:
    return key.strip().strip("'\"`‘’“” ")


def row_key(candidate: Candidate) -> str | None:
    """What a table row or a definition-list entry is keyed by: its first cell, or its term line (for the entry's
    description quoted with it, or a field of its values)."""
    if candidate.row:
        return _unquoted(candidate.quote.split(" | ", 1)[0])
    if candidate.lead and candidate.heading and candidate.quote.startswith(candidate.heading):
        return _unquoted(candidate.heading)
    if candidate.lead and is_term_line(candidate.heading) and is_value_field(candidate.quote):
        return _unquoted(candidate.heading)  # 'thread_pools' / 'Maximum: 32'
    return None


_ARGUMENT = re.compile(r"[=\s\[(<].*$")
"""What follows an option's or a function's name in its term line ('--depth <depth>', '--depth=<depth>')."""


_API_KIND = re.compile(r"^(?:(?:abstract|async|static|class)?method|property|attribute|data)\s+(?=\S)")
"""The word an API reference's member entry opens with before the name it documents ('property text_direction').
Not a class's: every sentence of a class's entry, down to its members, would be keyed by the class."""
_OWNER_PART = 4
"""Characters a member's own name needs to stand for its dotted name ('text_direction' for
'Locale.text_direction'): a shorter one ('get') is any class's."""


def _keyed_by(key: str, names: set[str]) -> bool:
    """Whether a row's or entry's key is an asked name, its arguments aside ('--depth <depth>' for '--depth'), or,
    in an API reference, the member a dotted name asks about ('property text_direction' for
    'Locale.text_direction')."""
    key = _API_KIND.sub("", key)
    bare = _ARGUMENT.sub("", key) or key
    members = {name.rsplit(".", 1)[-1] for name in names if "." in name.strip(".")}
    return any(
        k in names or f"{k}()" in names or (len(k) >= _OWNER_PART and k in members)
        for k in (key, key.rstrip("()"), bare)
    )


def _names_cell(row: str, names: set[str]) -> bool:
    """Whether a cell of a table row, after its first, is an asked name, whole or by its last parts: a row keyed
    by the release it changed in ('1.3.6 | 1.5.0 | Xapian::WritableDatabase::flush() | Use ... commit()') is
    about the API it names for 'WritableDatabase::flush()'."""
    for cell in row.split(" | ")[1:]:
        cell = cell.strip()
        if " " in cell:
            continue
        if cell in names or any(
            cell.endswith(name) and cell[-len(name) - 1 : -len(name)] in (":", ".") for name in names
        ):
            return True
    return False


def _value_asked(asked: Asked) -> bool:
    """Whether the sub-question asks for a value, or gives no sign of what it asks (then the expected shape
    of the analysis decides)."""
    return asked.kind is None or asked.wants_value


def key_fit(names: set[str], candidate: Candidate, asked_words: frozenset[str] = frozenset()) -> tuple[float, float]:
    """(bonus, factor) for a row or entry: `KEY_BONUS` when its key is a name the question uses (or, for a
    table row, words it uses: 'Windows | mpm_winnt', 'field size | 1 GB'), and `OTHER_KEY_FIT` when the row is
    keyed by something else. A sentence further down an entry whose term is an asked name gets
    `ENTRY_KEY_BONUS`."""
    if not names and not asked_words:
        return 0.0, 1.0
    key = row_key(candidate)
    if key is None:
        if _legend_keys(candidate.quote) & names:
            return KEY_BONUS, 1.0  # 'Probe window bits are:' / ... / "'X': Good Xmit" for a capital X
        term = _API_KIND.sub("", _unquoted(candidate.heading))
        entry = bool(term) and len(term.split()) <= 3 and term[:1] in "-%$@_" + string.ascii_letters
        entry = entry and bool(names_in(term)) and _keyed_by(term, names)
        return (ENTRY_KEY_BONUS, 1.0) if entry else (0.0, 1.0)
    keyed = _keyed_by(key, names) or (candidate.row and _keyed_by_words(key, asked_words))
    if keyed or (candidate.row and _names_cell(candidate.quote, names)):
        return KEY_BONUS, 1.0
    if _built_on(key, names):
        return 0.0, 1.0  # 'prdr_enable' for PRDR: the entry of a setting named after the asked thing
    return (0.0, OTHER_KEY_FIT) if names or candidate.row else (0.0, 1.0)


_LEGEND_LINE = re.compile(r"^[ \t]*['\"`‘“]?([^'\"`’”:=\s]{1,12})['\"`’”]?[ \t]*[:=][ \t]+\S", re.MULTILINE)
"""A line of a legend under a lead-in: a short code, quoted or not, then what it stands for ("'X': Good Xmit",
'D = deleted')."""


def _legend_keys(quote: str) -> set[str]:
    """The codes of the legend lines a multi-line span holds (none for a single line, which is a sentence)."""
    return {m.group(1) for m in _LEGEND_LINE.finditer(quote)} if "\n" in quote.strip() else set()


def _built_on(key: str, names: set[str]) -> bool:
    """Whether a key is a setting's name with an asked name as one of its parts ('prdr_enable' on 'PRDR')."""
    parts = set(re.split(r"[_.-]+", key.lower())) if "_" in key or "." in key else set()
    return bool(parts & {name.lower() for name in names})


_GENERIC_KEYS = frozenset(
    content_terms("default value type name option description context status module syntax meaning note example")
    + content_terms("mode format version maximum minimum limit size length number item")
)
"""Row keys that say what a cell is ('Default:', 'Type') rather than which thing the row is about."""
_MAX_KEY_WORDS = 3


def _keyed_by_words(key: str, asked_words: frozenset[str]) -> bool:
    """Whether a row's key is a short phrase the question uses word for word, beyond the words that only say
    what a cell is: 'field size' in 'What is the maximum field size?'."""
    terms = set(content_terms(key))
    return 0 < len(terms) <= _MAX_KEY_WORDS and terms <= asked_words and bool(terms - _GENERIC_KEYS)


def _answer_fit(asked: Asked, answer: float, candidate: Candidate, question: str, literals: list[str]) -> float:
    """The factor for what the span holds of the answer: less for a value question answered by no value, and
    less for a longer span whose first part alone holds as much (of the answer and of the quoted literals)."""
    fit = 1.0
    if asked.wants_value and answer == 0.0:
        fit = NO_EXPANSION_FIT if asked.kind == "expansion" else NO_VALUE_FIT
    if candidate.split:
        first = candidate.quote[: candidate.split - candidate.start]
        whole = (answer, literal_bonus(literals, candidate.quote))
        if whole <= (answer_strength(asked, first, question), literal_bonus(literals, first)):
            fit *= EXTENSION_FIT
    return fit


def score_candidates(
    question: str,
    sub_question: SubQuestion,
    passages: list[Passage],
    found: list[Candidate],
    embedder: Embedder,
    analysis: QueryAnalysis | None = None,
) -> list[tuple[float, float]]:
    """(relevance, judged answer strength) of every candidate for the sub-question; relevance uncapped (see
    `Features.rank`), (0.0, 0.0) for those that may never be evidence."""
    features = candidate_features(question, sub_question, passages, found, embedder, analysis)
    return [(f.rank, f.judged_answer) if f is not None else (0.0, 0.0) for f in features]
