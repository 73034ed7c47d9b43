"""What a question asks for, from its wording alone: the kind of answer (a default, a limit, an expansion, a
definition, a list ...), the part of it that asks, and the term it asks about. `answers` tells whether a span of a
source holds that answer."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from research_assistant.text.tokens import STOPWORDS, content_terms, quoted_literals

_ACRONYM_QUESTION = re.compile(
    r"\b(?:what|which)\s+(?:does|do|did|is|are)\s+(?:the\s+)?(?:acronym\s+|abbreviation\s+|initialism\s+|term\s+|name\s+|word\s+)?"
    r"[\"'“‘(]?([A-Za-z][A-Za-z0-9]{1,9})[\"'”’)]?\s+(?:acronym\s+|abbreviation\s+)?"
    r"(?:(?:part|letters|prefix|bit)\s+|in\s+(?:the\s+)?[\w.]+\s+)?"  # 'the LRU part', 'the LRU in LRUCache'
    r"(?:(?:two|three|both)\s+)?(?:(?:labels|abbreviations|acronyms|prefixes|names)\s+)?"  # 'these two labels'
    r"(?:stand\s+for|short\s+for|abbreviate|mean(?!\s+by\b)|expand\s+to|refer\s+to)\b"
    r"|\b(?:expand|expansion\s+of|full\s+(?:name|form)\s+of|abbreviation\s+for|stands?\s+for|"
    r"meaning\s+of\s+(?:the\s+)?(?=acronym|abbreviation|initialism))\s*(?:the\s+)?"
    r"(?:acronym\s+|abbreviation\s+)?[\"'“‘(]?([A-Z][A-Za-z0-9]{1,9})\b"
    r"|\bwhat(?:'s|’s|\s+is|\s+are)\s+(?:the\s+)?[\"'“‘(]?([A-Z][A-Za-z0-9]{1,9})[\"'”’)]?\s+(?:an?\s+)?"
    r"(?:abbreviation|acronym|initialism|short)\s+(?:of|for)\b",
    re.IGNORECASE,
)
_NAMED_THEN_ASKED = re.compile(
    r"^\s*[\"'“‘(]?([A-Za-z][A-Za-z0-9]{1,9})[\"'”’)]?(?:\s+(?:in|of)\s+(?:an?\s+|the\s+)?[\w.:-]+)?\s*[:,–—-]?\s*"
    r"(?:stands?\s+for|(?:is\s+)?short\s+for|abbreviates)\s+what\b",
    re.IGNORECASE,
)
"""An abbreviation named first and asked of after it ('gtrid in an Xid - stands for what?', 'VERP: stands for
what?')."""
_REFERRING = frozenset({"that", "this", "it", "these", "those", "name", "term", "word"})
"""A word that points back to an abbreviation the question named before it ('What does that stand for?', 'bwdif
- what is the name short for?')."""
_CALLED = re.compile(r"\b(?:name|term|word)\s+([A-Za-z][A-Za-z0-9]{1,9})\b")
"""A word the question calls a name ('the name bash')."""
_ABBREVIATION = re.compile(r"[A-Za-z][A-Za-z0-9]{1,9}")
_LEAD_WORD = re.compile(r"[\"'“‘`]?\b([A-Za-z][A-Za-z0-9]{1,9})\b")
_CAPITALS = re.compile(r"\b[A-Z][A-Z0-9]{1,9}\b")
_BARE_ACRONYM = re.compile(
    r"^\s*(?i:what\s+(?:is|are)\s+(?:an?\s+|the\s+)?)([A-Z][A-Z0-9]{1,8})s?\s*(?:\?|$|\b(?i:in|for)\b)"
)
_ACRONYM_MEANING = re.compile(
    r"(?<![\w.-])([A-Z][A-Z0-9]{1,8})s?\s+(?i:meaning|acronym|abbreviation|stands\s+for)\s*\??\s*$"
)
"""A search typed as keywords that ends on an abbreviation and what is wanted of it ('... XSS meaning?')."""
_ORDER_ASKED = re.compile(r"^\s*in\s+(?:what|which)\s+(?:order|sequence)\b", re.IGNORECASE)
_TERSE_YES_NO = re.compile(
    r"\b(?:allowed|possible|supported|permitted|required|mandatory|safe|thread-safe)\s*\?\s*$"
    r"|^[^?:]{2,60}(?::|\s[-–—])\s+[a-z]+s\b[^?]*\?\s*$",
    re.IGNORECASE,
)
"""A question typed as keywords that asks whether something may be done or does something ('named block inside a
def allowed?', 'in-memory transport: works across separate processes?')."""
_YES_NO = re.compile(
    r"^\s*(?:is|are|can|could|does|do|did|should|will|would|has|have|had|was|were|may|must|might|whether)\b",
    re.IGNORECASE,
)
_LIMIT_EXISTS = re.compile(
    r"^\s*(?:(?:is|are)\s+there|whether\s+there\s+(?:is|are))\s+(?:a|an|any)\s+(?:[\w-]+\s+)?"
    r"(?:limit|cap|maximum|minimum|ceiling|upper bound)\b",
    re.IGNORECASE,
)
"""'Is there a cap on how many servers a backend can hold?' asks for the limit, which 'yes' does not give."""
_CONTEXT_PHRASE = (
    r"(?:in|for|within|on|with|using|under)\s(?!(?:what|which|whose|how)\b)(?:[^,?(]|\([^?]{0,80}?\)){1,60},\s*"
)
_CONTEXT_PREFIX = re.compile(rf"^{_CONTEXT_PHRASE}", re.IGNORECASE)
"""A context phrase before the question ('In SQLite, ...'); a call's parameters in it count as one thing ('In
execute(self, context, self_node), what is self_node?'). 'In what order are ..., ...?' is the question itself."""
_VERSUS = re.compile(r"\b(?:vs\.?|versus)\s", re.IGNORECASE)
_TOPIC_PREFIX = re.compile(r"^[^:?]{2,40}:\s+(?=(?:what|which|how|when|where|why|who)\b)", re.IGNORECASE)
"""A topic and a colon before the question ('client tracing: which signal fires ...?')."""
_NAMES_TOPIC = re.compile(
    r"\b(?:it|its|this|these|those|they|them|one|each|both|either|the difference"
    r"|the (?:name|term|word|abbreviation|acronym))\b",
    re.IGNORECASE,
)
"""Words by which a question asks of its topic ('DESTDIR: what is the name short for?', 'compound vs container:
which one should I use ...?'), which it then needs."""
_INTERROGATIVE = re.compile(r"\b(?:how|what|why|when|which|where|who|is|are|can|does|do)\b", re.I)
_CONDITION = re.compile(
    r"^\s*(?:if|when|whenever|once|after|before|unless|while|assuming|suppose|without)\b[^?]*?,\s*"
    r"(?:(?:roughly|approximately|about|exactly|then|so)\s+)?"
    r"(?=(?:(?:at|in|on|for|by|with|after|from|to|under|within)\s+)?"
    r"(?:how|what|why|when|which|where|who|is|are|can|does|do|will|would|should)\b)",
    re.IGNORECASE,
)
"""A condition leading the question ('If libvirt-guests is set to shut guests down, how long ...?', 'When browsing
backups ..., roughly how much memory ...?'): its verbs ask nothing, so the question's clauses are counted after
it."""
_PREMISE = re.compile(
    r"^\s*(?:(?=(?:when|if)\b)[^?]*?\.\s+|(?!(?:how|what|why|when|which|where|who|is|are|can|does|do)\b)"
    r"(?:[^?]*?[.;:]\s+|(?:i|we|my|our|you|your)\b[^?]*?(?:\s*[—–]\s*|\s-\s+)))"
    r"(?=(?:(?:at|in|on|for|by|with|from|to|under|within)\s+(?=wh))?"
    rf"(?:{_CONTEXT_PHRASE})?"
    r"(?:how|what|why|when|which|where|who|is|are|can|does|do|will|would|should)\b)",
    re.IGNORECASE,
)
"""A statement before the question ('udev doesn't log enough to debug a rule; how do I make it more verbose?',
'After a reboot HAProxy refuses to start ... yet. What is the proper fix?', 'We package on Windows too — can we
use ...?', 'When I run with --durations, pytest hides very fast tests. What is ...?'): it sets the scene and asks
nothing, so what is asked is read from the question after it. Set off by a dash, only a statement about the asker is
one: 'privoxy debug level default - what ends up ...?' names its topic."""
_SECOND_CLAUSE = re.compile(
    r"(?:,|\band)\s+(?:how|what|why|which|who|is|are|can|does|do|"
    r"(?:when|where)(?=\s+(?:is|are|was|were|do|does|did|can|could|will|would|should)\b))\s",
    re.I,
)
"""A second question ('..., and how can it be changed?'); 'when' or 'where' only as a question ('..., when was it
added?'), not a condition after the question ('How long ..., when verification is turned on?')."""
_DEFAULT = re.compile(
    r"(?<!\ba )(?<!\ban )\bdefaults?\b|\b(?:nor|without|with no) an? default\b|\bby default\b"
    r"|\bfalls?\s+back\s+(?:on|to)\b"
    r"|\bout[ -]of[ -]the[ -]box\b|\bunconfigured\b|\binitial(?:ly)? (?:value|setting)\b"
    r"|\bunless (?:\w+ )?(?:configured|set|specified|told|changed) otherwise\b|\botherwise unset\b"
    r"|\bunless (?:changed|overridden|configured|specified)\b"
    r"|\b(?:settings?|values?|options?|parameters?|configuration|defaults?)\s+(?:are\s+|is\s+|stays?\s+|remains?\s+)?unchanged\b"
    r"|\babsent (?:other |any )?(?:configuration|settings?)\b"
    r"|\bwithout (?:an? |the |any )?[\w-]+(?: [\w-]+)? (?:set|configured|specified|given)\b"
    r"|\bwithout (?:an? |the |any )?[\w=.-]+ (?:argument|option|setting|parameter|flag|string)\b"
    r"|\b(?:sets?|specif(?:y|ies)|gives?|configures?|defines?) neither\b[^?]{0,60}\bnor\b"
    r"|\b(?:(?:i|we) (?:didn't|didn’t|did not|haven't|haven’t|have not)|(?:i|we|you) never"
    r"|(?:and|but) (?:didn't|didn’t|did not|don't|don’t|do not|never)) "
    r"(?:give|set|specify|configure|pass|provide|choose|pick|touch|change|say)\b"
    r"|\b(?:if|when|where) (?:no|not|none|nothing)\b[^?]{0,60}\b(?:configured|specified|set|given|provided|defined)\b"
    r"|\bno [\w-]+(?: [\w-]+)? (?:is|are|was|were) (?:configured|specified|set|given|provided|defined|chosen)\b"
    r"|\b(?:if|when) (?:omitted|unset|unspecified|left out)\b"
    r"|\bwithout (?:setting|configuring|specifying|changing|passing|giving|saying)\b"
    r"|\b(?:if|when|where|and|but)\s+(?:the\s+|its\s+|my\s+)?[\w.=-]+(?:\s+[\w.=-]+)?\s+(?:is|are)(?:n't|n’t|\s+not)\s+"
    r"(?:set|configured|specified|given|defined|provided)\b|\b(?:if|when)\s+(?:the\s+)?[\w.=-]+\s+(?:is|are)\s+(?:unset|omitted)\b"
    r"|\b(?:(?:if|when) (?:i|you|we|one) (?:do(?:n't|n’t| not)|never)|unless (?:i|you|we|one)) (?:change|set|configure|"
    r"touch|modify)\b[^?]{0,30}\b(?:setting|option|parameter|value|default|it)\b|\bleft (?:unchanged|alone|unset)\b"
    r"|\b(?:leave|leaving)\s+(?:it|them|(?:the|its|my|that|this)\s+[\w-]+)\s+alone\b"
    r"|\bunless\b[^?]{0,40}\b(?:is|are) (?:chosen|picked|selected|specified|given|set|configured|changed)\b"
    r"|\bwith(?:out)?\s+(?:no|any)\s+(?:(?:special|extra|additional|particular|custom)\s+)?"
    r"(?:configuration|config|settings?|tuning)\b"
    r"|\bstock (?:configuration|config|settings?)\b|\b(?:does|do|will|would)\s+[\w-]+(?:\s+[\w-]+)?\s+assume\b"
    r"|\bif\b[^?]{0,60}\b(?:do(?:n't|n’t| not)|never) (?:change|set|configure|touch|modify|specify)\b"
    r"|\b(?:leave|leaving|left)\b[^?.;]{0,40}\b(?:empty|blank|unset)\b"
    r"|\b(?:leave|leaving|left)\s+(?:[\w.=-]+\s+){0,5}?out\b(?!\s+of\s+(?:the\s+)?(?:loop|picture)\b)"
    r"|\b(?:i|we|you|one)\s+(?:give|pass|set|specify|provide|supply|configure)\s+no\b"
    r"|\b(?:if|when|where) neither\b[^?]{0,80}\bnor\b[^?]{0,60}\b"
    r"(?:says?|sets?|specif(?:y|ies)|gives?|assigns?|provides?|"
    r"defines?|configures?|chooses?|picks?)\b"
    r"|\bunless (?:i|you|we|one|they) (?:\w+ )?(?:pick|choose|select|specif|override|give|pass|provide|tell|chang|"
    r"configur)\w*\b"
    r"|\b(?:if|when) (?:i|you|we|one|they) (?:have(?:n't|n’t| not)|had(?:n't|n’t| not)|did(?:n't|n’t| not)|"
    r"do(?:n't|n’t| not)|never) (?:\w+ )?(?:pick|chose|choose|select|specif|override|gave|give|pass|provide|"
    r"told|tell|set|chang|say|said|configur)\w*\b",
    re.I,
)
"""'What is the default ...?', and its paraphrases: 'What mode is used if no mode is configured?', 'Which language
does it assume when language_code is not set?', 'How often does it check, if I don't change the setting?', 'If I
turn on health checks and don't set an interval, how often ...?', 'If neither the headers nor my configuration say
how long, how long ...?', 'I leave the port field empty. Which port ...?', 'Which paper size, unless I pick
another?', 'Which keys, if I haven't picked my own?', 'How long, if I leave the setting alone?', 'With no special
configuration, how long ...?', 'What encoding does it fall back to?'. Not 'a default set of options', which is one
the asker would set."""
_DEFAULT_NAMED = re.compile(
    r"\b(?:instead\s+of|rather\s+than|other\s+than|in\s+place\s+of|besides|apart\s+from|replacing|overriding)\s+"
    r"(?:the|its|their|a)\s+default\b(?:\s+(?:one|ones|[a-z][\w-]*))?"
    r"|\b(?:in|from|within|inside|into)\s+the\s+default\s+(?!(?:configuration|config|settings?|setup|installation|"
    r"install|mode|case|behaviou?r|state|values?|options?)\b)[a-z][\w-]*",
    re.IGNORECASE,
)
"""'default' naming a thing, not asking for a default: what replaces it ('Which option loads a file instead of the
default one?') or the object something is in ('unit systems available in the default registry?'). 'In the default
configuration' still asks what holds by default."""
_LIMIT = re.compile(
    r"\b(?:max(?:imum|imal)?|min(?:imum|imal)?|limits?|largest|smallest|longest|shortest|biggest|"
    r"(?:the|at)\s+(?:most|least)|"
    r"oldest|earliest|lowest|highest|fewest|"
    r"upper bound|lower bound|cap|capacity|at most|up to(?! date))\b",
    re.IGNORECASE,
)
_CAN_REACH = re.compile(
    r"^\s*how\s+(?:big|large|long|many|much|high|deep|wide|far)\b(?:\s+[\w-]+){0,3}?\s+(?:can|may|could)\s+"
    r"(?:\S+\s+){0,8}?(?:be|get|grow|become|hold|have|take|use|reach|go)\b",
    re.IGNORECASE,
)
"""'How long can an identifier be?', 'How many rows can a table hold?': how far something may go, a limit."""
_RANGE = re.compile(
    r"\b(?:range|ranges|between\s+(?:what|which|[-+]?\d)|bounds|"
    r"(?:valid|allowed|possible|accepted|permitted|supported|legal)\s+(?:[\w.-]+\s+)?values|"
    r"(?:what|which) values|(?:what|which) span|minimum and maximum|lowest and highest|from .+ to)\b",
    re.IGNORECASE,
)
"""'Allowed values for the length argument?', 'possible official_status values?': the values one may give.
'Between' asks for bounds only before what they are ('between which values', 'between 1 and 9'): 'the interval
between its polls' names a span, and 'How does it lengthen the interval between its polls?' asks how."""
_HOW_MUCH = re.compile(
    r"\bhow (?:many|much|long|often|old|large|big|small|far|deep|deeply|high|fast|wide|tall|heavy)\b|"
    r"\bwhat(?:'s|’s| is)? (?:the )?(?:number|percentage|size|amount|count|length|duration|value|rate|version|port|"
    r"timeout)\b|"
    r"\b(?:above|below|over|under|beyond|past)\s+what\s+(?:[\w/-]+\s+){0,3}(?:size|length|number|count|value|age)\b|"
    r"\b(?:what|which)\s+(?:[\w-]+\s+)?(?:exit (?:status|code)|return code|status code|port)\b|"
    r"\bwhat\s+(?:[\w-]+\s+){1,2}(?:width|size|length)\b",
    re.IGNORECASE,
)
"""'How many ...?', 'What size ...?', 'Above what cookie header size ...?', 'What indentation width ...?'."""
_WHEN = re.compile(r"^\s*(?:when|in (?:what|which) year|what year|what date|since when)\b", re.IGNORECASE)
ASKS_LIST = re.compile(
    r"^\s*(?:what|which)\s+(?:are|were)\s+(?:the\s+)?(?:\w+\s+){0,3}?"
    r"(?:types|kinds|sorts|categories|classes|steps|stages|phases|ways|options|modes|levels|forms|parts|"
    r"components|fields|members|methods|values|flags|states|arguments|parameters|elements|properties|"
    r"features|formats|causes|reasons|benefits|advantages|disadvantages|drawbacks|downsides|limitations|risks|"
    r"uses|requirements|rules|restrictions|situations|conditions|cases|functions|commands|examples)\b"
    r"|^\s*(?:list|name|enumerate)\b|^\s*(?:the\s+|a\s+)?(?:full\s+|complete\s+)?list\s+of\b"
    r"|^\s*(?:what|which)\s+(?:types|kinds|sorts|categories|classes)\s+of\b"
    r"|(?:^|,)\s*(?:which|what)\s+(?:[\w-]+\s+){0,2}[a-z]+(?<![sui])s(?:\s+of\s+[\w-]+)?\s+"
    r"(?:do|does|did|are|were|can|could|should|will|would|may|"
    r"must|(?:do|does|did|are|were|ca|could|should|wo|would)n['’]t|cannot)\b"
    r"|^\s*(?:by|in|with|through)\s+(?:what|which)\s+[a-z]+s\b"
    r"|^\s*which\s+(?!(?:is|was|has|does)\b)[a-z]*[^su\W]s\s+[a-z]+\b"
    r"|^\s*which\s+(?:[\w-]+\s+){1,2}[a-z]*[^su\W]s(?:\s+\([^)]{1,40}\))?\s+"
    r"(?:come|ship|exist|support|work|run|apply|appear|accept|allow|provide|have|need|require|belong|count|"
    r"remain|take|get|make|use|trigger|affect|match|implement|handle|cause)\b"
    r"|^\s*(?:what|which)\s+(?:are|were)\s+(?:the|my|our|your|its|their)\s+(?:[\w-]+\s+){0,2}?[a-z]{2,}[^su\W]s\b"
    r"|^\s*(?:the\s+)?(?:(?!(?:what|which|who|how|why|when|where)\b)[\w-]+\s+){0,2}"
    r"(?!(?:does|has|was|this|its)\b)[a-z]{2,}[^su\W]s\s+(?:that|which)\s",
    re.IGNORECASE,
)
"""... and any 'What are the (main) things ...?': a plural asked for with the article is a set of them; 'Which
database modules come built in?' (a plural noun, then one of the verbs such questions use in their plain form: not
'Which key sequence gets me out?'); and a terse question that opens with things and what they do ('request methods
that CherryPy reads a body for by default')."""
_SELECTING = re.compile(r"\b(?:rather than|instead of|unlike)\b", re.IGNORECASE)
_WHICH_ONE = re.compile(r"^\s*(?:which|what)\s+(?!(?:is|are|was|were)\b)[\w-]+", re.IGNORECASE)
"""A question for one thing of a kind ('Which option ...?'), which 'instead of' narrows."""
"""Comparison words that, in a 'which tasks run daily rather than hourly' question, only narrow a selection."""
_COMPARISON = re.compile(
    r"\b(?:differ(?:s|ed|ing|ently)?|differences?|different\s+(?:from|than|between|to)|(?<=how\s)different|"
    r"compare\w*|comparison|versus|vs\.?|better|worse|faster|slower|rather than|instead of|unlike)\b",
    re.IGNORECASE,
)
_CONTRASTED = re.compile(
    r"\b(?:differ(?:s|ed|ing)?|differences?|different(?:ly)?\s+(?:from|than|between)|compare\w*|comparison|versus|"
    r"vs\.?)\b",
    re.IGNORECASE,
)
"""Words that ask how two things differ, even when one of them is a default."""
_DEFINITION = re.compile(
    r"^\s*(?:what|who)\s+(?:exactly\s+|really\s+)?(?:is|are|was|were)\s+(?:exactly\s+|really\s+)?"
    r"(?!the\s+(?:default|maximum|minimum|limit|number|size|range))"
    r"|^\s*(?:define|definition of|meaning of)\b|^\s*what\s+(?:counts|qualifies)\s+as\b"
    r"|^\s*what\s+(?:exactly\s+)?(?:does|do)\s+.+\s+"
    r"(?:mean|stand for|refer to|do|print|return|represent|show|contain|hold|produce|give|yield|indicate|denote|"
    r"signify)\b",
    re.IGNORECASE,
)
_EXPLANATION = re.compile(r"^\s*(?:how|why)\b|\b(?:explain|mechanism|work|works|happen|happens)\b", re.IGNORECASE)
_PROCEDURE = re.compile(
    r"^\s*how (?:do|can|should|would|could) (?:i|you|we|one)\b|^\s*how to\b|^\s*how should\b"
    r"|^\s*what(?:'s|’s|\s+is|\s+are)\s+(?:the\s+)?(?:\w+\s+)?(?:fix|fixes|solution|solutions|workaround|remedy|cure|approach)\b"
    r"|^\s*what\s+(?:do|should|must)\s+(?:i|you|we|one)\s+(?:have\s+to|need\s+to|)\s*"
    r"(?:do|change|set|add|edit|configure|put|write|run|type)\b",
    re.IGNORECASE,
)
"""'How do I ...?', 'How should a server cope with ...?', and what asks for the steps as a thing: 'What is the
proper fix?', 'What is the approach?', 'What do I have to change in my configuration?'."""
_BARE_HOW = re.compile(
    r"^\s*how(?:\s+(?:do|can|would|could|should)\s+(?:i|we|you|one)\s+(?:do|achieve|manage|get)\s+(?:that|this|it))?"
    r"\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""'How?' after a statement of what the asker wants ('I want to pipe a log into pygmentize ... instead of waiting
for the end. How?'): the steps to do what the statement says, whatever it compares."""
_TOOL_ASKED = re.compile(
    r"^\s*(?:what|which)\s+(?:[\w-]+\s+)?(?:command|tool|utility|program|script)(?![\w-])"
    r"(?!\s+(?:is|are|was|were|means?)\b)",
    re.IGNORECASE,
)
"""'What command brings the schema up to date?', 'Which tool do I use to generate a key?': the way to do something,
asked as the thing that does it (a procedure; not 'Which command is the default?', nor a list of 'commands')."""


@dataclass(frozen=True)
class Asked:
    """The kind of answer a question asks for."""

    kind: str | None
    """default, limit, range, number, date, expansion, definition, yesno, list, comparison, explanation,
    procedure; None when the question gives no clear sign."""
    acronym: str = ""
    """For an expansion: the abbreviation to expand ('WAL')."""

    @property
    def wants_value(self) -> bool:
        """Whether the answer is a value: a span without one cannot answer the question."""
        return self.kind in ("default", "limit", "range", "number", "date", "expansion")


_SOURCE_FRAMING = re.compile(
    r",?\s*(?:(?:as|like)\s+(?:the\s+)?[\w\s.'’-]{0,60}?\b(?:documentation|docs|manual|guide|reference|faq|"
    r"specification|spec|page|book)\s+(?:describes?|explains?|defines?|puts?|says|states?|calls?)(?:\s+it)?"
    r"|according\s+to\s+(?:the\s+)?[\w\s.'’-]{0,60}?\b(?:documentation|docs|manual|guide|reference|faq|"
    r"specification|spec)"
    r"|^\s*as\s+(?:described|explained|defined|documented)\s+(?:in|by)\s+(?:the\s+)?[\w\s.'’-]{0,60}?\b"
    r"(?:documentation|docs|manual|guide|reference|faq|specification|spec))\b",
    re.IGNORECASE,
)


_REQUEST = re.compile(
    r"^\s*(?:please\s+)?(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:(?:tell|show|give)\s+(?:me|us)|"
    r"let\s+me\s+know)\s+(?:about\s+)?"
    r"|^\s*(?:please\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?)(?:explain|describe)(?:\s+to\s+(?:me|us))?\s+"
    r"|^\s*(?:please\s+)?(?:i(?:'d|’d|\s+would)\s+like\s+to\s+know|i\s+(?:want|need)\s+to\s+know|"
    r"i\s+wonder|i'm\s+wondering|i’m\s+wondering|do\s+you\s+know)\s+",
    re.IGNORECASE,
)
"""A request around the question ('Can you tell me ...', 'Please explain ...', 'I'd like to know ...'): what
follows is the question."""
_INDIRECT = re.compile(
    r"^(what|who)\s+(?!(?:is|are|was|were|does|do|did)\b)(.+?)\s+(is|are|means?|stands?\s+for)"
    r"((?:\s+(?:(?:used|meant|intended|good|needed)\s+for|in|for|to|within|on|as|under|when|if)\b|,)[^?]*)?\s*([?.!]*)$",
    re.IGNORECASE,
)
"""An indirect question's word order ('what a savepoint means', 'what the default port is', 'what a handler is in
the Apache HTTP Server', 'what the service name other is used for')."""
_INDIRECT_MODAL = re.compile(
    r"^(how|what)\s+(i|you|we|one)\s+(can|could|should|would|must|need\s+to|have\s+to|do)\s+", re.IGNORECASE
)
"""'how I can clone ...' for 'how can I clone ...', 'what I need to change' for 'what do I need to change'."""
_CONTRACTION = re.compile(r"\b(what|who|where|how|which)(?:'s|’s)\s", re.IGNORECASE)
_IMPERATIVE_ASK = re.compile(
    r"^(?:(?:stop|disable|enable|turn|switch|prevent|avoid|force|make|keep|allow|skip|ignore|install|configure|run|"
    r"increase|decrease|reduce|raise|lower|limit|change|reset)\s+(?:the|a|an|my|our|your|its|their|this|that|these|"
    r"those|it|them|all|every|any)\b|(?:stop|prevent|keep)\s[^?]+\bfrom\s+\w+ing\b)[^?]*\?\s*$",
    re.IGNORECASE,
)
"""A terse request put as a question, an instruction with a question mark: 'Stop the static file handler from
using sendfile?', 'Disable the cache?' ask how to do it; 'Limit on message size?' and 'Keep-alive timeout?' are
no instructions."""
_TERSE_MEANING = re.compile(
    r"^(?P<topic>[^:?]{2,80}?)(?::|\s+[-–—])\s*(?:meaning|definition|what is it|what are they"
    r"|what does (?:it|(?:the|this) (?:term|word|name|phrase)) mean(?P<where>\s+in\s[^?]{1,60})?)\s*\?*$",
    re.I,
)
"""'The name slonik: meaning?', 'requoting - what does the term mean in the aiohttp docs?': a topic, then what is
asked of it."""


_PROVIDES = r"(?:supports?|supported|ships?|shipped|provides?|provided|includes?|handles?)"
_IDIOMS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(idiom, re.IGNORECASE), plain)
    for idiom, plain in (
        (rf"\b({_PROVIDES}\b[^?.,;:]{{0,40}}?)\s+out of the box\b", r"\1 built-in"),
        (r"\bout of the box\b", "by default"),
        (r"\b(?:under the hood|behind the scenes)\b", "internally"),
        (r"\bby hand\b", "manually"),
    )
)
"""Idioms of questions and what they say plainly. What a program supports 'out of the box' is built in ('Which
formats does Celery support out of the box?' is answered by 'built-in support for JSON, ...'); what it does 'out of
the box' it does by default."""


