"""Progress on stderr for one long verification: silent when it is quick.

`Progress` prints nothing for the first `PROGRESS_AFTER` seconds; past them it
prints where the run is (claims extracted, verifying) and the time spent, a line
each `PROGRESS_EVERY` seconds, then the time the whole run took. stdout (the report,
`--json`) is never touched.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import TextIO

PROGRESS_AFTER = 1.0
"""Seconds a verification runs before progress is shown."""
PROGRESS_EVERY = 5.0
"""Seconds between progress lines after the first."""


class Progress:
    """A context manager that reports a long step on stderr: `with Progress("verify") as p:`."""

    def __init__(self, command: str, stream: TextIO | None = None) -> None:
        self.command = command
        self.stream = stream or sys.stderr
        self.stage = "starting"
        self.started = time.monotonic()
        self.shown = False
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._tick, daemon=True, name="progress")

    def __enter__(self) -> Progress:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._done.set()
        self._thread.join()
        if self.shown and kind is None:
            self._print("done")

    def at(self, stage: str) -> None:
        """The run reached `stage`; shown at once when progress is already shown."""
        self.stage = stage
        if self.shown:
            self._print(stage)

    def _tick(self) -> None:
        wait = PROGRESS_AFTER
        while not self._done.wait(wait):
            self.shown = True
            self._print(self.stage)
            wait = PROGRESS_EVERY

    def _print(self, text: str) -> None:
        with self._lock:
            spent = time.monotonic() - self.started
            print(f"reliable-rag {self.command}: {text} ({spent:.1f} s)", file=self.stream)
            self.stream.flush()
