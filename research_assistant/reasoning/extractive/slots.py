"""Template slots of a question: its topic, keywords, main entity, the sides of a comparison, cause and effect.

Every slot is a phrase the question writes (or its keywords), without a leading article. Headings only put
slots where number and articles do not matter ('Definition of {t}', 'Key facts: {t}'), so no slot needs to be
singular or plural; `query_slots` gives the same phrases without stopwords, for search queries.
"""

from __future__ import annotations

import re

from research_assistant.reasoning.extractive.lexicon import ATTRIBUTE_WORDS, FRAMING_WORDS, QUESTION_VERBS
from research_assistant.reasoning.extractive.phrases import is_code_name
from research_assistant.reasoning.questions import POINTS_BACK, asked_for, asking_part, without_framing
from research_assistant.schemas import QueryAnalysis, QueryType
from research_assistant.text.spaces import collapse
from research_assistant.text.tokens import STOPWORDS, quoted_literals

_ASPECT_OF = re.compile(
    r"^(?:the\s+)?(?:(?:main|primary|root|key|major|underlying|likely|long-term|short-term)\s+)?"
    r"(?:causes?|reasons?|origins?|consequences?|effects?|impacts?|results?|outcomes?|pros and cons|benefits?|"
    r"advantages?|disadvantages?|drawbacks?|risks?|challenges?|features?|types?|kinds?|examples?|uses?|"
    r"applications?|limitations?)\s+(?:of|for|behind)\s+",
    re.IGNORECASE,
)
_NOUN_PHRASE = re.compile(
    r"^\s*(?:what (?:is|are|was|were)(?: meant by)?|define|(?:the )?(?:definition|meaning) of)\s+(.+?)[?.!]*$|"
    r"^\s*what does (.+?) mean\b|"
    r"^\s*how (?:does|do|did|can|could|would|will) (.+?) (?:work|function|operate|behave|handle|deal|manage|"
    r"interact|happen|decide|choose|determine|store|keep|ensure|prevent|avoid|support|implement|achieve|perform|"
    r"process|compare|differ)s?\b",
    re.IGNORECASE,
)
"""'What is X?', 'Define X', 'What does X mean?', 'How does X work (with Y)?': X is a noun phrase as the
question writes it."""
_CLAUSE = re.compile(r",|\s(?:instead of|rather than|compared (?:to|with)|as opposed to|so that|when|if)\s", re.I)
"""Where a clause that qualifies the noun phrase begins."""
_NOT_A_NOUN_PHRASE = re.compile(
    r"\b(?:what|which|who|when|where|why|how|is|are|was|were|do|does|did|it|they|we|you|i)\b", re.I
)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_ENDS_NOUN_PHRASE = re.compile(r"\s*(?:$|(?:in|of|for|on|as|within|under|from)\b)", re.IGNORECASE)
"""What may follow the word a noun phrase is about: nothing, or a qualifier ('... in Celery terminology')."""
_QUOTE_MARK = re.compile(r"(?<!\w)['‘`]|['’`](?!\w)|[\"“”]")
"""A quotation mark, not an apostrophe ("don't", "Python's")."""
VERB_PHRASE = re.compile(r"^\s*how (?:to|(?:do|can|should|would|could) (?:i|you|we|one))\s+(.+?)[?.!]*$", re.IGNORECASE)
"""'How do I X?', 'How to X': X is a verb phrase in its base form ('configure git to sign commits')."""
_PAIR_PATTERNS = (
    r"differences? between (.+?) and (.+?)(?:[?.!,;:](?=\s|$)|$| in | for | when | regarding )",
    r"compar\w* (.+?) (?:and|with|to|vs\.?|versus) (.+?)(?:[?.!,;:](?=\s|$)|$| in | for | when | regarding )",
    r"(.+?) (?:vs\.?|versus) (.+?)(?:[?.!,;:](?=\s|$)|$| in | for | when | regarding )",
    r"(?:does|do|is|are) (.+?) (?:differ|different) from (.+?)(?:[?.!,;:](?=\s|$)|$| in | for | when )",
    r"(?:is|are|was|were) (.+?) (?:\w+er|more \w+|less \w+) than (.+?)(?:[?.!,;:](?=\s|$)|$| in | for | when | at )",
    r"(?:use|choose|pick|prefer|learn|buy) (.+?) or (.+?)(?:[?.!,;:](?=\s|$)|$| in | for | when | to )",
    r"[,:] (.+?) or (.+?)[?.!]*$",
)
_CAUSE_EFFECT_PATTERNS = (
    r"(?:impacts?|effects?|influences?|role|consequences?) of (.+?) (?:on|for) (.+?)[?.!]*$",
    r"(?:how|does|do|did|can|could) (.+?) (?:affect|impact|influence|change|harm|improve)s? (.+?)[?.!]*$",
    r"^(.+?) (?:affects?|impacts?|influences?|causes?) (.+?)[?.!]*$",
)


