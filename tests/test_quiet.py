"""The suite's own commands print no library notice: neither Gymnasium's "out of date" for heartpole-v0
nor legacy gym's "unmaintained" banner."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import gymnasium
import pytest

import gym_suite
from gym_suite.quiet import make, make_vec, suite_spec

OUT_OF_DATE = "is out of date"
GYM_BANNER = "Gym has been unmaintained"


def run(*args, timeout=300):
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("PYTHONWARNINGS", None)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=env)


EVALUATE = "import gym_suite; gym_suite.evaluate('heartpole-v0', episodes=60, n_jobs=2)"


@pytest.mark.parametrize(
    ("args", "warned"),
    [
        (("-m", "gym_suite", "list"), False),
        (("-m", "gym_suite", "demo"), False),
        (("-m", "gym_suite", "evaluate", "heartpole-v0", "--episodes", "101", "--jobs", "2"), False),  # two workers
        (("-m", "gym_suite", "evaluate", "gym_suite:heartpole-v0", "--episodes", "3", "--policy", "heuristic"), False),
        (("-c", EVALUATE), False),
        (("-c", "import gymnasium, gym_suite; gymnasium.make('heartpole-v0')"), True),  # a user's own make: warned
    ],
    ids=lambda c: " ".join(c) if isinstance(c, tuple) else None,
)
def test_the_suites_commands_do_not_call_the_tutorial_id_out_of_date_a_users_own_make_does(args, warned):
    done = run(*args)
    assert done.returncode == 0 and (OUT_OF_DATE in done.stderr + done.stdout) == warned, done.stderr
    assert args[0] == "-c" or "heartpole-v0" in done.stdout


def test_made_from_the_spec_is_the_same_env():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning at all from the suite's make
        for env_id in gym_suite.ENV_IDS:
            quiet, loud = make(env_id, max_episode_steps=7), None
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                loud = gymnasium.make(env_id, max_episode_steps=7)
            assert str(quiet) == str(loud) and quiet.spec == loud.spec
            quiet.close(), loud.close()
        envs = make_vec("gym_suite:heartpole-v0", num_envs=2, vectorization_mode="vector_entry_point")
        assert envs.num_envs == 2 and envs.spec.id == "heartpole-v0"
        envs.close()
    assert suite_spec("gym_suite:heartpole-v0") is gymnasium.spec("heartpole-v0")
    assert suite_spec("CartPole-v1") == "CartPole-v1"  # other ids are made as gymnasium makes them
    assert suite_spec("other_module:heartpole-v0") == "other_module:heartpole-v0"


@pytest.mark.skipif(
    not all(__import__("importlib").util.find_spec(m) for m in ("gym", "stable_baselines3")),
    reason="needs gym and Stable-Baselines3 installed (the test extra)",
)
def test_stable_baselines3_after_import_gym_quietly_prints_no_gym_banner():
    plain = run("-c", "import stable_baselines3")
    assert GYM_BANNER in plain.stderr, "Stable-Baselines3 no longer imports gym: this test is moot"
    quiet = run(
        "-c",
        "from gym_suite.quiet import import_gym_quietly; import_gym_quietly(); "
        "import stable_baselines3, gym; assert 'gym' in stable_baselines3.common.vec_env.patch_gym.__dict__",
    )
    assert quiet.returncode == 0 and GYM_BANNER not in quiet.stderr, quiet.stderr
