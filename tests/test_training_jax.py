"""PPO compiled end to end on the JAX environments (gym_suite.training.jax): training, settings, draws."""

from __future__ import annotations

import math
import pickle
import subprocess
import sys
from decimal import Decimal

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gym_suite
from gym_suite.training.jax import (
    PPO_DEFAULTS,
    _make_adapters,
    _schedule,
    _seed_keys,
    ppo_budget,
    ppo_settings,
    train_ppo,
)

EPISODES = 300


def test_short_training_beats_random_with_a_curve_per_seed_and_policies_that_pickle():
    pytest.importorskip("rejax")
    result = train_ppo("example-v0", seed=2**63 - 1, num_seeds=2, total_timesteps=20_000, progress=False)
    random = gym_suite.evaluate("example-v0", "random", episodes=EPISODES)
    assert len(result.policies) == 2
    for policy in result.policies:  # on the numpy env
        trained = gym_suite.evaluate("example-v0", policy, episodes=EPISODES)
        gain, se = trained.paired_difference(random)
        assert gain > 3 * se and gain > 5.0, (trained.mean, random.mean)
    assert result.timesteps == 20_480  # rounded up to whole updates of 4 x 256 steps
    assert result.returns.shape == (2, len(result.steps))  # one row per seed, from step 0
    assert result.steps[0] == 0 and result.steps[-1] == result.timesteps
    assert np.all(np.isfinite(result.returns))
    assert result.returns[:, -1].mean() > result.returns[:, 0].mean()
    assert result.seeds == [2**63 - 1, 2**63] and result.compile_seconds > 0 and result.train_seconds > 0
    env = gymnasium.make("example-v0")
    obs, _ = env.reset(seed=3)
    action = result.policy(obs)
    assert env.action_space.contains(action)
    assert pickle.loads(pickle.dumps(result.policy))(obs) == action
    assert result.policy.act_batch([obs, obs]) == [action, action]


def test_settings_start_from_the_recipe_and_take_overrides():
    settings = ppo_settings("heartpole-v1", learning_rate=1e-4, agent_kwargs={"activation": "relu"})
    assert settings["num_envs"] == 8 and settings["gamma"] == 1.0 and settings["reward_scale"] == 0.01
    assert settings["learning_rate"] == 1e-4
    assert settings["agent_kwargs"] == {"hidden_layer_sizes": (32, 32), "activation": "relu"}
    assert ppo_settings("example-v0")["reward_scale"] == 1.0 and ppo_budget("heartpole-v1") == 1_200_000
    assert PPO_DEFAULTS["agent_kwargs"]["activation"] == "tanh"  # the defaults are left as they were
    assert "expected_penalty" not in ppo_settings("heartpole-v0")  # the env's expected_cost=True instead


@pytest.mark.parametrize(
    ("env_id", "kwargs", "error", "message"),
    [
        ("nope-v0", {}, ValueError, "env_id must be one of"),
        ("example-v0", {"seed": -1}, ValueError, "seed must be"),
        ("example-v0", {"num_seeds": 0}, ValueError, "num_seeds must be"),
        ("example-v0", {"total_timesteps": 0}, ValueError, "total_timesteps must be"),
        ("example-v0", {"num_seeds": 4097}, ValueError, "num_seeds must be an integer in 1..4,096"),
        ("example-v0", {"total_timesteps": 2**31 - 100}, ValueError, "rounds up to"),
        ("example-v0", {"learning_rat": 1e-3}, TypeError,
         r"unknown setting\(s\) \['learning_rat'\]; the settings are \['agent_kwargs'"),
        ("example-v0", {"gamma_": 0.9}, TypeError, "unknown setting"),
        ("example-v0", {"expected_penalty": None}, TypeError, "expected_cost"),
        ("example-v0", {"agent_kwargs": {"width": 3}}, TypeError, r"unknown agent_kwargs key\(s\) \['width'\]"),
        ("example-v0", {"num_envs": 0}, ValueError, "num_envs must be an integer in 1.."),
        ("example-v0", {"num_envs": 3, "num_steps": 5, "num_minibatches": 2}, ValueError, "multiple of num_minibatches"),
        ("example-v0", {"reward_scale": float("nan")}, ValueError, "reward_scale must be a finite number"),
        ("example-v0", {"reward_scale": 0}, ValueError, "reward_scale must be a finite number other than 0"),
        ("example-v0", {"agent_kwargs": {"activation": "softsign"}}, ValueError, "activation must be one of"),
        ("example-v0", {"eval_episodes": -1}, ValueError, "eval_episodes must be an integer in 0.."),
        ("target-v1", {"draw_params": "uniform"}, TypeError, "draw_params must be a function"),
    ],
)  # fmt: skip
def test_train_ppo_checks_its_arguments_before_compiling(env_id, kwargs, error, message):
    with pytest.raises(error, match=message):
        train_ppo(env_id, progress=False, **kwargs)


