"""Training with Stable-Baselines3 (``gym_suite.training``): agents, arguments, recipes and the scripts that train."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("stable_baselines3")

import gym_suite  # noqa: E402
from gym_suite.evaluate import CHUNK_EPISODES  # noqa: E402
from gym_suite.training import recipes, sb3, wrappers  # noqa: E402

ALL_IDS = [spec.id for spec in gym_suite.SPECS]
ROOT = Path(__file__).resolve().parents[1]
TRAIN_SB3 = ROOT / "gym-suite" / "examples" / "train_sb3.py"


def run_script(*args, cwd=None, timeout=600):
    """A repository script run as a user runs it: this interpreter, a fresh process."""
    return subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True, timeout=timeout, cwd=cwd)


def assert_clearly_better(trained, random, heuristic):
    """Significantly above random, and at least half of the way from random to the heuristic."""
    diff, se = trained.paired_difference(random)
    assert diff > 4 * se, (str(trained), str(random))
    assert trained.mean > random.mean + 0.5 * (heuristic.mean - random.mean), (str(trained), str(heuristic))


def untrained_ppo(env_id: str):
    from stable_baselines3 import PPO

    env = gymnasium.make(env_id)
    policy = "MultiInputPolicy" if isinstance(env.observation_space, spaces.Dict) else "MlpPolicy"
    return PPO(policy, env, n_steps=64, batch_size=32, seed=0, device="cpu")


@pytest.mark.slow
def test_sb3_ppo_on_example_beats_random():
    model = sb3.train_sb3("example-v0", "ppo", steps=8_192, seed=0)
    assert model.num_timesteps >= 8_192
    policy = sb3.SB3Policy(model, name="sb3-ppo")
    assert_clearly_better(
        *(gym_suite.evaluate("example-v0", p, episodes=300, seed=0) for p in (policy, "random", "heuristic"))
    )


@pytest.mark.slow
def test_sb3_dqn_on_heartpole_beats_random():
    steps = recipes.recipe_budget("heartpole-v0", "sb3-dqn")  # the recipe of the baselines table
    model = sb3.train_sb3("heartpole-v0", "dqn", steps=steps, seed=0)
    policies = (sb3.SB3Policy(model, name="sb3-dqn"), "random", "heuristic")
    assert_clearly_better(*(gym_suite.evaluate("heartpole-v0", p, episodes=60, seed=0, n_jobs=-1) for p in policies))


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_sb3_policy_acts_validly_batched_or_not_and_evaluates_alike_for_any_n_jobs(env_id):
    policy = sb3.SB3Policy(untrained_ppo(env_id))
    env = gymnasium.make(env_id)
    observations = [env.reset(seed=s)[0] for s in range(6)]
    actions = policy.act_batch(observations)
    assert len(actions) == len(observations)
    for obs, action in zip(observations, actions):  # one at a time, the same (to float rounding)
        assert env.action_space.contains(action)
        np.testing.assert_allclose(np.asarray(policy(obs)), np.asarray(action), rtol=1e-5)
    if isinstance(env.action_space, spaces.Discrete):
        assert all(type(a) is int for a in actions)
    episodes = CHUNK_EPISODES + 3  # more than one job's worth: the evaluation is the same for any n_jobs
    short = {"max_episode_steps": 40}  # gymnasium.make's time limit: quick episodes for every id
    for played in ("random", "heuristic", policy):  # the network pickled into joblib's workers
        one = gym_suite.evaluate(env_id, played, episodes=episodes, seed=11, n_jobs=1, env_kwargs=short)
        two = gym_suite.evaluate(env_id, played, episodes=episodes, seed=11, n_jobs=2, env_kwargs=short)
        np.testing.assert_array_equal(one.returns, two.returns)
        np.testing.assert_array_equal(one.lengths, two.lengths)


def test_saved_model_with_normalization_acts_the_same_after_loading(tmp_path, monkeypatch):
    """The VecNormalize statistics are saved next to the model and applied on load."""
    env_id = "heartpole-v0" if "heartpole-v0" in ALL_IDS else ALL_IDS[0]
    recipe = recipes.Recipe(
        n_envs=2,
        vec_normalize={"ppo": {"norm_obs": True, "norm_reward": False}},
        sb3_ppo={"n_steps": 64, "batch_size": 32, "n_epochs": 1},
    )
    monkeypatch.setitem(recipes.RECIPES, env_id, recipe)
    model = sb3.train_sb3(env_id, "ppo", steps=256, seed=0)
    assert model.get_vec_normalize_env() is not None
    written = sb3.save_sb3(model, tmp_path / "agent")
    assert sorted(p.name for p in written) == ["agent.vecnormalize.pkl", "agent.zip"]
    before = sb3.SB3Policy(model)
    after = sb3.load_sb3_policy(tmp_path / "agent", "ppo", env_id)
    env = gymnasium.make(env_id)
    env.reset(seed=0)
    observations = [env.step(env.action_space.sample())[0] for _ in range(50)]
    assert [np.asarray(a).tolist() for a in before.act_batch(observations)] == [
        np.asarray(a).tolist() for a in after.act_batch(observations)
    ]
    # the statistics matter: without them the network sees other inputs
    assert not np.allclose(before.normalizer.normalize_obs(np.stack(observations)), np.stack(observations))


@pytest.mark.slow
def test_train_sb3_script_saves_loads_and_evaluates(tmp_path):
    out = tmp_path / "models" / "walk"
    common = "--eval 20 --jobs 1 --env-kwargs rt_max=12".split()
    first = run_script(TRAIN_SB3, "example-v0", "--steps", "2048", "--out", out, *common, timeout=300)
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "models" / "walk.zip").is_file()
    assert "example-v0 random: return" in first.stdout and "example-v0 sb3-ppo: return" in first.stdout
    again = run_script(TRAIN_SB3, "example-v0", "--load", out, *common, timeout=300)
    assert again.returncode == 0, again.stderr
    trained_line = [line for line in first.stdout.splitlines() if "sb3-ppo: return" in line]
    assert trained_line and trained_line[0] in again.stdout  # the loaded agent plays the same episodes


@pytest.mark.parametrize("args", [("--env-kwargs", "no_such_argument=1"), ("--vec-env", "subproc")])
def test_train_sb3_script_rejects_a_bad_argument(args):
    done = run_script(TRAIN_SB3, "example-v0", "--steps", "64", *args)
    assert done.returncode == 2 and "usage:" in done.stderr and args[0] in done.stderr
    assert "Traceback" not in done.stderr


def test_heartpole_v0_ppo_trains_on_the_envs_own_expected_cost_and_keeps_the_expected_return():
    assert recipes.training_env_kwargs("heartpole-v0", "ppo") == {"expected_cost": True}
    assert recipes.training_env_kwargs("heartpole-v0", "dqn") == {}  # DQN keeps the drawn attacks
    assert recipes.training_env_kwargs("heartpole-v0", "ppo", {"expected_cost": False}) == {"expected_cost": False}
    # without drinks the drawn attacks are nearly all the spread of the returns; the expected cost has little
    trained_on = gymnasium.make("heartpole-v0", **recipes.training_env_kwargs("heartpole-v0", "ppo"))
    drawn_returns, expected_returns = [], []
    for seed in range(30):
        obs, _ = trained_on.reset(seed=seed)
        drawn = expected = 0.0
        for _ in range(1000):
            obs, reward, _, _, info = trained_on.step(trained_on.unwrapped.heuristic(obs))
            drawn += reward - 100.0 * info["heart_attack"] + 100.0 * info["heart_attack_probability"]
            expected += reward
        drawn_returns.append(drawn)
        expected_returns.append(expected)
    assert np.std(drawn_returns) > 30
    assert np.std(expected_returns) < np.std(drawn_returns) / 10


@pytest.mark.parametrize("vec_env", sb3.VEC_ENVS)
def test_the_training_reward_stream_is_the_one_the_deprecated_expected_penalty_gave(vec_env):
    """heartpole-v0's PPO training env gives the rewards the drawn-cost env with ExpectedPenalty gave (float32)."""
    recipe = recipes.recipe_for("heartpole-v0")
    transforms = {"reward_scale": recipe.reward_scale["ppo"], "reward_offset": recipe.reward_offset["ppo"]}
    limit = {"max_episode_steps": 300}
    kwargs = {**limit, **recipes.training_env_kwargs("heartpole-v0", "ppo")}
    now = sb3.make_sb3_env("heartpole-v0", 2, 5, kwargs, vec_env=vec_env, **transforms)
    with pytest.warns(DeprecationWarning, match="expected_cost=True"):
        penalty = recipes.ExpectedPenalty("heart_attack", "heart_attack_probability", 100.0)
    before = sb3.make_sb3_env("heartpole-v0", 2, 5, limit, expected_penalty=penalty, vec_env=vec_env, **transforms)
    now.reset(), before.reset()
    # mostly coffee: the blood pressure climbs and attacks strike
    actions = np.random.default_rng(0).choice(4, size=(900, 2), p=[0.05, 0.85, 0.05, 0.05])
    attacks = 0
    for row in actions:
        obs, reward, done, infos = now.step(row)
        obs2, reward2, done2, infos2 = before.step(row)
        np.testing.assert_array_equal(obs, obs2)
        np.testing.assert_array_equal(done, done2)
        np.testing.assert_allclose(reward, reward2, rtol=1e-6, atol=1e-6)
        attacks += sum(bool(info["heart_attack"]) for info in infos)
    assert attacks > 5  # the rollout has attacks, where the two would differ if the costs did


