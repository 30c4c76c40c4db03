"""``check_definition`` on the tiny coin of ``tests/coin_env.py`` with one thing changed: what it reports, and what
it accepts of what the guide's "What a state quantity may be" allows."""

from __future__ import annotations

import dataclasses
import re
import warnings

import gymnasium
import numpy as np
import pytest
from coin_env import COIN, Coin, CoinParams, CoinState

import gym_suite
from gym_suite.envs import DefinitionError, check_definition
from gym_suite.envs.checks import Argument
from gym_suite.envs.definition import SCALAR

SN = ("scalar", "numpy")


def variant(**changed) -> Coin:
    """The coin with some class attributes or hooks replaced."""
    return type("Variant", (Coin,), changed)()


def reward_off(self, state, action, next_state, params, ops):  # on Python numbers one more than on arrays
    return Coin.reward(self, state, action, next_state, params, ops) + (1.0 if ops.name == "scalar" else 0.0)


def numpy_scalar_heads(self, u, params, ops):  # a numpy integer for one environment: a number, as the guide allows
    state = Coin.initial(self, u, params, ops)
    return state._replace(heads=np.int64(state.heads)) if ops is SCALAR else state


def python_if(self, state, action, u, params, ops):  # runs on Python numbers, not on arrays nor under jit
    flip = 1 if u[0] < 0.5 else 0
    return type(state)(state.heads + flip, state.last * 0 + flip)


def plain_start(self, u, params, ops):  # plain Python numbers on every backend: they stand for every row
    return CoinState(0, -1)


def initial_last(last):
    return lambda self, u, params, ops: CoinState(Coin.initial(self, u, params, ops).heads, last)


def plain_after_a_step(self, state, action, u, params, ops):  # one plain number after a step: a batch needs one a row
    return CoinState(state.heads + ops.where(u[0] < 0.5, 1, 0), 0)


UNBOUNDED = (Argument("flips", int, "heads that end the episode", low=1),)  # no upper bound: the spaces break on 2**63
CASES = [  # (changed, backends, every "hook [backend] problem" reported, a regex on the DefinitionError's message)
    ({}, SN, set(), None),
    ({"initial": numpy_scalar_heads}, SN, set(), None),
    ({"initial": plain_start}, SN, set(), None),
    ({"reward": reward_off}, SN, {"reward [scalar vs numpy] disagree"}, r"disagree: .*where numpy gives"),
    ({"arguments": UNBOUNDED}, SN, {"spaces [scalar] argument"}, r"flips=9223372036854775808 was accepted by "
     r"make_params, then spaces raised"),
    ({"terminal": lambda self, state, params, ops: 1.0 * (state.heads >= params.flips)}, SN,
     {"terminal [scalar] not boolean", "terminal [numpy] not boolean"}, None),
    ({"initial": initial_last([-1])}, SN, {"initial [scalar] kind", "initial [numpy] shape"}, None),
    ({"initial": initial_last("none yet")}, SN, {"initial [scalar] kind", "initial [numpy] kind"}, None),
    ({"transition": plain_after_a_step}, SN, {"transition [numpy] shape"}, None),
    ({"transition": python_if}, ("numpy", "jax"), {"transition [numpy] raised", "transition [jax] raised"},
     r"transition \[jax\] raised: TracerBoolConversionError.*use ops\.where"),
]  # fmt: skip


@pytest.mark.parametrize(("changed", "backends", "reported", "message"), CASES)
def test_what_check_definition_reports(changed, backends, reported, message):
    if "jax" in backends:
        pytest.importorskip("jax")
    definition = variant(**changed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # without JAX: its warning
        found = check_definition(definition, CoinParams(), steps=10, backends=backends, raise_error=False)
        assert {f"{v.hook} [{v.backend}] {v.problem}" for v in found} == reported
        if reported:
            with pytest.raises(DefinitionError) as caught:
                check_definition(definition, CoinParams(), steps=10, backends=backends)
            assert re.search(message or "", str(caught.value)) and caught.value.violations == tuple(found)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_envs": 0}, (TypeError, ValueError), "num_envs"),
        ({"backends": ("torch",)}, (TypeError, ValueError), "backend"),
        ({"raise_error": 1}, (TypeError, ValueError), "raise_error"),
        ({"params": dataclasses.make_dataclass("Other", [])()}, TypeError, "params must be the CoinParams of Coin"),
    ],
)
def test_bad_arguments_are_refused_by_name(kwargs, error, match):
    with pytest.raises(error, match=match):
        check_definition(COIN, kwargs.pop("params", CoinParams()), **kwargs)


def test_the_shells_broadcast_a_plain_start():
    spec = gym_suite.register(
        "gym_suite_test/plain-start-v0", definition=variant(initial=plain_start), params=CoinParams(),
        max_episode_steps=4, summary="x",
    )  # fmt: skip
    try:
        envs = gymnasium.make_vec(spec.id, num_envs=3, vectorization_mode="vector_entry_point")
        envs.reset(seed=0)
        for _ in range(6):
            envs.step(envs.action_space.sample())
    finally:
        gym_suite.unregister(spec.id)
