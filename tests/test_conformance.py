"""The contract every row of ``gym_suite.specs()`` keeps: the suite's ids and the tiny coin of ``tests/coin_env.py``,
registered as another package would (``HYPOTHESIS_PROFILE=long`` runs many more examples)."""

from __future__ import annotations

import inspect
import math
import pickle
import re
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from coin_env import COIN_ID
from conftest import ALL_IDS, DOCUMENTED_ERRORS, MESSAGE_LIMIT, invalid_action, load_hypothesis_profile, rollout, same
from gymnasium import spaces
from gymnasium.envs.registration import load_env_creator
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from gymnasium.vector import AutoresetMode
from hypothesis import example, given, settings
from hypothesis import strategies as st

import gym_suite
from gym_suite import _gym
from gym_suite._registry import jax_id
from gym_suite.envs._shells import MAX_NUM_ENVS
from gym_suite.envs.argument_values import argument_values
from gym_suite.envs.definition import NUMPY, SCALAR, Definition

load_hypothesis_profile()

CONTRACT_IDS = [*ALL_IDS, COIN_ID]


def creator(env_id: str, vector: bool = False):
    spec = gymnasium.spec(env_id)
    return load_env_creator(spec.vector_entry_point if vector else spec.entry_point)


def assert_same_steps(env, other, seed: int, steps: int) -> None:
    """The same steps on ``steps`` random actions (seeded ``seed``), and the same start after an episode's end."""
    env.action_space.seed(seed)
    for _ in range(steps):
        action = env.action_space.sample()
        a, b = env.step(action), other.step(action)
        assert same(a[:4], b[:4])
        if a[2] or a[3]:
            assert same(env.reset()[0], other.reset()[0])


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
            warnings.simplefilter("error")  # any complaint fails, but advice on bounds the specifications fix
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
    assert_same_steps(env, pickle.loads(pickle.dumps(env)), seed, 15)


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


INVALID_ACTIONS = st.one_of(
    st.integers(-(10**6), -1), st.integers(4, 10**18), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30), st.none(), st.lists(st.floats(), min_size=3, max_size=50), st.just([]), st.booleans(),
    st.sampled_from([[math.nan, 1.0], [1.0, math.inf], {"x": 1}]),
)  # fmt: skip


@given(action=INVALID_ACTIONS)
@example(action=[1] * 10**6)
def test_a_rejected_action_names_the_action_and_changes_nothing(env_id, action):
    env, reference = gymnasium.make(env_id, disable_env_checker=True), gymnasium.make(env_id)
    for e in (env, reference):
        e.reset(seed=4)
    space = env.action_space
    for bad in (invalid_action(space), action):
        if isinstance(space, spaces.Box) and isinstance(bad, list) and len(bad) == 2:
            if all(isinstance(v, float) and math.isfinite(v) for v in bad):
                continue  # a finite point: valid (clipped to the field)
        with pytest.raises(DOCUMENTED_ERRORS, match="(?i)action") as err:
            env.step(bad)
        assert len(str(err.value)) < MESSAGE_LIMIT
    assert_same_steps(reference, env, 4, 5)


def test_a_step_before_reset_or_after_the_end_needs_a_reset(env_id):
    env = gymnasium.make(env_id, max_episode_steps=-1).unwrapped
    with pytest.raises(ResetNeeded, match="reset"):
        env.step(env.action_space.sample())
    obs, _ = env.reset(seed=0)  # a reset makes it usable
    for _ in range(1000):
        obs, _, terminated, truncated, _ = env.step(env.heuristic(obs))
        if terminated or truncated:
            with pytest.raises(ResetNeeded, match="reset"):
                env.step(env.action_space.sample())
            break
    else:  # the rules end no episode of it by themselves
        assert type(env.definition).terminal is Definition.terminal, env_id


def test_a_rejected_reset_names_the_argument_and_changes_nothing(env_id):
    env, reference = gymnasium.make(env_id), gymnasium.make(env_id)
    env.reset(seed=1), reference.reset(seed=1)
    assert_same_steps(env, reference, 2, 1)
    bad_resets = [({"seed": 999, "options": {"no_such_option": 1}}, "option"), ({"seed": -3}, "seed")]
    for bad, named in [*bad_resets, ({"seed": 1.5}, "seed"), ({"options": ["x"]}, "option")]:
        with pytest.raises(DOCUMENTED_ERRORS, match=named):
            env.reset(**bad)
    assert_same_steps(env, reference, 3, 5)


