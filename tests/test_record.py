"""``gym-suite record`` and gym_suite.record: Minari datasets that load back and recover their env.

Every dataset is written under a temporary ``MINARI_DATASETS_PATH``; nothing touches the network
(Minari's hub is never asked: ``minari.load_dataset`` reads the local copy).
"""

from __future__ import annotations

import pickle
import socket

import numpy as np
import pytest

minari = pytest.importorskip("minari")

import gymnasium  # noqa: E402

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

    def refuse(self, address, *args, **kwargs):
        raise AssertionError(f"a network connection to {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)


def replay(env_id, policy, seed, **kwargs):
    """The observations, actions and rewards of one seeded episode, played here again."""
    env = make(env_id, **kwargs)
    first, _ = env.reset(seed=seed)
    steps = list(play(env, policy, seed, observation=first))
    env.close()
    return first, steps


@pytest.mark.parametrize("env_id", [spec.id for spec in SPECS])
def test_a_recorded_dataset_loads_back_with_the_episodes_played_and_recovers_its_env(env_id):
    policy = "heuristic" if callable(getattr(make(env_id).unwrapped, "heuristic", None)) else "random"
    record(env_id, policy, episodes=2, seed=3)
    dataset = minari.load_dataset(default_dataset_id(env_id, policy))
    assert dataset.total_episodes == 2
    episodes = list(dataset.iterate_episodes())
    _, steps = replay(env_id, policy, seed=4)  # the second episode: reset with seed + 1
    episode = episodes[1]
    assert len(episode.actions) == len(steps) == dataset.total_steps - len(episodes[0].actions)
    np.testing.assert_allclose(episode.rewards, [s.reward for s in steps])
    assert bool(episode.terminations[-1]) == steps[-1].terminated
    assert bool(episode.truncations[-1]) == steps[-1].truncated
    assert dataset.observation_space == make(env_id).observation_space
    env = dataset.recover_environment()
    assert env.spec.id == env_id
    assert env.observation_space == make(env_id).observation_space
    env.reset(seed=0)
    env.close()


def test_observations_are_the_episodes_own():
    record("example-v0", "random", episodes=3, seed=0)
    dataset = minari.load_dataset("gym_suite/example-v0/random-v0")
    for i, episode in enumerate(dataset.iterate_episodes()):
        first, steps = replay("example-v0", "random", seed=i)
        assert list(episode.observations) == [first] + [s.observation for s in steps]
        assert list(episode.actions) == [s.action for s in steps]


def test_env_arguments_are_kept_and_recovered():
    record("heartpole-v1", "heuristic", episodes=1, env_kwargs={"heart_attack_proclivity": 0.3}, dataset_id="hp/x-v0")
    dataset = minari.load_dataset("hp/x-v0")
    env = dataset.recover_environment()
    assert env.spec.kwargs["heart_attack_proclivity"] == 0.3
    env.close()


class Constant:
    """A picklable trained-policy stand-in: always the same action."""

    name = "constant"

    def __init__(self, action):
        self.action = action

    def __call__(self, observation):
        return self.action


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
        (["--env-kwargs", "nope=1"], "unknown argument"),
        (["--episodes", "0"], "must be a positive integer"),
    ],
)
def test_the_command_reports_bad_input_as_a_usage_error(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["record", "example-v0", *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_an_existing_dataset_is_kept_unless_overwrite(capsys, datasets_path):
    assert main(["record", "target-v0", "--episodes", "1"]) == 0
    with pytest.raises(SystemExit):
        main(["record", "target-v0", "--episodes", "2"])
    assert "exists already" in capsys.readouterr().err
    assert minari.load_dataset("gym_suite/target-v0/heuristic-v0").total_episodes == 1
    assert main(["record", "target-v0", "--episodes", "2", "--overwrite"]) == 0
    assert minari.load_dataset("gym_suite/target-v0/heuristic-v0").total_episodes == 2


def test_bad_arguments_raise_before_anything_is_written(datasets_path):
    with pytest.raises(ValueError, match="episodes must be a positive integer"):
        record("example-v0", "random", episodes=0)
    with pytest.raises(ValueError, match="unknown policy 'best'"):
        record("example-v0", "best")
    with pytest.raises(TypeError, match="policy must be a callable"):
        record("example-v0", 3)
    with pytest.raises(gymnasium.error.Error):
        record("no-such-v0", "random")
    assert minari.list_local_datasets() == {}


def test_load_policy_refuses_a_file_without_a_callable(tmp_path):
    path = tmp_path / "numbers.pkl"
    path.write_bytes(pickle.dumps([1, 2, 3]))
    with pytest.raises(TypeError, match="holds a list, not a callable policy"):
        load_policy(path, "example-v0")
