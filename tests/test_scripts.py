"""Every script of the repository (gym-suite/) still imports and answers --help.

The scripts import the package's names at their top; a renamed name breaks a script that no
other test runs. Ray is only in its own virtual environment, so the RLlib example is checked
where ray is installed.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # every script starts a fresh interpreter (torch, JAX): about a minute in all

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for p in (ROOT / "gym-suite").rglob("*.py") if not p.name.startswith("_"))


def test_the_scripts_are_found():
    assert {p.parent.name for p in SCRIPTS} >= {"analyses", "benchmarks", "examples", "tools"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_script_answers_help(script):
    if script.name == "train_rllib.py" and importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed (the RLlib tests have their own virtual environment)")
    done = subprocess.run(
        [sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout.lower(), done.stdout[-500:]
