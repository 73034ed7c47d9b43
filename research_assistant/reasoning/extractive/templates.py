"""Sub-question templates per query type, each with its search-query templates.

Placeholders (filled by `planning`): `{q}` the question, `{t}` its topic, `{k}`
its keywords and entities as one query, `{e}` the main entity when not in `{t}`,
`{n}` the noun phrase of 'What is the X of Y?', `{s}` the remainder after the
interrogative, `{a}`/`{b}` the sides of a comparison and `{c}` its context,
`{x}`/`{y}` the cause and effect of 'What is the impact of X on Y?'.
Agreement: `{what_is_t}` is 'what is X', 'what are Xs' or 'what is known about X Y' (a name),
`{is_n}`, `{does_n}`, `{has_n}` (and `_t`, `_x`) agree with the phrase in number.
From a parsed question (see `question_parse`): `{clause}` the question as a statement, `{indirect}`
as an indirect question, `{ing}` as a gerund phrase, `{were}` 'were' or 'are' by its tense, and, in
queries, `{pred}` the predicate's keywords. A heading whose placeholder is empty is skipped.
The first template of every type is the question itself.
"""

from __future__ import annotations

Template = tuple[str, tuple[str, ...]]

TEMPLATES: dict[str, tuple[Template, ...]] = {
    "factual": (
        ("{q}", ("{q}", "{k}", "{t} {e}")),
        ("What background is needed to understand {n}?", ("{t} {e} overview", "what is {t}", "{t} explained")),
        ("What details, figures or examples describe {n}?", ("{k} details", "{t} example", "{k} figures")),
        ("What limitations, exceptions or caveats apply to {n}?", ("{k} limitations", "{t} exceptions", "{k} caveats")),
        ("How {has_n} {n} changed over time?", ("{k} history", "{t} changes", "{k} latest")),
        ("What do different sources say about {n}?", ("{k} sources", "{t} {e} documentation", "{k} analysis")),
    ),
    "definitional": (
        ("{q}", ("{q}", "{k} definition", "what is {t}")),
        ("How {does_n} {n} work?", ("how {t} works", "{k} mechanism", "{k} explained")),
        ("What are examples or uses of {n}?", ("{k} examples", "{t} use cases", "{k} applications")),
        ("What are the limitations or criticisms of {n}?", ("{k} limitations", "{k} criticism", "{t} drawbacks")),
        ("How {does_n} {n} relate to similar concepts?", ("{k} compared", "{t} vs", "{k} related concepts")),
        ("How {has_n} {n} changed over time?", ("{k} history", "{t} changes", "{k} latest")),
    ),
    "comparative": (
        ("{q}", ("{q}", "{a} vs {b} {c}", "{a} {b} comparison")),
        ("How do {a} and {b} differ?", ("difference between {a} and {b}", "{a} vs {b}", "{a} compared to {b} {c}")),
        ("{what_is_a}?", ("what is {a}", "{a} overview", "{a} features")),
        ("{what_is_b}?", ("what is {b}", "{b} overview", "{b} features")),
        (
            "What are the trade-offs between {a} and {b}?",
            ("{a} {b} trade-offs", "{a} {b} advantages disadvantages", "{a} {b} {c} performance"),
        ),
        ("When should you choose {a} or {b}?", ("when to use {a} or {b}", "{a} or {b} {c}", "choose {a} {b}")),
    ),
    "causal": (
        ("{q}", ("{q}", "{k}", "{k} reasons")),
        ("What factors led to {s}?", ("{k} causes", "{k} factors", "why {s}")),
        ("What were the consequences of {s}?", ("{k} effects", "{k} consequences", "{k} impact")),
        ("What is the background of {t}?", ("what is {t}", "{t} {e} overview", "{t} history")),
        ("What evidence supports the explanations of {s}?", ("{k} evidence", "{k} study", "{k} research")),
        ("How could {s} have been prevented or mitigated?", ("{k} prevention", "{k} mitigation", "{k} solutions")),
    ),
    "procedural": (
        ("{q}", ("{q}", "how to {s}", "{k} guide")),
        ("What are the steps to {s}?", ("{k} steps", "{k} tutorial", "{s} step by step")),
        ("What is needed before you {s}?", ("{k} requirements", "{k} prerequisites", "{k} setup")),
        ("What are common problems when you {s}?", ("{k} errors", "{k} troubleshooting", "{k} common mistakes")),
        ("What are best practices to {s}?", ("{k} best practices", "{k} tips", "{k} recommendations")),
        ("What alternatives exist to {s}?", ("{k} alternatives", "{k} other ways", "{k} options")),
    ),
    "exploratory": (
        ("{q}", ("{q}", "{k}", "{t} {e} overview")),
        ("{what_is_t}?", ("what is {t}", "{t} {e} overview", "{t} explained")),
        ("What are the key facts about {t}?", ("{k} facts", "{k} statistics", "{k} key points")),
        (
            "What are the main benefits and drawbacks of {t}?",
            ("{k} benefits", "{k} drawbacks", "{k} advantages disadvantages"),
        ),
        ("What are recent developments in {t}?", ("{k} recent developments", "{k} latest", "{k} trends")),
        ("Where do sources disagree about {t}?", ("{k} debate", "{k} criticism", "{k} controversy")),
    ),
}
CAUSE_EFFECT = (
    ("{q}", ("{q}", "{x} {y}", "{x} effect on {y}")),
    ("How {does_x} {x} affect {y}?", ("how {x} affects {y}", "{x} {y} mechanism", "{x} {y} impact")),
    (
        "What evidence measures the effect of {x} on {y}?",
        ("{x} {y} study", "{x} {y} research evidence", "{x} {y} data"),
    ),
    (
        "What factors change the size of the effect of {x} on {y}?",
        ("{x} {y} factors", "{x} {y} dose amount", "{x} {y} risk"),
    ),
    ("{what_is_x}?", ("what is {x}", "{x} overview", "{x} explained")),
    (
        "How can the effects of {x} on {y} be reduced?",
        ("{x} {y} reduce", "{x} {y} prevention", "{x} {y} recommendations"),
    ),
)
CAUSE_EFFECT_PATTERNS = (
    r"(?:impacts?|effects?|influences?|role|consequences?) of (.+?) (?:on|for) (.+?)[?.!]*$",
    r"(?:how|does|do|did|can|could) (.+?) (?:affect|impact|influence|change|harm|improve)s? (.+?)[?.!]*$",
    r"^(.+?) (?:affects?|impacts?|influences?|causes?) (.+?)[?.!]*$",
)
NOUN_PROCEDURAL = (
    ("{q}", ("{q}", "{k} guide", "{k} how to")),
    ("What are the steps for {t}?", ("{k} steps", "{k} tutorial", "{k} step by step")),
    ("What is needed for {t}?", ("{k} requirements", "{k} prerequisites", "{k} setup")),
    ("What are common problems with {t}?", ("{k} errors", "{k} troubleshooting", "{k} common mistakes")),
    ("What are best practices for {t}?", ("{k} best practices", "{k} tips", "{k} recommendations")),
    ("What alternatives exist for {t}?", ("{k} alternatives", "{k} other ways", "{k} options")),
)

