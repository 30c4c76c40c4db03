"""``gym-suite record`` and gym_suite.record: Minari datasets, written under a temporary
``MINARI_DATASETS_PATH`` without a network, that load back and recover their env."""

from __future__ import annotations

import os
import pickle
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

minari = pytest.importorskip("minari")

import gymnasium  # noqa: E402
from test_cli import Constant  # noqa: E402

import gym_suite  # noqa: E402
from gym_suite import SPECS  # noqa: E402
from gym_suite.cli import main  # noqa: E402
from gym_suite.evaluate import play  # noqa: E402
from gym_suite.quiet import make  # noqa: E402
from gym_suite.record import default_dataset_id, load_policy, record  # noqa: E402


@pytest.fixture(autouse=True)
def datasets_path(tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "datasets"))
    return tmp_path / "datasets"


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """Recording and loading work without a network: any connection attempt fails the test."""
    for name in ("connect", "connect_ex"):
        monkeypatch.setattr(
            socket.socket, name, lambda self, address, *a, **k: pytest.fail(f"a connection to {address}")
        )


def replay(env_id, policy, seed, **kwargs):
    """The first observation and the steps of one seeded episode, played here again."""
    env = make(env_id, **kwargs)
    first, _ = env.reset(seed=seed)
    steps = list(play(env, policy, seed, observation=first))
    env.close()
    return first, steps


@pytest.mark.parametrize("env_id", [spec.id for spec in SPECS])
def test_a_recorded_dataset_loads_back_with_the_episodes_played_their_infos_and_recovers_its_env(env_id):
    policy = "heuristic" if callable(getattr(make(env_id).unwrapped, "heuristic", None)) else "random"
    record(env_id, policy, episodes=2, seed=3, record_infos=True)
    dataset = minari.load_dataset(default_dataset_id(env_id, policy))
    episodes = list(dataset.iterate_episodes())
    assert dataset.total_episodes == 2 and dataset.total_steps == sum(len(e.actions) for e in episodes)
    for i, episode in enumerate(episodes):
        _, steps = replay(env_id, policy, seed=3 + i)
        assert len(episode.actions) == len(steps)
        np.testing.assert_allclose(episode.rewards, [s.reward for s in steps])
        assert (bool(episode.terminations[-1]), bool(episode.truncations[-1])) == (
            steps[-1].terminated,
            steps[-1].truncated,
        )
        numeric = {k for step in steps for k, v in step.info.items() if np.asarray(v).dtype.kind in "biuf"}
        assert set(episode.infos) >= numeric, "a numeric info key was not recorded"  # (an id may have none)
        for key, values in episode.infos.items():
            assert len(values) == len(steps) + 1  # the reset's, then every step's
            numbers = [step.info[key] for step in steps]
            np.testing.assert_allclose(np.asarray(values[1:], dtype=float), np.asarray(numbers, dtype=float))
    assert dataset.observation_space == make(env_id).observation_space
    env = dataset.recover_environment()
    assert env.spec.id == env_id and env.observation_space == make(env_id).observation_space
    env.reset(seed=0)
    env.close()


def test_observations_are_the_episodes_own_and_env_arguments_are_kept():
    record("example-v0", "random", episodes=3, seed=0)
    dataset = minari.load_dataset("gym_suite/example-v0/random-v0")
    for i, episode in enumerate(dataset.iterate_episodes()):
        first, steps = replay("example-v0", "random", seed=i)
        assert list(episode.observations) == [first] + [s.observation for s in steps]
        assert list(episode.actions) == [s.action for s in steps]
    record("heartpole-v1", "heuristic", episodes=1, env_kwargs={"heart_attack_proclivity": 0.3}, dataset_id="hp/x-v0")
    env = minari.load_dataset("hp/x-v0").recover_environment()  # with the env arguments kept
    assert env.spec.kwargs["heart_attack_proclivity"] == 0.3
    env.close()


