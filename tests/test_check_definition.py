"""``gym_suite.envs.check_definition``: every registry id passes it, and on each broken variant of
the tiny contributor environment (``tests/test_definitions.py``'s coin) it reports exactly the
violation made, naming the hook and the backends."""

from __future__ import annotations

import dataclasses
import math
import re
import sys
import warnings

import numpy as np
import pytest
from gymnasium import spaces
from test_definitions import COIN, Coin, CoinEnv, CoinParams, CoinState

import gym_suite
from gym_suite.envs import DefinitionError, Violation, check_definition
from gym_suite.envs.argument_values import ARGUMENT_VALUES, HUGE, argument_values
from gym_suite.envs.checks import check_int
from gym_suite.envs.definition import NUMPY, SCALAR
from gym_suite.envs.target_env import DEFAULTS, TARGET_V1

try:
    import jax

    JAX = ("jax",)
    X64 = bool(jax.config.read("jax_enable_x64"))
except ImportError:  # the oldest-versions run has no JAX: its backend is skipped with a warning
    JAX, X64 = (), False

ALL = ("scalar", "numpy", *JAX)


def _found(definition, steps=30, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no JAX: the warning is tested on its own
        violations = check_definition(definition, CoinParams(), steps=steps, raise_error=False, **kwargs)
    return {(v.hook, v.backend, v.problem) for v in violations}, violations


@pytest.mark.parametrize("env_id", [spec.id for spec in gym_suite.SPECS])
def test_every_registry_definition_passes(env_id):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert check_definition(env_id) == []
    skipped = [w for w in caught if "JAX backend was not checked" in str(w.message)]
    assert len(skipped) == (0 if JAX else 1)  # with JAX installed, the JAX backend ran


def test_the_tiny_definition_passes_and_so_does_its_env_class():
    assert _found(COIN)[1] == []
    assert check_definition(CoinEnv, num_envs=3, steps=20, raise_error=False) == []


class BoxCoin(Coin):
    """The coin, observed as a float32 Box (heads, last flip): the base of the dtype and shape variants."""

    def observation_space(self, params):
        return spaces.Box(np.array([0.0, -1.0], np.float32), np.array([params.flips, 1.0], np.float32))

    def observation(self, state, params, ops):
        return ops.vector((state.heads, state.last), np.float32)


class NanObservation(Coin):
    def observation(self, state, params, ops):
        return state.heads + math.nan


class ObservationOutOfSpace(Coin):
    def observation(self, state, params, ops):
        return state.heads + params.flips + 1


class Float64Observation(BoxCoin):
    def observation(self, state, params, ops):
        return ops.vector((state.heads, state.last), np.float64)


class WrongShapeObservation(BoxCoin):
    def observation(self, state, params, ops):
        return ops.vector((state.heads, state.last, state.heads), np.float32)


class NanReward(Coin):
    def reward(self, state, action, next_state, params, ops):
        return ops.where(action == next_state.last, 1.0, math.nan)


class InfiniteReward(Coin):
    def reward(self, state, action, next_state, params, ops):
        return ops.where(action == next_state.last, 1.0, -math.inf)


class ListInfo(Coin):
    def transition_info(self, state, action, next_state, params, ops):
        return [next_state.last]


class NoTerminal(Coin):
    def terminal(self, state, params, ops):
        return "no"


class NanTerminal(Coin):
    def terminal(self, state, params, ops):
        return state.heads * math.nan


class PythonIfTerminal(Coin):
    def terminal(self, state, params, ops):
        return True if state.heads >= params.flips else False  # a Python if on data: numpy and JAX refuse it


class HeuristicSeven(Coin):
    def heuristic(self, observation, params, ops):
        return 7


class Float64Picture(Coin):
    def render_rgb(self, state, params):
        return np.zeros((1, params.flips, 3))


class FloatAfterAStep(Coin):
    def transition(self, state, action, u, params, ops):
        flip = ops.where(u[0] < 0.5, 1, 0)
        return CoinState(state.heads + flip, flip + 0.0)  # `last` starts an int (-1), then turns float


class TupleState(Coin):
    def transition(self, state, action, u, params, ops):
        return tuple(super().transition(state, action, u, params, ops))


class JaxRewardDiffers(Coin):
    def reward(self, state, action, next_state, params, ops):
        return super().reward(state, action, next_state, params, ops) + (0.5 if ops not in (SCALAR, NUMPY) else 0.0)


class ScalarRewardDiffers(Coin):
    def reward(self, state, action, next_state, params, ops):
        return super().reward(state, action, next_state, params, ops) + (0.5 if ops is SCALAR else 0.0)


class SharedObservation(Coin):
    def observation(self, state, params, ops):
        return state.heads  # on numpy the state's own array: a caller writing into it changes the env


class NoState(Coin):
    State = None


class NoObservationSpace(Coin):
    def observation_space(self, params):
        raise NotImplementedError


class UnboundedFlips(Coin):
    """flips checked as an integer >= 1, with no largest: Discrete(flips + 1) overflows past int64."""

    def make_params(self, base, owner, **arguments):
        if "flips" in arguments:
            arguments["flips"] = check_int(owner, "flips", arguments["flips"], 1)
        return dataclasses.replace(base, **arguments)


class FloatOfFlips(Coin):
    """flips read with float(): 10**1000 raises OverflowError, not a ValueError naming it."""

    def make_params(self, base, owner, **arguments):
        if "flips" in arguments:
            flips = float(arguments["flips"])
            if not (flips == int(flips) and 1 <= flips <= 1000):
                raise ValueError(f"{owner}: flips must be an integer in 1..1000")
            arguments["flips"] = int(flips)
        return dataclasses.replace(base, **arguments)


class NamelessMessage(Coin):
    """A refusal that does not say which argument is wrong."""

    def make_params(self, base, owner, **arguments):
        if arguments:
            raise ValueError(f"{owner}: bad value")
        return base


class TypoArgument(Coin):
    """An argument declared under a name the parameters do not have."""

    arguments = ("flip",)


class DataOfNoArgument(Coin):
    """A data parameter that is not a declared argument."""

    data_parameters = ("flip",)


class BrokenMakeParams(Coin):
    """make_params breaks on the parameter set itself: nothing else can run."""

    def make_params(self, base, owner, **arguments):
        return base.no_such_field


def _on(hook, problem, backends=ALL):
    return {(hook, backend, problem) for backend in backends}


BROKEN = [
    (NanObservation, _on("observation", "nan")),
    (ObservationOutOfSpace, _on("observation", "out of space")),
    # JAX without 64-bit mode holds no float64: there the float64 request gives float32, the space's dtype
    (Float64Observation, _on("observation", "dtype", ALL if X64 else ("scalar", "numpy"))),
    (WrongShapeObservation, _on("observation", "shape")),
    (NanReward, _on("reward", "not finite")),
    (InfiniteReward, _on("reward", "not finite")),
    (ListInfo, _on("transition_info", "not a dict")),
    (NoTerminal, _on("terminal", "not boolean")),
    (NanTerminal, _on("terminal", "not boolean")),
    (PythonIfTerminal, _on("terminal", "raised", ("numpy", *JAX))),
    (HeuristicSeven, _on("heuristic", "out of space")),
    (Float64Picture, _on("render_rgb", "not an image", ("numpy",))),
    (FloatAfterAStep, _on("transition", "kind")),
    (TupleState, _on("transition", "not a state")),
    (ScalarRewardDiffers, _on("reward", "disagree", ("scalar vs numpy",))),
    (JaxRewardDiffers, _on("reward", "disagree", tuple(f"{b} vs numpy" for b in JAX))),
    (SharedObservation, _on("observation", "not fresh", ("numpy",))),
    (NoState, _on("State", "not a state", ("all",))),
    (NoObservationSpace, _on("observation_space", "raised", ("all",))),
    (UnboundedFlips, _on("observation_space", "argument", ("scalar",))),
    (FloatOfFlips, _on("make_params", "argument", ("all",))),
    (NamelessMessage, _on("make_params", "argument", ("all",))),
    (TypoArgument, _on("arguments", "not a parameter", ("all",))),
    (DataOfNoArgument, _on("data_parameters", "not data", ("all",))),
    (BrokenMakeParams, _on("make_params", "raised", ("all",))),
]


@pytest.mark.parametrize(("broken", "expected"), BROKEN, ids=[cls.__name__ for cls, _ in BROKEN])
def test_each_violation_is_reported_by_hook_and_backend(broken, expected):
    found, violations = _found(broken())
    assert found == expected, [str(v) for v in violations]
    for violation in violations:
        assert violation.hook in str(violation) and violation.backend in str(violation)
        assert len(violation.message) < 1000


def test_the_value_is_in_the_message():
    _, violations = _found(HeuristicSeven(), backends=("numpy",))
    assert [v.backend for v in violations] == ["numpy"]
    assert "7" in violations[0].message and "Discrete(2)" in violations[0].message
    _, violations = _found(Float64Observation(), backends=("scalar", "numpy"))
    assert all("float64 where the space declares float32" in v.message for v in violations)
    _, violations = _found(Float64Picture(), backends=("numpy",))
    assert "float64" in violations[0].message and "(1, 3, 3)" in violations[0].message
    _, violations = _found(NanReward(), backends=("numpy",))
    assert re.fullmatch(r"returned nan in row \d+", violations[0].message)


@pytest.mark.skipif(not JAX, reason="needs JAX")
def test_a_python_if_on_data_is_named_under_jit():
    _, violations = _found(PythonIfTerminal(), backends=("jax",))  # numpy runs too: it plays the episodes
    violations = [v for v in violations if v.backend == "jax"]
    assert [(v.hook, v.problem) for v in violations] == [("terminal", "raised")]
    assert "TracerBoolConversionError" in violations[0].message and "use ops.where" in violations[0].message


def test_it_raises_one_error_listing_every_violation_by_default():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(DefinitionError) as caught:
            check_definition(NanReward(), CoinParams())
    error = caught.value
    assert isinstance(error, ValueError)
    assert {(v.hook, v.problem) for v in error.violations} == {("reward", "not finite")}
    assert all(str(v) in str(error) for v in error.violations)
    assert str(error).startswith("check_definition(NanReward): ")
    assert isinstance(error.violations[0], Violation) and error.violations[0].count > 1


def test_without_jax_the_jax_backend_is_skipped_with_a_warning(monkeypatch):
    monkeypatch.setitem(sys.modules, "jax", None)  # `import jax` raises ImportError, as without JAX installed
    with pytest.warns(UserWarning, match="JAX is not installed, so the JAX backend was not checked"):
        found, _ = _found_warning(NanReward())
    assert found == _on("reward", "not finite", ("scalar", "numpy"))


def _found_warning(definition):
    violations = check_definition(definition, CoinParams(), raise_error=False)
    return {(v.hook, v.backend, v.problem) for v in violations}, violations


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"definition": "coin-v9"}, ValueError, "unknown id 'coin-v9'"),
        ({"definition": 3}, TypeError, "definition must be a Definition instance"),
        ({"definition": Coin()}, TypeError, "params is required for Coin"),
        ({"definition": COIN, "params": CoinParams(), "num_envs": 0}, ValueError, "num_envs must be >= 1"),
        ({"definition": COIN, "params": CoinParams(), "steps": 1.5}, TypeError, "steps must be an integer"),
        ({"definition": COIN, "params": CoinParams(), "seed": -1}, ValueError, "seed must be >= 0"),
        ({"definition": COIN, "params": CoinParams(), "backends": "jax"}, TypeError, "backends must be a sequence"),
        ({"definition": COIN, "params": CoinParams(), "backends": ["gpu"]}, ValueError, "unknown backend"),
        ({"definition": COIN, "params": CoinParams(), "raise_error": "no"}, TypeError, "raise_error must be"),
        # bad params are named as params, not blamed on the first hook that reads them
        # the coin's class is named once the coin is registered (tests/test_definitions.py registers it)
        (
            {"definition": COIN, "params": {"flips": 3}},
            TypeError,
            r"params must be the (parameters|CoinParams) of Coin.*\{'flips'",
        ),
        ({"definition": COIN, "params": CoinParams}, TypeError, "params must be the (parameters|CoinParams) of Coin"),
        ({"definition": TARGET_V1, "params": {"size": 50}}, TypeError, "params must be the TargetV1Params"),
        ({"definition": TARGET_V1, "params": DEFAULTS}, TypeError, "params must be the TargetV1Params.*TargetParams"),
    ],
)
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        check_definition(**kwargs)


