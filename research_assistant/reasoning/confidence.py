"""One confidence for both reasoners: did the research find what the question asks for?

    confidence = (40 x coverage + 30 x reliability + 15 x recency + 15 x consistency) x certainty

- coverage: the priority-weighted mean of the sub-questions' coverage scores (each reasoner judges those:
  the extractive one from its evidence, the LLM one from the model's judgement);
- reliability: the mean credibility of the sources quoted (0.4), how many distinct sources are quoted
  against the plan's minimum (0.3) and the share of attempted sources that could be read (0.3);
- recency: 1 for a question that does not need recent information; else the mean freshness of the sources
  quoted (within 2 years 1, 5 years 0.6, older 0.3, undated 0.5);
- consistency: falls with each conflict found between evidence items;
- certainty: whether the direct answer is in the evidence (see `answer_certainty`). A question that asks
  for a value (a default, a limit, a figure, an expansion) whose value is in no quote gets at most half,
  so a report that missed its answer never looks sure, and one whose value is only in loosely relevant quotes,
  or only in the entries of settings it does not ask about, or only in quotes that do not name the code the
  question asks about ('click.progressbar'), at most three quarters; a question its reasoner does
  not count covered (the report lists it among the gaps) gets at most `UNCOVERED_CERTAINTY`, whatever its quotes
  state; a comparison, a how-question, a list or what something is for (`questions.asks_purpose`) whose quotes the
  reasoner judged (the extractive one does) at most `READER_JUDGED_CERTAINTY`, a yes-or-no question at most
  `VERDICT_CERTAINTY`; and a question that names something (a capitalised name: 'Redis', 'SMTP') that no quote
  for the question itself, no such quote's section and no title of a source it quotes mentions gets at most half
  (`unseen_names`).

Nothing here calls a model: the same evidence always gives the same confidence.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from research_assistant.reasoning.answers import ENTRY_LABEL, answer_strength
from research_assistant.reasoning.questions import Asked, asked_for, asks_purpose
from research_assistant.schemas import Coverage, Evidence, ResearchPlan, SourceRecord, SourceStatus
from research_assistant.text.tokens import STOPWORDS, content_terms, quoted_literals, terms_of

ANSWER_FOUND = 0.75
"""Answer strength at or above which a quote holds the asked-for value."""
UNSURE_CERTAINTY = 0.5
"""The certainty when a value question's value is in no quote."""
UNCOVERED_CERTAINTY = 0.75
"""The most certainty for a question the reasoner does not count covered: a value its quote states may be
the answer, but a report whose gaps name the question itself is not one to be sure of."""
READER_JUDGED = frozenset({"comparison", "explanation", "procedure", "list"})
"""Questions whose answer no form gives away: a sentence that contrasts two things states a difference, one that
gives a cause or a step states a mechanism or a way, and a lead-in with its items states a list, not necessarily
the one asked about nor all of it, which only a reader (or a model) can tell; so does a question what something is
for, which a sentence defining the thing need not answer. (On the quality benchmark's
manuals, lists the extractive reasoner judged sure were the asked ones on its dev questions but only one time in
two on its test questions.)"""
READER_JUDGED_CERTAINTY = 0.75
"""The most certainty a quote judged by its reasoner gives a question of `READER_JUDGED`."""
VERDICT_CERTAINTY = 0.6
"""The most certainty a quote gives a yes-or-no question: a denial or an affirmation near the question's words ranks
a quote first (`answers._verdict_strength`), but which way it settles the question, and whether it is about what
was asked, only a reader can tell (on the quality benchmark, as many wrong verdicts as right ones came first)."""
CLEAR_RELEVANCE = 0.5
"""Relevance (as the extractive reasoner scores a quote) at or above which a quote stating a value of the asked
kind is clearly about what was asked."""
LOOSE_VALUE_CERTAINTY = 0.75
"""The most certainty when every quote stating a value of the asked kind is only loosely relevant: a default
stated in a sentence that shares few of the question's words is as often another setting's as the asked one's
(on the quality benchmark's reports at 80 or more, about two in three such were right, against nine in ten of
the clearly relevant ones)."""
NEUTRAL_CREDIBILITY = 0.5
_ASKED_NAME = re.compile(r"(?<![.?!;:]\s)(?<!^)\b([A-Z][A-Za-z0-9+-]{2,})\b")
"""A capitalised word inside the question, not opening a sentence: a name (a product, a protocol, a setting)."""


