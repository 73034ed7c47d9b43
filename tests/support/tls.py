"""Counting how often a test's code loads a certificate bundle (about 20 ms of CPU each)."""

from __future__ import annotations

import ssl
from typing import Any

import pytest


def count_bundle_loads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """A list that gets one entry (the `cafile` asked for) per `ssl.create_default_context` call from now on."""
    loaded: list[Any] = []
    default_context = ssl.create_default_context

    def counted(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        loaded.append(kwargs.get("cafile"))
        return default_context(*args, **kwargs)

    monkeypatch.setattr(ssl, "create_default_context", counted)
    return loaded
