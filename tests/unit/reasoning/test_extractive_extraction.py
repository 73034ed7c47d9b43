"""Evidence extraction: the sentence that answers the sub-question comes first, quoted exactly."""

from __future__ import annotations

import pytest

from research_assistant.reasoning.answers import answer_strength
from research_assistant.reasoning.confidence import ANSWER_FOUND
from research_assistant.reasoning.extractive import extraction
from research_assistant.reasoning.extractive.candidates import Candidate, candidates, hanging_term
from research_assistant.reasoning.extractive.extraction import (
    LIST_EXTRA_ITEMS,
    announces,
    extract_evidence,
    list_items,
)
from research_assistant.reasoning.extractive.query import Concept, build_query
from research_assistant.reasoning.extractive.scoring import (
    DEFINING_SENTENCE,
    KEY_BONUS,
    KEYED_DEFINITION,
    LEAD_IN_ALONE_FIT,
    OWN_SETTING_BONUS,
    SELECTED_ROW,
    _with_identifier_matches,
    candidate_features,
    concept_coverage,
    entry_descriptions,
    key_fit,
    row_key,
    score_candidates,
)
from research_assistant.reasoning.extractive.shapes import shape_bonus
from research_assistant.reasoning.extractive.signals import (
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
    setting_named,
)
from research_assistant.reasoning.questions import asked_for, without_premise
from research_assistant.schemas import Passage, SubQuestion
from research_assistant.text.tokens import content_terms, names_in, terms_of

SYS_DOCS = Passage(
    source_id="S-sys",
    chunk_id="sys#1",
    score=0.92,
    text=(
        "sys.getrecursionlimit()\n"
        "Return the current value of the recursion limit, the maximum depth of the Python interpreter stack. "
        "This limit prevents infinite recursion from causing an overflow of the C stack and crashing Python. "
        "It can be set by setrecursionlimit().\n\n"
        "sys.setrecursionlimit(limit)\n"
        "Set the maximum depth of the Python interpreter stack to limit.\n\n"
        "The highest possible limit is platform-dependent. A user may need to set the limit higher when they "
        "have a program that requires deep recursion and a platform that supports a higher limit."
    ),
)
BLOG = Passage(
    source_id="S-blog",
    chunk_id="blog#0",
    score=0.81,
    text=(
        "Understanding Python's Recursion Limit\n\n"
        "Recursion is when a function calls itself. Every call adds a frame to the call stack.\n\n"
        "By default, Python sets the recursion limit to 1000 to protect against stack overflows. If a "
        "recursive function goes deeper than that, the interpreter raises a RecursionError."
    ),
)
WIKI = Passage(
    source_id="S-wiki",
    chunk_id="wiki#3",
    score=0.55,
    text=(
        "Python is a high-level, general-purpose programming language. Its design philosophy emphasizes code "
        "readability with the use of significant indentation. Python is dynamically typed and garbage-collected."
    ),
)
COOKING = Passage(
    source_id="S-cooking",
    chunk_id="cook#0",
    score=0.2,
    text="Simmer the onions slowly until they turn golden. Season the soup with salt and pepper before serving.",
)
TCP_UDP = Passage(
    source_id="S-net",
    chunk_id="net#0",
    score=0.9,
    text=(
        "TCP vs UDP\n\n"
        "The TCP header is 20 bytes long, while the UDP header is only 8 bytes. "
        "Transmission Control Protocol (TCP) is a connection-oriented protocol that guarantees that data "
        "arrives in order and without loss. User Datagram Protocol (UDP) is a connectionless protocol. "
        "TCP is the better choice when every byte must arrive, for example for web pages and email."
    ),
)
QUESTION = "What is the default recursion limit in Python?"
WHY = "Why does Python limit the depth of recursion?"


def extract(question: str, sub_question: str, passages: list[Passage], limit: int = 3) -> list:
    return extract_evidence(question, SubQuestion(id="q1", text=sub_question), passages, limit, Embedder())


def test_the_sentence_that_states_the_answer_comes_first() -> None:
    evidence = extract(QUESTION, QUESTION, [SYS_DOCS, BLOG, WIKI, COOKING])
    assert (
        evidence[0].claim == "By default, Python sets the recursion limit to 1000 to protect against stack overflows."
    )
    assert evidence[0].source_id == "S-blog"
    assert evidence[0].score == max(e.score for e in evidence)


def test_quotes_are_exact_substrings_and_claims_collapse_whitespace() -> None:
    passages = [SYS_DOCS, BLOG, WIKI, COOKING, TCP_UDP]
    for question in [QUESTION, "How do I increase the recursion limit in Python?", "What is TCP?"]:
        for item in extract(question, question, passages, limit=6):
            source_text = next(p.text for p in passages if p.source_id == item.source_id)
            assert item.quote in source_text
            assert item.claim == " ".join(item.quote.split())
            assert item.sub_question_id == "q1"
            assert 0.0 <= item.score <= 1.0


def test_unrelated_text_is_never_evidence() -> None:
    assert extract(QUESTION, QUESTION, [COOKING]) == []
    assert all(e.source_id != "S-cooking" for e in extract(QUESTION, QUESTION, [SYS_DOCS, COOKING], limit=10))


def test_limit_and_stable_unique_ids() -> None:
    first = extract(WHY, WHY, [SYS_DOCS, BLOG, WIKI], limit=2)
    again = extract(WHY, WHY, [SYS_DOCS, BLOG, WIKI], limit=2)
    assert len(first) == 2
    assert first == again
    assert len({e.id for e in extract(WHY, WHY, [SYS_DOCS, BLOG, WIKI], limit=10)}) == len(
        extract(WHY, WHY, [SYS_DOCS, BLOG, WIKI], limit=10)
    )


def test_the_same_sentence_in_overlapping_chunks_is_quoted_once() -> None:
    overlap = Passage(source_id="S-blog", chunk_id="blog#1", score=0.7, text=BLOG.text[40:])
    claims = [e.claim for e in extract(QUESTION, QUESTION, [BLOG, overlap], limit=5)]
    assert len(claims) == len(set(claims))


def test_sources_are_varied_when_they_are_about_as_relevant() -> None:
    question = "What does the recursion limit protect against in Python?"
    evidence = extract(question, question, [SYS_DOCS, BLOG], limit=2)
    assert {e.source_id for e in evidence} == {"S-sys", "S-blog"}


def test_a_value_question_prefers_the_sentence_with_the_value_over_closer_wording() -> None:
    evidence = extract(QUESTION, QUESTION, [SYS_DOCS, BLOG], limit=2)
    assert "1000" in evidence[0].quote


def test_a_definition_answers_what_is() -> None:
    evidence = extract("What is the difference between TCP and UDP?", "What is TCP?", [TCP_UDP])
    assert evidence[0].claim.startswith("Transmission Control Protocol (TCP) is a connection-oriented protocol")
    assert all("UDP) is a connectionless" not in e.claim for e in evidence)  # about UDP, not TCP


def test_a_pronoun_sentence_keeps_the_sentence_it_refers_to() -> None:
    evidence = extract(
        "How can the recursion limit be changed in Python?",
        "How can the recursion limit be changed in Python?",
        [SYS_DOCS],
        limit=5,
    )
    quotes = [e.quote for e in evidence if "It can be set by setrecursionlimit()." in e.quote]
    assert quotes, "the sentence naming the setter is evidence"
    assert "This limit prevents infinite recursion" in quotes[0]  # never the bare 'It can be set ...'
    assert quotes[0] in SYS_DOCS.text


def test_a_name_given_to_what_the_sentence_before_says_keeps_that_sentence() -> None:
    text = (
        "Sometimes it is useful to have more than one subnet on the same link. Understanding that two or more "
        'subnets are used on the same link requires additional logic. This capability is called "shared networks".'
    )
    named = [c.quote for c in candidates([Passage(source_id="s1", text=text)]) if c.focal.startswith("This capability")]
    assert named and all(quote.startswith("Understanding that two or more subnets") for quote in named)


def test_an_api_description_keeps_its_signature_line() -> None:
    evidence = extract(
        "How do I set the maximum depth of the Python interpreter stack?",
        "How do I set the maximum depth of the Python interpreter stack?",
        [SYS_DOCS],
    )
    assert (
        evidence[0].quote
        == "sys.setrecursionlimit(limit)\nSet the maximum depth of the Python interpreter stack to limit."
    )
    assert (
        evidence[0].claim
        == "sys.setrecursionlimit(limit) Set the maximum depth of the Python interpreter stack to limit."
    )


def test_no_passages_or_no_room_gives_no_evidence() -> None:
    assert extract(QUESTION, QUESTION, []) == []
    assert extract(QUESTION, QUESTION, [BLOG], limit=0) == []


def _best(question: str, text: str, title: str = "Server settings") -> str:
    passages = [Passage(source_id="s1", text=text, title=title)]
    found = extract_evidence(question, SubQuestion(id="q1", text=question), passages, 1, Embedder())
    assert found, "no evidence"
    return found[0].quote


SETTINGS_PAGE = (
    "Connections\n\n"
    "The server accepts connections over TCP and over a local socket. Each connection is served by its own "
    "worker process.\n\n"
    "Determines the maximum number of concurrent connections to the database server. The default is "
    "typically 100 connections, but might be less if your kernel settings will not support it.\n\n"
    "Raising the limit costs shared memory for every extra connection slot."
)


def test_the_neighbour_that_states_the_value_is_quoted_with_the_sentence_it_completes() -> None:
    quote = _best("What is the default maximum number of concurrent connections?", SETTINGS_PAGE)
    assert "The default is typically 100 connections" in quote
    assert quote in SETTINGS_PAGE


GLOSSARY = (
    "Glossary\n\n"
    "TOAST\n\n"
    "TOAST is short for The Oversized-Attribute Storage Technique; it stores large field values out of line.\n\n"
    "History\n\n"
    "By 1996, it became clear that the name would not stand the test of time, so the project was renamed."
)


def test_an_acronym_question_quotes_the_expansion_not_a_sentence_sharing_a_word() -> None:
    quote = _best("What does TOAST stand for?", GLOSSARY, title="Glossary")
    assert "The Oversized-Attribute Storage Technique" in quote


LIMITS_TABLE = (
    "Limits\n\n"
    "The following table lists the limits of the storage engine.\n\n"
    "Item | Upper Limit | Comment\n\n"
    "database size | unlimited |\n\n"
    "field size | 1 GB |\n\n"
    "columns per table | 1600 | further limited by tuple size"
)


def test_an_answer_in_a_table_row_is_quoted_as_the_row() -> None:
    quote = _best("What is the maximum field size?", LIMITS_TABLE, title="Appendix K. Limits")
    assert quote == "field size | 1 GB |"


BACKENDS = (
    "Databases\n\n"
    "Feature | Memfile | MySQL | PostgreSQL\n\n"
    "Leases | yes | yes | yes\n\n"
    "Host reservations | no | yes | yes\n\n"
    "Sometimes a new version uses a newer database schema, so the existing database needs to be upgraded. This can be "
    "done using the kea-admin db-upgrade command."
)


def test_a_row_sharing_a_word_of_a_how_question_is_not_what_it_asks_about() -> None:
    """'Leases | yes | yes' is keyed by a word the question uses, as 'field size | 1 GB' is by the words a value
    question measures; but a question asking for the way to do something is not about a row's holder."""
    quote = _best("My lease database schema is too old. What command brings it up to date?", BACKENDS)
    assert "kea-admin db-upgrade" in quote


LISTED = (
    "Data types\n\n"
    "Each value stored in the database has one of the following storage classes:\n\n"
    "NULL. The value is a NULL value.\n\n"
    "INTEGER. The value is a signed integer.\n\n"
    "TEXT. The value is a text string.\n\n"
    "A storage class is more general than a datatype."
)


def test_a_list_question_quotes_the_lead_in_with_its_items() -> None:
    quote = _best("What are the storage classes of a value?", LISTED, title="Datatypes")
    assert quote.startswith("Each value stored in the database has one of the following storage classes:")
    assert "INTEGER. The value is a signed integer." in quote


ENCODINGS = (
    "Encoding\n\n"
    "The set encoding command selects a character encoding.\n\n"
    "Valid values are\n\n"
    "  default     - tells a terminal to use its default encoding\n"
    "  koi8r       - popular Unix cyrillic encoding\n"
    "  cp1252      - codepage for MS Windows\n\n"
    "Generally you must set the encoding before setting the terminal type."
)


def test_a_lead_in_that_ends_on_its_verb_is_quoted_with_its_items_and_heads_nothing() -> None:
    """'Valid values are' is as short as a heading, but its complement is the block below it."""
    found = candidates([Passage(source_id="s1", text=ENCODINGS, title="set encoding")])
    listed = [c for c in found if c.quote.startswith("Valid values are")]
    assert ["cp1252      - codepage for MS Windows" in c.quote for c in listed] == [True]
    assert all(c.heading != "Valid values are" for c in found)


SHELL_VARIABLES = (
    "HISTTIMEFORMAT\n\n"
    "If this variable is set and not null, its value is used as a format string for strftime to print the time "
    "stamp associated with each history entry.\n\n"
    "TIMEFORMAT\n\n"
    "The value of this parameter is used as a format string specifying how the timing information for pipelines "
    "prefixed with the time reserved word should be displayed.\n\n"
    "If this variable is not set, Bash acts as if it had the value\n\n"
    "$'\\nreal\\t%3lR\\nuser\\t%3lU\\nsys\\t%3lS'\n\n"
    "If the value is null, no timing information is displayed."
)