def test_the_command_records_a_built_in_and_a_pickled_policy(tmp_path, capsys):
    assert main(["record", "example-v0", "--policy", "random", "--episodes", "4", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "gym_suite/example-v0/random-v0: 4 episodes" in out
    assert minari.load_dataset("gym_suite/example-v0/random-v0").total_episodes == 4
    path = tmp_path / "always-left.pkl"
    path.write_bytes(pickle.dumps(Constant(0)))
    assert main(["record", "example-v0", "--policy", str(path), "--episodes", "2"]) == 0
    dataset = minari.load_dataset("gym_suite/example-v0/always-left-v0")
    assert all(np.all(episode.actions == 0) for episode in dataset.iterate_episodes())


@pytest.mark.slow
def test_the_command_records_a_saved_stable_baselines3_model(tmp_path):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3 import PPO

    from gym_suite.training.sb3 import load_sb3_policy, save_sb3

    model = PPO("MlpPolicy", make("target-v0"), n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(64)
    save_sb3(model, tmp_path / "target-ppo")
    assert main(["record", "target-v0", "--policy", str(tmp_path / "target-ppo.zip"), "--episodes", "3"]) == 0
    dataset = minari.load_dataset("gym_suite/target-v0/target-ppo-v0")
    policy = load_sb3_policy(tmp_path / "target-ppo.zip", "ppo", "target-v0")
    first = next(iter(dataset.iterate_episodes()))
    np.testing.assert_allclose(first.actions[0], policy(first.observations[0]), rtol=1e-6)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--policy", "nowhere.pkl"], "policy file not found: 'nowhere.pkl'"),
        (["--env-kwargs", "nope=1"], "unexpected keyword argument 'nope'"),
        (["--policy", "random", "--overwrite", "--env-kwargs", "nope=1"], "unexpected keyword argument 'nope'"),
        (["--episodes", "0"], "must be a positive integer"),
        (["--dataset-id", ""], "error: argument --dataset-id: must be a Minari dataset id"),
    ],
)
def test_the_command_reports_bad_input_as_a_usage_error_and_keeps_the_old_dataset(argv, message, capsys):
    assert main(["record", "example-v0", "--policy", "random", "--episodes", "2"]) == 0
    before = _snapshot("gym_suite/example-v0/random-v0")
    with pytest.raises(SystemExit) as exit_info:
        main(["record", "example-v0", *argv])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err
    assert _snapshot("gym_suite/example-v0/random-v0") == before
    assert list(minari.list_local_datasets()) == ["gym_suite/example-v0/random-v0"]


def test_an_existing_dataset_is_kept_unless_overwrite(capsys, datasets_path):
    assert main(["record", "target-v0", "--episodes", "1"]) == 0
    with pytest.raises(SystemExit):
        main(["record", "target-v0", "--episodes", "2"])
    assert "exists already" in capsys.readouterr().err
    assert minari.load_dataset("gym_suite/target-v0/heuristic-v0").total_episodes == 1
    assert main(["record", "target-v0", "--episodes", "2", "--overwrite"]) == 0
    dataset = minari.load_dataset("gym_suite/target-v0/heuristic-v0")
    assert dataset.total_episodes == 2  # replaced, in its place
    assert str(dataset.spec.data_path).startswith(str(minari.storage.get_dataset_path(dataset.spec.dataset_id)))


def test_load_policy_refuses_a_file_without_a_callable(tmp_path):
    path = tmp_path / "numbers.pkl"
    path.write_bytes(pickle.dumps([1, 2, 3]))
    with pytest.raises(TypeError, match="holds a list, not a callable policy"):
        load_policy(path, "example-v0")


def _snapshot(dataset_id):
    dataset = minari.load_dataset(dataset_id)
    actions = [episode.actions.tolist() for episode in dataset.iterate_episodes()]
    return dataset.total_episodes, actions, dataset.storage.metadata.get("description")


class Raises:
    """A policy that fails on its third call."""

    name = "flaky"

    def __init__(self, error):
        self.error, self.calls = error, 0

    def __call__(self, observation):
        self.calls += 1
        if self.calls == 3:
            raise self.error
        return 0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"env_kwargs": {"nope": 1}}, TypeError),  # bad env arguments
        ({"policy": Raises(RuntimeError("the policy broke"))}, RuntimeError),  # a policy that raises
        ({"policy": lambda observation: 7}, ValueError),  # an invalid action
        ({"policy": Raises(KeyboardInterrupt())}, KeyboardInterrupt),  # interrupted (Ctrl-C)
    ],
    ids=["env-kwargs", "policy-raises", "invalid-action", "interrupted"],
)
def test_overwrite_keeps_the_old_dataset_when_the_new_run_fails(kwargs, error, datasets_path):
    record("example-v0", "random", episodes=3, seed=5, dataset_id="keep/example-v0")
    before = _snapshot("keep/example-v0")
    arguments = {"policy": "random", **kwargs}
    with pytest.raises(error):
        record(
            "example-v0", arguments.pop("policy"), episodes=4, dataset_id="keep/example-v0", overwrite=True, **arguments
        )
    assert _snapshot("keep/example-v0") == before and list(minari.list_local_datasets()) == ["keep/example-v0"]
    assert [p.name for p in datasets_path.iterdir() if p.name.startswith(".")] == []  # nothing staged is left


