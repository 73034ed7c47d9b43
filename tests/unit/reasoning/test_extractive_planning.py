"""Research plans: sub-questions and queries from templates, scaled by depth."""

from __future__ import annotations

import re

import pytest

from research_assistant.context import PROFILES, Depth
from research_assistant.reasoning.extractive.analysis import analyze_question
from research_assistant.reasoning.extractive.lexicon import FRAMING_WORDS
from research_assistant.reasoning.extractive.parts import question_parts
from research_assistant.reasoning.extractive.planning import build_plan, comparison_sides
from research_assistant.reasoning.extractive.query import GENERIC_TERMS
from research_assistant.reasoning.extractive.slots import topic_of
from research_assistant.reasoning.extractive.synthesis import direct_sub_questions
from research_assistant.reasoning.extractive.templates import (
    CAUSE_EFFECT,
    FALLBACKS,
    MECHANISM,
    NOUN_PROCEDURAL,
    TEMPLATES,
)
from research_assistant.reasoning.questions import asked_for
from research_assistant.text.tokens import STOPWORDS, content_terms, normalize_query

QUESTIONS = [
    "What is the default recursion limit in Python?",
    "What is the difference between TCP and UDP?",
    "Why did the Roman Empire fall?",
    "What is the impact of caffeine on sleep quality?",
    "How do I install packages with pip in a virtual environment?",
    "What is the GIL?",
    "What are the main benefits of remote work?",
]


@pytest.mark.parametrize("depth", list(Depth))
@pytest.mark.parametrize("question", QUESTIONS)
def test_plan_size_follows_the_depth_profile(question: str, depth: Depth) -> None:
    profile = PROFILES[depth]
    plan = build_plan(question, analyze_question(question), profile)
    assert [sq.id for sq in plan.sub_questions] == [f"q{i}" for i in range(1, profile.sub_questions + 1)]
    assert plan.sub_questions[0].text == question
    assert plan.sub_questions[0].priority == 1
    for sq in plan.sub_questions:
        assert len(sq.queries) == profile.queries_per_sub_question
    every_query = [normalize_query(q) for sq in plan.sub_questions for q in sq.queries]
    assert len(every_query) == len(set(every_query)), "no query is planned twice"
    texts = [normalize_query(sq.text) for sq in plan.sub_questions]
    assert len(texts) == len(set(texts))
    assert 1 <= plan.min_sources <= profile.max_sources
    assert 1 <= plan.min_evidence_per_question <= profile.evidence_per_sub_question
    assert str(plan.min_sources) in plan.completion_criteria


def test_a_comparison_asks_about_each_side_and_how_they_differ() -> None:
    question = "What is the difference between TCP and UDP?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    texts = [sq.text for sq in plan.sub_questions]
    assert texts[1:] == ["Overview of TCP", "Overview of UDP", "Trade-offs: TCP versus UDP", "Choosing TCP or UDP"]
    assert any("TCP vs UDP" in q for sq in plan.sub_questions for q in sq.queries)


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        ("Compare Python and Rust for web development", ("Python", "Rust")),
        ("Python vs Rust: which is faster?", ("Python", "Rust")),
        ("Is Rust faster than Go for web servers?", ("Rust", "Go")),
        ("Should I use Poetry or pip-tools for dependency management?", ("Poetry", "pip-tools")),
        ("What is the difference between 'forward first' and 'forward only'?", ("forward first", "forward only")),
        ("What's the practical difference between kadmin and kadmin.local?", ("kadmin", "kadmin.local")),
        ("In option values, how does a suffix like 'Ki' differ from plain 'K'?", ("Ki", "K")),
        ("How does a hard link differ from a symbolic link?", ("hard link", "symbolic link")),
        ("What's the difference between running sphinx-build with -q and with -Q?", ("-q", "-Q")),
        ("In a display filter, what's the difference between != and !== when a field repeats?", ("!=", "!==")),
        ('Inside double quotes, what\'s the difference between "$*" and "$@"?', ("$*", "$@")),
    ],
)
def test_comparison_sides(question: str, sides: tuple[str, str]) -> None:
    assert comparison_sides(question, analyze_question(question)) == sides


