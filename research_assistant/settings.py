"""Environment defaults for a run.

Environment variables (prefix ``RESEARCH_``) and a ``.env`` file fill in the
defaults only; the CLI and the page build each run's parameters themselves.
Every field is documented in ``.env.example``. API keys are also read under
their providers' usual names (``TAVILY_API_KEY``, ``EXA_API_KEY``) and are
kept as `SecretStr`, so they never appear in a repr, a log or a report.
"""

from __future__ import annotations

import io
import ipaddress
import json
import os
import re
import shutil
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import unquote, urlsplit

from pydantic import (
    AfterValidator,
    AliasChoices,
    Field,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from pydantic_settings import SettingsError as SourceError

from research_assistant.secrets import remember
from research_assistant.text.spaces import clip, collapse

MIN_CHUNK_SIZE = 100
"""Shorter chunks would cut most sentences in pieces, and no quotation could be checked against them."""
MAX_CHUNK_SIZE = 100_000
_CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
MODEL_EXAMPLE = "google_genai:gemini-2.5-flash"
_PROVIDER = re.compile(r"[a-z][a-z0-9_]*")
_MODEL = re.compile(r"[A-Za-z0-9][\w.\-:/@+]*")


def model_choice(text: str) -> str:
    """The `provider:model` a model written as `text` means (a bare model name is Gemini's, `google_genai`);
    ValueError when it is not of that shape. The one rule for the settings' models and a run's own."""
    text = text.strip()
    provider, colon, model = text.partition(":")
    if not colon:
        provider, model = "google_genai", text
    if not _PROVIDER.fullmatch(provider) or not _MODEL.fullmatch(model):
        shown = clip(collapse(text), 60)
        raise ValueError(f"{shown!r} is not provider:model, such as {MODEL_EXAMPLE}")
    return f"{provider}:{model}"


ModelSpec = Annotated[str, AfterValidator(model_choice)]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RESEARCH_", env_file=".env", extra="ignore")

    corpus_dir: Path | None = Field(default=None, description="Folder of local documents to research.")
    db_dir: Path = Field(default=Path("research_db"), description="Where the research repository (Chroma) lives.")
    cache_dir: Path = Field(default=Path("cache"), description="Where the document and search caches live.")
    depth: Literal["quick", "standard", "deep"] = Field(default="standard", description="How thorough a run is.")
    citation_style: Literal["numeric", "apa", "mla"] = Field(default="numeric", description="Sources list style.")
    max_seconds: float = Field(default=600.0, gt=0, description="Wall-clock limit of one run, in seconds.")
    embedding: Literal["hashing", "chroma-onnx", "gemini"] = Field(
        default="hashing", description="Embedding model: 'hashing' (offline), 'chroma-onnx' or 'gemini'."
    )
    chunk_size: int = Field(
        default=900, ge=MIN_CHUNK_SIZE, le=MAX_CHUNK_SIZE, description="Characters per repository chunk."
    )
    chunk_overlap: int = Field(default=120, ge=0, description="Characters shared by neighbouring chunks.")
    max_file_mb: float = Field(
        default=100.0, gt=0, description="Largest local or uploaded file indexed, in MB; larger ones are skipped."
    )

    # Servers for a team (empty: the embedded files under db_dir and cache_dir, as for one analyst).
    database_url: str = Field(
        default="",
        description="PostgreSQL URL (postgresql://user:password@host:5432/db) for checkpoints, runs and caches.",
    )
    chroma_url: str = Field(default="", description="A Chroma server (http://host:8000) for the repository.")

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
    model_analysis: ModelSpec = Field(default="google_genai:gemini-2.5-flash", description="provider:model per role.")
    model_planning: ModelSpec = "google_genai:gemini-2.5-flash"
    model_extraction: ModelSpec = "google_genai:gemini-2.5-flash"
    model_evaluation: ModelSpec = "google_genai:gemini-2.5-flash"
    model_synthesis: ModelSpec = "google_genai:gemini-2.5-pro"
    model_judge: ModelSpec = "google_genai:gemini-2.5-flash"
    llm_timeout: float = Field(default=90.0, gt=0, description="Seconds one model call (chat or embedding) may take.")
    llm_max_retries: int = Field(
        default=2, ge=0, description="Retries of a model call (chat or embedding) on 429 and 5xx."
    )
    llm_parse_retries: int = Field(default=1, ge=0, description="Re-asks when a reply does not fit its schema.")
    llm_prices: Annotated[dict[str, tuple[float, float]], NoDecode] = Field(
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

    @field_validator("llm_prices", mode="before")
    @classmethod
    def _prices_from_json(cls, value: object) -> object:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                raise ValueError(
                    'not JSON; expected {"model-name": [input USD, output USD] per million tokens, ...}'
                ) from None
        if isinstance(value, dict):
            for name, price in value.items():
                if not isinstance(price, list | tuple) or len(price) != 2:
                    raise ValueError(f"the price of {name!r} must be [input USD, output USD] per million tokens")
                if any(not isinstance(part, int | float) or part < 0 for part in price):
                    raise ValueError(f"the prices of {name!r} must be numbers of at least 0")
        return value

    @field_validator(
        "tavily_base_url", "exa_base_url", "wikipedia_base_url", "arxiv_base_url", "wayback_base_url", "gemini_base_url"
    )
    @classmethod
    def _web_url(cls, value: str, info: ValidationInfo) -> str:
        if info.field_name == "wayback_base_url" and not value.strip():
            return ""  # no archive: a page that cannot be read is not looked up in the Wayback Machine
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{value!r} is not an http(s) URL")
        return value.strip()

    @field_validator("user_agent")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: str) -> str:
        value = value.strip()
        if value:
            remember(url_password(value))  # before any message could quote it
            problem = postgres_url_problem(value)
            if problem:
                raise ValueError(f"{redact_url(value)!r} {problem}")
        return value

    @field_validator("chroma_url")
    @classmethod
    def _chroma_server_url(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if value:
            parts = urlsplit(value)
            remember(url_password(value))
            try:
                port = parts.port
            except ValueError:
                port = -1
            if parts.scheme not in ("http", "https") or not parts.hostname or port == -1 or parts.path:
                raise ValueError(f"{redact_url(value)!r} is not a Chroma server address such as http://localhost:8000")
        return value

    @field_validator("db_dir", "cache_dir")
    @classmethod
    def _usable_folder(cls, value: Path) -> Path:
        folder = value.expanduser()
        if folder.exists():
            if not folder.is_dir():
                raise ValueError(f"{folder} exists and is not a folder")
            return value
        ancestor = folder.absolute().parent
        while not ancestor.exists() and ancestor != ancestor.parent:
            ancestor = ancestor.parent
        if not ancestor.is_dir() or not os.access(ancestor, os.W_OK | os.X_OK):
            raise ValueError(f"{folder} cannot be created: {ancestor} is not a writable folder")
        return value

    @model_validator(mode="after")
    def _overlap_below_size(self) -> Settings:
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(
                f"RESEARCH_CHUNK_OVERLAP ({self.chunk_overlap}) must be less than RESEARCH_CHUNK_SIZE "
                f"({self.chunk_size})"
            )
        return self

    @model_validator(mode="after")
    def _remember_secrets(self) -> Settings:
        """Every key set here is scrubbed from whatever the process writes or shows from now on."""
        remember(*self.secret_values())
        return self

    @property
    def private_networks(self) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
        return tuple(ipaddress.ip_network(part, strict=False) for part in _split(self.allow_private_networks))

    def secret_values(self) -> list[str]:
        """Every key that is set, so that output can be scrubbed of them."""
        values = (getattr(self, name) for name in type(self).model_fields)
        passwords = [url_password(url) for url in (self.database_url, self.chroma_url)]
        return [password for password in passwords if password] + [
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


def url_password(url: str) -> str | None:
    """The password in `url`, decoded, or None."""
    password = urlsplit(url).password
    return unquote(password) if password else None


def redact_url(url: str) -> str:
    """`url` with its password (if any) replaced by `***`, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=f"{parts.username or ''}:***@{host}").geturl()


def postgres_url_problem(url: str) -> str | None:
    """Why `url` is not a PostgreSQL URL, or None."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        return "is not a PostgreSQL URL such as postgresql://user:password@localhost:5432/research"
    try:
        parts.port  # noqa: B018 - a port that is not a number raises
    except ValueError:
        return "has a port that is not a number"
    if not parts.hostname and "host=" not in parts.query:
        return "names no host; write postgresql://user:password@host:5432/database"
    return None


def _split(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


class SettingsError(Exception):
    """A setting in the environment or `.env` has a value that cannot work; the message names it."""


def check_env_file(path: Path) -> None:
    """Raise `SettingsError`, naming the file and its lines, when a `.env` file cannot be read as settings.

    python-dotenv would otherwise print a warning per bad line, each time the file is read, without naming it.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    except OSError as error:
        raise SettingsError(f"cannot read {path.absolute()}: {error.strerror or error}") from None
    try:
        text = data.decode("utf-8")
        binary_at = data.find(b"\x00")
    except UnicodeDecodeError as error:
        text, binary_at = "", error.start
    if binary_at >= 0:
        line = data[:binary_at].count(b"\n") + 1
        raise SettingsError(f"{path.absolute()} line {line}: not text (a binary file?); write NAME=value lines")
    from dotenv.parser import parse_stream

    bad = [binding.original.line for binding in parse_stream(io.StringIO(text)) if binding.error]
    if bad:
        lines = ", ".join(str(number) for number in bad[:10]) + (" ..." if len(bad) > 10 else "")
        plural = "s" if len(bad) > 1 else ""
        raise SettingsError(f"{path.absolute()} line{plural} {lines}: cannot be read; write NAME=value lines")


def _setting_name(loc: tuple[int | str, ...]) -> str:
    name = "_".join(str(part) for part in loc)
    if not name:
        return ""
    name = name.upper()
    return name if name.startswith("RESEARCH_") or name.endswith("_API_KEY") else f"RESEARCH_{name}"


def _explain(error: ValidationError) -> str:
    problems = []
    for issue in error.errors():
        message = str(issue["msg"]).removeprefix("Value error, ")
        name = _setting_name(tuple(issue["loc"]))
        problems.append(f"{name}: {message}" if name else message)
    return "; ".join(problems)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    env_file = Path(str(Settings.model_config.get("env_file") or ".env"))
    check_env_file(env_file)
    try:
        return Settings()
    except ValidationError as error:
        raise SettingsError(f"invalid setting in the environment or .env: {_explain(error)}") from None
    except SourceError as error:  # a value that cannot even be decoded; pydantic-settings names the field
        raise SettingsError(f"invalid setting in the environment or .env: {error}") from None