def in_plain_words(question: str) -> str:
    """The question with each idiom (`_IDIOMS`) in plain words: 'Out of the box, which port does Privoxy use?' ->
    'By default, which port does Privoxy use?'."""
    for idiom, plain in _IDIOMS:
        question = idiom.sub(functools.partial(_said_plainly, plain), question)
    return question


def _said_plainly(plain: str, match: re.Match[str]) -> str:
    """The plain words for a matched idiom, capitalised as it was."""
    said = match.expand(plain)
    return said[:1].upper() + said[1:] if match.group()[:1].isupper() else said


def without_framing(question: str) -> str:
    """The question without words about where its answer is written: 'What is a reverse proxy, as the Apache
    documentation describes it?' asks 'What is a reverse proxy?'. Such words match every page that
    'describes' something, never the answer. Asked directly, too (`asked_directly`)."""
    return asked_directly(_SOURCE_FRAMING.sub("", question).strip(" ,;"))


_QUESTION_WORD = re.compile(
    r"^(?:(?:roughly|approximately|about|exactly|precisely|just)\s+)?"
    r"(?:what|which|who|whom|whose|where|when|why|how|is|are|was|were|can|could|does|do|did|should|will|would|"
    r"has|have|may|must|whether|list|name|define|explain|compare|describe)\b"
    r"|^(?:the\s+|a\s+)?(?:full\s+|complete\s+)?list\s+of\b",
    re.IGNORECASE,
)
"""How a question (or a request for a list) begins; what a request asks for by name does not."""


