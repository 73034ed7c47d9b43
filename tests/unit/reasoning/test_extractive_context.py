"""Sentences that rely on their surroundings: a term line above a definition, a subject named once."""

from __future__ import annotations

from research_assistant.reasoning.extractive.extraction import extract_evidence
from research_assistant.reasoning.extractive.vectors import Embedder
from research_assistant.schemas import Evidence, Passage, SubQuestion
from research_assistant.text.figures import counts_asked_thing, numbers_in

GLOSSARY = Passage(
    source_id="S-glossary",
    title="Glossary",
    score=0.02,
    text=(
        "GIL\n\nSee global interpreter lock.\n\nglobal interpreter lock\n\n"
        "The mechanism used by the CPython interpreter to assure that only one thread executes Python bytecode "
        "at a time. Locking the entire interpreter makes it easier for the interpreter to be multi-threaded, at "
        "the expense of much of the parallelism afforded by multi-processor machines."
    ),
)
IMPORT_DOCS = Passage(
    source_id="S-imp",
    title="imp — Access the import internals",
    score=0.03,
    text=(
        "imp.acquire_lock()\n\nAcquire the interpreter’s global import lock for the current thread.\n\n"
        "imp.release_lock()\n\nRelease the interpreter’s global import lock."
    ),
)
OVERVIEW = Passage(
    source_id="S-overview",
    title="The Halvorsby Tram Network",
    score=0.03,
    text=(
        "# The Halvorsby Tram Network\n\nThe Halvorsby Tram Network is the light-rail system of the city of "
        "Halvorsby. The network opened on 14 September 1987. Today it consists of six lines with a combined "
        "route length of 42.5 km.\n\nThe proposed Line 7 would connect the Halvorsby Tram Network to the airport."
    ),
)


def evidence(question: str, passages: list[Passage]) -> list[Evidence]:
    return extract_evidence(question, SubQuestion(id="q1", text=question), passages, 3, Embedder(None))


def test_a_glossary_definition_under_its_term_line_answers_what_is() -> None:
    found = evidence("What is the global interpreter lock?", [IMPORT_DOCS, GLOSSARY])
    assert found[0].source_id == "S-glossary"
    assert found[0].quote.startswith("The mechanism used by the CPython interpreter")


def test_a_figure_for_the_counted_thing_answers_how_many() -> None:
    found = evidence("How many lines does the Halvorsby tram network have?", [OVERVIEW])
    assert "six lines" in found[0].quote


def test_a_date_answers_when_even_without_repeating_the_subjects_name() -> None:
    found = evidence("When did the Halvorsby tram network open?", [OVERVIEW])
    assert "The network opened on 14 September 1987." in found[0].quote  # alone, or after the naming sentence
    assert found[0].quote in OVERVIEW.text


def test_figures_written_as_words_count_but_not_one() -> None:
    assert numbers_in("six lines and 42.5 km") == ["42.5", "6"]
    assert numbers_in("one of the lines") == []
    assert numbers_in("If you give this option more than twice, diff reports an error.") == ["2"]
    assert numbers_in("Once it starts, it runs.") == []


def test_counting_matches_the_noun_that_was_asked_about() -> None:
    assert counts_asked_thing("How many trams are in the fleet?", "The fleet has 48 low-floor trams.")
    assert not counts_asked_thing("How many lines are there?", "The proposed Line 7 would open in 2029.")


def test_a_number_that_names_something_is_not_a_count() -> None:
    from research_assistant.reasoning.extractive.shapes import shape_bonus

    question = "How many passengers used the trams?"
    assert shape_bonus("number", "The proposed Line 7 would serve the airport.", question, [], set()) == 0.0
    assert shape_bonus("number", "In 2023 the trams carried 31.4 million passengers.", question, [], set()) > 0


def test_a_version_note_does_not_outrank_the_description() -> None:
    docs = Passage(
        source_id="S-sys",
        title="sys — System-specific parameters and functions",
        text=(
            "sys.setrecursionlimit(limit)\n\nSet the maximum depth of the Python interpreter stack to limit.\n\n"
            "Changed in version 3.5.1: A RecursionError exception is now raised if the new limit is too low at "
            "the current recursion depth."
        ),
    )
    found = evidence("What is the maximum recursion depth and how can it be changed?", [docs])
    assert found[0].quote.endswith("Set the maximum depth of the Python interpreter stack to limit.")