def test_a_sentence_that_ends_on_the_value_is_quoted_with_the_value_below_it() -> None:
    """'... acts as if it had the value' leads into its value, set apart as code, as 'Valid values are' does."""
    found = candidates([Passage(source_id="s1", text=SHELL_VARIABLES, title="Shell Variables")])
    assert any(c.quote.startswith("If this variable is not set") and "real" in c.quote for c in found)


def test_a_name_the_question_writes_is_not_found_inside_a_longer_name() -> None:
    """TIMEFORMAT is another variable than HISTTIMEFORMAT, though its letters stand inside it; words stand inside
    identifiers ('recursion' in 'setrecursionlimit'), names do not."""
    question = "What output format does the time keyword use when TIMEFORMAT is not set?"
    text = "If HISTTIMEFORMAT is not set, no format is used.\n\nIf TIMEFORMAT is not set, no format is used."
    passages = [Passage(source_id="s1", text=text, title="Shell Variables")]
    found = candidates(passages)
    other, own = candidate_features(question, SubQuestion(id="q1", text=question), passages, found, Embedder())
    assert other is not None and own is not None
    assert other.concepts < own.concepts
    assert "real" in _best(question, SHELL_VARIABLES)


def test_a_name_the_question_writes_is_found_where_a_converter_glued_digits_to_it() -> None:
    """LaTeX2HTML writes a math-mode name as '4#4rot_x5#5': the digits it glues on make no other name, where the
    letters before 'timeformat' in 'histtimeformat' do."""
    names = frozenset({"rot_x", "timeformat"})
    assert "rot_x" in _with_identifier_matches(terms_of("4#4rot_x5#5 is bounded"), ["rot_x"], whole=names)
    assert "timeformat" not in _with_identifier_matches(terms_of("histtimeformat"), ["timeformat"], whole=names)


FORMATS = (
    "Format Characters\n\n"
    "Format characters have the following meaning.\n\n"
    "Format | C Type | Python type | Standard size\n\n"
    "b | signed char | integer | 1\n\n"
    "c | char | bytes of length 1 | 1\n\n"
    "h | short | integer | 2\n\n"
    "q | long long | integer | 8"
)


def test_a_table_row_keyed_by_the_name_the_question_asks_about_wins() -> None:
    quote = _best("What is the standard size of the 'h' format character?", FORMATS, title="struct")
    assert quote == "h | short | integer | 2"


DIRECTIVES = (
    "Placeholders\n\n"
    "The placeholders expand to information extracted from the commit:\n\n"
    "%ad\n\nauthor date (format respects --date= option)\n\n"
    "%ar\n\nauthor date, relative\n\n"
    "%at\n\nauthor date, UNIX timestamp"
)


def test_a_definition_list_entry_is_a_candidate_with_its_term_and_keyed_by_it() -> None:
    found = candidates([Passage(source_id="s1", text=DIRECTIVES, title="git-log(1)")])
    entries = {c.quote: c for c in found if c.quote.startswith("%")}
    assert set(entries) == {
        "%ad\n\nauthor date (format respects --date= option)",
        "%ar\n\nauthor date, relative",
        "%at\n\nauthor date, UNIX timestamp",
    }
    names = names_in("What does the %ar placeholder print in git log formats?")
    assert key_fit(names, entries["%ar\n\nauthor date, relative"]) == (KEY_BONUS, 1.0)
    assert key_fit(names, entries["%at\n\nauthor date, UNIX timestamp"])[1] < 1.0
    assert not any(c.quote.startswith("Placeholders") for c in found), "a heading over prose is no entry"


ENVIRONMENT = (
    "Environment variables\n\n"
    "PYTHONHASHSEED\n\n"
    "If this variable is not set or set to random, a random value is used to seed the hashes of str and bytes "
    "objects. If PYTHONHASHSEED is set to an integer value, it is used as a fixed seed for generating the "
    "hash() of the types covered by the hash randomization.\n\n"
    "Its purpose is to allow repeatable hashing, such as for selftests for the interpreter itself.\n\n"
    "The integer must be a decimal number in the range [0,4294967295]. Specifying the value 0 will disable hash "
    "randomization.\n\n"
    "PYTHONIOENCODING\n\n"
    "If this is set before running the interpreter, it overrides the encoding used for stdin/stdout/stderr."
)


def test_a_sentence_that_leaves_its_subject_to_the_entry_term_still_answers() -> None:
    quote = _best("What values may the PYTHONHASHSEED environment variable be set to?", ENVIRONMENT)
    assert quote.startswith("The integer must be a decimal number in the range [0,4294967295].")


def test_an_option_entry_is_keyed_by_the_option_name_without_its_argument() -> None:
    text = "Options\n\n--depth <depth>\n\nCreate a shallow clone with a history truncated to that many commits."
    entry = next(c for c in candidates([Passage(source_id="s1", text=text)]) if c.heading == "--depth <depth>")
    assert key_fit(names_in("Does a clone made with --depth fetch all branches?"), entry)[0] > 0


STORAGE_TYPES = (
    "Storage\n\nThe following storage types and options are available:\n\n"
    "-s <default[,size]>\n\nThe default storage type resolves to umem where available and malloc otherwise.\n\n"
    "-s <malloc[,size]>\n\nmalloc is a memory based backend.\n\n"
    "-s <umem[,size]>\n\numem is a storage backend which is more efficient than malloc where it is available."
)


def test_an_option_whose_argument_has_brackets_heads_its_entry_and_is_an_item_of_a_lead_in() -> None:
    found = candidates([Passage(source_id="s1", text=STORAGE_TYPES)])
    assert {"-s <default[,size]>", "-s <malloc[,size]>", "-s <umem[,size]>"} <= {c.heading for c in found}
    spans = [c.quote for c in found if c.quote.startswith("The following storage types")]
    assert any("-s <malloc[,size]>\n\nmalloc is a memory based backend." in span for span in spans)


def test_a_row_keyed_by_a_name_too_short_to_search_for_is_still_evidence() -> None:
    table = (
        "Format substitutions\n\n"
        "Substitution | Meaning\n\n%d | day of month: 00\n\n%j | day of year: 001-366\n\n%W | week of year: 00-53"
    )
    quote = _best("In the strftime() function, what does the %W substitution produce?", table, title="Date functions")
    assert quote == "%W | week of year: 00-53"


def test_a_list_under_a_lead_in_ends_at_the_next_heading() -> None:
    text = (
        "LimitRequestBody\n\n"
        "To limit the size of an upload to 100K, you might use the following directive:\n\n"
        "LimitRequestBody 102400\n\n"
        "LimitRequestFields Directive\n\n"
        "Limits the number of HTTP request header fields."
    )
    spans = [c.quote for c in candidates([Passage(source_id="s1", text=text)])]
    assert not any("LimitRequestFields Directive" in span for span in spans)


def test_a_judged_answer_needs_the_question_s_concepts_not_only_a_value_of_its_kind() -> None:
    question = "What maximum line length does the tutorial's coding style advice recommend?"
    mail = Passage(
        source_id="s1",
        title="email.policy",
        text="Policies\n\nmax_line_length | The maximum length of lines in a serialized message. Defaults to 78.",
    )
    found = extract_evidence(question, SubQuestion(id="q1", text=question), [mail], 3, Embedder())
    assert all((item.answer or 0) < 0.75 for item in found)


def test_a_question_whose_concepts_hold_no_term_is_scored_without_failing() -> None:
    assert concept_coverage([Concept((), 1.0), Concept(("pool",), 1.0)], {"pool"}) == 1.0
    question = "Postfix VERP: stands for what?"
    text = "VERP\n\nVariable Envelope Return Paths (VERP) let a mailing list tell which recipient bounced."
    assert extract(question, question, [Passage(source_id="s1", title="VERP", text=text)])


def test_a_definition_question_that_points_back_defines_what_its_first_words_name() -> None:
    """'..., what exactly does it mean?' defines the term named before it: the glossary entry under it answers."""
    question = "When the Varnish manual talks about a backend, what exactly does it mean?"
    assert build_query(question, SubQuestion(id="q1", text=question)).subject == ["backend"]
    text = (
        "Varnish Glossary\n\nbackend\n\nThe HTTP server varnishd is caching for. This can be any sort of device that "
        "handles HTTP requests.\n\nbackend response\n\nThe response specifically served from a backend to varnishd."
    )
    quote = _best(question, text, title="Varnish Glossary")
    assert quote.startswith("The HTTP server varnishd is caching for.")


def test_a_statement_before_the_question_sets_the_scene_but_is_not_what_is_asked() -> None:
    question = "I'm reading HAProxy configs and keep seeing converters mentioned; what is a converter in HAProxy?"
    query = build_query(question, SubQuestion(id="q1", text=question))
    assert query.subject == ["convert"]
    assert {t for concept in query.concepts for t in concept.terms} == {"convert", "haproxi"}
    text = (
        "Converters\n\nA converter is a function applied to a sample to transform it before it is used. "
        "Reading the configuration shows converters after a sample fetch, separated by commas."
    )
    quote = _best(question, text, title="HAProxy configuration")
    assert quote.startswith("A converter is a function applied to a sample")
    # A question that needs its statement keeps it: 'it' is udev, and 'which is faster' names no sides.
    for kept in ("udev doesn't log enough to debug a rule; how do I make it more verbose?", "A vs B: which is faster?"):
        assert without_premise(kept) == kept


def test_a_definition_is_sure_under_its_term_and_only_likely_in_running_text() -> None:
    question = "What is a storage pool?"
    sentence = "A storage pool is a quantity of storage set aside by an administrator for use by virtual machines."
    glossary = Passage(source_id="s1", title="Glossary", text=f"Glossary\n\nstorage pool\n\n{sentence}")
    prose = Passage(
        source_id="s2",
        title="Managing guests",
        text=f"Disks for guests\n\nGuests need disks. {sentence} Volumes are carved out of it.",
    )

    def judged(passage: Passage) -> float:
        found = extract_evidence(question, SubQuestion(id="q1", text=question), [passage], 1, Embedder())
        assert found[0].quote.startswith("A storage pool is a quantity")
        return found[0].answer or 0.0

    assert judged(glossary) >= 0.99  # the entry under the term is where a manual defines it
    assert ANSWER_FOUND <= judged(prose) <= DEFINING_SENTENCE  # the same words anywhere else may mean otherwise


def test_a_definition_question_with_a_context_phrase_first_prefers_the_definition() -> None:
    text = (
        "Handlers\n\n"
        "This document describes the use of Apache's handlers.\n\n"
        "What is a Handler\n\n"
        'A "handler" is an internal representation of the action to be performed when a file is called. '
        "Handlers can be built into the server or included in a module."
    )
    quote = _best("In the Apache HTTP Server, what is a handler?", text, title="Apache's Handler Use")
    assert quote.startswith('A "handler" is an internal representation')


def test_a_section_titled_with_the_comparison_asked_about_answers_it() -> None:
    text = (
        "Overview\n\n"
        "FTS3 and FTS4 are virtual table modules that allow users to perform full-text searches on documents.\n\n"
        "Differences between FTS3 and FTS4\n\n"
        "FTS4 contains query performance optimizations that may significantly improve the performance of "
        "full-text queries that contain very common terms."
    )
    question = "What are the main differences between the FTS3 and FTS4 full-text search extensions?"
    found = extract_evidence(
        question, SubQuestion(id="q1", text=question), [Passage(source_id="s1", text=text)], 1, Embedder()
    )
    assert found[0].quote.startswith("FTS4 contains query performance optimizations")


def test_the_entries_of_two_compared_options_answer_and_a_section_of_other_words_does_not() -> None:
    text = (
        "Running the build\n\nRefer to the sphinx-build man page for all options that sphinx-build supports.\n\n"
        "Options\n\n-q\n\nDo not output anything on standard output, only write warnings and errors.\n\n"
        "-Q\n\nDo not output anything on standard output, also suppress warnings."
    )
    question = "What's the difference between running sphinx-build with -q and with -Q?"
    found = extract_evidence(
        question, SubQuestion(id="q1", text=question), [Passage(source_id="s1", text=text)], 3, Embedder()
    )
    assert "Do not output anything on standard output, also suppress warnings." in {e.quote for e in found}
    assert all(e.answer is None or e.answer < ANSWER_FOUND for e in found if "man page" in e.quote)


def test_a_sentence_that_names_neither_compared_option_loses_to_their_entries() -> None:
    text = (
        "Running the build\n\nRefer to the sphinx-build man page for all options that sphinx-build supports.\n\n"
        "Options\n\n-P\n\nRun the Python debugger, pdb, if an unhandled exception occurs while building.\n\n"
        "-q\n\nDo not output anything on standard output, only write warnings and errors to standard error.\n\n"
        "-Q\n\nDo not output anything on standard output, also suppress warnings.\n\n"
        "-quiet-mode\n\nRun sphinx-build quietly when building."
    )
    question = "What's the difference between running sphinx-build with -q and with -Q?"
    found = extract_evidence(
        question, SubQuestion(id="q1", text=question), [Passage(source_id="s1", text=text)], 2, Embedder()
    )
    assert {e.quote for e in found} == {
        "Do not output anything on standard output, only write warnings and errors to standard error.",
        "Do not output anything on standard output, also suppress warnings.",
    }