PARSED_FACT = (
    ("{what_is_t}?", ("{k} overview", "what is {t}", "{t} {e} history")),
    ("What details, figures or examples describe {t}?", ("{k} details", "{t} facts", "{k} figures")),
    ("What do different sources say about {indirect}?", ("{k} sources", "{t} {pred}", "{k} analysis")),
    ("How {has_t} {t} changed over time?", ("{k} history", "{t} changes", "{k} latest")),
    ("What limitations, exceptions or caveats apply to {t}?", ("{k} limitations", "{t} exceptions", "{k} caveats")),
)
"""For a parsed question that asks for a fact: 'When did X open?', 'How many Y did X carry?', 'Who invented X?'."""
PARSED_HOW = (
    (
        "What steps or mechanisms are involved when {clause}?",
        ("{k} mechanism", "{t} {pred} steps", "{k} how it works"),
    ),
    ("{what_is_t}?", ("{k} overview", "what is {t}", "{t} explained")),
    ("What problems or limitations affect how {clause}?", ("{k} problems", "{t} {pred} limitations", "{k} issues")),
    ("What examples show how {clause}?", ("{k} examples", "{t} {pred} example", "{k} use cases")),
    ("How has the way {clause} changed over time?", ("{k} history", "{t} {pred} changes", "{k} latest")),
)
"""For 'How does X do Y?' in the present: how a mechanism works."""
PARSED_HOW_PAST = (
    ("{what_is_t}?", ("{k} overview", "what is {t}", "{t} history")),
    ("What steps or events were involved when {clause}?", ("{k} steps", "{k} events", "{k} timeline")),
    ("What were the consequences of {ing}?", ("{k} consequences", "{k} effects", "{k} impact")),
    ("What evidence shows how {clause}?", ("{k} evidence", "{k} sources", "{k} research")),
    ("What do different sources say about how {clause}?", ("{k} analysis", "{k} debate", "{k} interpretations")),
)
"""For 'How did X do Y?': how something came about."""
PARSED_WHY = (
    ("What factors explain {indirect}?", ("{k} causes", "{k} factors", "{k} reasons")),
    ("What {were} the consequences of {ing}?", ("{k} effects", "{k} consequences", "{k} impact")),
    ("What is the background of {t}?", ("what is {t}", "{t} {e} overview", "{t} history")),
    ("What evidence supports each explanation of {indirect}?", ("{k} evidence", "{k} study", "{k} research")),
    ("What do different sources say about {indirect}?", ("{k} debate", "{k} explanations", "{k} theories")),
)
"""For a parsed causal question: 'Why did X fall?', 'Why are bees important for agriculture?'."""
