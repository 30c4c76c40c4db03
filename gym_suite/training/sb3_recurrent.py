"""An agent with memory: Stable-Baselines3-contrib's ``RecurrentPPO`` (an LSTM policy), and its greedy policy.

Needs the ``sb3`` extra (``sb3-contrib``): ``pip install "gym-suite[sb3]"``. It trains on the id's
native vector env (:class:`~gym_suite.training.sb3_vec.SuiteVecEnv`) with the settings of
:func:`gym_suite.training.recipes.recurrent_ppo_settings`, on the CPU with one torch thread. The
baselines table trains it on the ids whose recipe gives it a budget.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gym_suite.quiet import import_gym_quietly

import_gym_quietly()  # Stable-Baselines3 imports gym when it is installed: without its banner

try:
    import sb3_contrib  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the extras installed
    raise ImportError('gym_suite.training.sb3_recurrent needs sb3-contrib: pip install "gym-suite[sb3]"') from exc

from gym_suite.training import check_training_arguments, single_thread_torch
from gym_suite.training.recipes import recipe_budget, recipe_for, recurrent_ppo_settings
from gym_suite.training.wrappers import env_actions, stack_observations

AGENT = "sb3-recurrent-ppo"


class RecurrentPolicy:
    """A trained ``RecurrentPPO`` model as a greedy policy with memory for :func:`gym_suite.evaluate`.

    Calling it maps one observation to one action and carries the LSTM's state to the next call;
    ``reset()`` (which :func:`gym_suite.evaluate` calls before each episode) starts a new episode.
    It has no ``act_batch``: episodes are played one at a time, each with its own memory. It pickles
    (to joblib workers).
    """

    def __init__(self, model: Any, name: str = AGENT):
        self.name = name
        self.policy = model.policy.to("cpu")
        self.policy.set_training_mode(False)
        self.observation_space = model.observation_space
        self.action_space = model.action_space
        self.reset()

    def reset(self) -> None:
        """Forget the episode: the LSTM starts from its initial state at the next call."""
        self._state: Any = None
        self._episode_start = np.ones((1,), dtype=bool)

    def __call__(self, observation: Any) -> Any:
        obs = stack_observations([observation], self.observation_space)
        actions, self._state = self.policy.predict(
            obs, state=self._state, episode_start=self._episode_start, deterministic=True
        )
        self._episode_start = np.zeros((1,), dtype=bool)
        return env_actions(actions, self.action_space)[0]


def train_recurrent_ppo(
    env_id: str,
    steps: int | None = None,
    seed: int = 0,
    n_envs: int | None = None,
    verbose: int = 0,
    overrides: dict[str, Any] | None = None,
    callback: Any = None,
) -> Any:
    """Train ``RecurrentPPO`` on ``env_id`` for ``steps`` env steps (the recipe's budget of
    ``"sb3-recurrent-ppo"`` when None) on ``n_envs`` copies of its native vector env (the recipe's
    ``n_envs`` when None); ``overrides`` update the settings (:func:`recurrent_ppo_settings`).
    Returns the model (:class:`RecurrentPolicy` plays it). Sets torch to one thread. The arguments
    are checked by name as :func:`~gym_suite.training.sb3.train_sb3` checks them."""
    from sb3_contrib import RecurrentPPO

    from gym_suite.training.sb3 import check_callback, check_overrides, make_sb3_env, stdout_logger

    owner = "train_recurrent_ppo"
    steps, seed, n_envs, verbose = check_training_arguments(owner, steps, seed, n_envs, verbose)
    check_callback(owner, callback)
    overrides = check_overrides(owner, RecurrentPPO, overrides)
    settings = {**recurrent_ppo_settings(env_id), **overrides}
    steps = recipe_budget(env_id, AGENT) if steps is None else steps
    n_envs = recipe_for(env_id).n_envs if n_envs is None else n_envs
    single_thread_torch()
    venv = make_sb3_env(env_id, n_envs, seed)
    model = RecurrentPPO("MlpLstmPolicy", venv, seed=seed, device="cpu", verbose=verbose, **settings)
    stdout_logger(model, verbose)
    model.learn(total_timesteps=int(steps), callback=callback)
    return model