_NOT_NUMBERS = st.one_of(
    st.text(max_size=5), st.none(), st.booleans(), st.lists(st.floats(), max_size=2), st.just(Decimal("0.5"))
)
_HUGE = st.one_of(st.integers(2**1024, 2**2000), st.integers(-(2**2000), -(2**1024)))
_BAD = {
    # name: (wrong kinds, out of range, taken)
    "learning_rate": (_NOT_NUMBERS, st.one_of(st.floats(max_value=0.0), st.just(math.inf), _HUGE), st.just(1e-3)),
    "gamma": (_NOT_NUMBERS, st.one_of(st.floats(max_value=0.0), st.floats(min_value=1.0, exclude_min=True)), st.just(1)),
    "gae_lambda": (_NOT_NUMBERS, st.one_of(st.floats(max_value=-1e-9), st.floats(min_value=1.000001)), st.just(0)),
    "clip_eps": (_NOT_NUMBERS, st.one_of(st.floats(max_value=0.0), st.just(-math.inf), _HUGE), st.just(0.1)),
    "vf_coef": (_NOT_NUMBERS, st.one_of(st.floats(max_value=-1e-9), st.just(math.inf), st.just(1e39)), st.just(0)),
    "ent_coef": (_NOT_NUMBERS, st.one_of(st.floats(max_value=-1e-9), st.just(math.nan)), st.just(0.01)),
    "max_grad_norm": (_NOT_NUMBERS, st.one_of(st.floats(max_value=0.0), st.just(math.nan)), st.just(math.inf)),
    "reward_normalization_discount": (_NOT_NUMBERS, st.floats(min_value=1.0, exclude_min=True), st.just(0.9)),
    "reward_scale": (_NOT_NUMBERS, st.one_of(st.just(0), st.just(math.nan), st.just(1e39), _HUGE), st.just(-2)),
    "reward_offset": (_NOT_NUMBERS, st.one_of(st.just(math.inf), st.just(-1e39), _HUGE), st.just(-5)),
    "num_envs": (st.one_of(st.floats(), st.booleans(), st.text(max_size=3)), st.integers(max_value=0), st.just(2)),
    "num_epochs": (st.one_of(st.floats(), st.none()), st.one_of(st.integers(max_value=0), _HUGE), st.just(3)),
    "eval_episodes": (st.one_of(st.floats(), st.just("8")), st.integers(max_value=-1), st.just(0)),
    "eval_points": (st.one_of(st.floats(), st.none()), st.integers(2**31, 2**40), st.just(1)),
    "normalize_observations": (st.one_of(st.text(max_size=3), st.integers(), st.none()), st.nothing(), st.just(True)),
    "normalize_rewards": (st.one_of(st.floats(), st.none()), st.nothing(), st.just(np.bool_(False))),
    "anneal_lr": (st.one_of(st.text(max_size=3), st.just(1)), st.nothing(), st.just(True)),
    "env_kwargs": (st.one_of(st.text(max_size=3), st.lists(st.tuples(st.text(), st.integers())), st.just({1: 2})),
                   st.nothing(), st.just({})),
    "draw_params": (st.one_of(st.text(max_size=3), st.floats(), st.lists(st.integers(), max_size=2), st.just({})),
                    st.nothing(), st.just(lambda key, params: params)),
}  # fmt: skip


