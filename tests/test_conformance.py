"""The contract every registered environment keeps, parametrized over ``gym_suite.specs()``: the
suite's own ids, and the tiny definition ``tests/test_definitions.py`` registers through the
public ``gym_suite.register``, as another package would."""

from __future__ import annotations

import inspect
import pickle
import re
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from conftest import ALL_IDS, DOCUMENTED_ERRORS, MESSAGE_LIMIT, invalid_action, rollout, same
from gymnasium.envs.registration import load_env_creator
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from gymnasium.vector import AutoresetMode
from hypothesis import given, settings
from hypothesis import strategies as st
from test_definitions import COIN_ID

import gym_suite

#: The suite's ids and one registered through gym_suite.register.
CONTRACT_IDS = [*ALL_IDS, COIN_ID]


def creator(env_id: str, vector: bool = False):
    spec = gymnasium.spec(env_id)
    return load_env_creator(spec.vector_entry_point if vector else spec.entry_point)


def test_the_contract_covers_every_row():
    assert CONTRACT_IDS == [spec.id for spec in gym_suite.specs()]


@pytest.fixture(params=CONTRACT_IDS)
def env_id(request):
    return request.param


def test_id_and_registered_step_limit(env_id):
    name, version = env_id.rsplit("-v", 1)
    assert name.islower() and gymnasium.spec(env_id).version == int(version)
    env = gymnasium.make(f"gym_suite:{env_id}")
    assert env.spec.id == env_id
    assert set(env.metadata["render_modes"]) <= {"ansi", "human", "rgb_array"}  # Gymnasium's names
    assert env.spec.max_episode_steps == next(s for s in gym_suite.specs() if s.id == env_id).max_episode_steps


def test_gymnasium_and_stable_baselines3_check_env(env_id):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    env = gymnasium.make(env_id)
    for mode in [None] + [m for m in env.unwrapped.metadata["render_modes"] if m != "human"]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # any complaint of the checker fails the test ...
            # ... but its advice on space bounds, which the environments' specifications fix on purpose
            # (heartpole's unbounded quantities, target's action in field coordinates)
            # and its note that a newer version of the id exists (heartpole-v0 stays as released)
            for advice in ("observation space m.* is (-)?infinity", "symmetric and normalized", "is out of date"):
                warnings.filterwarnings("ignore", message=f".*{advice}")
            gymnasium_check_env(gymnasium.make(env_id, render_mode=mode).unwrapped, skip_render_check=mode is None)
    sb3_check_env(env.unwrapped, warn=False)


def test_seeds_reproduce_and_differ_in_scalar_and_vector_envs(env_id):
    first = rollout(gymnasium.make(env_id), seed=7, steps=60)
    assert same(first, rollout(gymnasium.make(env_id), seed=7, steps=60))
    others = [rollout(gymnasium.make(env_id), seed=s, steps=60, action_seed=7) for s in range(8, 16)]
    assert not all(same(first, other) for other in others)

    def vector_run(seed):
        envs = gymnasium.make_vec(env_id, num_envs=4)
        out = [envs.reset(seed=seed)[0]]
        envs.action_space.seed(0)
        return out + [envs.step(envs.action_space.sample())[:4] for _ in range(30)]

    assert same(vector_run(5), vector_run(5)) and not same(vector_run(5), vector_run(6))


@given(st.sampled_from(CONTRACT_IDS), st.integers(0, 10**6), st.integers(0, 40))
@settings(max_examples=25, deadline=None)
def test_pickled_checkpoint_continues_identically(env_id, seed, warmup):
    env = gymnasium.make(env_id)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    for _ in range(warmup):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    clone = pickle.loads(pickle.dumps(env))
    for _ in range(15):
        action = env.action_space.sample()
        a, b = env.step(action), clone.step(action)
        assert same(a[:4], b[:4])
        if a[2] or a[3]:
            assert same(env.reset()[0], clone.reset()[0])


