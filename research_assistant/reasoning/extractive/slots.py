"""Template slots of a question: its topic, noun phrases, sides, cause and effect, and parsed clauses.

`heading_slots` fills every placeholder `templates` uses (see there) for sub-question headings, with noun
phrases as the question writes them ('the Halvorsby tram network') and verbs that agree with them;
`query_slots` derives the forms for search queries (no articles). When `question_parse` understands the
question, its subject (or object) noun phrase is the topic and its clause forms fill `{clause}`,
`{indirect}` and `{ing}`; otherwise the topic is a multiword entity or the top RAKE keyword.
"""

from __future__ import annotations

import re

from research_assistant.knowledge.text import STOPWORDS
from research_assistant.reasoning.extractive.constituents import noun_phrase_is_plural
from research_assistant.reasoning.extractive.lexicon import FRAMING_WORDS, QUESTION_VERBS
from research_assistant.reasoning.extractive.morphology import is_clear_verb
from research_assistant.reasoning.extractive.question_parse import ParsedQuestion
from research_assistant.reasoning.extractive.question_words import DETERMINERS, PRONOUNS
from research_assistant.reasoning.extractive.templates import CAUSE_EFFECT_PATTERNS
from research_assistant.schemas import QueryAnalysis, QueryType

_EMPTY_VERBS = frozenset({"happen", "happens", "happened", "occur", "occurs", "occurred", "exist", "exists"})
_ASPECT_OF = re.compile(
    r"^(?:the\s+)?(?:(?:main|primary|root|key|major|underlying|likely|long-term|short-term)\s+)?"
    r"(?:causes?|reasons?|origins?|consequences?|effects?|impacts?|results?|outcomes?|pros and cons|benefits?|"
    r"advantages?|disadvantages?|drawbacks?|risks?|challenges?|features?|types?|kinds?|examples?|uses?|"
    r"applications?|limitations?)\s+(?:of|for|behind)\s+",
    re.IGNORECASE,
)
_NAME_LINKS = frozenset({"of", "the", "and", "de", "von", "van", "der", "da", "la", "le", "du", "del", "bin", "al"})
_INTERROGATIVE = re.compile(
    r"^\s*(?:(?:what|which|who|whom|whose|when|where|why|how)\b|(?:explain|describe|tell me about|define)\b)"
    r"(?:\s+(?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|had|many|much|long|old|to|"
    r"i|you|we|one|exactly|actually)\b)*\s*",
    re.IGNORECASE,
)
_NOUN_PHRASE = re.compile(
    r"^\s*(?:what (?:is|are|was|were)|define|(?:the )?(?:definition|meaning) of)\s+(.+?)[?.!]*$|"
    r"^\s*what does (.+?) mean\b",
    re.IGNORECASE,
)
VERB_PHRASE = re.compile(r"^\s*how (?:to|(?:do|can|should|would|could) (?:i|you|we|one))\s+(.+?)[?.!]*$", re.IGNORECASE)
_PAIR_PATTERNS = (
    r"differences? between (.+?) and (.+?)(?:[?.!,;:]|$| in | for | when | regarding )",
    r"compar\w* (.+?) (?:and|with|to|vs\.?|versus) (.+?)(?:[?.!,;:]|$| in | for | when | regarding )",
    r"(.+?) (?:vs\.?|versus) (.+?)(?:[?.!,;:]|$| in | for | when | regarding )",
    r"(?:is|are|was|were) (.+?) (?:\w+er|more \w+|less \w+) than (.+?)(?:[?.!,;:]|$| in | for | when | at )",
    r"(?:use|choose|pick|prefer|learn|buy) (.+?) or (.+?)(?:[?.!,;:]|$| in | for | when | to )",
    r"[,:] (.+?) or (.+?)[?.!]*$",
)


def keyword_query(text: str) -> str:
    """The words of `text` that are not stopwords, as a search query."""
    return " ".join(w for w in re.findall(r"[\w.+#'-]+", text) if w.lower().strip(".") not in STOPWORDS)


def _clean_side(text: str, keep_article: bool = False) -> str:
    tokens = text.strip(" ,.;:?!\"'").split()
    kept = ("the", "a", "an") if keep_article else ()
    while tokens and (tokens[0].lower() in STOPWORDS or tokens[0].lower() in QUESTION_VERBS):
        if tokens[0].lower() in kept and len(tokens) > 1 and tokens[1].lower() not in STOPWORDS:
            break
        tokens = tokens[1:]
    while tokens and tokens[-1].lower() in STOPWORDS:
        tokens = tokens[:-1]
    return " ".join(tokens[:5])


def comparison_sides(question: str, analysis: QueryAnalysis) -> tuple[str, str]:
    """The two things a comparative question compares, from its wording, else its entities or keywords."""
    for pattern in _PAIR_PATTERNS:
        match = re.search(pattern, question, re.IGNORECASE)
        if match:
            a, b = _clean_side(match.group(1)), _clean_side(match.group(2))
            if a and b and a.lower() != b.lower():
                return a, b
    names = [*analysis.entities, *[k for k in analysis.keywords if k not in analysis.entities]]
    if len(names) >= 2:
        return names[0], names[1]
    return (names[0] if names else "the first option"), "the alternatives"


