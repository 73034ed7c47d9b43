"""What a question asks for, and whether a span holds it: the rules that make evidence hold the answer."""

from __future__ import annotations

import pytest

from research_assistant.reasoning.answers import answer_strength, expanded_in, expands, is_lead_in, measured_subject
from research_assistant.reasoning.confidence import ANSWER_FOUND
from research_assistant.reasoning.extractive.analysis import analyze_question
from research_assistant.reasoning.extractive.shapes import defined_subject, shape_bonus
from research_assistant.reasoning.extractive.signals import defines
from research_assistant.reasoning.questions import (
    Asked,
    asked_for,
    asking_part,
    asks_purpose,
    defined_phrase,
    defined_term,
    without_context,
    without_framing,
)
from research_assistant.text.tokens import content_terms


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What is the default maximum number of concurrent connections?", "default"),
        ("What does TOAST stand for?", "expansion"),
        ("What does the ACID acronym mean for transactions?", "expansion"),
        ("What is the maximum length of a string in SQLite?", "limit"),
        ("What values may the PYTHONHASHSEED variable be set to?", "range"),
        ("How many storage classes does SQLite have?", "number"),
        ("When did the old tramway close?", "date"),
        ("Is sorting in Python stable?", "yesno"),
        # An exit status or a port is a number; 'status' is no plural of things to list.
        ("Which exit status does node return when it is started with an unknown option?", "number"),
        ("Which TCP port does kprop use to push the database?", "number"),
        ("What is the difference between a shallow copy and a deep copy?", "comparison"),
        ("What are the types of affinity a column can have?", "list"),
        ("What kinds of storage can I give the daemon for its cache?", "list"),
        ("Unless configured otherwise, which port is used?", "default"),
        ("Which document language does it assume when language_code is not set?", "default"),
        ("Which port does it listen on if the port option isn't given?", "default"),
        ("How often does the collector gather its data in the stock configuration?", "default"),
        ("How long does a cached session stay reusable if I leave the setting alone?", "default"),
        ("My task retries without passing a countdown. How long will it wait before the retry runs?", "default"),
        ("Which syslog facility does it log to unless a different one is chosen at configure time?", "default"),
        ("I wrote a forward line with no port. Which port does the proxy assume for the parent?", "default"),
        ("I convert the file and never pass --documentoptions. Which paper size ends up in the output?", "default"),
        ("When I run with --durations, fast tests are hidden. What's the least duration shown by default?", "default"),
        ("What's the out-of-the-box value of max_wal_size?", "default"),
        ("What is the meaning of the acronym MVCC?", "expansion"),
        ("What is the meaning of a savepoint?", "definition"),
        ("What's the size of a disk page?", "number"),
        ("As described in the Apache documentation, what is a reverse proxy?", "definition"),
        ("What does the Git term 'evil merge' refer to?", "definition"),
        ("When health checks are on without an interval set, at what frequency does it check?", "default"),
        ("How long may mail be delayed, when address verification is turned on?", "limit"),
        ("What is the length of the key, and when was it added?", None),
        ("Without sending a message, how can I check how Exim would route it?", "procedure"),
        ("If I leave http-host and http-port out of the agent's config, at what URL is it reachable?", "default"),
        ("Which identifier type does the server use when I don't configure server-id?", "default"),
        ("Which TTL goes on added records when I give no TTL in the add line?", "default"),
        ("A client declined it. With no special configuration, how long is the address kept unused?", "default"),
        ("Which server settings won't take effect on a reload?", "list"),
        ("What modes of operation does the hook library support?", "list"),
        ("My schema is now too old. What command brings it up to date?", "procedure"),
        ("Which tool do I use to generate a shared secret key?", "procedure"),
        ("Which hook scripts can libvirt call?", "list"),
        ("Which values are permitted for PYTHONHASHSEED?", "range"),
        ("What's the oldest version of Qt I can build against?", "limit"),
        ("How long does a client stay listed, assuming the mru settings are unchanged?", "default"),
        ("How does Git notice a file that still looks unchanged?", "explanation"),
        ("I'd like to know whether there is a limit on the cluster name's length.", "limit"),
        ("My guest's disk is on a Gluster volume and I didn't give a port; which port is assumed?", "default"),
        ("What kind of storage is the default?", "default"),
        ("How do I configure git to sign commits?", "procedure"),
        ("What does it mean for an object to be hashable in Python?", "definition"),
        ("How does write-ahead logging work?", "explanation"),
        ("In git maintenance's incremental schedule, which tasks run daily rather than hourly?", "list"),
        ("Which tasks are faster than gc?", "comparison"),
        ("Above what cookie header size does the server start warning?", "number"),
        ("Can you tell me what indentation width the coding conventions require?", "number"),
        ("Which process handles requests?", None),
    ],
)
def test_the_kind_of_answer_comes_from_the_wording(question: str, kind: str) -> None:
    assert asked_for(question).kind == kind


def test_a_value_that_overrides_the_default_is_not_the_default() -> None:
    question = "My task calls self.retry() without passing a countdown. How long will it wait before retrying?"
    overriding = "# overrides the default delay to retry after 1 minute"
    assert answer_strength(asked_for(question), overriding, question) < ANSWER_FOUND
    assert answer_strength(asked_for(question), "The default delay is 3 minutes.", question) == 1.0


def test_a_value_that_may_replace_the_default_is_not_the_default() -> None:
    question = "Where does Docutils look for configuration files by default?"
    replaced = "The default implicit config file paths can be overridden by the DOCUTILSCONFIG environment variable."
    assert answer_strength(asked_for(question), replaced, question) < ANSWER_FOUND
    stated = "The default is ~/.docutils, which can be changed with --config."
    assert answer_strength(asked_for(question), stated, question) == 1.0


def test_a_keyword_argument_in_code_is_no_default_behaviour() -> None:
    """'What does X do by default?' asks for an action; 'default=8000' in an example sets one parameter's default."""
    question = "What does Click do by default when someone runs my command group but doesn't name any subcommand?"
    example = "@click.option('--port', default=8000)\ndef runserver(port):"
    assert answer_strength(asked_for(question), example, question) < ANSWER_FOUND
    value = "What is the default port of runserver?"
    assert answer_strength(asked_for(value), example, value) == 1.0


def test_a_footnote_mark_is_no_value() -> None:
    question = "Where does it look for configuration files by default?"
    marked = "Path to a configuration file to read (if it exists). [4] Settings may override defaults."
    assert answer_strength(asked_for(question), marked, question) < ANSWER_FOUND


def test_a_promise_that_something_never_changes_asks_for_no_default() -> None:
    question = "Which query parameter promises that the database file will never change?"
    assert asked_for(question).kind != "default"


def test_a_statement_opening_with_when_is_a_premise_and_the_question_after_it_is_asked() -> None:
    question = "When I run with --durations, pytest hides very fast tests. What is the default threshold?"
    assert asking_part(question) == "What is the default threshold?"
    assert asking_part("When was Python 3.0 released?") == "When was Python 3.0 released?"


def test_an_acronym_is_named_only_when_the_question_spells_one() -> None:
    assert asked_for("What does WAL stand for in SQLite?") == Asked("expansion", "WAL")
    assert asked_for("What is MVCC?") == Asked("expansion", "MVCC")
    assert asked_for("What does it mean for an object to be hashable?").kind != "expansion"
    referring = "The NTP glossary keeps mentioning a GPSDO. What does that abbreviation stand for?"
    assert asked_for(referring) == Asked("expansion", "GPSDO")
    assert asked_for("bwdif deinterlacer - what is the name short for?") == Asked("expansion", "bwdif")
    assert asked_for("DESTDIR: what is the name short for?") == Asked("expansion", "DESTDIR")
    assert asked_for("What does the name bash stand for?") == Asked("expansion", "bash")
    quoted = "Where does the name 'Docutils' come from - what is it short for?"
    assert asked_for(quoted) == Asked("expansion", "Docutils")  # not 'name', nor the shorter 'come'


def test_an_acronym_asked_in_lower_case_is_found_spelled_out_in_any_case() -> None:
    text = "Bash is the shell. The name is an acronym for the 'Bourne-Again SHell', a pun on Stephen Bourne."
    assert expanded_in("bash", text)
    assert not expanded_in("WAL", "Enable the wal file first: the write-ahead log.")  # capitals as written


@pytest.mark.parametrize(
    ("acronym", "text"),
    [
        ("WAL", 'SQLite maintains an extra journal file called a "Write-Ahead Log".'),
        ("TOAST", "TOAST (The Oversized-Attribute Storage Technique) stores large values out of line."),
        ("VDBE", "you need to begin with a solid understanding of the Virtual Database Engine or VDBE."),
        ("ACID", "Transactions are atomic, consistent, isolated, and durable (ACID)."),
        ("EAFP", "Easier to ask for forgiveness than permission."),
        ("JSON", "JavaScript Object Notation is a text format."),
    ],
)
def test_an_expansion_is_found_by_its_initials(acronym: str, text: str) -> None:
    assert expands(acronym, text) >= 0.6