def test_quoted_sides_that_differ_by_a_common_word_stay_apart_in_headings_and_queries() -> None:
    question = "In named.conf, what is the difference between 'forward first' and 'forward only'?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    texts = [sq.text for sq in plan.sub_questions]
    assert "Overview of forward only" in texts
    assert any(q.endswith("forward only overview") for sq in plan.sub_questions for q in sq.queries)


def test_a_cause_and_effect_question_asks_how_one_affects_the_other() -> None:
    question = "What is the impact of caffeine on sleep quality?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.STANDARD])
    assert plan.sub_questions[1].text == "Mechanism of the effect of caffeine on sleep quality"
    assert plan.sub_questions[1].queries[0] == "how caffeine affects sleep quality"


def test_a_how_to_question_asks_for_steps_and_requirements() -> None:
    question = "How do I install packages with pip in a virtual environment?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    texts = [sq.text for sq in plan.sub_questions]
    assert "Steps to install packages with pip in a virtual environment" in texts
    assert "Requirements before you install packages with pip in a virtual environment" in texts


def test_a_how_to_question_after_a_statement_asks_for_steps() -> None:
    question = "Our monitoring probes the proxy every few seconds and floods the logs. How can I keep those checks out?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    assert "Steps to keep those checks out" in [sq.text for sq in plan.sub_questions]


def test_planning_is_deterministic() -> None:
    question = "Why did the Roman Empire fall?"
    profile = PROFILES[Depth.DEEP]
    assert build_plan(question, analyze_question(question), profile) == build_plan(
        question, analyze_question(question), profile
    )


HEADINGS = [
    (
        "What tools help analysts triage alerts?",
        [
            "Definition of tools help analysts triage",
            "Key facts and figures: tools help analysts triage",
            "Benefits and drawbacks: tools help analysts triage",
            "Current developments: tools help analysts triage",
        ],
    ),
    (
        "What are vaccines?",
        [
            "Mechanism and workings: vaccines",
            "Examples and uses: vaccines",
            "Limitations and drawbacks: vaccines",
            "Changes over time: vaccines",
        ],
    ),
    (
        "How does Python manage memory and reclaim reference cycles?",
        [
            "Aspect: manage memory (Python)",
            "Aspect: reclaim reference cycles (Python)",
            "Mechanism and workings: Python",
            "Definition of Python",
        ],
    ),
    (
        "What is the default page size in SQLite?",
        [
            "Definition of default page size in SQLite",
            "Details, figures and examples: default page size in SQLite",
            "Limitations, exceptions and caveats: default page size in SQLite",
            "Changes over time: default page size in SQLite",
        ],
    ),
    (
        "Compare Tavily and Exa for academic search",
        [
            "Differences between Tavily and Exa",
            "Overview of Tavily",
            "Overview of Exa",
            "Trade-offs: Tavily versus Exa",
        ],
    ),
    (
        "Why did the 2008 financial crisis happen?",
        [
            "Causes and factors: 2008 financial crisis",
            "Consequences and effects: 2008 financial crisis",
            "Background and context: 2008 financial crisis",
            "Evidence for each explanation: 2008 financial crisis",
        ],
    ),
    (
        "How do I configure git to sign commits?",
        [
            "Steps to configure git to sign commits",
            "Requirements before you configure git to sign commits",
            "Common problems when you configure git to sign commits",
            "Best practices to configure git to sign commits",
        ],
    ),
    (
        "How do tariffs affect consumer prices?",
        [
            "Mechanism of the effect of tariffs on consumer prices",
            "Evidence of the effect of tariffs on consumer prices",
            "Factors that change the effect of tariffs on consumer prices",
            "Definition of tariffs",
        ],
    ),
    (
        "Who invented the telephone?",
        [
            "Definition of telephone",
            "Details, figures and examples: telephone",
            "Limitations, exceptions and caveats: telephone",
            "Changes over time: telephone",
        ],
    ),
]
"""Deep plans' headings after the question itself, one question per kind: labels around the topic."""


