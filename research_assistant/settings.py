"""Environment defaults for a run.

Environment variables (prefix ``RESEARCH_``) and a ``.env`` file fill in the
defaults only; the CLI and the page build each run's parameters themselves.
Every field is documented in ``.env.example``. API keys are also read under
their providers' usual names (``TAVILY_API_KEY``, ``EXA_API_KEY``) and are
kept as `SecretStr`, so they never appear in a repr, a log or a report.
"""

from __future__ import annotations

import ipaddress
import shutil
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

_CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RESEARCH_", env_file=".env", extra="ignore")

    corpus_dir: Path | None = Field(default=None, description="Folder of local documents to research.")
    db_dir: Path = Field(default=Path("research_db"), description="Where the research repository (Chroma) lives.")
    cache_dir: Path = Field(default=Path("cache"), description="Where the document and search caches live.")
    depth: Literal["quick", "standard", "deep"] = Field(default="standard", description="How thorough a run is.")
    citation_style: Literal["numeric", "apa", "mla"] = Field(default="numeric", description="Sources list style.")
    max_seconds: float = Field(default=600.0, description="Wall-clock limit of one run, in seconds.")
    embedding: str = Field(default="hashing", description="Embedding model: 'hashing' (offline) or 'chroma-onnx'.")
    chunk_size: int = Field(default=900, description="Characters per repository chunk.")
    chunk_overlap: int = Field(default=120, description="Characters shared by neighbouring chunks.")

    # Search providers: keys and endpoints.
    tavily_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("RESEARCH_TAVILY_API_KEY", "TAVILY_API_KEY")
    )
    tavily_base_url: str = "https://api.tavily.com"
    exa_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("RESEARCH_EXA_API_KEY", "EXA_API_KEY")
    )
    exa_base_url: str = "https://api.exa.ai"
    wikipedia_base_url: str = "https://en.wikipedia.org"
    arxiv_base_url: str = "https://export.arxiv.org"
    wayback_base_url: str = "https://archive.org"
    search_timeout: float = Field(default=20.0, gt=0, description="Seconds a search provider may take to answer.")
    search_concurrency: int = Field(default=4, ge=1, description="Searches in flight at once per provider.")

    # Fetching pages.
    user_agent: str = "ResearchAssistant/0.1 (research bot; +https://github.com/research-assistant)"
    fetch_connect_timeout: float = Field(default=10.0, gt=0)
    fetch_read_timeout: float = Field(default=20.0, gt=0)
    fetch_total_timeout: float = Field(default=45.0, gt=0)
    fetch_max_bytes: int = Field(default=5_000_000, gt=0, description="Most bytes read from the network per page.")
    fetch_max_decompressed_bytes: int = Field(default=20_000_000, gt=0)
    fetch_max_redirects: int = Field(default=5, ge=0)
    fetch_concurrency: int = Field(default=8, ge=1)
    fetch_per_host: int = Field(default=2, ge=1)
    fetch_attempts: int = Field(default=3, ge=1, description="Tries per request on timeouts, 429 and 5xx.")
    fetch_backoff_seconds: float = Field(default=0.5, ge=0)
    fetch_retry_after_max: float = Field(default=30.0, ge=0, description="Longest Retry-After honoured, seconds.")
    respect_robots: bool = True
    allow_private_networks: str = Field(
        default="",
        description="Comma-separated CIDR ranges that may be fetched although private (intranets, tests).",
    )
    browser: bool = Field(default=True, description="Render JavaScript-heavy pages with headless Chromium.")
    chromium_path: Path | None = Field(default=None, description="Chromium executable; found on PATH when unset.")
    render_min_chars: int = Field(default=400, ge=0, description="Static text shorter than this is rendered.")
    cache_ttl_hours: float = Field(default=168.0, ge=0, description="How long fetched pages and searches stay fresh.")
    failure_ttl_hours: float = Field(default=6.0, ge=0, description="How long a page that failed is not retried.")

    # Language models (Gemini by default). With no key, the offline extractive reasoner is used.
    gemini_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("RESEARCH_GEMINI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"),
    )
    gemini_base_url: str = Field(
        default="https://generativelanguage.googleapis.com", description="The Gemini API endpoint."
    )
    reasoner: Literal["auto", "llm", "extractive"] = Field(
        default="auto", description="'auto': the LLM reasoner when a model key is set, else extractive."
    )
    model_analysis: str = Field(default="google_genai:gemini-2.5-flash", description="provider:model per role.")
    model_planning: str = "google_genai:gemini-2.5-flash"
    model_extraction: str = "google_genai:gemini-2.5-flash"
    model_evaluation: str = "google_genai:gemini-2.5-flash"
    model_synthesis: str = "google_genai:gemini-2.5-pro"
    model_judge: str = "google_genai:gemini-2.5-flash"
    llm_timeout: float = Field(default=90.0, gt=0, description="Seconds one model call may take.")
    llm_max_retries: int = Field(default=2, ge=0, description="Retries of a model call on 429 and 5xx.")
    llm_parse_retries: int = Field(default=1, ge=0, description="Re-asks when a reply does not fit its schema.")
    llm_prices: dict[str, tuple[float, float]] = Field(
        default_factory=lambda: {
            "gemini-2.5-flash": (0.30, 2.50),
            "gemini-2.5-pro": (1.25, 10.00),
            "gemini-2.5-flash-lite": (0.10, 0.40),
        },
        description="USD per million input and output tokens, per model name (JSON).",
    )
    budget_tokens: int | None = Field(default=None, ge=1, description="Most model tokens one run may use.")
    budget_usd: float | None = Field(default=None, gt=0, description="Most USD of model calls one run may spend.")
    confidence_threshold: float = Field(
        default=85.0, ge=0, le=100, description="Confidence (0-100) at which the LLM reasoner stops researching."
    )

    @field_validator("allow_private_networks")
    @classmethod
    def _valid_networks(cls, value: str) -> str:
        for part in _split(value):
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError(f"{part!r} is not an IP range such as 10.0.0.0/8") from None
        return value

    @property
    def private_networks(self) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        return tuple(ipaddress.ip_network(part, strict=False) for part in _split(self.allow_private_networks))

    def secret_values(self) -> list[str]:
        """Every key that is set, so that output can be scrubbed of them."""
        values = (getattr(self, name) for name in type(self).model_fields)
        return [
            value.get_secret_value() for value in values if isinstance(value, SecretStr) and value.get_secret_value()
        ]

    @property
    def uses_llm(self) -> bool:
        """Whether runs reason with language models: asked for, or 'auto' with a model key set."""
        return self.reasoner == "llm" or (self.reasoner == "auto" and self.gemini_api_key is not None)

    def chromium_executable(self) -> Path | None:
        """The configured Chromium, or the first one on PATH; None when there is none."""
        if self.chromium_path is not None:
            return self.chromium_path if self.chromium_path.is_file() else None
        for name in _CHROMIUM_NAMES:
            found = shutil.which(name)
            if found:
                return Path(found)
        return None


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


class SettingsError(Exception):
    """A setting in the environment or `.env` has a value that cannot work; the message names it."""


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as error:
        problems = "; ".join(
            f"RESEARCH_{'_'.join(str(part) for part in issue['loc']).upper()}: {issue['msg']}"
            for issue in error.errors()
        )
        raise SettingsError(f"invalid setting in the environment or .env: {problems}") from None
