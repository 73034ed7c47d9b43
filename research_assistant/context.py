"""Per-run parameters: the LangGraph runtime context.

The CLI and the page build a `Context` for every run, and LangGraph's server
builds one from JSON; environment settings only provide the defaults. It is a
pydantic dataclass, so whoever builds it, a value out of range or of the wrong
kind is refused (`pydantic.ValidationError`) and strings become paths and
enums. Depth sets the size of the research through a `DepthProfile`; explicit
limits override it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field
from pydantic.dataclasses import dataclass as validated_dataclass

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


@validated_dataclass
class Context:
    """What one run may do: depth, sources, limits and where its data lives."""

    depth: Depth = field(
        default_factory=_default_depth,
        metadata={"description": "How thorough the research is: quick, standard or deep."},
    )
    source_types: list[SourceKind] = field(
        default_factory=lambda: ["local"],
        metadata={"description": "Which kinds of source to search: local, web, news, academic, wiki."},
    )
    corpus_dir: Path | None = field(
        default_factory=lambda: get_settings().corpus_dir,
        metadata={"description": "Folder of local documents; required when 'local' is a source type."},
    )
    citation_style: CitationStyle = field(
        default_factory=_default_style,
        metadata={"description": "How the Sources list is written: numeric, apa or mla."},
    )
    max_sources: Annotated[int | None, Field(ge=1)] = field(
        default=None, metadata={"description": "Most sources to read; the depth's profile when unset."}
    )
    max_iterations: Annotated[int | None, Field(ge=1)] = field(
        default=None,
        metadata={"description": "Most research rounds; the depth's profile when unset (never above 10)."},
    )
    max_seconds: Annotated[float, Field(gt=0, allow_inf_nan=False)] = field(
        default_factory=lambda: get_settings().max_seconds,
        metadata={"description": "Wall-clock limit in seconds; when passed, the run synthesizes what it has."},
    )
    db_dir: Path = field(
        default_factory=lambda: get_settings().db_dir, metadata={"description": "Research repository folder."}
    )
    cache_dir: Path = field(
        default_factory=lambda: get_settings().cache_dir, metadata={"description": "Document cache folder."}
    )
    refresh: bool = field(
        default=False, metadata={"description": "Ignore cached pages and searches, fetching everything anew."}
    )
    providers: list[str] | None = field(
        default=None,
        metadata={
            "description": "Search providers allowed, by family ('tavily', 'exa', 'wikipedia', 'arxiv'); every "
            "configured one when unset. Local documents are chosen through `source_types`."
        },
    )
    recency_days: Annotated[int | None, Field(ge=1)] = field(
        default=None,
        metadata={
            "description": "Drop search results published more than this many days ago; results without a date "
            "are kept."
        },
    )
    review_plan: bool = field(
        default=False,
        metadata={
            "description": "Pause after planning so the analyst can edit or approve the sub-questions (a LangGraph "
            "interrupt)."
        },
    )
    models: dict[str, str] | None = field(
        default=None,
        metadata={
            "description": "Model per role (`provider:model`) for this run, over the settings; only with the LLM "
            "reasoner."
        },
    )
    budget_tokens: Annotated[int | None, Field(ge=1)] = field(
        default=None, metadata={"description": "Most model tokens this run may use, over RESEARCH_BUDGET_TOKENS."}
    )
    budget_usd: Annotated[float | None, Field(gt=0, allow_inf_nan=False)] = field(
        default=None,
        metadata={"description": "Most USD of model calls this run may spend, over RESEARCH_BUDGET_USD."},
    )
    deadline: float | None = field(
        default=None,
        metadata={
            "description": "When research must stop (epoch seconds); the runner sets it from `max_seconds` each "
            "time a run starts or resumes. Unset, the limit counts from the run's start."
        },
    )
    # Typed `Any` so that the context's JSON schema, which LangGraph's server and Studio build, stays plain data.
    services: Any = field(
        default=None,
        repr=False,
        compare=False,
        metadata={
            "description": "The run's `Services`: opened by the runner from the fields above, once per run (tests "
            "inject fakes); opened on the first step when the graph runs without the runner."
        },
    )

    @property
    def profile(self) -> DepthProfile:
        return PROFILES[Depth(self.depth)]

    @property
    def source_limit(self) -> int:
        return self.max_sources or self.profile.max_sources

    @property
    def iteration_limit(self) -> int:
        return min(self.max_iterations or self.profile.max_iterations, HARD_MAX_ITERATIONS)
