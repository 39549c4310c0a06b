"""A native crash of the local model fails the tests that need it, never the test run.

A llama-cpp-python wheel built for another CPU dies of an illegal instruction
(SIGILL). `_local_model` runs the model in a child process first; these tests make a
child die of a real SIGILL and check what a test run then reports.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.integration_tests._local_model import REBUILD, REPO, native_crash

pytestmark = pytest.mark.integration

ILLEGAL_INSTRUCTION = "import os, signal; os.kill(os.getpid(), signal.SIGILL)"
TEST = ["test_crashing_model.py"]


def test_a_child_killed_by_sigill_is_named_with_the_rebuild_command() -> None:
    message = native_crash.__wrapped__(ILLEGAL_INSTRUCTION)
    assert message is not None
    assert "SIGILL" in message and "illegal instruction" in message
    assert "built for another CPU" in message and REBUILD in message


def test_a_child_that_runs_is_no_crash() -> None:
    assert native_crash.__wrapped__("print('ok')") is None


def test_a_child_that_fails_otherwise_says_how() -> None:
    message = native_crash.__wrapped__("raise SystemExit('no GGUF here')")
    assert message is not None and "exited with 1" in message and "no GGUF here" in message


def test_pytest_reports_the_crash_as_failed_tests_and_goes_on(tmp_path) -> None:
    """A whole pytest run: the crash fails the tests that need the model, the others pass."""
    (tmp_path / TEST[0]).write_text(
        textwrap.dedent(
            f"""
            from tests.integration_tests import _local_model

            CRASH = {ILLEGAL_INSTRUCTION!r}
            PROBE = _local_model.native_crash.__wrapped__

            def test_needs_the_model(monkeypatch):
                monkeypatch.setattr(_local_model, "native_crash", lambda: PROBE(CRASH))
                _local_model.require_native_model()

            def test_runs_after_it():
                assert True
            """
        ),
        "utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio", *TEST],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out  # tests failed; not 132 (the run killed by SIGILL)
    assert done.returncode != 128 + signal.SIGILL
    assert "1 failed, 1 passed" in out
    assert "died of signal 4 (SIGILL" in out and REBUILD in out
