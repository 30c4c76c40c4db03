"""The contributor guide (docs/contributing.md) against the code: its tables are the code's, every file, command and
option it names exists, every registered id has what its steps give it (what a state quantity may be:
``tests/test_check_definition.py``)."""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import itertools
import re
from pathlib import Path

import pytest

import gym_suite
from gym_suite import _registry as registry
from gym_suite.cli import build_parser
from gym_suite.envs import checks, definition

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "docs" / "contributing.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    """The guide's text under the heading ``title``, to the next heading of any level."""
    match = re.search(rf"^#+ {re.escape(title)}\n(.*?)(?=^#+ |\Z)", GUIDE, re.M | re.S)
    assert match, f"docs/contributing.md has no section {title!r}"
    return match.group(1)


def first_column_names(title: str) -> set[str]:
    """The names in the first column of the section's table: `name(args)`, `a(x)`, `b(x)` -> {name, a, b}."""
    cells = [line.split("|")[1] for line in section(title).splitlines() if line.startswith("| `")]
    return {name for cell in cells for name in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)", cell)}


def public(namespace, test=lambda value: True) -> set[str]:
    return {name for name, value in vars(namespace).items() if not name.startswith("_") and test(value)}


def defined_in_checks(value) -> bool:
    return (inspect.isfunction(value) or inspect.isclass(value)) and value.__module__ == checks.__name__


@pytest.mark.parametrize(
    ("title", "names"),
    [
        ("The hooks", public(definition.Definition, callable)),
        ("The ops functions", public(definition.Ops)),  # the functions and `name`
        ("The argument checkers", public(checks, defined_in_checks)),
    ],
)
def test_the_guides_tables_are_the_code(title, names):
    assert first_column_names(title) == names


def test_the_guide_names_the_definitions_class_attributes():
    attributes = public(definition.Definition, lambda value: not callable(value))
    names = attributes | set(definition.Definition.__annotations__)
    missing = {name for name in names if f"`{name}`" not in section("Adding an environment")}
    assert not missing, f"docs/contributing.md does not name the Definition attributes {sorted(missing)}"


def test_every_file_command_and_option_the_guide_names_exists():
    named = set(re.findall(r"(?<![\w/.-])((?:gym_suite|gym-suite|docs|tests|\.ci)/[\w./-]+\.\w+)", GUIDE))
    named |= set(re.findall(r"\b([A-Z]+\.md)\b", GUIDE))  # README.md, CHANGELOG.md
    named = {path for path in named if not any(p in path for p in ("NAME", "name-v0", "Name"))}
    assert {"gym-suite/tools/record_gifs.py", "gym_suite/training/recipes.py", "CHANGELOG.md"} <= named
    missing = sorted(path for path in named if not (ROOT / path).exists())
    assert not missing, f"docs/contributing.md names files that do not exist: {missing}"
    commands = re.findall(r"`python (gym-suite/[\w/]+\.py)((?: --[\w-]+ [^`\s]+)*)`", GUIDE)
    assert {path for path, _ in commands} >= {"gym-suite/tools/record_gifs.py", "gym-suite/benchmarks/baselines.py"}
    for path, options in commands:
        source = (ROOT / path).read_text(encoding="utf-8")
        for option in re.findall(r"--[\w-]+", options):
            assert f'"{option}"' in source, f"{path} has no option {option}"


def test_step_3_is_a_command_to_run():
    step = re.search(r"^3\. \*\*(.*?)\*\*(.*?)^4\. ", section("Adding an environment"), re.M | re.S)
    assert step
    commands = re.findall(r"`gym-suite ([^`]+)`", step.group(2))
    assert any(c.startswith("evaluate") for c in commands) and "list" in commands
    for command in commands:
        build_parser().parse_args(command.replace("name-v0", "example-v0").split())


