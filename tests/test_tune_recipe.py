"""gym-suite/analyses/tune_recipe.py: a tiny real Ray Tune search, scored on tuning seeds, handed to the recipes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray.tune")

pytestmark = pytest.mark.slow  # starts a local Ray and trains a few agents

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "gym-suite" / "analyses" / "tune_recipe.py"
SPACE = {"learning_rate": [1e-3], "n_epochs": [5]}  # one alternative to the recipe's own settings
SPACE_POINT = {key: values[0] for key, values in SPACE.items()}
ENV = {**{k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}, "OMP_NUM_THREADS": "1", "RAY_USAGE_STATS_ENABLED": "0"}  # fmt: skip


def run_script(*args, cwd=None, timeout=900):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=ENV, cwd=cwd, timeout=timeout
    )


def test_tiny_search_is_scored_on_tuning_seeds_and_read_by_the_recipes(tmp_path):
    out = tmp_path / "tuned.json"
    out.write_text(json.dumps({"push-v1": {"sb3-ppo": {"settings": {"gamma": 0.99}}}}))  # kept beside the new entry
    args = [
        "--id", "example-v0", "--agent", "sb3-ppo", "--trials", "2", "--seeds", "1", "--steps", "2048",
        "--episodes", "20", "--space", json.dumps(SPACE), "--storage", str(tmp_path / "tune"), "--out", str(out),
    ]  # fmt: skip
    done = run_script(*args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-4000:]
    data = json.loads(out.read_text())
    assert data["push-v1"] == {"sb3-ppo": {"settings": {"gamma": 0.99}}}
    tuned = (entry := data["example-v0"]["sb3-ppo"])["tuned"]
    assert tuned["recipe_settings"] == {"learning_rate": 3e-4, "n_epochs": 10}  # the recipe's own: the first trial
    assert entry["settings"] in (tuned["recipe_settings"], SPACE_POINT)
    assert tuned["score"] >= tuned["recipe_score"]
    assert (entry["settings"] == SPACE_POINT) == (tuned["score"] > tuned["recipe_score"])
    assert tuned["trials"] == 2 and tuned["steps"] == 2048
    assert tuned["training_seeds"] == [100_000, 100_000] and tuned["tuning_episodes"] == [100_000, 100_019]
    # the score is the greedy return on tuning episodes 100,000 .. 100,019 of the agent trained on seed 100,000
    import gym_suite
    from gym_suite.training.sb3 import SB3Policy, train_sb3

    model = train_sb3("example-v0", "ppo", 2048, seed=100_000, overrides=entry["settings"])
    tuning = gym_suite.evaluate("example-v0", SB3Policy(model), episodes=20, seed=100_000, n_jobs=1).mean
    assert tuned["returns"] == [pytest.approx(tuning)] and tuned["score"] == pytest.approx(tuning)
    # the recipes read the file
    check = (
        "import json; from gym_suite.training.recipes import sb3_settings; "
        "print(json.dumps({k: sb3_settings('example-v0', 'ppo')[k] for k in ('learning_rate', 'n_epochs', 'gamma')}))"
    )
    env = {**ENV, "GYM_SUITE_TUNED_RECIPES": str(out)}
    read = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, env=env, timeout=300)
    assert read.returncode == 0, read.stderr[-2000:]
    assert json.loads(read.stdout) == {**entry["settings"], "gamma": 0.99}


@pytest.mark.parametrize(
    "bad",
    [["--trials", "0"], ["--space", "[1]"], ["--id", "nope-v0"], ["--cpus", "-1"], ["--space", '{"bogus": [1, 2]}'],
     ["--space", '{"gamma": [2.0]}'], ["--space", '{"learning_rate": {"loguniform": [0, 1]}}'],
     ["--agent", "jax-ppo", "--space", '{"env_kwargs": [{"split": "test"}]}'],
     ["--agent", "jax-ppo", "--space", '{"num_envs": ["8"]}'], ["--runtime-env", "[1]"]],
)  # fmt: skip
def test_bad_arguments_are_usage_errors(bad):
    args = ["--id", "push-v0", *bad] if bad[0] != "--id" else bad
    done = run_script(*args, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "usage:" in done.stderr and "Traceback" not in done.stderr


def test_a_trial_no_node_can_place_is_a_usage_error(tmp_path):
    out = tmp_path / "t.json"
    done = run_script("--id", "example-v0", "--trials", "1", "--cpus", "64", "--out", str(out), cwd=tmp_path)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "no node of the cluster has that many CPUs" in done.stderr and not out.exists()
