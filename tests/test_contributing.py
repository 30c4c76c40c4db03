"""The contributor guide (docs/contributing.md) against the code: each step it lists holds where it
can be checked. Its lists (the hooks, the ops functions, the argument checkers) are the code's,
every file, test and option it names exists, every registered id has what the steps give it (a
README row, a GIF, recipes only for registered ids), and what it says a state quantity may be is
what ``check_definition`` accepts, on the tiny environment of ``tests/test_definitions.py``."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import warnings
from pathlib import Path

import pytest
from test_definitions import Coin, CoinParams, CoinState

import gym_suite
from gym_suite.envs import check_definition, checks, definition

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
PLACEHOLDERS = ("NAME", "name-v0", "Name")


def section(title: str) -> str:
    """The guide's text under the heading ``title``, to the next heading of any level."""
    match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ |\Z)", GUIDE, re.M | re.S)
    assert match, f"docs/contributing.md has no section {title!r}"
    return match.group(1)


def first_column_names(title: str) -> set[str]:
    """The names in the first column of the section's table: `name(args)`, `a(x)`, `b(x)` -> {name, a, b}."""
    names: set[str] = set()
    for line in section(title).splitlines():
        if not line.startswith("| `"):
            continue
        cell = line.split("|")[1]
        names.update(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)", cell))
    assert names, f"the section {title!r} has no table of names"
    return names


def public_methods(cls: type) -> set[str]:
    return {name for name, value in vars(cls).items() if not name.startswith("_") and callable(value)}


def test_the_hooks_are_the_definitions_methods():
    assert first_column_names("The hooks") == public_methods(definition.Definition)


def test_the_ops_functions_are_the_ops_namespace():
    expected = {name for name, _ in inspect.getmembers(definition.Ops, callable) if not name.startswith("_")}
    assert first_column_names("The ops functions") == expected


def test_the_argument_checkers_are_the_checks_module():
    expected = {  # the public functions and classes the module defines
        name
        for name, value in vars(checks).items()
        if not name.startswith("_")
        and (inspect.isfunction(value) or inspect.isclass(value))
        and value.__module__ == checks.__name__
    }
    assert first_column_names("The argument checkers") == expected


def test_every_file_the_guide_names_exists():
    named = set(re.findall(r"(?<![\w/.-])((?:gym_suite|gym-suite|docs|tests|\.ci)/[\w./-]+\.\w+)", GUIDE))
    named |= set(re.findall(r"\b([A-Z]+\.md)\b", GUIDE))  # README.md, CHANGELOG.md
    named = {path for path in named if not any(p in path for p in PLACEHOLDERS)}
    # the registry module, named by its step, is checked with the rows themselves
    named.discard("gym_suite/_registry.py")
    assert {"gym-suite/tools/record_gifs.py", "gym_suite/training/recipes.py", "CHANGELOG.md"} <= named
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert not missing, f"docs/contributing.md names files that do not exist: {missing}"


def test_every_test_the_guide_names_exists():
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", GUIDE)
    assert ("tests/test_docs.py", "test_readme_names_every_id") in named
    for path, test in named:
        assert re.search(rf"^def {test}\(", (ROOT / path).read_text(encoding="utf-8"), re.M), f"{path}::{test}"


def test_the_commands_the_guide_gives_take_their_options():
    commands = re.findall(r"`python (gym-suite/[\w/]+\.py)((?: --[\w-]+ [^`\s]+)*)`", GUIDE)
    assert {path for path, _ in commands} >= {"gym-suite/tools/record_gifs.py", "gym-suite/benchmarks/baselines.py"}
    for path, options in commands:
        source = (ROOT / path).read_text(encoding="utf-8")
        for option in re.findall(r"--[\w-]+", options):
            assert f'"{option}"' in source, f"{path} has no option {option}"


def test_every_id_has_its_readme_row_and_gif():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for env_id in gym_suite.ENV_IDS:
        assert re.search(rf"^\| `{re.escape(env_id)}` \|", readme, re.M), f"README.md has no row for {env_id}"
        assert (ROOT / "docs" / "img" / f"{env_id}.gif").exists(), f"no docs/img/{env_id}.gif"
    notes = {path.stem for path in (ROOT / "docs" / "env-notes").glob("*.md")}
    assert notes <= set(gym_suite.ENV_IDS), (
        f"docs/env-notes/ has pages of no registered id: {notes - set(gym_suite.ENV_IDS)}"
    )


