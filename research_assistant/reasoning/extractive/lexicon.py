"""Word lists the extractive reasoner relies on: small, explicit and ordered.

Everything here is a tuple or a frozenset (`DOMAINS`: frozensets by name, in priority order) used only for
membership tests, so no output ever depends on set iteration order.
"""

from __future__ import annotations


def word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _phrases(text: str) -> tuple[str, ...]:
    return tuple(text.split(", "))


FRAMING_WORDS: frozenset[str] = word_set(
    "compare compared comparing comparison contrast difference differences differ differs better worse "
    "best worst way ways pros cons step steps main happen happens happened latest recent recently current "
    "currently today nowadays exactly actually really get gets go need needs want overview thing things "
    "anything something lot lots considered consider meaning meant define defined definition aspect aspects "
    "opposed unlike versus vs terminology parlance jargon"
)
"""Words that frame a question rather than name its subject; RAKE splits phrases on them."""

TRAILING_FRAMING: frozenset[str] = word_set("work works mean means happen happens exist exists matter")
"""Framing only as a question's last word: 'How does X work?', 'What does X mean?'."""

QUESTION_VERBS: frozenset[str] = word_set("compare define explain describe list show tell summarize")
"""Imperatives that can open a question; never entities."""

ATTRIBUTE_WORDS: frozenset[str] = word_set(
    "default limit limits cap maximum minimum max min size number value values population capital height "
    "weight price cost date year years version name rate speed length width depth count percentage "
    "percent amount temperature distance age duration capacity frequency level score ratio total average "
    "median share revenue budget salary area volume boiling melting"
)
"""Attributes whose value is a fact: 'What is the default limit of X?' asks for a value, not a definition."""

NUMERIC_CUES: tuple[str, ...] = _phrases(
    "how many, how much, how long, how old, how big, how large, how far, how fast, how often, what percentage, "
    "what percent, number of, what size"
)

NEGATIONS: frozenset[str] = word_set(
    "not no never none cannot can't won't doesn't don't isn't aren't wasn't weren't didn't neither nor"
)

AUXILIARY_VERBS: frozenset[str] = word_set(
    "is are was were be been being am has have had do does did can could will would shall should may "
    "might must get gets got make makes made take takes took set sets run runs ran let lets put puts use "
    "need keep keeps give gives gave allow allows become becomes became remain remains contain contains "
    "mean means refer refers provide provides require requires include includes return returns"
)
"""Common verbs that do not carry a verb-like suffix; any of them makes a line verb-ish."""

PRONOUN_STARTS: frozenset[str] = word_set("it this these they that those he she its their such")
"""Sentence openers that lean on the sentence before them."""

NAVIGATION_PHRASES: tuple[str, ...] = _phrases(
    "skip to content, skip to main, jump to navigation, jump to search, navigation menu, all rights reserved, "
    "cookie policy, accept cookies, subscribe to our, back to top, edit on github, edit this page, "
    "this page was last edited, show source"
)
"""Words that mark a line as a page's navigation or boilerplate wherever they stand in it."""
NAVIGATION_LABELS: tuple[str, ...] = _phrases(
    "table of contents, click here, privacy policy, terms of use, terms of service, sign in, log in to, "
    "previous topic, next topic, share this, retrieved from, report a bug"
)
"""Words that mark a line as navigation when it opens with them ('Table of Contents', 'Retrieved from ...'); within
prose they are prose ('... in the same order as the table of contents.', 'log in to the remote machine')."""

RECENCY_WORDS: tuple[str, ...] = _phrases(
    "latest, recent, recently, this year, today, nowadays, newest, up-to-date, up to date, as of, upcoming, right now"
)
"""Words that ask for what is true now. 'current' and 'currently' are read apart (`CURRENT_OF_TIME`): in a manual
they more often name a program's own state ('the current working directory', 'the current iteration')."""
CURRENT_OF_TIME = word_set(
    "version versions release releases edition stable lts state status situation trend trends event events news "
    "price prices rate rates leader leaders president record best research consensus thinking practice practices "
    "recommendation recommendations guidance guidelines standard standards year generation market population "
    "estimate estimates figures statistics policy policies law laws regulation regulations support"
)
"""What 'current' asks the present state of ('the current version', 'current best practice'); before other words
('current directory', 'current user', 'current line') it names the program's state, not a time."""
CURRENTLY_OF_TIME = word_set("supported maintained recommended available the best most used popular considered in")
"""What 'currently' asks the present state of ('currently supported', 'currently the best'); 'how deep it currently
is' or 'the currently selected item' speak of a program's state."""

DOMAINS: dict[str, frozenset[str]] = {
    "software": word_set(
        "python java javascript typescript rust golang c++ code coding program programming software api library "
        "framework function method class module package compiler interpreter runtime database sql linux "
        "windows macos git docker kubernetes algorithm recursion thread async server http bug debug "
        "variable syntax pip npm exception stack memory cpu gpu"
    ),
    "technology": word_set(
        "technology computer internet network smartphone ai artificial intelligence machine learning "
        "model robot chip semiconductor cloud data cybersecurity encryption blockchain tcp udp dns protocol "
        "wifi bandwidth latency router"
    ),
    "finance": word_set(
        "finance financial stock stocks bond bonds market markets investment invest interest inflation "
        "bank banking loan mortgage tax taxes price prices currency dollar euro economy economic gdp "
        "revenue profit budget recession"
    ),
    "health": word_set(
        "health medical medicine disease diseases symptom symptoms treatment therapy drug drugs vaccine "
        "virus cancer diabetes heart patient patients clinical doctor hospital nutrition diet sleep "
        "exercise mental caffeine"
    ),
    "science": word_set(
        "science physics chemistry biology quantum atom atoms molecule cell cells gene genes evolution "
        "species energy gravity planet star galaxy universe experiment theory"
    ),
    "environment": word_set(
        "climate environment environmental carbon emissions warming pollution renewable solar wind "
        "biodiversity forest ocean weather sustainability"
    ),
    "history": word_set(
        "history historical war empire ancient medieval century revolution dynasty king queen battle civilization"
    ),
    "law": word_set("law legal court courts regulation regulations contract rights lawsuit statute gdpr compliance"),
    "business": word_set("business company companies startup management marketing customer customers strategy sales"),
    "education": word_set("education school schools university student students teacher learning curriculum"),
}
"""Domain lexicon in priority order: ties go to the earlier domain."""
