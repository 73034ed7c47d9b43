"""Shared by every test: no test sees the settings another test read."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from research_assistant.settings import get_settings


@pytest.fixture(autouse=True)
def fresh_settings() -> Iterator[None]:
    """`get_settings()` is cached for the process; a test that read them with its own environment (a canary
    Gemini key, say) would otherwise hand them to the next test, which would then call a model it never set up."""
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()