def test_ten_thousand_random_steps_stay_in_space(env_id):
    env = gymnasium.make(env_id)
    space = env.observation_space
    obs, info = env.reset(seed=0)
    env.action_space.seed(0)
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error", RuntimeWarning)
        for _ in range(10_000):
            assert space.contains(obs), obs
            assert np.all(np.isfinite(gymnasium.spaces.flatten(space, obs)))
            previous = info
            obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
            assert type(reward) is float and np.isfinite(reward) and isinstance(info, dict) and info is not previous
            assert type(terminated) is bool and type(truncated) is bool
            if terminated or truncated:
                obs, _ = env.reset()


def test_a_rejected_action_names_the_action_and_changes_nothing(env_id):
    env, reference = gymnasium.make(env_id, disable_env_checker=True), gymnasium.make(env_id)
    for e in (env, reference):
        e.reset(seed=4)
    for bad in (invalid_action(env.action_space), [1] * 10**6):
        with pytest.raises(DOCUMENTED_ERRORS, match="(?i)action") as err:
            env.step(bad)
        assert len(str(err.value)) < MESSAGE_LIMIT
    reference.action_space.seed(4)
    for _ in range(5):
        action = reference.action_space.sample()
        a, b = env.step(action), reference.step(action)
        assert same(a[:4], b[:4])
        if a[2] or a[3]:
            break


def test_step_before_reset_raises(env_id):
    env = gymnasium.make(env_id, max_episode_steps=-1)
    with pytest.raises(ResetNeeded, match="reset"):
        env.unwrapped.step(env.action_space.sample())
    env.reset(seed=0)
    env.step(env.action_space.sample())  # a reset makes it usable


def test_arguments_are_declared_once_in_a_typed_signature(env_id):
    """The signature is the declaration: typed keywords with defaults, the docstring's Arguments
    table lists exactly its names, an ``env_config`` dict is taken and an unknown name is refused
    with the allowed ones."""
    make = creator(env_id)
    params = {n: p for n, p in inspect.signature(make).parameters.items() if n != "env_config"}
    assert "render_mode" in params and all(p.kind is p.KEYWORD_ONLY for p in params.values())
    assert all(p.annotation is not p.empty for n, p in params.items() if n != "data")
    table = make.__doc__.split("## Arguments", 1)[1].split("##", 1)[0]
    assert re.findall(r"^\s*\| `(\w+)` \|", table, re.M) == list(params)
    vector_params = list(inspect.signature(creator(env_id, vector=True)).parameters)
    assert vector_params[:2] == ["num_envs", "env_config"]
    assert set(vector_params) == {"num_envs", "env_config", "max_episode_steps", *params}
    assert make({"render_mode": "ansi"}).render_mode == "ansi"
    with pytest.raises(TypeError, match="allowed"):
        make({"no_such_setting": 3})
    with pytest.raises(TypeError, match="bogus_key") as err:
        gymnasium.make(env_id, bogus_key=1)
    assert all(name in str(err.value) for name in params)
    with pytest.raises(TypeError, match="allowed"):
        gymnasium.make_vec(env_id, num_envs=2, bogus_key=1)