def test_an_info_key_the_reset_lacks_is_filled():
    dataset = record("heartpole-v1", "heuristic", episodes=1, record_infos=True)
    infos = next(iter(dataset.iterate_episodes())).infos
    assert np.isnan(infos["productivity"][0]) and not infos["heart_attack"][0]
    assert "action" not in infos  # a str: only numbers are recorded


def test_numpy_integers_the_largest_seeds_and_the_prefixed_id_record():
    dataset = record("gym_suite:example-v0", "random", episodes=np.int32(2), seed=np.uint64(4))
    assert dataset.total_episodes == 2 and dataset.spec.dataset_id == "gym_suite/example-v0/random-v0"
    assert dataset.recover_environment().spec.id == "example-v0"
    _, steps = replay("example-v0", "random", seed=4)
    assert list(next(iter(dataset.iterate_episodes())).actions) == [s.action for s in steps]
    largest = record("example-v0", "random", episodes=2, seed=2**64 - 2, dataset_id="big/seed-v0")  # the last seeds
    assert largest.total_episodes == 2


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        *[
            ({"env_kwargs": k}, TypeError, "record: env_kwargs must be None or a dict")
            for k in ([("size", 5)], "size=5")
        ],
        ({"env_kwargs": {5: 1}}, TypeError, "record: env_kwargs must have the arguments' names"),
        *[
            ({name: value}, error, f"record: {name} must be None or a non-empty str")
            for name in ("dataset_id", "policy_name", "author", "author_email", "code_permalink", "description")
            for value, error in ((5, TypeError), ("", ValueError))
        ],
        ({"dataset_id": "no version"}, ValueError, "record: dataset_id 'no version' is not a Minari dataset id"),
        ({"dataset_id": "x" * 5000}, ValueError, "is not a Minari dataset id"),
        ({"policy_name": "a b"}, ValueError, "is not a Minari dataset id"),
        ({"episodes": 1.0}, TypeError, "record: episodes must be a positive integer"),
        ({"episodes": True}, TypeError, "record: episodes must be a positive integer"),
        ({"seed": -1}, ValueError, "record: seed must be an integer in 0"),
        ({"seed": "3"}, TypeError, "record: seed must be a non-negative integer"),
        *[
            ({"seed": seed, "episodes": n}, ValueError, r"record: seed must be an integer in 0 \.\. 2\*\*64 - episodes")
            for seed, n in [(2**64, 1), (2**64 - 1, 2), (10**30, 1)]
        ],
        ({"episodes": 0}, ValueError, "episodes must be a positive integer"),
        ({"policy": "best"}, ValueError, "unknown policy 'best'"),
        ({"policy": 3}, TypeError, "policy must be a callable"),
        ({"env_id": "no-such-v0"}, gymnasium.error.Error, "no-such"),
        *[
            ({name: value}, TypeError, f"record: {name} must be True or False")
            for name in ("overwrite", "record_infos")
            for value in ("no", 1, None, np.array([True]))
        ],
    ],
)
def test_bad_arguments_name_the_argument_before_any_episode(arguments, error, message, datasets_path):
    played = []

    def policy(observation):
        played.append(observation)
        return 0

    arguments = {"env_id": "example-v0", "policy": policy, "episodes": 1, **arguments}
    with pytest.raises(error, match=message) as info:
        record(arguments.pop("env_id"), arguments.pop("policy"), **arguments)
    assert len(str(info.value)) < 1000 and played == [] and minari.list_local_datasets() == {}