def unseen_names(question: str, evidence: Sequence[Evidence], cited: Sequence[SourceRecord]) -> list[str]:
    """The names the question asks about that no quote, no quote's section and no quoted source's title
    mentions: the evidence is about something else. 'What is the default port of the Redis server?', asked of
    the Python manual, had been answered 'The server listens to port 8000 by default.' (http.server) at 94."""
    seen = " ".join([*(e.quote for e in evidence), *(e.section for e in evidence), *(s.title or "" for s in cited)])
    seen = seen.lower()
    names = dict.fromkeys(m.group(1) for m in _ASKED_NAME.finditer(question.strip()))
    return [name for name in names if name.lower() not in STOPWORDS and name.lower() not in seen]


_ENTRY_SECTION = re.compile(
    r"^[\w.\-$%@]+(?:=\S+)?(?:\s+(?:directive|option|parameter|variable|setting)|(?-i:\s+[a-z][\w|<>-]*){1,3})?$",
    re.IGNORECASE,
)
"""A section that is one setting's entry: its name alone, with a word for what it is, or with the placeholders of
its arguments as a manual heads an option ('rxcost num', '--label=label', 'hello interval time s|ms')."""
_IDENTIFIER = re.compile(r"^(?:[-$%@]*[a-z]\w*(?:[._\-]\w+)*|[-$%@]*\w+(?:[._\-]\w+)+|[a-z]+[A-Z]\w*)$")
"""A setting's name: lower case, dotted or joined ('traceback', 'Task.max_retries', 'maxRetries'), not a title."""
_ASKED_IDENTIFIER = re.compile(r"[-$%@]*[A-Za-z]\w*(?:[._\-]\w+)+|\b[A-Z]{2,}[A-Za-z0-9]*\b|\b[a-z]+[A-Z]\w*\b")
_NAME_PARTS = re.compile(r"[._\-$%@]+|(?<=[a-z0-9])(?=[A-Z])")


