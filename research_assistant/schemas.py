"""The research domain's records, shared by every layer.

Each is a pydantic model so that it validates on the way in, serializes into
checkpoints, and can double as a structured-output schema for model calls.
State carries these records, never page bodies: text lives in the document
cache and the research repository.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from research_assistant.echo import Echoed


class Record(BaseModel):
    """Base for records: immutable, so state is never mutated in place."""

    model_config = ConfigDict(frozen=True)


class QueryType(StrEnum):
    FACTUAL = "factual"
    DEFINITIONAL = "definitional"
    COMPARATIVE = "comparative"
    CAUSAL = "causal"
    PROCEDURAL = "procedural"
    EXPLORATORY = "exploratory"


class Intent(StrEnum):
    QUICK_ANSWER = "quick_answer"
    FULL_REPORT = "full_report"


class SourceType(StrEnum):
    """What kind of source a provider returns."""

    LOCAL = "local"
    WEB = "web"
    NEWS = "news"
    ACADEMIC = "academic"
    WIKI = "wiki"


class SourceCategory(StrEnum):
    """What kind of publisher a source comes from; part of its credibility."""

    ACADEMIC = "academic"
    OFFICIAL = "official"
    NEWS = "news"
    REFERENCE = "reference"
    BLOG_OR_FORUM = "blog or forum"
    OTHER = "other"


class Credibility(Record):
    """How far a source can be trusted, and why."""

    category: SourceCategory = SourceCategory.OTHER
    score: float = Field(default=0.5, ge=0.0, le=1.0)
    reasons: list[str] = Field(default_factory=list)


class SourceStatus(StrEnum):
    FOUND = "found"
    """Returned by a search, not read yet."""
    READ = "read"
    """Its text is in the document cache and the repository."""
    FAILED = "failed"
    """Could not be read; `reason` says why."""


class QueryAnalysis(Record):
    """What the question is about and what kind of answer it wants."""

    keywords: list[str] = Field(description="Key phrases, most important first.")
    entities: list[str] = Field(
        default_factory=list, description="Named things: products, people, places, versions, dates."
    )
    query_type: QueryType = QueryType.EXPLORATORY
    domain: str = Field(default="general", description="Subject area, e.g. 'software', 'finance'.")
    needs_recent: bool = Field(default=False, description="Whether the answer depends on recent information.")
    intent: Intent = Intent.FULL_REPORT


class SubQuestion(Record):
    """One part of the research, answered by its own evidence."""

    id: str = Field(description="Stable id within the run, e.g. 'q1'.")
    text: str
    priority: int = Field(default=1, ge=1, le=5, description="1 is the most important.")
    queries: list[str] = Field(default_factory=list, description="Search queries for this sub-question.")
    source_types: list[SourceType] = Field(default_factory=list, description="Preferred source kinds; empty means any.")


MAX_SUB_QUESTIONS = 10
"""Most sub-questions an analyst's edit of a plan may leave (on the page or through `review_plan`)."""


class ResearchPlan(Record):
    sub_questions: list[SubQuestion]
    min_sources: int = Field(ge=1, description="Distinct sources the whole research should read.")
    min_evidence_per_question: int = Field(ge=1, description="Evidence items that make a sub-question covered.")
    completion_criteria: str = ""


class SearchQuery(Record):
    """A query waiting to be run, tied to the sub-question it serves."""

    text: str
    sub_question_id: str


class SearchResult(Record):
    """One hit from a search provider, normalized across providers."""

    locator: str = Field(description="Where the source lives: a URL or a file path.")
    title: str
    snippet: str = ""
    score: float = 0.0
    provider: str
    source_type: SourceType = SourceType.LOCAL
    published: str | None = Field(default=None, description="ISO date the source was published, when known.")
    author: str | None = None


class SourceRecord(Record):
    """A source the run knows about, keyed by `id` in state."""

    id: str = Field(description="Stable id derived from the normalized locator.")
    locator: str
    title: str
    provider: str
    source_type: SourceType = SourceType.LOCAL
    status: SourceStatus = SourceStatus.FOUND
    snippet: str = ""
    score: float = 0.0
    reason: Echoed | None = Field(default=None, description="Why reading failed, when it did.")
    accessed_at: str | None = Field(default=None, description="ISO date the text was read.")
    access_method: str | None = Field(
        default=None, description="How the text was obtained, e.g. 'local-file', 'cache'."
    )
    chars: int = 0
    published: str | None = None
    author: str | None = None
    credibility: Credibility | None = None
    sub_question_ids: list[str] = Field(default_factory=list)


class Passage(Record):
    """A chunk of a read source, as retrieval returns it."""

    source_id: str
    text: str
    score: float = 0.0
    chunk_id: str = ""
    title: str = Field(default="", description="The source's title: context for sentences that do not repeat it.")
    start: int = Field(default=-1, description="Where the text starts in its source's full text; -1 if unknown.")


class Evidence(Record):
    """A claim backed by a verbatim quote from a source that was read."""

    id: str
    claim: str
    quote: str = Field(description="Verbatim text from the source (whitespace may differ).")
    source_id: str
    sub_question_id: str
    score: float = 0.0
    answer: float | None = Field(
        default=None,
        description="How clearly the quote states what its sub-question asks for (0-1), when the reasoner judged it.",
    )
    section: str = Field(
        default="",
        description="The heading the quote stands under in its source ('High Concurrency'), if the reasoner knows it.",
    )