def test_vector_seeds(env_id):
    envs = gymnasium.make_vec(env_id, num_envs=3)
    words = "seed must be None, a non-negative integer or a list of 3"
    bad = [(s, TypeError, words) for s in ({0: 1, 1: 2}, {1, 2}, "12", b"12", np.zeros((3, 1), dtype=int), 1.5, True)]
    for seed, error, match in [*bad, ([1, 2], ValueError, "3 seeds"), ([1, -2, 3], ValueError, "seed")]:
        with pytest.raises(error, match=match):
            envs.reset(seed=seed)
    assert same(envs.reset(seed=[1, 2, 3])[0], envs.reset(seed=[1, 2, 3])[0])
    envs.reset(seed=[None, 2, None])  # Gymnasium's vector API allows None entries
    envs.step(envs.action_space.sample())


def test_arguments_are_declared_once_in_a_typed_signature(env_id):
    """Typed keywords, the Arguments table lists exactly them, an ``env_config`` is taken, bad names are refused."""
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
    with pytest.raises(ValueError, match="render_mode"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # gymnasium.make itself only warns about the mode
        gymnasium.make(env_id, render_mode="hologram")
    # an unknown keyword on every constructor path: a TypeError worded as Python words it (what TorchRL's GymEnv
    # looks for before it drops its frameskip), then the allowed ones (all of them on the suite's paths)
    make_vector, bad = creator(env_id, vector=True), {"frameskip": 1}
    paths = [lambda: make(**bad), lambda: make(bad), lambda: make_vector(2, **bad), lambda: make_vector(2, bad),
             lambda: gymnasium.make(env_id, **bad), lambda: gymnasium.make_vec(env_id, num_envs=2, **bad),
             lambda: gymnasium.make_vec(env_id, num_envs=2, vectorization_mode="sync", **bad)]  # fmt: skip
    suite_paths = len(paths)
    try:
        import gym_suite.jax as gsj
    except ImportError:  # no JAX: the suite's paths only
        gsj = None
    if gsj is not None:
        paths += [lambda: gsj.make(env_id, **bad), lambda: gymnasium.make(jax_id(env_id), **bad),
                  lambda: gymnasium.make_vec(jax_id(env_id), num_envs=2, **bad)]  # fmt: skip
    words = r"Env\.__init__\(\) got an unexpected keyword argument 'frameskip'; allowed"
    for i, path in enumerate(paths):
        with pytest.raises(TypeError, match=words) as err:
            path()
        assert i >= suite_paths or all(name in str(err.value) for name in params), (i, str(err.value))
    with pytest.raises(TypeError, match=r"got unexpected keyword arguments 'bogus', 'frameskip'; allowed"):
        make(frameskip=1, bogus=2)


def test_every_odd_argument_value_is_refused_by_name_or_runs(env_id):
    """Every value of ``argument_values`` for each argument: an error naming an argument, or an env that runs."""
    make = creator(env_id)
    names = [n for n in inspect.signature(make).parameters if n not in ("env_config", "render_mode")]
    base = make().params
    for name in names:
        for value in argument_values(getattr(base, name)):
            try:
                env = make(**{name: value})
            except (*DOCUMENTED_ERRORS, FileNotFoundError) as err:
                assert len(str(err)) < MESSAGE_LIMIT
                assert any(n in str(err) for n in names), (name, value, str(err))
                continue
            env.reset(seed=0)
            env.step(env.action_space.sample())


HUGE = st.one_of(st.integers(2**63, 2**5000), st.integers(-(2**5000), -(2**63)))  # past what a float holds
MANY = st.one_of(st.integers(2**24 + 1, 2**64), st.integers(2**64, 2**5000), st.sampled_from([np.int64(2**40)]))


@given(HUGE, MANY, st.booleans())
def test_huge_integers_are_short_errors_naming_the_argument(env_id, value, num_envs, through_jax):
    """An argument past a float: out of range, not an OverflowError; ``num_envs`` past ``MAX_NUM_ENVS`` (2**24): a
    ValueError, not a MemoryError; on numpy and through the JAX env."""
    make = creator(env_id)
    names = [n for n in inspect.signature(make).parameters if n != "env_config"]
    if through_jax:
        gsj = pytest.importorskip("gym_suite.jax")
        make = lambda **kwargs: gsj.make(env_id, **kwargs)  # noqa: E731
    for name in names:
        with pytest.raises(DOCUMENTED_ERRORS) as err:
            make(**{name: value})
        assert len(str(err.value)) < MESSAGE_LIMIT and name in str(err.value), (name, str(err.value))
    assert MAX_NUM_ENVS == 2**24
    with pytest.raises(ValueError, match="num_envs") as err:
        gymnasium.make_vec(jax_id(env_id) if through_jax else env_id, num_envs=num_envs)
    assert len(str(err.value)) < MESSAGE_LIMIT


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
    shape = (5,) + envs.single_action_space.shape  # a ragged or misshapen batch: the expected shape named
    ragged = [[1.0, 2.0], [3.0], [4.0, 5.0], [1.0, 2.0], [1.0, 2.0]] if shape == (5, 2) else [[1], 0, [1, 0], 0, 0]
    for bad in (ragged, np.zeros((2,) + shape[1:], dtype=envs.action_space.dtype)):
        with pytest.raises(ValueError, match=re.escape(str(shape))):
            envs.step(bad)


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
    assert_same_steps(ref, env, 3, 20)


IMPORT_ORDERS = {
    "gym first": "import gym; import gym_suite",
    "gym_suite first": "import gym_suite; import gym",
    "gym only": "import gym",
}


@pytest.mark.parametrize("order", list(IMPORT_ORDERS))
def test_gym_registration_in_any_import_order(order):
    """Every id runs in a fresh process; the tutorials' ``HeartPole-v0`` is refused naming the suite's id."""
    pytest.importorskip("gym")
    name = "'gym_suite:' + i" if order == "gym only" else "i"
    code = f"{IMPORT_ORDERS[order]}\nfor i in {ALL_IDS!r}:\n    env = gym.make({name})\n    env.reset(seed=0)\n"
    code += f"    env.step(env.action_space.sample())\nprint('ok', {len(ALL_IDS)})\n"
    code += "try:\n    gym.make('HeartPole-v0')\nexcept gym.error.Error as exc:\n    print(exc)\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[0] == f"ok {len(ALL_IDS)}" and "gym_suite:heartpole-v0" in out.stdout
    assert "could not register" not in out.stderr


def test_space_conversion_covers_every_kind():
    gs, ns = pytest.importorskip("gym.spaces"), spaces
    box, tuple_ = ns.Box(-1.0, 2.0, shape=(3,), dtype=np.float32), ns.Tuple((ns.Discrete(2), ns.Box(0, 1, shape=(2,))))
    space = ns.Dict(box=box, discrete=ns.Discrete(4, start=2), binary=ns.MultiBinary(5), multi=ns.MultiDiscrete([3, 4]),
                    tuple=tuple_)  # fmt: skip
    converted = _gym.convert_space(space)
    assert isinstance(converted, gs.Dict) and isinstance(converted["tuple"], gs.Tuple) and converted["tuple"][0].n == 2
    box = converted["box"]
    assert isinstance(box, gs.Box) and box.dtype == np.float32 and np.array_equal(box.high, space["box"].high)
    assert (converted["discrete"].n, converted["discrete"].start, converted["binary"].n) == (4, 2, 5)
    assert np.array_equal(converted["multi"].nvec, [3, 4])
    converted.seed(0)
    for _ in range(20):  # samples of the converted space are members of the original one
        sample = converted.sample()
        sample["tuple"] = tuple(sample["tuple"])
        assert space.contains(sample)
    with pytest.raises(TypeError, match="Box, Discrete"):
        _gym.convert_space(ns.Text(5))


def test_plugin_never_raises_when_registration_fails(monkeypatch):
    pytest.importorskip("gym")
    import gym.envs.registration as registration

    def broken(**kwargs):
        raise RuntimeError("registry is broken")

    for env_id in ALL_IDS:
        monkeypatch.delitem(registration.registry, env_id, raising=False)
    monkeypatch.setattr(registration, "register", broken)
    with pytest.warns(UserWarning, match="could not register"):
        _gym.register_gym()


LIMITED = "heartpole-v0"  # never terminates: every episode length is the step limit's
MAKERS = ("make", "gym.make", "sync", "async", "vector_entry_point")


@pytest.mark.parametrize("maker", MAKERS)
@pytest.mark.parametrize("limit", [7, 1200, -1, None])
def test_every_make_honours_max_episode_steps(maker, limit, gym_np_bool8):
    """The registered limit unless ``max_episode_steps`` is given; ``-1`` removes it (the legacy gym's: ``None``)."""
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

    def truncated(out):
        assert not np.any(out[2]) and np.all(out[3]) == np.any(out[3])
        return np.any(out[3])

    envs.reset(seed=0)
    first = next((step for step in range(1, 1301) if truncated(envs.step(action))), None)
    envs.close()
    assert first == expected


def test_evaluate_env_kwargs_reach_the_time_limit():
    result = gym_suite.evaluate(LIMITED, "heuristic", episodes=3, env_kwargs={"max_episode_steps": 12})
    assert result.lengths.tolist() == [12, 12, 12]


def test_goal_on_the_last_allowed_step_is_terminated_and_truncated_in_every_path():
    """TimeLimit reports truncated even when the last step also terminates; so do the native and sync vector envs."""
    probe = gymnasium.make("example-v0")
    start, _ = probe.reset(seed=3)
    distance, action = abs(probe.unwrapped.goal - start), int(start < probe.unwrapped.goal)
    assert distance >= 2
    flags = {}
    for mode in ("make", "sync", "vector_entry_point"):
        vector = {} if mode == "make" else {"num_envs": 1, "vectorization_mode": mode}
        env = (gymnasium.make_vec if vector else gymnasium.make)("example-v0", max_episode_steps=distance, **vector)
        env.reset(seed=3)
        for _ in range(distance):
            _, _, terminated, truncated, _ = env.step(np.array([action]) if vector else action)
        flags[mode] = (bool(np.all(terminated)), bool(np.all(truncated)))
    assert flags == dict.fromkeys(flags, (True, True)), flags


def _close(a, b) -> bool:
    return same(a, b, rtol=1e-12)  # np.exp and math.exp may differ in the last bit


def _first_row(obs, reward, terminated, truncated, info):
    """Row 0 of a vector step as a scalar step: its info, the keys masked in for the row."""
    obs = {k: v[0] for k, v in obs.items()} if isinstance(obs, dict) else obs[0]
    info = {k: v[0] for k, v in info.items() if not k.startswith("_") and info[f"_{k}"][0]}
    return obs, float(reward[0]), bool(terminated[0]), bool(truncated[0]), info


def test_vector_of_one_follows_the_scalar_env(env_id):
    """num_envs=1 from one seed: the same steps and info over episodes; after an end, the next step is the start."""
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


def test_a_vector_of_two_parts_from_the_scalar_env():
    """``num_envs=1`` replays the scalar env (above); with two rows on one stream row 0 parts from it."""
    scalar, vector = gymnasium.make("heartpole-v1"), gymnasium.make_vec("heartpole-v1", num_envs=2)
    scalar.reset(seed=5), vector.reset(seed=5)
    steps = [(scalar.step(1)[0], vector.step(np.ones(2, dtype=np.int64))[0][0]) for _ in range(10)]
    assert not all(np.allclose(a, b) for a, b in steps)


def test_native_vector_env_has_the_info_keys_of_sync_on_every_step(env_id):
    """The info's key set every step, rows ending each step or (heartpole-v0) running on; values differ by design."""
    limits = (1, 3) if env_id == "heartpole-v0" else (1,)
    for limit in limits:
        native, sync = (
            gymnasium.make_vec(env_id, num_envs=3, vectorization_mode=mode, max_episode_steps=limit)
            for mode in ("vector_entry_point", "sync")
        )
        native.action_space.seed(5)
        info_n, info_s = native.reset(seed=[1, 2, 3])[1], sync.reset(seed=[1, 2, 3])[1]
        assert set(info_n) == set(info_s)
        for step in range(6):
            actions = native.action_space.sample()
            out_n, out_s = native.step(actions), sync.step(actions)
            assert set(out_n[4]) == set(out_s[4]), (limit, step)
            masks = [{k: v for k, v in out[4].items() if k.startswith("_")} for out in (out_n, out_s)]
            assert same(out_n[3], out_s[3]) and same(*masks), (limit, step)


def _returned_arrays(observation, reward, terminated, truncated, info):
    arrays = list(observation.values()) if isinstance(observation, dict) else [observation]
    return arrays + [reward, terminated, truncated] + [v for v in info.values() if isinstance(v, np.ndarray)]


def _assert_equal(xs, ys):  # NaNs equal
    assert len(xs) == len(ys)
    for x, y in zip(xs, ys):
        np.testing.assert_array_equal(x, y)


def _scribble(array):
    """Overwrite ``array`` in place with values of its dtype that no step returns."""
    array[...] = "scribbled" if array.dtype == object else ~array if array.dtype == bool else 7


@pytest.mark.parametrize("reuse_rows", [1, None])
def test_native_vector_step_shares_no_memory_with_the_caller(env_id, reuse_rows):
    """A step's arrays are the caller's: no shared memory, scribbling changes nothing next (a twin left alone), a state
    read before a step is kept, whether an autoreset copies or reuses rows (``REUSE_ROWS``, a big batch's way)."""
    kwargs = {"episode_length": 3} if env_id == "push-v0" else {}  # rows end often (and at 4 steps): starts mix in
    kwargs.update(vectorization_mode="vector_entry_point", max_episode_steps=4)
    envs = [gymnasium.make_vec(env_id, num_envs=5, **kwargs) for _ in range(2)]
    for env in envs:
        if reuse_rows is not None:
            env.unwrapped.REUSE_ROWS = reuse_rows
        env.reset(seed=11)
    envs[0].action_space.seed(3)
    restarts = 0
    for step in range(12):
        actions = envs[0].action_space.sample()
        held = envs[1].unwrapped.state
        copies = [np.array(q) for q in held]
        restarts += int(envs[1].unwrapped._prev_done.sum())
        scribbled, kept = (env.step(actions) for env in envs)
        _assert_equal(held, copies)  # a state read before the step is kept
        arrays, expected = _returned_arrays(*scribbled), [a.copy() for a in _returned_arrays(*kept)]
        quantities = [q for q in envs[0].unwrapped.state if isinstance(q, np.ndarray)]
        assert not any(np.shares_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1 :] + quantities), step
        _assert_equal(arrays, expected)
        for a in arrays:
            _scribble(a)
        _assert_equal(_returned_arrays(*kept), expected)  # the twin's arrays were not touched either
    assert restarts


