"""A server the tests start as a child process (`streamlit run`, `langgraph dev`): a port, readiness, shutdown."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest


@dataclass
class Server:
    url: str
    log: Path

    def log_tail(self, chars: int = 6000) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-chars:]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_ready(
    process: subprocess.Popen[bytes], server: Server, health_path: str, name: str, seconds: float
) -> None:
    """Poll `health_path` until it answers 200; fail with the server's log if it exits or takes too long."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"{name} exited with code {process.returncode}:\n{server.log_tail()}")
        try:
            if httpx.get(f"{server.url}{health_path}", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    pytest.fail(f"{name} was not ready within {seconds:.0f}s:\n{server.log_tail()}")


def stop(process: subprocess.Popen[bytes], seconds: float) -> None:
    """End the server and everything it started (its process group): politely first, then for sure."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=seconds)
    except ProcessLookupError:
        pass
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=seconds)
