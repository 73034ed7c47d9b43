"""Environment defaults for a run.

Environment variables (prefix ``RESEARCH_``) and a ``.env`` file fill in the
defaults only; the CLI and the page build each run's parameters themselves.
Every field is documented in ``.env.example``.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="RESEARCH_", env_file=".env", extra="ignore")

    corpus_dir: Path | None = Field(default=None, description="Folder of local documents to research.")
    db_dir: Path = Field(default=Path("research_db"), description="Where the research repository (Chroma) lives.")
    cache_dir: Path = Field(default=Path("cache"), description="Where the document cache lives.")
    depth: Literal["quick", "standard", "deep"] = Field(default="standard", description="How thorough a run is.")
    citation_style: Literal["numeric", "apa", "mla"] = Field(default="numeric", description="Sources list style.")
    max_seconds: float = Field(default=600.0, description="Wall-clock limit of one run, in seconds.")
    embedding: str = Field(default="hashing", description="Embedding model: 'hashing' (offline) or 'chroma-onnx'.")
    chunk_size: int = Field(default=900, description="Characters per repository chunk.")
    chunk_overlap: int = Field(default=120, description="Characters shared by neighbouring chunks.")


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