def keyword_query(text: str) -> str:
    """The words of `text` that are not stopwords, as a search query."""
    return " ".join(w for w in re.findall(r"[\w.+#'-]+", text) if w.lower().strip(".") not in STOPWORDS)


def _clean_side(text: str) -> str:
    """A side of a comparison or a cause: up to five words, without stopwords or question verbs at its ends,
    unless the question quotes it ('forward only' keeps its 'only')."""
    if not re.search(r"[^\W_]", text):
        return text.strip().strip("\"'`‘’“”")  # a symbol ('!=', '!=='): its marks are its name
    bare = text.strip(" ,.;:?!")
    quoted = quoted_literals(bare)
    if len(quoted) == 1:  # 'a suffix like "Ki"' is "Ki", and a wholly quoted side keeps its words
        return " ".join(quoted[0].split()[:5])
    tokens = text.strip(" ,.;:?!\"'").split()
    while tokens and (tokens[0].lower() in STOPWORDS or tokens[0].lower() in QUESTION_VERBS):
        tokens = tokens[1:]
    while tokens and tokens[-1].lower() in STOPWORDS:
        tokens = tokens[:-1]
    return " ".join(tokens[:5])


_CASED_NAME_CHARS = 3
_LEADING_PREPOSITION = re.compile(r"^\s*(with|without|in|on|for|from|under|using|via|by)\s", re.IGNORECASE)


def _parallel(first: str, second: str) -> tuple[str, str]:
    """The sides as the question contrasts them: when the second opens with a preposition the first also holds,
    what each says after it ('running sphinx-build with -q' and 'with -Q' compare '-q' and '-Q')."""
    preposition = _LEADING_PREPOSITION.match(second)
    if preposition is None:
        return first, second
    head, found, tail = first.lower().rpartition(f" {preposition.group(1).lower()} ")
    return (first[len(head) + len(found) :], second) if found and tail.strip() else (first, second)


def comparison_sides(question: str, analysis: QueryAnalysis) -> tuple[str, str]:
    """The two things a comparative question compares, from its wording, else its entities or keywords."""
    for pattern in _PAIR_PATTERNS:
        match = re.search(pattern, question, re.IGNORECASE)
        if match:
            first, second = _parallel(match.group(1), match.group(2))
            a, b = _clean_side(first), _clean_side(second)
            # Short names may differ in case alone ('-q' and '-Q', '%s' and '%S'); words may not.
            if a and b and (a.lower() != b.lower() or (a != b and len(a) <= _CASED_NAME_CHARS)):
                return a, b
    names = [*analysis.entities, *[k for k in analysis.keywords if k not in analysis.entities]]
    if len(names) >= 2:
        return names[0], names[1]
    return (names[0] if names else "the first option"), "the alternatives"


def cause_and_effect(question: str) -> tuple[str, str] | None:
    """The (cause, effect) of 'What is the impact of X on Y?' or 'How does X affect Y?', if it has that shape."""
    for pattern in _CAUSE_EFFECT_PATTERNS:
        match = re.search(pattern, question.strip(), re.IGNORECASE)
        if match:
            x, y = _clean_side(match.group(1)), _clean_side(match.group(2))
            if x and y:
                return x, y
    return None


def _noun_phrase(question: str) -> str:
    """X of 'What is X?' without its article or aspect ('the causes of X' -> X), if short and clause-free."""
    match = _NOUN_PHRASE.match(question.strip())
    if match is None:
        return ""
    phrase = _ARTICLE.sub("", _ASPECT_OF.sub("", next(g for g in match.groups() if g).strip()))
    phrase = _CLAUSE.split(phrase, maxsplit=1)[0]  # 'the drawbacks of X instead of Y' -> 'X'
    quoted = quoted_literals(phrase)
    # "a 'pidbox' in Celery terminology" is about the quoted word, "the 'x' mode" about a mode; other quote marks
    # are not words.
    heads = len(quoted) == 1 and _ENDS_NOUN_PHRASE.match(phrase[phrase.rfind(quoted[0]) + len(quoted[0]) + 1 :])
    phrase = quoted[0] if heads else phrase
    phrase = _QUOTE_MARK.sub("", phrase).strip()
    if POINTS_BACK.match(phrase):
        return ""  # 'What does that event mean?' after a premise: the name stands in the premise
    return phrase if 0 < len(phrase.split()) <= 8 and not _NOT_A_NOUN_PHRASE.search(phrase) else ""