def test_every_id_has_its_gif_notes_and_recipes_only_of_registered_ids():
    assert not [i for i in gym_suite.ENV_IDS if not (ROOT / "docs" / "img" / f"{i}.gif").exists()], "no GIF"
    notes = {path.stem for path in (ROOT / "docs" / "env-notes").glob("*.md")}
    assert notes <= set(gym_suite.ENV_IDS), f"docs/env-notes/ has pages of no registered id: {notes}"
    assert set(importlib.import_module("gym_suite.training.recipes").RECIPES) <= set(gym_suite.ENV_IDS)
    if importlib.util.find_spec("rejax"):
        jax_training = importlib.import_module("gym_suite.training.jax")
        assert set(jax_training.PPO_RECIPES) | set(jax_training.PPO_BUDGETS) <= set(gym_suite.ENV_IDS)


def test_the_registry_rows_have_the_fields_the_guide_shows():
    shown = re.search(r"```python\n\s*(Spec\(.*?\))\n\s*```", section("Adding an environment"), re.S)
    assert shown, "the guide shows no registry row"
    fields = set(re.findall(r"^\s+(\w+)=", shown.group(1), re.M))
    assert fields <= set(inspect.signature(registry.Spec).parameters)
    for spec in registry.SPECS:
        assert isinstance(registry.load(spec.definition), definition.Definition), spec.id
        params = registry.load(spec.params)
        assert dataclasses.is_dataclass(params) and not isinstance(params, type), (spec.id, "a parameter set")
    rows = [(spec.definition, spec.params) for spec in registry.SPECS]  # a second version: a parameter set of its own
    assert len(set(rows)) == len(rows), "two rows of one definition share a parameter set"


def test_two_definitions_of_one_family_differ_in_state_or_spaces():
    """The version rule: rows of one family on two definitions are two tasks, whose state or spaces differ."""
    pairs = 0
    for a, b in itertools.combinations(registry.SPECS, 2):
        da, db = registry.load(a.definition), registry.load(b.definition)
        if a.id.rsplit("-v", 1)[0] != b.id.rsplit("-v", 1)[0] or da is db:
            continue
        pairs += 1
        pa, pb = (d.make_params(registry.load(s.params), s.class_name) for d, s in ((da, a), (db, b)))
        same_spaces = da.spaces(pa) == (*db.spaces(pb),)
        assert not (da.State._fields == db.State._fields and same_spaces), f"{a.id} and {b.id}: one task"
    assert pairs >= 2  # push-v0 / push-v1, target-v0 / target-v1


def test_no_environment_file_keeps_a_step_limit_of_its_own():
    for path in sorted((ROOT / "gym_suite" / "envs").glob("*_env.py")):
        found = re.findall(r"^(\w*MAX_EPISODE_STEPS\w*) *=", path.read_text(encoding="utf-8"), re.M)
        assert not found, f"{path.name} keeps {found}: the registry row's max_episode_steps is the one limit"


def test_the_registering_example_runs():
    code = re.search(r"```python\n(.*?)```", section("Registering an environment from another package"), re.S)
    assert code, "the section shows no code"
    namespace: dict = {}
    try:
        exec(compile(code.group(1), "docs/contributing.md", "exec"), namespace)  # noqa: S102
    finally:
        if "mypkg/walk-v0" in [s.id for s in gym_suite.specs()]:
            gym_suite.unregister("mypkg/walk-v0")
    assert namespace["env"].unwrapped.rt_max == 20 and type(namespace["env"].unwrapped).__name__ == "WalkEnv"


def _extras(command: str) -> set[str]:
    match = re.search(r'-e "\.\[([\w,]+)\]"', command)
    assert match, command
    return set(match.group(1).split(","))


def _marked_command(text: str, marker: str) -> str:
    match = re.search(rf"<!-- {marker} -->\n```bash\n(.*?)\n```", text, re.S)
    assert match, f"no {marker} block"
    return match.group(1)


def test_the_set_up_and_the_test_command_are_readmes():
    import tomllib

    extras = _extras(section("Set up"))
    assert "jax" in extras and _extras(_marked_command(README, "test-command")) <= extras
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert extras <= set(declared), extras - set(declared)
    assert _marked_command(section("Tests"), "test-command") == _marked_command(README, "test-command")