def asked_directly(question: str) -> str:
    """The question in a question's own words: a request around it goes ('Can you tell me ...', 'Please explain
    ...'), an indirect question is put back in a question's word order ('Tell me what a savepoint means.' asks
    'What does a savepoint mean?'), a thing asked for by name is asked what it is ('Could you tell me the largest
    message Exim accepts?' asks 'What is the largest message ...?'), 'what's' is 'what is', and 'X: meaning?'
    asks what X means, and an idiom is said plainly (`in_plain_words`). Any other question is returned as it is."""
    text = in_plain_words(_CONTRACTION.sub(lambda m: f"{m.group(1)} is ", question))
    terse = _TERSE_MEANING.match(text)
    if terse is not None:
        return f"What does {terse.group('topic').strip()} mean{terse.group('where') or ''}?"
    if _IMPERATIVE_ASK.match(text) and not _INTERROGATIVE.search(text):
        return f"How do I {text[:1].lower()}{text[1:]}"  # 'Stop the server from using sendfile?'
    request = _REQUEST.match(text)
    if request is None:
        return text
    text = text[request.end() :].strip()
    indirect = _INDIRECT.match(text)
    if indirect is not None:
        word, subject, verb, after, end = indirect.groups()
        verb = verb.lower()
        asked = (
            f"does {subject} {'mean' if verb.startswith('mean') else 'stand for'}"
            if verb.startswith(("mean", "stand"))
            else f"{verb} {subject}"
        )
        text = f"{word} {asked}{after or ''}{end}"
    modal = _INDIRECT_MODAL.match(text)
    if modal is not None:
        word, subject, verb = modal.groups()
        asked = f"do {subject} {verb}" if verb.lower().startswith(("need", "have")) else f"{verb} {subject}"
        text = f"{word} {asked} {text[modal.end() :]}"
    if not _QUESTION_WORD.match(text):
        text = f"what is {text}"
    return text[:1].upper() + text[1:]