def test_deprecated_expected_penalty_reward_warns_and_says_what_to_use():
    with pytest.warns(DeprecationWarning, match="expected_cost=True"):
        penalty = recipes.ExpectedPenalty("heart_attack", "heart_attack_probability", 100.0)
    with pytest.warns(DeprecationWarning, match="expected_cost=True"):
        wrapped = wrappers.ExpectedPenaltyReward(gymnasium.make("heartpole-v0"), penalty)
    env = gymnasium.make("heartpole-v0", expected_cost=True)
    wrapped.reset(seed=3), env.reset(seed=3)
    for _ in range(50):
        assert wrapped.step(1)[1] == pytest.approx(env.step(1)[1], abs=1e-9)
    # no recipe uses it any more: the expected cost is the env's own argument
    assert all(recipe.expected_penalty is None for recipe in recipes.RECIPES.values())


def test_recipes_cover_every_trained_agent():
    for env_id in ALL_IDS:
        for agent in recipes.TRAINED_AGENTS:
            assert recipes.recipe_budget(env_id, agent) > 0
    with pytest.raises(ValueError, match="unknown agent"):
        recipes.recipe_budget("example-v0", "ppo")
    with pytest.raises(ValueError, match="unknown algorithm"):
        recipes.sb3_settings("example-v0", "a2c")