@given(st.sampled_from(sorted(_BAD)), st.data())
@settings(max_examples=60, deadline=None)
def test_every_setting_is_checked_by_name(name, data):
    """A value of the wrong kind is a TypeError, one out of range a ValueError, each naming the setting."""
    wrong_kinds, out_of_range, taken = _BAD[name]
    assert ppo_settings("example-v0", **{name: data.draw(taken)})[name] is not None
    kind = data.draw(st.sampled_from([TypeError, ValueError] if not out_of_range.is_empty else [TypeError]))
    value = data.draw(wrong_kinds if kind is TypeError else out_of_range)
    with pytest.raises(kind) as err:
        ppo_settings("example-v0", **{name: value})
    assert str(err.value).startswith(f"train_ppo: {name} must ") and len(str(err.value)) < 1000


@given(
    st.one_of(st.text(max_size=4), st.none(), st.lists(st.integers(-3, 0), min_size=1, max_size=2),
              st.lists(st.floats(1, 8), min_size=1, max_size=2), st.just(()), st.just((True,)), st.just((2**20,)))
)  # fmt: skip
@settings(max_examples=30, deadline=None)
def test_hidden_layer_sizes_are_positive_integers(sizes):
    with pytest.raises((TypeError, ValueError), match="train_ppo: agent_kwargs hidden_layer_sizes must be"):
        ppo_settings("example-v0", agent_kwargs={"hidden_layer_sizes": sizes})


_NOTHING_IMPORTED = """
import sys
from decimal import Decimal
from gym_suite.training.jax import train_ppo

CASES = [
    {"learning_rate": "fast"}, {"gamma": float("nan")}, {"agent_kwargs": {"hidden_layer_sizes": (0,)}},
    {"agent_kwargs": {"hidden_layer_sizes": "big"}}, {"agent_kwargs": {"hidden_layer_sizes": (-4,)}},
    {"agent_kwargs": {"hidden_layer_sizes": None}}, {"gamma": "0.99"}, {"clip_eps": None}, {"vf_coef": [0.5]},
    {"learning_rate": -1}, {"learning_rate": None}, {"normalize_observations": "no"}, {"seed": 2**63, "gamma": 0},
    {"reward_scale": 2**1100}, {"num_seeds": 10**12}, {"learning_rat": 1e-3}, {"env_kwargs": {"lf_min": -1}},
    {"total_timesteps": 2**40}, {"keep_checkpoints": "yes"}, {"gae_lambda": Decimal("0.9")},
    {"draw_params": 1.5},
]
for case in CASES:
    try:
        train_ppo("example-v0", total_timesteps=1024, eval_episodes=0, progress=False, **case)
    except (TypeError, ValueError) as exc:
        assert len(str(exc)) < 1000, exc
    else:
        raise SystemExit(f"accepted: {case}")
imported = sorted(m for m in ("jax", "jaxlib", "rejax", "gymnax", "flax", "optax") if m in sys.modules)
assert not imported, f"imported before refusing a setting: {imported}"
print("ok", len(CASES))
"""


