"""Ray RLlib PPO on the suite, on one local Ray for the module (its own venv: Ray pins gymnasium 1.2.x)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

import gym_suite  # noqa: E402
from gym_suite.training import single_thread_torch  # noqa: E402
from gym_suite.training.rllib import RLlibPolicy, rllib_config, rllib_module_path, train_rllib  # noqa: E402

ALL_IDS = [spec.id for spec in gym_suite.SPECS]
ROOT = Path(__file__).resolve().parents[2]

#: Unix socket paths are limited to 107 bytes and Ray puts its sockets at
#: <temp dir>/session_<date>_<time>_<pid>/sockets/<name>: room for the suffix is kept free.
SOCKET_PATH_LIMIT = 107
SESSION_SUFFIX = len("/session_2000-01-01_00-00-00_000000_4194304/sockets/plasma_store")


@pytest.fixture(scope="module")
def ray_session(tmp_path_factory):
    temp_dir = tmp_path_factory.mktemp("ray")
    short = None
    if len(str(temp_dir)) + SESSION_SUFFIX > SOCKET_PATH_LIMIT:
        # pytest's directory is too deep for Ray's sockets: a short one, removed afterwards
        short = temp_dir = Path(tempfile.mkdtemp(prefix="r", dir="/tmp"))
    ray.init(num_cpus=2, include_dashboard=False, _temp_dir=str(temp_dir), log_to_driver=False)
    try:
        yield temp_dir
    finally:
        ray.shutdown()
        if short is not None:
            shutil.rmtree(short, ignore_errors=True)


def some_slow(quick: tuple[str, ...]) -> list:
    """Every id, those not in ``quick`` marked slow (each trains an agent)."""
    return [pytest.param(env_id, marks=() if env_id in quick else pytest.mark.slow) for env_id in ALL_IDS]


@pytest.mark.slow
def test_ppo_with_a_remote_env_runner_beats_random(ray_session, tmp_path):
    """A few seeded iterations on example-v0, sampled by one remote env runner; greedy beats random."""
    config = rllib_config("example-v0", num_env_runners=1, seed=0, train_batch_size_per_learner=1000)
    single_thread_torch()
    algo = config.build_algo()
    try:
        runner_pids = algo.env_runner_group.foreach_env_runner(lambda runner: os.getpid(), local_env_runner=False)
        assert len(runner_pids) == 1 and runner_pids[0] != os.getpid()  # sampling happens in another process
        for _ in range(8):
            result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 8 * 1000
        checkpoint = tmp_path / "checkpoint"
        algo.save_to_path(str(checkpoint))
    finally:
        algo.stop()

    policy = RLlibPolicy.from_checkpoint(checkpoint, "example-v0")
    episodes = 300
    greedy = gym_suite.evaluate("example-v0", policy, episodes=episodes, seed=0)
    random = gym_suite.evaluate("example-v0", "random", episodes=episodes, seed=0)
    heuristic = gym_suite.evaluate("example-v0", "heuristic", episodes=episodes, seed=0)
    diff, se = greedy.paired_difference(random)
    # a clear margin: significant, and at least half of the way from random to the heuristic
    assert diff > 4 * se
    assert greedy.mean > random.mean + 0.5 * (heuristic.mean - random.mean)
    # the policy pickles into joblib's worker processes and gives the same episodes there
    parallel = gym_suite.evaluate("example-v0", policy, episodes=episodes, seed=0, n_jobs=2)
    np.testing.assert_array_equal(parallel.returns, greedy.returns)
    np.testing.assert_array_equal(parallel.lengths, greedy.lengths)


@pytest.mark.parametrize("env_id", some_slow(("example-v0", "push-v0", "target-v0")))  # Discrete, Dict, Box
def test_every_env_trains_and_its_checkpoint_plays(ray_session, tmp_path, env_id):
    """One small iteration per id, then the restored module acts validly, through gym_suite.evaluate too."""
    checkpoint, sampled = train_rllib(
        env_id, iterations=1, seed=1, num_env_runners=0, checkpoint_dir=tmp_path / "checkpoint",
        train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1,
    )  # fmt: skip
    assert sampled >= 256
    assert rllib_module_path(checkpoint).is_dir()
    policy = RLlibPolicy.from_checkpoint(checkpoint, env_id)
    env = gymnasium.make(env_id)
    observations = [env.reset(seed=s)[0] for s in range(5)]
    actions = policy.act_batch(observations)
    assert len(actions) == 5
    for obs, action in zip(observations, actions):
        assert env.action_space.contains(action)
        # one at a time, the same (up to float rounding: a batch may take another kernel)
        np.testing.assert_allclose(np.asarray(policy(obs)), np.asarray(action), rtol=1e-5)
    if isinstance(env.action_space, spaces.Discrete):
        assert all(type(a) is int for a in actions)
    result = gym_suite.evaluate(env_id, policy, episodes=2, seed=0)
    assert len(result.returns) == 2 and np.isfinite(result.returns).all()


@pytest.mark.slow
def test_train_rllib_script_checkpoints_and_renders(ray_session, tmp_path):
    """The example script, run as a user runs it, on the Ray instance already running (``--address``)."""
    checkpoint = tmp_path / "checkpoint"
    address = ray.get_runtime_context().gcs_address
    args = "--num-env-runners 1 --iterations 1 --episodes 2 --max-frames 3 --env-config rt_max=12 --eval 5".split()
    script = str(ROOT / "gym-suite" / "examples" / "train_rllib.py")
    command = [sys.executable, script, "example-v0", "--address", address, "--checkpoint-dir", str(checkpoint), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert ray.is_initialized()  # the script leaves a Ray it did not start running
    assert rllib_module_path(checkpoint).is_dir()
    assert done.stdout.count("--- return") == 2
    assert "position" in done.stdout  # the ansi frames of example-v0
    assert "example-v0 rllib-ppo: return" in done.stdout and "example-v0 heuristic: return" in done.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]  # nothing else in the working directory


def test_train_rllib_needs_a_checkpoint_directory():
    with pytest.raises(TypeError, match="checkpoint_dir"):
        train_rllib("example-v0", iterations=1)


TUTORIALS_PAGE = ROOT / "docs" / "tutorials.md"
TINY_BATCH = "train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1"


def page_block(marker: str, *replacements: tuple[str, str], page=ROOT / "docs" / "training" / "rllib.md") -> str:
    """The page's Python block after ``<!-- marker -->``, each ``old`` (present once) replaced by ``new``."""
    text = page.read_text(encoding="utf-8")
    start = text.index(f"<!-- {marker} -->")
    start = text.index("```python\n", start) + len("```python\n")
    code = text[start : text.index("```", start)]
    for old, new in replacements:
        assert code.count(old) == 1, f"the page's block no longer has {old!r} once"
        code = code.replace(old, new)
    return code


