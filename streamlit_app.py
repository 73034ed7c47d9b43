"""The research page: ask a question, watch the research, read and download the report.

A thin page: it builds the run's parameters, drives the graph through the
runner, and renders what comes back. No research logic lives here. Report
text is rendered as Markdown only (never as HTML), since it quotes documents.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path

import streamlit as st

from research_assistant.context import CitationStyle, Context, Depth, SourceKind
from research_assistant.progress import ProgressEvent
from research_assistant.settings import Settings, SettingsError, get_settings

DEFAULT_CORPUS = "examples/python-memory"
logger = logging.getLogger("research_assistant.page")


@dataclass
class PageState:
    """Everything the page remembers between reruns."""

    report: str = ""
    question: str = ""
    events: list[str] = field(default_factory=list)
    error: str = ""


def page_state() -> PageState:
    if "page" not in st.session_state:
        st.session_state["page"] = PageState()
    state: PageState = st.session_state["page"]
    return state


def run(question: str, context: Context, state: PageState) -> None:
    from research_assistant.corpus.files import CorpusError
    from research_assistant.runner import run_research
    from research_assistant.services import ConfigurationError

    state.events, state.report, state.error = [], "", ""
    with st.status("Researching…", expanded=True) as status:

        def show(event: ProgressEvent) -> None:
            line = f"**{event.node}**: {event.message}"
            state.events.append(line)
            st.write(line)

        try:
            result = asyncio.run(run_research(question, context, show))
        except (CorpusError, ConfigurationError, ValueError) as error:
            state.error = str(error)
            status.update(label="Research could not run", state="error")
            return
        except Exception as error:  # a bug, not the analyst's mistake: say so in one line, log the details
            logger.exception("research failed")
            state.error = f"The research failed unexpectedly: {error!r}. The details are in the server log."
            status.update(label="Research failed", state="error")
            return
        state.report, state.question = result["report_markdown"], question
        status.update(label="Research complete", state="complete", expanded=False)


SOURCE_LABELS: dict[SourceKind, str] = {
    "local": "Local documents",
    "web": "Web",
    "news": "News",
    "academic": "Academic (arXiv)",
    "wiki": "Wikipedia",
}


def available_sources(settings: Settings) -> tuple[list[SourceKind], str]:
    """The source kinds this installation can search, and a line about the ones that need a key."""
    kinds: list[SourceKind] = ["local", "academic", "wiki"]
    if settings.tavily_api_key or settings.exa_api_key:
        return ["local", "web", "news", "academic", "wiki"], ""
    return kinds, "Web and news search need a key: set TAVILY_API_KEY or EXA_API_KEY."


def main() -> None:
    st.set_page_config(page_title="Research assistant", layout="wide")
    st.title("Research assistant")
    st.caption("Offline mode: extractive reasoning; findings are sentences quoted from the sources, each checked.")
    state = page_state()
    try:
        settings = get_settings()
    except SettingsError as error:
        st.error(str(error))
        st.stop()
    with st.form("research"):
        question = st.text_input("Research question", placeholder="How does Python reclaim reference cycles?")
        kinds, missing = available_sources(settings)
        sources = st.multiselect(
            "Sources", kinds, default=["local"], format_func=lambda kind: SOURCE_LABELS[kind], help=missing or None
        )
        if missing:
            st.caption(missing)
        corpus = st.text_input("Documents folder", value=str(settings.corpus_dir or DEFAULT_CORPUS))
        refresh = st.checkbox("Fetch pages again (ignore cached copies)")
        left, right = st.columns(2)
        depth = left.segmented_control("Depth", [d.value for d in Depth], default=settings.depth)
        style = right.segmented_control(
            "Citation style", [s.value for s in CitationStyle], default=settings.citation_style
        )
        submitted = st.form_submit_button("Research", type="primary")
    if submitted:
        if not question.strip():
            state.error = "Write a question first."
        elif not sources:
            state.error = "Choose at least one kind of source."
        else:
            context = Context(
                depth=Depth(depth or settings.depth),
                source_types=list(sources),
                corpus_dir=Path(corpus) if corpus.strip() else None,
                citation_style=CitationStyle(style or settings.citation_style),
                refresh=refresh,
            )
            run(" ".join(question.split()), context, state)
    if state.error:
        st.error(state.error)
    if state.report:
        st.download_button("Download report (Markdown)", state.report, file_name="report.md", mime="text/markdown")
        st.markdown(state.report)


main()