def test_starts_are_the_same_on_floats_and_arrays(env_id):
    """A few rows start on Python numbers, more on arrays (``SCALAR_START_ROWS``): the same bits both ways; eight rows
    restarted together and one after the other take the same draws and state."""
    together, apart = (
        gymnasium.make_vec(env_id, num_envs=8, vectorization_mode="vector_entry_point").unwrapped for _ in range(2)
    )
    d, params, draws = together.definition, together.params, together._start_draws
    u = np.random.default_rng(0).random((300, draws))
    u[:3] = np.array([0.0, 0.5, np.nextafter(1.0, 0.0)])[:, None]  # the ends of the range, the middle
    batch = d.initial(u.T if draws else (), params, NUMPY)
    for i, row in enumerate(u.tolist()):
        one = d.initial(row if draws else (), params, SCALAR)
        for name, value, column in zip(batch._fields, one, batch):
            got, want = np.asarray(value), np.broadcast_to(column, (300,))[i]
            assert got.dtype.kind == want.dtype.kind or {got.dtype.kind, want.dtype.kind} <= {"i", "u"}, name
            np.testing.assert_array_equal(got, want, err_msg=f"{env_id} row {i}: {name}")
    for envs in (together, apart):
        envs.reset(seed=4)
    assert 8 > together.SCALAR_START_ROWS
    together.restart(np.ones(8, dtype=bool))
    for i in range(8):
        apart.restart(np.arange(8) == i)
    for name, a, b in zip(together.state._fields, together.state, apart.state):
        assert np.asarray(a).dtype == np.asarray(b).dtype, name
        np.testing.assert_array_equal(a, b, err_msg=f"{env_id}: {name}")
