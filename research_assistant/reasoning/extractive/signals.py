"""Small textual signals shared by extraction, progress and synthesis: numbers, dates, negation, definitions."""

from __future__ import annotations

import hashlib
import re

from research_assistant.reasoning.extractive.lexicon import NEGATIONS
from research_assistant.text.tokens import content_terms, words

_NAME = re.compile(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+(?:\s+(?:[A-Z]\.\s*)?[A-Z][a-z]+)+")
_DEFINING = re.compile(
    r"\s(?:((?:is|are|was|were) (?:a|an|one of|any|defined as|known as)|refers? to|stands? for|denotes|means|"
    r"(?:acts?|serves?|functions?|works?) as|behaves? like|(?:stipulates?|signifies|indicates?|specifies) that)|"
    r"(?:is|are|was|were|describes|represents|appears?\b[^,.;]{0,40}?\b(?:as|like)))\s",
    re.IGNORECASE,
)
_NAMING = re.compile(
    r"\b(?:this|that|these|it|such \w+)\s+(?:is|are)\s+(?:often\s+|also\s+|commonly\s+)?"
    r"(?:called|known as|referred to as|termed|named)\s+([^.;:()]{1,60})",
    re.IGNORECASE,
)
"""'This is called X': the sentences before it say what X is."""
_KNOWN_AS = re.compile(
    r"\b(?:known as|referred to as|termed)\s+(?:an?\s+|the\s+)?[\"“‘']?([^.;:()\"”’']{1,60})", re.IGNORECASE
)
"""'a number of operators known as "converters"': the words before say what X is."""
_PASSIVE = re.compile(
    r"(?:not\s+|also\s+|only\s+)?"
    r"(?!(?:called|named|termed|defined|known|(?:used|designed|intended|meant)\s+(?:as|to|for))\b)\w+ed\b"
)
"""'is activated', 'are stored': a passive verb after the copula says what is done with the subject, not
what it is ('X is called Y' and 'X is used as Y' still name or define it, 'X is designed to ...' its purpose)."""


_THE = re.compile(r"(?:the|a|an)\s", re.IGNORECASE)
_GLOSS_LINE = re.compile(r"\s*([^:.;,()]{1,40}?)\s*(?::|\s[—–]|\s-)\s+(?:an?|the|one|any)\s", re.IGNORECASE)
"""A glossary's line: a term, a colon or a dash, then what it is ('Argument: A parameter given to a command.')."""
_DEGREE = re.compile(
    r"(?:very|quite|too|so|rather|fairly|extremely|highly|more|less|much|most|particularly|especially|not|only|"
    r"always|never|usually|often|sometimes|still)\b",
    re.IGNORECASE,
)
"""'is very demanding', 'is not available', 'is only available when ...': after a plain copula, a degree, a negation
or a frequency says how or when the subject is, not what it is."""


def has_name(text: str, exclude: str = "") -> bool:
    """Whether the text names someone or something (two capitalized words) not already in `exclude`."""
    lowered = exclude.lower()
    return any(m.group().lower() not in lowered for m in _NAME.finditer(text))


def is_negated(text: str) -> bool:
    return any(w in NEGATIONS or w.endswith("n't") for w in words(text))


_REMARK = re.compile(r"\([^()]*\)")
_RELATIVE = re.compile(r"\s(?:which|that|who)\s*$", re.IGNORECASE)
_ANTECEDENT_WORDS = 3
"""The words before a relative pronoun read as what the relative clause says something of."""


def defines(sentence: str, subject_terms: list[str]) -> float:
    """How much the sentence reads like a definition of the subject, 0..0.2.

    0.2 for '<subject> is a/an ...', '<subject> refers to ...', '<subject> stipulates that ...' and the like;
    0.1 for another copula with the subject as its head ('<subject> is the ...'), unless what follows says how
    the subject is rather than what ('is very demanding', 'is stored'); 0 otherwise.
    """
    glossed = _GLOSS_LINE.match(sentence)
    if glossed is not None and subject_terms and set(content_terms(glossed.group(1))) == set(subject_terms):
        return 0.2  # 'Builtin: A command that is implemented by the shell.': a glossary's term, then its definition
    for naming in (_NAMING, _KNOWN_AS):
        named = naming.search(sentence)
        if named is not None and subject_terms and all(t in content_terms(named.group(1)) for t in subject_terms):
            return 0.2  # '... This is called backscatter mail.', '... operators known as "converters" ...'
    match = _DEFINING.search(sentence)
    if match is None or len(words(sentence[: match.start()])) > 12:
        return 0.0
    strong = match.group(1) is not None
    if not strong and (_PASSIVE.match(sentence, match.end()) or _DEGREE.match(sentence, match.end())):
        return 0.0
    subject = sentence[: match.start()]
    relative = _RELATIVE.search(subject)
    if relative is not None:  # '... has a persistent configuration which means ...' defines the configuration
        subject = " ".join(subject[: relative.start()].split()[-_ANTECEDENT_WORDS:])
    for part in subject.split(","):
        head = content_terms(part)
        # The head noun alone names a one-word subject; a longer subject is named by its own words only
        # ('virus scanner mail' is not 'backscatter mail').
        if head and ((head[-1] in subject_terms and len(set(subject_terms)) == 1) or set(head) <= set(subject_terms)):
            return 0.2 if strong else 0.1
    # Or the subject's words stand in a longer phrase ('The X of a Y is the ...'), but not only in a remark in
    # parentheses ('The srcSpec (optional for some storage pool types) is an instance of ...').
    for part in _REMARK.sub(" ", subject).split(","):
        if subject_terms and all(t in content_terms(part) for t in subject_terms):
            return 0.2 if strong or _THE.match(sentence[match.end() :]) else 0.1  # 'The X of a Y is the ...'
    return 0.0


_SUBJECT_WORDS = 3
"""Content words at a sentence's start within which the term it defines stands."""


_LEADS_BACK = re.compile(
    r"\b(?:as (?:indicated|mentioned|described|noted|shown|explained|said|seen|stated)"
    r"|(?:see|shown|described) above)\b",
    re.IGNORECASE,
)
"""Words by which a sentence leads back to what was said before it, as a transition does."""


def uses_term(sentence: str, term: list[str]) -> bool:
    """Whether the sentence leads back to what was said before and names the whole term (its content terms) only
    well into it, with no defining verb: it uses the term ('As indicated above, some of the described storage
    backends use delayed file delivery.'), it does not define it."""
    terms = content_terms(sentence)
    if not term or not set(term) <= set(terms) or not _LEADS_BACK.search(sentence):
        return False
    return terms.index(term[0]) >= _SUBJECT_WORDS and defines(sentence, term) == 0.0


def evidence_id(source_id: str, sub_question_id: str, quote: str, section: str = "") -> str:
    """A stable evidence id: the same quote from the same source (and section, when the same words are said in
    two: 'This hook is invoked by ...' under 'post-receive' and 'post-update') for the same sub-question."""
    key = f"{source_id}\x1f{sub_question_id}\x1f{quote}" + (f"\x1f{section}" if section else "")
    return "E" + hashlib.sha1(key.encode()).hexdigest()[:10]


_NUMBERED_NAME = re.compile(r"(?<![\w.])([a-z]{2,}?)v?(\d{1,3})[a-z]?(?![\w.])", re.IGNORECASE)
"""A name made of a word and a number, as versions of one thing are named ('dhcp4', 'DHCPv6', 'ipv4', 'python3',
'socks5', 'ode45'); the number tells them apart. The word may stand after a hyphen ('kea-dhcp4', 'forward-socks5')."""


def numbered_names(text: str) -> dict[str, frozenset[str]]:
    """The numbers each word of `text` is named with: {'dhcp': {'4'}} for 'kea-dhcp4', {'dhcp': {'6'}} for 'The
    DHCPv6 Server'."""
    found: dict[str, set[str]] = {}
    for match in _NUMBERED_NAME.finditer(text):
        found.setdefault(match.group(1).lower(), set()).add(match.group(2).lstrip("0") or "0")
    return {word: frozenset(numbers) for word, numbers in found.items()}


def names_other_version(asked: dict[str, frozenset[str]], text: str) -> bool:
    """Whether `text` names another numbered version of a thing the question names by its number, and not the
    question's own: a page on 'The DHCPv6 Server' does not answer a question about kea-dhcp4, though its table
    rows read word for word like the DHCPv4 server's."""
    named = numbered_names(text)
    return any(word in named and not named[word] & numbers for word, numbers in asked.items())


def names_numbered_sibling(question: str, heading: str) -> bool:
    """Whether a page title or heading names, only with a number, a program the question names without one: a
    section of 'Invoking diff3' is about another program than a question on diff. Programs are named in lower
    case; 'IPv6' for a question on IP, or 'DHCPv4' on DHCP, is a version of the same thing."""
    numbered = {m.group(1) for m in _NUMBERED_PROGRAM.finditer(heading)}
    if not numbered:
        return False
    asked = set(_PLAIN_WORD.findall(question))
    plain = set(_PLAIN_WORD.findall(heading.lower()))
    return any(word in asked and word not in plain for word in numbered)


_NUMBERED_PROGRAM = re.compile(r"(?<![\w.-])([a-z]{2,})\d{1,2}(?![\w.])")
"""A program's name with a number glued to it, in lower case ('diff3', 'python3', 'bzip2')."""
_PLAIN_WORD = re.compile(r"(?<![\w.-])[a-z]{2,}(?![\w.])")
"""A lower-case word standing alone, not glued to a number ('diff' in 'diff -u', not in 'diff3')."""
