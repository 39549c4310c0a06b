"""Start real servers on loopback for integration tests, bounded in time, always stopped."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
START_TIMEOUT = 90.0  # seconds a server may take to answer its health route
STOP_TIMEOUT = 15.0  # seconds between SIGTERM and SIGKILL
REQUEST_TIMEOUT = httpx.Timeout(60.0, connect=5.0)
# A question the demo app returns its answer to, and one it filters its answer to.
RETURNED = "When and where was the Treaty of Versailles signed?"
FILTERED = "How does aspirin work and what is it used for?"
# A verifier input whose answer its one passage states word for word.
VERIFY = {
    "answer": "The Treaty of Versailles was signed on 28 June 1919.",
    "context": ["The Treaty of Versailles was signed on 28 June 1919 in the Hall of Mirrors."],
}

# Variables that would change what the servers serve or make them call out.
_DROPPED = (
    "RELIABLE_RAG_MODEL",
    "RELIABLE_RAG_INDEX",
    "RELIABLE_RAG_VERIFIER",
    "RELIABLE_RAG_API_KEY",
    "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
    "LANGSMITH_ENDPOINT",
    "LANGCHAIN_ENDPOINT",
    "OPENAI_API_KEY",
)


def free_port() -> int:
    """A TCP port on loopback that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a server: offline, untraced, the repo importable."""
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env.update(
        LANGSMITH_TRACING="false",
        LANGCHAIN_TRACING_V2="false",
        LANGCHAIN_TRACING="false",
        LANGGRAPH_CLI_NO_ANALYTICS="1",
        LANGSMITH_DISABLE_TELEMETRY="true",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
        PYTHONUNBUFFERED="1",
        PYTHONPATH=os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p),
    )
    env.update(extra)
    return env


def client(base_url: str, **kwargs) -> httpx.Client:
    """An httpx client for a loopback server: bounded timeouts, proxies ignored."""
    return httpx.Client(base_url=base_url, timeout=REQUEST_TIMEOUT, trust_env=False, **kwargs)


def _tail(log: Path, chars: int = 4000) -> str:
    try:
        return log.read_text("utf-8", errors="replace")[-chars:]
    except OSError:
        return "<no log>"


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGTERM)
        else:  # pragma: no cover
            proc.terminate()
        proc.wait(timeout=STOP_TIMEOUT)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        pass
    if proc.poll() is None:
        try:
            if os.name == "posix":
                os.killpg(proc.pid, signal.SIGKILL)
            else:  # pragma: no cover
                proc.kill()
        except ProcessLookupError:
            pass
        proc.wait(timeout=STOP_TIMEOUT)


@contextmanager
def running(
    cmd: Sequence[str],
    *,
    health_url: str,
    cwd: Path,
    env: Mapping[str, str],
    log: Path,
    timeout: float = START_TIMEOUT,
) -> Iterator[subprocess.Popen]:
    """Run `cmd` in its own process group until `health_url` answers 200; stop it after.

    Raises:
        RuntimeError: the server exited or did not answer within `timeout`
            (the message ends with its log).

    """
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            list(cmd),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=httpx.Timeout(5.0), trust_env=False) as http:
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(
                        f"server exited with {proc.returncode}: {' '.join(cmd)}\n{_tail(log)}"
                    )
                try:
                    if http.get(health_url).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(
                        f"server not up after {timeout:.0f}s: {' '.join(cmd)}\n{_tail(log)}"
                    )
                time.sleep(0.25)
        yield proc
    finally:
        _stop(proc)


def sse_events(response: httpx.Response) -> Iterator[tuple[str, object]]:
    """Parse a server-sent-events response into (event, data) pairs; data is JSON-decoded.

    An event with no data line (LangServe's `end`) comes with data `None`.
    """
    event: str | None = None
    data: list[str] = []
    for line in [*response.iter_lines(), ""]:
        if not line:
            if event is not None or data:
                yield event or "message", _decode("\n".join(data)) if data else None
            event, data = None, []
        elif line.startswith(":"):
            continue
        elif line.startswith("event:"):
            event = line[len("event:") :].strip()
        elif line.startswith("data:"):
            data.append(line[len("data:") :].lstrip())


def _decode(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


PYTHON = sys.executable


@contextmanager
def serving_app(work: Path, **env: str) -> Iterator[str]:
    """Serve `langchain_reliable.server:app` with uvicorn from `work`; yield its base URL."""
    port = free_port()
    cmd = [PYTHON, "-m", "uvicorn", "langchain_reliable.server:app"]
    cmd += ["--host", HOST, "--port", str(port), "--log-level", "warning"]
    base = f"http://{HOST}:{port}"
    with running(
        cmd, health_url=f"{base}/health", cwd=work, env=child_env(**env), log=work / "server.log"
    ):
        yield base


def served(tmp_path_factory: pytest.TempPathFactory, name: str, **env: str) -> Iterator[str]:
    """`serving_app` from a fresh folder `name`, for a fixture: skipped without LangServe."""
    pytest.importorskip("langserve")
    pytest.importorskip("uvicorn")
    with serving_app(tmp_path_factory.mktemp(name), **env) as base:
        yield base
