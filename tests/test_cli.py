"""The ``gym-suite`` command, and the episode loop and evaluation behind it (``gym_suite.evaluate``)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from conftest import ALL_IDS
from hypothesis import given, settings
from hypothesis import strategies as st

import gym_suite
from gym_suite.cli import build_parser, main, parse_kwargs
from gym_suite.evaluate import EvalResult, _plus_minus, action_seed, evaluate, play, run_episode

SHORT = {"max_episode_steps": 40}  # gymnasium.make's time limit: quick episodes for every id


def gym_suite_command(*args, env=None, **kwargs):
    return subprocess.run([sys.executable, "-m", "gym_suite", *args], capture_output=True, text=True, timeout=300,
                          env=env, **kwargs)  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "example-v0", "--episodes", "0"], "argument --episodes: must be a positive integer"),
        (["evaluate", "example-v0", "--episodes", "-1"], "argument --episodes"),
        (["evaluate", "example-v0", "--jobs", "0"], "argument --jobs"),
        (["evaluate", "example-v0", "--seed", "-3"], "argument --seed: must be a non-negative integer"),
        (["evaluate", "example-v0", "--episodes", "many"], "argument --episodes: invalid integer"),
        (["evaluate", "example-v0", "--env-kwargs", "no_equals_sign"], "argument --env-kwargs: expected KEY=VALUE"),
        (["demo", "--seed", "-1"], "argument --seed"),
        (["evaluate", "example-v0", "--episodes", "2", "--env-kwargs", "bogus=1"], "bogus"),
        (["evaluate", "example-v0", "--episodes", "2", "--env-kwargs", "rt_max=1"], "rt_max"),
        (["evaluate", "HeartPole-v0", "--episodes", "1"], "gym_suite:heartpole-v0"),
        (["evaluate", "heartpole-v1", "--polcy", "heuristic"], "unrecognized arguments: --polcy heuristic"),
        (["evaluate", "heartpole-v1", "--episode", "10"], "unrecognized arguments: --episode 10"),  # no abbreviation
        (["demo", "--se", "3"], "unrecognized arguments: --se 3"),
        (["list", "extra"], "unrecognized arguments: extra"),
        (["evaluate", "target-v1", "--env-kwargs", "x=" + "-" * 5000 + "1"], "argument --env-kwargs: the value of 'x'"),
        (["evaluate", "target-v1", "--env-kwargs", "x" * 5000], "argument --env-kwargs: expected KEY=VALUE"),
        (["evaluate", "x" * 5000], "argument id: invalid choice"),
        (["play", "no-such-v0"], "argument id: invalid choice"),
        (["evaluate", "target-v1", "--episodes", "9" * 5000], "argument --episodes: an integer of 5,000 digits"),
        (["evaluate", "target-v1", "--env-kwargs", "speed=" + "1" * 3000], "argument --env-kwargs: "),
        (["demo", "--seed", "x" * 5000], "argument --seed: invalid integer"),
        (["evaluate", "example-v0", "--policy", "greedy"], "policy file not found: 'greedy': use random, heuristic or"),
        (["evaluate", "push-v0", "--env-kwargs", "csv_path=/missing.csv"], "--env-kwargs: PushEnv: csv_path="),
    ],
)
def test_a_usage_error_is_the_subcommands_usage_and_one_short_line(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"usage: gym-suite {argv[0]} "), err  # the subcommand's usage, not the top level's
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"gym-suite {argv[0]}: error: ") and message in last, err
    assert max(len(line) for line in err.splitlines()) < 400, err
    assert "was raised from the environment creator" not in err  # gymnasium's suffix, with the kwargs


def test_cli_survives_a_closed_pipe_and_a_closed_standard_output():
    """``gym-suite list | head -n 1`` ends without a traceback; ``gym-suite list >&-`` says so in one line."""
    command = [sys.executable, "-m", "gym_suite", "list"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.close()  # before the command has written anything
    err = process.stderr.read()
    process.wait(timeout=300)
    process.stderr.close()
    assert "BrokenPipeError" not in err and "Traceback" not in err, err
    done = subprocess.run(command, stderr=subprocess.PIPE, text=True, timeout=300, preexec_fn=lambda: os.close(1))
    assert "Traceback" not in done.stderr and done.returncode == 1 and done.stderr.strip(), done.stderr


@pytest.mark.parametrize(("encoding", "sign"), [("ascii", "+/-"), ("utf-8", "±")])
def test_cli_output_in_ascii_locale(encoding, sign):
    done = gym_suite_command(
        "evaluate", "example-v0", "--episodes", "5", env={**os.environ, "PYTHONIOENCODING": encoding}
    )
    assert done.returncode == 0 and "return:" in done.stdout and sign in done.stdout, done.stderr
    done.stdout.encode(encoding)
    assert _plus_minus(io.TextIOWrapper(io.BytesIO(), encoding=encoding)) == sign  # the stream's own encoding


class Constant:
    """A picklable trained policy: always the same action."""

    name = "constant"

    def __init__(self, action):
        self.action = action

    def __call__(self, observation):
        return self.action


def test_cli_evaluate_prints_the_evaluation_of_a_policy_or_a_policy_file(tmp_path, capsys):
    import pickle

    (tmp_path / "always-left.pkl").write_bytes(pickle.dumps(Constant(0)))
    for env_id, policy, name in [
        ("example-v0", "heuristic", "heuristic"),
        ("gym_suite:example-v0", "heuristic", "heuristic"),  # the module prefix gymnasium.make takes
        ("example-v0", str(tmp_path / "always-left.pkl"), "constant"),  # as record takes it
    ]:
        assert main(["evaluate", env_id, "--policy", policy, "--episodes", "7", "--seed", "2"]) == 0
        out = capsys.readouterr().out
        expected = evaluate("example-v0", Constant(0) if name == "constant" else policy, episodes=7, seed=2)
        assert f"return: {expected.mean:.3f}" in out and f"example-v0 {name}: " in out and "over 7 episodes" in out


def test_cli_evaluate_takes_a_saved_stable_baselines3_model(tmp_path, capsys):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3 import PPO

    from gym_suite.training.sb3 import load_sb3_policy, save_sb3

    save_sb3(PPO("MlpPolicy", gymnasium.make("target-v0"), n_steps=64, seed=0, device="cpu"), tmp_path / "agent")
    archive = str(tmp_path / "agent.zip")
    assert main(["evaluate", "target-v0", "--policy", archive, "--episodes", "3", "--seed", "4"]) == 0
    expected = evaluate("target-v0", load_sb3_policy(archive, "ppo", "target-v0"), episodes=3, seed=4)
    out = capsys.readouterr().out
    assert "target-v0 sb3-ppo: " in out and f"return: {expected.mean:.3f}" in out


def test_cli_demo_plays_the_seeded_random_episode(capsys):
    assert main(["demo", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    for env_id in ALL_IDS:
        total, length = run_episode(gymnasium.make(env_id), "random", 4)
        row = next(line for line in out.splitlines() if line.startswith(f"| {env_id} "))
        assert f"| {length:>5} | {total:>10.3f} |" in row


def test_parse_kwargs_reads_literals():
    assert parse_kwargs(["a=0.3", "b=None", "c=word", "d=(1, 2)"]) == {"a": 0.3, "b": None, "c": "word", "d": (1, 2)}


@pytest.mark.parametrize("env_id", ALL_IDS)
def test_evaluate_plays_the_episodes_of_run_episode_and_random_actions_are_seeded_by_action_seed(env_id):
    """Episode ``i`` is reset with ``seed + i`` exactly (however large); random actions drawn from ``action_seed``."""
    for policy, seed in (("random", 9), ("heuristic", 9), ("random", 2**63 - 2)):
        result = evaluate(env_id, policy, episodes=4, seed=seed, env_kwargs=SHORT)
        env = gymnasium.make(env_id, **SHORT)
        one_by_one = [run_episode(env, policy, seed + i) for i in range(4)]
        np.testing.assert_array_equal(result.returns, [r for r, _ in one_by_one])
        np.testing.assert_array_equal(result.lengths, [n for _, n in one_by_one])
    played = [step.action for step in play(gymnasium.make(env_id, **SHORT), "random", 5)]
    env.reset(seed=5)
    env.action_space.seed(action_seed(5))
    np.testing.assert_array_equal(np.asarray(played), np.asarray([env.action_space.sample() for _ in played]))


def test_play_yields_every_step_until_the_end():
    env = gymnasium.make("example-v0")
    steps = list(play(env, "random", 1))
    assert steps and steps[-1].done and not any(step.done for step in steps[:-1])
    assert (sum(step.reward for step in steps), len(steps)) == run_episode(env, "random", 1)
    obs, _ = env.reset(seed=1)  # a caller that reset the env itself hands the observation over
    assert [s.reward for s in play(env, "random", 1, observation=obs)] == [s.reward for s in steps]


class Answers:
    """A batched policy logging its calls, whose ``act_batch`` answers ``answer(number of observations)``."""

    name = "answers"

    def __init__(self, answer=lambda n: [0] * n):
        self.answer, self.calls = answer, []

    def __call__(self, observation):
        return 0

    def reset(self):
        self.calls.append("reset")

    def act_batch(self, observations):
        self.calls.append("act")
        return self.answer(len(observations))


BAD_BATCH = r"answers\.act_batch returned .* it must return a list \(or array\) of actions"


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: next(play(gymnasium.make("example-v0"), "greedy", 0)), ValueError, "unknown policy"),
        (lambda: next(play(gymnasium.make("example-v0"), 42, 0)), TypeError, "callable"),
        (lambda: evaluate("CartPole-v1", "heuristic", episodes=2), ValueError, "CartPole-v1 has no heuristic"),
        (lambda: run_episode(gymnasium.make("CartPole-v1"), "heuristic", 0), ValueError, "no heuristic"),
        (lambda: parse_kwargs(["a"]), ValueError, "KEY=VALUE"),
        (lambda: evaluate("no-such-env-v0"), gymnasium.error.Error, "no-such-env"),
        (lambda: evaluate("gym_suite:no-such-env-v0"), gymnasium.error.Error, "no-such-env"),
        *[
            (lambda a=a: evaluate("example-v0", Answers(a), episodes=3), ValueError, "expected 3, one per observation")
            for a in (lambda n: [0] * (n - 1), lambda n: [0] * (n + 1))
        ],
        *[
            (lambda a=a: evaluate("example-v0", Answers(lambda n: a), episodes=3), TypeError, BAD_BATCH)
            for a in (None, 0, np.int64(0), np.array(0), "01", {0: 0})
        ],
    ],
)
def test_unknown_or_bad_policies_and_ids_are_refused(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_evaluate_resets_a_batched_policy_before_each_batch_of_episodes():
    """Episodes played in lockstep start together: ``reset()`` comes before each batch's first step."""
    from gym_suite.evaluate import CHUNK_EPISODES

    policy = Answers(lambda n: np.zeros(n, dtype=np.int64))  # an array answers too
    assert len(evaluate("example-v0", policy, episodes=7).returns) == 7
    assert policy.calls[0] == "reset" and policy.calls.count("reset") == 1  # 7 episodes: one batch
    policy = Answers()
    evaluate("example-v0", policy, episodes=CHUNK_EPISODES + 1, env_kwargs=SHORT)
    starts = [i for i, call in enumerate(policy.calls) if call == "reset"]
    assert len(starts) == 2 and starts[0] == 0 and policy.calls[starts[1] - 1] == "act"