@pytest.mark.parametrize(("question", "headings"), HEADINGS, ids=[q for q, _ in HEADINGS])
def test_headings_are_labels_around_the_topic(question: str, headings: list[str]) -> None:
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    assert [sq.text for sq in plan.sub_questions[1:]] == headings


def test_the_first_sub_question_is_the_question_as_asked() -> None:
    for question, asked in [
        ("  What is the GIL?  ", "What is the GIL?"),
        ("Compare Tavily and Exa for academic search", "Compare Tavily and Exa for academic search?"),
        ("Explain how CRISPR gene editing works.", "Explain how CRISPR gene editing works?"),
    ]:
        plan = build_plan(question, analyze_question(question), PROFILES[Depth.QUICK])
        assert plan.sub_questions[0].text == asked


MORE_QUESTIONS = [
    *(q for q, _ in HEADINGS),
    *QUESTIONS,
    "How many passengers rode the Halvorsby trams on an average weekday in 2023?",
    "How much does a monthly tram pass cost in Halvorsby?",
    "In which year did the old Halvorsby tramway close?",
    "How do vaccines train the immune system?",
    "How does garbage collection work in Java?",
    "What causes the northern lights?",
    "How does the Federal Reserve set interest rates?",
    "Why do central banks raise interest rates to fight inflation?",
    "Which countries use the euro?",
    "What does the asyncio event loop do?",
    "How did the Black Death affect the European economy?",
    "What happened at the Battle of Hastings?",
    "How do black holes form and evaporate?",
    "Explain how CRISPR gene editing works",
    "How has the unemployment rate changed since 2020?",
    "How long does it take light from the Sun to reach Earth?",
    "How were the Egyptian pyramids built?",
    "What did Adam Smith argue about the division of labour?",
    "How did Japan's economy grow after 1950?",
    "Why did the Bretton Woods system collapse?",
    "How does the Python import system find and load modules?",
    "When should I use a list comprehension instead of a loop?",
    "How does TLS protect data in transit?",
    "Why is the sky blue?",
    "Which programming languages support pattern matching?",
    "How are vaccines tested and approved?",
    "Why do we dream?",
    "What was invented in 1876?",
]


_AGREES = r"\b(?:is|are|was|were|does|do|did|has|have)\s+(?:the\s+|a\s+|an\s+)?"


def _lint(heading: str, question: str) -> list[str]:
    """Signs of a heading that is not English: template debris, doubled words, a question mark on a label, or
    the topic after a verb that would have to agree with it ('What is tools help?', 'How does vaccines work?')."""
    if heading.rstrip("?") == question.strip().rstrip("?.!") or heading in [p.text for p in question_parts(question)]:
        return []  # the question and its parts, as the user wrote them
    problems = []
    if not heading[:1].isupper() or re.search(r"[{}]|\s[?,:]|\s{2}", heading):
        problems.append("form")
    if re.search(r"\b(\w+) \1\b", heading, re.IGNORECASE):
        problems.append("doubled word")
    if heading.endswith("?") != bool(re.match(r"(?:What|How|Why|Which|Who|When|Where)\b", heading)):
        problems.append("a question mark on a label, or a question without one")
    topic = topic_of(question, analyze_question(question))
    if re.search(_AGREES + re.escape(topic) + r"\b", heading, re.IGNORECASE):
        problems.append("the topic after a verb that agrees with it")
    return problems


@pytest.mark.parametrize("question", MORE_QUESTIONS)
def test_no_heading_has_signs_of_bad_grammar(question: str) -> None:
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    assert {sq.text: _lint(sq.text, question) for sq in plan.sub_questions} == {
        sq.text: [] for sq in plan.sub_questions
    }


