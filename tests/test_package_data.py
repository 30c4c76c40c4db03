"""What the package ships besides its modules, without building it: py.typed, its data, the render extra."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def pyproject() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def test_py_typed_and_the_score_table_are_package_data():
    """Downstream type checkers read the hints only with ``py.typed``; ``gym_suite.score`` reads its table."""
    patterns = pyproject()["tool"]["setuptools"]["package-data"]["gym_suite"]
    assert "py.typed" in patterns and any(Path("data/baselines.csv").match(p) for p in patterns), patterns
    assert (ROOT / "gym_suite" / "py.typed").is_file() and (ROOT / "gym_suite" / "data" / "baselines.csv").is_file()


def test_the_render_extra_brings_what_record_video_needs():
    """Gymnasium's RecordVideo writes with moviepy (Gymnasium's ``other`` extra): the render extra installs it."""
    gymnasium_needs = [
        Requirement(r)
        for r in importlib.metadata.requires("gymnasium") or []
        if re.search(r"""extra\s*==\s*["']other["']""", r)
    ]
    moviepy = [r for r in gymnasium_needs if r.name == "moviepy"]
    assert moviepy, "gymnasium's 'other' extra no longer names moviepy: see what RecordVideo imports"
    render = {Requirement(r).name: Requirement(r) for r in pyproject()["project"]["optional-dependencies"]["render"]}
    assert "moviepy" in render, "the render extra lacks moviepy, which gymnasium.wrappers.RecordVideo needs"