def test_words_that_merely_contain_the_letters_are_no_expansion() -> None:
    assert expands("WAL", "WAL mode is faster for most walking workloads.") == 0.0
    assert expands("TOAST", "The name would not stand the test of time.") == 0.0
    # A stopword gives its initial only: 'mark the' is no M-A-T-E after 'MATE will'.
    assert expands("MATE", "If it happens, MATE will mark the Gop as stopped.") == 0.0


def test_a_camel_case_name_beside_its_abbreviation_spells_it_out_and_a_plural_abbreviation_counts() -> None:
    assert expands("NCR", "The servers send DNS update requests, known as NameChangeRequests (NCRs), to D2.") == 1.0
    assert expands("NCR", "NameChangeRequests are sent to D2.") == 0.0  # no abbreviation beside it
    assert expands("MPM", "Apache MPMs (MPM modules) are loaded first.") == 0.0  # 'MPMs' joins no words
    assert expands("NCR", "These requests are known as NameChangeRequests or NCRs.") == 1.0


def test_words_in_lower_case_joined_to_the_abbreviation_by_a_conjunction_are_another_thing() -> None:
    assert expands("KDC", "Plugin modules for the KDC or kadmind daemons can write to the logs.") < 1.0


def test_a_spelling_across_sentences_or_far_from_the_acronym_is_no_sure_expansion() -> None:
    across = 'This lets you configure "decent crypto" for DANE as the default. Note that OpenSSL does not.'
    assert expands("DANE", across) == 0.0
    far = "MATE will try to group it to other Pdus into a Gop (Group of Pdus) by matching the key criteria."
    assert expands("MATE", far) < ANSWER_FOUND
    assert expands("WAL", "Enable the write-ahead log (WAL) first.") == 1.0


def test_the_sentence_with_the_value_holds_a_default_and_its_neighbour_does_not() -> None:
    asked = asked_for("What is the default maximum number of concurrent connections?")
    assert answer_strength(asked, "The default is typically 100 connections.") == 1.0
    assert answer_strength(asked, "The default is five minutes (5min).") == 1.0
    assert answer_strength(asked, "Determines the maximum number of concurrent connections to the server.") == 0.0


def test_a_limit_needs_a_telling_figure_and_a_range_two_bounds() -> None:
    limit = asked_for("What is the maximum depth of an expression tree?")
    assert answer_strength(limit, "The maximum depth has a default value of 1000.") == 1.0
    assert answer_strength(limit, "If the value is 0, then no limit is enforced.") < 1.0
    assert answer_strength(limit, "The maximum depth can be lowered at run-time.") == 0.0
    span = asked_for("What range of values can the seed take?")
    assert answer_strength(span, "The integer must be a decimal number in the range [0,4294967295].") == 1.0
    assert answer_strength(span, "The seed is an integer.") == 0.0


def test_a_count_prefers_the_figure_of_the_asked_thing_and_ignores_versions() -> None:
    asked = asked_for("How many storage classes does SQLite have?")
    question = "How many storage classes does SQLite have?"
    assert answer_strength(asked, "A column may hold values of all five storage classes.", question) == 1.0
    assert answer_strength(asked, "An SQLite version 3 database stores values.", question) == 0.0
    assert answer_strength(asked, "Each value has one of the following storage classes:\n- NULL", question) > 0


def test_a_default_needs_its_value_in_the_same_sentence_near_the_word() -> None:
    asked = asked_for("What is the default precision of the decimal module?")
    assert answer_strength(asked, "The module has a precision (defaulting to 28 places) that can be changed.") == 1.0
    assert answer_strength(asked, "If no collating function is defined, the collating function defaults to BINARY.")
    vague = "It contains two classes, Decimal and Context. Context wraps the precision and default rounding mode."
    assert answer_strength(asked, vague) < 1.0


def test_a_file_extension_is_a_default_value() -> None:
    question = "What file extension does the test case assume for its input files unless told otherwise?"
    field = "input_ext: A string containing the file extension of input files. Default: .txt."
    assert answer_strength(asked_for(question), field, question) == 1.0
    assert answer_strength(asked_for(question), "The file extension of input files has a default.", question) < 1.0


def test_items_closed_by_etc_are_a_list() -> None:
    asked = asked_for("Which syntax is still rendered inside the element?")
    listed = "Only inline syntax will be rendered, such as links, strong, emphasis, etc."
    assert answer_strength(Asked(kind="list", acronym=""), listed) == 0.75
    assert answer_strength(Asked(kind="list", acronym=""), "Only inline syntax will be rendered.") == 0.0
    assert asked.kind != "list" or answer_strength(asked, listed) > 0.0


def test_a_default_after_a_labels_colon_is_its_value_whatever_its_form() -> None:
    question = "default font for dot graphs?"
    assert answer_strength(asked_for(question), "The default value is: Helvetica.", question) == 1.0
    assert answer_strength(asked_for(question), "Default: Helvetica", question) == 1.0
    assert answer_strength(asked_for(question), "The default value is what the font tag says.", question) < 1.0


def test_a_lower_bound_does_not_answer_for_an_upper_one_nor_the_other_way() -> None:
    longest = "Is there a maximum length for a binary package name?"
    at_least = "They must be at least two characters long and must start with an alphanumeric character."
    assert answer_strength(asked_for(longest), at_least, longest) < ANSWER_FOUND
    assert answer_strength(asked_for(longest), "Package names must not exceed 60 characters.", longest) >= ANSWER_FOUND
    shortest = "What is the minimum length of a password?"
    assert (
        answer_strength(asked_for(shortest), "Passwords may be at most 128 characters long.", shortest) < ANSWER_FOUND
    )
    assert answer_strength(asked_for(shortest), "Passwords must be at least 8 characters long.", shortest) == 1.0


def test_a_percentage_is_no_size() -> None:
    question = "Below what size does the proxy skip compressing buffered content?"
    share = "The size is seldom decreased by less than 50%, and saving more than 90% isn't unusual."
    assert answer_strength(asked_for(question), share, question) < ANSWER_FOUND
    assert answer_strength(asked_for(question), "Content under 1024 bytes is not compressed.", question) == 1.0
    percent = "By what percentage does the size shrink?"
    assert answer_strength(asked_for(percent), "The size is decreased by 50%.", percent) == 1.0


def test_three_items_after_a_colon_are_a_list() -> None:
    listed = "It holds a tree-like structure composed of three types of nodes: strings, hashes and lists."
    assert answer_strength(Asked(kind="list", acronym=""), listed) == 0.75
    assert answer_strength(Asked(kind="list", acronym=""), "Note: this is it, and that.") == 0.0


def test_a_switch_is_no_thing_asked_for_and_on_before_a_word_is_no_switch() -> None:
    port = "Which port does the development server listen on by default?"
    enabled = "The debugger is enabled by default when the development server is run in debug mode."
    assert answer_strength(asked_for(port), enabled, port) == 0.0
    assert answer_strength(asked_for(port), "By default it listens on port 8080.", port) == 1.0
    html = "When returning HTML (the default response type), user-provided values must be escaped."
    assert answer_strength(asked_for(port), html, port) == 0.0  # a port is a figure, not a name
    flag = "What does log_checkpoints default to?"
    assert answer_strength(asked_for(flag), "log_checkpoints is on by default.", flag) == 1.0
    name = "What output file name does it use by default?"
    guessed = "By default the language is guessed depending on the input file name extension."
    assert answer_strength(asked_for(name), guessed, name) < ANSWER_FOUND


def test_a_plural_of_the_acronym_itself_is_no_expansion() -> None:
    assert expands("MPM", "For the prefork MPMs, this directive sets the maximum.") == 0.0
    assert expands("MPM", "Apache supports Multi-Processing Modules (MPMs).") == 1.0


def test_the_name_spelled_another_way_is_no_expansion() -> None:
    assert expands("Docutils", 'Please note that the name is "Docutils", not "DocUtils" or "Doc-Utils".') == 0.0


def test_a_figure_of_something_other_than_the_measured_thing_answers_less() -> None:
    question = "How large is the database file header?"
    asked = asked_for(question)
    assert measured_subject(question) == ["databas", "file", "header"]
    tied = answer_strength(
        asked, "The first 100 bytes of the database file comprise the database file header.", question
    )
    other = answer_strength(asked, "Every valid database begins with the following 16 bytes.", question)
    assert tied == 1.0 > other


def test_a_size_in_bytes_is_the_size_of_the_verbs_subject() -> None:
    """'How many bytes does the message length field take?' measures the field: two bytes of the payload's
    length are another thing's size."""
    question = "In the control packets, how many bytes does the message length field take?"
    assert measured_subject(question) == ["messag", "length", "field"]
    asked = asked_for(question)
    other = answer_strength(asked, "Payload length + 2 bytes for control number and command.", question)
    own = answer_strength(asked, "The message length field takes 3 bytes, in network order.", question)
    assert own == 1.0 > other


def test_a_parenthesised_remark_is_not_what_the_question_measures() -> None:
    question = "What is the maximum length of a proxy (frontend, backend or listen section) name?"
    assert measured_subject(question) == ["proxi", "name"]