def test_the_api_entries_of_two_compared_members_answer_for_their_dotted_names() -> None:
    """'property text_direction' documents 'Layout.text_direction': the entry's kind word and its class aside."""
    text = (
        "class shelf.Layout(language)\n\nA layout for a language.\n\n"
        "property line_order\n\nThe order in which lines of the language are set.\n\n"
        "property separator\n\nThe character that separates the different parts of the layout strings.\n\n"
        "property text_direction\n\nThe direction of the language's text in CSS short-hand form."
    )
    question = "Layout.line_order vs Layout.text_direction — difference?"
    found = extract_evidence(
        question, SubQuestion(id="q1", text=question), [Passage(source_id="s1", text=text)], 2, Embedder()
    )
    assert {e.quote for e in found} == {
        "The order in which lines of the language are set.",
        "The direction of the language's text in CSS short-hand form.",
    }


def test_a_default_in_the_entry_of_another_option_is_not_the_asked_options() -> None:
    text = (
        "Options\n\n-8, --8bit\n\nThis flag is only needed with -Zf, as otherwise the tool defaults to an 8-bit "
        "packer anyway.\n\n-Zr, --read\n\nThe default setting is ‘-Zem’, the highest level of table packing the "
        "tool offers."
    )
    question = "If I don't pass any -Z flag, what level of table packing does the tool use?"
    found = extract_evidence(
        question, SubQuestion(id="q1", text=question), [Passage(source_id="s1", text=text)], 2, Embedder()
    )
    judged = {e.quote.split(",")[0]: e.answer or 0.0 for e in found}
    assert judged["The default setting is ‘-Zem’"] >= ANSWER_FOUND > judged["This flag is only needed with -Zf"]


def test_options_compared_with_their_command_written_twice_are_still_the_compared_sides() -> None:
    """'diff -b and diff -w': the command both sides name is no side; the options are."""
    text = (
        "Comparing files\n\nIf you think of diff as subtracting one file from another, diff shows their difference."
        "\n\nOptions\n\n-b\n\nIgnore changes in the amount of white space.\n\n-w\n\nIgnore all white space."
    )
    question = "What is the difference between diff -b and diff -w?"
    found = extract_evidence(
        question, SubQuestion(id="q1", text=question), [Passage(source_id="s1", text=text)], 2, Embedder()
    )
    entries = ("Ignore changes in the amount of white space.", "Ignore all white space.")
    assert all(any(e.quote.endswith(entry) for e in found) for entry in entries)


def test_options_compared_with_their_command_written_once_are_the_compared_sides() -> None:
    """'colorize -O vs -P': the command before the first option is no side; the two options are."""
    question = "colorize -O vs -P: what is the difference?"
    query = build_query(question, SubQuestion(id="q1", text=question))
    assert query.kind == "comparison" and query.sides == (("-O",), ("-P",))
    text = (
        "Options and filters\n\nColorize is a tool that colors source code for terminals and web pages.\n\n"
        "Since the -O option argument is split at commas, you cannot give a value that contains commas. Therefore, "
        "an option -P is provided that works like -O but can only pass one option per -P."
    )
    found = extract_evidence(
        question,
        SubQuestion(id="q1", text=question),
        [Passage(source_id="s1", title="The colorize command line", text=text)],
        1,
        Embedder(),
    )
    assert "works like -O but can only pass one option per -P" in found[0].quote


def test_the_page_on_the_asked_numbered_version_answers_and_the_other_versions_does_not() -> None:
    rows = (
        "Statistic | Type | Description\n\npkt{n}-parse-failed | integer | Number of packets that could not be parsed."
    )
    pages = [Passage(source_id=f"v{n}", title=f"The DHCPv{n} Server", text=rows.format(n=n)) for n in (6, 4)]
    question = "Which kea-dhcp4 statistic counts incoming packets that could not be parsed?"
    found = extract_evidence(question, SubQuestion(id="q1", text=question), pages, 1, Embedder())
    assert found[0].source_id == "v4"
    assert names_other_version(numbered_names(question), "The DHCPv6 Server")
    assert not names_other_version(numbered_names(question), "DHCPv4 and DHCPv6 servers")
    assert numbered_names("forward-socks5, ode45, IPv6, 3.12, rst2latex") == {
        "socks": frozenset({"5"}),
        "ode": frozenset({"45"}),
        "ip": frozenset({"6"}),
    }


def test_a_page_on_a_numbered_sibling_program_does_not_answer_for_the_unnumbered_one() -> None:
    sibling = "Use the label for the brackets. This option may be given up to three times, one for each input file."
    own = "To do this, use the --label=label option. If you give this option more than twice, diff reports an error."
    pages = [
        Passage(source_id="diff", title="Output Formats", text=own),
        Passage(source_id="diff3", title="Invoking diff3", text=sibling),
    ]
    question = "How many times can --label be given to diff?"
    found = extract_evidence(question, SubQuestion(id="q1", text=question), pages, 1, Embedder())
    assert found[0].source_id == "diff"
    assert names_numbered_sibling(question, "Invoking diff3")
    assert not names_numbered_sibling(question, "diff and diff3 compared")
    assert not names_numbered_sibling("How many times can --label be given to diff3?", "Invoking diff3")
    assert not names_numbered_sibling("How do I give the server an IP address?", "IPv6 addresses")


def test_a_question_after_a_code_line_is_an_faq_heading_not_the_lines_description() -> None:
    text = (
        "# now locks are removed\nmytable.drop(engine)\n\n"
        "Does SQLAlchemy support ALTER TABLE, CREATE VIEW, CREATE TRIGGER?\n\n"
        "General ALTER support isn't present in SQLAlchemy directly."
    )
    found = candidates([Passage(source_id="s1", text=text)])
    assert not any("mytable.drop(engine)" in c.quote for c in found)
    answer = next(c for c in found if c.quote.startswith("General ALTER"))
    assert answer.section == "Does SQLAlchemy support ALTER TABLE, CREATE VIEW, CREATE TRIGGER?"


def test_a_labelled_field_that_states_a_figure_is_evidence_not_a_heading() -> None:
    text = (
        "Project Information\n\nGet Help: please use the structlog tag on Stack Overflow\n\n"
        "Supported Python Versions: 3.7 and later\n\nPyPI\n\nSource Code"
    )
    found = {c.quote: c.heading for c in candidates([Passage(source_id="s1", text=text)])}
    assert found["Supported Python Versions: 3.7 and later"] == "Project Information"
    output = "Counting\n\n$ cli dist\n\nCount: 42\n\nThat is all of the output here."
    assert not any(c.quote == "Count: 42" for c in candidates([Passage(source_id="s1", text=output)]))
    question = "Which Python versions does structlog support?"
    passage = Passage(source_id="s1", title="structlog", text=text)
    found_evidence = extract_evidence(question, SubQuestion(id="q1", text=question), [passage], 1, Embedder())
    assert found_evidence[0].quote == "Supported Python Versions: 3.7 and later"


def test_the_last_line_of_a_code_example_or_its_output_heads_nothing() -> None:
    """'return "<MyObject>"' or "u'Deutschland'", alone on a line under an example, is code, not the term or title
    of the paragraph after it; a builtin's own entry ('return [n]') still heads its description."""
    for code in ('return "<MyObject>"', "raise NotImplementedError", "await resp.text()", "u'Deutschland'"):
        text = f"Advanced exclusion\n\nFor example:\n\n{code}\n\nExcluded code is executed as usual, and recorded."
        answer = next(c for c in candidates([Passage(source_id="s1", text=text)]) if c.quote.startswith("Excluded"))
        assert answer.heading != code
    text = "return [n]\n\nCauses a function to stop executing and return the value specified by n to its caller."
    answer = next(c for c in candidates([Passage(source_id="s1", text=text)]) if c.quote.startswith("Causes"))
    assert answer.heading == "return [n]"


def test_a_title_that_spells_out_an_abbreviation_its_text_uses_answers_what_it_stands_for() -> None:
    text = (
        "FFmpeg Automated Testing Environment\n\nIntroduction\n\n"
        "FATE is an extended regression suite on the client-side and a means for results aggregation."
    )
    question = "What does FATE stand for in FFmpeg development?"
    found = extract_evidence(
        question, SubQuestion(id="q1", text=question), [Passage(source_id="s", text=text)], 1, Embedder()
    )
    assert found[0].quote == "FFmpeg Automated Testing Environment"
    unused = "Frequently Asked Questions\n\nIntroduction\n\nThis page answers questions."
    assert not any(c.quote.startswith("Frequently") for c in candidates([Passage(source_id="s", text=unused)]))


def test_a_sentence_about_the_document_loses_to_one_about_the_subject() -> None:
    text = (
        "Virtual hosts\n\n"
        "This document describes how the server decides which virtual host serves a request.\n\n"
        "The host name of each request is compared with the ServerName of every host, and the first host "
        "that matches it is used."
    )
    quote = _best("How does the server decide which virtual host serves a request?", text, title="Virtual hosts")
    assert quote.startswith("The host name of each request is compared")


LIMITS = (
    "Limits\n\n"
    "The limits below apply to every installation.\n\n"
    "Item | Upper Limit\n\n"
    "database size | 32 TB\n\n"
    "field size | 1 GB\n\n"
    "rows per table | limited by the table size"
)


def test_a_row_keyed_by_the_words_the_question_uses_answers_it() -> None:
    quote = _best("What is the maximum field size?", LIMITS, title="Appendix K. Limits")
    assert quote == "field size | 1 GB"


def test_a_row_keyed_by_a_word_that_only_says_what_a_cell_is_is_not_keyed() -> None:
    table = "Directive\n\nDescription | Sets the timeout\n\nDefault: | Timeout 60"
    row = next(c for c in candidates([Passage(source_id="s1", text=table)]) if c.quote.startswith("Default"))
    question = "What is the default timeout?"
    assert key_fit(names_in(question), row, frozenset(content_terms(question)))[0] == 0.0


RESTARTS = Passage(
    source_id="s-stop",
    title="Stopping and Restarting",
    text=(
        "Graceful Restart\n\n"
        "Signal: USR1\n\n"
        "apachectl -k graceful\n\n"
        "The USR1 signal causes the parent process to advise the children to exit after their current request.\n\n"
        "Restart Now\n\n"
        "Signal: HUP\n\n"
        "apachectl -k restart\n\n"
        "Sending the HUP signal causes the parent to kill off its children, but the parent does not exit. "
        "As with a graceful restart, a syntax check is run before the restart is attempted."
    ),
)


def test_a_sentence_under_several_short_lines_stands_in_the_section_the_first_one_names() -> None:
    found = {c.focal[:20]: c for c in candidates([RESTARTS])}
    advice = found["The USR1 signal caus"]
    assert advice.heading == "apachectl -k graceful" and advice.section == "Graceful Restart"
    assert found["Sending the HUP sign"].section == "Restart Now"


def test_a_sentence_in_the_section_the_sub_question_names_outranks_its_twin_elsewhere() -> None:
    sentence = "The parent process advises the children to exit after their current request."
    text = f"Graceful Restart\n\nSignal: USR1\n\nkill -USR1 pid\n\n{sentence}\n\nOther Notes\n\n{sentence}"
    passages = [Passage(source_id="s1", title="Stopping", text=text)]
    found = candidates(passages)
    question = "What is the difference between a graceful restart and a normal restart?"
    sub_question = SubQuestion(id="q2", text="Overview of graceful restart")
    [(in_section, _), (elsewhere, _)] = score_candidates(question, sub_question, passages, found, Embedder())
    assert [c.section for c in found] == ["Graceful Restart", "Other Notes"]
    assert in_section > elsewhere


def test_a_contrast_for_a_comparison_names_both_sides_not_two_words_of_one() -> None:
    question = "What is the difference between a graceful restart and a normal restart of Apache httpd?"
    whole = build_query(question, SubQuestion(id="q1", text=question))
    one_side = build_query(question, SubQuestion(id="q2", text="Overview of graceful restart"))
    assert whole.kind == "comparison" and whole.sides == (("grace",), ("normal",))
    assert one_side.kind is None  # a sub-question about one side asks about it, not for a contrast


def test_the_last_line_of_a_table_of_contents_heads_what_follows() -> None:
    text = (
        "Contents\n\nIntroduction\n\nUsage\n\nLimits\n\nThe longest string is one billion bytes long, as the "
        "limits page says."
    )
    [found] = candidates([Passage(source_id="s1", text=text)])
    assert found.section == found.heading == "Limits"


HEADER_FORMATS = Passage(
    source_id="s-headers",
    title="mod_headers",
    text=(
        "Format | Description\n\n"
        "%t | The time the request was received in Universal Coordinated Time since the epoch.\n\n"
        "%D | The time from when the request was received to the time the headers are sent on the wire. This is a "
        "measure of the duration of the request.\n\n"
        "%l | The current load averages of the actual server itself."
    ),
)