def test_a_pickled_function_whose_module_is_gone_is_a_value_error(tmp_path, capsys):
    (tmp_path / "gone_module.py").write_text("def policy(observation):\n    return 0\n")
    path = tmp_path / "f.pkl"
    code = "import pickle, gone_module; pickle.dump(gone_module.policy, open('f.pkl', 'wb'))"
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True)
    (tmp_path / "gone_module.py").unlink()
    with pytest.raises(ValueError, match="does not unpickle: ModuleNotFoundError.*must be importable"):
        load_policy(path, "example-v0")
    with pytest.raises(SystemExit) as exit_info:
        main(["record", "example-v0", "--policy", str(path)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "does not unpickle" in err and "Traceback" not in err


def test_the_command_without_minari_says_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "minari", None)  # as if it were not installed: `import minari` fails
    assert main(["record", "example-v0", "--episodes", "1"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "gym-suite record: No module named 'minari': pip install \"gym-suite[minari]\""


def test_a_failed_move_puts_the_old_dataset_back(tmp_path):
    from gym_suite.record import _move_into_place

    final = tmp_path / "ns" / "data-v0"
    (final / "data").mkdir(parents=True)
    (final / "data" / "old.txt").write_text("old")
    with pytest.raises(FileNotFoundError):  # the new dataset is missing: nothing to move in
        _move_into_place(tmp_path / "missing", final, tmp_path / "trash")
    assert (final / "data" / "old.txt").read_text() == "old"
    staged = tmp_path / "staged"
    (staged / "data").mkdir(parents=True)
    (staged / "data" / "new.txt").write_text("new")
    _move_into_place(staged, final, tmp_path / "trash")
    assert (final / "data" / "new.txt").read_text() == "new" and not (final / "data" / "old.txt").exists()


GATE = '''
import os, time

class Gate:
    """A policy that says it is playing, then waits for the file ``go`` (always action 0)."""

    def __init__(self, folder):
        self.folder = folder

    def __call__(self, observation):
        open(os.path.join(self.folder, f"ready-{os.getpid()}"), "w").close()
        while not os.path.exists(os.path.join(self.folder, "go")):
            time.sleep(0.01)
        return 0
'''


#: Run the command with Ctrl-C as a terminal's foreground command gets it, whatever the tests' own
#: process inherited (a shell's background job ignores SIGINT, and its children with it): a
#: start-up that gives SIGINT its default action, then the command in the same process
#: (``preexec_fn`` is not safe with the threads of the tests' process).
AS_FROM_A_TERMINAL = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])"
)