def test_recipes_are_of_registered_ids():
    from gym_suite.training.recipes import RECIPES

    assert set(RECIPES) <= set(gym_suite.ENV_IDS)
    assert "gym_suite/training/recipes.py" in GUIDE and "`RECIPES`" in GUIDE


def test_jax_ppo_recipes_are_of_registered_ids():
    pytest.importorskip("rejax")
    jax_training = importlib.import_module("gym_suite.training.jax")

    assert set(jax_training.PPO_RECIPES) | set(jax_training.PPO_BUDGETS) <= set(gym_suite.ENV_IDS)
    assert "`PPO_RECIPES`" in GUIDE and "`PPO_BUDGETS`" in GUIDE


def test_the_changelog_has_the_heading_the_guide_names():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    match = re.search(r"under `(## \[Unreleased\])`, `(### \w+)`", GUIDE)
    assert match, "the guide does not say where a CHANGELOG entry goes"
    unreleased = changelog.split(match.group(1) + "\n", 1)
    assert len(unreleased) == 2, f"CHANGELOG.md has no {match.group(1)!r} heading"
    assert re.search(rf"^{re.escape(match.group(2))}$", unreleased[1].split("\n## ", 1)[0], re.M)


def test_the_registry_rows_have_the_fields_the_guide_shows():
    from gym_suite import _registry as registry

    shown = re.search(r"```python\n\s*(Spec\(.*?\))\n\s*```", section("Adding an environment"), re.S)
    assert shown, "the guide shows no registry row"
    fields = set(re.findall(r"^\s+(\w+)=", shown.group(1), re.M))
    spec_fields = set(inspect.signature(registry.Spec).parameters)
    assert fields <= spec_fields, fields - spec_fields

    versions: dict[str, list[str]] = {}
    for spec in registry.SPECS:
        rules, params = registry.load(spec.definition), registry.load(spec.params)
        assert isinstance(rules, definition.Definition), spec.id
        assert dataclasses.is_dataclass(params) and not isinstance(params, type), (spec.id, "a parameter set")
        versions.setdefault(spec.definition, []).append(spec.params)
    # a second version is a parameter set of its own and a row, on the same definition
    for rules_name, params_names in versions.items():
        assert len(set(params_names)) == len(params_names), f"two rows of {rules_name} share a parameter set"


# --------------------------------------------------------------------------------------------
# What a state quantity may be: the guide's words, on the tiny environment
# --------------------------------------------------------------------------------------------


def _kinds_reported(definition) -> set[tuple[str, str]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # without JAX: its warning
        found = check_definition(definition, CoinParams(), steps=10, backends=("scalar", "numpy"), raise_error=False)
    return {(v.hook, v.problem) for v in found}


class NumpyScalarHeads(Coin):
    """The heads as a numpy integer for one environment: a number, as the guide allows."""

    def initial(self, u, params, ops):
        import numpy as np

        state = super().initial(u, params, ops)
        return state._replace(heads=np.int64(state.heads)) if ops is definition.SCALAR else state


class ListQuantity(Coin):
    """The last flip kept as a list: not a quantity."""

    def initial(self, u, params, ops):
        state = super().initial(u, params, ops)
        return CoinState(state.heads, [state.last])


class TextQuantity(Coin):
    """The last flip kept as text: not a quantity."""

    def initial(self, u, params, ops):
        state = super().initial(u, params, ops)
        return CoinState(state.heads, "none yet")


def test_the_quantities_the_guide_allows_pass_check_definition():
    text = section("What a state quantity may be")
    assert "Python `bool`" in text and "a numpy scalar passes too" in text
    assert _kinds_reported(Coin()) == set()
    assert _kinds_reported(NumpyScalarHeads()) == set()


@pytest.mark.parametrize("broken", [ListQuantity, TextQuantity])
def test_the_quantities_the_guide_refuses_are_reported(broken):
    text = section("What a state quantity may be")
    assert "a string, a list" in text
    assert ("initial", "kind") in _kinds_reported(broken())