def test_a_table_row_is_one_candidate_however_many_sentences_its_cells_hold() -> None:
    rows = [c.quote for c in candidates([HEADER_FORMATS]) if c.row]
    assert len(rows) == 3 and rows[1].startswith("%D | ") and rows[1].endswith("duration of the request.")


SUBSTITUTIONS_LONG_ROW = (
    "q, Q | The argument is a zero-terminated string. The string is printed with all single quote (') characters "
    "doubled so that the string can safely appear inside an SQL string literal. "
    + "The %Q substitution type also puts single-quotes on both ends of the substituted string. " * 6
    + "\n\n"
)
W_ROW = (
    'w | This substitution works like %q except that it doubles all double-quote characters (") instead of '
    "single-quotes, making the result suitable for using with a double-quoted identifier name in an SQL statement."
)


@pytest.mark.parametrize(
    "text",
    [
        SUBSTITUTIONS_LONG_ROW + W_ROW,  # after a row too long to read whole, which is read as sentences
        W_ROW + "\n\n2.2. The Optional Length Field",  # a chunk that begins inside the table
    ],
    ids=["below a long row", "opening a passage"],
)
def test_a_row_below_another_row_or_opening_a_passage_mid_table_is_data_not_a_header(text: str) -> None:
    passage = Passage(source_id="s-printf", chunk_id="printf#3", score=0.9, title="printf()", text=text)
    assert W_ROW in [c.quote for c in candidates([passage]) if c.row]


def test_a_which_question_is_answered_by_the_entry_line_that_names_one() -> None:
    stats = Passage(
        source_id="s-stats",
        chunk_id="stats#4",
        score=0.9,
        title="Management Guide",
        text=(
            "The statistics may be consulted either from the unix socket or from the HTTP page. Both means provide "
            "a CSV format whose fields follow.\n\n"
            "  14. eresp [..BS]: response errors.\n"
            "  15. wretr [..BS]: number of times a connection to a server was retried.\n"
        ),
    )
    question = "In the CSV statistics output, which column counts how many times a server connection was retried?"
    found = candidates([stats])
    features = candidate_features(question, SubQuestion(id="q1", text=question), [stats], found, Embedder(), None)
    answers = {c.quote.split()[0]: f.answer for c, f in zip(found, features, strict=True) if f is not None}
    assert answers["wretr"] == SELECTED_ROW and answers["The"] == 0.0


def test_a_short_verdict_is_quoted_with_the_sentence_that_explains_it() -> None:
    faq = Passage(
        source_id="s-faq",
        chunk_id="faq#2",
        score=0.9,
        text=(
            "How do I enable gzip compression globally for my entire application?\n\n"
            "It’s impossible. Choosing what to compress and what not to compress is a tricky matter.\n\n"
            "No. The server never retries."
        ),
    )
    quotes = [c.quote for c in candidates([faq])]
    assert "It’s impossible. Choosing what to compress and what not to compress is a tricky matter." in quotes
    assert "No. The server never retries." in quotes


def test_a_sentence_that_only_uses_a_term_under_its_heading_does_not_define_it() -> None:
    feeds = Passage(
        source_id="s-feeds",
        chunk_id="feeds#9",
        score=0.9,
        title="Feed exports",
        text=(
            "Delayed file delivery\n\n"
            "As indicated above, some of the described storage backends use delayed file delivery.\n\n"
            "These storage backends do not upload items to the feed URI as those items are scraped. Instead, items "
            "are written into a temporary local file, which is uploaded once the crawl ends."
        ),
    )
    question = "What does delayed file delivery mean?"
    [first, *_] = extract(question, question, [feeds])
    assert first.quote.startswith("These storage backends do not upload items")


def test_a_which_question_is_answered_by_the_description_under_a_term_line() -> None:
    tracing = Passage(
        source_id="s-tracing",
        chunk_id="tracing#3",
        score=0.9,
        title="Tracing Reference",
        text=(
            "on_request_end\n\n"
            "Property that gives access to the signals that will be executed when a request ends.\n\n"
            "on_connection_queued_start\n\n"
            "Property that gives access to the signals that will be executed when a request has been queued "
            "waiting for an available connection.\n\n"
        ),
    )
    question = "Which signal fires when a request waits for a free connection?"
    found = candidates([tracing])
    features = candidate_features(question, SubQuestion(id="q1", text=question), [tracing], found, Embedder(), None)
    answers = {c.heading: f.answer for c, f in zip(found, features, strict=True) if f is not None}
    assert answers["on_connection_queued_start"] == SELECTED_ROW


def test_a_list_of_ways_to_do_it_is_quoted_with_what_it_is_and_reads_as_a_list() -> None:
    deployment = Passage(
        source_id="s-deploy",
        chunk_id="deploy#5",
        score=0.9,
        title="Server Deployment",
        text=(
            "Supervisord\n\n"
            "It’s best to use some tool for starting the backends automatically after a system reboot or crash.\n\n"
            "There are many ways to do it: Supervisord, Upstart, Systemd, Gaffer, Circus, Runit etc.\n\n"
        ),
    )
    quote = (
        "It’s best to use some tool for starting the backends automatically after a system reboot or crash.\n\n"
        "There are many ways to do it: Supervisord, Upstart, Systemd, Gaffer, Circus, Runit etc."
    )
    assert quote in [c.quote for c in candidates([deployment])]
    question = "Which tools restart the backends after a reboot or a crash?"
    assert answer_strength(asked_for(question), quote, question) >= ANSWER_FOUND


def test_the_body_of_a_code_block_heads_nothing() -> None:
    signals = Passage(
        source_id="s-signals",
        chunk_id="signals#1",
        score=0.9,
        text=(
            "on_startup\n\n"
            "Signal handlers should have the following signature:\n\n"
            "async def on_startup(app):\n    pass\n\n"
            "A Signal that is fired on application start-up."
        ),
    )
    [fired] = [c for c in candidates([signals]) if c.quote.startswith("A Signal")]
    assert fired.section == "on_startup"


def test_a_row_of_short_names_opening_a_passage_is_its_table_header() -> None:
    passage = Passage(source_id="s", chunk_id="s#1", score=0.9, text=HEADER_FORMATS.text)
    assert all(c.heading.endswith("Format | Description") for c in candidates([passage]) if c.row)


def test_a_which_question_is_answered_by_the_row_its_other_cells_describe() -> None:
    question = "Which format specifier measures how long the request took until the headers are sent?"
    [first, *_] = extract(question, question, [HEADER_FORMATS])
    assert first.quote.startswith("%D | ") and (first.answer or 0) > 0


def test_names_the_question_sets_aside_do_not_key_the_row_that_answers() -> None:
    locks = Passage(
        source_id="s-locks",
        text=(
            "Lock | Meaning\n\n"
            "SHARED | The database may be read but not written.\n\n"
            "RESERVED | A RESERVED lock means that the process is planning on writing to the database file.\n\n"
            "EXCLUSIVE | An EXCLUSIVE lock is needed in order to write to the database file."
        ),
    )
    question = "Besides SHARED and EXCLUSIVE, what other lock states can a database file be in?"
    found = candidates([locks])
    features = candidate_features(question, SubQuestion(id="q1", text=question), [locks], found, Embedder())
    kept = [c.quote.split(" | ")[0] for c, f in zip(found, features, strict=True) if f is not None]
    assert kept == ["RESERVED"]


HOOKS = Passage(
    source_id="s-hooks",
    title="githooks(5)",
    text=(
        "pre-push\n\nThis hook is called by git push and can be used to prevent a push from taking place. "
        "Information about what is to be pushed is provided on the hook's standard input.\n\n"
        "pre-receive\n\nThis hook is invoked by git-receive-pack when it reacts to git push and updates "
        "reference(s) in its repository.\n\n"
        "post-receive\n\nThis hook is invoked by git-receive-pack when it reacts to git push and updates "
        "reference(s) in its repository.\n\n"
        "post-checkout\n\nThis hook is invoked when a git checkout is run after having updated the worktree."
    ),
)


def test_asked_types_are_the_singular_words_after_which() -> None:
    assert asked_types("Which hooks run on the remote repository when it receives a push?") >= {"hook"}
    assert {"format", "specifier"} <= asked_types("Which mod_headers format specifier adds the time taken?")
    assert asked_types("In which situations is a server better?") >= {"situation"}
    assert asked_types("How does the cache work?") == frozenset()


def test_a_list_of_things_named_by_their_sections_quotes_each_section_once() -> None:
    question = "Which hooks run on the remote repository when it receives a push?"
    evidence = extract(question, question, [HOOKS], limit=1)
    # The same words, said under two headings, are two items of the list; the section names each. A list
    # question takes two items more than the limit: its answer is several of them.
    assert len(evidence) == 1 + LIST_EXTRA_ITEMS
    assert [e.section for e in evidence[:2]] == ["pre-receive", "post-receive"]
    assert len({e.id for e in evidence}) == len(evidence)
    assert evidence[0].quote == evidence[1].quote


HOOK_FUNCTIONS = Passage(
    source_id="s-functions",
    title="Functions",
    text=(
        "Special Functions\n\nCertain functions, if defined, have special meaning to the shell.\n\n"
        "Hook Functions\n\nFor the functions below, it is possible to define an array that has the same name "
        "as the function with '_functions' appended.\n\n"
        "chpwd\n\nExecuted whenever the current working directory is changed.\n\n"
        "periodic\n\nIf the parameter PERIOD is set, this function is executed every $PERIOD seconds.\n\n"
        "precmd\n\nExecuted before each prompt.\n\n"
        "zshexit\n\nExecuted at the point where the main shell is about to exit normally."
    ),
)
OTHER_FUNCTIONS = Passage(
    source_id="s-widgets",
    title="Widgets",
    text=(
        "Widgets\n\nA widget is a function that the line editor runs when its key is pressed; user-defined "
        "widgets are shell functions that can be run automatically when the prompt is redrawn.\n\n"
        "The prompt theme functions are run by the prompt function when a theme is chosen."
    ),
)


def listed(passage: Passage, question: str) -> tuple[list[Candidate], dict[int, list[int]]]:
    """The passage's candidates, and the items below each sentence that announces a list, all equally relevant."""
    found = candidates([passage])
    return found, list_items([passage], found, [0.5] * len(found), asked_types(question))


def test_a_list_question_takes_the_items_under_the_sentence_that_announces_them() -> None:
    """The items of a list seldom repeat the words of a question about the list ('Executed before each prompt'
    does not say 'function'); the sentence that announces them does, and once it is taken its items follow."""
    question = "Which special functions can I define to have the shell run my code automatically at certain moments?"
    evidence = extract(question, question, [HOOK_FUNCTIONS, OTHER_FUNCTIONS], limit=2)
    sections = [e.section for e in evidence]
    assert sections[:4] == ["Special Functions", "chpwd", "periodic", "precmd"]
    found, items = listed(HOOK_FUNCTIONS, question)
    intros = {found[j].focal: [found[i].heading for i in listed] for j, listed in items.items()}
    # 'For the functions below ...' announces a list of its own, so it is no item of the first.
    assert intros["Certain functions, if defined, have special meaning to the shell."] == [
        "chpwd",
        "periodic",
        "precmd",
        "zshexit",
    ]


def test_a_sentence_announces_a_list_by_a_colon_the_following_or_the_asked_things_in_the_plural() -> None:
    types = asked_types("What states can the clock state machine be in?")
    assert announces("The state machine consists of five states.", types)
    assert announces("The options are:", frozenset())
    assert announces("Following is a short description of each.", frozenset())
    assert not announces("The state machine measures the roundtrip delay.", types)


def test_a_sentence_about_one_thing_of_the_asked_type_answers_which() -> None:
    question = "Which hooks run on the remote repository when it receives a push?"
    found = candidates([HOOKS])
    features = candidate_features(question, SubQuestion(id="q1", text=question), [HOOKS], found, Embedder())
    by_section = {c.section: f for c, f in zip(found, features, strict=True) if f is not None}
    assert by_section["post-receive"].answer == INSTANCE_ANSWER
    assert not names_instance(frozenset({"hook"}), next(c for c in found if c.focal.startswith("Information")))


LS_FILES = Passage(
    source_id="s-ls-files",
    title="git-ls-files(1)",
    text=(
        "OPTIONS\n\n-t\n\nThis option identifies the file status with the following tags (followed by a space) at "
        "the start of each line:\n\nH\n\ncached\n\nM\n\nunmerged\n\nK\n\nto be killed\n\n?\n\nother\n\n"
        "OUTPUT\n\ngit ls-files just outputs the filenames unless --stage is specified in which case it outputs:"
        "\n\n[<tag> ]<mode> <object> <stage> <file>"
    ),
)


def test_a_capital_letter_the_question_uses_is_a_name() -> None:
    assert letter_names("In the output of git ls-files -t, what does a file tagged K mean?") == {"K"}
    assert letter_names("What does 'D' mean?") == {"D"}
    assert letter_names("What does status M mean?") == {"M"}
    # Not a letter in other company: a word, a language, part of an abbreviation.
    assert letter_names("Is I/O slower in the C API than A or B?") == set()


def test_the_entry_keyed_by_the_letter_asked_about_defines_it() -> None:
    question = "In the output of git ls-files -t, what does a file tagged K mean?"
    [best, *_] = extract(question, question, [LS_FILES], limit=2)
    assert best.quote == "K\n\nto be killed"
    found = candidates([LS_FILES])
    features = candidate_features(question, SubQuestion(id="q1", text=question), [LS_FILES], found, Embedder())
    [entry] = [f for c, f in zip(found, features, strict=True) if c.quote == best.quote]
    assert entry is not None and entry.answer == KEYED_DEFINITION