def without_context(question: str) -> str:
    """The question without a leading context phrase: 'In SQLite, what is ...' and 'client tracing: which
    signal ...?' ask 'what is ...' and 'which signal ...?'."""
    text = _CONTEXT_PREFIX.sub("", without_framing(question))
    topic = _TOPIC_PREFIX.match(text)
    if topic is None or _NAMES_TOPIC.search(text, topic.end()) or _VERSUS.search(topic.group()):
        return text
    return text[topic.end() :]


_REFERS_BACK = re.compile(r"\b(?:it|its|that|this|these|those|they|them|their|one|ones|such|there)\b", re.IGNORECASE)


def without_premise(question: str) -> str:
    """The question without a statement before it that the question itself does not need: 'I'm reading HAProxy
    configs and keep seeing converters mentioned; what is a converter in HAProxy?' asks 'what is a converter in
    HAProxy?', which names again what the statement spoke of. A question that refers back to its premise ('udev
    doesn't log enough to debug a rule; how do I make it more verbose?') or names too little without it keeps it.
    Without framing either."""
    text = without_framing(question)
    lead = _PREMISE.match(text)
    if lead is None or _REFERS_BACK.search(text, lead.end()):
        return text
    asked, scene = content_terms(text[lead.end() :]), content_terms(text[: lead.end()])
    # It names its subject again, and more than one thing: 'Python vs Rust: which is faster?' needs its premise.
    return text[lead.end() :] if len(asked) >= 2 and set(asked) & set(scene) else text