def test_the_lint_catches_the_old_headings() -> None:
    assert _lint("What is tools help analysts triage?", "What tools help analysts triage alerts?")
    assert _lint("How does vaccines work?", "What are vaccines?")
    assert _lint("Definition of {t}", "What are vaccines?")


TEMPLATE_HEADINGS = [
    text
    for templates in (*TEMPLATES.values(), MECHANISM, CAUSE_EFFECT, NOUN_PROCEDURAL, FALLBACKS)
    for text, _ in templates
    if text != "{q}"
]


@pytest.mark.parametrize("heading", TEMPLATE_HEADINGS)
def test_a_heading_adds_no_terms_a_sentence_must_hold(heading: str) -> None:
    """Relevance is scored against each sub-question's text: a heading's own words must be template words
    (generic, framing or stop words), or a sentence would need 'definition' or 'practical' to count."""
    own = re.sub(r"\{\w+\}", " ", heading).replace("Aspect:", " ")
    for word in re.findall(r"[\w'-]+", own):
        low = word.lower()
        assert low in STOPWORDS or low in FRAMING_WORDS or set(content_terms(low)) <= GENERIC_TERMS, word


@pytest.mark.parametrize("heading", TEMPLATE_HEADINGS)
def test_a_heading_never_asks_for_a_value(heading: str) -> None:
    """Only the question itself says whether a default, a limit, a range, a number or a date is asked for."""
    slots = {"t": "widgets", "k": "widgets", "e": "", "a": "alpha", "b": "beta", "c": "", "x": "salt"}
    text = heading.format(**slots, y="blood pressure", s="install widgets", q="")
    assert not asked_for(text).wants_value, text


def test_a_compound_question_asks_about_each_part_after_the_whole() -> None:
    question = "How does Python manage memory and reclaim reference cycles?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.STANDARD])
    texts = [sq.text for sq in plan.sub_questions]
    assert texts[:3] == [question, "Aspect: manage memory (Python)", "Aspect: reclaim reference cycles (Python)"]
    assert len(texts) == PROFILES[Depth.STANDARD].sub_questions
    assert plan.sub_questions[1].queries[0] == "Python manage memory"
    assert plan.sub_questions[2].queries[0] == "Python reclaim reference cycles"
    assert direct_sub_questions(question, plan) == ["q1", "q2", "q3"]  # the report answers each part first


def test_two_questions_joined_by_and_are_asked_one_by_one() -> None:
    question = "What are the fares and how long is the network?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.STANDARD])
    assert [sq.text for sq in plan.sub_questions[1:3]] == ["What are the fares?", "How long is the network?"]


@pytest.mark.parametrize(
    "question",
    [
        "What are the pros and cons of microservices?",
        "How do bees and wasps build nests?",
        "When did World War I begin and end?",
        "What is the difference between TCP and UDP?",
        "How did Britain and France respond to the crisis?",
        "How does Python decide whether a cached module is out of date and must be recompiled?",
    ],
)
def test_and_inside_a_phrase_makes_no_parts(question: str) -> None:
    assert question_parts(question) == []


@pytest.mark.parametrize("question", MORE_QUESTIONS)
def test_queries_are_keywords_without_articles_or_labels(question: str) -> None:
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.DEEP])
    asked = plan.sub_questions[0].queries[0]
    queries = [q for sq in plan.sub_questions for q in sq.queries if q != asked]
    assert not [q for q in queries if q.lower().startswith(("the ", "a ", "an ")) or ":" in q]


