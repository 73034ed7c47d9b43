"""Source cards: one per cited source, numbered as in the report, each the target of its [n] citations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from research_assistant.page.text import domain_of, escape_markdown, locator_markdown
from research_assistant.report.verify import normalize_whitespace, parse_sources
from research_assistant.schemas import Evidence, Finding, ResearchReport, SourceRecord, SourceStatus, SourceType

QUOTES_PER_CARD = 5
TYPE_NAMES = {
    SourceType.LOCAL: "local document",
    SourceType.WEB: "web page",
    SourceType.NEWS: "news article",
    SourceType.ACADEMIC: "academic source",
    SourceType.WIKI: "wiki article",
}


@dataclass(frozen=True)
class SourceCard:
    number: int
    source: SourceRecord
    quotes: tuple[str, ...] = ()


def anchor(number: int) -> str:
    """The id of source card `number`, which its citations link to."""
    return f"source-{number}"


# Pure helpers (unit-tested) ------------------------------------------------------------------------------


def all_findings(report: ResearchReport | None) -> list[Finding]:
    """Every statement of the report, in report order."""
    if report is None:
        return []
    findings = [*report.answer, *report.summary, *report.key_findings]
    findings += [voice for finding in report.consensus for voice in (finding, *finding.agreeing)]
    findings += [finding for section in report.sections for finding in section.findings]
    return findings + [side for conflict in report.conflicts for side in conflict.sides]


def cited_evidence(report: ResearchReport | None) -> list[str]:
    """The evidence ids the report's findings cite, in report order."""
    return list(dict.fromkeys(eid for finding in all_findings(report) for eid in finding.evidence_ids))


def source_cards(markdown: str, state: Mapping[str, Any]) -> list[SourceCard]:
    """A card for every entry of the report's Sources list, with the passages the report quotes from it."""
    sources: Mapping[str, SourceRecord] = state.get("sources", {})
    evidence: Mapping[str, Evidence] = state.get("evidence", {})
    by_locator = {source.locator: source for source in sources.values()}
    cited = cited_evidence(state.get("report"))
    ids = cited or list(evidence)
    cards = []
    for number, locator in sorted(parse_sources(markdown).items()):
        source = by_locator.get(locator)
        if source is None:
            continue
        quotes = tuple(dict.fromkeys(quote for quote in _source_quotes(ids, evidence, source.id) if quote))
        cards.append(SourceCard(number, source, quotes[:QUOTES_PER_CARD]))
    return cards


def _source_quotes(ids: Sequence[str], evidence: Mapping[str, Evidence], source_id: str) -> list[str]:
    found = (evidence[eid] for eid in ids if eid in evidence)
    return [normalize_whitespace(item.quote) for item in found if item.source_id == source_id]


def facts_line(source: SourceRecord) -> str:
    """Domain, type, date, author and credibility, as safe Markdown."""
    parts = [domain_of(source.locator) or "local file", TYPE_NAMES.get(source.source_type, str(source.source_type))]
    parts.append(f"published {source.published[:10]}" if source.published else "undated")
    if source.author:
        parts.append(f"by {source.author}")
    if source.credibility is not None:
        credibility = source.credibility
        parts.append(f"credibility {credibility.score:.2f} ({credibility.category.value})")
    return " · ".join(escape_markdown(part) for part in parts)


def access_line(source: SourceRecord) -> str:
    how = f"read via {source.access_method}" if source.access_method else "read"
    when = f" on {source.accessed_at[:10]}" if source.accessed_at else ""
    size = f", {source.chars:,} characters" if source.chars else ""
    return escape_markdown(how + when + size)


def card_lines(card: SourceCard, roots: list[Path]) -> list[str]:
    """The card's body as Markdown lines: facts, location, access, quoted passages."""
    source = card.source
    lines = [facts_line(source), f"{locator_markdown(source.locator, roots)} · {access_line(source)}"]
    lines += [f"> \u201c{escape_markdown(quote)}\u201d" for quote in card.quotes]
    return lines


def failed_sources(state: Mapping[str, Any]) -> list[SourceRecord]:
    sources: Mapping[str, SourceRecord] = state.get("sources", {})
    return sorted((s for s in sources.values() if s.status is SourceStatus.FAILED), key=lambda s: s.locator)


def failed_line(source: SourceRecord, roots: list[Path]) -> str:
    title = escape_markdown(source.title) or "Untitled"
    reason = escape_markdown(source.reason or "unknown reason")
    return f"- {title}: {locator_markdown(source.locator, roots)} ({reason})"


# Drawing -------------------------------------------------------------------------------------------------


def show_source_cards(cards: Sequence[SourceCard], roots: list[Path]) -> None:
    st.header("Sources", anchor="sources")
    if not cards:
        st.caption("No sources were cited.")
    for card in cards:
        with st.container(border=True):
            st.subheader(
                f"\\[{card.number}\\] {escape_markdown(card.source.title) or 'Untitled'}", anchor=anchor(card.number)
            )
            for line in card_lines(card, roots):
                st.markdown(line)
            credibility = card.source.credibility
            if credibility is not None and credibility.reasons:
                st.caption(escape_markdown("Credibility: " + "; ".join(credibility.reasons)))
