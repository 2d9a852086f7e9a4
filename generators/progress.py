"""Progress on stderr that suits where stderr goes.

On a terminal one line is rewritten in place; anywhere else (a log file, a pipe, cron's mail)
whole lines are written, at most one every ``interval`` seconds plus the last, so a long batch job
leaves a readable, short record instead of thousands of carriage-return updates.
"""

import sys
import time


class Progress:
    """``label: done/total unit (elapsed)``; ``note`` prints a line without garbling the bar."""

    def __init__(self, label: str, total: int, unit: str = "parts", *, enabled: bool = True,
                 stream=None, interval: float = 10.0, extra: str = ""):
        self.label, self.total, self.unit, self.enabled = label, total, unit, enabled
        self.stream = stream or sys.stderr
        self.tty = enabled and self.stream.isatty()
        self.interval, self.done, self.extra = interval, 0, extra
        self.start = self.shown = time.perf_counter()
        self._show(force=True)

    def _line(self) -> str:
        return (f"{self.label}: {self.done}/{self.total} {self.unit}{self.extra} "
                f"({time.perf_counter() - self.start:.1f} s)")

    def _show(self, force: bool = False) -> None:
        if not self.enabled:
            return
        now = time.perf_counter()
        if self.tty:
            end = "\n" if self.done == self.total else ""
            self.stream.write(f"\r\x1b[K{self._line()}{end}")
        elif force or self.done == self.total or now - self.shown >= self.interval:
            self.stream.write(self._line() + "\n")
        else:
            return
        self.shown = now
        self.stream.flush()

    def step(self, count: int = 1, extra: str = "") -> None:
        """``count`` more done; ``extra`` (e.g. ', 2 failed') follows the count."""
        self.done += count
        self.extra = extra
        self._show()

    def note(self, text: str) -> None:
        """Print ``text`` as a line of its own (above the bar on a terminal)."""
        if self.tty:
            self.stream.write(f"\r\x1b[K{text}\n")
            self._show(force=True)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