def test_a_name_qualifying_the_asked_type_does_not_key_the_answer() -> None:
    index = Passage(
        source_id="s-index",
        title="Module Index",
        text="Module | Description\n\nmod_headers | Customization of HTTP request and response headers\n\n"
        "mod_log_config | Logging of the requests made to the server",
    )
    question = "Which mod_headers format specifier adds a measure of how long the request took?"
    assert asked_phrase(question) == "mod_headers format specifier"
    passages = [index, HEADER_FORMATS]
    [best, *_] = extract(question, question, passages, limit=2)
    assert best.quote.startswith("%D | ")
    found = candidates(passages)
    features = candidate_features(question, SubQuestion(id="q1", text=question), passages, found, Embedder())
    [module_row] = [f for c, f in zip(found, features, strict=True) if c.quote.startswith("mod_headers |")]
    assert module_row is None or module_row.bonus < KEY_BONUS  # not keyed by the name that only qualifies


def test_a_lead_in_is_quoted_with_the_table_it_introduces() -> None:
    text = (
        "LogLevel\n\nLogLevel adjusts the verbosity of the messages recorded in the error logs. The following levels "
        "are available, in order of decreasing significance:\n\nLevel | Description\n\nemerg | Emergencies - system "
        "is unusable.\n\nalert | Action must be taken immediately.\n\ncrit | Critical Conditions.\n\n"
        "When a particular level is specified, messages from all levels of higher significance are reported as well."
    )
    quote = _best("Which severity levels can the LogLevel directive be set to?", text, title="Core features")
    assert "The following levels are available" in quote and quote.endswith("crit | Critical Conditions.")


def test_a_setting_named_on_the_asked_one_is_a_sibling_not_the_answer() -> None:
    question = "What is Apache httpd's default Timeout, the time it waits for I/O before failing a request?"
    sibling = "RequestReadTimeout Directive\n\nDefault: | RequestReadTimeout header=20-40"
    assert setting_named(question, sibling) == "sibling"
    assert setting_named(question, "TimeOut Directive\n\nDefault: | TimeOut 60") != "sibling"  # the asked one itself
    assert setting_named(question, "timeout | 0 | Balancer timeout in seconds.") != "sibling"  # no setting's name
    assert setting_named("What is the default max_connections?", "superuser_reserved_connections: 3") == "sibling"
    assert setting_named("What is the default page size?", "The default page_size is 4096.") != "sibling"


def test_the_default_of_a_sibling_setting_is_not_judged_an_answer() -> None:
    sibling = Passage(
        source_id="s-reqtimeout",
        title="mod_reqtimeout",
        text="RequestReadTimeout Directive\n\nDescription: | Set timeout values for receiving request headers\n\n"
        "Default: | RequestReadTimeout handshake=0 header=20-40,MinRate=500 body=20,MinRate=500",
    )
    question = "What is Apache httpd's default Timeout, the time it waits for I/O before failing a request?"
    found = candidates([sibling])
    features = candidate_features(question, SubQuestion(id="q1", text=question), [sibling], found, Embedder())
    [row] = [f for c, f in zip(found, features, strict=True) if c.quote.startswith("Default: |")]
    assert row is not None and row.answer <= SIBLING_FIT < ANSWER_FOUND  # a value, but not the asked one's


POOL_PARAMETERS = Passage(
    source_id="s-pool",
    title="Connection Pooling",
    text=(
        "Parameters\n\n"
        "pool_size – The size of the pool to be maintained, defaults to 5.\n\n"
        "max_overflow – The maximum overflow size of the pool. When the number of checked-out connections reaches "
        "the size set in pool_size, additional connections will be returned up to this limit. It follows that the "
        "total number of connections the pool will allow is pool_size + max_overflow. Defaults to 10."
    ),
)


def test_a_value_in_another_parameters_entry_is_that_parameters() -> None:
    text = POOL_PARAMETERS.text
    assert entry_owner(text, text.index("It follows")) == "max_overflow"
    assert entry_owner(text, text.index("The size of")) == "pool_size"
    assert entry_owner(text, 0) is None  # a heading names no entry
    question = "What is the default pool_size of the connection pool?"
    [best, *_] = extract(question, question, [POOL_PARAMETERS])
    assert best.quote.startswith("pool_size – ")  # not max_overflow's sentence that mentions pool_size twice


def test_only_a_question_about_what_a_name_means_takes_its_entry_as_the_answer() -> None:
    question = "In the output of git ls-files -t, what is a file tagged K?"
    found = candidates([LS_FILES])
    features = candidate_features(question, SubQuestion(id="q1", text=question), [LS_FILES], found, Embedder())
    [entry] = [f for c, f in zip(found, features, strict=True) if c.quote == "K\n\nto be killed"]
    assert entry is not None and entry.answer < KEYED_DEFINITION


def test_a_setting_named_for_the_asked_measure_is_the_asked_one_not_a_sibling() -> None:
    size = "What is the default maximum size of a message?"
    assert setting_named(size, "message_size_limit (default: 10240000)") != "sibling"
    connections = "What is the default maximum number of concurrent connections?"
    assert setting_named(connections, "max_connections (integer)") != "sibling"
    assert setting_named(connections, "superuser_reserved_connections (integer): the default is 3") == "sibling"
    files = "How are new log files created if no creation mode is configured?"
    assert setting_named(files, "The FileCreateMode directive") != "sibling"  # "file" for "files"


POSTCONF = Passage(
    source_id="s-postconf",
    title="Configuration parameters",
    text=(
        "mailbox_size_limit (default: 51200000)\n\n"
        "The maximal size of any local individual mailbox or maildir file, or zero (no limit).\n\n"
        "message_size_limit (default: 10240000)\n\n"
        "The maximal size in bytes of a message, including envelope information.\n\n"
        "smtp_connection_cache_reuse_limit (default: 100)\n\n"
        "The maximal number of times a connection may be reused. This is much larger than the default version "
        "2.2 limit of 10 messages per cached connection."
    ),
)


def test_a_description_under_an_annotated_term_line_is_quoted_with_it() -> None:
    question = "What is the default maximum size of a message?"
    [best, *_] = extract(question, question, [POSTCONF])
    assert best.quote == (
        "message_size_limit (default: 10240000)\n\nThe maximal size in bytes of a message, including envelope "
        "information."
    )


FAQ = Passage(
    source_id="s-faq",
    title="Backscatter Howto",
    text=(
        "Topics covered in this document:\n\n"
        "What is backscatter mail?\n\nHow do I block backscatter mail?\n\nBlocking backscatter mail from virus "
        "scanners\n\n"
        "The examples use regular expressions.\n\n"
        "What is backscatter mail?\n\n"
        "When a spammer sends mail with forged sender addresses, innocent sites are flooded with undeliverable "
        "mail notifications. This is called backscatter mail.\n\n"
        "Blocking backscatter mail from virus scanners\n\n"
        "Recognizing virus scanner mail is an error prone process, because report formats vary."
    ),
)


def test_a_question_heading_heads_its_section_and_the_naming_sentence_defines() -> None:
    question = "What is backscatter mail?"
    sections = {c.focal: c.section for c in candidates([FAQ])}
    assert sections["This is called backscatter mail."] == "What is backscatter mail?"
    [best, *_] = extract(question, question, [FAQ])
    assert "This is called backscatter mail." in best.quote


NUMBERED_FAQ = Passage(
    source_id="s-rfaq",
    title="R FAQ",
    text=(
        "[3,] 0.900000000000000022\n\n-1.110223e-16\n\n"
        "7.32 How can I capture or ignore errors in a long simulation?\n\n"
        "Use try(), which returns an object of class try-error instead of an error, or preferably tryCatch()."
    ),
)


def test_a_long_numbered_question_heads_its_section_and_a_line_of_output_heads_nothing() -> None:
    """FAQ headings are questions, often longer than titles; a decimal on a line of its own is a program's output."""
    sections = {c.focal: c.section for c in candidates([NUMBERED_FAQ])}
    assert sections[NUMBERED_FAQ.text.rsplit("\n\n", 1)[1]] == (
        "How can I capture or ignore errors in a long simulation?"
    )


SETTINGS = Passage(
    source_id="s-settings",
    title="Write ahead log",
    text=(
        "checkpoint_timeout (integer)\n\n"
        "Maximum time between automatic WAL checkpoints. If this value is specified without units, it is taken as "
        "seconds. The valid range is between 30 seconds and one day. The default is five minutes (5min). "
        "Increasing this parameter can increase the amount of time needed for crash recovery.\n\n"
        "checkpoint_completion_target (floating point)\n\n"
        "Specifies the target of checkpoint completion, as a fraction of total time between checkpoints. The "
        "default is 0.9, which spreads the checkpoint across almost all of the available interval."
    ),
)


def test_an_entry_that_names_its_subject_first_and_its_default_last_is_quoted_whole() -> None:
    question = "How much time passes between automatic WAL checkpoints by default?"
    [best, *_] = extract(question, question, [SETTINGS])
    assert best.quote.startswith("checkpoint_timeout (integer)\n\nMaximum time between automatic WAL checkpoints.")
    assert best.quote.endswith("The default is five minutes (5min).")


def test_a_row_naming_its_setting_is_judged_by_that_name_not_by_the_heading_above_it() -> None:
    question = "How long does the server wait for the next request on a persistent connection, by default?"
    text = "Default: | KeepAliveTimeout 5"
    passage = Passage(source_id="s-core", text=text)
    row = Candidate(0, 0, len(text), text, text, "MaxKeepAliveRequests Description: | Number of requests", row=True)
    features = candidate_features(question, SubQuestion(id="q1", text=question), [passage], [row], Embedder())
    assert features[0] is not None and features[0].answer == 1.0
    # The heading alone would have judged it a sibling.
    assert setting_named(question, "MaxKeepAliveRequests") == "sibling"


OPTION_ENTRIES = Passage(
    source_id="s-options",
    title="Main configuration",
    text=(
        "receive_timeout | Use: main | Type: time | Default: 0s\n\n"
        "This option sets the timeout for accepting a non-SMTP message, that is, the maximum time that the server "
        "waits when reading a message on the standard input.\n\n"
        "message_size_limit | Use: main | Type: string | Default: 50M\n\n"
        "This option limits the maximum size of message that the server will process.\n\n"
        "recipients_max | Use: main | Type: integer | Default: 50000\n\n"
        "If this option is set greater than zero, it specifies the maximum number of original recipients for any "
        "message."
    ),
)


def test_an_option_entry_written_as_a_row_of_fields_heads_its_description() -> None:
    """Reference manuals lay out each option as a lone row ('name | Use: main | Type: integer | Default: 50000')
    above its description: the description is quoted with it, so the default stands in the quote."""
    question = "By default, what is the maximum number of original recipients for a single message?"
    [best, *_] = extract(question, question, [OPTION_ENTRIES])
    assert best.quote.startswith("recipients_max | Use: main | Type: integer | Default: 50000\n\n")
    by_focal = {c.focal: c for c in candidates([OPTION_ENTRIES])}
    assert by_focal["This option limits the maximum size of message that the server will process."].lead


def test_a_size_is_not_answered_by_a_default_time() -> None:
    question = "What is the largest message the server will accept by default?"
    [best, *_] = extract(question, question, [OPTION_ENTRIES])
    assert "Default: 50M" in best.quote


LOG_FLAGS = Passage(
    source_id="s-log",
    title="Log files",
    text=(
        "Log lines can readily be picked out by the distinctive two-character flags that follow the timestamp. "
        "The flags are:\n\n"
        "<= | message arrival\n\n=> | normal message delivery\n\n-> | additional address in same delivery\n\n"
        "** | delivery failed; address bounced\n\n== | delivery deferred; temporary problem"
    ),
)


def test_a_table_keyed_by_symbols_answers_a_question_that_names_one() -> None:
    question = "In the main log, what does the two-character flag == after the timestamp indicate?"
    assert "==" in names_in(question)
    rows = [c.quote for c in candidates([LOG_FLAGS]) if c.row]
    assert "-> | additional address in same delivery" in rows, "a row's symbols are its first cell, no list marker"
    [best, *_] = extract(question, question, [LOG_FLAGS])
    assert best.quote == "== | delivery deferred; temporary problem"


SIZE_ENTRIES = [
    Passage(
        source_id="s-headers",
        title="Main configuration",
        text=(
            "headers_charset | Use: main | Type: string | Default: unset\n\n"
            "This option sets the character set in which the server will accept a message's header lines.\n\n"
            "header_maxsize | Use: main | Type: integer | Default: 1M\n\n"
            "This option controls the overall maximum size of a message's header section."
        ),
    ),
    Passage(
        source_id="s-limits",
        title="Main configuration",
        text=(
            "message_size_limit | Use: main | Type: string | Default: 50M\n\n"
            "This option limits the maximum size of message that the server will process."
        ),
    ),
]