def test_a_limit_asked_for_a_thing_is_a_limit_of_that_thing() -> None:
    """'Is there a maximum length for X?' measures X as 'the maximum length of X' does: a maximum of another thing
    (a nesting level) does not answer it."""
    question = "Is there a maximum length for a shell variable name?"
    assert measured_subject(question) == ["shell", "variabl", "name"]
    nesting = "The FUNCNEST variable, if set to a number greater than 0, defines a maximum function nesting level."
    assert answer_strength(asked_for(question), nesting, question) < ANSWER_FOUND
    named = "A shell variable name may be at most 255 characters long."
    assert answer_strength(asked_for(question), named, question) == 1.0


def test_how_many_by_default_wants_a_count_not_another_things_default() -> None:
    question = "How many threads does the development server use by default?"
    address = "Uses IPv6 for the development server. This changes the default IP address from 127.0.0.1 to ::1."
    size = "This tag indicates the maximum size of the database in megabytes. The default value is 128."
    assert answer_strength(asked_for(question), address, question) < ANSWER_FOUND
    assert answer_strength(asked_for(question), size, question) < ANSWER_FOUND
    assert answer_strength(asked_for(question), "It runs 4 threads by default.", question) == 1.0
    history = "How many commands are kept in the history file by default?"
    entries = "Set how many entries to store in the history file. The default value is 1000."
    assert answer_strength(asked_for(history), entries, history) == 1.0


def test_a_figure_that_says_it_measures_something_else_is_not_the_asked_measure() -> None:
    question = "How large is the database file header?"
    asked = asked_for(question)
    other = "The database header stores the first freelist page as a 4-byte integer at an offset of 32."
    assert answer_strength(asked, other, question) < 0.75
    assert answer_strength(asked, "The database file header is a 100-byte header.", question) == 1.0
    assert answer_strength(asked, "The database file header has a size of 100 bytes.", question) == 1.0


def test_a_setting_with_its_value_is_a_figure_not_a_label() -> None:
    question = "How many request header fields does the server accept?"
    assert shape_bonus("number", "Default: | LimitRequestFields 100", question, [], set()) > 0
    assert shape_bonus("number", "See Python 3.12 for details.", question, [], set()) == 0


def test_words_about_where_the_answer_is_written_are_not_what_is_asked() -> None:
    assert without_framing("What is a reverse proxy, as the Apache documentation describes it?") == (
        "What is a reverse proxy?"
    )
    assert without_framing("According to the SQLite documentation, what is WAL?") == "what is WAL?"
    kept = "What line length does the Python tutorial's coding style advice recommend?"
    assert without_framing(kept) == kept
    assert asked_for("In the Apache HTTP Server, what is a handler?").kind == "definition"


def test_a_range_of_allowed_values_answers_which_values_are_allowed() -> None:
    stated = "Valid values are in the range of 0 to 255, inclusive."
    allowed = "What return codes are allowed for the SKIP_RETURN_CODE test property?"
    assert asked_for(allowed).kind == "list"
    assert answer_strength(asked_for(allowed), stated, allowed) == 1.0
    used = "What return codes does the test runner report?"
    assert answer_strength(asked_for(used), stated, used) < 1.0


def test_a_yes_or_no_is_settled_by_a_verdict_on_what_the_question_asks_about() -> None:
    asked = Asked("yesno")
    question = "Can I run borg check --repair as a time-limited partial check with --max-duration?"
    denial = "A partial check cannot be combined with the --repair option."
    elsewhere = "You can give a prefix. Checks of big repositories take long."  # 'can' is about the prefix
    instruction = "Partial checks are possible with the --max-duration option."
    assert answer_strength(asked, denial, question) == 1.0
    assert answer_strength(asked, instruction, question) == 0.8
    assert answer_strength(asked, elsewhere, question) == 0.6
    assert answer_strength(asked, "The archive is stored in segments.", question) == 0.0
    threads = "Is it OK to run my CliRunner-based tests from several threads in parallel?"
    assert answer_strength(asked, "They are not in any way thread-safe!", threads) == 1.0


def test_an_idiom_is_read_in_plain_words_and_names_no_topic() -> None:
    question = "Which serialization formats does Celery support out of the box?"
    assert without_framing(question) == "Which serialization formats does Celery support built-in?"
    assert asked_for(question).kind == "list"
    assert "box" not in " ".join(analyze_question(question).keywords)
    assert without_framing("Out of the box, which port does it use?") == "By default, which port does it use?"
    assert without_framing("What happens under the hood?") == "What happens internally?"
    kept = "Which boxes does the outbox hold?"
    assert without_framing(kept) == kept


@pytest.mark.parametrize(
    ("request_", "question", "kind"),
    [
        ("Tell me what a savepoint means.", "What does a savepoint mean.", "definition"),
        ("Can you tell me what the default port is?", "What is the default port?", "default"),
        ("I'd like to know whether TRUNCATE fires triggers.", "Whether TRUNCATE fires triggers.", "yesno"),
        ("Please give me the list of supported index types.", "The list of supported index types.", "list"),
        ("Please tell me how to enable SSL.", "How to enable SSL.", "procedure"),
        ("Can you explain what a handler is in Apache?", "What is a handler in Apache?", "definition"),
        ("Please tell me how I can clone it faster.", "How can I clone it faster.", "procedure"),
        ("Could you tell me what I need to change?", "What do I need to change?", "procedure"),
        ("What's the purpose of a savepoint?", "What is the purpose of a savepoint?", "definition"),
        ("The name slonik: meaning?", "What does The name slonik mean?", "definition"),
        (
            "requoting - what does the term mean in the aiohttp docs?",
            "What does requoting mean in the aiohttp docs?",
            "definition",
        ),
        ("Could you tell me what EAFP stands for in Python?", "What does EAFP stand for in Python?", "expansion"),
        ("Could you tell me the largest message Exim accepts?", "What is the largest message Exim accepts?", "limit"),
        ("Tell me about savepoints.", "What is savepoints.", "definition"),
        ("Explain how CRISPR works.", "Explain how CRISPR works.", "explanation"),
        (
            "Stop the file handler from using sendfile?",
            "How do I stop the file handler from using sendfile?",
            "procedure",
        ),
        ("Enable gzip: is it possible?", "Enable gzip: is it possible?", "yesno"),
        ("Limit on message size?", "Limit on message size?", "limit"),
    ],
)
def test_a_request_around_a_question_is_read_as_the_question(request_: str, question: str, kind: str) -> None:
    assert without_framing(request_) == question
    assert asked_for(request_).kind == kind


def test_a_switch_does_not_say_how_often() -> None:
    question = "When health checks are on for a server without an interval set, at what frequency are they run?"
    asked = asked_for(question)
    assert answer_strength(asked, "By default, the PROXY protocol is enabled for health checks.", question) == 0.0
    assert answer_strength(asked, "inter <delay>: the default value is 2000 ms.", question) == 1.0


def test_a_word_of_the_sentence_is_no_acronym_to_expand() -> None:
    assert asked_for("Postfix VERP: stands for what?").acronym != "what"
    assert asked_for("What does SQLite mean by a partial index?").kind == "definition"
    assert asked_for("Please tell me what VDBE stands for in SQLite.") == Asked("expansion", "VDBE")


@pytest.mark.parametrize(
    ("question", "kind", "acronym"),
    [
        ("How long can an identifier be?", "limit", ""),
        ("How many rows can a table hold?", "limit", ""),
        ("How long does a checkpoint take?", "number", ""),
        ("What's WAL an abbreviation of?", "expansion", "WAL"),
        ("What is TLS short for?", "expansion", "TLS"),
    ],
)
def test_how_far_something_can_go_is_a_limit_and_an_abbreviation_of_is_an_expansion(
    question: str, kind: str, acronym: str
) -> None:
    assert asked_for(question) == Asked(kind, acronym)


def test_the_defined_subject_is_found_after_a_context_phrase_and_in_what_is_meant_by() -> None:
    assert defined_subject(without_context("In SQLite, what is meant by the type affinity of a column?")) == [
        "type",
        "affin",
    ]


def test_what_a_name_is_called_is_the_defined_subject() -> None:
    """'What is meant when a server is called a falseticker?' defines 'falseticker'; in 'What does the name slonik
    mean?' the word 'name' says what kind of thing slonik is, as 'function' does in 'the zip function'."""
    assert defined_subject("What is meant when a time server is called a falseticker?") == ["falsetick"]
    assert defined_subject("What does the name slonik mean?") == ["slonik"]


