"""``python -m gym_suite.references.NAME``: every option is checked when the command line is read
(a usage error naming the option, exit status 2), before any work."""

from __future__ import annotations

import argparse
import importlib
import re

import pytest

pytest.importorskip("scipy")

#: Every option of every reference script with values it refuses.
BAD = {
    "example_v1_optimum": {"--episodes": ["0", "-1", "x", "1e3", str(10**9)], "--seed": ["-1", "x"]},
    "heartpole_optimum": {
        "--ids": ["bogus-v0", "", ",", "heartpole-v1,heartpole-v2"],
        "--episodes": ["0"],
        "--seed": ["-1"],
        "--grid": ["0", "nan", "-0.1", "2", "inf", "x", "1e-300", "0.04"],
        "--finer": ["-0.1", "nan", "2", "x", "1e-300"],
    },
    "heartpole_v1_reference": {"--episodes": ["0", "x"], "--search-episodes": ["-1", "0", "1.5"]},
    "push_supervised": {"--episodes": ["0"], "--seed": ["-1", str(2**32)], "--kinds": ["forest", ",", ""]},
    "push_v1_optimum": {"--budgets": ["-1", "0", "51", "x", "", "1,,x"], "--episodes": ["0", "-5"]},
    "push_v1_rule": {
        "--bars": ["4.3", "nan", "", "x"],
        "--drops": ["-1", "1.5", "inf"],
        "--episodes": ["-1", "x"],
    },
    "target_optimum": {
        "--episodes": ["0"],
        "--seed": ["-1"],
        "--speeds": ["x", "-1", "nan", "1e9", ""],
        "--limit": ["0", "-3", "x"],
    },
}


class Parsed(Exception):
    """Raised in place of the script's work once its command line is read."""


@pytest.fixture
def parse_only(monkeypatch):
    """Scripts stop once their arguments are read: ``Parsed(namespace)``."""
    parse_args = argparse.ArgumentParser.parse_args

    def read(self, args=None, namespace=None):
        raise Parsed(parse_args(self, args, namespace))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", read)


def script(name):
    return importlib.import_module(f"gym_suite.references.{name}")


@pytest.mark.parametrize("name", sorted(BAD))
def test_every_option_of_the_help_has_bad_values_here(name, capsys):
    with pytest.raises(SystemExit) as stop:
        script(name).main(["--help"])
    assert stop.value.code == 0
    shown = set(re.findall(r"(--[a-z][a-z-]*)", capsys.readouterr().out)) - {"--help", "--sweep", "--search"}
    assert shown == set(BAD[name])


@pytest.mark.parametrize(
    ("name", "flag", "value"),
    [(name, flag, value) for name, flags in BAD.items() for flag, values in flags.items() for value in values],
)
def test_a_bad_value_is_a_usage_error_naming_the_option(name, flag, value, parse_only, capsys):
    with pytest.raises(SystemExit) as stop:
        script(name).main([f"{flag}={value}"])
    assert stop.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[0].startswith("usage: ") and "error" not in "".join(lines[:-1]), lines  # the usage, then
    assert re.match(rf"\S+: error: argument {flag}: ", lines[-1]) and len(lines[-1]) < 400, lines  # one line


@pytest.mark.parametrize(
    ("name", "argv", "read"),
    [
        ("heartpole_optimum", ["--ids", "heartpole-v0", "--grid", "0.5", "--finer", "0"], {"ids": ["heartpole-v0"]}),
        ("heartpole_optimum", [], {"ids": ["heartpole-v1", "heartpole-v0"], "grid": None, "finer": 0.0}),
        ("push_supervised", ["--kinds", "boosting", "--seed", str(2**32 - 1)], {"kinds": ["boosting"]}),
        ("push_v1_optimum", [], {"budgets": [1, 2, 3, 5], "episodes": 1000}),
        ("push_v1_rule", ["--bars", "4,4.5", "--drops", "0", "--episodes", "0"], {"bars": [4.0, 4.5], "episodes": 0}),
        ("target_optimum", ["--speeds", "0,2", "--limit", "5"], {"speeds": [0.0, 2.0], "limit": 5}),
        ("target_optimum", [], {"speeds": [0.9, 1.0, 1.1, 1.2, 1.3, 1.5], "seed": 100_000}),
        *((name, [], {}) for name in sorted(BAD)),  # the defaults are values the options take
    ],
)
def test_good_values_are_read(name, argv, read, parse_only):
    with pytest.raises(Parsed) as parsed:
        script(name).main(argv)
    namespace = vars(parsed.value.args[0])
    assert {key: namespace[key] for key in read} == read
