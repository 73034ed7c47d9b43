"""Question analysis: keywords, entities, query type, domain, recency and intent."""

from __future__ import annotations

import pytest

from research_assistant.reasoning.extractive.analysis import analyze_question, expected_answer, needs_recent_information
from research_assistant.reasoning.extractive.phrases import extract_entities, extract_keywords
from research_assistant.schemas import Intent, QueryType


def test_factual_question_about_a_default_value() -> None:
    analysis = analyze_question("What is the default recursion limit in Python?")
    assert analysis.query_type is QueryType.FACTUAL
    assert analysis.intent is Intent.QUICK_ANSWER
    assert analysis.keywords[0] == "default recursion limit"
    assert "Python" in analysis.keywords
    assert analysis.entities == ["Python"]
    assert analysis.domain == "software"
    assert not analysis.needs_recent
    assert expected_answer("What is the default recursion limit in Python?") == "number"


@pytest.mark.parametrize(
    ("question", "query_type"),
    [
        ("What is the difference between TCP and UDP?", QueryType.COMPARATIVE),
        ("Python vs Rust: which is faster?", QueryType.COMPARATIVE),
        ("Is Rust better than Go for web servers?", QueryType.COMPARATIVE),
        ("Should I use SQLite or PostgreSQL for a small web site?", QueryType.COMPARATIVE),
        # The 'or' of an example offers no choice, and 'can I define' asks for no definition: this asks for a list.
        ("Which hooks can I define, such as before each prompt or after changing directory?", QueryType.FACTUAL),
        ("Which features can be switched on or off with the enable command?", QueryType.FACTUAL),
        ("Why did the Roman Empire fall?", QueryType.CAUSAL),
        ("What is the impact of caffeine on sleep quality?", QueryType.CAUSAL),
        ("How do I install packages with pip in a virtual environment?", QueryType.PROCEDURAL),
        # Comparing is what the asker wants to do, not two things to contrast.
        ("How should I compare the digest I compute with the one the sender sent?", QueryType.PROCEDURAL),
        ("How does Redis compare to Memcached?", QueryType.COMPARATIVE),
        # A statement before the question sets the scene; the type is read from the question after it.
        ("udev doesn't log enough to debug a rule; how do I make it more verbose?", QueryType.PROCEDURAL),
        ("The proxy fails to bind after a reboot. What is the proper fix?", QueryType.PROCEDURAL),
        ("In Git terminology, what is an evil merge?", QueryType.DEFINITIONAL),
        ("What is the GIL?", QueryType.DEFINITIONAL),
        ('What does "idempotent" mean in HTTP?', QueryType.DEFINITIONAL),
        ("Define eventual consistency.", QueryType.DEFINITIONAL),
        ("When was Python 3.12 released?", QueryType.FACTUAL),
        ("How many moons does Jupiter have?", QueryType.FACTUAL),
        ("What are the main benefits of remote work?", QueryType.EXPLORATORY),
    ],
)
def test_query_type(question: str, query_type: QueryType) -> None:
    assert analyze_question(question).query_type is query_type


def test_long_comparisons_want_a_full_report() -> None:
    assert analyze_question("Compare Python and Rust for web development").intent is Intent.FULL_REPORT


def test_entities_cover_identifiers_versions_years_acronyms_and_names() -> None:
    entities = extract_entities(
        'Did Guido van Rossum change sys.setrecursionlimit in Python 3.12 after the 2019 "core sprint" on the GIL?'
    )
    for expected in ["Guido van Rossum", "sys.setrecursionlimit", "Python 3.12", "2019", "core sprint", "GIL"]:
        assert expected in entities
    assert "Python" not in entities  # folded into "Python 3.12"
    assert "Did" not in entities


def test_entities_leave_out_english_words_modifier_suffixes_and_what_a_call_passes() -> None:
    assert extract_entities("Is it OK to run my CliRunner-based tests from several threads?") == ["CliRunner"]
    assert extract_entities("I'm upgrading Django. Is SHA1 still allowed?") == ["Django", "SHA1"]
    question = "Where does click.get_app_dir('Foo Bar') point on an ordinary Unix system?"
    assert extract_entities(question) == ["click.get_app_dir", "Unix"]
    assert not [k for k in extract_keywords(question) if "Foo" in k or "Bar" in k]
    assert "Redis" in extract_entities("Which port does 'Redis' use?")  # a quoted name outside a call stays


def test_the_measure_a_how_question_asks_for_is_no_keyword() -> None:
    assert extract_keywords("How long is the default timeout?") == ["default timeout"]
    assert extract_keywords("Is a long option name allowed?") == ["long option name allowed"]


def test_keywords_leave_out_contractions() -> None:
    keywords = extract_keywords("If I don't pass any -C flag, what level of table compression does flex use?")
    assert keywords[:2] == ["C flag", "table compression"]
    assert not [k for k in extract_keywords("What won't borg preserve? I'm asking.") if "'" in k]


def test_keywords_keep_multiword_names_whole_and_skip_framing_words() -> None:
    keywords = extract_keywords("Who founded the Bank of England in 1694?")
    assert keywords[0] == "Bank of England"
    assert "1694" in keywords
    assert extract_keywords("What are the main benefits of remote work?")[0] == "remote work"
    assert "difference" not in " ".join(extract_keywords("What is the difference between TCP and UDP?"))


def test_recent_information_is_detected() -> None:
    assert analyze_question("What are the latest developments in quantum computing?").needs_recent
    assert analyze_question("Which GPUs were released in 2024?").needs_recent
    assert not analyze_question("Why did the Roman Empire fall?").needs_recent


@pytest.mark.parametrize(
    "question",
    [
        "What is the current version of Python?",
        "Does a current Wireshark validate checksums out of the box?",
        "Which Python versions are currently supported?",
        "Is this advice still current?",
        "What changed in the newest release?",
    ],
)
def test_current_asks_for_now_before_a_word_of_time_or_a_name(question: str) -> None:
    assert needs_recent_information(question)


@pytest.mark.parametrize(
    "question",
    [
        "How do I show the current working directory in my PS1 prompt?",
        "Inside a for loop, which variable gives the current iteration?",
        "How can the template tell how many levels deep it currently is?",
        "How many templates are kept before the least recently used ones are thrown out?",
        "Which versions can it install (oldest to newest)?",
        "What command brings the schema up to date?",
    ],
)
def test_a_program_state_an_order_or_an_action_asks_for_no_time(question: str) -> None:
    assert not needs_recent_information(question)


def test_expected_answer_shapes() -> None:
    assert expected_answer("When was Python 3.12 released?") == "date"
    assert expected_answer("Who founded the Bank of England?") == "person"
    assert expected_answer("What is the GIL?") == "definition"
    assert expected_answer("How do I increase the recursion limit?") is None
    # A leading condition is no question of time: this asks for a number.
    assert expected_answer("When the cache fills up, how many entries are dropped?") == "number"


def test_analysis_is_deterministic() -> None:
    question = "Compare the GIL in CPython 3.12 with PyPy's approach to threads"
    assert analyze_question(question) == analyze_question(question)