@pytest.mark.parametrize(
    ("sentence", "strength"),
    [
        ("A reverse proxy is a server that sits in front of others.", 0.2),
        ("A reverse proxy acts as a gateway for the servers behind it.", 0.2),
        ("A reverse proxy (or gateway), by contrast, appears to the client just like an ordinary web server.", 0.2),
        ("A reverse proxy is called a gateway by some.", 0.1),
        ("A reverse proxy is activated using the ProxyPass directive.", 0.0),
        ("A reverse proxy is designed to hide the servers behind it.", 0.1),  # what it is for
        ("A reverse proxy is very demanding for the network.", 0.0),
        ("A reverse proxy stipulates that every request passes through one server first.", 0.2),
        ('Requests may pass through a server known as a "reverse proxy" first.', 0.2),
        # A remark in parentheses before the verb is not what the sentence defines.
        ("The balancer (often placed behind a reverse proxy) is an instance of the module.", 0.0),
        # A relative clause says something of the words right before it.
        ("Route requests through a reverse proxy with a cache which means fewer requests reach it.", 0.0),
        ("A reverse proxy, which is a server in front of others, hides them.", 0.2),
    ],
)
def test_a_definition_says_what_the_subject_is_and_a_passive_says_what_is_done_with_it(
    sentence: str, strength: float
) -> None:
    assert defines(sentence, content_terms("reverse proxy")) == strength


def test_a_question_about_what_happens_when_nothing_is_configured_asks_for_the_default() -> None:
    assert asked_for("With what permissions are new files created if no creation mode is configured?").kind == (
        "default"
    )
    assert asked_for("Which port is used when none is specified?").kind == "default"
    assert asked_for("Is the cache enabled by default?").kind == "yesno"


def test_a_question_about_leaving_a_setting_alone_asks_for_the_default_and_one_about_changing_it_does_not() -> None:
    assert asked_for("How often does the daemon check for work, if I don't change the setting?").kind == "default"
    assert asked_for("How large is the cache if left unchanged?").kind == "default"
    assert asked_for("How long does it wait unless you change the timeout value?").kind == "default"
    unset = "If I turn on health checks for a server and don't set an interval, how often does it check?"
    assert asked_for(unset).kind == "default"
    assert asked_for("If I don't set a queue timeout, how long can a request wait?").kind == "default"
    assert asked_for("How long does it wait if I change the setting to 5?").kind != "default"
    assert asked_for("What happens if you set it to zero?").kind != "default"


def test_a_count_of_the_measured_thing_does_not_say_how_large_it_is() -> None:
    question = "What is the default maximum size of a message that the server will accept?"
    asked = asked_for(question)
    count = "This is much larger than the default version 2.2 limit of 10 messages per cached connection."
    size = "message_size_limit (default: 10240000)\n\nThe maximal size in bytes of a message."
    assert answer_strength(asked, size, question) == 1.0
    assert answer_strength(asked, count, question) < 1.0
    how_long = "How long does the server wait for the next request, by default?"
    assert answer_strength(asked_for(how_long), "KeepAliveTimeout 5 is the default.", how_long) == 1.0


def test_words_built_on_the_acronym_do_not_spell_it_out() -> None:
    assert expands("RELP", "Receive messages via the reliable RELP protocol. This module requires librelp.") == 0.0
    assert expands("RELP", "RELP, the Reliable Event Logging Protocol, is used.") == 1.0
    assert expanded_in(
        "TOAST", "This section provides an overview of TOAST (The Oversized-Attribute Storage Technique)."
    )
    assert not expanded_in("TOAST", "The Oversized-Attribute Storage Technique is described here.")  # not named


def test_a_range_may_state_its_bounds_in_different_sentences() -> None:
    question = "What values may the session cache timeout be set to?"
    span = (
        "This setting cannot exceed 100 days. If set to a positive value less than 2 minutes, the minimum value "
        "of 2 minutes is used instead."
    )
    assert answer_strength(asked_for(question), span, question) == 1.0
    assert answer_strength(asked_for(question), "This setting cannot exceed 100 days.", question) < 1.0


def test_a_sentence_that_names_what_the_one_before_describes_defines_it() -> None:
    subject = content_terms("backscatter mail")
    named = "Innocent sites are flooded with undeliverable mail notifications. This is called backscatter mail."
    assert defines(named, subject) == 0.2
    assert defines("Recognizing virus scanner mail is an error prone process.", subject) == 0.0
    assert defines("Backscatter mail is a flood of bounces.", subject) == 0.2


def test_a_glossary_line_defines_its_term() -> None:
    builtin = content_terms("builtin")
    assert defines("Builtin: A command that is implemented by the shell.", builtin) == 0.2
    assert defines("Argument - a parameter given to a command.", content_terms("argument")) == 0.2
    assert defines("Note: a builtin cannot be started in the background.", builtin) == 0.0
    assert defines("Builtin functions: A list of them follows.", builtin) < 0.2


def test_how_long_by_default_is_not_answered_by_a_count_of_things_or_a_switch() -> None:
    question = "How long does the server wait for the next request on a persistent connection, by default?"
    asked = asked_for(question)
    assert answer_strength(asked, "The two default workers will be used if no other worker matches.", question) < 1
    assert answer_strength(asked, "Keep-alive is enabled by default.", question) < 1
    assert answer_strength(asked, "The default is five minutes (5min).", question) == 1.0
    assert answer_strength(asked, "By default the server waits 15 seconds.", question) == 1.0
    size = "What is the default size of the connection pool?"
    assert answer_strength(asked_for(size), "The default pool holds 100 connections.", size) == 1.0


def test_commands_under_a_lead_in_are_examples_not_a_list_of_what_is_asked() -> None:
    question = "Which merge strategies can git merge use?"
    asked = asked_for(question)
    examples = (
        "Merge branch obsolete into the current branch, using ours merge strategy:\n\n"
        "$ git merge -s ours obsolete\n\nMerge branch maint, but do not commit:\n\n$ git merge --no-commit maint"
    )
    listed = "The following strategies are built in:\n\n- ort\n- octopus\n- ours"
    assert answer_strength(asked, listed, question) > answer_strength(asked, examples, question)


def test_a_size_wants_a_figure_that_is_no_time_and_a_duration_one_that_is_no_size() -> None:
    size = "What is the largest message the server will accept by default?"
    assert answer_strength(asked_for(size), "Type: string | Default: 50M", size) == 1.0
    assert answer_strength(asked_for(size), "Type: time | Default: 0s", size) < 1.0
    assert answer_strength(asked_for(size), "A missing definition defaults to accept.", size) < 1.0
    switch = "recipients_max_reject | Type: boolean | Default: false If this option is set true, Exim rejects SMTP"
    error = "messages with too many recipients. Otherwise (the default) it gives a 452 error to the surplus RCPT."
    assert answer_strength(asked_for(size), f"{switch} {error}", size) < 1.0
    assert answer_strength(asked_for(size), "The default is 10240000 bytes.", size) == 1.0
    assert answer_strength(asked_for(size), "The default for that is 1M. Larger messages are rejected.", size) == 1.0
    duration = "How long does the server keep retrying by default?"
    assert answer_strength(asked_for(duration), "Type: time | Default: 5d", duration) == 1.0
    assert answer_strength(asked_for(duration), "Type: string | Default: 50M", duration) < 1.0


def test_a_default_may_be_another_settings_value_stated_as_what_applies_if_unspecified() -> None:
    question = "If I don't set a queue timeout, how long can a request wait in the queue?"
    same = 'If unspecified, the same value as the backend\'s connection timeout ("timeout connect") is used.'
    assert answer_strength(asked_for(question), same, question) == 1.0
    assert answer_strength(asked_for(question), 'If unspecified, "timeout connect" is used.', question) < ANSWER_FOUND


def test_how_much_by_default_is_not_answered_by_a_switch() -> None:
    question = "When the server returns a message, how much of it is returned by default?"
    switch = "return_message | Type: boolean | Default: false If this is set, a copy of the message is returned."
    assert answer_strength(asked_for(question), switch, question) < ANSWER_FOUND
    assert answer_strength(asked_for(question), "return_size_limit | Default: 100K", question) == 1.0


def test_how_many_by_default_is_not_answered_by_a_default_named_mode() -> None:
    question = "How many parameter sets go into each execute_values() call by default?"
    mode = "Possible options for executemany_mode include: values_only - this is the default value."
    assert answer_strength(asked_for(question), mode, question) < ANSWER_FOUND
    page = "These control how many parameter sets go in each execution. The “values” page size defaults to 1000."
    assert answer_strength(asked_for(question), page, question) == 1.0
    assert answer_strength(asked_for(question), "The default is 'unlimited'.", question) == 1.0
    listed = "values_only is now the default.\n\n10 - the page size of execute_batch()."
    assert answer_strength(asked_for(question), listed, question) < ANSWER_FOUND  # the next item's figure


def test_how_much_of_a_thing_is_answered_by_a_part_in_words_not_by_a_document_part_number() -> None:
    question = "If a command in backticks prints several lines, how much of its output is substituted?"
    first = "Since files are line oriented, only the first line of output from the command will be substituted."
    assert answer_strength(asked_for(question), first, question) == 1.0
    example = "In Example 3.5, the output of the command will be substituted before the line is parsed."
    assert answer_strength(asked_for(question), example, question) < ANSWER_FOUND


