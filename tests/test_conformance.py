"""The contract every registered environment keeps, parametrized over ``gym_suite.SPECS``."""

from __future__ import annotations

import pickle
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from gymnasium.vector import AutoresetMode

import gym_suite
from conftest import ALL_IDS, invalid_action, rollout


def trajectories_equal(a, b) -> bool:
    return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))


def _equal(x, y) -> bool:
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(_equal(x[k], y[k]) for k in x)
    if isinstance(x, (tuple, list)):
        return isinstance(y, (tuple, list)) and len(x) == len(y) and all(_equal(p, q) for p, q in zip(x, y))
    return bool(np.array_equal(np.asarray(x), np.asarray(y)))


@pytest.fixture(params=ALL_IDS)
def env_id(request):
    return request.param


def test_ids_follow_name_version(env_id):
    assert gymnasium.spec(env_id).version == 0
    assert gymnasium.make(f"gym_suite:{env_id}").spec.id == env_id


def test_gymnasium_check_env(env_id):
    env = gymnasium.make(env_id)
    for mode in [None] + [m for m in env.unwrapped.metadata["render_modes"] if m != "human"]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # any complaint of the checker fails the test ...
            # ... but its advice on space bounds, which the environments' specifications fix on purpose
            # (heartpole's unbounded quantities, target's action in field coordinates)
            for advice in ("observation space m.* is (-)?infinity", "symmetric and normalized"):
                warnings.filterwarnings("ignore", message=f".*{advice}")
            gymnasium_check_env(gymnasium.make(env_id, render_mode=mode).unwrapped, skip_render_check=mode is None)


def test_stable_baselines3_check_env(env_id):
    from stable_baselines3.common.env_checker import check_env

    check_env(gymnasium.make(env_id).unwrapped, warn=False)


def test_registered_time_limit_and_step_types(env_id):
    spec = gymnasium.spec(env_id)
    env = gymnasium.make(env_id)
    obs, info = env.reset(seed=3)
    assert isinstance(info, dict)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert type(terminated) is bool and type(truncated) is bool
    assert isinstance(reward, float)
    assert isinstance(info, dict)
    _, _, _, _, info2 = env.step(env.action_space.sample()) if not (terminated or truncated) else (0, 0, 0, 0, {})
    assert info2 is not info
    row = next(s for s in gym_suite.SPECS if s.id == env_id)
    assert spec.max_episode_steps == row.max_episode_steps


def test_same_seed_same_trajectory_and_seeds_differ(env_id):
    first = rollout(gymnasium.make(env_id), seed=7, steps=60)
    again = rollout(gymnasium.make(env_id), seed=7, steps=60)
    assert trajectories_equal(first, again)
    others = [rollout(gymnasium.make(env_id), seed=s, steps=60, action_seed=7) for s in range(8, 16)]
    assert not all(trajectories_equal(first, other) for other in others)


def test_pickle_round_trip_mid_episode(env_id):
    env = gymnasium.make(env_id)
    env.reset(seed=11)
    env.action_space.seed(11)
    for _ in range(3):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            env.reset()
    copy = pickle.loads(pickle.dumps(env))
    actions = [env.action_space.sample() for _ in range(20)]
    for action in actions:
        a = env.step(action)
        b = copy.step(action)
        assert _equal(a[:4], b[:4])
        if a[2] or a[3]:
            assert _equal(env.reset()[0], copy.reset()[0])


def test_ten_thousand_random_steps_stay_in_space(env_id):
    env = gymnasium.make(env_id)
    space = env.observation_space
    obs, _ = env.reset(seed=0)
    env.action_space.seed(0)
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error", RuntimeWarning)
        for _ in range(10_000):
            assert space.contains(obs), obs
            flat = gymnasium.spaces.flatten(space, obs)
            assert np.all(np.isfinite(flat))
            obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
            assert np.isfinite(reward)
            if terminated or truncated:
                obs, _ = env.reset()


