"""``gym_suite.register`` and ``unregister``: another package's definition reaches every route of the suite
in one call; bad calls register nothing. The row contract runs on the coin in ``tests/test_conformance.py``."""

from __future__ import annotations

import dataclasses

import gymnasium
import pytest
from coin_env import COIN, COIN_ID, V0, Coin, CoinParams

import gym_suite
from gym_suite import cli
from gym_suite.envs import check_definition

NEW_ID = "mypkg/coin-flip-v1"


@pytest.fixture
def registered():
    """The coin under another id, removed again after the test."""
    mine = {"params": CoinParams(flips=2), "max_episode_steps": 7, "summary": "A coin, by another package."}
    yield gym_suite.register(NEW_ID, **{**GOOD, **mine})
    if NEW_ID in [s.id for s in gym_suite.specs()]:
        gym_suite.unregister(NEW_ID)


def test_register_makes_every_route(registered):
    assert registered.class_name == "CoinFlipV1Env" and registered.vector_class_name == "CoinFlipV1VectorEnv"
    assert registered in gym_suite.specs() and registered not in gym_suite.SPECS  # SPECS: the suite's own
    with pytest.raises(dataclasses.FrozenInstanceError):
        registered.summary = "changed"  # type: ignore[misc]
    from gym_suite.envs import CoinFlipV1Env, CoinFlipV1VectorEnv

    env = gymnasium.make(NEW_ID)
    assert env.spec.max_episode_steps == 7 and env.unwrapped.flips == 2 and type(env.unwrapped) is CoinFlipV1Env
    assert CoinFlipV1Env.__module__ == "gym_suite.envs"
    envs = gymnasium.make_vec(NEW_ID, num_envs=3, vectorization_mode="vector_entry_point")
    assert type(envs) is CoinFlipV1VectorEnv and envs.max_episode_steps == 7
    assert check_definition(NEW_ID, backends=("scalar", "numpy"), raise_error=False) == []
    assert len(gym_suite.evaluate(NEW_ID, "heuristic", episodes=3).returns) == 3


def test_register_reaches_jax_in_every_form_and_jax_make_lists_the_ids_when_unknown(registered):
    gj = pytest.importorskip("gym_suite.jax")
    env, params = gj.make(NEW_ID)
    assert params.max_steps_in_episode == 7 and env.definition_params.flips == 2
    assert gj.make("mypkg_jax/coin-flip-v1")[0].definition_params.flips == 2
    obs, info = gymnasium.make("mypkg_jax/coin-flip-v1").reset(seed=0)
    assert int(obs) == 0 and "heads" in info
    with pytest.raises(ValueError, match=r"unknown env_id 'mypkg/coin-flip-v9'; the ids are \[.*'mypkg/coin-flip-v1'"):
        gj.make("mypkg/coin-flip-v9")
    with pytest.raises(ValueError, match="unknown env_id 'mypkg_jax/heartpole-v1'"):
        gj.make("mypkg_jax/heartpole-v1")  # the JAX form of a registered id only