def _command(*argv, path=()):
    root = str(Path(gym_suite.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, *map(str, path)]), "OMP_NUM_THREADS": "1"}
    command = [sys.executable, "-c", AS_FROM_A_TERMINAL, "-m", "gym_suite", "record", "example-v0", *argv]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(condition, seconds=180):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_two_runs_racing_for_one_id_leave_one_dataset_and_one_error(tmp_path, datasets_path, monkeypatch):
    (tmp_path / "gate.py").write_text(GATE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import gate

    policy = tmp_path / "gate.pkl"
    policy.write_bytes(pickle.dumps(gate.Gate(str(tmp_path))))
    runs = [_command("--policy", str(policy), "--episodes", "2", "--seed", str(seed), "--dataset-id", "race/gate-v0",
                     path=[tmp_path]) for seed in (0, 10)]  # fmt: skip
    try:  # both past the check of the id, playing: then both finish at once
        _wait_for(lambda: len(list(tmp_path.glob("ready-*"))) == 2)
        (tmp_path / "go").touch()
        results = [(run.wait(timeout=120), run.stderr.read()) for run in runs]
    finally:
        for run in runs:
            run.kill()
            run.communicate()
    assert sorted(code for code, _ in results) == [0, 2], results
    winner = [seed for seed, (code, _) in zip((0, 10), results) if code == 0][0]
    assert "exists already" in [err for code, err in results if code == 2][0]
    description = minari.load_dataset("race/gate-v0").storage.metadata["description"]
    assert f"seeds {winner} to {winner + 1}" in description  # the winner's dataset, whole
    assert [p.name for p in datasets_path.iterdir() if p.is_dir() and p.name.startswith(".")] == []


def _holds_ctrl_c(pid):
    """Whether process ``pid`` holds SIGINT blocked: ``gym-suite record`` importing, its handler not yet in place."""
    try:
        with open(f"/proc/{pid}/status") as status:
            blocked = next(line.split()[1] for line in status if line.startswith("SigBlk:"))
    except (OSError, StopIteration):  # no /proc: wait for the staging folder
        return False
    return bool(int(blocked, 16) >> (signal.SIGINT - 1) & 1)


@pytest.mark.parametrize("moment", ["importing", "recording"])
def test_ctrl_c_ends_the_command_at_once_with_one_line_and_nothing_left(moment, datasets_path):
    run = _command("--policy", "random", "--episodes", str(10**8), "--dataset-id", "ctrl/c-v0")
    staged = lambda: datasets_path.is_dir() and any(datasets_path.glob(".gym-suite-record-*"))  # noqa: E731
    try:  # as soon as the command holds Ctrl-C (its first imports), or once it stages the dataset
        _wait_for(lambda: (moment == "importing" and _holds_ctrl_c(run.pid)) or staged() or run.poll() is not None)
        run.send_signal(signal.SIGINT)
        _, err = run.communicate(timeout=120)  # 10**8 episodes: a lost Ctrl-C times out
    finally:
        run.kill()
        run.communicate()
    assert run.returncode == 130, err
    assert err.splitlines() == ["gym-suite record: interrupted: no dataset written"]
    assert not datasets_path.exists() or [p.name for p in datasets_path.iterdir() if p.is_dir()] == []


@pytest.mark.parametrize(
    ("argv", "orig_argv", "holds"),
    [
        (
            ["/venv/bin/gym-suite", "record", "x-v0"],
            ["/venv/bin/python", "/venv/bin/gym-suite", "record", "x-v0"],
            True,
        ),
        (["-m", "record", "x-v0"], ["python", "-m", "gym_suite", "record", "x-v0"], True),
        (["-m", "record", "x-v0"], ["python", "-m", "gym_suite.cli", "record", "x-v0"], True),
        (["-m", "record", "x-v0"], ["python", "-m", "gym_suite.play", "record", "x-v0"], False),  # no main to free it
        (["/venv/bin/gym-suite", "list"], ["/venv/bin/python", "/venv/bin/gym-suite", "list"], False),
    ],
)
def test_only_the_record_command_holds_ctrl_c_while_the_package_imports(argv, orig_argv, holds, monkeypatch):
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.setattr(sys, "orig_argv", orig_argv)
    assert gym_suite._is_record_command() is holds


def test_a_ctrl_c_within_an_import_is_raised_by_the_next_check():
    """Raised inside a C extension's set-up (jaxlib's), an exception crashes the process: it waits."""
    from types import SimpleNamespace

    from gym_suite import record as module

    importing = SimpleNamespace(f_code=SimpleNamespace(co_filename="<frozen importlib._bootstrap>"), f_back=None)
    try:
        module._press(signal.SIGINT, SimpleNamespace(f_code=SimpleNamespace(co_filename="x.py"), f_back=importing))
        with pytest.raises(KeyboardInterrupt):
            module._check_pressed()
        with pytest.raises(KeyboardInterrupt):
            module._press(signal.SIGINT, None)  # anywhere else: at once
    finally:
        module._PRESSED.clear()


def test_the_dataset_names_its_author_and_code_from_the_package_metadata(monkeypatch, capsys):
    import email.message
    import importlib.metadata

    metadata = record("example-v0", "random", episodes=1, dataset_id="credits/installed-v0").storage.metadata
    assert metadata["author"] == {"gym-suite"}  # the installed metadata names no author: not "Unknown"
    fake = email.message.Message()
    fake["Author-email"] = "Ada Lovelace <ada@example.org>"
    fake["Project-URL"] = "Documentation, https://example.org/docs"
    fake["Project-URL"] = "Source, https://example.org/gym-suite"
    monkeypatch.setattr(importlib.metadata, "metadata", lambda name: fake)
    metadata = record("example-v0", "random", episodes=1, dataset_id="credits/metadata-v0").storage.metadata
    assert metadata["author"] == {"Ada Lovelace"} and metadata["author_email"] == {"ada@example.org"}
    assert metadata["code_permalink"] == "https://example.org/gym-suite"
    assert "1 episodes of the random policy on example-v0" in metadata["description"]
    flags = ["--author", "Grace", "--author-email", "g@example.org", "--code-permalink", "https://example.org/x"]
    assert main(["record", "example-v0", "--policy", "random", "--episodes", "1", "--dataset-id", "credits/flags-v0",
                 *flags, "--description", "mine"]) == 0  # fmt: skip
    metadata = minari.load_dataset("credits/flags-v0").storage.metadata
    assert (metadata["author"], metadata["author_email"]) == ({"Grace"}, {"g@example.org"})
    assert (metadata["code_permalink"], metadata["description"]) == ("https://example.org/x", "mine")
    assert "Grace" in minari.list_local_datasets()["credits/flags-v0"]["author"]
