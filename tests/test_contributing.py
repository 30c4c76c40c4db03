"""The contributor guide (docs/contributing.md) against the code: each step it lists holds where it
can be checked. Its lists (the hooks, the ops functions, the argument checkers) are the code's,
every file, test and option it names exists, every registered id has what the steps give it (a
GIF, recipes only for registered ids), and what it says a state quantity may be is
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


def test_the_guide_names_the_definitions_class_attributes():
    names = {
        name for name, value in vars(definition.Definition).items() if not name.startswith("_") and not callable(value)
    } | set(definition.Definition.__annotations__)
    missing = {name for name in names if f"`{name}`" not in section("Adding an environment")}
    assert not missing, f"docs/contributing.md does not name the Definition attributes {sorted(missing)}"


def test_the_ops_functions_are_the_ops_namespace():
    expected = {name for name in vars(definition.Ops) if not name.startswith("_")}  # the functions and `name`
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
    for path, test in named:
        assert re.search(rf"^def {test}\(", (ROOT / path).read_text(encoding="utf-8"), re.M), f"{path}::{test}"


def test_the_commands_the_guide_gives_take_their_options():
    commands = re.findall(r"`python (gym-suite/[\w/]+\.py)((?: --[\w-]+ [^`\s]+)*)`", GUIDE)
    assert {path for path, _ in commands} >= {"gym-suite/tools/record_gifs.py", "gym-suite/benchmarks/baselines.py"}
    for path, options in commands:
        source = (ROOT / path).read_text(encoding="utf-8")
        for option in re.findall(r"--[\w-]+", options):
            assert f'"{option}"' in source, f"{path} has no option {option}"


def test_every_id_has_its_gif():
    for env_id in gym_suite.ENV_IDS:
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
    assert "`jax_ppo`" in GUIDE and "`jax_ppo_budget`" in GUIDE


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
# What a state quantity may be (the guide's section of that name), on the tiny environment
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
    assert _kinds_reported(Coin()) == set()
    assert _kinds_reported(NumpyScalarHeads()) == set()


@pytest.mark.parametrize("broken", [ListQuantity, TextQuantity])
def test_the_quantities_the_guide_refuses_are_reported(broken):
    assert ("initial", "kind") in _kinds_reported(broken())


# --------------------------------------------------------------------------------------------
# The set-up, the tests, the steps' words: each as the code has it
# --------------------------------------------------------------------------------------------

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _extras(command: str) -> set[str]:
    match = re.search(r'-e "\.\[([\w,]+)\]"', command)
    assert match, command
    return set(match.group(1).split(","))


def _marked_command(text: str, marker: str) -> str:
    match = re.search(rf"<!-- {marker} -->\n```bash\n(.*?)\n```", text, re.S)
    assert match, f"no {marker} block"
    return match.group(1)


def test_the_set_up_installs_the_jax_extra_and_every_extra_the_tests_need():
    import tomllib

    set_up = section("Set up")
    extras = _extras(set_up)
    assert "jax" in extras
    assert _extras(_marked_command(README, "test-command")) <= extras
    declared = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    )
    assert extras <= declared, extras - declared


def test_the_tests_section_shows_the_test_command_it_refers_to():
    tests = section("Tests")
    assert _marked_command(tests, "test-command") == _marked_command(README, "test-command")
    # README's part the section embeds speaks of "the test command": the section shows it first
    assert tests.index("<!-- test-command -->") < tests.index('--8<-- "README.md:tests"')


def test_step_3_is_a_command_to_run():
    from gym_suite.cli import build_parser

    step = re.search(r"^3\. \*\*(.*?)\*\*(.*?)^4\. ", section("Adding an environment"), re.M | re.S)
    assert step
    commands = re.findall(r"`gym-suite ([^`]+)`", step.group(2))
    assert any(c.startswith("evaluate") for c in commands) and "list" in commands
    for command in commands:
        build_parser().parse_args(command.replace("name-v0", "example-v0").split())


def test_the_guide_gives_the_annotation_mypy_wants_of_a_discrete_space():
    assert "`spaces.Discrete[np.int64]`" in GUIDE and "mypy --strict" in GUIDE
    for path in sorted((ROOT / "gym_suite" / "envs").glob("*_env.py")):
        text = path.read_text(encoding="utf-8")
        for annotation in re.findall(r"\) -> (spaces\.Discrete[^:]*):", text):
            assert annotation == "spaces.Discrete[np.int64]", (path.name, annotation)


def test_no_environment_file_keeps_a_step_limit_of_its_own():
    for path in sorted((ROOT / "gym_suite" / "envs").glob("*_env.py")):
        found = re.findall(r"^(\w*MAX_EPISODE_STEPS\w*) *=", path.read_text(encoding="utf-8"), re.M)
        assert not found, f"{path.name} keeps {found}: the registry row's max_episode_steps is the one limit"
    from gym_suite.envs import ExampleEnv

    assert ExampleEnv.MAX_STEPS == next(s.max_episode_steps for s in gym_suite.SPECS if s.id == "example-v0")


class PlainStart(Coin):
    """The start's quantities as plain Python numbers on every backend: they stand for every row."""

    def initial(self, u, params, ops):
        return CoinState(0, -1)