def test_a_setting_named_with_the_questions_own_words_holds_the_asked_value() -> None:
    """'header_maxsize' is about a part of a message; 'message_size_limit' is made of the question's word and
    measure words only, so its default is the one asked for."""
    question = "What is the largest message the server will accept by default?"
    assert setting_named(question, "message_size_limit | Use: main | Default: 50M") == "asked"
    assert setting_named(question, "header_maxsize | Use: main | Default: 1M") != "asked"
    found = candidates(SIZE_ENTRIES)
    features = candidate_features(question, SubQuestion(id="q1", text=question), SIZE_ENTRIES, found, Embedder())
    bonus = {c.quote.split(" |")[0]: f.bonus for c, f in zip(found, features, strict=True) if f and c.lead}
    assert bonus["message_size_limit"] >= bonus["header_maxsize"] + OWN_SETTING_BONUS
    [best, *_] = extract(question, question, SIZE_ENTRIES)
    assert "Default: 50M" in best.quote


ACRONYM_ENTRY = Passage(
    source_id="s-prdr",
    title="Main configuration",
    text=(
        "The PRDR ACL is available only when the server is built with PRDR support. It becomes active only when "
        "PRDR is negotiated between client and server, and PRDR then runs for each recipient.\n\n"
        "prdr_enable | Use: main | Type: boolean | Default: false\n\n"
        "This option can be used to enable the Per-Recipient Data Response extension to SMTP. If the option is "
        "set, PRDR is advertised by the server."
    ),
)


def test_an_option_named_after_an_acronym_spells_it_out_as_its_entry() -> None:
    """Neither a sibling setting's value nor a row keyed by another name: 'prdr_enable' is PRDR's own entry,
    and a sentence that only uses the acronym does not say what it stands for."""
    question = "What does PRDR stand for?"
    [best, *_] = extract(question, question, [ACRONYM_ENTRY])
    assert "Per-Recipient Data Response" in best.quote


CACHE_ENTRIES = Passage(
    source_id="s-reference",
    title="Configuration reference",
    text=(
        "max-stale-ttl\n\n"
        "Grammar: max-stale-ttl <duration>;\n\n"
        "Blocks: options, view\n\n"
        "Tags: server\n\n"
        "If retaining stale answers is enabled, max-stale-ttl sets the maximum time for which the server keeps "
        "answers in its cache past their normal expiry. The default is 1 day.\n\n"
        "max-store-ttl\n\n"
        "Grammar: max-store-ttl <duration>;\n\n"
        "Blocks: options, view\n\n"
        "Tags: server\n\n"
        "Specifies the longest time that the resolver caches ordinary positive answers.\n\n"
        "Suffixes such as 1h or 1d may be used to give the value.\n\n"
        "The default max-store-ttl is 604800 (one week)."
    ),
)


def test_labelled_field_lines_under_a_term_line_do_not_head_its_description() -> None:
    """'Blocks: options, view' and 'Tags: server' are the entry's metadata: the term line above still heads
    the sentences under them."""
    found = candidates([CACHE_ENTRIES])
    assert {c.heading for c in found} == {"max-stale-ttl", "max-store-ttl"}
    described = next(c for c in found if c.focal.startswith("Specifies the longest time"))
    assert described.lead


def test_a_value_stated_paragraphs_below_an_entry_s_description_answers_what_the_entry_describes() -> None:
    question = "By default, what is the longest time a resolver keeps an ordinary positive answer in its cache?"
    [best, *_] = extract(question, question, [CACHE_ENTRIES])
    assert best.quote == "The default max-store-ttl is 604800 (one week)."


def test_a_short_last_line_of_a_paragraph_heads_nothing() -> None:
    text = (
        "sync_interval (integer)\n\n"
        "Check for updates at least this often in milliseconds. Range: [10-60000], default 2000\n\n"
        "This parameter is primarily of concern on nodes that originate replication sets."
    )
    found = candidates([Passage(source_id="s-config", text=text)])
    assert {c.heading for c in found} == {"sync_interval (integer)"}
    numbered = "It affects performance.\n\n9.2. Changing the Serial Number\n\nSerial numbers are just numbers."
    assert {c.heading for c in candidates([Passage(source_id="s-guide", text=numbered)])} == {
        "Changing the Serial Number"
    }


def test_a_short_statement_without_its_full_stop_is_a_sentence_not_a_heading() -> None:
    text = (
        "Names\n\nIt helps to know some Russian words:\n\nslon is Russian for elephant\n\nslony is the plural of slon"
    )
    found = candidates([Passage(source_id="s-names", text=text)])
    assert any(c.quote.endswith("slon is Russian for elephant\n\nslony is the plural of slon") for c in found)
    assert {c.heading for c in found} == {"Names"}


def test_an_expansion_question_asks_of_the_abbreviation_and_its_other_words_only_say_where_it_was_seen() -> None:
    question = "The IPv6 section mentions SLAAC; what does that stand for?"
    concepts = build_query(question, SubQuestion(id="q1", text=question)).concepts
    assert (concepts[0].terms, concepts[0].weight) == (("slaac",), 1.0)
    assert all(c.weight < 1.0 and "slaac" not in c.terms and "stand" not in c.terms for c in concepts[1:])
    sentence = "This allows Stateless Address Autoconfiguration (SLAAC) to pick an address from the MAC address."
    passage = Passage(source_id="s-ipv6", title="IPv6", text=f"{sentence} It needs no server.")
    [found] = extract(question, question, [passage], limit=1)
    assert found.quote.startswith(sentence)


def test_sections_of_other_shapes_below_a_lead_in_are_no_items_of_its_list() -> None:
    text = (
        "Format\n\ncron recognizes some abbreviations in a crontab entry: @yearly, @monthly and @weekly.\n\n"
        "SPECIAL CASE cron and daylight savings time\n\nIn Debian, cron takes the time change into account.\n\n"
        "Restart the proxy after each boot\n\nTo execute a command once after booting, use the @reboot macro.\n\n"
        "ALTERNATIVE Emulating cron with timers\n\nTimers can emulate part of cron's behaviour."
    )
    cron = Passage(source_id="s-cron", title="cron", text=text)
    assert listed(cron, "Which abbreviations does cron recognize?")[1] == {}


def test_a_sentence_with_its_items_on_lines_below_it_takes_no_entries_further_down_as_items() -> None:
    text = (
        "log_level (integer)\n\nThere are nine log message levels:\n\nFatal\n\nError\n\nWarn\n\nInfo\n\n"
        "pid_file (string)\n\nWhere the process id is written.\n\nmonitor_interval (integer)\n\nHow often status is "
        "queued.\n\nsync_interval (integer)\n\nHow often a SYNC is checked for."
    )
    slon = Passage(source_id="s-slon", title="slon", text=text)
    assert listed(slon, "What log message levels can slon produce?")[1] == {}
    # Without its lines, the entries below are still its own entry's siblings, not the levels it speaks of.
    siblings = Passage(source_id="s-slon-2", title="slon", text=text.replace("Fatal\n\nError\n\nWarn\n\nInfo\n\n", ""))
    assert listed(siblings, "What log message levels can slon produce?")[1] == {}


def test_a_comment_line_of_a_code_example_is_no_candidate() -> None:
    """'# Keep the response in cache for 4 hours if the response has' explains the example, not the product (and
    is cut across its lines); a heading marked with '#' over prose still heads it."""
    text = (
        "You can keep an object for validation by setting beresp.keep in vcl_backend_response:\n\n"
        "sub vcl_backend_response {\n  # Keep the response in cache for 4 hours if the response has\n"
        "  # validating headers.\n  if (beresp.http.ETag) {\n    set beresp.keep = 4h;\n  }\n}\n\n"
        "A stale object is not removed from the cache for the duration of beresp.keep.\n\n"
        "# Installing\n\nRun the installer to set up the service on your machine."
    )
    found = candidates([Passage(source_id="s1", text=text)])
    assert not any("4 hours" in c.quote for c in found)
    assert any(c.heading == "Installing" and c.quote.startswith("Run the installer") for c in found)


def test_the_lines_of_a_code_example_head_nothing_under_it() -> None:
    text = (
        "A naive implementation might look like this:\n\n"
        "for k = 1:n\n  for i = 1:n\n    dist(i,:) = min (dist(i,:), dist(i,k) + dist(k,:));\n  endfor\nendfor\n\n"
        "Using broadcasting in both directions, it looks like this.\n\n"
        "Broadcasting\n\nBroadcasting refers to how binary operators behave when their operands differ in size."
    )
    found = {c.quote: c.heading for c in candidates([Passage(source_id="s1", text=text)])}
    assert found["Using broadcasting in both directions, it looks like this."] == ""
    assert found[next(q for q in found if q.startswith("Broadcasting refers"))] == "Broadcasting"


def test_a_lead_ins_list_of_sentences_ends_at_the_next_sections_title() -> None:
    text = (
        "Two new settings help mitigate denial-of-service attacks via large requests:\n\n"
        "DATA_UPLOAD_MAX_MEMORY_SIZE limits the size that a request body may be.\n\n"
        "DATA_UPLOAD_MAX_NUMBER_FIELDS limits the number of GET/POST parameters that are parsed.\n\n"
        "Miscellaneous\n\nThe repr() of a QuerySet is wrapped in angle brackets to tell it from a list."
    )
    quotes = [c.quote for c in candidates([Passage(source_id="s1", text=text)]) if c.quote.startswith("Two new")]
    assert any("NUMBER_FIELDS" in quote for quote in quotes)
    assert not any("Miscellaneous" in quote for quote in quotes)


def test_a_lead_in_is_quoted_with_the_short_line_it_introduces_not_alone() -> None:
    text = (
        "Special names\n\nSphinx reserves some document names for its own use; you should not try to create "
        "documents with these names.\n\nThe special document names (and pages generated for them) are:\n\n"
        "genindex, modindex, search\n\nThese are used for the general index, the module index and the search page."
    )
    found = candidates([Passage(source_id="s1", text=text)])
    assert any("are:\n\ngenindex, modindex, search" in c.quote for c in found)  # no heading of its own
    question = "Which document names are reserved, so that I should not create files with them?"
    quotes = [e.quote for e in extract(question, question, [Passage(source_id="s1", text=text)], limit=3)]
    assert any("genindex" in quote for quote in quotes)


def test_a_heading_that_spells_out_an_abbreviation_is_a_quote_of_its_own() -> None:
    text = (
        "Breaking Threads\n\nThreads can be broken apart.\n\n"
        "Delivery Status Notification (DSN) Support\n\nRFC1894 defines a set of MIME content types."
    )
    found = candidates([Passage(source_id="s1", text=text)])
    assert any(c.quote == "Delivery Status Notification (DSN) Support" and c.heading == "" for c in found)
    assert not any(c.quote == "Breaking Threads" for c in found)
    question = "What does DSN stand for?"
    assert extract(question, question, [Passage(source_id="s1", text=text)])[0].quote.startswith("Delivery Status")
    numeronym = "Extension internationalization (i18n) and localization (l10n)\n\nNew in version 1.8."
    question = "What does l10n abbreviate?"
    assert extract(question, question, [Passage(source_id="s1", text=numeronym)])[0].quote == numeronym.split("\n")[0]


def test_a_value_among_an_entrys_fields_is_read_with_the_description_below_them() -> None:
    text = (
        "sendmail\n\nType: path\nDefault: “/usr/sbin/sendmail -oem -oi”\n\n"
        "Specifies the program and arguments used to deliver mail sent by Mutt."
    )
    passage = Passage(source_id="s1", text=text)
    found = candidates([passage])
    described = dict(zip([c.quote for c in found], entry_descriptions([passage], found), strict=True))
    assert described["Default: “/usr/sbin/sendmail -oem -oi”"].startswith("Specifies the program")


def test_a_sentence_that_tells_what_to_do_is_the_shape_of_a_step() -> None:
    question = "I want my client to use NTS. What do I have to change in my configuration?"
    step = shape_bonus("procedure", "Append the keyword nts to the end of your server lines.", question, [], set())
    told = shape_bonus("procedure", "To see more, run udevadm control --log-priority=info.", question, [], set())
    described = shape_bonus("procedure", "As of August 2022, the following servers should work:", question, [], set())
    assert step > described and told > described


def test_a_field_of_an_entrys_values_is_a_candidate_keyed_by_the_entry() -> None:
    """A reference entry's fields ('thread_pools' / 'Units: pools' / 'Default: 2' / 'Maximum: 32') hold its
    values: each is quoted under the entry's term, which keys it as a table row's first cell keys the row."""
    text = (
        "thread_pools\n\nUnits: pools\n\nDefault: 2\n\nMinimum: 1\n\nMaximum: 32\n\nFlags: delayed\n\n"
        "Number of worker thread pools.\n\nIncreasing the number of worker pools decreases lock contention."
    )
    found = candidates([Passage(source_id="s1", text=text)])
    maximum = next(c for c in found if c.quote == "Maximum: 32")
    assert maximum.heading == "thread_pools" and row_key(maximum) == "thread_pools"
    assert not any(c.quote == "Units: pools" for c in found)  # a unit is no value