class Coverage(Record):
    sub_question_id: str
    evidence_count: int
    source_count: int
    score: float = Field(ge=0.0, le=1.0)
    covered: bool


class ProgressAssessment(Record):
    """The result of one evaluate_progress step."""

    iteration: int
    coverage: list[Coverage]
    confidence: float = Field(ge=0.0, le=100.0)
    gaps: list[str] = Field(default_factory=list, description="Sub-question ids still not covered.")
    new_queries: list[SearchQuery] = Field(default_factory=list)
    complete: bool = False
    hint: str = Field(default="", description="How the next round should search differently, when a model said.")


class Finding(Record):
    """One statement of the report, with the evidence that supports it."""

    text: str
    evidence_ids: list[str]
    verbatim: bool = Field(default=False, description="True when `text` is a quote from the cited source.")
    agreeing: list[Finding] = Field(
        default_factory=list,
        description="Consensus: findings from other sources that say the same, each quoting its own source and "
        "citing only it (a quote is never cited to a source that does not contain it).",
    )


class ReportSection(Record):
    heading: str
    findings: list[Finding]


class Conflict(Record):
    topic: str
    sides: list[Finding]


class ResearchReport(Record):
    """The report as a reasoner writes it, before citations are numbered."""

    title: str
    question: str
    answer: list[Finding] = Field(
        default_factory=list,
        description="The direct answer to a question that asks for one: quotations that state it, best first.",
    )
    answer_note: str = Field(
        default="", description="Shown in place of the answer when the sources read do not state it."
    )
    summary: list[Finding] = Field(default_factory=list)
    key_findings: list[Finding] = Field(default_factory=list)
    sections: list[ReportSection] = Field(default_factory=list)
    consensus: list[Finding] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)
    quick_answer: bool = Field(default=False, description="A short cited answer to a simple question.")

    def parts(self) -> list[tuple[str, list[Finding]]]:
        """Each part of the report with its findings, in report order, named by its heading ('Key findings',
        'Findings by sub-question: <heading>', 'Conflicting evidence: <topic>')."""
        return [
            ("Answer", self.answer),
            ("Summary", self.summary),
            ("Key findings", self.key_findings),
            *((f"Findings by sub-question: {section.heading}", section.findings) for section in self.sections),
            ("Consensus", self.consensus),
            *((f"Conflicting evidence: {conflict.topic}", conflict.sides) for conflict in self.conflicts),
        ]

    def findings(self) -> list[tuple[str, Finding]]:
        """Every finding of the report with the part it is in, in report order; a consensus finding is followed by
        the findings that agree with it."""
        return [(part, voice) for part, found in self.parts() for f in found for voice in (f, *f.agreeing)]

    def statements(self) -> list[Finding]:
        """The findings a reader takes as the report's statements, in report order: every part's but the direct
        answer's (quoted, not stated), without the findings that agree with a consensus finding."""
        return [finding for _, found in self.parts()[1:] for finding in found]


class TokenUsage(Record):
    """Model tokens and what they cost, for one call or summed over a role or a run."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class RoleUsage(TokenUsage):
    """One model role's tokens, cost and calls: in all, answered from the model-reply cache, and failed."""

    calls: int = 0
    cached: int = 0
    failed: int = 0

    def __add__(self, other: RoleUsage) -> RoleUsage:
        return RoleUsage(**{name: getattr(self, name) + getattr(other, name) for name in RoleUsage.model_fields})


class ModelUsage(Record):
    """Model usage by role, for one step of a run or summed over the run."""

    roles: dict[str, RoleUsage] = Field(default_factory=dict)

    def __add__(self, other: ModelUsage) -> ModelUsage:
        roles = dict(self.roles)
        for role, usage in other.roles.items():
            roles[role] = roles[role] + usage if role in roles else usage
        return ModelUsage(roles=roles)

    @property
    def tokens(self) -> int:
        return sum(usage.input_tokens + usage.output_tokens for usage in self.roles.values())

    @property
    def cost_usd(self) -> float:
        return sum(usage.cost_usd for usage in self.roles.values())

    @property
    def calls(self) -> int:
        return sum(usage.calls for usage in self.roles.values())

    @property
    def cached(self) -> int:
        return sum(usage.cached for usage in self.roles.values())

    @property
    def failed(self) -> int:
        return sum(usage.failed for usage in self.roles.values())


class ReportEvaluation(Record):
    """A judge model's scores for a finished report, each 0 to 1."""

    relevance: float = Field(ge=0.0, le=1.0)
    accuracy: float = Field(ge=0.0, le=1.0)
    completeness: float = Field(ge=0.0, le=1.0)
    source_quality: float = Field(ge=0.0, le=1.0)
    strengths: list[str] = Field(default_factory=list)
    weaknesses: list[str] = Field(default_factory=list)


class Notice(Record):
    """Something the analyst should know about the run: a skipped file, a stop reason."""

    level: str = Field(default="warning", description="'info' or 'warning'.")
    message: Echoed
    subject: str = Field(
        default="",
        description="What the notice is about (a query, say), never shown: the same message about different "
        "subjects is kept once for each, so the report can say how many times it was repeated.",
    )