@pytest.mark.parametrize("env_id", some_slow(("push-v0",)))  # the page's own id
def test_page_snippet_trains_and_acts_on_every_id(ray_session, env_id):
    """The RLlib page's code with only its id changed: build, one iteration, a greedy action of the module."""
    code = page_block("rllib-snippet", ('env_id = "push-v0"\n', f'env_id = "{env_id}"\n'))
    namespace: dict = {}
    exec(compile(code, "docs/training/rllib.md", "exec"), namespace)
    env, action = namespace["env"], namespace["action"]
    assert env.spec.id == env_id
    assert env.action_space.contains(action), (env_id, action)
    if isinstance(env.action_space, spaces.Discrete):
        assert type(action) is int
    config = namespace["config"]  # the native vector env, flattening only where it is needed
    assert config.gym_env_vectorize_mode == "vector_entry_point"
    flattened = config._env_to_module_connector is not None
    assert flattened == (not (isinstance(env.observation_space, spaces.Box) and len(env.observation_space.shape) == 1))


def test_page_hand_written_config_trains(ray_session):
    """The RLlib page's PPOConfig written by hand (the connector RLlib needs for Discrete and Dict observations)."""
    namespace: dict = {}
    exec(compile(page_block("rllib-by-hand"), "docs/training/rllib.md", "exec"), namespace)
    config = namespace["config"].env_runners(num_env_runners=0).training(train_batch_size_per_learner=200,
                                                                          minibatch_size=100, num_epochs=1)  # fmt: skip
    single_thread_torch()
    algo = config.build_algo()
    try:
        assert type(algo.env_runner.env.unwrapped).__name__ == "PushVectorEnv"  # the native vector env
        result = algo.train()
    finally:
        algo.stop()
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 200


def test_rllib_config_passes_env_config_and_checks_it_at_once():
    config = rllib_config("heartpole-v0", env_config={"heart_attack_proclivity": 0.3}, num_envs_per_env_runner=8)
    assert config.env == "gym_suite:heartpole-v0"
    assert config.env_config == {"heart_attack_proclivity": 0.3}
    assert config.num_envs_per_env_runner == 8
    assert rllib_config("gym_suite:example-v0").env == "gym_suite:example-v0"  # the prefixed form as well
    with pytest.raises(TypeError, match="allowed arguments"):  # the env's own error, before any remote runner
        rllib_config("heartpole-v0", env_config={"no_such_argument": 1})
    with pytest.raises(TypeError, match="max_episode_steps"):  # the tutorials' name of the step limit
        rllib_config("example-v0", env_config={"max_steps": 5})
    with pytest.raises(TypeError, match="suite id"):
        rllib_config(3)
    sync = rllib_config("example-v0", gym_env_vectorize_mode="sync")
    assert sync.gym_env_vectorize_mode == "sync"