def test_an_entrys_labelled_fields_are_quoted_under_its_term_and_none_is_a_heading() -> None:
    """DocBook variable lists, as the reader joins each label to its value: 'Type of value: File name relative to
    ca-directory' has no full stop but is a field, not the heading of the fields below it."""
    text = (
        '7.7.7. trusted-cas-file\n\nSpecifies: The trusted CAs file in ".pem" format.\n\n'
        "Type of value: File name relative to ca-directory\n\nDefault value: trustedCAs.pem\n\n"
        "Effect if unset: Default value is used.\n\nNotes: This directive names the file of trusted CAs."
    )
    found = candidates([Passage(source_id="s1", text=text)])
    assert {c.heading for c in found} == {"trusted-cas-file"}
    default = next(c for c in found if c.quote == "Default value: trustedCAs.pem")
    question = "What file name does the proxy expect by default for the bundle of trusted CAs?"
    assert answer_strength(asked_for(question), default.quote, question) == 1.0
    # The label's 'if unset' says when the default applies; it is not the default's value.
    unset = "Effect if unset: Default value is used."
    assert answer_strength(asked_for(question), unset, question) < ANSWER_FOUND


def test_a_numbered_heading_starts_its_own_section_after_the_last_example_line_before_it() -> None:
    text = (
        "This is equivalent to the following line:\n\npermit-access [::ffff:192.0.2.0]/120\n\n"
        "7.4.8. buffer-limit\n\nSpecifies: Maximum size of the buffer for content filtering.\n\n"
        "Effect if unset: Use a 4MB (4096 KB) limit."
    )
    found = candidates([Passage(source_id="s1", text=text)])
    unset = next(c for c in found if c.quote.startswith("Effect if unset"))
    assert (unset.section, unset.heading) == ("buffer-limit", "buffer-limit")


def test_a_call_with_a_literal_in_an_example_heads_nothing() -> None:
    text = (
        "Here is an example handler that echos back all received messages back to the client:\n\n"
        "class EchoWebSocket(tornado.websocket.WebSocketHandler):\n    def open(self):\n"
        '        print("WebSocket opened")\n\n    def on_close(self):\n        print("WebSocket closed")\n\n'
        "WebSockets are not standard HTTP connections. The handshake is HTTP, but the protocol is message-based."
        "\n\nsetConfig(key, value)\n\nSets a configuration setting for key with the given value."
    )
    found = candidates([Passage(source_id="s1", text=text)])
    assert not any("WebSocket" in c.heading for c in found)
    assert next(c for c in found if "Sets a configuration" in c.quote).heading == "setConfig(key, value)"


PROMPT_ESCAPES = Passage(
    source_id="s-prompt",
    title="Prompt Expansion",
    text=(
        "Shell state\n\n%#\n\nA '#' if the shell is running with privileges, a '%' if not.\n\n"
        "%?\n\nThe return status of the last command executed just before the prompt.\n\n"
        "%n\n\nThe name of the user logged in to the shell."
    ),
)


def test_a_definition_list_keyed_by_symbols_answers_a_question_that_writes_or_spells_one() -> None:
    headings = {c.focal: c.heading for c in candidates([PROMPT_ESCAPES])}
    assert headings["The return status of the last command executed just before the prompt."] == "%?"
    assert names_in("What does %# show in a prompt?") == {"%#"}
    assert "!" in names_in("What does an exclamation mark after the queue ID mean?")
    question = "What does %# show in a prompt?"
    [best, *_] = extract(question, question, [PROMPT_ESCAPES])
    assert best.quote.startswith("A '#' if the shell is running with privileges")


MAN_PAGE_OPTIONS = Passage(
    source_id="postqueue.1.html",
    title="postqueue(1)",
    text=(
        "       -p     Produce a traditional sendmail-style queue listing.  This option\n"
        "              implements the traditional  mailq  command.\n\n"
        "              Each  queue entry shows the queue file ID, message size, arrival\n"
        "              time, sender, and the recipients that still need to be delivered.\n\n"
        "              !      The message is in the hold queue, i.e. no further  deliv-\n"
        "                     ery  attempt  will  be  made  until the mail is taken off\n"
        "                     hold.\n\n"
        "       -v     Enable  verbose  logging  for  debugging  purposes.\n"
    ),
)


def test_a_man_page_entry_is_keyed_by_the_term_in_its_first_column() -> None:
    found = candidates([MAN_PAGE_OPTIONS])
    by_focal = {c.focal.split()[0]: c for c in found if c.lead}
    assert by_focal["-p"].heading == "-p" and by_focal["-v"].heading == "-v"
    held = next(c for c in found if "hold queue" in c.focal)
    assert (held.heading, held.lead) == ("!", True)
    assert held.quote.startswith("!      The message is in the hold queue"), "the symbol is quoted with its entry"
    justified = next(c for c in found if c.focal.startswith("Each  queue"))
    assert justified.heading == "-p", "two spaces after a justified line's first word make no entry"
    example = "drop   condition = ${if > {$rcpt_count}{20}}\n       message   = I don't take more than 20 RCPTs\n"
    assert hanging_term(example, 0) == "", "a configuration example's line is no entry"
    question = "In the output of mailq, what does an exclamation mark after the queue ID mean?"
    [best, *_] = extract(question, question, [MAN_PAGE_OPTIONS])
    assert "hold queue" in best.quote


PROBE_LEGEND = Passage(
    source_id="vsl.html",
    title="VSL",
    text=(
        "Backend_health\n\nThe window shows the probe's recent history, one bit per check.\n\n"
        "When the backend is just created, the window bits for checks that have not run yet appear as '-'.\n\n"
        "Probe window bits are:\n\n'-': Could not connect\n'x': Error Xmit\n'X': Good Xmit\n'r': Error Recv\n"
        "'R': Good Recv\n\nThe probe window is shown by backend.list -p."
    ),
)


def test_a_spelled_letter_names_the_legend_line_keyed_by_it() -> None:
    assert "X" in names_in("What does a capital X in the probe window mean?")
    assert "d" in names_in("What does the letter d in the flags column stand for?")
    assert not names_in("Is a small change to the window allowed?")
    question = "In the health-check history, what does a capital X in the probe window mean?"
    [best, *_] = extract(question, question, [PROBE_LEGEND])
    assert "'X': Good Xmit" in best.quote


def test_a_lead_in_is_quoted_with_what_it_introduces_up_to_the_next_lead_in() -> None:
    """'...without stopping the daemon:' alone answers no how-to question; the command under it does. A second
    lead-in opens its own list, and a label in front of a lead-in ('Answer:') does not make it a field line."""
    text = (
        "Reloading the data server\n\n"
        "Depending on your configuration, you may be able to do this without stopping the upsd daemon:\n\n"
        "upsd -c reload\n\nIf that does not work, just restart it:\n\nupsd -c stop\n\n"
        "How do I purge all waiting tasks?\n\n"
        "Answer: You can use the purge command to purge all configured task queues:\n\n$ celery -A proj purge"
    )
    quotes = [c.quote for c in candidates([Passage(source_id="s", title="Manual", text=text)])]
    assert "Depending on your configuration, you may be able to do this without stopping the upsd daemon:" not in quotes
    assert (
        "Depending on your configuration, you may be able to do this without stopping the upsd daemon:\n\n"
        "upsd -c reload"
    ) in quotes
    assert not any(q.startswith("Depending") and "restart" in q for q in quotes)
    assert "If that does not work, just restart it:\n\nupsd -c stop" in quotes
    answer = "Answer: You can use the purge command to purge all configured task queues:"
    assert f"{answer}\n\n$ celery -A proj purge" in quotes


def test_a_default_that_opens_a_paragraph_of_fields_is_quoted_under_its_entry() -> None:
    """Docutils writes each setting's fields as one paragraph ('Default: severe (4). Options: --halt.'); the
    default was no sentence of its own, so the entry's value could never be quoted."""
    text = (
        "halt_level\n\nThe threshold at or above which system messages are converted to exceptions, halting "
        "execution immediately.\n\nDefault: severe (4). Options: --halt, --strict.\n\nid_prefix\n\n"
        "Prefix prepended to all identifier keys.\n\nNote: see above. Default: none."
    )
    found = candidates([Passage(source_id="s", title="Configuration", text=text)])
    assert [(c.quote, c.heading) for c in found if "Default" in c.quote] == [("Default: severe (4).", "halt_level")]


def test_a_lead_in_without_its_items_ranks_below_the_same_words_as_a_statement() -> None:
    """A span ending on its colon promises what it does not hold; the span with its items holds it."""
    question = "What does the name slonik mean?"
    sub_question = SubQuestion(id="q1", text=question)
    words = "The name slonik has a meaning worth knowing in Russian"
    scores = {}
    for end in (":", "."):
        passage = Passage(source_id="s", title="slonik", text=f"{words}{end}")  # the chunk ends on the colon
        found = candidates([passage])
        scored = score_candidates(question, sub_question, [passage], found, Embedder())
        scores[end] = next(score for c, (score, _) in zip(found, scored, strict=True) if c.quote.startswith(words))
    assert scores[":"] == pytest.approx(scores["."] * LEAD_IN_ALONE_FIT, rel=0.05)


def test_a_counted_place_names_the_numbered_row() -> None:
    assert "7" in names_in("In the clockstats lines, what does the seventh column count?")
    assert "3" in names_in("What does the 3rd field hold?")
    assert not names_in("What is the first step?")


def test_the_question_as_asked_keeps_its_nearest_sentences_when_few_reach_the_floor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    passage = Passage(
        source_id="s1",
        text="Appending i makes a prefix binary.\n\nAppending B multiplies by eight.\n\nAppending K means 1000.",
    )
    near = [(0.25, 0.0), (0.1, 0.0)]
    monkeypatch.setattr(extraction, "score_candidates", lambda *args, **kwargs: near + [(0.1, 0.0)] * len(args[3][2:]))
    question = "How does Ki differ from K?"
    asked = SubQuestion(id="q1", text=question)
    [kept] = extraction.extract_evidence(question, asked, [passage], 3, Embedder())
    assert kept.quote == "Appending i makes a prefix binary."
    aspect = SubQuestion(id="q2", text="Overview of Ki")
    assert extraction.extract_evidence(question, aspect, [passage], 3, Embedder()) == []  # an aspect stays empty
    near[1] = (0.22, 0.0)  # the next nearest is quoted too
    kept_two = extraction.extract_evidence(question, asked, [passage], 3, Embedder())
    assert [e.quote for e in kept_two] == ["Appending i makes a prefix binary.", "Appending B multiplies by eight."]
    near[:] = [(0.15, 0.0), (0.15, 0.0)]
    assert extraction.extract_evidence(question, asked, [passage], 3, Embedder()) == []
    near[:] = [(0.33, 0.0), (0.29, 0.0)]  # one above the floor: the answer just below it is no less near
    kept_both = extraction.extract_evidence(question, asked, [passage], 3, Embedder())
    assert [e.quote for e in kept_both] == ["Appending i makes a prefix binary.", "Appending B multiplies by eight."]
    assert [e.quote for e in extraction.extract_evidence(question, aspect, [passage], 3, Embedder())] == [
        "Appending i makes a prefix binary."
    ]


def test_what_is_an_acronym_is_answered_by_its_definition_when_no_page_spells_it_out() -> None:
    """'What is NUT?' asks what the thing is as much as what the letters stand for: the format's own description
    answers it, ahead of the page's title over its table of contents (navigation, never an entry)."""
    page = Passage(
        source_id="s",
        title="NUT",
        text=(
            "NUT\n\nTable of Contents\n\n1 Description\n\n2 Modes\n\n3.5 Codecs\n\n1 Description\n\n"
            "NUT is a low overhead generic container format. It stores audio, video, subtitle and user-defined "
            "streams in a simple, yet efficient, way.\n\nIt was created by a group of developers in 2003."
        ),
    )
    assert not any("Table of Contents" in c.quote for c in candidates([page]))
    [best, *_] = extract("What is NUT?", "What is NUT?", [page])
    assert best.quote.startswith("NUT is a low overhead generic container format.")
    assert best.answer == pytest.approx(0.75)  # less sure than a spelled-out name would make it


def test_a_term_line_that_ends_on_its_default_heads_the_description_and_is_keyed_by_its_term() -> None:
    """Help files head each option with its names, type and default ("'updatetime' 'ut'  number  (default 4000)"),
    and link to tags with bars ('see |crash-recovery|'): the head line is the option's default, keyed by its
    term, and the description under it is read under that term, not the option's above."""
    text = (
        "\t\t\t\t\t\t*'updatecount'* *'uc'*\n'updatecount' 'uc'\tnumber\t(default: 200)\n\t\t\tglobal\n"
        "\tAfter typing this many characters the swap file will be written to\n\tdisk.\n\n\n"
        "\t\t\t\t\t\t*'updatetime'* *'ut'*\n'updatetime' 'ut'\tnumber\t(default 4000)\n\t\t\tglobal\n"
        "\tIf this many milliseconds nothing is typed the swap file will be\n"
        "\twritten to disk (see |crash-recovery|).  Also used for the\n\t|CursorHold| autocommand event.\n"
    )
    found = candidates([Passage(source_id="s1", text=text)])
    head = next(c for c in found if "(default 4000)" in c.quote)
    assert head.heading == "'updatetime'" and row_key(head) == "updatetime"
    described = next(c for c in found if c.quote.startswith("If this many milliseconds"))
    assert described.heading == "'updatetime'"
    question = "What is Vim's default 'updatetime' value?"
    assert answer_strength(asked_for(question), head.quote, question) == 1.0