_DASHED_TOPIC = re.compile(r"^[^?]{2,80}?\s[-–—]\s+(?=(?:is|are|can|could|does|do|will|would|should)\b)", re.IGNORECASE)
"""A topic before a dash and a yes-or-no question about it. Before another question, the topic is what a question
that points back ('what does it do?') asks of, and stays."""


_DASHED_QUESTION = re.compile(r"^[^?]{2,120}?\s[-–—]\s+(?=(?:what|which)\b)", re.IGNORECASE)
"""A topic before a dash and a question that names its own subject ('installing from a tarball - what command?')."""


def asking_part(question: str) -> str:
    """Where the question's own words start: after a leading context phrase, condition, premise or a topic set off by
    a dash ('insist connection argument - does it still do anything?')."""
    text = without_context(question)
    lead = _CONDITION.match(text) or _PREMISE.match(text) or _DASHED_TOPIC.match(text)
    return _CONTEXT_PREFIX.sub("", text[lead.end() :]) if lead else text


_WHAT_IS = re.compile(
    r"^(?:what|who) (?:exactly |really )?(?:is|are|was|were) (?:exactly |really )?(?:a |an |the )?(.+?)[?.!]*$",
    re.IGNORECASE,
)
_WHAT_DOES = re.compile(
    r"^what (?:does|do) it mean (?:for .+? )?to (?:be |have )?(?:a |an |the )?(.+?)[?.!]*$"
    r"|^(?:in .+?, )?what is meant by (?:a |an |the )?(.+?)[?.!]*$"
    r"|^what (?:does|do) (?:\S+ ){1,3}?mean by (?:a |an |the )?(.+?)[?.!]*$"
    r"|^what (?:is meant|does it mean) (?:when|if) .+? (?:is|are) (?:called|named|labell?ed|marked as|said to be) "
    r"(?:a |an |the )?(.+?)[?.!]*$"
    r"|^what (?:exactly )?(?:does|do|did) (?:a |an |the )?(.+?) "
    r"(?:do|does|mean|return|print|produce|show|represent|stand for|refer to|denote)\b"
    r"|^what (?:is|are) (?:a |an |the )?(.+?) used for"
    r"|^what (?:counts|qualifies) as (?:a |an |the )?(.+?)[?.!]*$",
    re.IGNORECASE,
)
_QUALIFIER = re.compile(r"\s*\b(?:in|of|for|on|with|within|under|at|from|by|when|used)\b")
CATEGORY_WORDS = frozenset(
    re.findall(
        r"\w+",
        "function method module class keyword operator statement command option parameter attribute placeholder "
        "directive specifier variable setting flag field column code pragma character name word term abbreviation",
    )
)
"""Words that say what kind of thing a name is ('the $GENERATE directive', 'the name slonik'), not which."""


