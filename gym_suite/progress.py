"""Progress of long commands: a tqdm bar on a terminal, a log line every few seconds elsewhere.

For the command line, the scripts, the benchmarks and Stable-Baselines3 (:func:`sb3_callback`)::

    with Progress(total=10_000, desc="train heartpole-v1", unit="step") as progress:
        progress.update(64)
        progress.write("a message")  # above the bar on a terminal, a plain line elsewhere

Off a terminal a line is written every ``interval`` seconds (``GYM_SUITE_PROGRESS_INTERVAL``,
default 5) with the count, the rate and the time left, and a last one when the work is done;
work that ends before the first interval writes nothing.
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from stable_baselines3.common.callbacks import BaseCallback

DEFAULT_INTERVAL = 5.0
INTERVAL_VARIABLE = "GYM_SUITE_PROGRESS_INTERVAL"


def _default_interval() -> float:
    text = os.environ.get(INTERVAL_VARIABLE)
    if text is None:
        return DEFAULT_INTERVAL
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{INTERVAL_VARIABLE}={text!r}: expected a number of seconds >= 0")
    return value


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``2 h 07 min``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


class Progress:
    """Counts work done out of ``total`` (``None``: unknown) and shows it on ``file``: ``tty``
    forces the bar (True) or the log lines (False; default ``file.isatty()``); ``interval``
    seconds between log lines (0: every update); ``disable`` shows nothing; ``leave`` keeps the bar."""

    def __init__(
        self,
        total: int | None,
        desc: str = "",
        unit: str = "step",
        *,
        file: IO[str] | None = None,
        tty: bool | None = None,
        interval: float | None = None,
        disable: bool = False,
        leave: bool = False,
    ) -> None:
        if total is not None and (not isinstance(total, int) or isinstance(total, bool) or total < 0):
            raise ValueError(f"total must be None or a non-negative integer, got {total!r}")
        if interval is not None and not (
            isinstance(interval, (int, float)) and math.isfinite(interval) and interval >= 0
        ):
            raise ValueError(f"interval must be a number of seconds >= 0, got {interval!r}")
        self.total, self.desc, self.unit, self.n, self._lines, self._closed = total, desc, unit, 0, 0, False
        self.file = file if file is not None else sys.stderr
        self.disable = disable or self.file is None
        self.interval = _default_interval() if interval is None else float(interval)
        self._start = self._last = time.monotonic()
        self._bar: Any = None  # a tqdm bar (tqdm has no type hints)
        if self.disable:
            return
        if tty is None:
            isatty = getattr(self.file, "isatty", None)
            tty = bool(isatty and isatty())
        if tty:
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit=unit, file=self.file, leave=leave, dynamic_ncols=True)

    def update(self, n: int = 1) -> None:
        self.n += n
        if self.disable or self._closed:
            return
        if self._bar is not None:
            self._bar.update(n)
            return
        now = time.monotonic()
        if now - self._last >= self.interval:
            self._last = now
            self._write(self.line(now))

    def write(self, text: str) -> None:
        """Print ``text`` as a line of its own: above the bar on a terminal; nothing when disabled."""
        if self.disable:
            return
        if self._bar is not None and not self._closed:
            self._bar.write(text, file=self.file)
            return
        self._print(text)

    def close(self) -> None:
        """The work is over: the bar goes, or a last line is logged (if any was)."""
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.close()
        elif not self.disable and self._lines:
            self._write(self.line(time.monotonic(), done=True))

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def line(self, now: float | None = None, done: bool = False) -> str:
        """``desc: 12,288/100,000 steps (12%), 2,345 steps/s, 5 s elapsed, 37 s left``."""
        elapsed = (time.monotonic() if now is None else now) - self._start
        rate = self.n / elapsed if elapsed > 0 else 0.0
        count = f"{self.n:,}" if self.total is None else f"{self.n:,}/{self.total:,}"
        parts = [f"{count} {self.unit}s"]
        if self.total:
            parts[0] += f" ({100 * self.n / self.total:.0f}%)"
        parts.append(f"{rate:,.0f} {self.unit}s/s" if rate >= 10 else f"{rate:.2g} {self.unit}s/s")
        parts.append(f"{duration(elapsed)} elapsed")
        if done:
            parts.append("done")
        elif self.total is not None and rate > 0:
            parts.append(f"{duration(max(0, self.total - self.n) / rate)} left")
        prefix = f"{self.desc}: " if self.desc else ""
        return prefix + ", ".join(parts)

    def _write(self, text: str) -> None:
        self._lines += 1
        self._print(text)

    def _print(self, text: str) -> None:
        try:
            print(text, file=self.file, flush=True)
        except (OSError, ValueError):  # the log went away: stop logging, keep working
            self.disable = True


def sb3_callback(
    desc: str = "train", *, file: IO[str] | None = None, tty: bool | None = None, interval: float | None = None
) -> BaseCallback:
    """A Stable-Baselines3 callback showing the training's env steps with :class:`Progress`
    (``model.learn(..., callback=...)``, where ``progress_bar=True`` draws on a terminal only)."""
    from stable_baselines3.common.callbacks import BaseCallback

    class ProgressCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.progress: Progress | None = None

        def _on_training_start(self) -> None:
            total = int(self.locals["total_timesteps"]) - int(self.model.num_timesteps)
            self.progress = Progress(max(0, total), desc, "step", file=file, tty=tty, interval=interval)

        def _on_step(self) -> bool:
            self.progress.update(self.training_env.num_envs)  # type: ignore[union-attr]  # set when training starts
            return True

        def _on_training_end(self) -> None:
            if self.progress is not None:
                self.progress.close()

    return ProgressCallback()