def test_a_sentence_announcing_the_following_things_is_quoted_with_them_whatever_its_last_mark() -> None:
    text = (
        "b\n\nSet bitrate in bits per second. Only the following bitrates are supported, otherwise the encoder will "
        "round to the nearest valid bitrate.\n\n4750\n\n5150\n\n5900\n\n6700\n\n12200\n\ndtx\n\n"
        "Allow discontinuous transmission (generate comfort noise) when set to 1. The default value is 0 (disabled)."
    )
    question = "Which bitrates does the AMR-NB encoder support?"
    found = candidates([Passage(source_id="s1", text=text)])
    listed = [c.quote for c in found if c.quote.startswith("Only the following") and "12200" in c.quote]
    assert listed and answer_strength(asked_for(question), listed[0], question) == 1.0


def test_a_glossary_terms_short_entry_is_quoted_with_its_term() -> None:
    text = (
        "Glossary\n\nconcrete model\n\nA non-abstract (abstract=False) model.\n\nfield\n\n"
        "An attribute on a model; a given field usually maps directly to a single database column."
    )
    quotes = [c.quote for c in candidates([Passage(source_id="s1", text=text)])]
    assert "concrete model\n\nA non-abstract (abstract=False) model." in quotes


def test_a_default_path_in_the_next_sentence_is_quoted_with_the_sentence_naming_the_setting() -> None:
    """A path in prose is a value, not code: 'Default is /var/state/ups.' completes the sentence before it."""
    text = (
        "--with-statepath=PATH\n\nChange the default location of the state sockets created by the drivers to "
        "interact with the data server upsd. Default is /var/state/ups.\n\n"
        "The NUT_STATEPATH environment variable overrides this at run time."
    )
    question = "Where do the drivers create their state sockets by default?"
    found = extract(question, question, [Passage(source_id="s", text=text)], 1)
    assert found[0].quote.endswith("Default is /var/state/ups.")
    assert answer_strength(asked_for(question), "Default is /var/state/ups.", question) == 1.0


def test_a_sentence_announcing_the_following_things_is_quoted_through_its_paragraph_to_them() -> None:
    """'The following routines are available for ... .' is a whole sentence whose paragraph goes on before the
    routines come: it was neither quoted with them nor alone, so the page's answer to 'how do I scan a string
    in memory?' was never a candidate."""
    text = (
        "The following routines are available for scanning in-memory strings instead of files. All of them "
        "create a new input buffer.\n\nFunction: yy_scan_string ( const char *str )\n\nscans a NUL-terminated "
        "string.\n\nAnother chapter begins here with a long paragraph of prose that has nothing to do with the "
        "routines above, which goes on and on about other things entirely, well past the length of an item, "
        "so that it cannot be taken for one of the items of the list above it, however it is read by anyone."
    )
    quotes = [c.quote for c in candidates([Passage(source_id="s", title="Buffers", text=text)])]
    assert any(q.startswith("The following routines") and q.endswith("scans a NUL-terminated string.") for q in quotes)


def test_labelled_items_under_a_lead_in_are_one_list_not_headings() -> None:
    text = (
        'For an app called "Foo Bar", the following folders could be returned:\n\n'
        "Mac OS X: ~/Library/Application Support/Foo Bar\n\nUnix: ~/.config/foo-bar\n\n"
        "Windows: C:\\Users\\<user>\\AppData\\Roaming\\Foo Bar\n\nParameters\n\napp_name - the application name."
    )
    quotes = [c.quote for c in candidates([Passage(source_id="s", title="API", text=text)])]
    assert any(q.startswith("For an app") and "Unix: ~/.config/foo-bar" in q and "Windows" in q for q in quotes)
    assert not any(q.startswith("For an app") and "Parameters" in q for q in quotes)


def test_an_faq_question_with_an_abbreviation_heads_its_answer() -> None:
    text = (
        "Which file types, attributes, etc. are not preserved?\n\nUNIX domain sockets (they are meaningless "
        "without the process that created them).\n\nSome filesystem specific attributes, like btrfs NOCOW."
    )
    found = candidates([Passage(source_id="s", title="FAQ", text=text)])
    first = next(c for c in found if c.quote.startswith("UNIX domain sockets"))
    assert first.heading == "Which file types, attributes, etc. are not preserved?" and first.lead


def test_a_texinfo_table_item_in_quotes_heads_its_short_description() -> None:
    """Texinfo quotes a table's item, aliases and all ('‘--ansi-definitions, %option ansi-definitions’'); the line
    was no term line, so its description ('Deprecated, ignored') was taken for a heading and never quoted."""
    text = (
        "‘--ansi-definitions, %option ansi-definitions’\n\nDeprecated, ignored\n\n"
        "‘-b, --backup, %option backup’\n\ngenerates backing-up information to lex.backup."
    )
    found = candidates([Passage(source_id="s", title="Options", text=text)])
    assert "‘--ansi-definitions, %option ansi-definitions’\n\nDeprecated, ignored" in [c.quote for c in found]
    backup = next(c for c in found if c.quote.endswith("lex.backup."))
    assert backup.heading == "‘-b, --backup, %option backup’"


def test_a_parameter_entry_keeps_its_name_before_the_sentence_that_goes_on_describing_it() -> None:
    """An API reference's 'priority (int) – Message priority. A number between 0 and 9.': the range alone names
    nothing the question asks about."""
    text = (
        "Parameters\n\nrouting_key (str) – Message routing key.\n\n"
        "priority (int) – Message priority. A number between 0 and 9.\n\n"
        "content_type (str) – Content type. Default is auto-detect."
    )
    found = candidates([Passage(source_id="s", title="Producer", text=text)])
    assert "priority (int) – Message priority. A number between 0 and 9." in [c.quote for c in found]
    assert "A number between 0 and 9." not in [c.quote for c in found]


def test_an_attribute_line_is_the_value_a_question_naming_it_asks_for_by_default() -> None:
    question = "Redis transport visibility_timeout default?"
    text = "Channel\n\nunacked_mutex_expire = 300\n\nvisibility_timeout = 3600\n\nclass SentinelChannel(*args)"
    passage = Passage(source_id="s", title="Redis transport", text=text)
    found = candidates([passage])
    assert {"unacked_mutex_expire = 300", "visibility_timeout = 3600"} <= {c.quote for c in found}
    scored = score_candidates(question, SubQuestion(id="q1", text=question), [passage], found, Embedder())
    answers = {c.quote: answer for c, (_, answer) in zip(found, scored, strict=True)}
    assert answers["visibility_timeout = 3600"] == 1.0
    assert answers["unacked_mutex_expire = 300"] < ANSWER_FOUND


def test_a_spelled_out_acronym_is_evidence_though_the_acronym_is_not_written_beside_it() -> None:
    question = "The cache class is called LRUCache. What does the LRU part refer to?"
    text = (
        "class LRUCache(limit=None)\n\nLRU Cache implementation using a doubly linked list to track access.\n\n"
        "limit (int) – The maximum number of keys to keep in the cache. When a new key is inserted and the limit "
        "has been exceeded, the Least Recently Used key will be discarded from the cache."
    )
    passage = Passage(source_id="s", title="kombu.utils.functional", text=text)
    found = candidates([passage])
    scored = score_candidates(question, SubQuestion(id="q1", text=question), [passage], found, Embedder())
    spelled = [answer for c, (_, answer) in zip(found, scored, strict=True) if "Least Recently Used" in c.quote]
    assert spelled and max(spelled) >= ANSWER_FOUND


def test_a_name_given_to_a_counterpart_keeps_the_sentence_the_counterpart_is_of() -> None:
    text = (
        "Strings in the environment are restricted to ISO-8859-1 code points. If a string might contain other "
        "characters, it must first be decoded to bytes as ISO-8859-1, then encoded using the proper charset. The "
        "reverse is done when writing to the environ. This is known as the “WSGI encoding dance”."
    )
    found = candidates([Passage(source_id="s", title="WSGI", text=text)])
    named = [c.quote for c in found if c.focal.startswith("This is known as")]
    assert named and named[0].startswith("If a string might contain other characters")


def test_a_setting_sharing_only_a_unit_with_the_question_is_no_sibling() -> None:
    question = "If a message is never acknowledged, how many seconds pass by default before it is sent to another?"
    assert setting_named(question, "peek_lock_seconds - Number of seconds the message is visible. Default 60") is None
    timeout = "What is the default request timeout?"
    assert setting_named(timeout, "RequestReadTimeout 20") == "sibling"  # built on the asked thing itself


def test_a_default_closing_an_entry_line_is_quoted_with_the_entry() -> None:
    text = (
        "Transport Options\n\nwait_time_seconds - Number of seconds to wait to receive messages. Default 5\n\n"
        "peek_lock_seconds - Number of seconds the message is visible for before it is sent to another consumer. "
        "Default 60\n\nqueue_name_prefix - String prefix to prepend to queue names."
    )
    found = candidates([Passage(source_id="s", title="Azure Service Bus", text=text)])
    quotes = [c.quote for c in found]
    assert "wait_time_seconds - Number of seconds to wait to receive messages. Default 5" in quotes
    assert any(q.startswith("peek_lock_seconds") and q.endswith("Default 60") for q in quotes)


def test_an_attribute_entry_is_quoted_with_its_description_and_a_configuration_example_is_not() -> None:
    """An API reference's 'thread_pool = 10' over 'The number of worker threads ...' is one entry, headed by the
    attribute; the lines of a configuration example ('tools.caching.delay = 3600') describe nothing below them."""
    text = (
        "Usage\n\nConfiguration file example:\n\n[/]\ntools.caching.on = True\ntools.caching.delay = 3600\n\n"
        "You may use a class other than the default MemoryCache by supplying the config entry cache_class.\n\n"
        "thread_pool = 10\n\nThe number of worker threads to start up in the pool.\n\n"
        "thread_pool_max = -1\n\nThe maximum size of the worker-thread pool."
    )
    found = {c.quote: c.heading for c in candidates([Passage(source_id="s1", text=text)])}
    assert found["thread_pool = 10\n\nThe number of worker threads to start up in the pool."] == "thread_pool"
    assert found["thread_pool_max = -1\n\nThe maximum size of the worker-thread pool."] == "thread_pool_max"
    assert not any(quote.startswith("tools.caching.delay = 3600\n") for quote in found)
    question = "How many worker threads does the server start in its pool by default?"
    passage = Passage(source_id="s1", title="cherrypy._cpserver", text=text)
    [best] = extract_evidence(question, SubQuestion(id="q1", text=question), [passage], 1, Embedder())
    assert best.quote.startswith("thread_pool = 10")


def test_what_an_interactive_session_prints_heads_nothing_and_a_keyword_argument_may_open_prose() -> None:
    text = (
        ">>> transform = etree.XSLT(honk_doc, access_control=ac)\nResolved url honk:test as prefix honk\n"
        ">>> result = transform(normal_doc)\n\nThere are a few things to keep in mind:\n\n"
        "read_file=False does not imply write_file=False, all controls are independent.\n\n"
        "read_file only applies to files in the file system."
    )
    found = {c.quote: c.heading for c in candidates([Passage(source_id="s1", text=text)])}
    assert "read_file=False does not imply write_file=False, all controls are independent." in found
    assert found["read_file only applies to files in the file system."] != "Resolved url honk:test as prefix honk"


def test_a_row_keyed_by_the_abbreviation_but_not_spelling_it_out_is_no_expansion() -> None:
    """For what 'cET' stands for, benchmark rows keyed 'cET:' are uses of it, whatever passage ranks first; the
    sentence that spells it out answers."""
    rows = (
        "Here are some timings from the benchmarking suite:\n\n"
        "lxe: parse_bytesIO (SAXR T1) 14.2074 msec/pass\ncET: parse_bytesIO (SAXR T1) 7.9336 msec/pass\n\n"
        "lxe: parse_bytesIO (S-XR T3) 1.4477 msec/pass\ncET: parse_bytesIO (S-XR T3) 2.1925 msec/pass"
    )
    intro = (
        "This text describes where lxml.etree (abbreviated to 'lxe') excels, gives hints on some performance traps "
        "and compares the overall performance to the original ElementTree (ET) and cElementTree (cET) libraries."
    )
    passages = [Passage(source_id="s1", text=rows, score=0.9), Passage(source_id="s2", text=intro, score=0.1)]
    question = "Every benchmark row starts with 'lxe' or 'cET'. What do these two labels stand for?"
    [best] = extract_evidence(question, SubQuestion(id="q1", text=question), passages, 1, Embedder())
    assert "cElementTree (cET)" in best.quote
    found = candidates(passages)
    features = candidate_features(question, SubQuestion(id="q1", text=question), passages, found, Embedder())
    row = next(f for c, f in zip(found, features, strict=True) if c.quote.startswith("Here are some timings"))
    assert row is not None and row.bonus < KEY_BONUS  # no bonus for the key it shares with the question


def test_a_change_logs_heading_that_dates_a_release_is_a_fact_of_its_own() -> None:
    text = "Changelog\n\n22.1.0 - 2022-07-28\n\nBackwards-incompatible Changes\n\nPython 2.7 is not supported anymore."
    assert "22.1.0 - 2022-07-28" in [c.quote for c in candidates([Passage(source_id="s1", text=text)])]