def test_bad_settings_raise_before_jax_is_imported():
    """In a fresh interpreter, refusing each case leaves jax, rejax, gymnax, flax and optax unimported."""
    done = subprocess.run([sys.executable, "-c", _NOTHING_IMPORTED], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.startswith("ok 21"), done.stderr[-2000:]


def test_seed_keys_are_prngkeys_below_2_32_and_distinct_above():
    jax = pytest.importorskip("jax")
    keys = _seed_keys(5, 3)
    assert keys.dtype == np.uint32 and keys.shape == (3, 2)
    assert np.array_equal(keys, np.stack([np.asarray(jax.random.PRNGKey(s)) for s in (5, 6, 7)]))
    big = np.concatenate([_seed_keys(2**32 + 5, 1), _seed_keys(2**64 - 2, 4), _seed_keys(10**30, 2), keys])
    assert len({tuple(k) for k in big}) == len(big)
    assert np.array_equal(_seed_keys(2**64 - 2, 4)[2:], _seed_keys(2**64, 2))  # seed + i: the same key either way


def test_the_schedule_rounds_the_budget_up_to_whole_updates_as_little_as_it_can():
    eval_freq, evaluations = _schedule(1_500_000, 4096, 20)
    assert eval_freq % 4096 == 0
    assert 1_500_000 <= eval_freq * evaluations < 1_500_000 + 2 * 4096
    assert _schedule(20_000, 1024, 20) == (1024, 20)


def test_heartpole_v0_trains_on_the_envs_expected_cost_and_is_scored_on_its_own_rewards():
    pytest.importorskip("rejax")
    train_env, _, eval_env, _ = _make_adapters("heartpole-v0", ppo_settings("heartpole-v0"))
    assert train_env.env.definition_params.expected_cost  # the recipe's training env argument
    assert not eval_env.env.definition_params.expected_cost  # the env's own rewards: drawn attacks
    settings = ppo_settings("heartpole-v0", env_kwargs={"expected_cost": False})
    assert not _make_adapters("heartpole-v0", settings)[0].env.definition_params.expected_cost


def test_checkpoints_are_the_policies_at_each_evaluation_and_the_curve_has_its_times():
    pytest.importorskip("rejax")
    result = train_ppo(
        "example-v0", num_seeds=2, total_timesteps=4096, eval_points=2, keep_checkpoints=True, progress=False
    )
    assert len(result.checkpoints) == len(result.steps) == 3 and all(len(c) == 2 for c in result.checkpoints)
    env = gymnasium.make("example-v0")
    observations = [env.reset(seed=s)[0] for s in range(11)] + list(range(11))
    for last, final in zip(result.checkpoints[-1], result.policies):
        assert last.act_batch(observations) == final.act_batch(observations)  # the last checkpoint is the end
    assert np.all(np.diff(result.curve_seconds) > 0) and result.curve_seconds[-1] <= result.train_seconds


def test_the_jax_vs_sb3_benchmark_reports_the_ratios_and_draws_the_curves(tmp_path, monkeypatch):
    """gym-suite/benchmarks/train_jax_vs_sb3.py's report and picture of a saved run."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "gym-suite" / "benchmarks" / "train_jax_vs_sb3.py"
    monkeypatch.syspath_prepend(str(path.parent))  # its folder's helper (_machine), as when it runs
    spec = importlib.util.spec_from_file_location("train_jax_vs_sb3", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)

    def points(seconds, means):
        return [{"steps": 1000 * i, "seconds": s, "mean": m} for i, (s, m) in enumerate(zip(seconds, means))]

    load = "1.00/1.00/1.00"
    out = {
        "id": "heartpole-v1", "budget": 2000, "target": 450.0, "seeds": [0, 1], "episodes": 1000, "curve_episodes": 100,
        "sb3_overrides": {"gamma": 1.0}, "sb3_truncation_is_terminal": True, "load_start": load,
        "load_after_training": load, "load_end": load, "wall_seconds": 60.0, "date": "2026-01-01T00:00:00+0000",
        "machine": "x86_64 (2 cores)",
        "jax": [{"seed": s, "steps": 2000, "compile": 10.0, "train": 10.0, "wall": 20.0, "final": (451.0, 10.0),
                 "points": points([10.0, 14.0, 20.0], [-50.0, 452.0, 451.0])} for s in (0, 1)],
        "sb3": [{"seed": s, "steps": 2000, "wall": 200.0, "final": (450.5, 11.0),
                 "points": points([0.0, 100.0, 200.0], [-50.0, 300.0, 450.5])} for s in (0, 1)],
        "jax_vmapped": {"seeds": list(range(8)), "steps": 2000, "compile": 12.0, "train": 68.0, "wall": 80.0,
                        "load": load, "finals": [449.0, 455.0]},
    }  # fmt: skip
    text = bench.report(out)
    assert "SB3 / JAX = 10.0x" in text  # the whole budget: 200 s against 20 s
    assert "JAX 14.0 s (2/2 seeds), SB3 200.0 s (2/2 seeds): SB3 / JAX = 14.3x" in text  # to the target
    assert "8 JAX seeds in one vmapped run: 80.0 s" in text
    png = tmp_path / "curve.png"
    bench.plot(out, str(png))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_progress_is_reported_at_each_evaluation_between_the_compiled_programs(monkeypatch, capsys):
    pytest.importorskip("rejax")
    monkeypatch.setenv("GYM_SUITE_PROGRESS_INTERVAL", "0")  # off a terminal: a line at every update
    result = train_ppo("example-v0", total_timesteps=2048, eval_points=2, eval_episodes=0, progress=True)
    assert np.all(np.isnan(result.returns)) and result.checkpoints is None  # no episodes, no checkpoints kept
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "JAX PPO example-v0: compiling 1 seed(s) x 2,048 steps ..."
    counts = [line.split(": ")[1].split(" ")[0] for line in lines[1:-1] if " steps (" in line]  # one each evaluation
    assert list(dict.fromkeys(counts)) == [f"{s:,}/2,048" for s in result.steps[1:]], lines
    assert lines[-1].startswith("JAX PPO example-v0: 1 seed(s) x 2,048 steps in ") and "s compiling" in lines[-1]


#: target-v1's recipe cut to a few small updates (the draw's tests check the wiring, not learning)
_TINY = dict(num_envs=4, num_steps=64, num_minibatches=4, num_epochs=2, eval_episodes=0, eval_points=1,
             total_timesteps=512, progress=False)  # fmt: skip


def _uniform_speed(key, params):
    import jax

    return params.replace(target_speed=jax.random.uniform(key, minval=0.5, maxval=2.0))


def test_a_function_in_the_settings_keys_no_run():
    from gym_suite.training.recipes import settings_digest
    from gym_suite.training.resolved import resolved_training

    with pytest.raises(TypeError, match="repr names a memory address.*draw_params"):
        settings_digest({"settings": ppo_settings("target-v1", draw_params=_uniform_speed)})
    assert ppo_settings("target-v1", draw_params=_uniform_speed)["draw_params"] is _uniform_speed
    resolved = resolved_training("target-v1", "jax-ppo")  # it raises where the default is not None
    assert "draw_params" not in resolved["settings"] and resolved["settings"]["num_envs"] == 32


def test_the_draw_wraps_the_training_env_below_the_adapters_and_the_evaluation_env_never_draws():
    pytest.importorskip("rejax")
    from gym_suite.jax_wrappers import DrawnParams, FiveValueStep, RescaleAction, TransformReward, Wrapper

    def chain(env):
        kinds = []
        while isinstance(env, Wrapper):
            kinds.append(type(env))
            env = env.env
        return kinds

    settings = ppo_settings("target-v1", draw_params=_uniform_speed)
    train_env, params, eval_env, eval_params = _make_adapters("target-v1", settings)
    assert chain(train_env) == [FiveValueStep, TransformReward, DrawnParams]  # actions in [-1, 1] already
    assert train_env.unwrapped is eval_env.unwrapped  # one env: the evaluation's has no draw around it
    assert chain(eval_env) == [FiveValueStep]  # the curve plays the id's params
    assert params.target_speed == eval_params.target_speed == 1.5
    plain = _make_adapters("target-v1", ppo_settings("target-v1"))[0]
    assert chain(plain) == [FiveValueStep, TransformReward]  # target-v0: in its field's units, rescaled above the draw
    settings = ppo_settings("target-v0", draw_params=lambda key, p: p)
    assert chain(_make_adapters("target-v0", settings)[0]) == [FiveValueStep, RescaleAction, DrawnParams]


def test_a_draw_pinning_the_speed_trains_as_the_env_made_at_that_speed():
    """A draw setting target_speed to 0.5 trains the weights of the env made at 0.5 (with an identity draw)."""
    pytest.importorskip("rejax")
    pinned = train_ppo("target-v1", draw_params=lambda key, p: p.replace(target_speed=0.5), **_TINY)
    made = train_ppo("target-v1", env_kwargs={"target_speed": 0.5}, draw_params=lambda key, p: p, **_TINY)
    assert len(pinned.policies) == 1 and pinned.timesteps == 512 and callable(pinned.settings["draw_params"])
    for (w, b), (w2, b2) in zip(pinned.policy.layers + [pinned.policy.head], made.policy.layers + [made.policy.head]):
        np.testing.assert_array_equal(w, w2)
        np.testing.assert_array_equal(b, b2)
    np.testing.assert_array_equal(pinned.policy.obs_mean, made.policy.obs_mean)
    np.testing.assert_array_equal(pinned.policy.obs_std, made.policy.obs_std)


def test_a_policy_trained_on_drawn_speeds_is_scored_at_any_speed_on_the_numpy_env():
    pytest.importorskip("rejax")
    result = train_ppo("target-v1", draw_params=_uniform_speed, **_TINY)
    for speed in (0.5, 2.0):
        scored = gym_suite.evaluate("target-v1", result.policy, episodes=3, env_kwargs={"target_speed": speed})
        assert len(scored.returns) == 3 and np.all(np.isfinite(scored.returns))
    env = gymnasium.make("target-v1", target_speed=2.0)
    starts = [env.reset(seed=seed)[0] for seed in range(20)]
    outside = [obs for obs in starts if not result.policy.observation_space.contains(obs)]
    assert outside  # a target's velocity past the trained space's bound of 1.5
    assert all(env.action_space.contains(action) for action in result.policy.act_batch(outside))


@pytest.mark.parametrize(
    ("draw", "kind", "message"),
    [
        (lambda key, p: 1.0, TypeError, r"train_ppo: draw_params must return params of the class it is given"),
        (lambda key, p: {"target_speed": 1.0}, TypeError, "draw_params must return params of the class"),
        (lambda key, p: p.replace(target_speed=np.full(3, 1.0)), ValueError,
         r"draw_params must return params whose target_speed has the shape of the given params' \(\)"),
        (lambda key, p: p.replace(target_speed=100.0), ValueError, "draw_params.* drew params target-v1 refuses: .*fast"),
    ],
)  # fmt: skip
def test_a_draw_of_the_wrong_kind_is_refused_before_compiling(draw, kind, message, capsys):
    pytest.importorskip("rejax")
    with pytest.raises(kind, match=message) as err:
        train_ppo("target-v1", draw_params=draw, **{**_TINY, "progress": True})
    assert len(str(err.value)) < 1000
    assert "compiling" not in capsys.readouterr().err  # refused before the first program was traced


@pytest.mark.slow
def test_a_policy_trained_on_drawn_speeds_beats_random_at_every_speed():
    """target-v1's recipe on speeds in [0.5, 2]: far above random at four speeds, above pure pursuit at 2."""
    pytest.importorskip("rejax")
    result = train_ppo("target-v1", draw_params=_uniform_speed, progress=False)
    for speed in (0.5, 1.0, 1.5, 2.0):
        kwargs = {"target_speed": speed}
        trained, random, heuristic = (
            gym_suite.evaluate("target-v1", policy, episodes=300, seed=100_000, env_kwargs=kwargs)
            for policy in (result.policy, "random", "heuristic")
        )
        gain, se = trained.paired_difference(random)
        shown = (speed, trained.mean, heuristic.mean, random.mean)
        assert gain > 10 * se and gain > 0.5 * (heuristic.mean - random.mean), shown
        if speed == 2.0:
            lead, se = trained.paired_difference(heuristic)
            assert lead > 3 * se, shown