_PURPOSE = re.compile(
    r"^(?:what|who)\s+(?:is|are|was|were)\s+(?:\S+\s+){0,8}?(?:(?:used|meant|intended|needed|good|there)\s+)?for"
    r"\s*[?.!]*$|^what\s+(?:is|are)\s+the\s+(?:purpose|point|use|job|role)\s+of\b",
    re.IGNORECASE,
)


def asks_purpose(question: str) -> bool:
    """Whether a question asks what something is for ('What is virtproxyd for?', 'What is the AsIs class meant
    for?', 'What is the purpose of the stash file?'): a sentence that says what a thing is need not say what it
    is for ('The virtproxyd program is a server side daemon component of ...')."""
    return _PURPOSE.match(asked_directly(without_context(question)).strip()) is not None


def defined_phrase(question: str, *, named: bool = True) -> str:
    """What a question asks to have defined, as it writes it: X of 'What is X?', 'What is meant by X?', 'What does
    X mean?', before a qualifier ('What is extcap in Wireshark?' -> 'extcap'); with `named`, without a word that
    only says what kind of thing it is ('the name slonik' -> 'slonik'). '' for any other question."""
    text = without_context(question).strip()
    match = _WHAT_DOES.match(text) or _WHAT_IS.match(text)  # "what is meant by X" first
    if match is None:
        return ""
    subject = next(group for group in match.groups() if group).split(",")[0]  # '..., as described in X'
    quoted = _QUOTED_TERM.search(subject)  # 'the build 'environment'': the term is the quoted word (if a word)
    term = quoted.group(1) if quoted and content_terms(quoted.group(1)) else _QUALIFIER.split(subject, maxsplit=1)[0]
    phrase = term.strip(" \"'`‘’“”")
    return _without_category(phrase) if named else phrase