# --------------------------------------------------------------------------------------------
# The parameters and the arguments
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["TARGET:DEFAULTS", "TARGET_V1:V1"])
def test_a_parameter_set_is_made_into_parameters_first(name):
    """The guide's call ``check_definition(TARGET, DEFAULTS)``: the set, as an env's constructor
    gets it, is made by ``make_params`` (target's picture scale is filled in there)."""
    from gym_suite.envs import target_env

    definition, params = (getattr(target_env, part) for part in name.split(":"))
    assert params.pixels_per_unit is None  # filled in by make_params
    assert check_definition(definition, params, steps=10, raise_error=False) == []


def test_an_unbounded_argument_is_reported_by_name():
    _, violations = _found(UnboundedFlips())
    [violation] = violations
    assert violation.problem == "argument" and "flips=" in violation.message
    assert "OverflowError" in violation.message and "accepted by make_params" in violation.message
    _, violations = _found(FloatOfFlips())
    assert any("flips=10**1000 raised OverflowError" in v.message for v in violations)


def test_a_refusal_must_name_the_argument():
    _, violations = _found(NamelessMessage())
    assert "does not name 'flips'" in violations[0].message


def test_a_typo_in_arguments_is_reported_not_an_attribute_error():
    _, violations = _found(TypoArgument())
    [violation] = violations
    assert "'flip' is declared in arguments, but CoinParams has no field of that name" in violation.message
    assert "its fields: flips" in violation.message


def test_the_argument_values_are_the_odd_ones_and_need_no_hypothesis():
    for value in (None, True, HUGE, -HUGE, 2**63, "text", [1]):
        assert any(type(v) is type(value) and v == value for v in ARGUMENT_VALUES), value
    assert any(isinstance(v, float) and math.isnan(v) for v in ARGUMENT_VALUES)
    assert math.inf in ARGUMENT_VALUES and -math.inf in ARGUMENT_VALUES
    assert all(v in argument_values(3) for v in (4, 2, 3000, -3))
    assert any(isinstance(v, tuple) and len(v) == 2 and v[0] == HUGE for v in argument_values((1.0, 2.0)))
    assert "TRAIN" in argument_values("train")
    import subprocess

    program = "import sys, gym_suite.envs.checker; print('hypothesis' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "False", done.stderr
