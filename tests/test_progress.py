"""gym_suite.progress: a bar on a terminal, log lines elsewhere; the commands that use it."""

from __future__ import annotations

import io
import os
import pty
import re

import pytest

from gym_suite.cli import main
from gym_suite.evaluate import evaluate
from gym_suite.progress import Progress, duration

LINE = re.compile(
    r"^(?P<desc>.+): (?P<n>[\d,]+)/(?P<total>[\d,]+) (?P<unit>\w+)s \((?P<pct>\d+)%\), [\d,.e+-]+ \w+s/s, "
    r"\d.* elapsed, (\d.* left|done)$"
)


def test_log_lines_off_a_terminal():
    log = io.StringIO()  # not a terminal
    with Progress(1000, "train example-v0", "step", file=log, interval=0) as progress:
        for _ in range(4):
            progress.update(250)
    lines = log.getvalue().splitlines()
    assert len(lines) == 5 and all(LINE.match(line) for line in lines), lines  # one per update, and the last
    assert lines[1].startswith("train example-v0: 500/1,000 steps (50%)") and lines[1].endswith("left")
    assert lines[-1].startswith("train example-v0: 1,000/1,000 steps (100%)") and lines[-1].endswith("done")
    assert "\r" not in log.getvalue()


def test_written_lines_stand_alone_off_a_terminal_and_nothing_when_disabled():
    log = io.StringIO()
    with Progress(100, "bench", "row", file=log, interval=3600) as progress:
        progress.update(10)
        progress.write("  ready  example-v0")
        progress.update(90)
    assert log.getvalue() == "  ready  example-v0\n"  # no count line: the work ended within the interval
    short = io.StringIO()
    with Progress(10, "quick", file=short, interval=3600) as progress:
        progress.update(10)
    assert short.getvalue() == ""
    quiet = io.StringIO()
    with Progress(100, file=quiet, interval=0, disable=True) as progress:
        progress.update(100)
        progress.write("hidden")
    assert quiet.getvalue() == "" and progress.n == 100


def test_written_lines_go_above_the_bar():
    terminal = io.StringIO()
    with Progress(100, "bench", "row", file=terminal, tty=True) as progress:
        progress.update(30)
        progress.write("round 1/3 done")
        progress.update(70)
    before, after = terminal.getvalue().split("round 1/3 done\n", 1)
    assert "bench:" in before and "30/100" in after  # the bar is cleared, the line written, the bar redrawn


def test_a_bar_on_a_terminal():
    import fcntl
    import select
    import struct
    import termios

    leader, follower = pty.openpty()
    try:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 columns
        with os.fdopen(follower, "w", closefd=False) as terminal:
            with Progress(100, "evaluate", "episode", file=terminal, interval=0) as progress:
                progress.update(40)
            terminal.flush()
        drawn = ""
        while select.select([leader], [], [], 1.0)[0]:  # what the terminal received, never blocking
            drawn += os.read(leader, 65536).decode()
    finally:
        os.close(leader)
        os.close(follower)
    assert "\r" in drawn and "evaluate" in drawn and "/100" in drawn, drawn  # tqdm's bar, redrawn in place
    assert "elapsed," not in drawn  # not the log line


def test_bad_arguments_and_duration():
    with pytest.raises(ValueError, match="total"):
        Progress(-1)
    with pytest.raises(ValueError, match="interval"):
        Progress(1, interval=float("nan"))
    assert [duration(s) for s in (42.4, 185, 2 * 3600 + 7 * 60)] == ["42 s", "3 min 05 s", "2 h 07 min"]


def test_evaluate_logs_progress_only_when_asked_and_the_command_asks(capsys, monkeypatch):
    evaluate("example-v0", "random", episodes=60)  # standard error is not a terminal here
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("GYM_SUITE_PROGRESS_INTERVAL", "0")  # off a terminal: a log line at every update
    evaluate("example-v0", "random", episodes=60, progress=True)
    err = capsys.readouterr().err
    assert "example-v0 random: 60/60 episodes (100%)" in err and err.rstrip().endswith("done")
    assert main(["evaluate", "example-v0", "--episodes", "120"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("example-v0 random: ")]
    assert lines and all(LINE.match(line) for line in lines), lines
    assert lines[-1].startswith("example-v0 random: 120/120 episodes (100%)") and lines[-1].endswith("done")


def test_sb3_callback_counts_the_training_steps():
    pytest.importorskip("stable_baselines3")
    from gym_suite.quiet import import_gym_quietly, make

    import_gym_quietly()
    from stable_baselines3 import PPO

    from gym_suite.progress import sb3_callback

    log = io.StringIO()
    model = PPO("MlpPolicy", make("example-v0"), n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    callback = sb3_callback("train example-v0", file=log, interval=0)
    model.learn(total_timesteps=128, callback=callback)
    lines = log.getvalue().splitlines()
    assert lines[0].startswith("train example-v0: 1/128 steps")
    assert lines[-1].startswith("train example-v0: 128/128 steps (100%)") and lines[-1].endswith("done")