def test_wrong_render_mode_and_reset_option_raise(env_id):
    with pytest.raises(ValueError, match="render_mode"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium.make itself only warns about the mode
        gymnasium.make(env_id, render_mode="hologram")
    with pytest.raises(ValueError, match="option"):
        gymnasium.make(env_id).reset(seed=0, options={"no_such_option": 1})


def test_native_vector_env(env_id):
    envs = gymnasium.make_vec(env_id, num_envs=5)
    row = next(s for s in gym_suite.specs() if s.id == env_id)
    assert type(envs) is load_env_creator(row.vector_entry_point)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    single = gymnasium.make(env_id)
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    obs, info = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    assert all(info[key].shape == (5,) and info[f"_{key}"].all() for key in info if not key.startswith("_"))
    envs.action_space.seed(0)
    seen_done = False
    for _ in range(2 * (row.max_episode_steps or 100) + 2):
        obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
        assert envs.observation_space.contains(obs)
        assert reward.shape == terminated.shape == truncated.shape == (5,)
        assert terminated.dtype == truncated.dtype == np.bool_
        seen_done |= bool(np.any(terminated | truncated))
    assert seen_done
    with pytest.raises(ValueError, match="action"):
        envs.step(np.stack([invalid_action(envs.single_action_space)] * 5))


# ---------------------------------------------------------------------------- legacy gym


def test_gym_make_follows_gymnasium_and_passes_gym_check_env(env_id, gym_np_bool8):
    gym = pytest.importorskip("gym")
    from gym.utils.env_checker import check_env as gym_check_env

    env = gym.make(f"gym_suite:{env_id}")
    assert env.spec.max_episode_steps == gymnasium.spec(env_id).max_episode_steps
    gym_check_env(env.unwrapped, skip_render_check=True)
    # the same rules as gymnasium's: same seed, same actions, same trajectory
    ref = gymnasium.make(env_id)
    ref.reset(seed=9)
    env.reset(seed=9)
    ref.action_space.seed(3)
    for _ in range(20):
        action = ref.action_space.sample()
        a, b = ref.step(action), env.step(action)
        assert same(a[:4], b[:4])
        if a[2] or a[3]:
            assert same(ref.reset()[0], env.reset()[0])


IMPORT_ORDERS = {
    "gym first": "import gym; import gym_suite",
    "gym_suite first": "import gym_suite; import gym",
    "gym only": "import gym",
}


@pytest.mark.parametrize("order", list(IMPORT_ORDERS))
def test_gym_registration_in_any_import_order(order):
    pytest.importorskip("gym")
    code = (
        f"{IMPORT_ORDERS[order]}\n"
        "ids = " + repr(ALL_IDS) + "\n"
        "for i in ids:\n"
        "    name = i if " + repr(order != "gym only") + " else 'gym_suite:' + i\n"
        "    env = gym.make(name)\n"
        "    env.reset(seed=0)\n"
        "    env.step(env.action_space.sample())\n"
        "print('ok', len(ids))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"ok {len(ALL_IDS)}"
    assert "could not register" not in out.stderr


def test_space_conversion_covers_every_kind():
    pytest.importorskip("gym")
    from gym import spaces as gs
    from gymnasium import spaces as ns

    from gym_suite._gym import convert_space

    space = ns.Dict(
        {
            "box": ns.Box(-1.0, 2.0, shape=(3,), dtype=np.float32),
            "discrete": ns.Discrete(4, start=2),
            "binary": ns.MultiBinary(5),
            "multi": ns.MultiDiscrete([3, 4]),
            "tuple": ns.Tuple((ns.Discrete(2), ns.Box(0, 1, shape=(2,)))),
        }
    )
    converted = convert_space(space)
    assert isinstance(converted, gs.Dict)
    assert isinstance(converted["box"], gs.Box) and converted["box"].dtype == np.float32
    assert np.array_equal(converted["box"].high, space["box"].high)
    assert converted["discrete"].n == 4 and converted["discrete"].start == 2
    assert converted["binary"].n == 5
    assert np.array_equal(converted["multi"].nvec, [3, 4])
    assert isinstance(converted["tuple"], gs.Tuple) and converted["tuple"][0].n == 2
    converted.seed(0)
    for _ in range(20):  # samples of the converted space are members of the original one
        sample = converted.sample()
        sample["tuple"] = tuple(sample["tuple"])
        assert space.contains(sample)
    with pytest.raises(TypeError, match="Box, Discrete"):
        convert_space(ns.Text(5))


def test_plugin_never_raises_when_registration_fails(monkeypatch):
    pytest.importorskip("gym")
    import gym.envs.registration as registration

    from gym_suite import _gym

    def broken(**kwargs):
        raise RuntimeError("registry is broken")

    for env_id in ALL_IDS:
        monkeypatch.delitem(registration.registry, env_id, raising=False)
    monkeypatch.setattr(registration, "register", broken)
    with pytest.warns(UserWarning, match="could not register"):
        _gym.register_gym()


# ---------------------------------------------------------------------------- the step limit
# Checked on heartpole-v0, which never terminates, so every episode length is the limit's.

LIMITED = "heartpole-v0"
MAKERS = ("make", "gym.make", "sync", "async", "vector_entry_point")


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("limit", [7, 1200, -1, None])
def test_every_make_honours_max_episode_steps(maker, limit, gym_np_bool8):
    """The registered limit unless ``max_episode_steps`` is given; ``-1`` removes it (the legacy
    gym's make takes ``None`` for that)."""
    kwargs = {} if limit is None else {"max_episode_steps": limit}
    expected = {None: gymnasium.spec(LIMITED).max_episode_steps, -1: None}.get(limit, limit)
    if maker == "gym.make":
        gym = pytest.importorskip("gym")
        envs = gym.make(f"gym_suite:{LIMITED}", **({"max_episode_steps": None} if limit == -1 else kwargs))
        expected = expected or gymnasium.spec(LIMITED).max_episode_steps
    elif maker == "make":
        envs = gymnasium.make(LIMITED, **kwargs)
    else:
        envs = gymnasium.make_vec(LIMITED, num_envs=2, vectorization_mode=maker, **kwargs)
    action = 0 if maker.endswith("make") else np.zeros(2, dtype=np.int64)
    try:
        envs.reset(seed=0)
        first = None
        for step in range(1, 1300 + 1):
            _, _, terminated, truncated, _ = envs.step(action)
            assert not np.any(terminated)
            if np.any(truncated):
                assert np.all(truncated)
                first = step
                break
        assert first == expected
    finally:
        envs.close()


def test_evaluate_env_kwargs_reach_the_time_limit():
    result = gym_suite.evaluate(LIMITED, "heuristic", episodes=3, env_kwargs={"max_episode_steps": 12})
    assert result.lengths.tolist() == [12, 12, 12]


def test_goal_on_the_last_allowed_step_is_terminated_and_truncated_in_every_path():
    """TimeLimit reports truncated even when the last step also terminates; the native vector
    env says the same, and so does a SyncVectorEnv."""
    probe = gymnasium.make("example-v0")
    start, _ = probe.reset(seed=3)
    distance, action = abs(probe.unwrapped.goal - start), int(start < probe.unwrapped.goal)
    assert distance >= 2
    flags = {}
    for mode in ("make", "sync", "vector_entry_point"):
        if mode == "make":
            env = gymnasium.make("example-v0", max_episode_steps=distance)
        else:
            env = gymnasium.make_vec("example-v0", num_envs=1, vectorization_mode=mode, max_episode_steps=distance)
        env.reset(seed=3)
        for _ in range(distance):
            _, _, terminated, truncated, _ = env.step(action if mode == "make" else np.array([action]))
        flags[mode] = (bool(np.all(terminated)), bool(np.all(truncated)))
    assert flags == dict.fromkeys(flags, (True, True)), flags


# ------------------------------------------------------- the native vector env follows the scalar env


def _close(a, b) -> bool:
    """Equal through dicts and tuples, floats within a relative 1e-12 (np.exp and math.exp may differ in the last bit)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return a.shape == b.shape and np.allclose(a, b, rtol=1e-12, atol=0.0)
    return bool(np.array_equal(a, b))


def _first_row(obs, reward, terminated, truncated, info):
    """Row 0 of a vector step as a scalar step: its info, the keys masked in for the row."""
    obs = {k: v[0] for k, v in obs.items()} if isinstance(obs, dict) else obs[0]
    info = {k: v[0] for k, v in info.items() if not k.startswith("_") and info[f"_{k}"][0]}
    return obs, float(reward[0]), bool(terminated[0]), bool(truncated[0]), info


def test_vector_of_one_follows_the_scalar_env(env_id):
    """num_envs=1 from the same seed: the same observations, rewards, flags and info over
    several episodes; after an episode's end, the vector env's next step is the new start."""
    scalar = gymnasium.make(env_id, max_episode_steps=30)
    vector = gymnasium.make_vec(env_id, num_envs=1, max_episode_steps=30)
    obs, info = scalar.reset(seed=5)
    v_obs, v_info = vector.reset(seed=5)
    assert _close((obs, 0.0, False, False, info), _first_row(v_obs, [0.0], [False], [False], v_info))
    scalar.action_space.seed(9)
    episodes = steps = 0
    while episodes < 3 or steps < 50:
        action = scalar.action_space.sample()
        out = scalar.step(action)
        steps += 1
        assert _close(out, _first_row(*vector.step(np.asarray([action])))), (steps, out)
        if out[2] or out[3]:
            episodes += 1
            obs, info = scalar.reset()
            restart = _first_row(*vector.step(np.asarray([scalar.action_space.sample()])))
            assert _close((obs, 0.0, False, False, info), restart), restart  # the new start's info, nothing stale
