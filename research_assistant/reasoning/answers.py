"""Whether a span of text holds what a question asks for.

Relevance alone finds the sentence that talks about the question's subject; the answer is often the
sentence next to it ('Determines the maximum number of connections.' / 'The default is 100.'). So the
question's *asked thing* is worked out once (`questions.asked_for`: a default, a limit, a range, a figure, a
date, the expansion of an acronym, a definition, a yes or no, a list, a comparison, an explanation) and every
candidate span is checked for an answer of that kind: a value near the word 'default', a figure with a limit word, two
bounds, words whose initials spell the acronym, and so on. The rules are about English questions and
answers in general, never about one document set.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from research_assistant.reasoning.questions import ASKS_LIST, Asked, asking_part
from research_assistant.text.figures import (
    DOCUMENT_PART,
    STANDARD_NAME,
    counted_thing,
    counts_asked_thing,
    has_date,
    numbers_in,
)
from research_assistant.text.synonyms import synonyms
from research_assistant.text.tokens import FILE_PATH, STOPWORDS, content_terms, terms_of, words

_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
_VALUE_TOKEN = re.compile(
    r"\d|(?i:\b(?:true|false|none|null|zero|one|two|three|four|five|ten|(?:on|off)(?!\s+(?!by\b)[a-z])|enabled|disabled|"
    r"empty|unlimited|"
    r"infinite|no limit|unset|yes|no)\b|\bthe same (?:value )?as\b)"
    r"|[\"'“‘`][^\"'”’`]{1,40}[\"'”’`]|\b[A-Z][A-Z0-9_]{2,}\b|\b\w+\(\)|\b[a-z]+_[a-z_]+\b"
    r"|(?<![\w^])\^[][A-Z@\\^_?](?!\w)|\b[A-Za-z][\w-]+\.[a-z]{2,5}\b|(?<![\w.])\.[a-z][a-z0-9]{0,5}\b|" + FILE_PATH
)
"""A value as documentation states one: a figure, a literal, a quoted or code token, a constant's name, a control
key in caret notation ('^]', '^C'), a file name, extension or path ('trustedCAs.pem', '.txt', '/var/state/ups').
'on' and 'off' before a word are a preposition or a particle ('guessed depending on the input', 'turns off the
cache'), not a switch's state."""
_DEFAULT_STATEMENT = re.compile(
    r"\bdefaults? (?:is|are|was|to|of|value|setting|:)|\bby default\b|\bdefault(?:s|ed)? to\b|\bdefault\b[^.;]{0,60}"
    r"\b(?:is|are|of|=)\b|\bif (?:not|no|omitted|unset)\b|\bunless\b|\bwhen (?:not|omitted)\b|\binitially\b",
    re.IGNORECASE,
)
_LIMIT_STATEMENT = re.compile(
    r"\b(?:max(?:imum)?|min(?:imum)?|limit(?:ed)?|largest|smallest|longest|at most|at least|up to|no more than|"
    r"no fewer than|not exceed|cannot exceed|can not exceed|exceed|bounded|capped|ceiling|upper|lower|"
    r"or (?:later|newer|higher|above|greater|more|older|earlier|lower|less|fewer)|"
    r"as (?:large|long|many|much) as|"
    r"(?:must|shall|has to|have to|needs? to)(?: not)? be (?:\w+ ){0,4}?"
    r"(?:less|smaller|fewer|lower|shorter|greater|larger|more|bigger|higher|longer) than)\b",
    re.IGNORECASE,
)
_BOUNDS = re.compile(
    r"\bbetween\b.{1,60}?\band\b|\bfrom\b.{1,60}?\bto\b|\b(?:range|ranges|ranging)\b|\bthrough\b|"
    r"[-+]?\d[\d,.]*(?:\s*(?:\.\.|–|—)\s*|\s+(?:-|to)\s+)[-+]?\d|\[\s*[-+]?\d[\d.]*\s*,\s*[-+]?\d[\d.]*\s*\]",
    re.IGNORECASE,
)
_FIGURE_NEAR = 12
"""Characters after a worded bound ('from', 'between', 'through') within which its figure may stand: 'from 1 to 4'."""


def _states_bounds(text: str) -> bool:
    """Whether the text states bounds of figures: 'between 1 and 4', '0..9', '[0,4]', 'a range of ...'. A worded
    bound must span or lead to a figure: 'levels from Fatal to Info' bounds names, not values."""
    for match in _BOUNDS.finditer(text):
        worded = match.group().split(maxsplit=1)[0].lower() in ("between", "from", "through")
        if not worded or any(c.isdigit() for c in text[match.start() : match.end() + _FIGURE_NEAR]):
            return True
    return False


_UPPER = re.compile(
    r"\b(?:at most|max(?:imum)?|(?:can ?not|may not|must not|does not) exceed|no more than|up to)\b", re.I
)
_LOWER = re.compile(r"\b(?:at least|min(?:imum)?|no less than|no fewer than)\b", re.I)
"""An upper and a lower bound stated apart ('cannot exceed 100 days ... the minimum value of 2 minutes')."""
_ASKS_UPPER = re.compile(
    r"\b(?:max(?:imum|imal)?|largest|longest|biggest|most|highest|upper|cap|at most|up to|exceed|"
    r"how (?:long|large|big|many|much|far|high))\b",
    re.IGNORECASE,
)
_ASKS_LOWER = re.compile(
    r"\b(?:min(?:imum|imal)?|smallest|shortest|least|lowest|fewest|lower|at least|how (?:small|short|few|low))\b",
    re.IGNORECASE,
)
_STATES_UPPER = re.compile(
    r"\b(?:largest|longest|biggest|highest|exceed\w*|limited to|or (?:less|fewer|shorter|smaller|lower))\b", re.I
)
OTHER_BOUND_FIT = 0.4
"""The answer strength, for a question asking how far something may go, of a span stating only how little it may
be ('Is there a maximum length for a package name?' / 'They must be at least two characters long.'), and the
other way round: the bound asked for is not the one stated."""
_POLARITY = re.compile(
    r"\b(?:not|no|never|cannot|can't|only|always|must|yes|supports?|supported|allows?|allowed|permits?|requires?|"
    r"possible|impossible|may|can|unless|none|ignored|disabled|enabled|off|false|true)\b",
    re.IGNORECASE,
)
_DENIALS = frozenset("not no never cannot none neither nor only impossible unsupported unable".split())  # noqa: SIM905
_AFFIRMATIONS = frozenset(
    "yes can may will always must supports supported allows allowed permits permitted possible works safe".split()  # noqa: SIM905
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
"""Where a sentence ends, on one line or at a paragraph's end ('... the default.\n\nNone - ...')."""
_VERDICT_REACH = 5
"""Words between a verdict ('cannot', 'is supported') and a word of the question for the verdict to be about it."""


def _verdict_strength(question: str, text: str) -> float:
    """How squarely a span settles a yes-or-no question: a denial ('A partial check cannot be combined with the
    --repair option', 'not in any way thread-safe', 'only supported on macOS') within a few words of a term of the
    question, in one sentence, settles it; an affirmation there ('will allow more listeners to be added') nearly;
    a polarity word elsewhere may ('can', 'only', 'disabled' about something else)."""
    if not _POLARITY.search(text):
        return 0.0
    asked = _question_terms(question)
    strength = 0.6
    for sentence in _SENTENCE_END.split(text):
        tokens = words(sentence)
        about = [i for i, token in enumerate(tokens) if asked.intersection(_token_terms(token))]
        for i, token in enumerate(tokens):
            denial = token in _DENIALS or token.endswith(("n't", "n’t"))
            if (denial or token in _AFFIRMATIONS) and any(abs(i - j) <= _VERDICT_REACH for j in about):
                if denial:
                    return 1.0
                strength = 0.8
    return strength


@functools.lru_cache(maxsize=4096)
def _token_terms(token: str) -> frozenset[str]:
    return frozenset(terms_of(token))


@functools.lru_cache(maxsize=64)
def _question_terms(question: str) -> frozenset[str]:
    """A question's terms, read once for all the spans it is asked of."""
    return frozenset(terms_of(question))


_LIST_SHAPE = re.compile(
    r":[ \t]*\n\s*\S|(?:\n\s*(?:[-*•]|\d+[.)])\s)|(?:\w[^,\n]{0,40},\s*){2,}(?:and\s|or\s|(?:[\w.+#-]+\s+)?etc\b)"
    r"|(?:[\"'“‘`][^\"'”’`\n]{1,30}[\"'”’`][^,;\n]{0,120}[,;]\s*){2,}(?:and|or)\s+[\"'“‘`]"
    r"|:[ \t]*[^,:;.\n]{1,40},[ \t]*[^,:;.\n]{1,40}[ \t](?:and|or)[ \t]+\w"
)
"""A list in lines, or in a sentence: short items ('links, strong, emphasis, etc.', 'Gaffer, Circus, Runit etc.';
three after a colon: 'three types of nodes: strings, hashes and lists'), or quoted names each with its description
('"user" for ..., "level" for ..., and "tmpdir" for ...')."""
_ENUMERATION = re.compile(r"(?:[\w.+#-]+(?: [\w.+#-]+)?,\s+){3,}[\w.+#-]+")
"""Four or more short items separated by commas, with or without a closing 'and' ('gfortran, g95, xlf95, fort')."""
_PREPOSED = re.compile(r"^\s*(?:by|in|with|through)\s+(?:what|which)\b", re.IGNORECASE)
"""'With what permissions does it create files by default?' asks what they are set to: one value, not a list."""
UNLISTED_FIT = 0.7
"""For a question asking which things (plural) a default is: a default stated without a list of items ranks
below one with its items, and is not the answer found ('gfortran 10 by default gives a compilation error' for
'Which Fortran compilers does it look for by default?')."""
_LISTED_ITEMS = 3
_ITEM_CHARS = 120
_CODE_MARK = re.compile(r"[/\\$=<>{}();|]|--|\s-\w")


_OPEN_LEAD_IN = re.compile(
    r"^(?!(?:what|which|how|who|where|when|why)\b)[A-Za-z][^|.:;!?\n]*\s(?:is|are|include|to|the value)$", re.IGNORECASE
)
"""A lead-in that ends on its verb, its complement standing in the block below ('Valid values are' over a list of
values, 'The format for a pipeline is' over the syntax, 'It defaults to' or 'Bash acts as if it had the value' over
a value set apart as code): not a heading, though as short as one."""


_ANNOUNCED = re.compile(r"\b(?:the following|as follows)\b(?!\s+(?:examples?|code|commands?|snippet)\b)", re.IGNORECASE)
"""A sentence that announces what follows it, whatever its last mark ('Only the following bitrates are supported,
otherwise ... the nearest valid bitrate.' over '4750' / '5150' / ...); not an example's introduction."""


def is_lead_in(text: str) -> bool:
    """Whether a sentence introduces what follows it: it ends in a colon, or on its verb (`_OPEN_LEAD_IN`), or it
    announces 'the following' things (`_ANNOUNCED`)."""
    line = text.strip()
    open_lead_in = len(line.split()) >= 3 and bool(_OPEN_LEAD_IN.match(line))
    return line.endswith(":") or open_lead_in or bool(_ANNOUNCED.search(line))


def _lists_items(text: str) -> bool:
    """Whether the text is a lead-in (`is_lead_in`) with at least three items under it, each a short line of
    words or names of its own ('Fatal' / 'Error' / ...), not lines of code or of commands.

    The lead-in is one paragraph, wrapped or not (plain-text manuals wrap at 80 columns); an item may carry a
    bullet, a closing ';' or ',', and a remark in parentheses ('- periodically check the servers' status (known
    as health checks);'), which are punctuation of prose, not code."""
    lead, colon, rest = text.partition(":\n")
    if not colon:  # a lead-in that ends on its verb: 'Valid values are' / its items
        lead, _, rest = text.partition("\n")
    lines = [_ITEM_PUNCTUATION.sub("", line.strip()) for line in rest.splitlines() if line.strip()]
    if not (colon or is_lead_in(lead)) or "\n\n" in lead.strip() or len(lines) < _LISTED_ITEMS:
        return False
    return all(len(line) <= _ITEM_CHARS and not _CODE_MARK.search(line) for line in lines)


_NAMED_ITEMS = re.compile(
    r"\b([a-z][\w-]*s)(?:\s+(?:are|include)\s*:?|\s*:)\s+(?:[\w.+#@/-]+(?:\s[\w.+#@/-]+)?,\s+){2,}"
)
"""A sentence that names the things it lists before their items ('Available filters are +zonefile, +journal,
+timers, ...', 'The supported formats include json, csv, xml', 'four types of identifiers: hw-address, duid,
client-id, and circuit-id')."""


_ITEMS_NAMED = re.compile(r"(?:[\w.+#@/-]+,\s+){2,}(?:and|or)\s+[\w.+#@/-]+\s+([a-z][\w-]*s)\b")
"""Items named before the things they are ('Contains json, pickle, msgpack, and yaml serializers.')."""


def _names_its_items(text: str, question: str) -> bool:
    """Whether the text lists its items under the name of the things the question asks for ('What filters can I
    give ...?': 'Available filters are +zonefile, +journal, +timers, ...'; 'Which serialization formats ...?':
    'json, pickle, msgpack, and yaml serializers'), not other things' items."""
    asked = set(terms_of(question))
    named = [*_NAMED_ITEMS.finditer(text), *_ITEMS_NAMED.finditer(text)]
    return any(set(terms_of(match.group(1))) <= asked for match in named)


_ITEM_PUNCTUATION = re.compile(r"^(?:[-*•]|\d+[.)])\s+|\s*\([\w\s',.-]*\)|[;,.]+$|\s+(?:and|or)$")
"""A list item's bullet, its remarks in parentheses and its closing punctuation."""


_COMMAND_LINE = re.compile(r"^\s*(?:\$|>>>|%|#)\s+\S")
"""A line typed at a prompt ('$ git merge -s ours obsolete'): an example's command, not an item of a list."""
_CAUSE = re.compile(
    r"\b(?:because|so that|in order to|by (?:\w+ing)|when|whenever|which (?:means|causes)|therefore|thus|"
    r"this (?:means|allows|causes)|as a result|first|then|after|before)\b",
    re.IGNORECASE,
)
_TOOL = (
    r"(?:command|subcommand|option|flag|switch|function|method|directive|setting|variable|tool|utility|program|"
    r"script|builtin|action|keyword|parameter|module|middleware|hook)"
)
_NAMED = r"[`'‘\"<]?[\w.:/<>+-]+[`'’\">]?"
_MEANS = re.compile(
    r"\byou (?:can|could|may|should|must|need to|have to|will need to|might want to)\b[^.;:]{0,80}?\bby \w+ing\b"
    rf"|\b(?:use|using|with|via|through|run|running|call|calling|invoke|invoking|issue|issuing|pass|passing)\s+"
    rf"(?:the\s+|a\s+|an\s+)?{_NAMED}(?:\s+{_NAMED}){{0,2}}\s+{_TOOL}\b"
    rf"|\bthe {_TOOL} (?:that|which|to use|for this)\b[^.;:]{{0,60}}?\b(?:is|are)\s+{_NAMED}"
    r"|\b(?:can|may|should|must|is|are) (?:be )?(?:\w+ed|done|run|set|made|turned (?:on|off)) "
    r"(?:\w+ly )?(?:using|with the|by \w+ing|by means of|via)\b"
    r"|\b(?:should|must|needs? to|has to) be (?:called|run|invoked|executed|loaded|autoloaded|sourced|enabled)\b"
    r"|\b(?:is|are) (?:highly |strongly )?(?:recommended|advised|advisable) (?:that|to)\b"
    r"|\bwe (?:strongly )?recommend\b",
    re.IGNORECASE,
)
"""A sentence that names the means to an end: 'You can fix this by tagging the reply ...', '... using the
<link-threads> function', 'This can be done using the kea-admin db-upgrade command', 'The command that backs all
this is squashmigrations', 'it is highly recommended that the server sets a look-ahead window': the way asked
for, where a sentence with 'when' or 'then' may only describe."""
IMPERATIVE = re.compile(
    r"^(?:(?:conversely|alternatively|instead|otherwise|similarly|likewise|additionally|first|next|finally),\s*)?"
    r"(?:(?:to|if you want to|in order to)\s[^,.;:]{3,80},\s*)?(?:then\s+|simply\s+|just\s+)?"
    r"(?:add|append|prepend|set|use|run|edit|put|insert|call|pass|specify|enable|disable|configure|create|install|"
    r"type|click|open|select|include|change|remove|delete|replace|restart|reload|start|stop|load|define|write|"
    r"mount|invoke|execute|issue|give|supply|place|uncomment|comment out)\s",
    re.IGNORECASE,
)
"""A sentence that tells the reader what to do, first thing ('Append the keyword nts to the end of your server
lines.', 'To see more, run udevadm ...', 'Conversely, to disable it for one block, include ...'): the step itself,
where a sentence merely mentioning an instruction word describes."""


_ASKED_ACTION = re.compile(
    r"\bhow (?:do|can|should|would|could) (?:i|you|we|one) (?:\w+ly )?([a-z]+)\b|\bhow to (?:\w+ly )?([a-z]+)\b",
    re.IGNORECASE,
)
_TOLD_ACTION = re.compile(
    r"(?:\b(?:you|one|we)\s+(?:should|must|need\s+to|have\s+to|can|may)\s+|^|[.;:]\s+)"
    r"(?:(?:first|also|then|simply|just|now)\s+)?([a-z]+)\b",
    re.IGNORECASE,
)


def _does_asked_action(question: str, text: str) -> bool:
    """Whether the text tells the reader to do the very thing the question asks how to do: 'How do I register it?'
    / 'Next, you should register that function as an entry point.', or the verb as an instruction ('Register
    ...')."""
    asked = _ASKED_ACTION.search(asking_part(question))
    verb = (asked.group(1) or asked.group(2)).lower() if asked else ""
    if verb in _GENERAL_ACTIONS or not content_terms(verb):
        return False
    stem = content_terms(verb)[0]
    told = (m.group(1).lower() for m in _TOLD_ACTION.finditer(_STEP_OPENING.sub("", text.lstrip())))
    return any(content_terms(word)[:1] == [stem] for word in told)


_GENERAL_ACTIONS = frozenset(["do", "make", "get", "use", "have", "be", "go", "see", "know", "find", "tell", "work"])
"""Verbs that say too little to be the asked action itself ('How do I do that?')."""
_STEP_OPENING = re.compile(r"^(?:(?:next|then|first|finally|now|alternatively|instead),\s*)", re.IGNORECASE)


def tells_means(text: str) -> bool:
    """Whether the text tells how to do something: a step told first thing (`IMPERATIVE`), a means named
    (`_MEANS`), or a command typed at a prompt."""
    return bool(
        IMPERATIVE.match(text.lstrip())
        or _MEANS.search(text)
        or any(_COMMAND_LINE.match(line) for line in text.splitlines()[1:])
    )


_VERSION = re.compile(
    rf"\b(?:version|release|v)\s*\d[\w.]*|\b\d+\.\d+\.\d+\b|{STANDARD_NAME}|{DOCUMENT_PART}",
    re.IGNORECASE,
)
"""Version numbers name a release, 'RFC 7159', 'UTF-8' or 'SHA-256' a standard, 'Example 3.5' a part of the
document; none is the figure a question asks for."""
_VERSION_ASKED = re.compile(r"\b(?:versions?|releases?|oldest|newest|minimum\s+supported)\b", re.IGNORECASE)
"""A question for a release: by name, or as the oldest or newest of something ('the oldest Rust toolchain that can
still build it')."""
_VERSION_BOUND = re.compile(
    r"\b(?:before|after|since|prior\s+to|earlier\s+than|later\s+than|older\s+than|newer\s+than|up\s+to|through)\s+"
    r"(?:version\s+|v)?\d+(?:\.\d+)+\b|\b\d+(?:\.\d+)+\s+(?:and|or)\s+(?:later|earlier|newer|older|above|below)\b",
    re.IGNORECASE,
)
"""Releases stated by a bound: 'versions before 2.28.0', '3.8 and later'."""
_HOW_MANY = re.compile(r"\bhow many\b", re.IGNORECASE)
_HOW_MUCH_OF = re.compile(r"\bhow much of\b", re.IGNORECASE)
_PORTION = re.compile(
    r"\b(?:only|just)\s+(?:the\s+)?(?:first|last|initial|final)\b|\b(?:all|none|each)\s+of\s+(?:the|its|their)\b"
    r"|\bthe\s+(?:entire|whole|complete)\b",
    re.IGNORECASE,
)
"""A part of a whole said in words ('only the first line', 'all of the output'): how much of something is used."""
_MEASURE = re.compile(
    r"\b\d+(?:\.\d+)?\s?(?:[KMGTP]i?B|[kKMGT]B|bytes?|bits?|ms|seconds?|minutes?|hours?|days?|weeks?|"
    r"characters?|chars|pages?|rows?|columns?|levels?|entries|items|connections?)\b"
)
"""A figure with its unit ('1 GB', '5 minutes'): a measure, even when the figure is 0 or 1."""
_MEASURED = re.compile(
    r"\bhow\s+(?:many|much|long|large|big|small|deep(?:ly)?|high|wide|far|old|often)\s+"
    r"(?:(?:is|are|was|were|does|do|did|can|could|may|must|should|will|would)\s+)?(?:(?:the|a|an)\s+)?(?P<how>[^?,]+)"
    r"|\b(?:what\s+(?:is|are)\s+the|(?:is|are)\s+there\s+(?:a|an|any))\s+(?:[\w-]+\s+){0,3}?"
    r"(?:size|length|number|period|precision|depth|count|amount|duration|width)\s+(?:of|for)\s+(?:(?:the|a|an)\s+)?"
    r"(?P<of>[^?,]+)"
    r"|\b(?:what|which)\s+(?P<valued>(?-i:[a-z]+))\s+values?\b",
    re.IGNORECASE,
)
"""What a figure question measures: 'how large is X', 'what is the size of X', 'is there a maximum length for X',
'what timeout values ...' (timeouts)."""
_REMARK = re.compile(r"\([^()]*\)")
"""A parenthesised remark of a question, which the sentence reads the same without."""
_UNIT_COUNT = re.compile(
    r"\bhow\s+many\s+(?:bytes|bits|octets|characters|chars|digits)\s+"
    r"(?:does|do|did|can|could|will|would|should|must)\s+(?:(?:the|a|an|each|every)\s+)?(?P<thing>[^?,]+)",
    re.IGNORECASE,
)
"""'How many bytes does the message length field take?': a size in units, of the thing the verb's subject names (a
duration's verb names an actor instead: 'How many seconds does the server wait?' measures the wait)."""
_PHRASE_END = re.compile(
    r"\s(?:at|in|on|of|for|before|after|when|within|by|from|to|into|than|that|which|can|could|may|must|"
    r"should|will|would|is|are|be|been|does|do|has|have)\s",
    re.IGNORECASE,
)
_MEASURED_MAX_TERMS = 3
_PARTICIPLE_END = re.compile(r"(?<=\w)\s+[a-z]+ed\s*$")
"""A participle after the measured noun ('the number of tasks allowed'): what is said of it, not its name."""
MEASURED_SUBJECT_FIT = 0.7
"""The answer strength of a figure in a span that names none of what the question measures ('How large is the
database file header?' answered by '... begins with the following 16 bytes'): a figure of something else."""
_SMALL_WORDS = frozenset(["of", "and", "the", "for", "in", "a", "an", "to", "on", "or", "with", "by", "at"])
_SMALL_WORDS |= frozenset(["than", "as", "from", "into", "per"])


def _shows_commands(text: str) -> bool:
    """Whether what follows a lead-in's colon is mostly command lines: examples of use ('Merge branch obsolete
    ...:' / '$ git merge -s ours obsolete'), which name no items of what a list question asks for."""
    _, colon, rest = text.partition(":")
    lines = [line for line in rest.splitlines() if line.strip()] if colon else []
    return bool(lines) and 2 * sum(bool(_COMMAND_LINE.match(line)) for line in lines) >= len(lines)


def measured_subject(question: str) -> list[str]:
    """The terms of what a figure question measures: 'How large is the database file header at the beginning
    of ...' -> database, file, header; 'What is the period of the Mersenne Twister generator?' -> mersenn,
    twister, generat; 'How many bytes does the message length field take?' -> messag, length, field (bytes
    are the unit, not the thing). Up to the first preposition or verb, at most the last three terms."""
    question = _REMARK.sub(" ", question)  # 'a proxy (frontend, backend or listen section) name': a proxy name
    unit = _UNIT_COUNT.search(question)
    if unit is not None:
        end = _PHRASE_END.search(f" {unit.group('thing')} ")
        thing = f" {unit.group('thing')} "[: end.start() if end else None].split()
        return content_terms(" ".join(thing[:-1]))[-_MEASURED_MAX_TERMS:]  # without its verb ('take')
    match = _MEASURED.search(question)
    if match is None:
        return []
    phrase = f" {match.group('how') or match.group('of') or match.group('valued')} "
    end = _PHRASE_END.search(phrase)
    head = _PARTICIPLE_END.sub("", phrase[: end.start()] if end else phrase)  # 'tasks allowed': tasks
    return content_terms(head)[-_MEASURED_MAX_TERMS:]  # the head noun ends an English noun phrase


_FIGURE_OF_ANOTHER = re.compile(
    r"\b\d[\d,.]*-(?:[a-z]+)\s+(?P<modified>(?:[\w-]+\s+){0,2}?[\w-]+)(?=\s+(?:at|in|of|for|from|to|that|which|and|or)\b|[,.;:)]|$)"
    r"|\b(?P<noun>[a-z]+)\s+of\s+\d[\d,.]*",
    re.IGNORECASE,
)
"""A figure that says what it measures: '4-byte big-endian integer' (a compound modifier: the integer is 4
bytes), 'an offset of 32' (the offset is 32)."""
_MEASURE_WORDS = frozenset(
    content_terms("size length number period precision depth count amount duration width value total maximum")
    + content_terms("minimum limit default range capacity")
)
"""Nouns that name a measure rather than a thing: 'a size of 100' may be the asked thing's size."""


_DIMENSION = re.compile(
    r"\bhow\s+(?:long|large|big|small|deep(?:ly)?|high|wide|far|old)\b"
    r"|\b(?:size|length|period|precision|depth|duration|width)\s+of\b",
    re.IGNORECASE,
)
"""A question that asks how big something is, not how many of it there are."""
_COUNT = re.compile(r"\b\d[\d,.]*\s+(?P<counted>[a-z]+)\b", re.IGNORECASE)


def _figures_of_other_things(measured: list[str], text: str, question: str = "") -> str:
    """The text without the figures that say they measure something the question does not ask about, and,
    when the question asks for a size or a length, without counts of the measured thing ('a limit of 10
    messages' does not say how large a message may be)."""

    def other(match: re.Match[str]) -> bool:
        named = content_terms(match.group("modified") or match.group("noun"))
        return not set(named) & (set(measured) | _MEASURE_WORDS)

    kept = _FIGURE_OF_ANOTHER.sub(lambda m: " " if other(m) else m.group(0), text)
    if measured and _DIMENSION.search(question):
        head = measured[-1]
        kept = _COUNT.sub(lambda m: " " if content_terms(m.group("counted")) == [head] else m.group(0), kept)
    return kept


def _counts_instead(question: str, text: str) -> bool:
    """Whether every figure of `text` counts the thing whose size or length the question asks for."""
    measured = measured_subject(question)
    if not measured or not _DIMENSION.search(question):
        return False
    asked = set(numbers_in(question))
    if not [n for n in numbers_in(text) if n not in asked]:
        return False
    return not [n for n in numbers_in(_figures_of_other_things(measured, text, question)) if n not in asked]


_NUMBER_OF = re.compile(r"\b(?:number|count)\s+of\s+(?:the\s+)?([a-z][\w-]*)", re.IGNORECASE)
"""What a count counts: 'the number of tasks', 'Maximum number of retries'."""


def _measures_asked_thing(question: str, text: str) -> float:
    """How much of what the question measures the span names: a factor from `MEASURED_SUBJECT_FIT` to 1.

    A span that does not name the measured thing's head noun ('begins with the following 16 bytes' names the
    database file, not its header), or whose every figure says it measures something else ('stores the page
    number as a 4-byte integer at an offset of 32'), gets the least."""
    measured = measured_subject(question)
    if not measured:
        return 1.0
    counted = [set(terms_of(match.group(1))) for match in _NUMBER_OF.finditer(text)]
    if _NUMBER_OF.search(question) and counted and not any(terms & set(measured) for terms in counted):
        return MEASURED_SUBJECT_FIT  # 'Maximum number of retries ...' for the number of tasks in a chord
    asked_numbers = set(numbers_in(question))
    figures = _figures_of_other_things(measured, _VERSION.sub(" ", text), question)
    if not [n for n in numbers_in(figures) if n not in asked_numbers]:
        return MEASURED_SUBJECT_FIT
    present = set(terms_of(text))  # with an identifier's parts: 'thread_pools' names thread pools
    if measured[-1] not in present:  # 'the database file' is not 'the database file header'
        return MEASURED_SUBJECT_FIT
    share = sum(term in present for term in measured) / len(measured)
    return MEASURED_SUBJECT_FIT + (1 - MEASURED_SUBJECT_FIT) * share


_COUNTING = re.compile(r"\b(?:number|count)\s+of\b|\bhow\s+many\b|\b(?:unlimited|no limit)\b", re.IGNORECASE)


def _counts_something(question: str, text: str) -> bool:
    """Whether a text can hold the count 'how many X' asks for: it names X or says it counts something ('how
    many entries to store ... The default value is 1000'). A default that does neither is another thing's: 'the
    default IP address from 127.0.0.1' for how many threads a server runs. Units are left to the figures."""
    counted = counted_thing(question)
    if counted is None or counted.lower() in _NOT_COUNTED:
        return True
    return bool(set(terms_of(counted)) & set(terms_of(text))) or _COUNTING.search(text) is not None


def _initials(text: str) -> list[tuple[int, str]]:
    """(which word, part) for every part of every word, splitting CamelCase words ('JavaScript'); hyphenated
    words ('Write-Ahead') are two words."""
    found: list[tuple[int, str]] = []
    for index, word in enumerate(_WORD.findall(text)):
        for part in re.findall(r"[A-Z]?[a-z']+|[A-Z]+(?![a-z])", word) or [word]:
            found.append((index, part))
    return found


def _spells(letters: str, words: list[str], hyphenated: Sequence[bool] = ()) -> int:
    """How many of `words`, from the first, spell `letters` by their initials (0 if they do not).

    A word may give more than its initial when the next letters follow in it ('Database' for 'DB'), unless it is
    a small word or a stopword ('mark the' spells no MATE); small words ('of', 'and'), and the second half of a
    hyphenated word (`hyphenated[i]`: 'Memory-Mapped' gives the M of LMDB), may be skipped once the spelling has
    begun."""

    def match(i: int, j: int) -> int:
        if j == len(letters):
            return i
        if i >= len(words):
            return 0
        word = words[i].lower()
        crossed = letters[j] == "x" and word.startswith(_CROSSED)  # 'Cross-Site Scripting' for XSS
        if word[0] == letters[j] or crossed:
            most = 1 if crossed or word in _SMALL_WORDS or word in STOPWORDS else len(letters) - j
            for used in range(most, 0, -1):  # the most letters first
                if _in_order(letters[j + 1 : j + used], word[1:]):
                    end = match(i + 1, j + used)
                    if end:
                        return end
        if j > 0 and (word in _SMALL_WORDS or (i < len(hyphenated) and hyphenated[i])):
            return match(i + 1, j)
        return 0

    return match(0, 0)


_CROSSED = ("cross", "trans")
"""What an X stands for by convention ('Cross-Site Scripting' for XSS)."""


def spelled_by(acronym: str, phrase: str) -> bool:
    """Whether the words of `phrase`, all of them, spell `acronym` by their initials ('Dynamic Shared Object' for
    'DSO', 'write-ahead log' for 'WAL')."""
    letters = "".join(c.lower() for c in acronym if c.isalpha())
    words = [part for _, part in _initials(phrase)]
    return len(letters) >= 2 and len(words) >= 2 and _spells(letters, words) == len(words)


def _in_order(letters: str, word: str) -> bool:
    position = 0
    for letter in letters:
        position = word.find(letter, position) + 1
        if position == 0:
            return False
    return True


_NAMED_NEAR = 40
"""Characters around a lower-case spelling within which the abbreviation itself must stand: 'write-ahead log
(WAL)' expands WAL, while '... by matching the key criteria' two sentences after 'MATE' does not."""


def expands(acronym: str, text: str) -> float:
    """1.0 when consecutive words of `text`, within one sentence, spell `acronym` by their initials (small words
    may be skipped), with a capital on the first word or the acronym itself within `_NAMED_NEAR` characters;
    0.6 for another spelling."""
    letters = "".join(c.lower() for c in acronym if c.isalpha())
    if len(letters) < 2:
        return 0.0
    if _abbreviated_as(letters, text):
        return 1.0
    parts = _initials(text)
    words = [part for _, part in parts]
    spans = [match.span() for match in _WORD.finditer(text)]
    hyphenated = [text[spans[index][0] - 1 : spans[index][0]] == "-" for index, _ in parts]
    named = [match.start() for match in re.finditer(rf"\b{re.escape(acronym)}s?\b", text)]  # 'NCRs' too
    best = 0.0
    for start in range(len(words)):
        end = _spells(letters, words[start:], hyphenated[start:])
        if not end or (end == 1 and words[start].lower() == acronym.lower()):
            continue
        phrase = words[start : start + end]
        first, last = spans[parts[start][0]][0], spans[parts[start + end - 1][0]][1]
        near = any(_joined(text, at, len(acronym), first, last, phrase[0][:1].islower()) for at in named)
        one_word = end > 1 and parts[start][0] == parts[start + end - 1][0]
        if (end == 1 and len(letters) > 2) or (one_word and not (near and _camel_case_words(phrase, acronym))):
            continue  # one word is not an expansion ('MPMs' read as 'MP' + 'Ms'), unless it joins words
        if any(letters in word.lower() for word in phrase) or _SENTENCE_END.search(text, first, last):
            continue  # words built on the abbreviation, or across sentences ('... the default. Note' for DANE)
        if "".join(phrase).lower() == letters:
            continue  # the name spelled another way ('not "DocUtils" or "Doc-Utils"'), not spelled out
        if text[first - 1 : first] == "_" or text[last : last + 1] == "_":
            continue  # words of an identifier ('root_list_children'), not of prose
        best = max(best, 1.0 if phrase[0][:1].isupper() or near else 0.6)
        if best == 1.0:
            break
    return best


_ABBREVIATED = re.compile(
    r"\(\s*(?:abbreviated|abbrev\.|abbr\.|short|shortened)(?:\s+(?:as|to))?\s+[\"'“‘`]?([\w.-]+?)[\"'”’`]?\s*\)"
    r"|\b(?:abbreviated|shortened)\s+(?:as|to)\s+[\"'“‘`]?([\w.-]+?)[\"'”’`]?(?=[\s,.;:)]|$)",
    re.IGNORECASE,
)
_ABBREVIATED_NEAR = 60
"""Characters before an abbreviation's mark in which the words it shortens stand."""


def _abbreviated_as(letters: str, text: str) -> bool:
    """Whether the text says in words that a word shortens to the abbreviation ('the spectroscopy context
    (abbreviated sp)', 'Pretty Good Privacy, abbreviated as PGP'): a word just before the mark that opens with
    the abbreviation's first letter and holds its letters in order."""
    for mark in _ABBREVIATED.finditer(text):
        short = "".join(c for c in (mark.group(1) or mark.group(2)).lower() if c.isalpha())
        if short != letters:
            continue
        before = _WORD.findall(text[max(0, mark.start() - _ABBREVIATED_NEAR) : mark.start()])[-4:]
        if any(word[:1].lower() == letters[0] and _in_order(letters, word.lower()) for word in before):
            return True
    return False


def _camel_case_words(parts: list[str], acronym: str = "") -> bool:
    """Whether the parts of one word are words of their own, each a capital and lower-case letters: a name written
    in CamelCase ('NameChangeRequests (NCRs)') spells out its abbreviation as words would; 'MPMs' does not. A
    one-letter prefix in lower case counts when the abbreviation keeps it ('cElementTree (cET)')."""
    if len(parts) >= 2 and len(parts[0]) == 1 and parts[0].islower() and acronym.startswith(parts[0]):
        parts = parts[1:]
    return all(len(part) >= _CAMEL_PART_CHARS and part[0].isupper() and part[1:].islower() for part in parts)


_CAMEL_PART_CHARS = 3


def _joined(text: str, at: int, length: int, first: int, last: int, lower: bool = False) -> bool:
    """Whether the abbreviation at `at` stands within `_NAMED_NEAR` characters of the words `first`..`last` and is
    set off from them ('write-ahead log (WAL)', 'WAL, the write-ahead log'): the abbreviation followed by a bare
    space is the subject of the words that spell it ('PAM provides account management' is no expansion of PAM).
    Words in lower case joined to it by a conjunction are another thing ('the KDC or kadmind daemons can')."""
    if not first - _NAMED_NEAR <= at <= last + _NAMED_NEAR:
        return False
    gap = text[at + length : first] if at < first else text[last:at]
    far = len(gap.strip()) > _LOWER_GAP_CHARS and not _SAYS_SPELLED.search(gap)
    if lower and (far or _NOT_PROSE_GAP.search(gap)):
        return False  # 'children (--TR T2) 0.0634 msec/pass | cET': a table's cells, not words that spell it
    return bool(gap.strip()) and not (lower and _CONJUNCTION_GAP.fullmatch(gap))


_LOWER_GAP_CHARS = 8
"""At most this much stands between words in lower case and the abbreviation they spell ('write-ahead log (WAL)',
'WAL, the write-ahead log'); capitals spell it surely from further off."""
_NOT_PROSE_GAP = re.compile(r"[\d_]")
_SAYS_SPELLED = re.compile(r"\b(?:short\s+for|stands?\s+for|abbreviat\w*|acronym|means|i\.e\.|that\s+is)\b", re.I)
"""Words that say the abbreviation is spelled out, however far ("'hf' is short for 'header field'")."""


_CONJUNCTION_GAP = re.compile(r"\s+(?:and|or|nor|and/or)\s+", re.IGNORECASE)


def expanded_in(acronym: str, text: str) -> bool:
    """Whether `text` uses the acronym and spells it out ('... TOAST (The Oversized-Attribute Storage Technique)');
    an acronym asked in lower case is found in any case ('bash' in 'Bash is ... an acronym for the Bourne-Again
    SHell'), one in capitals only as written ('FATE', not 'fate')."""
    flags = 0 if sum(c.isupper() for c in acronym) >= 2 else re.IGNORECASE
    return re.search(rf"\b{re.escape(acronym)}s?\b", text, flags) is not None and expands(acronym, text) == 1.0


_DEFAULT_WORD = re.compile(
    r"\bdefault(?:s|ed|ing)?\b|\binitially\b|\bunless\b|\bif (?:not|omitted|unset|unspecified|absent)\b"
    r"|\bif (?:left )?(?:blank|empty)\b"
    r"|\b(?:if|when)\b[^.,;:]{0,40}?\b(?:is|are)(?: not|n't) "
    r"(?:set|initiali[sz]ed|defined|given|specified|configured)\b"
    r"|\b(?:if|when)\s+no\b[^.,;:]{0,40}?\b(?:is|are)\s+(?:\w+\s+)?(?:set|defined|given|specified|configured)\b",
    re.I,
)
"""Where a text states a default: the word, or the condition it holds under ('If the environment variable is not
initialized, EDITOR will be set to "emacs".', 'If no timeout is specified explicitly, ...')."""
_NEAR = 80
"""Characters after (and half as many before) the word 'default' in which its value is looked for."""
_LABEL_END = re.compile(r":\s")
"""Where a field's label ends ('Effect if unset: ...'): its words are no value."""
_NEGATED_CLAUSE = re.compile(r"(?:\b(?:not|never)|n[’']t)\b[^,;:()]*$", re.IGNORECASE)
"""A clause, up to the word 'default', that says what is not done ('doesn't listen on any LAN interfaces by')."""
_REPLACES = re.compile(
    r"\b(?:overrid(?:e|es|ing|den)|replac(?:e|es|ing)|instead of|rather than|other than)\s+"
    r"(?:(?:the|its|this|their)\s+)?$",
    re.IGNORECASE,
)
"""Words before 'default' that say the value near it is not the default but what replaces it."""
_REPLACEABLE = re.compile(
    r"\b(?:can|may|could|might|should|must)\s+(?:also\s+|still\s+)?be\s+"
    r"(?:overridden|changed|replaced|altered|modified|set|configured|adjusted)\b|\bunless\b",
    re.IGNORECASE,
)
"""Words after 'default' that say what follows them replaces it: 'The default ... paths can be overridden by the
DOCUTILSCONFIG environment variable' names no default, nor does the condition after 'unless' ('it will not be
extracted unless EXTRACT_ALL is set to YES')."""


_KEYWORD_ARGUMENT = re.compile(r"=(?!=)")
"""Right after 'default': a keyword argument in code ('default=8000'), the default of one parameter."""
_ASKS_ACTION = re.compile(r"\bwhat\s+(?:does|do|will|would|should)\b.+\bdo\b|\bwhat happens\b", re.IGNORECASE)
"""'What does postscreen do by default when ...?' asks for an action; 'This test is enabled by default.' is none."""
_NOT_COUNTED = (  # noqa: SIM905 (a word list reads best as words)
    "seconds minutes hours days weeks months years milliseconds microseconds bytes kilobytes megabytes gigabytes "
    "characters chars bits octets digits letters words lines pages blocks "
    "is was has does means uses takes makes needs gets keeps seems remains stays applies"
).split()
_COUNTED_THINGS = re.compile(rf"(?:\s+[a-z]+)?\s+(?!(?:{'|'.join(_NOT_COUNTED)})\b)[a-z]{{2,}}s\b")
"""After a number: the things it counts ('two default workers'), unless they are units (or the verb after it)."""
_HOW_LONG = re.compile(
    r"\bhow\s+(?:long|often|frequently|soon)\b|\b(?:duration|period)\s+of\b|\bwhat\s+(?:frequency|interval)\b",
    re.IGNORECASE,
)
"""A question that asks for a time: how long, how often, at what interval."""
_TIMED = re.compile(
    r"(?:\d|\b(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|sixty))\s*-?\s*"
    r"(?:[mun]?s|m|h|d|w|secs?|seconds?|mins?|minutes?|hours?|hrs?|days?|weeks?|months?|years?|"
    r"(?:milli|micro|nano)seconds?|characters?|chars?|bytes?|octets?|digits?|letters?)\b",
    re.IGNORECASE,
)
"""A figure with the unit of a time, or of a length ('24 hours', 'six weeks', '5.722 secs', '26 characters')."""
UNTIMED_FIT = 0.4
"""The answer strength, for a question asking how long or how often, of a span whose figures carry no unit of
time or length: an option's code or a count ('elapsed-time | 8 | ...') is no duration."""
ATTRIBUTE_LINE = re.compile(
    r"^\s*(?P<name>[A-Za-z_][\w.]*)\s*=\s*(?:-?\d[\w.]*|True|False|None|'[^'\n]{0,40}'|\"[^\"\n]{0,40}\""
    r"|\((?:\s*(?:'[^'\n]{0,30}'|\"[^\"\n]{0,30}\"|-?\d[\w.]*),?)*\s*\)|\[(?:\s*(?:'[^'\n]{0,30}'|\"[^\"\n]{0,30}\"|-?\d[\w.]*),?)*\s*\])"
    r"\s*$"
)
"""An attribute's line in an API reference, its name and the value it holds unless set ('visibility_timeout = 3600',
"methods_with_bodies = ('POST', 'PUT', 'PATCH')")."""
_SWITCH = re.compile(r"^(?:enabled|disabled|on|off|yes|no|true|false)$", re.IGNORECASE)
_ASKS_THING = re.compile(
    r"\b(?:which|what)\s+(?!(?:is|are|was|were|does|do|did|will|would|can|happens|value|values|setting|settings|"
    r"state|option|options|behaviou?r)\b)[a-z]+\b",
    re.IGNORECASE,
)
"""'Which port ...?', 'What output file name ...?': a question for a thing, which a switch's state ('The debugger is
enabled by default') is not; 'What is the default ...?' or 'What value ...?' may be answered by one."""
_IN_A_NAME = re.compile(r"(?<=[A-Za-z])\d")
"""A digit that a name goes on with ('db2', 'IPv6'): part of the name, no figure."""
_FIGURE_VALUE = re.compile(r"\d|(?:zero|one|two|three|four|five|ten|unlimited|infinite|no limit|the same)\b", re.I)
"""A value token that can be an amount: a figure, a number word, no limit; not a name or a quoted word."""
_ASKS_FIGURE = re.compile(
    r"\bhow\s+(?:much|many)\b|\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:port|number|percentage)s?\b",
    re.IGNORECASE,
)
"""How much, how many, or which of a thing that is a figure ('Which port ...?'): a name ('HTML') is no answer."""
_ASKS_SIZE = re.compile(r"\bhow\s+(?:large|big|small)\b|\b(?:largest|biggest|smallest)\b|\bsize\b", re.IGNORECASE)
_SHARE = re.compile(r"%|\b(?:percent(?:age)?|share|proportion|ratio|fraction)\b", re.IGNORECASE)
"""A question asking for a part of a whole, which a percentage answers."""


def _shares_only(numbers: list[str]) -> bool:
    """Whether every telling figure is a percentage: a part of a size, not a size."""
    telling = [n for n in numbers if n not in ("0", "1")]
    return bool(telling) and all(n.endswith("%") for n in telling)


_FIGURE_UNIT = re.compile(r"\d[\d,.]*\s?([A-Za-z]*)")
_DURATION_UNIT = re.compile(
    r"^(?:[mu]?s|m|h|d|w|[mun]?secs?|(?:milli|micro|nano)?seconds?|hrs?|mins?|minutes?|hours?|days?|weeks?|months?|years?)$"
)
"""Case matters: 'm' is minutes, 'M' megabytes."""
_SIZE_UNIT = re.compile(r"^(?:[kKMGT]i?B?|[kKMG]?bytes?|kilobytes?|megabytes?|gigabytes?|octets?)$")


_DURATION_WORD = re.compile(
    r"\d|\b(?:zero|one|two|three|four|five|ten|none|unlimited|infinite|no limit|same)\b|_", re.IGNORECASE
)
"""A default without a figure that can say how long: a number word, no limit, or a setting that holds the time
('defaults to default_ttl', 'the same value as the connection timeout'); a quoted word ('hit-for-miss') or a
constant's name cannot."""


_COUNT_OF = re.compile(r"\b(?:number|count) of\b", re.IGNORECASE)
_SIZE_WORD = re.compile(r"\b(?:size|length|bytes?|octets|kilobytes|megabytes|gigabytes|large|big)\b", re.IGNORECASE)
"""A text that counts things ('the maximum number of original recipients for any message') and never speaks of
a size gives a count, not how large anything may be."""
_HOLDS_ITEMS = frozenset(content_terms("cache pool queue backlog history stack"))
"""Things whose size is how many items they hold: 'the number of templates kept in the cache defaults to 400'
is the cache's size, where the number of recipients is not a message's."""


def _fits_dimension(window: str, value: re.Match[str], size: bool, duration: bool) -> bool:
    """Whether a default's value can be the asked measure: a size is a figure, and not a time ('Default: 0s' for
    the largest message) nor a figure of some other thing ('Otherwise (the default) it gives a 452 error'); a
    duration is not a size ('Default: 50M' for how long)."""
    figure = _FIGURE_UNIT.match(window, value.start())
    unit = figure.group(1) if figure else None  # '50M' -> 'M', '24h' -> 'h', '100' -> ''; None for no figure
    if size:
        if unit is None or _DURATION_UNIT.match(unit):
            return False
        # 'holds 100 connections' may be a size (a pool's); 'a 452 error' is not
        return not _labelled(unit, _SIZE_UNIT, ("s",))
    if duration:
        if unit is None:  # no figure: a word or a name, which says how long only if it is a time word or a setting
            return bool(_DURATION_WORD.search(value.group()))
        # '0 set for the "Receive Message Wait Time" property' is no time; '0, meaning forever' may be one
        return not _SIZE_UNIT.match(unit) and not _labelled(unit, _DURATION_UNIT, ("s", "ing"))
    return True


def _labelled(word: str, units: re.Pattern[str], endings: tuple[str, ...]) -> bool:
    """Whether the word after a figure makes it a label, a code or one thing: a singular noun or a verb ('a 452
    error', '0 set for'), not one of `units`, a small word, or a word with one of `endings` (a plural: '100
    connections')."""
    short = len(word) <= 2 or word in STOPWORDS
    return not short and word.islower() and not word.endswith(endings) and not units.match(word)


def states_setting_value(text: str) -> bool:
    """Whether a sentence states a setting's value as reference entries do: a default, a limit or a range, with
    the value ('The default max-cache-ttl is 604800.'), not merely a figure ('Changed in version 3.5.1: ...')."""
    stated = _DEFAULT_STATEMENT.search(text) or _LIMIT_STATEMENT.search(text) or _states_bounds(text)
    return bool(stated and _VALUE_TOKEN.search(text))


_NAME_WORD = re.compile(r"[A-Za-z_][\w.]*[A-Za-z_]")


def _names_asked(value: str, asked_words: set[str]) -> bool:
    """Whether a value token that is a name, not a figure, is one of the question's own words."""
    name = value.strip("\"'“”‘’`").rstrip("()").lower()
    return not any(c.isdigit() for c in name) and name in asked_words


_UNFILLED = re.compile(r"^\W*(?:(?:is|are|value(?:\s+is)?|to|of)\s+|=\s*)?[\"'`]?@[A-Za-z_][\w.-]*@")
"""A default given as a build system's placeholder that was never substituted ('default is @conf_mapsize@ MiB',
as autoconf writes '@sysconfdir@'): the manual names no value."""


_DEFAULTED = re.compile(
    r"\bdefault\s+((?:[a-z][\w-]*\s+){0,2}?[a-z][\w-]*)(?=\s+(?:for|of|in|on|when|if|with|used|that|is|are|was|"
    r"does|do|should|will|set|to)\b|\s*[?,;:]|\s*$)",
    re.IGNORECASE,
)
_DENIAL = re.compile(r"(?:\b(?:not|never|no)|n[’']t)\s+((?:[\w-]+\s+)?[\w-]+)", re.IGNORECASE)


@functools.lru_cache(maxsize=256)
def _defaulted_terms(question: str) -> frozenset[str]:
    """What a question asks the default of, less the words that name a measure: 'timeout' for 'default timeout for
    requests.get?', nothing for 'the default value of ...'."""
    match = _DEFAULTED.search(question)
    return frozenset(content_terms(match.group(1))) - _MEASURE_WORDS if match else frozenset()


def _denies(text: str, things: frozenset[str]) -> bool:
    """Whether the text denies the asked thing itself, in the two words after its negation, as a compound too
    ('requests do not time out' of a timeout): having none is then the default."""
    for denial in _DENIAL.finditer(text):
        said = denial.group(1).lower().split()
        if {t for word in [*said, "".join(said)] for t in content_terms(word)} & things:
            return True
    return False


def _default_strength(text: str, question: str = "") -> float:
    """1 when a value stands near the word 'default' ('defaults to 28 places', 'The default is 100'),
    0.45 when the text speaks of a default without giving one, else 0. A question about what something does,
    how long something takes or is, how large, how much or how many, is not answered by a default that only
    switches something on or off ('recipients_max_reject | Default: false' for the largest message), and how
    long not by a number of things that are not units ('the two default workers'). A default of another
    measure, a time, a word or a count for a size or a size for a duration, or a name for how many or how much,
    answers nothing (0)."""
    action = bool(_ASKS_ACTION.search(question))
    measure = bool(_HOW_LONG.search(question))
    size = bool(_ASKS_SIZE.search(question)) and not measure
    figure = bool(_ASKS_FIGURE.search(question))
    thing = bool(_ASKS_THING.search(question))
    counted = size and _COUNT_OF.search(text) is not None and _SIZE_WORD.search(text) is None
    counted = counted and not _HOLDS_ITEMS & set(measured_subject(question))
    asked_words = {word.lower() for word in _NAME_WORD.findall(question)}
    unchosen = _UNCHOSEN.search(question) is not None
    place = _ASKS_PLACE.search(question) is not None
    things = _defaulted_terms(question)
    best = 0.0
    for match in _DEFAULT_WORD.finditer(text):
        if action and _KEYWORD_ARGUMENT.match(text, match.end()):
            continue  # '@click.option('--port', default=8000)' sets a parameter's default; it does nothing
        before = _SENTENCE_END.split(text[max(0, match.start() - _NEAR // 2) : match.start()])[-1]
        before = _LABEL_END.split(before)[-1]  # a field's label is no value ('Effect if unset: Default value ...')
        denied = things and _denies(before, things)
        if _NEGATED_CLAUSE.search(before):
            before = ""  # 'Privoxy doesn't listen on any LAN interfaces by default': what is not done is no value
        if _REPLACES.search(before):
            continue  # 'overrides the default delay to retry after 1 minute': the value replaces the default
        if not (measure or size or figure) and _owned_by_other(text, match, question):
            continue  # 'The default access log format is: ...' for the User-Agent a client sends
        after = _SENTENCE_END.split(text[match.end() : match.end() + _NEAR], maxsplit=1)[0]  # the same sentence
        if unchosen and _CHOSEN.search(after):
            continue  # 'defaulted to 7-bit because you used -Cf' for what is used if no -C flag is passed
        after = _REPLACEABLE.split(after, maxsplit=1)[0]
        if denied or (things and _denies(after, things)):
            best = 1.0  # 'By default, requests do not time out' for the default timeout: it has none
            continue
        if _UNFILLED.match(after):
            best = max(best, 0.45)  # 'default is @conf_mapsize@ MiB': the build never filled the value in
            continue
        labelled = _LABELLED_VALUE.match(after)
        if labelled:
            after = after[labelled.end() - 1 :]  # 'The default value is: Helvetica.' gives it after the colon too
        window = after if after.startswith(":") else f"{before} {after}"  # 'Default: 100K' gives it after the colon
        if match.group().lower() == "unless" and "," not in after:
            # 'unless EXTRACT_ALL is set to YES.' closes its sentence: the default stands before it (while in
            # 'Unless otherwise configured, the probation period lasts 24 hours' it stands after the comma).
            window = before
        # A name the question gives is what the default is of, not its value ('taken from the variable EDITOR').
        values = [value for value in _VALUE_TOKEN.finditer(window) if not _names_asked(value.group(), asked_words)]
        if place and not values:  # 'If left blank the current directory will be used.' for where files go
            values = list(_PLACE.finditer(window))
        if not values and window.startswith(":") and match.group().lower().startswith("default"):
            # Whatever the colon of a default's label is followed by is its value ('Default: Helvetica'), unless it is
            # another label ('Effect if unset: Default value is used.').
            values = [word for word in [_COLON_WORD.match(window)] if word and not _DEFAULT_WORD.search(word.group())]
        stated = bool(values)  # a value of any kind: 'disabled by default' is a default, though not a size
        if action or measure or size or figure or thing:
            values = [value for value in values if not _SWITCH.match(value.group())]
        if measure:  # 'The two default workers ...' does not say how long anything takes
            values = [value for value in values if not _COUNTED_THINGS.match(window, value.end())]
        fitting = [] if counted else [value for value in values if _fits_dimension(window, value, size, measure)]
        if figure:  # 'values_only - this is the default value' is no count, nor the 2 of 'db2'
            fitting = [
                value
                for value in fitting
                if _FIGURE_VALUE.match(value.group().strip("\"'“”‘’`")) and not _IN_A_NAME.match(window, value.start())
            ]
        if stated and not fitting:
            continue  # a default of another measure ('Default: 0s', 'disabled' for a size) answers nothing
        best = max(best, 1.0 if fitting else 0.45)
    return best


_UNCHOSEN = re.compile(
    r"\b(?:(?:i|you|we)\s+(?:do(?:n't|n’t| not)|did(?:n't|n’t| not)|never)\s+(?:pass|give|set|specify|use|choose)"
    r"|without\s+(?:passing|giving|setting|specifying|using|choosing)|(?:if|when)\s+no\b)",
    re.IGNORECASE,
)
"""A question about what holds when nothing is chosen ('If I don't pass any -C flag, ...')."""
_CHOSEN = re.compile(
    r"\b(?:because|since|as|if|when|once)\s+(?:you|one|the user)\s+(?:have\s+)?"
    r"(?:used?|specif(?:y|ied)|gave|give|pass(?:ed)?|set|chose|choose|selected?|enabled?)\b",
    re.IGNORECASE,
)
"""A default stated as what follows a choice ('... defaulted to 7-bit because you used -Cf'), which is not what
holds when nothing is chosen."""
_ASKS_PLACE = re.compile(r"^(?:[^?]*?[,;]\s*)?where\b|\bin which (?:directory|folder)\b", re.IGNORECASE)
"""'If I don't set OUTPUT_DIRECTORY, where does doxygen write ...?': a question for a place."""
_PLACE = re.compile(
    r"\b(?:is|are|be|uses?|in)\s+(?:the\s+|an?\s+)?(?:[\w-]+\s+){0,2}(?:directory|folder|location|path)\b"
    r"|\b(?:directory|folder|location|path)\s+(?:is|will\s+be)\s+used\b",
    re.IGNORECASE,
)
"""A place in words given as a value ('... is the directory in which doxygen is started', 'the current directory will
be used'), which a question for a place is answered with; not the place a default is of ('the default location of
the state sockets')."""
_DEFAULT_OWNER = re.compile(r"\s+((?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:is|are|was)\b", re.IGNORECASE)
"""After 'default': what it is the default of, then its verb ('The default access log format is: ...')."""
_BY = re.compile(r"\bby\s+$", re.IGNORECASE)
"""'By' right before 'default': 'By default the working directory is used' says what is used, not what of."""
_SWITCHED_OWNER = re.compile(
    r",?\s+(?:the\s+)?((?:[A-Za-z][\w-]*\s+){0,2}?[A-Za-z][\w-]*)\s+(?:is|are)\s+(?:(?:turned|switched)\s+)?"
    r"(?:enabled|disabled|on|off|active|inactive|true|false)\b",
    re.IGNORECASE,
)
"""After 'By default': a thing, then the state it is in ('By default, SSL verification is enabled')."""
_PLAIN_WORDS = re.compile(r"^[a-z]+(?:\s+[a-z]+)*$")
"""Lower-case words only: a thing named in English ('access log format'), not a setting's name ('max-store-ttl')."""
_OWNER_GENERIC = frozenset(content_terms("value values setting settings option options behaviour behavior mode"))
"""Words that name no particular thing: 'The default value is ...' is the default of whatever is spoken of."""


def _owned_by_other(text: str, match: re.Match[str], question: str) -> bool:
    """Whether 'default' is followed by the name of what it is the default of, and that thing shares no word with
    the question: 'The default access log format is: ...' does not say what User-Agent a client sends by default,
    nor 'By default, SSL verification is enabled' what timeout a request has.
    Not for questions asking how long, how large or how many, which name their measure in other words than the
    text's ('How long does it wait?' / 'The default timeout is 30 s')."""
    word = match.group().lower()
    if word == "defaults" and _TO.match(text, match.end()):
        subject = _SUBJECT_BEFORE.search(text, 0, match.start())  # 'a part with no Content-Type defaults to ...'
        if subject is None or _PRONOUN.fullmatch(subject.group(1).strip()):
            return False  # 'It defaults to 30': what it is, the sentence before says
        return _names_other(subject.group(1), question)
    if word != "default":
        return False
    if _BY.search(text, 0, match.start()):
        # 'By default the working directory is used': what follows is the value, not its owner; but what is
        # switched on or off by default is the owner of that state.
        switched = _SWITCHED_OWNER.match(text, match.end())
        if switched is None:
            return False
        owner_words = switched.group(1)
    else:
        owner = _DEFAULT_OWNER.match(text, match.end())
        if owner is None or not _PLAIN_WORDS.match(owner.group(1)):
            return False  # a setting's name ('The default max-store-ttl is ...') is what a question paraphrases
        owner_words = owner.group(1)
    return _names_other(owner_words, question)


def _names_other(owner_words: str, question: str) -> bool:
    """Whether the words name a thing and share none of the question's words (nor their synonyms)."""
    named = set(content_terms(owner_words)) - _OWNER_GENERIC
    if not named:
        return False
    asked = _question_terms(question)  # with a setting's parts: 'OUTPUT_DIRECTORY' asks of the output directory
    return not any(term in asked or set(synonyms(term)) & asked for term in named)


_TO = re.compile(r"\s+to\b", re.IGNORECASE)
_SUBJECT_BEFORE = re.compile(r"(?:^|[,;:.]\s+|\b(?:that|which|where|when|and|but|if)\s+)((?:[\w'’-]+\s+){1,6})$", re.I)
"""The few words before 'defaults to' after a clause's start: what has the default ('a part with no Content-Type')."""
_PRONOUN = re.compile(r"(?:it|this|that|they|these|those|which|the\s+value|the\s+argument|the\s+parameter)", re.I)


_LABELLED_VALUE = re.compile(r"\s*(?:values?\s+)?(?:is|are|was)\s*:", re.IGNORECASE)
"""'default value is:': a label whose colon the value follows, as 'Default:' is."""
_COLON_WORD = re.compile(r":\s*[A-Za-z][\w.+-]*")
"""A word right after a label's colon: the value, whatever its form."""

_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'“‘(])|\n\s*\n")


def _limit_with_figure(text: str, asked_numbers: set[str]) -> bool:
    """Whether a sentence that states a limit (or a default) has a telling figure in it or in a sentence next
    to it ('The maximum depth can be set. The default is 1000.')."""
    sentences = _SENTENCE_BREAK.split(text)
    stated = [i for i, s in enumerate(sentences) if _LIMIT_STATEMENT.search(s) or _DEFAULT_STATEMENT.search(s)]
    figured = [
        i
        for i, s in enumerate(sentences)
        if any(n not in ("0", "1") and n not in asked_numbers for n in numbers_in(s)) or _MEASURE.search(s)
    ]
    return any(abs(i - j) <= 1 for i in stated for j in figured)


_NOTE_MARK = re.compile(r"\[\d{1,3}\]")
"""A footnote's or a citation's mark ('... (if it exists). [4]'): no figure of what the text states."""


_PERMITTED = re.compile(r"\b(?:allowed|permitted|accepted|acceptable|valid|legal)\b", re.IGNORECASE)
"""Words of a question about which values may be given: a range answers it as a list of them would."""
_MAY_GIVE = re.compile(r"\b(?:can|may)\s+(?:i|you|we|one)\s+(?:pass|use|give|set|specify|choose|supply)\b", re.I)
"""'Which status codes may I pass ...?': of figures (`_ASKS_FIGURES`), as a range answers; of things ('Which
algorithms can I choose?'), as a list of them does."""
_ASKS_FIGURES = re.compile(r"\b(?:sizes|values|lengths|numbers|levels|widths|ports|bits|codes)\b", re.IGNORECASE)
"""Things a question asks for that are figures ('Which key sizes can I pass ...?')."""
_FIGURE_CHOICES = re.compile(r"\b\d[\d.]*(?:,\s*\d[\d.]*){1,},?\s+(?:or|and)\s+\d")
"""Three or more figures joined as choices: 'either 1024, 2048, 3072, or 4096'."""


_LITERAL = r"[\"'“‘`][^\"'“”‘’`\n]{1,30}[\"'”’`]"
_NAMED_CHOICES = re.compile(rf"{_LITERAL}(?:\s*,\s*{_LITERAL})*\s*,?\s+(?:or|and)\s+{_LITERAL}")
"""Quoted names joined by 'or' or 'and': '“short”, “long” or “narrow”'."""
_CHOICES_SAID = re.compile(
    r"\b(?:known|possible|valid|allowed|accepted|permitted|supported|legal)\s+values\s+(?:are|include)\b"
    r"|\b(?:must|can|may|should)\s+be\s+(?:one\s+of|either)\b",
    re.IGNORECASE,
)
"""Values said to be the ones one may give: 'Known values are ...', 'must be one of ...'."""
ENTRY_LABEL = re.compile(r"^\s*([A-Za-z_][\w.-]*)\s*(?:\([^)]*\))?\s*[–—:-]\s")
"""A parameter's entry opening a text: 'recycle – Defaults to -1', 'port (int) – the port of the webserver'."""
_VALUES_ASKED = re.compile(r"\bvalues\b", re.IGNORECASE)


def _states_choices(text: str, question: str) -> bool:
    """Whether the text gives the values one may give of what the question asks: in the entry of a parameter the
    question names, said to be those ('official_status: ... Known values are ...') or named ('length – The
    formatting length. “short”, “long” or “narrow”'). Outside the asked entry, such values may be any other
    parameter's or example's."""
    entry = ENTRY_LABEL.match(text)
    asked = {word.lower() for word in re.findall(r"[\w.-]+", question)}
    named = entry is not None and entry.group(1).lower() in asked
    return named and bool(_CHOICES_SAID.search(text) or _NAMED_CHOICES.search(text))


def _range_strength(text: str, new_numbers: list[str], question: str = "") -> float:
    """How clearly the text states a range: two figures stated as bounds (1.0), or two figures (0.6); for a
    question asking which values may be given, the values one may give (`_states_choices`, 1.0)."""
    if _VALUES_ASKED.search(question) and _states_choices(text, question):
        return 1.0
    if len(new_numbers) >= 2 and (_states_bounds(text) or (_UPPER.search(text) and _LOWER.search(text))):
        return 1.0
    return 0.6 if len(new_numbers) >= 2 or (new_numbers and _states_bounds(text)) else 0.0


def _other_bound_only(question: str, text: str) -> bool:
    """Whether the question asks for one bound (an upper one, or a lower one) and the text states only the other."""
    upper, lower = bool(_ASKS_UPPER.search(question)), bool(_ASKS_LOWER.search(question))
    if upper == lower:
        return False
    states_upper = bool(_UPPER.search(text) or _STATES_UPPER.search(text))
    states_lower = bool(_LOWER.search(text))
    return (states_lower and not states_upper) if upper else (states_upper and not states_lower)


_RELEASE_NUMBER = re.compile(r"(?<![\w.])v?(\d+\.\d+(?:\.\d+)*)(?![\w.]*\d)")
OTHER_RELEASE_FIT = 0.5
"""For 'When was 22.1.0 released?', a date beside no mention of 22.1.0 ('It had its first release in April 2015')
may be another release's."""


def answer_strength(asked: Asked, text: str, question: str = "") -> float:
    """How clearly `text` holds an answer of the asked kind, 0..1 (0 when the kind is unknown)."""
    kind = asked.kind
    if kind is None:
        return 0.0
    text = _NOTE_MARK.sub(" ", text)
    asked_numbers = set(numbers_in(question))
    # A version is the figure asked for only when the question asks for one ('the oldest version it works with').
    versions_asked = _VERSION_ASKED.search(question) is not None
    figures = (text if versions_asked else _VERSION.sub(" ", text)).replace("..", " .. ")  # '-1..9': two figures
    new_numbers = [n for n in numbers_in(figures) if n not in asked_numbers]
    if kind == "expansion":
        return expands(asked.acronym, text)
    if kind == "default":  # 'a default limit of 10 messages' does not say how large a message may be
        first_line, _, described = text.partition("\n")
        attribute = ATTRIBUTE_LINE.match(first_line)
        if attribute and re.search(rf"(?<![\w.]){re.escape(attribute.group('name'))}(?![\w])", question):
            return 1.0  # 'visibility_timeout = 3600' for 'Redis transport visibility_timeout default?'
        if attribute and described.strip():
            return 1.0  # 'thread_pool = 10' / 'The number of worker threads to start up in the pool.': unless set
        strength = _default_strength(text, question)
        if _counts_instead(question, figures) or not _counts_something(question, text):
            strength *= MEASURED_SUBJECT_FIT
        asking = asking_part(question)
        listed = ASKS_LIST.search(asking) and not _PREPOSED.match(asking)
        if listed and not (_LIST_SHAPE.search(text) or _ENUMERATION.search(text)):
            strength *= UNLISTED_FIT  # 'Which compilers does it look for by default?': the default is a list
        return strength
    if kind == "limit":
        # How long, in words: 'allowed at least for a year and half', 'kept for at least one week'.
        timed = bool(_HOW_LONG.search(question) and _TIMED.search(figures))
        if not (new_numbers or timed) and not re.search(r"\b(?:unlimited|no limit|infinite)\b", text, re.I):
            return 0.0
        stated = bool(_LIMIT_STATEMENT.search(text) or _DEFAULT_STATEMENT.search(text))
        telling = any(n not in ("0", "1") for n in new_numbers) or bool(_MEASURE.search(text)) or timed  # 0, 1: flags
        if stated and telling and not timed and not _limit_with_figure(figures, asked_numbers):
            stated = False  # 'X limits the size ... (three sentences on) ... PEP 440': the figure is of another thing
        bound = OTHER_BOUND_FIT if _other_bound_only(question, text) else 1.0
        measured = 1.0 if timed and not new_numbers else _measures_asked_thing(question, text)  # it weighs figures
        return ((1.0 if telling else 0.8) if stated else 0.55) * measured * bound
    if kind == "range":
        return _range_strength(text, new_numbers, question)
    if kind == "number":
        if any(n not in ("0", "1") for n in new_numbers):
            if _HOW_LONG.search(question) and not _TIMED.search(figures):
                return UNTIMED_FIT  # 'elapsed-time | 8 | ... how long they have been trying' for how long
            if _ASKS_SIZE.search(question) and not _SHARE.search(question) and _shares_only(new_numbers):
                return UNTIMED_FIT  # 'the size is seldom decreased by less than 50%' for below what size: no size
            if _HOW_MANY.search(question) and not _UNIT_COUNT.search(question):
                return 1.0 if counts_asked_thing(question, text) else 0.7
            return _measures_asked_thing(question, text)
        if _HOW_MUCH_OF.search(question) and _PORTION.search(text):
            return 1.0  # 'How much of its output ...?': 'only the first line of output ... will be substituted'
        return 0.6 if _LIST_SHAPE.search(text) else 0.4 if new_numbers else 0.0  # a list can be counted
    if kind == "date":
        mentioned = set(_RELEASE_NUMBER.findall(text))
        released = [v for v in _RELEASE_NUMBER.findall(question) if v not in mentioned]
        return 0.0 if not has_date(text) else OTHER_RELEASE_FIT if released else 1.0
    if kind == "yesno":
        return _verdict_strength(question, text)
    if kind == "list":
        if _lists_items(text) or _names_its_items(text, question):
            return 1.0  # a lead-in with its items, one per line, or the asked things named with theirs
        if versions_asked and _VERSION_BOUND.search(text):
            return 1.0  # 'Which versions had the bug?': 'All Requests 2.x versions before 2.28.0 are affected.'
        permitted = _PERMITTED.search(question) or (_MAY_GIVE.search(question) and _ASKS_FIGURES.search(question))
        if permitted and _range_strength(text, new_numbers, question) == 1.0:
            return 1.0  # 'What return codes are allowed?': 'Valid values are in the range of 0 to 255.'
        if _ASKS_FIGURES.search(question) and _FIGURE_CHOICES.search(figures):
            return 1.0  # 'Which key sizes can I pass?': 'It should be either 1024, 2048, 3072, or 4096.'
        if _LIST_SHAPE.search(text) and not _shows_commands(text):
            return 0.75
        return 0.3 if is_lead_in(text) or _shows_commands(text) else 0.0
    if kind == "procedure" and (tells_means(text) or _does_asked_action(question, text)):
        return 1.0
    if kind in ("explanation", "procedure"):
        return 0.5 if _CAUSE.search(text) else 0.0
    return 0.0
