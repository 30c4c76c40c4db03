"""``check_definition`` reports a broken definition, its message naming what is wrong: a backend
that gives other values on the same draws, a declared bound that ``make_params`` does not honour,
a value of the wrong kind. Each broken definition is the tiny coin of ``tests/coin_env.py``
with one thing changed."""

from __future__ import annotations

import dataclasses
import warnings

import pytest
from coin_env import COIN, Coin, CoinParams

from gym_suite.envs import DefinitionError, check_definition
from gym_suite.envs.checks import Argument


def _violations(definition: Coin, backends=("scalar", "numpy")) -> list:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # without JAX: its warning
        return check_definition(definition, CoinParams(), steps=10, backends=backends, raise_error=False)


class ScalarRewardOff(Coin):
    """On Python numbers the reward is one more than on arrays."""

    def reward(self, state, action, next_state, params, ops):
        return super().reward(state, action, next_state, params, ops) + (1.0 if ops.name == "scalar" else 0.0)


class UnboundedFlips(Coin):
    """``flips`` declared without its upper bound: 2**63 is accepted, and the spaces break on it."""

    arguments = (Argument("flips", int, "heads that end the episode", low=1),)


class FloatTerminal(Coin):
    """The terminal flag as a number."""

    def terminal(self, state, params, ops):
        return 1.0 * (state.heads >= params.flips)


def test_a_backend_that_disagrees_is_reported_by_hook_and_backends_in_the_error():
    with warnings.catch_warnings(), pytest.raises(DefinitionError) as caught:
        warnings.simplefilter("ignore")  # without JAX: its warning
        check_definition(ScalarRewardOff(), CoinParams(), steps=10, backends=("scalar", "numpy"))
    found = [v for v in caught.value.violations if v.problem == "disagree"]
    assert [(v.hook, v.backend) for v in found] == [("reward", "scalar vs numpy")]
    assert "where numpy gives" in found[0].message and "reward [scalar vs numpy] disagree" in str(caught.value)


def test_a_bound_not_honoured_names_the_argument_and_the_value():
    found = [v for v in _violations(UnboundedFlips()) if v.problem == "argument"]
    assert [(v.hook, v.backend) for v in found] == [("spaces", "scalar")]
    assert "flips=9223372036854775808 was accepted by make_params, then spaces raised" in found[0].message


def test_a_flag_that_is_not_a_bool_is_reported_on_each_backend():
    found = {(v.hook, v.backend) for v in _violations(FloatTerminal()) if v.problem == "not boolean"}
    assert found == {("terminal", "scalar"), ("terminal", "numpy")}


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [({"num_envs": 0}, "num_envs"), ({"backends": ("torch",)}, "backend"), ({"raise_error": 1}, "raise_error")],
)
def test_bad_arguments_are_refused_by_name(kwargs, named):
    with pytest.raises((TypeError, ValueError), match=named):
        check_definition(Coin(), CoinParams(), **kwargs)


def test_params_of_another_kind_than_the_registered_definitions_are_refused():
    with pytest.raises(TypeError, match="params must be the CoinParams of Coin"):
        check_definition(COIN, dataclasses.make_dataclass("Other", [])())


class PythonIfOnData(Coin):
    """The flip by a Python ``if`` on the draw: runs on Python numbers, not on arrays nor under ``jit``."""

    def transition(self, state, action, u, params, ops):
        flip = 1 if u[0] < 0.5 else 0
        return type(state)(state.heads + flip, state.last * 0 + flip)


def test_a_python_if_on_data_is_reported_on_jax_with_the_way_out():
    pytest.importorskip("jax")
    found = {v.backend: v.message for v in _violations(PythonIfOnData(), ("numpy", "jax")) if v.problem == "raised"}
    assert set(found) == {"numpy", "jax"}
    assert "TracerBoolConversionError" in found["jax"] and "use ops.where" in found["jax"]