_WHERE_IT_IS = re.compile(r"\b(?:in|from|under|inside|within|into)\s+(?:the\s+)?[\w./~-]*$", re.IGNORECASE)
"""Ends the words before a name the question only places its subject in ('the cpu limit in limits.conf')."""
_IS_THERE = re.compile(r"(?:is|are)\s+there\b", re.IGNORECASE)


def topic_of(question: str, analysis: QueryAnalysis) -> str:
    """What the question is about, as it writes it: the abbreviation it asks to have spelled out ('The Varnish
    docs keep mentioning VCC. What is that short for?' is about VCC, not Varnish); else X of 'What is X?'; else a
    name written as code, unless the question only says the subject is in it ('Does fs.watch() with recursive:
    true work on Linux?', not 'the cpu limit in limits.conf'); else a name of several words; else the name the top
    keyword holds, if any ('Python manage memory': keywords can hold a verb); else a short keyword after an
    article ('the telephone'); else the top keyword."""
    entities = [e for e in analysis.entities if not e.isdigit()]
    # 'Is there a limit on the size of a message?' is about messages: the attribute is what is asked of them.
    existential = _IS_THERE.match(asking_part(question))
    keywords = [k for k in analysis.keywords if not (existential and set(k.lower().split()) <= ATTRIBUTE_WORDS)]
    top = keywords[0] if keywords else ""
    named = [e for e in entities if e.lower() in top.lower()]
    after_article = [
        k
        for k in keywords
        if len(k.split()) <= 3 and re.search(rf"\b(?:the|a|an)\s+{re.escape(k)}(?!\w)", question, re.IGNORECASE)
    ]
    candidates = (
        asked_for(question).acronym,
        _noun_phrase(asking_part(question)),
        *(e for e in entities if is_code_name(e) and not _WHERE_IT_IS.search(question.split(e, 1)[0])),
        *(e for e in entities if " " in e),
        *named[:1],
        *after_article,
        top,
        question.strip(" ?.!"),
    )
    return next(c for c in candidates if c)


def plan_slots(question: str, analysis: QueryAnalysis) -> dict[str, str]:
    """Every placeholder `templates` uses (see there), filled for `question`."""
    topic = topic_of(question, analysis)
    entity = next((e for e in analysis.entities if e.lower() not in topic.lower()), "")
    phrases: list[str] = []
    for phrase in [*analysis.keywords, *analysis.entities]:
        if phrase.lower() not in " ".join(phrases).lower():
            phrases.append(phrase)
    a, b = comparison_sides(question, analysis) if analysis.query_type is QueryType.COMPARATIVE else ("", "")
    taken = f"{a} {b}".lower()
    context = " ".join(
        w
        for k in analysis.keywords
        if k.lower() not in taken and not any(w in taken for w in k.lower().split())
        for w in k.split()
        if w.lower() not in FRAMING_WORDS
    )
    x, y = cause_and_effect(question) or (topic, "")
    verb_phrase = VERB_PHRASE.match(asking_part(question))
    return {
        **{"q": collapse(without_framing(question)), "t": topic, "e": entity, "k": " ".join(phrases[:4]) or topic},
        **{"a": a, "b": b, "c": context, "x": x, "y": y, "s": verb_phrase.group(1).strip() if verb_phrase else topic},
    }


def query_slots(slots: dict[str, str]) -> dict[str, str]:
    """The slots for search queries: phrases without stopwords ('default page size SQLite'); `{q}` as asked."""
    queried = {**slots, **{name: keyword_query(slots[name]) for name in ("t", "e", "a", "b", "x", "y", "s")}}
    a, b = queried["a"].lower(), queried["b"].lower()
    if a and b and (a in b or b in a):  # 'forward first' and 'forward only' would both query 'forward'
        queried.update(a=slots["a"], b=slots["b"])
    return queried