SB3_PAGE = ROOT / "docs" / "training" / "sb3.md"


def page_block(marker: str) -> str:
    """The Python code block that follows ``<!-- marker -->`` on the Stable-Baselines3 page."""
    text = SB3_PAGE.read_text(encoding="utf-8")
    start = text.index(f"<!-- {marker} -->")
    start = text.index("```python\n", start) + len("```python\n")
    return text[start : text.index("```", start)]


@pytest.mark.parametrize("api", ["gym", "gymnasium"])
def test_heartpole_tutorial_dqn_runs_as_written(api, gym_np_bool8):
    """The SB3 page's HeartPole DQN (``import gym``, or ``import gymnasium as gym``) runs, for 300 steps."""
    if api == "gym":
        pytest.importorskip("gym")
    code = page_block("heartpole-gym-dqn")
    assert code.startswith("import gym\n") and code.count("total_timesteps=10_000") == 1
    code = code.replace("total_timesteps=10_000", "total_timesteps=300").replace("verbose=1", "verbose=0")
    if api == "gymnasium":
        code = code.replace("import gym\n", "import gymnasium as gym\n", 1)
    namespace: dict = {}
    exec(compile(code, "docs/training/sb3.md", "exec"), namespace)
    model, env, action = namespace["model"], namespace["env"], namespace["action"]
    assert model.num_timesteps == 300
    assert type(env).__module__.split(".")[0] == api  # the env the tutorial made: gym's, or gymnasium's
    assert env.action_space.contains(int(action))
    assert np.isfinite(namespace["reward"])


def test_tutorial_argument_names_point_to_the_suite_names():
    with pytest.raises(TypeError, match=r"'max_steps' is the step limit, max_episode_steps.*gymnasium\.make"):
        gymnasium.make("example-v0", max_steps=10)
    with pytest.raises(TypeError, match="'max_steps' is 'max_episode_steps' here"):  # the vector env takes it
        gymnasium.make_vec("example-v0", num_envs=2, max_steps=10)
    with pytest.raises(TypeError, match="'resolution' is 'size' here"):
        gymnasium.make("target-v0", resolution=50)
    with pytest.raises(TypeError) as no_size:  # no hint where the env has no such argument
        gymnasium.make("example-v0", resolution=50)
    assert "'size'" not in str(no_size.value) and "allowed arguments" in str(no_size.value)
    assert gymnasium.make("target-v0", size=50).unwrapped.size == 50  # what the hint says works