def test_a_size_is_not_answered_by_a_default_count() -> None:
    size = "What is the largest message the server will accept by default?"
    count = "recipients_max | Type: integer | Default: 50000 — the maximum number of original recipients for a message."
    assert answer_strength(asked_for(size), count, size) < 1.0
    assert answer_strength(asked_for(size), "The default size limit is 50000 bytes.", size) == 1.0


def test_the_size_of_a_cache_is_how_many_items_it_holds_and_a_switch_is_no_size() -> None:
    question = "What is the default size of the template cache?"
    count = "The maximum number of templates kept in the cache defaults to 400 entries."
    switch = "The autoescape option decides whether templates are escaped. It is disabled by default."
    assert answer_strength(asked_for(question), count, question) == 1.0
    assert answer_strength(asked_for(question), switch, question) == 0.0


def test_a_lead_in_with_its_items_on_lines_of_their_own_is_the_list_asked_for() -> None:
    question = "What log message levels can the daemon produce?"
    asked = asked_for(question)
    listed = "The nine levels of logging are:\n\nFatal\n\nError\n\nWarn\n\nInfo\n\nDebug1"
    inline = "There are nine levels, such as fatal, error, and warn."
    commands = "Build it with this command:\n\n$ apxs -c mod_foo.c\nlibtool --mode=compile gcc\nlibtool --mode=link gcc"
    assert answer_strength(asked, listed, question) == 1.0
    assert answer_strength(asked, inline, question) < 1.0
    assert answer_strength(asked, commands, question) < 1.0


def test_a_lead_in_ending_on_its_verb_with_items_under_it_is_the_list_asked_for() -> None:
    question = "Which character encodings can be chosen with set encoding?"
    listed = "Valid values are\n  default - the terminal's own\n  koi8r - Unix cyrillic\n  cp1252 - MS Windows"
    assert answer_strength(asked_for(question), listed, question) == 1.0
    assert not is_lead_in("What fixtures are")  # a question's words as a heading
    assert not is_lead_in("Conditional includes")


def test_worded_bounds_bound_figures_not_names() -> None:
    """'from Fatal to Info' bounds names; a sentence with two stray figures beside it states no range of values."""
    question = "What values can the log_level parameter be set to?"
    asked = asked_for(question)
    stray = "The levels from Fatal to Info are always logged; the suggested value was 2, and version 2 recommends 0."
    assert answer_strength(asked, stray, question) < 1.0
    assert answer_strength(asked, "The log level may be set to values from 1 to 4.", question) == 1.0
    assert answer_strength(asked, "It takes a level between 0 and 4.", question) == 1.0


def test_a_statement_set_off_by_a_dash_asks_nothing_of_its_own() -> None:
    """'We package on Windows too — can we ...?' asks yes or no; the words before the dash set the scene."""
    assert asked_for("We package on Windows too — can we use the DESTDIR staging trick there?").kind == "yesno"
    assert asked_for("I run it from cron - does it read my profile?").kind == "yesno"
    assert defined_term("I keep reading about the pre-commit hook — what does it do?") == "pre-commit hook"
    assert asking_part("privoxy debug level default - what ends up in the log?").startswith("privoxy")  # a topic


def test_a_leading_condition_asks_nothing_of_its_own() -> None:
    """'If X is set ..., how long ...?' asks one thing: the verbs of its condition are not a clause of the question,
    and 'When I press a key, how long ...?' asks for a duration, not a date."""
    condition = "If the guests are shut down when the host goes down, how long does it wait unless I change it?"
    assert asked_for(condition).kind == "default"
    assert asked_for("When I press the first key, how long does the editor wait for the next one?").kind == "number"
    assert asked_for("If the cache is full, what happens and how do I clear it?").kind is None
    assert asked_for("When was the module added?").kind == "date"


def test_a_leading_statement_sets_the_scene_and_asks_nothing() -> None:
    """'X happens; how do I ...?' and 'X happens. What is the fix?' ask for steps: the statement before the
    question is read as a scene, not as a clause of the question."""
    assert asked_for("udev doesn't log enough to debug a rule; how do I make it more verbose?").kind == "procedure"
    fix = "After a reboot the proxy refuses to start because its address is not up yet. What is the proper fix?"
    assert asked_for(fix).kind == "procedure"
    assert asked_for("I want my client to use NTS. What do I have to change in my configuration?").kind == "procedure"
    assert asked_for("My log shows a panic_stop event. What does that event mean?").kind == "definition"
    assert asked_for("My disk is on a Gluster volume. Which port does it use by default?").kind == "default"
    assert asked_for("What is a handler? How is it used?").kind == "definition"  # a question first: no scene


def test_what_happens_when_nothing_says_otherwise_is_a_default() -> None:
    question = "If neither the backend's headers nor my VCL say how long to keep a response, how long is it cached?"
    assert asked_for(question).kind == "default"
    assert asked_for("I leave the port field empty. Which port will it try on the remote host?").kind == "default"


def test_a_plural_asked_for_with_its_article_is_a_list() -> None:
    assert asked_for("Once the proxy has started, what are the main things it keeps doing?").kind == "list"
    assert asked_for("What are the steps of the handshake?").kind == "list"
    assert asked_for("What is the main thing it keeps doing?").kind != "list"


def test_a_bulleted_list_under_a_wrapped_lead_in_is_the_list_asked_for() -> None:
    question = "What are the main things the proxy keeps doing?"
    wrapped = (
        "Once the proxy is started, it does exactly 3\nthings :\n\n  - process incoming connections;\n\n"
        "  - periodically check the servers' status (known as health checks);\n\n  - exchange information with "
        "other nodes."
    )
    assert answer_strength(asked_for(question), wrapped, question) == 1.0


def test_choosing_nothing_of_ones_own_asks_for_the_default() -> None:
    assert asked_for("Which paper size are the manuals laid out for unless I pick another?").kind == "default"
    assert asked_for("Which key sequence gets me out if I haven't picked my own?").kind == "default"
    assert asked_for("How long does it keep trying, unless I tell it otherwise?").kind == "default"
    assert asked_for("Which key sequence did I pick?").kind != "default"


def test_a_control_key_in_caret_notation_is_a_default_value() -> None:
    question = "Which key sequence gets me out of the console if I haven't picked my own?"
    assert answer_strength(asked_for(question), "By default, telnet's ^] is used.", question) == 1.0


def test_which_things_are_a_default_is_answered_best_by_a_default_that_lists_them() -> None:
    question = "Which compilers does configure look for by default?"
    asked = asked_for(question)
    listed = "The current default is to search for gfortran, g95, xlf95, fort, ifort."
    single = "gfortran 10 by default gives a compilation error for that practice."
    assert answer_strength(asked, listed, question) > answer_strength(asked, single, question)
    assert answer_strength(asked, single, question) < ANSWER_FOUND  # a report quoting only it has not found them


def test_how_long_by_default_is_not_answered_by_a_quoted_word_but_by_a_figure_or_a_setting() -> None:
    question = "How long does the cache keep a response by default?"
    asked = asked_for(question)
    named = "The treatment we have taken to calling \u201chit-for-miss\u201d remains the default."
    assert answer_strength(asked, named, question) < ANSWER_FOUND
    assert answer_strength(asked, "The TTL defaults to \u201c2m\u201d.", question) == 1.0
    assert answer_strength(asked, "The TTL defaults to the default_ttl parameter.", question) == 1.0


@pytest.mark.parametrize(
    ("question", "term"),
    [
        ("In HAProxy, what is a converter?", "converter"),
        ("What is extcap in Wireshark?", "extcap"),
        ("In libvirt terms, what exactly is a storage pool?", "storage pool"),
        ("What does the name slonik mean?", "slonik"),
        ('What does Scrapy mean by a "broad crawl"?', "broad crawl"),
        ("What is the $GENERATE directive in a BIND zone file used for?", "$GENERATE"),
        ('In Git terminology, what is an "evil merge"?', "evil merge"),
        ("What is a function?", "function"),
        ("How large is the header?", ""),
    ],
)
def test_the_defined_term_is_read_as_the_question_writes_it(question: str, term: str) -> None:
    assert defined_phrase(question) == term


def test_a_definition_asked_of_it_is_asked_of_the_thing_named_before() -> None:
    question = "When the manual talks about a backend, what exactly does it mean?"
    assert asked_for(question).kind == "definition"
    assert defined_term(question) == "backend"
    assert defined_term("I keep seeing the word slonik; what is it?") == "slonik"
    assert defined_term("In HAProxy, what is a converter?") == "converter"
    assert defined_term("keymgr shows a KSK in the 'ready' state. What does that state mean?") == "ready"


def test_whether_there_is_a_limit_asks_for_the_limit() -> None:
    assert asked_for("Is there a cap on how many servers a backend can hold?") == Asked("limit")
    assert asked_for("Is there any practical limit on the length of a name?") == Asked("limit")
    assert asked_for("Is there a way to raise the limit?") == Asked("yesno")


