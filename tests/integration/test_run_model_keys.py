"""Whether a run that reasons with language models has the key its models need: the run's own models count."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from research_assistant.context import ROLES, Context
from research_assistant.services import ConfigurationError, open_services
from research_assistant.settings import get_settings

OPENAI = {role: "openai:gpt-4o-mini" for role in ROLES}


@pytest.fixture(autouse=True)
def llm_without_a_gemini_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "RESEARCH_GEMINI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RESEARCH_REASONER", "llm")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def context(tmp_path: Path, models: dict[str, str] | None) -> Context:
    return Context(
        source_types=["wiki"],
        db_dir=tmp_path / "db",
        cache_dir=tmp_path / "cache",
        models=models,  # type: ignore[arg-type]
    )


def test_a_run_whose_own_models_need_no_gemini_key_is_not_asked_for_one(tmp_path: Path) -> None:
    services = open_services(context(tmp_path, OPENAI))

    assert services.reasoner is not None


def test_a_run_that_uses_gemini_models_without_a_key_is_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigurationError, match="needs a model key: set GEMINI_API_KEY"):
        open_services(context(tmp_path, None))  # the settings' models are Gemini's

    for role in ROLES:
        monkeypatch.setenv(f"RESEARCH_MODEL_{role.upper()}", "openai:gpt-4o-mini")
    get_settings.cache_clear()
    with pytest.raises(ConfigurationError, match="needs a model key: set GEMINI_API_KEY"):
        open_services(context(tmp_path, {"synthesis": "gemini-2.5-pro"}))  # a bare name is Gemini's
