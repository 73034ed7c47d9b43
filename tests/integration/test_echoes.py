"""What the command line echoes: a 100 kB URL as one short line, and a warning that every query meets once
with its count, in the progress and in the report's caveats."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from support.cli import cli
from support.cli import isolated_settings as isolated_settings

from research_assistant.cli import EXIT_NO_EVIDENCE, EXIT_USAGE

pytestmark = pytest.mark.usefixtures("isolated_settings")

HUGE_PATH = "/search?q=" + "kite" * 25_000  # a 100 kB URL


def dead_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize("scheme", ["http", "ftp"])
def test_a_huge_url_is_echoed_in_one_short_line(capsys: pytest.CaptureFixture[str], scheme: str) -> None:
    code, out, err = cli(capsys, "fetch", f"{scheme}://127.0.0.1:{dead_port()}{HUGE_PATH}")
    assert code == EXIT_USAGE and out == ""
    [line] = err.splitlines()
    assert line.startswith("research-assistant: ") and "kitekite" in line and "…" in line
    assert len(line) < 400, len(line)


def test_a_dead_search_service_is_one_warning_with_its_count(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RESEARCH_WIKIPEDIA_BASE_URL", f"http://127.0.0.1:{dead_port()}")
    monkeypatch.setenv("RESEARCH_ALLOW_PRIVATE_NETWORKS", "127.0.0.0/8")
    question = "How much energy did the Marrow Estuary tidal kite array deliver?"
    code, _, err = cli(capsys, "run", question, "--sources", "wiki", "--depth", "quick", "--out", "report.md")
    assert code == EXIT_NO_EVIDENCE, err

    failures = [line for line in err.splitlines() if "search provider 'wikipedia' failed" in line]
    assert len(failures) == 2, err  # as it first happened, then once more at the end with its count
    queries = int(failures[1].rsplit("(repeated ", 1)[1].split()[0])
    assert queries > 1 and failures[1] == f"{failures[0]} (repeated {queries} times)"
    caveats = (tmp_path / "report.md").read_text().split("## Caveats")[1].split("\n## ")[0]
    said = [line for line in caveats.splitlines() if "search provider 'wikipedia' failed" in line]
    assert len(said) == 1 and said[0].endswith(f"(repeated {queries} times)"), caveats