_QUOTED_TERM = re.compile(r"(?:^|\s)['\"`‘“]([^'\"`‘’“”]{2,60})['\"`’”](?=$|[\s?.,;:])")
"""A word or phrase in quotes: what a definition question names as the term ('the build 'environment'')."""


def _without_category(phrase: str) -> str:
    """The phrase without a first or last word that only says what kind of thing it names ('the name slonik')."""
    words_of = phrase.split()
    while len(words_of) > 1 and words_of[0].lower() in CATEGORY_WORDS:
        words_of = words_of[1:]
    while len(words_of) > 1 and words_of[-1].lower() in CATEGORY_WORDS:
        words_of = words_of[:-1]
    return " ".join(words_of).strip(" \"'`‘’“”")


POINTS_BACK = re.compile(r"(?:this|that|these|those|it|they|them)\b", re.IGNORECASE)
"""Words that open a phrase naming nothing itself ('that event', 'it'): the name stands in the words before."""
_LAST_NAMED = re.compile(r"\b(?:a|an|the)\s+([\w$%.-]+(?:\s+[\w$%.-]+){0,2}?)\s*[,.;:—–-]?\s*$", re.IGNORECASE)


def defined_term(question: str) -> str:
    """The term a definition question asks about, as a manual would head its entry: `defined_phrase` of the
    question's own words, or, where those point back ('When the manual talks about a backend, what exactly does
    it mean?'), the thing the words before them name last."""
    asking = asking_part(question)
    phrase = defined_phrase(asking)
    if not POINTS_BACK.match(phrase):
        return phrase
    lead = without_context(question)[: -len(asking)] if asking else ""
    if quoted := quoted_literals(lead):  # a name in quotation marks, whatever words surround it
        return quoted[-1]  # "keymgr shows a KSK in the 'ready' state. What does that state mean?"
    named = _LAST_NAMED.search(lead)
    return _without_category(named.group(1).rstrip(".,;:")) if named else ""