def test_invalid_action_names_the_problem(env_id):
    env = gymnasium.make(env_id, disable_env_checker=True)
    env.reset(seed=0)
    with pytest.raises((ValueError, TypeError), match="(?i)action"):
        env.step(invalid_action(env.action_space))


def test_step_after_the_end_raises(env_id):
    env = gymnasium.make(env_id)
    with pytest.raises(ResetNeeded, match="reset"):
        env.unwrapped.step(env.action_space.sample())  # never reset
    env.reset(seed=0)
    env.action_space.seed(0)
    while True:
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            break
    with pytest.raises(ResetNeeded, match="reset"):
        env.step(env.action_space.sample())
    env.reset(seed=1)
    env.step(env.action_space.sample())  # a reset makes it usable again


def test_unknown_constructor_key_names_allowed_keys(env_id):
    allowed = sorted(gymnasium.spec(env_id).kwargs)  # every registered kwarg is allowed
    with pytest.raises(TypeError, match="bogus_key") as err:
        gymnasium.make(env_id, bogus_key=1)
    for name in allowed + ["render_mode"]:
        assert name in str(err.value)


def test_env_config_dict_is_accepted(env_id):
    creator = gymnasium.envs.registration.load_env_creator(gymnasium.spec(env_id).entry_point)
    env = creator({"render_mode": "ansi"})
    assert env.render_mode == "ansi"
    with pytest.raises(TypeError, match="allowed"):
        creator({"no_such_setting": 3})


def test_wrong_render_mode_raises(env_id):
    with pytest.raises(ValueError, match="render_mode"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium.make itself only warns about the mode
        gymnasium.make(env_id, render_mode="hologram")


def test_unknown_reset_option_raises(env_id):
    env = gymnasium.make(env_id)
    with pytest.raises(ValueError, match="option"):
        env.reset(seed=0, options={"no_such_option": 1})


def test_native_vector_env(env_id):
    envs = gymnasium.make_vec(env_id, num_envs=5)
    row = next(s for s in gym_suite.SPECS if s.id == env_id)
    assert f"{type(envs).__module__}:{type(envs).__name__}" == row.vector_entry_point
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    single = gymnasium.make(env_id)
    assert envs.single_observation_space == single.observation_space
    assert envs.single_action_space == single.action_space
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
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
    with pytest.raises(TypeError, match="allowed"):
        gymnasium.make_vec(env_id, num_envs=2, bogus_key=1)


def test_vector_env_seeding_is_reproducible(env_id):
    def run(seed):
        envs = gymnasium.make_vec(env_id, num_envs=4)
        obs, _ = envs.reset(seed=seed)
        envs.action_space.seed(0)
        out = [obs]
        for _ in range(30):
            out.append(envs.step(envs.action_space.sample())[:4])
        return out

    assert trajectories_equal(run(5), run(5))
    assert not trajectories_equal(run(5), run(6))


# ---------------------------------------------------------------------------- legacy gym


def test_gym_make_rollout_and_gym_check_env(env_id, gym_np_bool8):
    gym = pytest.importorskip("gym")
    from gym.utils.env_checker import check_env as gym_check_env

    env = gym.make(f"gym_suite:{env_id}")
    assert env.spec.max_episode_steps == gymnasium.spec(env_id).max_episode_steps
    obs, info = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    env.action_space.seed(4)
    for _ in range(50):
        obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
        assert env.observation_space.contains(obs)
        if terminated or truncated:
            obs, info = env.reset()
    gym_check_env(env.unwrapped, skip_render_check=True)
    # the same rules as gymnasium's: same seed, same actions, same trajectory
    ref = gymnasium.make(env_id)
    ref.reset(seed=9)
    env.reset(seed=9)
    ref.action_space.seed(3)
    for _ in range(20):
        action = ref.action_space.sample()
        a, b = ref.step(action), env.step(action)
        assert _equal(a[:4], b[:4])
        if a[2] or a[3]:
            assert _equal(ref.reset()[0], env.reset()[0])


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


def test_importing_gym_suite_does_not_import_gym():
    code = "import sys, gym_suite, gymnasium; gymnasium.make('example-v0'); print('gym' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


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