def test_a_figure_with_its_unit_written_against_it_is_a_figure() -> None:
    assert numbers_in("Default: 50M, retried for 5d, cached for 3600s or 100KiB") == ["50", "5", "3600", "100"]
    assert numbers_in("a 2xx code, the 3rd try") == []


API_REFERENCE = Passage(
    source_id="S-api",
    title="API Reference",
    score=0.03,
    text=(
        "To make it easy for you, the library comes with the class structlog.BoundLoggerBase which takes care of "
        "all data binding duties so you just add your own logging methods.\n\n"
        "class structlog.BoundLoggerBase(logger, processors, context)[source]\n\nImmutable context carrier.\n\n"
        "Doesn’t do any actual logging; examples for useful subclasses are listed below.\n\n"
        "class psycopg2.sql.Identifier(*strings)\n\n"
        "A Composable representing an SQL identifier or a dot-separated sequence."
    ),
)


def test_an_api_entry_defines_its_class_by_the_line_under_its_signature_however_short() -> None:
    found = evidence("What is structlog.BoundLoggerBase, in one phrase?", [API_REFERENCE])
    assert found[0].quote.endswith("Immutable context carrier.")
    found = evidence("What exactly does sql.Identifier stand for?", [API_REFERENCE])
    assert found[0].quote.endswith("A Composable representing an SQL identifier or a dot-separated sequence.")
    from research_assistant.reasoning.extractive.candidates import candidates

    status = (
        "exception werkzeug.exceptions.Gone(description=None, response=None)\n\n410 Gone\n\n"
        "Raise if a resource existed previously and went away without new location."
    )
    assert not any("410 Gone" in c.quote for c in candidates([Passage(source_id="s", text=status)]))  # a label


def test_a_table_row_that_names_the_asked_api_in_a_later_cell_is_about_it() -> None:
    table = Passage(
        source_id="S-deprecated",
        title="Deprecation",
        score=0.03,
        text=(
            "Deprecated | Removed | Feature name | Upgrade suggestion and comments\n"
            "1.0.0 | 1.1.0 | QueryParser::parse_query() throwing const char * exception. | Catch "
            "Xapian::QueryParserError instead of const char *.\n"
            "1.1.0 | 1.3.0 | Enquire::register_match_decider() | This method didn't do anything, so just remove calls "
            "to it!\n"
            "1.1.0 | 1.3.0 | Deprecated code that calls Database::keep_alive() | Call the new Database::reopen() "
            "instead, which old code should call now.\n"
            "1.3.6 | 1.5.0 | Xapian::WritableDatabase::flush() | Use Xapian::WritableDatabase::commit() instead "
            "(available since 1.1.0).\n"
        ),
    )
    question = "Our old code calls WritableDatabase::flush(), which is now deprecated. What should we call instead?"
    assert "Use Xapian::WritableDatabase::commit() instead" in evidence(question, [table])[0].quote


def test_an_api_entry_defines_what_its_name_names_not_what_its_parameters_or_module_do() -> None:
    from research_assistant.reasoning.extractive.shapes import entry_defines
    from research_assistant.text.tokens import terms_of

    stack = "class werkzeug.local.LocalStack(context_var=None)\n\nCreate a stack of context-local data."
    assert entry_defines(stack, terms_of("context local")) is None  # its module and a parameter, not its name
    assert entry_defines(stack, terms_of("LocalStack")) == 0.2
    assert entry_defines(stack, terms_of("local.LocalStack")) == 0.2


def test_the_first_sentence_under_a_terms_heading_defines_it_unless_it_sets_a_scene_first() -> None:
    """'For non-local addresses, routing verifies the domain, ...' opens the section 'Callout verification' with
    background; a glossary's 'A command that is implemented by the shell.' under 'Builtin' is the definition."""
    from research_assistant.reasoning.extractive.shapes import entry_defines
    from research_assistant.text.tokens import terms_of

    scene = "For non-local addresses, routing verifies the domain, but is unable to do any checking of the local part."
    assert entry_defines(scene, terms_of("callout verification"), "Callout verification") == 0.1
    glossary = "A command that is implemented internally by the shell itself."
    assert entry_defines(glossary, terms_of("builtin"), "Builtin") == 0.2
    condition = "When set, every function defined afterwards is exported to the environment."
    assert entry_defines(condition, terms_of("allexport"), "allexport") == 0.1