def _named_before(lead: str) -> str:
    """The abbreviation a question names before it asks what that stands for: the last in capitals ('GPSDO'),
    else the last one it quotes or calls a name ("Where does the name 'Docutils' come from - what is it short
    for?"), else the shortest other word ('bwdif deinterlacer - what is the name short for?'): abbreviations are
    short."""
    if capitals := _CAPITALS.findall(lead):
        return str(capitals[-1])
    quoted = [literal for literal in quoted_literals(lead) if _ABBREVIATION.fullmatch(literal)]
    if called := [*quoted, *_CALLED.findall(lead)]:
        return str(called[-1])
    words_ = [w for w in _LEAD_WORD.findall(lead) if w.lower() not in STOPWORDS | _REFERRING]
    return min(words_, key=len) if words_ else ""


def asked_for(question: str) -> Asked:
    """What `question` asks for, from its wording alone; nothing in particular for a question of several
    clauses ('What is the maximum depth and how can it be changed?')."""
    text = without_context(question)
    asking = asking_part(question)
    dashed = _DASHED_QUESTION.match(asking)
    if dashed and not _REFERS_BACK.search(asking, dashed.end()):
        # 'image formatter docs say ... PIL knows - what is PIL?' asks 'what is PIL?'; 'X - what does it do?' asks of X
        asking = asking[dashed.end() :]
    first = _INTERROGATIVE.search(asking)
    if first is not None and _SECOND_CLAUSE.search(asking, first.end()):
        return Asked(None)
    acronym = _ACRONYM_QUESTION.search(text)
    if acronym is not None:
        word = next(g for g in acronym.groups() if g)
        if word.lower() in _REFERRING and (named := _named_before(text[: acronym.start()])):
            return Asked("expansion", named)  # '... mentioning a GPSDO. What does that stand for?'
        spelled = re.search(r"stands?\s+for|short\s+for|acronym|abbreviat|initialism", acronym.group(), re.I)
        # 'What EAFP stands for in Python' is no question about 'in', nor 'VERP: stands for what?' about 'what'.
        if word.lower() not in STOPWORDS and (sum(c.isupper() for c in word) >= 2 or (spelled and len(word) <= 6)):
            return Asked("expansion", word)
    keyword_meaning = _ACRONYM_MEANING.search(asking)
    if keyword_meaning is not None:
        return Asked("expansion", keyword_meaning.group(1))  # 'comment middleware example XSS meaning?'
    named_first = _NAMED_THEN_ASKED.match(asking)
    if named_first is not None and named_first.group(1).lower() not in STOPWORDS:
        return Asked("expansion", named_first.group(1))
    bare = _BARE_ACRONYM.match(asking)
    if bare is not None:
        return Asked("expansion", bare.group(1))
    if _PROCEDURE.match(asking) or _BARE_HOW.match(asking):
        return Asked("procedure")
    if _ORDER_ASKED.match(asking):
        return Asked("list")  # 'In what sequence are the default, the converter and the validators applied?'
    if _WHEN.match(asking):
        return Asked("date")
    if _LIMIT_EXISTS.match(asking):
        return Asked("limit")
    if _YES_NO.match(asking) or (first is None and _TERSE_YES_NO.search(asking)):
        return Asked("yesno")  # 'Does httpd read .htaccess files by default?' asks yes or no, not for a value
    if _DEFAULT.search(_DEFAULT_NAMED.sub(" ", text)) and not _CONTRASTED.search(asking):
        return Asked("default")  # not 'How does setting notify to explicit differ from the default behaviour?'
    if _RANGE.search(text) and not _COMPARISON.search(text):
        return Asked("range")
    if (_LIMIT.search(text) or _CAN_REACH.match(asking)) and not _COMPARISON.search(text):
        return Asked("limit")
    how_much = _HOW_MUCH.search(asking)
    if how_much and (first is None or how_much.start() <= first.start()):
        return Asked("number")  # not 'Which specifier adds a measure of how long the request took?'

    if _TOOL_ASKED.match(asking):
        return Asked("procedure")
    listing = ASKS_LIST.search(asking)
    compared = [m.group() for m in _COMPARISON.finditer(text)]
    selecting = listing or _WHICH_ONE.match(asking)  # 'Which option loads a file instead of the default one?'
    if compared and not (selecting and all(_SELECTING.fullmatch(word) for word in compared)):
        return Asked("comparison")
    if listing:
        return Asked("list")
    if _DEFINITION.match(asking):
        return Asked("definition")
    if _EXPLANATION.search(asking):
        return Asked("explanation")
    return Asked(None)
