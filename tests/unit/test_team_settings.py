"""The team's server settings: validated in one line, embedded by default, passwords never shown."""

from __future__ import annotations

import pytest

from research_assistant.secrets import scrub
from research_assistant.settings import Settings, SettingsError, get_settings, redact_url


@pytest.fixture(autouse=True)
def fresh_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RESEARCH_DATABASE_URL", raising=False)
    monkeypatch.delenv("RESEARCH_CHROMA_URL", raising=False)
    get_settings.cache_clear()


def test_no_server_is_the_embedded_default() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert settings.database_url == "" and settings.chroma_url == ""


def test_good_urls_are_kept_and_the_password_is_scrubbed_from_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESEARCH_DATABASE_URL", "postgresql://team:s3cret-Pa55@db.example:5432/research")
    monkeypatch.setenv("RESEARCH_CHROMA_URL", "http://chroma.example:8000/")
    settings = get_settings()
    assert settings.database_url.endswith("@db.example:5432/research")
    assert settings.chroma_url == "http://chroma.example:8000"
    assert "s3cret-Pa55" not in scrub(f"could not connect with {settings.database_url}")
    assert redact_url(settings.database_url) == "postgresql://team:***@db.example:5432/research"


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("RESEARCH_DATABASE_URL", "mysql://u:pw-hidden-1@h/x", "is not a PostgreSQL URL"),
        ("RESEARCH_DATABASE_URL", "postgresql://u:pw-hidden-1@h:port/x", "port that is not a number"),
        ("RESEARCH_CHROMA_URL", "chroma.example:8000", "is not a Chroma server address"),
        ("RESEARCH_CHROMA_URL", "http://u:pw-hidden-1@chroma.example:8000/api", "is not a Chroma server address"),
    ],
)
def test_a_bad_url_is_named_in_one_line_without_its_password(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, said: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as raised:
        get_settings()
    message = str(raised.value)
    assert name in message and said in message
    assert "pw-hidden-1" not in message and "\n" not in message