def test_heartpole_v1_sb3_and_jax_ppo_share_the_recipe():
    from gym_suite.training.jax import ppo_budget, ppo_settings

    sb3_ppo, jax_ppo = recipes.sb3_settings("heartpole-v1", "ppo"), ppo_settings("heartpole-v1")
    recipe = recipes.recipe_for("heartpole-v1")
    assert sb3_ppo["gamma"] == jax_ppo["gamma"] == 1.0
    assert recipe.truncation_is_terminal == {"ppo": True}  # rejax never bootstraps past the end
    assert recipe.n_envs == jax_ppo["num_envs"] and sb3_ppo["n_steps"] == jax_ppo["num_steps"]
    assert sb3_ppo["batch_size"] * jax_ppo["num_minibatches"] == recipe.n_envs * sb3_ppo["n_steps"]
    assert sb3_ppo["n_epochs"] == jax_ppo["num_epochs"] and sb3_ppo["learning_rate"] == jax_ppo["learning_rate"]
    assert recipes.recipe_budget("heartpole-v1", "sb3-ppo") == ppo_budget("heartpole-v1")


def test_train_sb3_ends_truncated_episodes_as_the_recipe_says():
    from gym_suite.training.sb3 import TruncationIsTerminal

    def layers(model):
        env, found = model.get_env(), []
        while env is not None:
            found.append(type(env))
            env = getattr(env, "venv", None)
        return found

    def train(env_id, **kwargs):
        return sb3.train_sb3(env_id, "ppo", 64, n_envs=1, overrides={"n_steps": 64, "batch_size": 64}, **kwargs)

    model = train("heartpole-v1")  # the recipe: truncations end the episode
    assert TruncationIsTerminal in layers(model) and model.gamma == 1.0
    assert TruncationIsTerminal not in layers(train("heartpole-v1", truncation_is_terminal=False))
    assert TruncationIsTerminal not in layers(train("heartpole-v0"))


