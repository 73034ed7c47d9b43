"""Sub-question templates per query type, each with its search-query templates.

Placeholders (filled by `planning`): `{q}` the question, `{t}` its topic, `{k}`
its keywords and entities as one query, `{e}` the main entity when not in `{t}`,
`{n}` the noun phrase of 'What is the X of Y?', `{s}` the remainder after the
interrogative, `{a}`/`{b}` the sides of a comparison and `{c}` its context,
`{x}`/`{y}` the cause and effect of 'What is the impact of X on Y?'.
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
        ("How has {n} changed over time?", ("{k} history", "{t} changes", "{k} latest")),
        ("What do different sources say about {n}?", ("{k} sources", "{t} {e} documentation", "{k} analysis")),
    ),
    "definitional": (
        ("{q}", ("{q}", "{k} definition", "what is {t}")),
        ("How does {n} work?", ("how {t} works", "{k} mechanism", "{k} explained")),
        ("What are examples or uses of {n}?", ("{k} examples", "{t} use cases", "{k} applications")),
        ("What are the limitations or criticisms of {n}?", ("{k} limitations", "{k} criticism", "{t} drawbacks")),
        ("How does {n} relate to similar concepts?", ("{k} compared", "{t} vs", "{k} related concepts")),
        ("How has {n} changed over time?", ("{k} history", "{t} changes", "{k} latest")),
    ),
    "comparative": (
        ("{q}", ("{q}", "{a} vs {b} {c}", "{a} {b} comparison")),
        ("How do {a} and {b} differ?", ("difference between {a} and {b}", "{a} vs {b}", "{a} compared to {b} {c}")),
        ("What is {a}?", ("what is {a}", "{a} overview", "{a} features")),
        ("What is {b}?", ("what is {b}", "{b} overview", "{b} features")),
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
        ("What is {t}?", ("what is {t}", "{t} {e} overview", "{t} explained")),
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
    ("How does {x} affect {y}?", ("how {x} affects {y}", "{x} {y} mechanism", "{x} {y} impact")),
    (
        "What evidence measures the effect of {x} on {y}?",
        ("{x} {y} study", "{x} {y} research evidence", "{x} {y} data"),
    ),
    ("What factors change how strongly {x} affects {y}?", ("{x} {y} factors", "{x} {y} dose amount", "{x} {y} risk")),
    ("What is {x}?", ("what is {x}", "{x} overview", "{x} explained")),
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
