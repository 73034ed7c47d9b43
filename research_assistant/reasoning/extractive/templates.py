"""Sub-question templates per query type, each with its search-query templates.

The first template of every type is the question itself (`{q}`); later steps read what it asks for (a
number, a date, a default, a definition) from its wording. The other headings are labels that put a
phrase of the question where number agreement and articles do not matter: after a colon or after 'of',
'for', 'to' ('Definition of vaccines', 'Key facts and figures: remote work', 'Steps to configure git').
So they read as English whatever the topic is, and nothing has to parse the question.

Placeholders (filled by `slots.plan_slots`): `{q}` the question, `{t}` its topic, `{k}` its keywords and
entities as one query, `{e}` the main entity when not in `{t}`, `{a}`/`{b}` the sides of a comparison and
`{c}` its context, `{x}`/`{y}` the cause and effect of 'What is the impact of X on Y?', `{s}` the verb
phrase of 'How do I X?' (base form, so 'Steps to {s}' always reads well).

Relevance is scored against each sub-question's text, so the wording is chosen for scoring too:

- a heading's own words are ones scoring treats as template words (`query.GENERIC_TERMS`, framing words,
  stopwords), so no heading makes 'practical' or 'concepts' a term a sentence must hold;
- a heading never asks for a value: no 'default', 'limit' or leading 'When' (a value or a date), no
  'between' without a comparison word (a range). 'Definition of {t}' asks for a definition, as 'What is X?'
  did, so a sentence that defines the topic (or spells out its acronym) still ranks first there.
"""

from __future__ import annotations

Template = tuple[str, tuple[str, ...]]

_BACKGROUND: Template = ("Definition of {t}", ("what is {t}", "{t} {e} overview", "{t} explained"))
_CHANGES: Template = ("Changes over time: {t}", ("{k} history", "{t} changes", "{k} latest"))
_SOURCES: Template = ("What do different sources say about {t}?", ("{k} sources", "{t} {e} analysis", "{k} debate"))

