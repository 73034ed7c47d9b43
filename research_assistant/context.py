"""Per-run parameters: the LangGraph runtime context.

The CLI and the page build a `Context` for every run, and LangGraph's server
builds one from JSON; environment settings only provide the defaults. It is a
pydantic dataclass, so whoever builds it, a value out of range or of the wrong
kind is refused (`pydantic.ValidationError`) and strings become paths and
enums. `refusal_line` says what was refused in one line, for the CLI and the
page; `source_refusal` says why a run has nothing to search, for them and the
services. Depth sets the size of the research through a `DepthProfile`;
explicit limits override it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationError
from pydantic.dataclasses import dataclass as validated_dataclass

from research_assistant.settings import ModelSpec, get_settings


class Depth(StrEnum):
    QUICK = "quick"
    STANDARD = "standard"
    DEEP = "deep"


class CitationStyle(StrEnum):
    NUMERIC = "numeric"
    APA = "apa"
    MLA = "mla"


SourceKind = Literal["local", "web", "news", "academic", "wiki"]
PROVIDERS: tuple[str, ...] = ("tavily", "exa", "wikipedia", "arxiv")
"""The search provider families a run may name (`Context.providers`), in order of preference."""

HARD_MAX_ITERATIONS = 10
"""No run loops more often than this, whatever its parameters say."""


QUESTION_EVIDENCE_EXTRA = 2
"""Evidence items the question itself (the plan's first sub-question) keeps beyond a depth's count."""


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

    def evidence_limit(self, position: int) -> int:
        """Evidence items a round keeps for the plan's sub-question at `position`: the question itself (0) keeps
        `QUESTION_EVIDENCE_EXTRA` more than the others, since the passages that answer it often rank a few places
        below ones that only share its words, and its answer is what the report opens with."""
        return self.evidence_per_sub_question + (QUESTION_EVIDENCE_EXTRA if position == 0 else 0)


PROFILES: dict[Depth, DepthProfile] = {
    Depth.QUICK: DepthProfile(3, 1, 4, 1, 6, 2, 8, 60.0),
    Depth.STANDARD: DepthProfile(4, 2, 5, 3, 12, 3, 12, 75.0),
    Depth.DEEP: DepthProfile(5, 3, 8, 5, 25, 4, 18, 85.0),
}


Role = Literal["analysis", "planning", "extraction", "evaluation", "synthesis", "judge"]
ROLES: tuple[Role, ...] = ("analysis", "planning", "extraction", "evaluation", "synthesis", "judge")
"""What a run asks of a model, each of which may have a model of its own (`Context.models`)."""


def _role(name: str) -> str:
    if name not in ROLES:
        raise ValueError(f"is not a role: {', '.join(ROLES)}")
    return name


def provider_names(names: list[str]) -> list[str]:
    """`names` as provider families, each once and in lower case; ValueError naming any that is not one."""
    names = list(dict.fromkeys(name.strip().lower() for name in names))
    unknown = [name for name in names if name not in PROVIDERS]
    if unknown:
        plural = "s" if len(unknown) > 1 else ""
        raise ValueError(f"includes unknown provider{plural} {', '.join(unknown)}; choose from {', '.join(PROVIDERS)}")
    return names


def _providers(names: list[str] | None) -> list[str] | None:
    return None if names is None else provider_names(names)


RoleName = Annotated[str, AfterValidator(_role)]


@validated_dataclass
class Context:
    """What one run may do: depth, sources, limits and where its data lives."""

    depth: Depth = field(
        default_factory=lambda: Depth(get_settings().depth),
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
        default_factory=lambda: CitationStyle(get_settings().citation_style),
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
    providers: Annotated[list[str] | None, AfterValidator(_providers)] = field(
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
    models: dict[RoleName, ModelSpec] | None = field(
        default=None,
        metadata={
            "description": "Model per role (`provider:model`; a bare name is Gemini's) for this run, over the "
            "settings; only with the LLM reasoner."
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


RULES: dict[str, str] = {
    "max_sources": "at least 1",
    "max_iterations": "at least 1",
    "max_seconds": "a number of seconds more than 0",
    "recency_days": "a number of days, at least 1",
    "budget_tokens": "a whole number above 0",
    "budget_usd": "an amount above 0, such as 0.50",
}
"""What a field's value must be, in words, for the fields whose constraints above refuse a value."""


def refusal_line(error: ValidationError, names: Mapping[str, str] | None = None) -> str:
    """The first value a `Context` refused, in one line without a full stop: "max sources must be at least 1".
    `names`: how an interface names a field (a flag, a label); a "{}" in it takes the role, for `models`."""
    problem = error.errors()[0]
    field_name, *within = [str(part) for part in problem["loc"]] or ["parameters"]
    named = {"models": "the {} model", **(names or {})}.get(field_name, field_name.replace("_", " "))
    name = named.format(*within) if within else named.replace("{} ", "")
    if problem["type"] == "value_error":  # a rule of the Context's own, whose message says what it wants
        return f"{name} {problem['ctx']['error']}"
    if field_name in RULES:
        return f"{name} must be {RULES[field_name]}"
    return f"{name}: {problem['msg'][:1].lower()}{problem['msg'][1:]}"


NO_SOURCE = (
    "no source is configured: choose local documents with a corpus, or wiki or academic sources, "
    "or set TAVILY_API_KEY or EXA_API_KEY for web search"
)
"""What a run with nothing to search is told, wherever it is refused."""


def source_refusal(
    source_types: Sequence[str], has_corpus: bool, give_corpus: str = "pass --corpus DIR or set RESEARCH_CORPUS_DIR"
) -> str:
    """Why a run of these source types cannot start, in one line without a full stop; "" when it can.
    `give_corpus`: how the interface asks for a folder of documents."""
    if not source_types:
        return NO_SOURCE
    if "local" in source_types and not has_corpus:
        return f"'local' sources need a corpus: {give_corpus}"
    return ""