def test_import_gym_suite_is_light():
    """Importing the package and making an env loads no optional extra, legacy gym, pandas or training."""
    code = (
        "import sys, gymnasium, gym_suite, gym_suite.envs.push_log, gym_suite.envs.push_env\n"
        "gymnasium.make('example-v0')\n"
        "heavy = ('gym', 'joblib', 'pandas', 'tqdm', 'torch', 'stable_baselines3', 'ray', 'gym_suite.training')\n"
        "assert not [m for m in heavy if m in sys.modules], [m for m in heavy if m in sys.modules]\n"
        "from gym_suite.evaluate import evaluate\n"
        "evaluate('example-v0', 'random', episodes=3)\n"
        "assert 'joblib' not in sys.modules and 'tqdm' not in sys.modules  # only for parallel runs and bars\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def test_paired_difference():
    rng = np.random.default_rng(0)
    shared = rng.normal(0, 100, 500)  # noise both agents see on the same episodes cancels out

    def result(returns, seed=0):
        return EvalResult("x-v0", "p", seed, np.asarray(returns), np.ones(len(returns)))

    base = result(shared)
    better = result(shared + 0.5 + rng.normal(0, 0.1, 500))
    diff, se = better.paired_difference(base)
    assert diff == pytest.approx(0.5, abs=0.05) and 0 < se < 0.01  # unpaired, the se would be about 6
    assert base.paired_difference(base) == (0.0, 0.0)
    with pytest.raises(ValueError, match="not the same episodes"):
        better.paired_difference(result(shared, seed=1))


@pytest.mark.parametrize(
    ("arguments", "error", "match"),
    [
        ({"episodes": 0}, ValueError, "^episodes must be a positive integer"),
        ({"episodes": True}, ValueError, "^episodes must be"),
        *[({"episodes": n}, ValueError, r"^episodes must be .*at most") for n in (10**15, 2**63, 10**30, 10**5000)],
        ({"seed": -1}, ValueError, "^seed must be"),
        ({"seed": -(10**5000)}, ValueError, "^seed must be"),  # past Python's int-to-str limit: a short message
        ({"n_jobs": 0}, ValueError, "^n_jobs must be"),
        *[({"env_kwargs": k}, TypeError, "^env_kwargs must ") for k in ([("lf_min", 1)], "lf_min=1", 3, {1: 2})],
        *[({"progress": p}, TypeError, "progress must be None, True or False") for p in ("yes", "no", 1, 0, [True])],
    ],
)
def test_evaluate_checks_its_arguments_first(arguments, error, match, capsys):
    with pytest.raises(error, match=match) as raised:
        evaluate("example-v0", "random", **{"episodes": 2, **arguments})
    assert len(str(raised.value)) < 1000 and capsys.readouterr().err == ""


def test_evaluate_takes_the_module_prefix_any_mapping_and_foreign_ids():
    from types import MappingProxyType

    plain = evaluate("example-v0", "random", episodes=5, seed=3, env_kwargs={"lf_min": 1})
    prefixed = evaluate(
        "gym_suite:example-v0", "random", episodes=5, seed=3, env_kwargs=MappingProxyType({"lf_min": 1})
    )
    assert prefixed.env_id == "example-v0"  # the same episodes: the results pair up
    assert np.array_equal(prefixed.returns, plain.returns) and np.array_equal(prefixed.lengths, plain.lengths)
    assert prefixed.paired_difference(plain) == (0.0, 0.0) and gym_suite.evaluate is evaluate
    assert len(evaluate("CartPole-v1", "random", episodes=2).returns) == 2  # foreign ids work but the heuristic


@pytest.mark.parametrize(
    ("module", "reason"),
    [
        ("", "ValueError: Empty module name"),
        ("failing_registration", "RuntimeError: no ids today"),
        ("no_such_module_here", "No module named 'no_such_module_here'"),
    ],
)
def test_list_import_of_a_module_that_fails_is_one_usage_line(module, reason, tmp_path, monkeypatch, capsys):
    (tmp_path / "failing_registration.py").write_text("raise RuntimeError('no ids today')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for argv in (["list", "--import", module], ["evaluate", f"{module}:mypkg/x-v0"]):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert last.startswith(f"gym-suite {argv[0]}: error: ") and f"cannot import {module!r}" in last
        assert reason in last


def test_a_usage_error_line_is_at_most_300_characters_with_its_prefix(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["list", "--import", "x" * 5000])
    (line,) = capsys.readouterr().err.strip().splitlines()[-1:]
    assert stop.value.code == 2 and line.startswith("gym-suite list: error: cannot import") and len(line) <= 300


def test_cli_version_and_help(capsys):  # play --help: tests/test_play.py
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0 and capsys.readouterr().out.strip() == f"gym-suite {gym_suite.__version__}"
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = capsys.readouterr().out
    assert all(option in out for option in ("--policy", "--episodes", "--seed", "--jobs", "--env-kwargs"))


def _entry_points():
    """The installed script, ``python -m gym_suite`` and ``python -m gym_suite.cli``."""
    script = Path(sys.executable).with_name("gym-suite")
    points = [[sys.executable, "-m", "gym_suite"], [sys.executable, "-m", "gym_suite.cli"]]
    return points + ([[str(script)]] if script.exists() else [])


@pytest.mark.parametrize("command", _entry_points(), ids=lambda c: " ".join(Path(p).name for p in c))
def test_a_usage_error_is_one_short_line_from_every_entry_point(command):
    env = {**os.environ, "PYTHONPATH": str(Path(gym_suite.__file__).parents[1])}
    done = subprocess.run(
        [*command, "demo", "--seed", "1" * 5000], capture_output=True, text=True, timeout=300, env=env
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert done.stderr.startswith("usage: gym-suite") and last.startswith("gym-suite demo: error: argument --seed")
    assert max(len(line) for line in done.stderr.splitlines()) < 400


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(max_size=3000)
    | st.builds(
        lambda sign, n, digits: sign * n + "1" * digits,
        st.sampled_from("-+~("),
        st.integers(0, 6000),
        st.integers(0, 6000),
    )
)
def test_any_option_value_parses_or_is_one_short_usage_line(text):
    parser = build_parser()
    for argv in (
        ["evaluate", "example-v0", "--seed", text],
        ["evaluate", "example-v0", "--env-kwargs", f"x={text}"],
        ["demo", "--seed", text],
        ["record", "example-v0", "--dataset-id", text],
    ):
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                parser.parse_args(argv)
        except SystemExit as stop:
            assert stop.code == 2
            assert max(len(line) for line in err.getvalue().splitlines()) < 400