class PlainAfterAStep(Coin):
    """The last flip as one plain number after a step: a batch needs one per row."""

    def transition(self, state, action, u, params, ops):
        return CoinState(state.heads + ops.where(u[0] < 0.5, 1, 0), 0)


def test_a_plain_value_may_start_a_batch_but_not_follow_a_step():
    assert _kinds_reported(PlainStart()) == set()
    assert _kinds_reported(PlainAfterAStep()) == {("transition", "shape")}
    spec = gym_suite.register(
        "gym_suite_test/plain-start-v0", definition=PlainStart(), params=CoinParams(), max_episode_steps=4, summary="x"
    )
    try:  # the shells broadcast the plain start
        import gymnasium

        envs = gymnasium.make_vec(spec.id, num_envs=3, vectorization_mode="vector_entry_point")
        envs.reset(seed=0)
        for _ in range(6):
            envs.step(envs.action_space.sample())
    finally:
        gym_suite.unregister(spec.id)


def test_two_definitions_of_one_family_differ_in_state_or_spaces():
    """The version rule: rows of one family (``push``, ``target``) on two definitions are two
    tasks, whose state or spaces differ; rows on one definition differ in their parameter set."""
    from gym_suite import _registry as registry

    families: dict[str, list] = {}
    for spec in registry.SPECS:
        families.setdefault(spec.id.rsplit("-v", 1)[0], []).append(spec)
    pairs = 0
    for rows in families.values():
        for a in rows:
            for b in rows:
                da, db = registry.load(a.definition), registry.load(b.definition)
                if a.id >= b.id or da is db:
                    continue
                pairs += 1
                pa, pb = (d.make_params(registry.load(s.params), s.class_name) for d, s in ((da, a), (db, b)))
                same_state = da.State._fields == db.State._fields
                same_spaces = da.spaces(pa) == (*db.spaces(pb),)
                assert not (same_state and same_spaces), f"{a.id} and {b.id}: two definitions of one task"
    assert pairs >= 2  # push-v0 / push-v1, target-v0 / target-v1


def test_the_registering_example_runs():
    text = section("Registering an environment from another package")
    code = re.search(r"```python\n(.*?)```", text, re.S)
    assert code, "the section shows no code"
    namespace: dict = {}
    try:
        exec(compile(code.group(1), "docs/contributing.md", "exec"), namespace)  # noqa: S102
    finally:
        if "mypkg/walk-v0" in [s.id for s in gym_suite.specs()]:
            gym_suite.unregister("mypkg/walk-v0")
    assert namespace["env"].unwrapped.rt_max == 20 and type(namespace["env"].unwrapped).__name__ == "WalkEnv"