def test_an_abbreviation_followed_by_words_of_its_own_sentence_is_not_spelled_out_by_them() -> None:
    assert expands("PAM", "In addition to authentication, PAM provides account management.") < 1.0
    assert expands("PAM", "Linux-PAM (Pluggable Authentication Modules for Linux) is a suite of libraries.") == 1.0
    assert expands("WAL", "WAL, the write-ahead log, is kept beside the database.") == 1.0


def test_the_second_half_of_a_hyphenated_word_may_be_left_out_of_an_abbreviation() -> None:
    text = "A new module using the Lightning Memory-Mapped Database library (LMDB) has been added."
    assert expands("LMDB", text) == 1.0


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Which database back ends (KDB modules) come built in with MIT Kerberos?", "list"),
        ("Which format specifier measures how long the request took?", None),
        ("In Linux-PAM terminology, what counts as a user's 'credentials'?", "definition"),
        ("Can you tell me what the special service name 'other' is used for in the PAM configuration?", "definition"),
        ("I run pam_mkhomedir without a umask= argument. What mode do new home directories get?", "default"),
        ("My login.defs sets neither HOME_MODE nor UMASK. What mode do new home directories get?", "default"),
    ],
)
def test_more_ways_of_asking_for_a_kind(question: str, kind: str | None) -> None:
    assert asked_for(question).kind == kind


def test_a_list_may_run_in_a_sentence_of_quoted_names_with_their_descriptions() -> None:
    question = "Which polyinstantiation methods can be used in namespace.conf?"
    text = (
        'It can take these values; "user" for polyinstantiation based on user name, "level" for polyinstantiation '
        'based on process MLS level, and "tmpdir" for creating a temporary directory.'
    )
    assert answer_strength(asked_for(question), text, question) == 0.75


def test_a_default_is_a_value_the_question_does_not_name_and_may_be_stated_as_a_condition() -> None:
    question = "If EDITOR is not set when Octave starts, what editor does Octave's EDITOR setting default to?"
    asked = asked_for(question)
    assert answer_strength(asked, "The default value is taken from the environment variable EDITOR.", question) < 1
    stated = 'If the environment variable is not initialized, EDITOR will be set to "emacs".'
    assert answer_strength(asked, stated, question) == 1.0


def test_a_limit_and_its_figure_stand_in_one_sentence_or_next_to_each_other() -> None:
    question = "How big can a request body be before Django raises RequestDataTooBig?"
    far = (
        "Two new settings help mitigate attacks via large requests:\n\n"
        "DATA_UPLOAD_MAX_MEMORY_SIZE limits the size that a request body may be. File uploads do not count towards "
        "this limit.\n\nDATA_UPLOAD_MAX_NUMBER_FIELDS limits the number of parameters.\n\n"
        "Applications may need to tune these settings.\n\nThe repr() of a QuerySet is wrapped.\n\n"
        "get_version() returns PEP 440 compliant versions (e.g. 1.10rc1)."
    )
    near = "DATA_UPLOAD_MAX_MEMORY_SIZE limits the size that a request body may be. The default is 2621440."
    assert answer_strength(asked_for(question), far, question) < ANSWER_FOUND
    assert answer_strength(asked_for(question), near, question) == 1.0


def test_a_version_is_the_figure_when_the_question_asks_for_one() -> None:
    question = "What is the oldest Mixmaster version Mutt's support works with?"
    assert (
        answer_strength(asked_for(question), "Mixmaster support is for mixmaster version 2.04 or later.", question) == 1
    )


def test_a_sentence_naming_the_asked_things_before_their_items_is_the_list() -> None:
    question = "What filters can I give zone-backup to pick which data goes into the backup?"
    named = "Available filters are +zonefile, +journal, +timers, +kaspdb, and +catalog."
    other = "With these filters set, zone contents, the journal, the timers, and the catalog are backed up."
    assert answer_strength(asked_for(question), named, question) == 1.0
    assert answer_strength(asked_for(question), other, question) < 1.0
    formats = "Which serialization formats come built into the library?"
    after = "Contains json, pickle, msgpack, and yaml serializers."  # the things named after their items
    assert answer_strength(asked_for(formats), after, formats) == 1.0
    assert answer_strength(asked_for(formats), "It accepts json, pickle, msgpack, and yaml objects.", formats) < 1.0


def test_how_long_is_not_answered_by_a_figure_without_a_unit_of_time() -> None:
    question = "How long is a declined address kept out of circulation before it is handed out again?"
    code = "elapsed-time | 8 | Sent by clients to identify how long they have been trying to obtain a configuration."
    assert answer_strength(asked_for(question), code, question) < ANSWER_FOUND
    timed = "A declined address is kept out of circulation for 24 hours, its probation period."
    assert answer_strength(asked_for(question), timed, question) >= ANSWER_FOUND


def test_a_default_left_as_a_build_placeholder_states_no_value() -> None:
    question = "What is the default maximum size of the configuration database?"
    unfilled = "Set maximum size of the configuration database (default is @conf_mapsize@ MiB, maximum 10000 MiB)."
    assert answer_strength(asked_for(question), unfilled, question) < ANSWER_FOUND
    filled = unfilled.replace("@conf_mapsize@", "500")
    assert answer_strength(asked_for(question), filled, question) == 1.0


def test_a_limit_on_a_count_of_other_things_is_not_the_asked_limit() -> None:
    question = "Is there a maximum number of tasks allowed in a chord header?"
    assert measured_subject(question) == content_terms("task")  # the participle says something of the tasks
    retries = "Maximum number of retries before giving up. A value of None means the task will retry forever."
    assert answer_strength(asked_for(question), retries + " By default, this is 3.", question) < ANSWER_FOUND
    tasks = "The maximum number of tasks in a chord header is 1000."
    assert answer_strength(asked_for(question), tasks, question) == 1.0


def test_what_a_negated_clause_says_is_not_done_by_default_is_no_default_value() -> None:
    question = "Out of the box, on which address and port does the relay accept connections?"
    negated = "Enter the address of the host it runs on. Note that the relay doesn't listen on 0.0.0.0 by default."
    assert answer_strength(asked_for(question), negated, question) < ANSWER_FOUND
    stated = "By default the relay listens on 127.0.0.1, port 8025."
    assert answer_strength(asked_for(question), stated, question) == 1.0


def test_the_digit_of_a_name_is_no_count() -> None:
    question = "How many users can the default DB2 back end store?"
    named = "The default back end is db2, which keeps users in a Berkeley database file."
    assert answer_strength(asked_for(question), named, question) < ANSWER_FOUND
    counted = "By default the back end stores up to 10000 users."
    assert answer_strength(asked_for(question), counted, question) == 1.0


def test_how_long_by_default_is_not_answered_by_a_figure_and_a_verb() -> None:
    question = "How long does the queue keep unconsumed messages by default?"
    verb = "New queues will have the default value of 0 set for the 'Receive Wait Time' property."
    assert answer_strength(asked_for(question), verb, question) < ANSWER_FOUND
    for timed in ("Messages are kept for 4 days by default.", "The default is 0, meaning messages never expire."):
        assert answer_strength(asked_for(question), timed, question) == 1.0


def test_what_named_values_a_question_asks_for_is_what_it_measures() -> None:
    question = "What timeout values does the daemon use if it is started without the --timeout option?"
    assert measured_subject(question) == content_terms("timeout")
    figure = Asked(kind="number", acronym="")
    other = "Number of seconds to cache credentials (default: 900)."
    assert answer_strength(figure, other, question) < ANSWER_FOUND
    timeout = "The daemon's timeout defaults to 60 seconds."
    assert answer_strength(figure, timeout, question) == 1.0


def test_a_way_to_do_something_is_a_means_named_not_a_sequence_described() -> None:
    asked = asked_for("How do I attach the reply back to its parent message?")
    means = [
        "You can fix this by tagging the reply, then moving to the parent message.",
        "This can be done using the kea-admin db-upgrade command.",
        "The command that backs all this is squashmigrations - pass it the app label.",
        "The user can trigger the backup:\n\n$ knotc zone-backup +backupdir /path/to/backup",
        "To initialize the system, the function compinit should be called from a startup file.",
        "Append the keyword nts to the end of your server lines.",
        "Conversely, to disable syntax highlighting on an individual code block, include use_pygments=false.",
    ]
    described = [
        "Once the sequence has been reduced, Django will then write it back out into a new set of files.",
        "Squashing is the act of reducing an existing set of many migrations down to one.",
    ]
    assert all(answer_strength(asked, text) == 1.0 for text in means)
    assert all(answer_strength(asked, text) < 1.0 for text in described)


def test_a_default_said_to_be_of_another_thing_is_not_the_asked_default() -> None:
    question = "What User-Agent header value does the client send by default?"
    other = 'The default access log format is: \'%a %t "%r" %s %b "%{User-Agent}i"\''
    assert answer_strength(asked_for(question), other, question) < ANSWER_FOUND
    for own in ("The default User-Agent header is 'Client/3.8'.", "The default value is: 'Client/3.8'."):
        assert answer_strength(asked_for(question), own, question) == 1.0
    measured = "How long does the client wait for a reply by default?"  # a measure is named otherwise
    assert answer_strength(asked_for(measured), "The default timeout is 30 seconds.", measured) == 1.0
    named = "If I don't set OUTPUT_DIR, where does it write its folders?"  # the setting's parts name the thing
    assert answer_strength(asked_for(named), "The default output directory is the build directory.", named) == 1.0