def test_register_reaches_the_command_line(registered, capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert f"{NEW_ID}  (max_episode_steps=7)" in out and "A coin, by another package." in out
    assert cli.main(["evaluate", NEW_ID, "--episodes", "2", "--policy", "heuristic"]) == 0
    assert cli.main(["evaluate", f"coin_env:{COIN_ID}", "--episodes", "2"]) == 0  # "module:id": the module imported


def test_unregister_removes_every_route(registered):
    from gym_suite import envs

    assert envs.CoinFlipV1Env is not None  # made and published
    assert gym_suite.unregister(NEW_ID) == registered
    assert NEW_ID not in gymnasium.registry and "mypkg_jax/coin-flip-v1" not in gymnasium.registry
    assert registered not in gym_suite.specs()
    with pytest.raises(AttributeError):
        envs.CoinFlipV1Env  # noqa: B018
    with pytest.raises(ValueError, match="not registered"):
        gym_suite.unregister(NEW_ID)
    again = gym_suite.register(NEW_ID, definition=COIN, params=V0, max_episode_steps=None, summary="Again.")
    assert gymnasium.make(NEW_ID).unwrapped.flips == 3 and again.max_episode_steps is None
    with pytest.raises(ValueError, match="suite's own ids"):  # which stay registered
        gym_suite.unregister("heartpole-v0")
    assert "heartpole-v0" in gymnasium.registry
    with pytest.raises(TypeError, match="env_id must be a string"):
        gym_suite.unregister(3)
    with pytest.raises(ValueError, match=r"'x{77}'\.\.\. is not registered") as refused:  # the id cut to 80
        gym_suite.unregister("x" * 100_000)
    assert len(str(refused.value)) < 1000


def test_register_takes_module_attribute_strings():
    by_name = {"definition": "coin_env:COIN", "params": "coin_env:V0", "class_name": "NamedCoinEnv"}
    spec = gym_suite.register("mypkg/coin-v3", **{**GOOD, **by_name})
    try:
        env = gymnasium.make("mypkg/coin-v3", flips=4)
        assert type(env.unwrapped).__name__ == "NamedCoinEnv" and env.unwrapped.flips == 4
    finally:
        gym_suite.unregister(spec.id)


class TypoCoin(Coin):
    arguments = ("flip",)  # CoinParams' field is flips


TYPO = TypoCoin()
GOOD = {"definition": COIN, "params": V0, "max_episode_steps": 10, "summary": "A coin."}


@pytest.mark.parametrize(
    ("env_id", "changes", "error", "match"),
    [
        ("coin-v0", {}, ValueError, "namespace/name-vN"),  # not namespaced: the suite's ids have no namespace
        ("mypkg/coin", {}, ValueError, "namespace/name-vN"),  # no version
        ("mypkg/coin-v01", {}, ValueError, "namespace/name-vN"),
        ("my:pkg/coin-v0", {}, ValueError, "namespace/name-vN"),  # gymnasium reads "module:id"
        ("gym_suite/coin-v0", {}, ValueError, "reserved"),
        ("gym_suite_jax/coin-v0", {}, ValueError, "reserved"),
        ("mypkg_jax/coin-v0", {}, ValueError, "reserved"),
        (COIN_ID, {}, ValueError, "registered already"),
        (b"mypkg/coin-v0", {}, TypeError, "env_id must be a string"),
        ("mypkg/coin-v0", {"definition": Coin}, TypeError, "definition must be a Definition instance"),
        ("mypkg/coin-v0", {"definition": "no colon"}, ValueError, "'module:attribute'"),
        ("mypkg/coin-v0", {"params": CoinParams}, TypeError, "params must be the version's parameter set"),
        ("mypkg/coin-v0", {"params": {"flips": 3}}, TypeError, "params must be"),
        ("mypkg/coin-v0", {"max_episode_steps": 0}, ValueError, "max_episode_steps must be >= 1"),
        ("mypkg/coin-v0", {"max_episode_steps": 2.5}, TypeError, "max_episode_steps"),
        ("mypkg/coin-v0", {"summary": None}, TypeError, "summary must be a string"),
        ("mypkg/coin-v0", {"summary": "two\nlines"}, ValueError, "one line"),
        ("mypkg/coin-v0", {"class_name": "Coin"}, ValueError, "ending in 'Env'"),
        ("mypkg/coin-v0", {"class_name": 5}, TypeError, "class_name"),
        ("mypkg/coin-v0", {"class_name": "CoinEnv"}, ValueError, "class name 'CoinEnv' is taken"),
        ("mypkg/heart-pole-v0", {}, ValueError, "class name 'HeartPoleEnv' is taken"),
        # a vector class's name is taken too, as a scalar name and as the vector name it makes
        ("mypkg/die-v0", {"class_name": "HeartPoleVectorEnv"}, ValueError, "'HeartPoleVectorEnv' is taken"),
        ("mypkg/heart-pole-vector-v0", {}, ValueError, "'HeartPoleVectorEnv' is taken by 'heartpole-v0'"),
        ("mypkg/coin-v0", {"summary": "a\rb"}, ValueError, "one line"),
        ("mypkg/coin-v0", {"summary": "a\u2028b"}, ValueError, "one line"),
        ("mypkg/coin-v0", {"manual": 3}, TypeError, "manual"),
        ("mypkg/coin-v0", {"definition": TypoCoin()}, ValueError, r"declare \['flip'\], which CoinParams has no field"),
    ],
)
def test_bad_registrations_are_refused_and_register_nothing(env_id, changes, error, match):
    before = list(gym_suite.specs()), set(gymnasium.registry)
    with pytest.raises(error, match=match):
        gym_suite.register(env_id, **{**GOOD, **changes})
    assert (list(gym_suite.specs()), set(gymnasium.registry)) == before


@pytest.mark.parametrize(("first", "second"), [("DieEnv", "DieVectorEnv"), ("DieVectorEnv", "DieEnv")])
def test_two_registrations_never_share_a_class_name(first, second):
    gym_suite.register("mypkg/die-v0", **{**GOOD, "class_name": first})
    try:
        with pytest.raises(ValueError, match="is taken by 'mypkg/die-v0'"):
            gym_suite.register("mypkg/die-v1", **{**GOOD, "class_name": second})
        assert "mypkg/die-v1" not in gymnasium.registry
    finally:
        gym_suite.unregister("mypkg/die-v0")


A_NUMBER = 3
LAZY = r"^register\('mypkg/lazy-v0'\): "


@pytest.mark.parametrize(
    ("changes", "error", "match"),
    [
        ({"definition": "coin_env:V0"}, TypeError, LAZY + r"definition='coin_env:V0' is of type CoinParams, expe"),
        ({"definition": "coin_env:NO_SUCH"}, ValueError, LAZY + r"definition='coin_env:NO_SUCH': .*no attribute 'NO"),
        ({"params": "coin_env:COIN"}, TypeError, LAZY + r"params='coin_env:COIN' is of type Coin, expected a data"),
        ({"manual": "test_register:A_NUMBER"}, TypeError, LAZY + r"manual='test_register:A_NUMBER' is of type int"),
        ({"definition": "test_register:TYPO"}, ValueError, r"TypoCoin.arguments declares \['flip'\], which CoinParams"),
    ],
)
def test_a_module_attribute_string_naming_the_wrong_thing_is_a_clear_error_on_first_use(changes, error, match):
    gym_suite.register("mypkg/lazy-v0", **{**GOOD, **changes})  # imports nothing: checked when first used
    try:
        with pytest.raises(error, match=match):
            gymnasium.make("mypkg/lazy-v0")
    finally:
        gym_suite.unregister("mypkg/lazy-v0")


def test_a_message_listing_the_registered_ids_is_cut(monkeypatch):
    from gym_suite import _registry

    many = {f"mypkg/c{i}-v0": None for i in range(300)}
    monkeypatch.setattr(_registry, "_ADDED", many)
    with pytest.raises(ValueError, match=r"'mypkg/c19-v0', \.\.\. 280 more\]$") as caught:
        gym_suite.unregister("mypkg/nope-v0")
    assert "mypkg/c20-v0" not in str(caught.value) and len(str(caught.value)) < 500


def test_an_id_gymnasium_has_already_is_refused():
    gymnasium.register("mypkg/elsewhere-v0", entry_point="gym_suite.envs:ExampleEnv")
    try:
        with pytest.raises(ValueError, match="'mypkg/elsewhere-v0' is registered with gymnasium already"):
            gym_suite.register("mypkg/elsewhere-v0", **GOOD)
        assert "mypkg/elsewhere-v0" not in [s.id for s in gym_suite.specs()]
    finally:
        del gymnasium.registry["mypkg/elsewhere-v0"]


class OldCoin(Coin):
    """The coin written for the older hooks."""

    def action_space(self, params):
        return self.spaces(params)[1]

    def render_ansi(self, state, params):
        return self.render(state, params, "ansi")


def test_a_definition_in_the_old_form_is_told_what_to_change():
    try:
        with pytest.raises(TypeError, match=r"action_space \(now spaces\(params\).*render_ansi.*CHANGELOG"):
            gym_suite.register("mypkg/old-coin-v0", **{**GOOD, "definition": OldCoin()})
            gymnasium.make("mypkg/old-coin-v0")
    finally:
        if "mypkg/old-coin-v0" in [s.id for s in gym_suite.specs()]:
            gym_suite.unregister("mypkg/old-coin-v0")
