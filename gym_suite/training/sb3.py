"""Stable-Baselines3 PPO and DQN on the suite, and their greedy policies for :func:`gym_suite.evaluate`.

Needs the ``sb3`` extra: ``pip install "gym-suite[sb3]"``. Training runs on the CPU with one
torch thread, on the id's native vector env through :class:`SuiteVecEnv`
(:mod:`gym_suite.training.sb3_vec`), or on ``DummyVecEnv`` with ``vec_env="dummy"``.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from gym_suite.quiet import import_gym_quietly

import_gym_quietly()  # Stable-Baselines3 imports gym when it is installed: without its banner

try:
    import stable_baselines3  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the extras installed
    raise ImportError('gym_suite.training.sb3 needs Stable-Baselines3: pip install "gym-suite[sb3]"') from exc

from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import HumanOutputFormat, Logger
from stable_baselines3.common.vec_env import VecEnvWrapper

from gym_suite._registry import suite_id
from gym_suite.envs.checks import check_env_kwargs, shown
from gym_suite.training import check_flag, check_training_arguments, single_thread_torch
from gym_suite.training.recipes import ExpectedPenalty, recipe_budget, recipe_for, sb3_settings, training_env_kwargs
from gym_suite.training.sb3_vec import SuiteVecEnv
from gym_suite.training.wrappers import (
    acts_in_unit_box,
    check_reward_transform,
    env_actions,
    from_unit_box,
    stack_observations,
    training_wrappers,
)

ALGORITHMS = ("ppo", "dqn")


class SB3Policy:
    """A trained Stable-Baselines3 model as a greedy policy for :func:`gym_suite.evaluate`.

    ``act_batch`` maps a list of observations in one forward pass. It holds the torch policy and
    the frozen ``VecNormalize`` observation statistics, if any, maps actions in ``[-1, 1]`` back to
    a bounded ``Box``'s bounds, and pickles (to joblib workers).
    """

    def __init__(self, model, name: str = "sb3", normalizer=None):
        self.name = name
        self.policy = model.policy.to("cpu")
        self.policy.set_training_mode(False)
        self.observation_space = model.observation_space
        self.action_space = getattr(model, "env_action_space", None) or model.action_space
        self.rescale = acts_in_unit_box(self.action_space)
        normalizer = normalizer if normalizer is not None else model.get_vec_normalize_env()
        # VecNormalize pickles its statistics without the wrapped envs (and only once: a copy
        # cannot be pickled again), so this policy carries the pickled bytes
        self._normalizer_bytes = pickle.dumps(normalizer) if normalizer is not None else None
        self._normalizer = None

    @property
    def normalizer(self):
        """The frozen ``VecNormalize`` statistics (None without normalization)."""
        if self._normalizer is None and self._normalizer_bytes is not None:
            self._normalizer = pickle.loads(self._normalizer_bytes)
        return self._normalizer

    def __getstate__(self):
        return {**self.__dict__, "_normalizer": None}

    def act_batch(self, observations: list) -> list:
        obs = stack_observations(observations, self.observation_space)
        if self.normalizer is not None:
            obs = self.normalizer.normalize_obs(obs)
        actions, _ = self.policy.predict(obs, deterministic=True)
        if self.rescale:
            actions = from_unit_box(actions, self.action_space)
        return env_actions(actions, self.action_space)

    def __call__(self, observation):
        return self.act_batch([observation])[0]


#: The vector envs :func:`make_sb3_env` can train on: the id's native numpy vector env through
#: :class:`~gym_suite.training.sb3_vec.SuiteVecEnv`, or Stable-Baselines3's ``DummyVecEnv`` of scalar envs.
VEC_ENVS = ("native", "dummy")


def check_vec_env(vec_env: str) -> str:
    if not isinstance(vec_env, str):
        raise TypeError(f"vec_env must be 'native' or 'dummy', got {shown(vec_env)}")
    if vec_env not in VEC_ENVS:
        raise ValueError(
            f"unknown vec_env {shown(vec_env)}: choose 'native' (the id's native vector env) or 'dummy' "
            "(Stable-Baselines3's DummyVecEnv of scalar envs)"
        )
    return vec_env


def make_sb3_env(
    env_id: str,
    n_envs: int,
    seed: int,
    env_kwargs: dict | None = None,
    vec_normalize: dict[str, Any] | None = None,
    reward_scale: float = 1.0,
    expected_penalty: ExpectedPenalty | None = None,
    reward_offset: float = 0.0,
    vec_env: str = "native",
    truncation_is_terminal: bool = False,
):
    """The vectorized training env, in ``VecNormalize`` when ``vec_normalize`` (its keyword arguments) is given.

    ``vec_env="native"``: :class:`SuiteVecEnv`, the id's native vector env with the training
    transforms of :func:`gym_suite.training.wrappers.training_wrappers` applied to the batch;
    ``"dummy"``: ``DummyVecEnv`` of monitored copies in ``training_wrappers``. Either way the
    ``episode`` info holds the env's own rewards, and the agent acts in ``[-1, 1]`` for a bounded
    ``Box``, on rewards shifted by ``reward_offset`` and scaled by ``reward_scale``.
    ``truncation_is_terminal``: :class:`TruncationIsTerminal` (for an env whose observation shows
    the time left). ``expected_penalty`` is deprecated (the env's ``expected_cost=True``).
    """
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecNormalize

    check_reward_transform("make_sb3_env", reward_scale, reward_offset)  # before any env is built
    transforms = {"reward_scale": reward_scale, "expected_penalty": expected_penalty, "reward_offset": reward_offset}
    if check_vec_env(vec_env) == "native":
        venv = SuiteVecEnv(env_id, n_envs, seed=seed, env_kwargs=env_kwargs, unit_box_actions=True, **transforms)
    else:
        wrapping = {"wrapper_class": training_wrappers, "wrapper_kwargs": transforms}
        venv = make_vec_env(env_id, n_envs=n_envs, seed=seed, env_kwargs=env_kwargs, **wrapping)
    if truncation_is_terminal:
        venv = TruncationIsTerminal(venv)
    if vec_normalize is not None:
        venv = VecNormalize(venv, **vec_normalize)
    return venv


class TruncationIsTerminal(VecEnvWrapper):
    """Episodes the env truncates end as terminal ones for the learner: ``info["TimeLimit.truncated"]``
    is False, so Stable-Baselines3 does not bootstrap past them."""

    def reset(self):
        return self.venv.reset()

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for info in infos:
            if info.get("TimeLimit.truncated"):
                info["TimeLimit.truncated"] = False
        return obs, rewards, dones, infos


def check_algo(algo: str) -> str:
    """``algo``: ``"ppo"`` or ``"dqn"``, in any case; returned in lower case."""
    if not isinstance(algo, str):
        raise TypeError(f"algo must be 'ppo' or 'dqn', got {shown(algo)}")
    if algo.lower() not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {shown(algo)}: choose 'ppo' or 'dqn'")
    return algo.lower()


def check_callback(owner: str, callback: Any) -> None:
    """None, a Stable-Baselines3 ``BaseCallback``, a callable ``(locals, globals) -> bool``, or a list of them."""
    for item in callback if isinstance(callback, (list, tuple)) else [] if callback is None else [callback]:
        if not (isinstance(item, BaseCallback) or callable(item)):
            raise TypeError(
                f"{owner}: callback must be None, a Stable-Baselines3 BaseCallback, a callable (locals, globals) "
                f"-> bool or a list of them, got {shown(callback)}"
            )


#: The model arguments the training calls set themselves: ``overrides`` may not give them.
_OWN_MODEL_ARGUMENTS = ("policy", "env", "seed", "device", "verbose")


def check_overrides(owner: str, cls: type, overrides: Any) -> dict[str, Any]:
    """``overrides``: None or a dict of keyword arguments of the model class ``cls`` (PPO, DQN, ...)."""
    import inspect

    if overrides is None:
        return {}
    if not isinstance(overrides, Mapping):
        raise TypeError(
            f"{owner}: overrides must be None or a dict of {cls.__name__}'s settings (such as "
            f"{{'n_epochs': 5}}), got {shown(overrides)}"
        )
    allowed = [
        name
        for name in inspect.signature(cls.__init__).parameters
        if not name.startswith("_") and name not in ("self", "kwargs")
    ]
    unknown = sorted((key for key in overrides if key not in allowed or key in _OWN_MODEL_ARGUMENTS), key=str)
    if unknown:
        own = [key for key in unknown if key in _OWN_MODEL_ARGUMENTS]
        hint = f" ({shown(own)} are {owner}'s own arguments)" if own else ""
        raise TypeError(
            f"{owner}: unknown setting(s) {shown(unknown)} in overrides{hint}; {cls.__name__}'s settings are "
            f"{sorted(set(allowed) - set(_OWN_MODEL_ARGUMENTS))}"
        )
    _check_values(owner, "sb3-dqn" if cls.__name__ == "DQN" else "sb3-ppo", overrides)
    return dict(overrides)


#: The settings that SB3 also takes as a schedule (a callable of the progress left).
_SCHEDULES = ("learning_rate", "clip_range", "clip_range_vf")


def _check_values(owner: str, agent: str, overrides: Mapping[str, Any]) -> None:
    """The values among ``overrides``, as a tuned recipe's are checked
    (:data:`gym_suite.training.recipes.SETTING_CHECKS`): ``TypeError`` for one of the wrong kind,
    ``ValueError`` for one out of range."""
    from gym_suite.training.recipes import SETTING_CHECKS

    for key, value in overrides.items():
        check = SETTING_CHECKS[agent].get(key)
        value = value.item() if isinstance(value, np.generic) else value  # np.int64(64) is 64
        wanted = None if check is None or (key in _SCHEDULES and callable(value)) else check(value)
        if wanted is not None:
            kind = dict if key == "policy_kwargs" else int if wanted.startswith("an integer") else (int, float)
            error = ValueError if isinstance(value, kind) and not isinstance(value, bool) else TypeError
            raise error(f"{owner}: overrides {key} must be {wanted}, got {shown(value)}")


def train_sb3(
    env_id: str,
    algo: str = "ppo",
    steps: int | None = None,
    seed: int = 0,
    env_kwargs: dict | None = None,
    verbose: int = 0,
    progress_bar: bool = False,
    vec_env: str = "native",
    n_envs: int | None = None,
    callback=None,
    overrides: dict[str, Any] | None = None,
    truncation_is_terminal: bool | None = None,
):
    """Train Stable-Baselines3 ``algo`` (``"ppo"`` or ``"dqn"``) on ``env_id`` for ``steps`` env steps.

    The id's recipe (:data:`gym_suite.training.recipes.RECIPES`) gives the settings, which
    ``overrides`` update, the budget when ``steps`` is None, the number of env copies unless
    ``n_envs`` is given (PPO; DQN trains on one), ``truncation_is_terminal`` when None, and the
    training env's arguments under ``env_kwargs``. ``vec_env``: see :func:`make_sb3_env`;
    ``callback`` goes to ``model.learn``. Returns the model (``model.get_vec_normalize_env()``: the
    observation statistics when the recipe normalizes); torch is set to one thread and nothing is
    written to disk (see :func:`save_sb3`). Every argument is checked by name before an env is
    made: ``TypeError`` for a value of the wrong kind or an unknown setting, ``ValueError`` for one
    out of range.
    """
    from stable_baselines3 import DQN, PPO

    if not isinstance(env_id, str):
        raise TypeError(f"train_sb3: env_id must be a registered id (a str), got {shown(env_id)}")
    env_id = suite_id(env_id)  # "gym_suite:<id>": the id's own recipe
    algo = check_algo(algo)
    steps, seed, n_envs, verbose = check_training_arguments("train_sb3", steps, seed, n_envs, verbose)
    env_kwargs = check_env_kwargs("train_sb3: ", env_kwargs, allow_none=True)
    progress_bar = check_flag("train_sb3", "progress_bar", progress_bar)
    check_vec_env(vec_env)
    check_callback("train_sb3", callback)
    truncation_is_terminal = check_flag("train_sb3", "truncation_is_terminal", truncation_is_terminal, allow_none=True)
    cls = PPO if algo == "ppo" else DQN
    settings = {**sb3_settings(env_id, algo), **check_overrides("train_sb3", cls, overrides)}
    single_thread_torch()
    recipe = recipe_for(env_id)
    steps = recipe_budget(env_id, f"sb3-{algo}") if steps is None else steps
    policy, vec_normalize, env_action_space = _probe(env_id, algo, env_kwargs, recipe.vec_normalize.get(algo), settings)
    if truncation_is_terminal is None:
        truncation_is_terminal = recipe.truncation_is_terminal.get(algo, False)
    # deprecated: a recipe's expected cost is the env's own argument (train_env_kwargs)
    penalty = recipe.expected_penalty if recipe.expected_penalty and algo in recipe.expected_penalty.algos else None
    venv = make_sb3_env(
        env_id,
        1 if algo == "dqn" else n_envs or recipe.n_envs,
        seed,
        training_env_kwargs(env_id, algo, env_kwargs),
        vec_normalize,
        recipe.reward_scale.get(algo, 1.0),
        penalty,
        recipe.reward_offset.get(algo, 0.0),
        vec_env=vec_env,
        truncation_is_terminal=truncation_is_terminal,
    )
    model = cls(policy, venv, seed=seed, device="cpu", verbose=verbose, **settings)
    stdout_logger(model, verbose)
    model.env_action_space = env_action_space  # what SB3Policy maps the [-1, 1] actions back to
    model.learn(total_timesteps=int(steps), progress_bar=progress_bar, callback=callback)
    return model


def stdout_logger(model, verbose: int) -> None:
    """Log to standard output only (with ``verbose``): SB3's default logger makes a fresh directory
    under the temporary directory at every ``learn()``."""
    model.set_logger(Logger(folder=None, output_formats=[HumanOutputFormat(sys.stdout)] if verbose else []))


def _probe(
    env_id: str, algo: str, env_kwargs: dict | None, vec_normalize: dict | None, settings: dict[str, Any]
) -> tuple[str, dict | None, spaces.Space]:
    """From one env of the id: the model's policy class, the ``VecNormalize`` arguments (the
    recipe's, with the discount and, for a ``Dict`` observation, its ``Box`` keys) and the env's
    action space; ``ValueError`` for DQN on an action space that is not ``Discrete``."""
    probe = gymnasium.make(env_id, **(env_kwargs or {}))
    try:
        if algo == "dqn" and not isinstance(probe.action_space, spaces.Discrete):
            raise ValueError(f"DQN needs a Discrete action space; {env_id} has {probe.action_space}")
        observation_space = probe.observation_space
        policy = "MultiInputPolicy" if isinstance(observation_space, spaces.Dict) else "MlpPolicy"
        if vec_normalize is not None:
            vec_normalize = {"gamma": settings.get("gamma", 0.99), **vec_normalize}
            if isinstance(observation_space, spaces.Dict) and vec_normalize.get("norm_obs", True):
                # VecNormalize scales Box entries only: the Discrete ones are one-hot encoded
                boxes = [key for key, space in observation_space.spaces.items() if isinstance(space, spaces.Box)]
                vec_normalize.setdefault("norm_obs_keys", boxes)
        return policy, vec_normalize, probe.action_space
    finally:
        probe.close()


def _model_files(path: str | os.PathLike) -> tuple[Path, Path]:
    base = str(path)[: -len(".zip")] if str(path).endswith(".zip") else str(path)
    return Path(base + ".zip"), Path(base + ".vecnormalize.pkl")


def save_sb3(model, path: str | os.PathLike) -> list[Path]:
    """Save the model (``path.zip``) and its ``VecNormalize`` statistics (``path.vecnormalize.pkl``)."""
    archive, stats = _model_files(path)
    archive.parent.mkdir(parents=True, exist_ok=True)
    model.save(archive)
    written = [archive]
    normalizer = model.get_vec_normalize_env()
    if normalizer is not None:
        normalizer.save(stats)
        written.append(stats)
    return written


def load_sb3_policy(path: str | os.PathLike, algo: str, env_id: str, env_kwargs: dict | None = None) -> SB3Policy:
    """The greedy policy of a model saved by :func:`save_sb3`."""
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.vec_env import VecNormalize

    algo = check_algo(algo)
    archive, stats = _model_files(path)
    model = (PPO if algo == "ppo" else DQN).load(archive, device="cpu")
    env = gymnasium.make(env_id, **(env_kwargs or {}))
    model.env_action_space = env.action_space
    env.close()
    normalizer = None
    if stats.exists():
        normalizer = VecNormalize.load(stats, make_sb3_env(env_id, 1, 0, env_kwargs))
        normalizer.training = False
    return SB3Policy(model, name=f"sb3-{algo}", normalizer=normalizer)
