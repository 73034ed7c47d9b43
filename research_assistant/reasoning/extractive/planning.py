"""Research plans from templates: one set of sub-questions per query type, queries from keywords and entities.

The first sub-question is always the question itself, so the direct answer is
sought first. Later ones cover background, details, causes, steps or
trade-offs, depending on the query type. Placeholders:

- `{q}` the question, `{t}` its topic (a multiword entity or the top keyword),
- `{k}` its keywords and entities as one query, `{e}` the main entity when not in `{t}`,
- `{n}` the noun phrase of 'What is the X of Y?' ('the X of Y'), else `{t}`,
- `{s}` the question's remainder after the interrogative (a verb phrase for 'how do I ...'),
- `{a}` and `{b}` the two sides of a comparison, `{c}` the comparison's context (e.g. 'web development'),
- `{x}` and `{y}` the cause and the effect of 'What is the impact of X on Y?'.
"""

from __future__ import annotations

import re

from research_assistant.context import DepthProfile
from research_assistant.knowledge.text import STOPWORDS, content_terms
from research_assistant.reasoning.extractive.lexicon import FRAMING_WORDS, QUESTION_VERBS
from research_assistant.reasoning.extractive.signals import collapse, normalize_query
from research_assistant.reasoning.extractive.templates import (
    CAUSE_EFFECT,
    CAUSE_EFFECT_PATTERNS,
    NOUN_PROCEDURAL,
    TEMPLATES,
    Template,
)
from research_assistant.schemas import Intent, QueryAnalysis, QueryType, ResearchPlan, SubQuestion

_EMPTY_VERBS = frozenset({"happen", "happens", "happened", "occur", "occurs", "occurred", "exist", "exists"})
_FALLBACK_QUERIES = ("{t}", "{e} {t}", "{k} overview", "{k} explained", "{k} guide", "{k} facts", "{k} research")
"""Queries that fill a sub-question's quota when its templates collide with queries planned already."""
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
_VERB_PHRASE = re.compile(
    r"^\s*how (?:to|(?:do|can|should|would|could) (?:i|you|we|one))\s+(.+?)[?.!]*$", re.IGNORECASE
)
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


def _clean_side(text: str) -> str:
    tokens = text.strip(" ,.;:?!\"'").split()
    while tokens and (tokens[0].lower() in STOPWORDS or tokens[0].lower() in QUESTION_VERBS):
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
    for entity in analysis.entities:
        if " " in entity and not entity[:1].isdigit():
            return entity
    return analysis.keywords[0] if analysis.keywords else question.strip(" ?.!")


def _remainder(question: str) -> str:
    verb_phrase = _VERB_PHRASE.match(question)
    if verb_phrase:
        return verb_phrase.group(1).strip()
    rest = _INTERROGATIVE.sub("", question, count=1).strip(" ?.!")
    rest = " ".join(w for w in rest.split() if w.lower() not in _EMPTY_VERBS)
    return rest or question.strip(" ?.!")


def _fill(template: str, slots: dict[str, str]) -> str:
    text = collapse(template.format(**slots))
    text = re.sub(r"\s+([?,])", r"\1", text)
    return text[:1].upper() + text[1:] if template.startswith(("What", "How", "When", "Where")) else text


def without_repeats(query: str) -> str:
    """The query with repeated words (ignoring case) dropped: 'remote work benefits benefits' -> '... benefits'."""
    kept: list[str] = []
    for word in query.split():
        if word.lower() not in [k.lower() for k in kept]:
            kept.append(word)
    return " ".join(kept)


def _redundant(text: str, kept: str) -> bool:
    """Whether `text` asks what `kept` asks: the same words, or the same content terms."""
    return normalize_query(text) == normalize_query(kept) or set(content_terms(text)) == set(content_terms(kept))


def cause_and_effect(question: str) -> tuple[str, str] | None:
    """The (cause, effect) of 'What is the impact of X on Y?' or 'How does X affect Y?', if it has that shape."""
    for pattern in CAUSE_EFFECT_PATTERNS:
        match = re.search(pattern, question.strip(), re.IGNORECASE)
        if match:
            x, y = _clean_side(match.group(1)), _clean_side(match.group(2))
            if x and y:
                return x, y
    return None


def _slots(question: str, analysis: QueryAnalysis) -> dict[str, str]:
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
    return {
        **{"q": question.strip(), "t": topic, "e": entity, "k": " ".join(parts[:4]) or topic},
        **{"s": _remainder(question), "n": noun_phrase, "a": a, "b": b, "c": context, "x": x, "y": y},
    }


def _templates(question: str, analysis: QueryAnalysis) -> tuple[Template, ...]:
    if analysis.query_type is QueryType.PROCEDURAL and not _VERB_PHRASE.match(question):
        return NOUN_PROCEDURAL
    if analysis.query_type is QueryType.CAUSAL and cause_and_effect(question):
        return CAUSE_EFFECT
    return TEMPLATES[analysis.query_type.value]


def build_plan(question: str, analysis: QueryAnalysis, profile: DepthProfile) -> ResearchPlan:
    """`profile.sub_questions` sub-questions, each with `profile.queries_per_sub_question` distinct queries."""
    slots = _slots(question, analysis)
    count = max(1, profile.sub_questions)
    per_question = max(1, profile.queries_per_sub_question)
    texts: list[tuple[str, tuple[str, ...]]] = []
    for text_template, query_templates in _templates(question, analysis):
        text = _fill(text_template, slots)
        if any(_redundant(text, kept) for kept, _ in texts):
            continue
        texts.append((text, query_templates))
    fallbacks = ("What else do the sources say about {t}?", "What context helps interpret {t} {e}?")
    for extra in fallbacks:
        if len(texts) < count:
            texts.append((_fill(extra, slots), ("{k}", "{t} context")))
    used: set[str] = set()
    sub_questions: list[SubQuestion] = []
    for number, (text, query_templates) in enumerate(texts[:count], start=1):
        spare = [text, keyword_query(text), *(_fill(t, slots) for t in _FALLBACK_QUERIES)]
        candidates = [*(_fill(t, slots) for t in query_templates), *spare]
        queries: list[str] = []
        for candidate in candidates:
            query = without_repeats(collapse(candidate))
            key = normalize_query(query)
            if key and key not in used and len(queries) < per_question:
                used.add(key)
                queries.append(query)
        priority = min(5, 1 + number // 2)
        sub_questions.append(SubQuestion(id=f"q{number}", text=text, priority=priority, queries=queries))
    quick = analysis.intent is Intent.QUICK_ANSWER
    min_sources = max(2, min(profile.sub_questions, profile.max_sources // 2) - int(quick))
    min_sources = min(min_sources, max(1, profile.max_sources))
    min_evidence = max(1, profile.evidence_per_sub_question - 1)
    criteria = (
        f"Each of the {len(sub_questions)} sub-questions has at least {min_evidence} relevant evidence "
        f"item(s), one of them strongly relevant, and the evidence comes from at least {min_sources} distinct "
        f"sources; stop when confidence reaches {profile.confidence_threshold:.0f}/100."
    )
    return ResearchPlan(
        sub_questions=sub_questions,
        min_sources=min_sources,
        min_evidence_per_question=min_evidence,
        completion_criteria=criteria,
    )