TEMPLATES: dict[str, tuple[Template, ...]] = {
    "factual": (
        ("{q}", ("{q}", "{k}", "{t} {e}")),
        _BACKGROUND,
        ("Details, figures and examples: {t}", ("{k} details", "{t} example", "{k} figures")),
        ("Limitations, exceptions and caveats: {t}", ("{k} limitations", "{t} exceptions", "{k} caveats")),
        _CHANGES,
        _SOURCES,
    ),
    "definitional": (
        ("{q}", ("{q}", "{k} definition", "what is {t}")),
        ("Mechanism and workings: {t}", ("how {t} works", "{k} mechanism", "{k} explained")),
        ("Examples and uses: {t}", ("{k} examples", "{t} use cases", "{k} applications")),
        ("Limitations and drawbacks: {t}", ("{k} limitations", "{k} criticism", "{t} drawbacks")),
        _CHANGES,
        _SOURCES,
    ),
    "comparative": (
        ("{q}", ("{q}", "{a} vs {b} {c}", "{a} {b} comparison")),
        (
            "Differences between {a} and {b}",
            ("difference between {a} and {b}", "{a} vs {b}", "{a} compared to {b} {c}"),
        ),
        ("Overview of {a}", ("what is {a}", "{a} overview", "{a} features")),
        ("Overview of {b}", ("what is {b}", "{b} overview", "{b} features")),
        (
            "Trade-offs: {a} versus {b}",
            ("{a} {b} trade-offs", "{a} {b} advantages disadvantages", "{a} {b} {c} performance"),
        ),
        ("Choosing {a} or {b}", ("when to use {a} or {b}", "{a} or {b} {c}", "choose {a} {b}")),
    ),
    "causal": (
        ("{q}", ("{q}", "{k}", "{k} reasons")),
        ("Causes and factors: {t}", ("{k} causes", "{k} factors", "why {k}")),
        ("Consequences and effects: {t}", ("{k} effects", "{k} consequences", "{k} impact")),
        ("Background and context: {t}", ("what is {t}", "{t} {e} overview", "{t} history")),
        ("Evidence for each explanation: {t}", ("{k} evidence", "{k} study", "{k} research")),
        ("Prevention and mitigation: {t}", ("{k} prevention", "{k} mitigation", "{k} solutions")),
    ),
    "procedural": (
        ("{q}", ("{q}", "how to {s}", "{k} guide")),
        ("Steps to {s}", ("{k} steps", "{k} tutorial", "{s} step-by-step")),
        ("Requirements before you {s}", ("{k} requirements", "{k} prerequisites", "{k} setup")),
        ("Common problems when you {s}", ("{k} errors", "{k} troubleshooting", "{k} common mistakes")),
        ("Best practices to {s}", ("{k} best practices", "{k} tips", "{k} recommendations")),
        ("Other ways to {s}", ("{k} alternatives", "{k} other ways", "{k} options")),
    ),
    "exploratory": (
        ("{q}", ("{q}", "{k}", "{t} {e} overview")),
        _BACKGROUND,
        ("Key facts and figures: {t}", ("{k} facts", "{k} statistics", "{k} key points")),
        ("Benefits and drawbacks: {t}", ("{k} benefits", "{k} drawbacks", "{k} advantages disadvantages")),
        ("Current developments: {t}", ("{k} recent developments", "{k} latest", "{k} trends")),
        ("What experts disagree about: {t}", ("{k} debate", "{k} criticism", "{k} controversy")),
    ),
}
MECHANISM: tuple[Template, ...] = (
    ("{q}", ("{q}", "{k}", "{t} {e} overview")),
    ("Mechanism and workings: {t}", ("{k} mechanism", "how {t} works", "{k} explained")),
    _BACKGROUND,
    ("Examples and details: {t}", ("{k} examples", "{k} details", "{t} use cases")),
    ("Limitations and problems: {t}", ("{k} limitations", "{k} problems", "{k} issues")),
    _CHANGES,
)
"""For an exploratory 'How does X do Y?' or 'Explain how X works': how something works."""
CAUSE_EFFECT: tuple[Template, ...] = (
    ("{q}", ("{q}", "{x} {y}", "{x} effect on {y}")),
    ("Mechanism of the effect of {x} on {y}", ("how {x} affects {y}", "{x} {y} mechanism", "{x} {y} impact")),
    ("Evidence of the effect of {x} on {y}", ("{x} {y} study", "{x} {y} research evidence", "{x} {y} data")),
    ("Factors that change the effect of {x} on {y}", ("{x} {y} factors", "{x} {y} dose amount", "{x} {y} risk")),
    ("Definition of {x}", ("what is {x}", "{x} overview", "{x} explained")),
    (
        "Prevention and mitigation: effects of {x} on {y}",
        ("{x} {y} reduce", "{x} {y} prevention", "{x} {y} recommendations"),
    ),
)
"""For a causal 'What is the impact of X on Y?' or 'How does X affect Y?'."""
NOUN_PROCEDURAL: tuple[Template, ...] = (
    ("{q}", ("{q}", "{k} guide", "{k} how to")),
    ("Steps for {t}", ("{k} steps", "{k} tutorial", "{k} step-by-step")),
    ("Requirements for {t}", ("{k} requirements", "{k} prerequisites", "{k} setup")),
    ("Common problems with {t}", ("{k} errors", "{k} troubleshooting", "{k} common mistakes")),
    ("Best practices for {t}", ("{k} best practices", "{k} tips", "{k} recommendations")),
    ("Other ways: {t}", ("{k} alternatives", "{k} other ways", "{k} options")),
)
"""For a procedural question without 'how do I' ('Steps to set up a Debian mirror')."""
FALLBACKS: tuple[Template, ...] = (
    ("What do the sources say about {t}?", ("{k}", "{t} context")),
    ("Evidence and sources: {t}", ("{k} evidence", "{k} sources")),
    ("Related facts and context: {t}", ("{k} context", "{k} background")),
    ("Uncertainties and caveats: {t}", ("{k} uncertainty", "{k} open questions")),
)
"""Headings that fill a plan whose own templates collide with each other or with the question."""
