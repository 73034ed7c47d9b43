"""The client of a team's Chroma server (`knowledge.chroma_client`), against `chroma run` started here on loopback."""

from __future__ import annotations

import pytest
from support.server_process import Server
from support.team_servers import chroma_server
from support.tls import count_bundle_loads

from research_assistant.knowledge import chroma_client

__all__ = ["chroma_server"]  # the fixture

pytestmark = pytest.mark.slow


def test_a_plain_http_server_is_reached_without_loading_a_certificate_bundle(
    chroma_server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plain HTTP makes no certificate checks, so loading the bundle (about 20 ms a client, two clients) is waste."""
    loaded = count_bundle_loads(monkeypatch)
    monkeypatch.setattr(chroma_client, "_clients", {})
    client = chroma_client.server_client(chroma_server.url)
    assert client.heartbeat() > 0
    assert chroma_client.check_chroma(chroma_server.url).startswith("Chroma ")
    assert loaded == []