def test_policy_from_algorithm_is_a_snapshot(ray_session):
    single_thread_torch()
    algo = _tiny_config("target-v0", lr=0.01).build_algo()
    try:
        algo.train()
        policy = RLlibPolicy.from_algorithm(algo)
        env = gymnasium.make("target-v0")
        observations = [env.reset(seed=s)[0] for s in range(20)]
        before = np.asarray(policy.act_batch(observations))
        algo.train()
        after_training = np.asarray(RLlibPolicy.from_algorithm(algo).act_batch(observations))
    finally:
        algo.stop()
    np.testing.assert_array_equal(np.asarray(policy.act_batch(observations)), before)
    assert not np.allclose(before, after_training)  # the algorithm's module did move


def _tiny_config(env_id: str, **settings):
    return rllib_config(env_id, num_env_runners=0, train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1,
                        **settings)  # fmt: skip


def test_policy_from_a_relative_checkpoint_path(ray_session, tmp_path, monkeypatch):
    """README's commands write relative checkpoint dirs: reading one back works from the same directory."""
    single_thread_torch()
    monkeypatch.chdir(tmp_path)
    algo = _tiny_config("example-v0").build_algo()
    try:
        algo.train()
        algo.save_to_path(str(Path("checkpoints/example-v0-ppo").resolve()))
        live = RLlibPolicy.from_algorithm(algo)
    finally:
        algo.stop()
    env = gymnasium.make("example-v0")
    observations = [env.reset(seed=s)[0] for s in range(10)]
    for checkpoint in (
        "checkpoints/example-v0-ppo",
        Path("checkpoints") / "example-v0-ppo",
        "./checkpoints/example-v0-ppo/",
    ):
        policy = RLlibPolicy.from_checkpoint(checkpoint, "example-v0")
        assert policy.act_batch(observations) == live.act_batch(observations)
    with pytest.raises(FileNotFoundError, match="no-such-checkpoint"):
        RLlibPolicy.from_checkpoint("no-such-checkpoint", "example-v0")


def test_policy_from_an_algorithm_built_from_an_env_class(ray_session):
    """``PPOConfig().environment(TargetEnv, ...)`` (an env class, not an id): the policy acts in its spaces."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from gym_suite.envs import TargetEnv

    single_thread_torch()
    config = (
        PPOConfig()
        .environment(TargetEnv, env_config={"radius": 0.5})
        .env_runners(num_env_runners=0)
        .training(train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1)
    )
    algo = config.build_algo()
    try:
        policy = RLlibPolicy.from_algorithm(algo)
    finally:
        algo.stop()
    env = TargetEnv(radius=0.5)
    observations = [env.reset(seed=s)[0] for s in range(5)]
    assert all(env.action_space.contains(a) for a in policy.act_batch(observations))
    assert policy.observation_space == env.observation_space and policy.action_space == env.action_space


@pytest.mark.slow
def test_tutorial_001_example_train_and_rollout(ray_session, tmp_path, monkeypatch, capsys):
    """gym_example's train.py on Ray 2.x: PPOConfig, checkpoints, the module, a rollout through RLlibPolicy."""
    monkeypatch.chdir(tmp_path)  # the page saves to tmp/exa in the working directory, as the tutorial did
    tiny = ('rllib_config("example-v0")', f'rllib_config("example-v0", {TINY_BATCH})')
    code = page_block("tutorial-001-example-rllib", tiny, ("n_iter = 5", "n_iter = 2"), page=TUTORIALS_PAGE)
    single_thread_torch()
    namespace: dict = {}
    exec(compile(code, str(TUTORIALS_PAGE), "exec"), namespace)
    out = capsys.readouterr().out
    assert " 1 reward " in out and " 2 reward " in out  # the status line of every iteration
    assert Path(namespace["chkpt_file"]).is_dir() and Path(namespace["chkpt_file"]).is_relative_to(tmp_path)
    assert namespace["step"] == 19  # the rollout's 20 steps
    env, policy = namespace["env"], namespace["policy"]
    assert env.spec.id == "example-v0"
    assert env.action_space.contains(policy(env.reset(seed=1)[0]))


@pytest.mark.slow
def test_tutorial_004_target_training_plot_and_rollout(ray_session, tmp_path, monkeypatch):
    """ruslanmv's target game on Ray 2.x: PPO, the mean-return plot, a rollout without compute_single_action."""
    monkeypatch.chdir(tmp_path)
    tiny = ('rllib_config("target-v0")', f'rllib_config("target-v0", {TINY_BATCH})')
    code = page_block("tutorial-004-target-rllib", tiny, ("range(10)", "range(2)"), page=TUTORIALS_PAGE)
    single_thread_torch()
    namespace: dict = {}
    exec(compile(code, str(TUTORIALS_PAGE), "exec"), namespace)
    assert len(namespace["mean_returns"]) == 2
    assert (tmp_path / "ppo_mean_return.png").stat().st_size > 0
    env, info = namespace["env"], namespace["info"]
    assert namespace["done"] and np.isfinite(namespace["episode_return"]) and info["distance"] >= 0
    action = namespace["policy"](env.reset(seed=1)[0])
    assert env.action_space.contains(np.asarray(action, dtype=np.float32))