@pytest.mark.parametrize(
    ("train", "arguments", "error", "match"),
    [
        ("recurrent", {"overrides": [1]}, TypeError, "train_recurrent_ppo: overrides must be None or a dict"),
        ("recurrent", {"overrides": {"gamma": 2.0}}, ValueError, r"train_recurrent_ppo: overrides gamma must be a number in \[0.0"),
        ("recurrent", {"overrides": {"n_steps": "64"}}, TypeError, "train_recurrent_ppo: overrides n_steps must be an integer"),
        ("recurrent", {"overrides": {"n_steps": 1}}, ValueError, "train_recurrent_ppo: overrides n_steps must be an integer from 2"),
        ("recurrent", {"overrides": {"policy_kwargs": 5}}, TypeError, "overrides policy_kwargs must be an object"),
        ("recurrent", {"verbose": "x"}, TypeError, "train_recurrent_ppo: verbose must be an integer"),
        ("recurrent", {"callback": 5}, TypeError, "train_recurrent_ppo: callback must be None"),
        ("reward-model", {"env_kwargs": [1]}, TypeError, "train_reward_model: env_kwargs must be None or a dict"),
        ("reward-model", {"env_kwargs": {1: 2}}, TypeError, "train_reward_model: env_kwargs must have the arguments' names"),
        ("reward-model", {"seed": 2**32}, ValueError, r"train_reward_model: seed must be an integer in 0..2\*\*32 - 1"),
    ],
)  # fmt: skip
def test_recurrent_and_reward_model_training_check_their_arguments_before_any_env(
    train, arguments, error, match, monkeypatch
):
    def no_env(*args, **kwargs):
        raise AssertionError("an env was made for bad arguments")

    monkeypatch.setattr(sb3, "make_sb3_env", no_env)
    if train == "recurrent":
        pytest.importorskip("sb3_contrib")
        from gym_suite.training.sb3_recurrent import train_recurrent_ppo as call
    else:
        from gym_suite.training import reward_model  # scikit-learn is imported once the arguments are checked

        monkeypatch.setattr(reward_model, "explore", no_env)
        call = reward_model.train_reward_model
    with pytest.raises(error, match=match):
        call("push-v1" if train == "reward-model" else "example-v0", 64, **arguments)


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ({"steps": 0}, ValueError, "train_sb3: steps must be >= 1, got 0"),
        ({"steps": "64"}, TypeError, "train_sb3: steps must be an integer, got '64'"),
        ({"steps": True}, TypeError, "train_sb3: steps must be an integer"),
        ({"truncation_is_terminal": "yes"}, TypeError, "train_sb3: truncation_is_terminal must be True or False"),
        ({"progress_bar": "no"}, TypeError, "train_sb3: progress_bar must be True or False"),
        ({"algo": 5}, TypeError, "algo must be 'ppo' or 'dqn', got 5"),
        ({"algo": "sac"}, ValueError, "unknown algorithm 'sac'"),
        ({"overrides": [1]}, TypeError, "train_sb3: overrides must be None or a dict of PPO's settings"),
        ({"overrides": {"n_epoch": 3}}, TypeError, r"unknown setting\(s\) \['n_epoch'\] in overrides; PPO's settings"),
        ({"overrides": {"seed": 3}}, TypeError, "train_sb3's own arguments"),
        ({"overrides": {"gamma": 2.0}}, ValueError, r"train_sb3: overrides gamma must be a number in \[0.0"),
        ({"overrides": {"n_steps": "64"}}, TypeError, "train_sb3: overrides n_steps must be an integer"),
        ({"algo": "dqn", "overrides": {"buffer_size": 0}}, ValueError, "train_sb3: overrides buffer_size must be an integer from 1"),
        ({"algo": "dqn", "overrides": {"tau": "x"}}, TypeError, "train_sb3: overrides tau must be a number"),
        ({"seed": -1}, ValueError, "train_sb3: seed must be >= 0"),
        ({"seed": 2**32}, ValueError, r"train_sb3: seed must be an integer in 0..2\*\*32 - 1"),
        ({"env_kwargs": [("rt_max", 5)]}, TypeError, "train_sb3: env_kwargs must be None or a dict"),
        ({"n_envs": 0}, ValueError, "train_sb3: n_envs must be >= 1"),
        ({"vec_env": 5}, TypeError, "vec_env must be 'native' or 'dummy'"),
        ({"callback": 5}, TypeError, "train_sb3: callback must be None"),
        ({"callback": [lambda _locals, _globals: True, 5]}, TypeError, "train_sb3: callback must be None"),
        ({"env_id": 5}, TypeError, "train_sb3: env_id must be a registered id"),
        ({"env_id": "target-v0", "algo": "dqn"}, ValueError, "Discrete"),  # a Box action space
    ],
)  # fmt: skip
def test_train_sb3_checks_its_arguments_before_any_env(arguments, error, message, monkeypatch):
    def no_env(*args, **kwargs):
        raise AssertionError("an env was made for bad arguments")

    monkeypatch.setattr(sb3, "make_sb3_env", no_env)
    with pytest.raises(error, match=message):
        sb3.train_sb3(**{"env_id": "example-v0", "steps": 64, **arguments})


def test_numpy_numbers_and_schedules_are_taken():
    sb3._check_values("owner", "sb3-ppo", {"learning_rate": lambda p: 1e-3 * p, "n_steps": np.int64(64), "gamma": 1})
    overrides = {"n_steps": 64, "batch_size": 64, "n_epochs": 1}
    model = sb3.train_sb3("example-v0", np.str_("PPO"), steps=np.int64(64), seed=np.uint32(3), n_envs=np.int8(1),
                          overrides=overrides, progress_bar=np.bool_(False))  # fmt: skip
    assert model.num_timesteps == 64


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(["steps", "seed", "n_envs", "verbose", "progress_bar", "truncation_is_terminal"]),
    value=st.one_of(st.text(max_size=3), st.floats(), st.lists(st.integers(), max_size=2), st.just(object())),
)
def test_any_value_of_the_wrong_kind_is_refused_by_name(name, value):
    with pytest.raises((TypeError, ValueError), match=f"train_sb3: {name} must be") as info:
        sb3.train_sb3("example-v0", **{name: value})
    assert len(str(info.value)) < 1000