def _letters(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def entry_names(item: Evidence) -> list[str]:
    """The settings a quote documents: its section's name when that is a setting's ('traceback'), and the name its
    entry opens with ('recycle – ...')."""
    names = []
    section = item.section.strip()
    if section and _ENTRY_SECTION.match(section):
        names.append(section.split()[0].split("=")[0])
    if label := ENTRY_LABEL.match(item.quote):
        names.append(label.group(1))
    return [name for name in names if _IDENTIFIER.match(name) and name.lower() != "default"]


ENTRY_SHARES_QUESTION = 0.5
"""The share of the question's terms an entry's text speaks of at which it is the asked setting's, whatever its
name: 'How long does a connection wait on a locked database?' is answered under 'timeout'."""


def states_another_entry(question: str, item: Evidence) -> bool:
    """Whether a quote gives the value of a setting the question does not ask about: it is a setting's entry
    whose name the question neither writes nor shares a word with, whose text speaks of less than half of what
    the question does, and it names none of the question's own identifiers. ('Default: disabled (None)' under
    'traceback' for the level at which processing stops; 'Maximum number of retries ...' under 'Task.max_retries'
    for the number of tasks in a chord.)"""
    names = entry_names(item)
    if not names:
        return False
    asked_letters, asked_terms = _letters(question), set(terms_of(question))
    for name in names:
        if _letters(name) in asked_letters or set(terms_of(_NAME_PARTS.sub(" ", name))) & asked_terms:
            return False
    quote = _letters(item.quote)
    if any(_letters(found) in quote for found in _ASKED_IDENTIFIER.findall(question)):
        return False
    asked = set(content_terms(question))
    if asked and len(asked & set(terms_of(item.quote))) >= ENTRY_SHARES_QUESTION * len(asked):
        return False  # 'timeout – How many seconds the connection should wait ... if the database is locked'
    opening = _letters(item.quote[:40])
    return not any(_letters(literal) in opening for literal in quoted_literals(question) if _letters(literal))


_CODE_IDENTIFIER = re.compile(r"[-$%@]*[A-Za-z]\w*(?:[._]\w+)+|\b[a-z]+[A-Z]\w*\b")
"""A name the question writes as code: dotted, joined by underscores or in camel case ('click.progressbar',
'max_content_width', 'maxRetries')."""


def names_asked_code(question: str, item: Evidence) -> bool:
    """Whether the quote, or the section it stands in, names the code the question asks about (the whole name or
    its last part: 'progressbar' for 'click.progressbar'); True when the question names no code. A value beside
    other code is another thing's: 'By default Click will not format content for more than 80 characters width.'
    for the default width of `click.progressbar`."""
    names = [*_CODE_IDENTIFIER.findall(question), *quoted_literals(question)]
    wanted = {_letters(part) for name in names for part in (name, re.split(r"[.:/]", name)[-1])}
    wanted = {letters for letters in wanted if len(letters) >= 3}
    if not wanted:
        return True
    seen = _letters(f"{item.quote} {item.section}")
    return any(letters in seen for letters in wanted)


def direct_evidence(plan: ResearchPlan, evidence: Sequence[Evidence]) -> list[Evidence]:
    """The evidence gathered for the question itself (the plan's first sub-question)."""
    first = plan.sub_questions[0].id if plan.sub_questions else ""
    return [e for e in evidence if e.sub_question_id == first]


def states_value(asked: Asked, item: Evidence, question: str) -> bool:
    """Whether the quote states a value of the asked kind, and the reasoner, where it judged the quote
    (`Evidence.answer`), found it answers: a figure in a quote about something else is not the answer."""
    judged = item.answer is None or item.answer >= ANSWER_FOUND
    return judged and answer_strength(asked, item.quote, question) >= ANSWER_FOUND


def _stating(asked: Asked, question: str, plan: ResearchPlan, evidence: Sequence[Evidence]) -> list[Evidence]:
    """The quotes for the question itself that state a value of the asked kind."""
    return [e for e in direct_evidence(plan, evidence) if states_value(asked, e, question)]


def _asked(question: str, plan: ResearchPlan) -> Asked:
    """What the question itself asks for, as the plan's first sub-question words it."""
    return asked_for(plan.sub_questions[0].text if plan.sub_questions else question)


def value_found(question: str, plan: ResearchPlan, evidence: Sequence[Evidence]) -> bool | None:
    """Whether a quote for the question itself states the value it asks for; None when the question does
    not ask for a value (its answer cannot be recognised by its form)."""
    asked = _asked(question, plan)
    if not asked.wants_value:
        return None
    return bool(_stating(asked, question, plan, evidence))


def answer_certainty(
    question: str, plan: ResearchPlan, evidence: Sequence[Evidence], coverage: Sequence[Coverage]
) -> float:
    """0..1: how surely the evidence holds what the question asks for.

    For a value question, 1 when a quote for the question itself states the value and is clearly relevant
    (`CLEAR_RELEVANCE`) and not the entry of a setting the question does not ask about (`states_another_entry`),
    `LOOSE_VALUE_CERTAINTY` when only loosely relevant quotes or other settings' entries state one, else
    `UNSURE_CERTAINTY`.
    For other questions, how clearly the best quote answers (as the reasoner judged each quote: a
    definition of the subject, surely only the entry under its term, a list under its lead-in), or, when it
    judged none, the question's own coverage score; never below `UNSURE_CERTAINTY`, for a comparison, a
    how-question, a list or what something is for at most `READER_JUDGED_CERTAINTY`, for a yes or no at most
    `VERDICT_CERTAINTY`.
    Either way at most `UNCOVERED_CERTAINTY` when the reasoner does not count the question itself covered.
    """
    direct = direct_evidence(plan, evidence)
    if not direct:
        return UNSURE_CERTAINTY * 0.6
    first = plan.sub_questions[0].id if plan.sub_questions else ""
    own_coverage = next((c for c in coverage if c.sub_question_id == first), None)
    ceiling = 1.0 if own_coverage is None or own_coverage.covered else UNCOVERED_CERTAINTY
    asked = _asked(question, plan)
    if asked.wants_value:
        stating = _stating(asked, question, plan, evidence)
        if not stating:
            return min(ceiling, UNSURE_CERTAINTY)
        not_others = [item for item in stating if not states_another_entry(question, item)]
        # A quote a model chose for its sub-question is taken as relevant; the extractive reasoner scores each.
        # Another setting's entry is never clear, however relevant its words: its value is that setting's.
        # A value beside other code than the asked is never clear either.
        clear = any(
            (e.answer is None or e.score >= CLEAR_RELEVANCE) and names_asked_code(question, e) for e in not_others
        )
        return min(ceiling, 1.0 if clear else LOOSE_VALUE_CERTAINTY)
    judged = [e.answer for e in direct if e.answer is not None]
    purpose = asks_purpose(plan.sub_questions[0].text if plan.sub_questions else question)
    if judged and (asked.kind in READER_JUDGED or purpose):
        ceiling = min(ceiling, READER_JUDGED_CERTAINTY)
    if judged and asked.kind == "yesno":
        ceiling = min(ceiling, VERDICT_CERTAINTY)
    own = max(judged) if judged else (own_coverage.score if own_coverage else 0.0)
    return min(ceiling, max(UNSURE_CERTAINTY, min(1.0, own)))


def freshness(published: str | None, today: date) -> float:
    try:
        when = date.fromisoformat((published or "")[:10])
    except ValueError:
        return 0.5
    age = (today - when).days / 365.25
    return 1.0 if age <= 2 else 0.6 if age <= 5 else 0.3


def _quoted_sources(evidence: Sequence[Evidence], sources: dict[str, SourceRecord]) -> list[SourceRecord]:
    """The sources the evidence quotes, each once, in the order first quoted."""
    return [sources[i] for i in dict.fromkeys(e.source_id for e in evidence) if i in sources]


def confidence_score(
    question: str,
    plan: ResearchPlan,
    coverage: Sequence[Coverage],
    evidence: Sequence[Evidence],
    sources: dict[str, SourceRecord],
    *,
    conflicts: int,
    needs_recent: bool,
    today: date,
) -> float:
    """0-100, as the module docstring describes; 0 without evidence."""
    if not evidence or not coverage:
        return 0.0
    weights = {sq.id: 6 - sq.priority for sq in plan.sub_questions}
    total_weight = sum(weights.get(c.sub_question_id, 1) for c in coverage)
    covered = sum(weights.get(c.sub_question_id, 1) * c.score for c in coverage) / max(total_weight, 1)
    cited_ids = list(dict.fromkeys(e.source_id for e in evidence))
    cited = _quoted_sources(evidence, sources)
    credibility = sum(s.credibility.score if s.credibility else NEUTRAL_CREDIBILITY for s in cited) / max(len(cited), 1)
    read = sum(s.status is SourceStatus.READ for s in sources.values())
    failed = sum(s.status is SourceStatus.FAILED for s in sources.values())
    read_share = read / (read + failed) if failed else 1.0
    distinct = min(1.0, len(cited_ids) / max(plan.min_sources, 1))
    reliability = 0.4 * credibility + 0.3 * distinct + 0.3 * read_share
    recency = sum(freshness(s.published, today) for s in cited) / max(len(cited), 1) if needs_recent else 1.0
    consistency = max(0.0, 1.0 - conflicts / max(1.0, len(evidence) / 2))
    base = 40 * covered + 30 * reliability + 15 * recency + 15 * consistency
    certainty = answer_certainty(question, plan, evidence, coverage)
    # The names asked about must be in what answers the question itself: a sub-question's quote that names
    # 'User-Agent' does not make 'By default it sends HTTP/1.1 100 Continue' about it.
    direct = direct_evidence(plan, evidence) or evidence
    if unseen_names(question, direct, _quoted_sources(direct, sources)):
        certainty = min(certainty, UNSURE_CERTAINTY)
    total = base * certainty
    return round(min(100.0, max(0.0, total)), 1)
