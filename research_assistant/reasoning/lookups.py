"""What a run looks up in its documents beside retrieval, read from a sub-question's wording.

Retrieval ranks passages by their words; some answers sit where no query ranks high. An abbreviation is spelled
out once in a manual, often on a page about something else, and a term is defined in the entry under its name,
whose other words a question rarely shares. `Reasoner.lookups` tells the search and extract nodes which of these
to look for, so that nodes never read a question's wording themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

from research_assistant.reasoning.answers import expanded_in
from research_assistant.reasoning.questions import asked_for, defined_term


@dataclass(frozen=True)
class Lookups:
    """The direct look-ups for one sub-question."""

    acronym: str = ""
    """An abbreviation whose expansion is asked: documents that spell it out are read and searched."""
    term: str = ""
    """The term a definition asks of: passages keyed by it (its entry) are read."""
    sections: bool = False
    """Whether sections headed by `term` are read too: only when the question as a whole asks a definition (a
    plan's 'Definition of Apache' beside another question would read every page that opens with the name)."""

    def spells_out(self, text: str) -> bool:
        """Whether `text` uses the abbreviation and spells it out."""
        return bool(self.acronym) and expanded_in(self.acronym, text)


def lookups_for(question: str, sub_question: str) -> Lookups:
    """The look-ups the wording of `sub_question` (a part of `question`) calls for."""
    asked = asked_for(sub_question)
    term = defined_term(sub_question) if asked.kind == "definition" else ""
    return Lookups(
        acronym=asked.acronym if asked.kind == "expansion" else "",
        term=term,
        sections=bool(term) and asked_for(question).kind == "definition",
    )
