"""Every source the run consulted: a card per cited source (numbered as in the report, the target of its [n]
citations, its Sources entry in the run's citation style, a local document downloadable), then the sources read
but not cited, then those that could not be read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st

from research_assistant.context import CitationStyle
from research_assistant.page.text import domain_of, locator_markdown
from research_assistant.report.citations import TYPE_NAMES, escape_markdown, format_source
from research_assistant.report.locations import relative_code_spans
from research_assistant.report.verify import normalize_whitespace, parse_sources
from research_assistant.schemas import Evidence, ResearchReport, SourceRecord, SourceStatus

QUOTES_PER_CARD = 5
DOWNLOAD_LIMIT = 50 * 1024 * 1024  # bytes: a local document larger than this is not offered for download


@dataclass(frozen=True)
class SourceCard:
    number: int
    source: SourceRecord
    quotes: tuple[str, ...] = ()
    entry: str = ""
    """Its Sources-list entry as the report writes it, in the run's citation style (safe Markdown)."""


def anchor(number: int) -> str:
    """The id of source card `number`, which its citations link to."""
    return f"source-{number}"


# Pure helpers (unit-tested) ------------------------------------------------------------------------------


def has_findings(state: Mapping[str, Any]) -> bool | None:
    """Whether the run's report states anything, cited to a source; None when the state holds no report. A
    report whose findings all lost their sources cites nothing (`cited_sources`) and has none."""
    report: ResearchReport | None = state.get("report")
    if report is None:
        return None
    if "cited_sources" in state:
        return bool(state["cited_sources"])
    return bool(report.findings())


def cited_evidence(report: ResearchReport | None) -> list[str]:
    """The evidence ids the report's findings cite, in report order."""
    findings = report.findings() if report is not None else []
    return list(dict.fromkeys(eid for _, finding in findings for eid in finding.evidence_ids))


def cited_sources(state: Mapping[str, Any], markdown: str = "") -> dict[int, SourceRecord]:
    """Number -> the source `[n]` cites, as the renderer numbered them (`cited_sources` in the run's state). Only a
    run saved before the state carried the numbering has them read back from its report's Sources list."""
    sources: Mapping[str, SourceRecord] = state.get("sources", {})
    if "cited_sources" in state:
        cited: Sequence[str] = state["cited_sources"] or ()
        return {number: sources[sid] for number, sid in enumerate(cited, start=1) if sid in sources}
    by_locator = {source.locator: source for source in sources.values()}
    parsed = parse_sources(markdown) if markdown and sources else {}
    return {number: by_locator[locator] for number, locator in sorted(parsed.items()) if locator in by_locator}


def source_cards(state: Mapping[str, Any], style: CitationStyle, markdown: str = "") -> list[SourceCard]:
    """A card for every source the report cites, numbered as in the report, with the passages it quotes from it
    (`markdown`: the report, read only for a run saved before its state carried the numbering)."""
    evidence: Mapping[str, Evidence] = state.get("evidence", {})
    cited = cited_evidence(state.get("report"))
    ids = cited or list(evidence)
    cards = []
    for number, source in cited_sources(state, markdown).items():
        found = (evidence[eid] for eid in ids if eid in evidence)
        quoted = (normalize_whitespace(item.quote) for item in found if item.source_id == source.id)
        quotes = tuple(dict.fromkeys(quote for quote in quoted if quote))
        # Its Sources entry is the renderer's own `format_source`, without number and quotes: card and report agree.
        entry = format_source(source, number, style).splitlines()[0].removeprefix(f"[{number}] ")
        cards.append(SourceCard(number, source, quotes[:QUOTES_PER_CARD], entry))
    return cards


def uncited_sources(state: Mapping[str, Any], cards: Sequence[SourceCard]) -> list[SourceRecord]:
    """Sources read but cited nowhere in the report, by title."""
    sources: Mapping[str, SourceRecord] = state.get("sources", {})
    cited = {card.source.id for card in cards}
    read = (s for s in sources.values() if s.status is SourceStatus.READ and s.id not in cited)
    return sorted(read, key=lambda s: (s.title.casefold(), s.locator))


def local_file(locator: str, roots: Sequence[Path]) -> Path | None:
    """The file of a local document, when it lies in one of the run's documents folders (links followed) and
    is not too large to offer; None otherwise."""
    if "://" in locator or not locator.startswith("/"):
        return None
    try:
        path = Path(locator).resolve()
        if not path.is_file() or path.stat().st_size > DOWNLOAD_LIMIT:
            return None
    except OSError:
        return None
    return path if any(path.is_relative_to(root.resolve()) for root in roots) else None


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
    lines = [relative_code_spans(card.entry, roots)] if card.entry else []
    lines += [facts_line(source), f"{locator_markdown(source.locator, roots)} · {access_line(source)}"]
    if card.quotes:  # a list in the text's own colour: quotes are what the analyst reads the card for
        lines.append("\n".join(f"- \u201c{escape_markdown(quote)}\u201d" for quote in card.quotes))
    return lines


def failed_sources(state: Mapping[str, Any]) -> list[SourceRecord]:
    sources: Mapping[str, SourceRecord] = state.get("sources", {})
    return sorted((s for s in sources.values() if s.status is SourceStatus.FAILED), key=lambda s: s.locator)


def uncited_line(source: SourceRecord, roots: list[Path]) -> str:
    return f"- {escape_markdown(source.title) or 'Untitled'}: {locator_markdown(source.locator, roots)}"


def failed_line(source: SourceRecord, roots: list[Path]) -> str:
    return f"{uncited_line(source, roots)} ({escape_markdown(source.reason or 'unknown reason')})"


# Drawing -------------------------------------------------------------------------------------------------


def show_source_cards(
    cards: Sequence[SourceCard], roots: list[Path], state: Mapping[str, Any] | None = None, run_id: str = ""
) -> None:
    """Every source consulted: the cited ones as cards, then those read but not cited, then the failed ones."""
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
            path = local_file(card.source.locator, roots)
            if path is not None:
                st.download_button(
                    "Open the document (download)",
                    path.read_bytes,
                    file_name=path.name,
                    on_click="ignore",
                    icon=":material/description:",
                    key=f"document-{run_id}-{card.number}",
                )
    if state is None:
        return
    uncited = uncited_sources(state, cards)
    if uncited:
        st.subheader(f"Read but not cited ({len(uncited)})", anchor="sources-uncited")
        st.markdown("\n".join(uncited_line(source, roots) for source in uncited))
    failed = failed_sources(state)
    if failed:
        st.subheader(f"Could not be read ({len(failed)})", anchor="sources-failed")
        st.markdown("\n".join(failed_line(source, roots) for source in failed))