def _topic(analysis: QueryAnalysis, question: str) -> str:
    """A multiword entity or the top keyword, with the article the question gives it ('the 2008 crisis')."""
    topic = next((e for e in analysis.entities if " " in e and not e[:1].isdigit()), "")
    topic = topic or (analysis.keywords[0] if analysis.keywords else question.strip(" ?.!"))
    head, _, last = topic.rpartition(" ")
    if head and last.islower() and is_clear_verb(last):
        topic = head  # RAKE keeps the verb of 'did the network open': 'network open' -> 'network'
    article = re.search(rf"\b(the|a|an)\s+{re.escape(topic)}(?!\w)", question, re.IGNORECASE)
    return f"{article.group(1).lower()} {topic}" if article else topic


def _remainder(question: str) -> str:
    verb_phrase = VERB_PHRASE.match(question)
    if verb_phrase:
        return verb_phrase.group(1).strip()
    rest = _INTERROGATIVE.sub("", question, count=1).strip(" ?.!")
    rest = " ".join(w for w in rest.split() if w.lower() not in _EMPTY_VERBS)
    return rest or question.strip(" ?.!")


def without_article(phrase: str) -> str:
    first, _, rest = phrase.partition(" ")
    return rest if rest and first.lower() in DETERMINERS else phrase


def what_is(phrase: str, plural: bool | None = None) -> str:
    """'what is the GIL', 'what are reference cycles', or 'what is known about Marie Curie' for a name."""
    if not phrase or phrase.lower() in PRONOUNS:
        return ""
    words = phrase.split()
    name = len(words) >= 2 and words[0].lower() not in DETERMINERS and not re.search(r"\d", phrase)
    if name and all(w[:1].isupper() for w in words if w.lower() not in _NAME_LINKS):
        return f"what is known about {phrase}"
    plural = noun_phrase_is_plural(phrase) if plural is None else plural
    return f"what {'are' if plural else 'is'} {phrase}"


def _agreement(name: str, phrase: str, plural: bool | None = None) -> dict[str, str]:
    """Verb forms that agree with a noun phrase: `{is_t}`, `{does_t}`, `{has_t}` and `{what_is_t}`."""
    many = noun_phrase_is_plural(phrase) if plural is None else plural
    return {
        f"is_{name}": "are" if many else "is",
        f"does_{name}": "do" if many else "does",
        f"has_{name}": "have" if many else "has",
        f"what_is_{name}": what_is(phrase, many),
    }


def cause_and_effect(question: str) -> tuple[str, str] | None:
    """The (cause, effect) of 'What is the impact of X on Y?' or 'How does X affect Y?', if it has that shape."""
    for pattern in CAUSE_EFFECT_PATTERNS:
        match = re.search(pattern, question.strip(), re.IGNORECASE)
        if match:
            x, y = _clean_side(match.group(1), True), _clean_side(match.group(2), True)
            if x and y:
                return x, y
    return None


def heading_slots(question: str, analysis: QueryAnalysis, parse: ParsedQuestion | None) -> dict[str, str]:
    """Heading slots; `query_slots` derives the query ones."""
    topic = _topic(analysis, question)
    entity = next((e for e in analysis.entities if e.lower() not in topic.lower()), "")
    parts: list[str] = []
    for phrase in [*analysis.keywords, *analysis.entities]:
        if phrase.lower() not in " ".join(parts).lower():
            parts.append(phrase)
    a, b = comparison_sides(question, analysis) if analysis.query_type is QueryType.COMPARATIVE else ("", "")
    taken = f"{a} {b}".lower()
    context = " ".join(
        k for k in analysis.keywords if k.lower() not in taken and not any(w in taken for w in k.lower().split())
    )
    context = " ".join(w for w in context.split() if w.lower() not in FRAMING_WORDS)
    x, y = cause_and_effect(question) or (topic, "")
    noun = _NOUN_PHRASE.match(question.strip())
    noun_phrase = next((g for g in noun.groups() if g), topic).strip(" \"'“”`") if noun else topic
    noun_phrase = _ASPECT_OF.sub("", noun_phrase) or noun_phrase  # 'the causes of the crisis' -> 'the crisis'
    remainder = _remainder(question)
    if analysis.query_type is QueryType.CAUSAL and noun:
        remainder = noun_phrase
    slots = {
        **{"q": question.strip(), "t": topic, "e": entity, "k": " ".join(parts[:4]) or topic},
        **{"s": remainder, "n": noun_phrase, "a": a, "b": b, "c": context, "x": x, "y": y},
        **{"clause": "", "indirect": "", "ing": "", "were": "are", "pred": ""},
    }
    plural: bool | None = None
    if parse is not None and analysis.query_type is not QueryType.COMPARATIVE:
        slots["t"] = slots["n"] = parse.topic  # '' when the question names no thing: 'Why do we dream?'
        slots["e"] = next((e for e in analysis.entities if e.lower() not in parse.topic.lower()), "")
        plural = parse.topic_plural
        if analysis.query_type is QueryType.CAUSAL and not parse.predicates:
            slots["s"] = parse.topic  # 'What causes the northern lights?' -> 'What factors led to the northern lights?'
        slots.update(clause=parse.clause, indirect=parse.embedded, ing=parse.gerund)
        slots.update(were="were" if parse.past else "are", pred=keyword_query(" ".join(parse.predicates)))
    for name in ("t", "n"):
        slots.update(_agreement(name, slots[name], plural))
    for name in ("x", "a", "b"):
        slots.update(_agreement(name, slots[name]))
    return slots


def query_slots(slots: dict[str, str]) -> dict[str, str]:
    """Slots for search queries: noun phrases without their articles ('Halvorsby tram network')."""
    return {**slots, **{name: without_article(slots[name]) for name in ("t", "n", "x", "y", "s")}}