def test_a_default_place_in_words_answers_where() -> None:
    question = "If I don't set OUTPUT_DIR, where does the tool write its html/latex folders?"
    for place in ("If left blank the current directory will be used.", "By default the working directory is used."):
        assert answer_strength(asked_for(question), place, question) == 1.0
    other = "What is the default page size?"  # a place in words is no value of another question
    assert answer_strength(asked_for(other), "If left blank the current directory will be used.", other) < 1.0


def test_the_condition_after_unless_is_no_default_value() -> None:
    question = "If I don't set OUTPUT_DIR, where does the tool write its html/latex folders?"
    condition = "If not, it will not be extracted from the sources unless EXTRACT_ALL is set to YES."
    assert answer_strength(asked_for(question), condition, question) < ANSWER_FOUND
    editor = "What editor is used by default?"
    assert answer_strength(asked_for(editor), 'The client uses "vi" unless $EDITOR is set.', editor) == 1.0
    period = "A client declined an address. With no special configuration, how long is it kept out of circulation?"
    stated = "Unless otherwise configured, the probation period lasts 24 hours; after that, it is recovered."
    assert answer_strength(asked_for(period), stated, period) == 1.0


def test_how_long_at_least_is_answered_by_a_duration_in_words() -> None:
    question = "At minimum, how long is a deprecated API kept before it can be removed?"
    for worded in (
        "Deprecated API is still allowed at least for a year and half.",
        "It is kept for at least one week.",
    ):
        assert answer_strength(asked_for(question), worded, question) >= ANSWER_FOUND
    assert answer_strength(asked_for(question), "Deprecated API is removed in a major release.", question) == 0.0


def test_a_topic_and_a_colon_before_a_question_is_its_context_unless_the_question_asks_of_it() -> None:
    question = "client tracing: which signal fires when a request waits for a free pooled connection?"
    assert without_context(question) == "which signal fires when a request waits for a free pooled connection?"
    assert without_context("DESTDIR: what is the name short for?") == "DESTDIR: what is the name short for?"
    compared = "compound vs container directive: which one should I use to wrap a group of elements?"
    assert without_context(compared) == compared
    assert asked_for(compared).kind == "comparison"


def test_a_default_the_asker_would_set_is_not_the_default_asked_for() -> None:
    question = "Which environment variable makes diff pick up a default set of options every time?"
    assert asked_for(question).kind != "default"
    assert asked_for("I declared an option with neither a type nor a default value. What type is it?").kind == "default"


def test_a_default_that_follows_a_choice_is_not_what_holds_when_nothing_is_chosen() -> None:
    question = "If I don't pass any -C flag, what level of table compression does flex use?"
    chosen = "Your scanner defaulted to 7-bit because you used the '-Cf' or '-CF' table compression options."
    assert answer_strength(asked_for(question), chosen, question) < ANSWER_FOUND
    plain = "The default setting is '-Cem', which gives the highest degree of table compression."
    assert answer_strength(asked_for(question), plain, question) == 1.0
    asked_plainly = "What level of table compression does flex use by default?"
    assert answer_strength(asked_for(asked_plainly), chosen, asked_plainly) == 1.0


def test_an_acronym_asked_of_by_what_it_refers_to_or_as_part_of_a_name_asks_for_its_expansion() -> None:
    for question in (
        "The cache class is called LRUCache. What does the LRU part refer to?",
        "What does the LRU in LRUCache stand for?",
        "What does LRU refer to?",
    ):
        assert asked_for(question) == Asked("expansion", "LRU")
    assert asked_for("What does this refer to?").kind != "expansion"


def test_a_question_after_a_statement_may_open_with_a_preposition() -> None:
    question = "My login keeps asking for a password. In what ways can the client authenticate itself?"
    assert asking_part(question) == "In what ways can the client authenticate itself?"


def test_a_topic_set_off_by_a_dash_before_a_yes_or_no_question_is_no_part_of_what_is_asked() -> None:
    assert asked_for("insist connection argument - does it still do anything?").kind == "yesno"
    assert asking_part("legacy_em extension - what does it actually do?").startswith("legacy_em")  # it needs its topic


def test_a_default_that_denies_the_asked_thing_says_there_is_none() -> None:
    question = "default timeout for client.fetch if I don't pass one?"
    for denial in (
        "By default, fetches do not time out unless a timeout value is set explicitly.",
        "If no timeout is specified explicitly, fetches never time out.",
    ):
        assert answer_strength(asked_for(question), denial, question) == 1.0
    # a denial of something else is no value, nor does a question about a default value name a thing to deny
    other = "By default, fetches do not follow redirects."
    assert answer_strength(asked_for(question), other, question) < ANSWER_FOUND
    valued = "What is the default value of the retries option?"
    assert answer_strength(asked_for(valued), "By default, the client does not retry.", valued) < ANSWER_FOUND


def test_what_is_switched_on_by_default_is_the_default_of_that_thing_only() -> None:
    question = "default timeout for client.fetch if I don't pass one?"
    switched = "By default, certificate verification is enabled, and the client raises an error if it fails."
    assert answer_strength(asked_for(question), switched, question) < ANSWER_FOUND
    asked = "What is the default state of certificate verification?"
    assert answer_strength(asked_for(asked), switched, asked) == 1.0


def test_what_a_program_falls_back_to_is_a_default() -> None:
    question = "The server sends no charset at all. What encoding does the client fall back to then?"
    assert asked_for(question).kind == "default"
    stated = "In this situation, the specification says that the default charset must be ISO-8859-1."
    assert answer_strength(asked_for(question), stated, question) == 1.0


def test_the_values_one_may_give_are_answered_by_a_choice_of_named_values() -> None:
    for question in ("allowed values for the width argument of render_table?", "render_table: possible border values?"):
        asked = asked_for(question)
        assert asked.kind == "range"
        entry = question.split()[-2] if question.startswith("render_table") else "width"
        for choice in (
            f"{entry} – The table {entry}. “compact”, “normal” or “wide”",
            f"{entry}: An optional string. Known values are “none”, “single” and “double”.",
            f"{entry} (str) – The style. It must be one of the styles listed above.",
        ):
            assert answer_strength(asked, choice, question) == 1.0
        # the values of another parameter, or of no parameter, may be any example's
        for other in ("height – The table height. “compact”, “normal” or “wide”", "Known values are “a” and “b”."):
            assert answer_strength(asked, other, question) < ANSWER_FOUND


def test_which_versions_is_answered_by_releases_stated_by_a_bound() -> None:
    question = "Which versions of the library had the bug where an empty CA path disabled verification?"
    asked = asked_for(question)
    assert asked.kind == "list"
    for bound in ("All 2.x versions before 2.28.0 are affected.", "Releases 1.4 and later are affected."):
        assert answer_strength(asked, bound, question) == 1.0
    assert answer_strength(asked, "Fixed a bug where an empty CA path disabled verification.", question) == 0.0


def test_how_do_i_is_answered_by_telling_the_reader_to_do_the_asked_thing() -> None:
    question = "I wrote my own loader for our template format. How do I register it so the config can name it?"
    asked = asked_for(question)
    for step in ("Next, you should register that loader as an entry point.", "Register the loader in setup.cfg."):
        assert answer_strength(asked, step, question) == 1.0
    assert answer_strength(asked, "The registry holds every loader the package knows.", question) < ANSWER_FOUND
    vague = "How do I use a proxy?"
    assert answer_strength(asked_for(vague), "You can use any proxy you like.", vague) < ANSWER_FOUND


def test_a_topic_set_off_by_a_dash_before_a_question_for_a_command_asks_for_a_way() -> None:
    assert asked_for("installing the package from a downloaded tarball - what command?").kind == "procedure"
    assert asked_for("legacy_em extension - what does it actually do?").kind != "procedure"


def test_a_default_that_names_a_thing_does_not_ask_for_a_default() -> None:
    assert asked_for("unit systems available in the default registry?").kind != "default"
    assert asked_for("Which option loads a custom definitions file instead of the default one?").kind is None
    assert asked_for("What port does it listen on in the default configuration?").kind == "default"
    assert asked_for("What should I use instead of os.system?").kind != "comparison"
    assert asked_for("Why use threads instead of processes?").kind == "comparison"


def test_most_as_a_quantifier_asks_for_no_limit() -> None:
    assert asked_for("Which color names count as the light ones that most terminals show in bold?").kind == "list"
    assert asked_for("What is the most connections a pool allows?").kind == "limit"
    assert asked_for("How many retries at most?").kind == "limit"


def test_an_abbreviation_said_in_words_is_spelled_out_by_the_word_it_shortens() -> None:
    found = "The relation between wavelength and frequency is defined in the spectroscopy context (abbreviated sp)."
    assert expands("sp", found) == 1.0
    assert expands("PGP", "Pretty Good Privacy, abbreviated as PGP, signs the files.") == 1.0
    assert expands("sp", "The relation is defined in a context (abbreviated sp).") == 0.0


