"""Per-run parameters: the LangGraph runtime context.

The CLI and the page build a `Context` for every run; environment settings
only provide the defaults. Depth sets the size of the research through a
`DepthProfile`; explicit limits override it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from research_assistant.settings import get_settings


class Depth(StrEnum):
    QUICK = "quick"
    STANDARD = "standard"
    DEEP = "deep"


class CitationStyle(StrEnum):
    NUMERIC = "numeric"
    APA = "apa"
    MLA = "mla"


SourceKind = Literal["local", "web", "news", "academic", "wiki"]

HARD_MAX_ITERATIONS = 10
"""No run loops more often than this, whatever its parameters say."""


@dataclass(frozen=True)
class DepthProfile:
    """How much research a depth asks for."""

    sub_questions: int
    queries_per_sub_question: int
    results_per_query: int
    max_iterations: int
    max_sources: int
    evidence_per_sub_question: int
    passages_per_sub_question: int
    confidence_threshold: float


PROFILES: dict[Depth, DepthProfile] = {
    Depth.QUICK: DepthProfile(3, 1, 4, 1, 6, 2, 8, 60.0),
    Depth.STANDARD: DepthProfile(4, 2, 5, 3, 12, 3, 12, 75.0),
    Depth.DEEP: DepthProfile(5, 3, 8, 5, 25, 4, 18, 85.0),
}


def _default_depth() -> Depth:
    return Depth(get_settings().depth)


def _default_style() -> CitationStyle:
    return CitationStyle(get_settings().citation_style)


@dataclass
class Context:
    """What one run may do: depth, sources, limits and where its data lives."""

    depth: Depth = field(default_factory=_default_depth)
    """How thorough the research is: quick, standard or deep."""
    source_types: list[SourceKind] = field(default_factory=lambda: ["local"])
    """Which kinds of source to search."""
    corpus_dir: Path | None = field(default_factory=lambda: get_settings().corpus_dir)
    """Folder of local documents; required when 'local' is a source type."""
    citation_style: CitationStyle = field(default_factory=_default_style)
    """How the Sources list is written."""
    max_sources: int | None = None
    """Most sources to read; the depth's profile when unset."""
    max_iterations: int | None = None
    """Most research rounds; the depth's profile when unset (never above 10)."""
    max_seconds: float = field(default_factory=lambda: get_settings().max_seconds)
    """Wall-clock limit; when passed, the run synthesizes what it has."""
    db_dir: Path = field(default_factory=lambda: get_settings().db_dir)
    """Research repository folder."""
    cache_dir: Path = field(default_factory=lambda: get_settings().cache_dir)
    """Document cache folder."""
    refresh: bool = False
    """Ignore cached pages and searches, fetching everything anew."""
    providers: list[str] | None = None
    """Search providers allowed, by family ('tavily', 'exa', 'wikipedia', 'arxiv'); every configured one when
    unset. Local documents are chosen through `source_types`."""
    recency_days: int | None = None
    """Drop search results published more than this many days ago; results without a date are kept."""
    review_plan: bool = False
    """Pause after planning so the analyst can edit or approve the sub-questions (a LangGraph interrupt)."""
    models: dict[str, str] | None = None
    """Model per role (`provider:model`) for this run, over the settings; only with the LLM reasoner."""
    budget_tokens: int | None = None
    """Most model tokens this run may use, over RESEARCH_BUDGET_TOKENS."""
    budget_usd: float | None = None
    """Most USD of model calls this run may spend, over RESEARCH_BUDGET_USD."""
    deadline: float | None = None
    """When research must stop (epoch seconds); the runner sets it from `max_seconds` each time a run starts
    or resumes. Unset, the limit counts from the run's start."""
    services: Any = field(default=None, repr=False, compare=False)
    """Ready-made `Services` (tests inject fakes); built from the fields above when unset. Typed `Any` so
    that the context's JSON schema, which LangGraph's server and Studio build, stays plain data."""

    def __post_init__(self) -> None:
        # LangGraph's server (and Studio) hands the context over as JSON: plain strings for paths and enums.
        self.depth = Depth(self.depth)
        self.citation_style = CitationStyle(self.citation_style)
        self.db_dir, self.cache_dir = Path(self.db_dir), Path(self.cache_dir)
        if self.corpus_dir is not None:
            self.corpus_dir = Path(self.corpus_dir)

    @property
    def profile(self) -> DepthProfile:
        return PROFILES[Depth(self.depth)]

    @property
    def source_limit(self) -> int:
        return self.max_sources or self.profile.max_sources

    @property
    def iteration_limit(self) -> int:
        return min(self.max_iterations or self.profile.max_iterations, HARD_MAX_ITERATIONS)