def test_the_topic_is_a_phrase_the_question_writes() -> None:
    for question, topic in [
        ("What is the boiling point of water at high altitude?", "boiling point of water at high altitude"),
        ("What were the causes of the 2008 financial crisis?", "2008 financial crisis"),
        ("Where was Marie Curie born?", "Marie Curie"),
        ("Who invented the telephone?", "telephone"),
        ("How does Python manage memory and reclaim reference cycles?", "Python"),
        ("What kinds of temporary files does SQLite use?", "temporary files"),
        (
            "What are the drawbacks of loading modules as shared objects instead of statically?",
            "loading modules as shared objects",
        ),
        ("How does write-ahead logging (WAL) work, as opposed to a rollback journal?", "write-ahead logging (WAL)"),
        ("How does Apache's event MPM deal with keep-alive connections?", "Apache's event MPM"),
        # The name the top keyword holds, not the first name written ('Unix' only sets the scene).
        ("On Unix, which MPMs can Apache httpd be built with by default?", "Apache"),
        ('In Git terminology, what is an "evil merge"?', "evil merge"),
        ("In SQLite, what is meant by the type affinity of a column?", "type affinity of a column"),
        # 'that event' points back to the statement before the question, which names it.
        ("My ntpd log shows a panic_stop system event. What does that event mean?", "panic_stop"),
        # A name written as code is what the question is about, unless the subject is only said to be in it.
        ("Does fs.watch() with recursive: true work on Linux in Node 18?", "fs.watch()"),
        ("Where does click.get_app_dir('Foo Bar') point on an ordinary Unix system?", "click.get_app_dir"),
        ("Which unit is the cpu limit in limits.conf expressed in?", "cpu limit"),
        ("Is it OK to run my CliRunner-based tests from several threads in parallel?", "CliRunner"),
        # Whether there is a limit asks it of a thing: the attribute is not what the question is about.
        ("Is there a limit on the size of a message?", "message"),
        ("Is there a maximum length for a package name?", "package name"),
        # A question about what an abbreviation stands for is about the abbreviation, wherever it names it.
        ("The Varnish docs keep mentioning VCC. What is that short for?", "VCC"),
        ("Where does the name 'Docutils' come from - what is it short for?", "Docutils"),
    ]:
        assert topic_of(question, analyze_question(question)) == topic


@pytest.mark.parametrize("question", MORE_QUESTIONS)
def test_every_sub_question_gets_its_quota_of_distinct_queries(question: str) -> None:
    profile = PROFILES[Depth.DEEP]
    plan = build_plan(question, analyze_question(question), profile)
    assert len(plan.sub_questions) == profile.sub_questions
    queries = [normalize_query(q) for sq in plan.sub_questions for q in sq.queries]
    assert len(queries) == len(set(queries)) == profile.sub_questions * profile.queries_per_sub_question


def test_a_question_about_a_projects_terminology_searches_its_glossary_for_the_quoted_term() -> None:
    question = "What is a 'pidbox' in Celery terminology?"
    analysis = analyze_question(question)
    assert analysis.keywords == ["pidbox", "Celery"]
    quick = build_plan(question, analysis, PROFILES[Depth.QUICK])
    assert quick.sub_questions[0].queries == ["pidbox glossary"]
    assert quick.sub_questions[1].text == "Mechanism and workings: pidbox"
    quoted_mode = "What does the 'x' mode mean when opening a file with open()?"  # about a mode, not about 'x'
    assert (
        build_plan(quoted_mode, analyze_question(quoted_mode), PROFILES[Depth.QUICK])
        .sub_questions[1]
        .text.endswith("x mode")
    )
    other = "What is a 'pidbox' in Celery?"
    assert (
        "pidbox glossary"
        not in build_plan(other, analyze_question(other), PROFILES[Depth.QUICK]).sub_questions[0].queries
    )


def test_a_question_about_what_a_term_means_searches_the_glossary_for_it() -> None:
    question = "requoting - what does the term mean in the aiohttp docs?"
    plan = build_plan(question, analyze_question(question), PROFILES[Depth.QUICK])
    assert plan.sub_questions[0].text == "What does requoting mean in the aiohttp docs?"
    assert plan.sub_questions[0].queries == ["requoting glossary"]