def test_a_question_after_a_dash_that_names_its_own_subject_is_what_is_asked() -> None:
    assert asked_for("the image docs say the format must be one PIL knows - what is PIL?") == Asked("expansion", "PIL")
    assert asked_for("Response.ok - which status codes count as ok?").kind == "list"
    assert asked_for("tokenmerge filter - what does it do?").kind is None  # it asks of its topic


def test_a_different_thing_is_no_comparison_unless_it_differs_from_another() -> None:
    question = "I want to try a different block size when compacting. Which block sizes are allowed?"
    assert asked_for(question).kind == "list"  # the values one may give (see the test of allowed values above)
    assert asked_for("How is source_pkgs different from source?").kind == "comparison"
    assert asked_for("What are the different types of locks?").kind == "list"


def test_an_abbreviation_named_first_and_asked_of_after_it_is_expanded() -> None:
    assert asked_for("gtrid in an Xid - stands for what?") == Asked("expansion", "gtrid")
    assert asked_for("REPL stands for what?") == Asked("expansion", "REPL")


def test_what_a_name_stands_for_is_its_definition_when_it_is_no_abbreviation() -> None:
    question = "What exactly does sql.Identifier stand for in the psycopg2.sql module?"
    assert defined_term(question) == "sql.Identifier"
    assert asked_for("unconfigured structlog: what does an unconfigured logger print?").kind == "default"


@pytest.mark.parametrize(
    ("question", "kind", "acronym"),
    [
        # A context phrase may name a call with its parameters; a premise may stand before it.
        (
            "I'm writing an XSLTExtension subclass. In execute(self, context, self_node, input_node, output_parent), "
            "what is output_parent?",
            "definition",
            "",
        ),
        ("In execute(self, context), what is output_parent?", "definition", ""),
        # Labels quoted before the question, asked of together.
        (
            "Every benchmark row starts with 'lxe' or 'cET'. What do these two labels stand for?",
            "expansion",
            "cET",
        ),
        ("comment middleware example XSS meaning?", "expansion", "XSS"),
        ("NMU stands for?", "expansion", "NMU"),
        # Advice asked for: how something should be done, or the approach to take.
        ("How should a server cope with the HOTP counter drifting out of sync?", "procedure", ""),
        ("I can't hold the file in memory for one sign() call. What is the approach?", "procedure", ""),
        # 'In what ..., ...?' is the question, not a context phrase before one.
        ("In what sequence are the default, the converter and the validators applied?", "list", ""),
        # Keywords that ask whether something may be done.
        ("named block inside a def allowed?", "yesno", ""),
        ("hard link to a file on another filesystem - possible?", "yesno", ""),
        ("in-memory transport: works across separate processes?", "yesno", ""),
        ("Per the notes, which span of status codes is not treated as errors?", "range", ""),
        # A condition before the question, its question word after an adverb.
        ("When browsing a mounted archive, roughly how much memory can each cache entry cost?", "number", ""),
        # 'How?' after what the asker wants done asks for the steps, whatever the statement compares.
        ("I want to see lines as they arrive instead of waiting for the end. How?", "procedure", ""),
        ("I need the files under another directory without reconfiguring. How do I do that?", "procedure", ""),
    ],
)
def test_questions_read_through_their_framing(question: str, kind: str, acronym: str) -> None:
    assert asked_for(question) == Asked(kind, acronym)


def test_a_context_phrase_keeps_a_double_parenthesis_as_one_thing() -> None:
    assert asking_part("Using base#number notation in $(( )), which bases are allowed?") == "which bases are allowed?"


def test_a_lower_case_letter_before_a_camel_case_name_spells_its_abbreviation() -> None:
    assert expands("cET", "compare cElementTree (cET) libraries") == 1.0
    assert expands("cET", "compares ElementTree and cElementTree libraries") < 1.0  # no abbreviation beside it


def test_words_in_lower_case_far_from_the_abbreviation_or_inside_an_identifier_are_no_sure_spelling() -> None:
    row = "lxe: root_list_children (--TR T2) 0.0634 msec/pass | cET: root_list_children (--TR T2) 0.0086 msec/pass"
    assert expands("cET", row) < 1.0
    assert expands("WAL", "WAL | write-ahead log") == 1.0  # a table's row still spells it out


def test_an_x_stands_for_cross() -> None:
    assert expands("XSS", "it is susceptible to a Cross-Site Scripting attack.") == 1.0
    assert expands("XSRF", "Cross-Site Request Forgery") == 1.0


def test_a_fraction_of_a_unit_in_words_is_a_figure() -> None:
    asked = asked_for("Roughly how much free memory does compiling lxml need?")
    assert asked.kind == "number"
    text = "Compiling this module requires a lot of free memory, usually more than half a GB, which can pose problems."
    assert answer_strength(asked, text, "Roughly how much free memory does compiling lxml need?") == 1.0


def test_the_oldest_toolchain_asks_for_a_release() -> None:
    question = "What is the oldest Rust toolchain that can still build cryptography from source?"
    text = "Building it requires a working Rust toolchain. The current minimum supported Rust version is 1.48.0."
    assert answer_strength(asked_for(question), text, question) > 0.0


def test_figures_given_as_choices_list_the_allowed_values() -> None:
    question = "Which key sizes can I pass to dsa.generate_private_key?"
    text = "key_size (int) - The length of the modulus in bits. It should be either 1024, 2048, 3072, or 4096."
    assert answer_strength(asked_for(question), text, question) == 1.0


def test_an_attribute_line_with_its_description_gives_the_attributes_default() -> None:
    question = "How many worker threads does the server start in its pool by default?"
    entry = "thread_pool = 10\n\nThe number of worker threads to start up in the pool."
    assert answer_strength(asked_for(question), entry, question) == 1.0
    assert answer_strength(asked_for(question), "thread_pool = 10", question) < 1.0  # the value alone says nothing


def test_a_recommendation_tells_how() -> None:
    question = "How should a server cope with the HOTP counter drifting out of sync?"
    text = "Due to this, it is highly recommended that the server sets a look-ahead window."
    assert answer_strength(asked_for(question), text, question) == 1.0


def test_a_range_answers_which_values_may_be_passed() -> None:
    question = "Which status codes may I pass to HTTPError?"
    text = "status: the HTTP status code, which must be between 400 and 599."
    assert answer_strength(asked_for(question), text, question) == 1.0


def test_a_date_beside_no_mention_of_the_asked_release_may_be_another_releases() -> None:
    question = "When was attrs 22.1.0 released?"
    asked = asked_for(question)
    assert answer_strength(asked, "22.1.0 - 2022-07-28", question) == 1.0
    assert answer_strength(asked, "It had its first release in April 2015.", question) < 1.0


def test_what_defaults_to_a_value_is_the_thing_that_has_that_default() -> None:
    question = "request methods that CherryPy reads a body for by default"
    other = "The MIME spec declares that a part with no Content-Type defaults to 'text/plain'."
    assert answer_strength(asked_for(question), other, question) == 0.0
    timeout = "What is the default timeout of a connection?"
    assert answer_strength(asked_for(timeout), "The timeout defaults to 30 seconds.", timeout) == 1.0
    assert answer_strength(asked_for(timeout), "It defaults to 30 seconds.", timeout) == 1.0


def test_words_that_say_an_abbreviation_is_spelled_out_reach_as_far_as_they_go() -> None:
    text = "We name them hf_register_info ('hf' is short for 'header field') and ett."
    assert expands("hf", text) == 1.0


@pytest.mark.parametrize(
    ("question", "purpose"),
    [
        ("What is virtproxyd for?", True),
        ("In psycopg2, what's the AsIs class meant for?", True),
        ("What is the $GENERATE directive in a BIND zone file used for?", True),
        ("What is the purpose of the stash file?", True),
        ("What is a chord?", False),
        ("What is a reverse proxy for Apache?", False),  # 'for' names where, not what for
        ("What is the default for max_connections?", False),
    ],
)
def test_a_question_what_something_is_for_is_told_from_one_what_it_is(question: str, purpose: bool) -> None:
    assert asks_purpose(question) is purpose


@pytest.mark.parametrize(
    "question",
    [
        "Which request methods does CherryPy read a body for by default?",
        "request methods that CherryPy reads a body for by default",  # terse: the things, then what they do
    ],
)
def test_a_default_asked_as_a_set_of_things_is_not_a_switch(question: str) -> None:
    """The default such a question asks for is a list: 'This is off by default' (of another setting) is no answer,
    an attribute holding the methods is."""
    asked = asked_for(question)
    switch = "When 'early', the session will be locked before reading the request body. This is off by default."
    attribute = "methods_with_bodies = ('POST', 'PUT', 'PATCH')\nThe HTTP methods for which CherryPy reads a body."
    assert answer_strength(asked, switch, question) < ANSWER_FOUND
    assert answer_strength(asked, attribute, question) >= ANSWER_FOUND
