"""Tokenizing shared by retrieval, embeddings and the extractive reasoner."""

from __future__ import annotations

import itertools
import re
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import Stemmer

_IDENTIFIER_SPLIT = re.compile(r"[._-]+")
OPTION_TERM = re.compile(r"^--?[A-Za-z][\w-]*(?:[ =](?:<[^<>\s]{1,60}>|[\w.-]+))?$")
"""An option's entry term ('-Q', '--keep-going', '--depth <depth>', '-w file'): a term line in a manual, and the title
of the description under it, though it has the marks of a command."""
FILE_PATH = r"(?<![\w/.~])~?(?:/[A-Za-z_.][\w.+@-]*)+/?"
"""A file or folder path written in prose ('/var/state/ups', '~/.muttrc'): a name, neither code nor a fraction
('1/3') nor a pair of words ('and/or'). A regular expression."""
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_'+#.-]*[A-Za-z0-9+#]|[A-Za-z0-9]")
_SHORT_OPTION = re.compile(r"(?<![\w-])-([A-Za-z])(?![\w-])")
"""A one-letter command-line option ('-U', '-n'), which a word index drops as a single letter."""
_DOTTED_NUMBER = re.compile(r"(?<![\w.])v?(\d{1,4}(?:\.\d{1,4}){1,3})(?![\w]|\.\d)")
"""A version or section number ('3.4', 'v3.4.1', '6.2'), which a word index splits into one-digit words it drops."""

STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each either else ever every few
    for from further had has have having he her here hers herself him himself his how however i if in
    into is it its itself just least less let like made make many may me might more most much must my
    myself neither no nor not now of off often on once one only or other our ours ourselves out over own
    per quite rather really same shall she should since so some such than that the their theirs them
    themselves then there these they this those though through thus to too under until up upon us use
    used uses using very via was we were what whatever when where whereas whether which while who whom
    whose why will with within without would yet you your yours yourself yourselves tell explain
    describe give list show find know please vs versus
    """.split()  # noqa: SIM905 (a word list reads best as words)
)


_per_thread = threading.local()


def english_stemmer() -> Stemmer.Stemmer:
    """The English Snowball stemmer (PyStemmer) for term matching and the BM25 indexes: one per thread,
    since a PyStemmer object is not safe to share between threads and retrieval runs in worker threads."""
    stemmer: Stemmer.Stemmer | None = getattr(_per_thread, "stemmer", None)
    if stemmer is None:
        import Stemmer

        stemmer = _per_thread.stemmer = Stemmer.Stemmer("english")
    return stemmer


def word_tokens(text: str) -> list[str]:
    """The word tokens as written: `words` before lower-casing. Each token, taken alone, is one token again."""
    return _WORD.findall(text)


def words(text: str) -> list[str]:
    """Lower-cased word tokens, keeping identifiers like 'sys.setrecursionlimit' or 'c++' whole."""
    return [w.lower().strip(".") for w in word_tokens(text)]


def index_words(text: str) -> str:
    """What a word index would drop of the text, as words it keeps, one per thing, in order, without repeats:
    one-letter options with their case ('shortoptucap' for '-U', 'shortoptu' for '-u': two options of diff) and
    version numbers with each shorter version they belong to ('ver3d4d1 ver3d4' for 'v3.4.1', which a question
    on 3.4 asks about)."""
    found = [
        f"shortopt{m.group(1).lower()}{'cap' if m.group(1).isupper() else ''}" for m in _SHORT_OPTION.finditer(text)
    ]
    for match in _DOTTED_NUMBER.finditer(text):
        parts = match.group(1).split(".")
        found.extend("ver" + "d".join(parts[:n]) for n in range(len(parts), 1, -1))
    return " ".join(dict.fromkeys(found))


def content_terms(text: str) -> list[str]:
    """Stemmed words without stopwords: the terms that carry meaning."""
    kept = [w for w in words(text) if (w not in STOPWORDS and len(w) > 1) or w.isdigit()]
    return english_stemmer().stemWords(kept)  # one call for the list: the same stems, in a fraction of the time


def terms_of(text: str) -> list[str]:
    """Stemmed content terms plus identifier and compound parts: 'sys.setrecursionlimit' adds 'sys' and
    'setrecursionlimit', 'Linux-PAM' adds 'linux' and 'pam'."""
    terms = content_terms(text)
    extra: list[str] = []
    for term in terms:
        if "." in term or "_" in term or "-" in term:
            for part in _IDENTIFIER_SPLIT.split(term):
                extra.extend(p for p in content_terms(part) if p not in terms and p not in extra)
    return terms + extra


_PAIRED_WORD = re.compile(r"(?<!\w)[A-Za-z]{3,}(?!\w)")


def compound_pairs(text: str) -> dict[str, tuple[str, str]]:
    """Two words written next to each other, as one word a name may join them into ('send mail' ->
    'sendmail', 'log file' -> 'logfile'), mapped to their two terms; stopwords join nothing."""
    stem = english_stemmer().stemWord
    found: dict[str, tuple[str, str]] = {}
    for one, two in itertools.pairwise(_PAIRED_WORD.finditer(text)):
        first, second = one.group().lower(), two.group().lower()
        if first in STOPWORDS or second in STOPWORDS or not text[one.end() : two.start()].isspace():
            continue
        found[stem(first + second)] = (stem(first), stem(second))
    return found


def normalize_query(text: str) -> str:
    """The form in which queries are compared, so none runs twice: case, spacing and the punctuation
    around a query do not matter ('Tram fares?' is 'tram fares')."""
    return " ".join(text.lower().split()).strip(" ?!.,;:\"'")


_LITERAL = re.compile(r"""(?<!\w)['"`‘“]([^'"`’”\s][^'"`’”]{0,30})['"`’”](?!\w)""")
_NAME_TOKEN = re.compile(r"[%$@\-]*[\w][\w.:/<>=\[\]()*-]*")
_SYMBOL_NAME = re.compile(r"(?<!\S)(?![-|]\s)([=<>!*~#@+&^|-]{1,3}|[%$][=<>!*~#@+&^|?%$])(?=[\s?,.;]|$)")
"""A run of symbols written as a word of its own ('the flag ==', '<= lines', '!', the prompt escape '%#'): a log
flag, an operator or an escape; a lone dash or bar is punctuation."""
_SPELLED_SYMBOLS = {
    "exclamation mark": "!",
    "exclamation point": "!",
    "asterisk": "*",
    "hash sign": "#",
    "hash mark": "#",
    "pound sign": "#",
    "number sign": "#",
    "percent sign": "%",
    "at sign": "@",
    "dollar sign": "$",
    "caret": "^",
    "tilde": "~",
    "ampersand": "&",
    "question mark": "?",
    "plus sign": "+",
    "equals sign": "=",
    "vertical bar": "|",
    "backslash": "\\",
}
_SPELLED_SYMBOL = re.compile(rf"\b(?:{'|'.join(_SPELLED_SYMBOLS)})s?\b", re.IGNORECASE)
_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()  # noqa: SIM905
_ORDINAL_PLACE = re.compile(
    rf"\b({'|'.join(_ORDINALS)}|\d+(?:st|nd|rd|th))\s+(?:column|field|row|byte|bit|octet|word|argument|position)\b",
    re.IGNORECASE,
)
"""'the seventh column', 'the 3rd field': a place that a numbered table row or field list is keyed by ('7 | ...')."""
_SPELLED_LETTER = re.compile(r"\b(?:capital|upper-?case|lower-?case|small|letter)\s+([A-Za-z])\b(?!['’]\w)")
"""'a capital X', 'the letter D', 'a lowercase x': a one-letter code or flag, which a legend is keyed by ("'X':
Good Xmit")."""


def quoted_literals(text: str) -> list[str]:
    """The quoted literals of a text: 'x', "utf-8", `mode`."""
    return [m.group(1) for m in _LITERAL.finditer(text)]


def names_in(question: str) -> set[str]:
    """The literals and code-like names a question uses ('h', '%ar', 'core.compression', 'SQLITE_MAX_LENGTH',
    '=='), symbols and letters it spells out ('an exclamation mark': '!', 'a capital X': 'X') and places it counts
    ('the seventh column': '7'): what a table row, a term line or an option is keyed by in documentation."""
    names = set(quoted_literals(question)) | set(_SYMBOL_NAME.findall(question))
    names |= {_SPELLED_SYMBOLS[m.group().lower().rstrip("s")] for m in _SPELLED_SYMBOL.finditer(question)}
    names |= set(_SPELLED_LETTER.findall(question))
    for place in _ORDINAL_PLACE.finditer(question):
        ordinal = place.group(1).lower()
        names.add(str(_ORDINALS.index(ordinal) + 1) if ordinal in _ORDINALS else ordinal[:-2])
    for token in _NAME_TOKEN.findall(question):
        token = token.strip(".:")
        if len(token) >= 2 and (not token.isalpha() or token.isupper() or token[0] in "%$-"):
            names.add(token)
    return names
