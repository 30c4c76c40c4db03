"""Baselines of every suite environment: random, the heuristic and trained agents.

    gym-suite baselines                                  # every id, 1,000 evaluation episodes
    gym-suite baselines --ids heartpole-v0 --budget heartpole-v0:sb3-ppo=300000
    gym-suite baselines --quick --no-rllib               # a smoke run in a minute or two

For every registered id the command evaluates the random policy and the environment's
heuristic, trains Stable-Baselines3 PPO (and DQN where the action space is discrete) and, when
``ray`` is installed, Ray RLlib PPO, then evaluates every trained agent greedily on the same
seeded episodes with :func:`gym_suite.evaluate`. It writes a Markdown table and a CSV file.

Training runs on the CPU with one torch thread (tiny networks are several times slower with
torch's default thread pool on a small machine) and small networks. The functions here are also
what ``gym-suite/train_sb3.py`` and ``gym-suite/train_rllib.py`` use.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import pickle
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from importlib import metadata
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.wrappers import RescaleAction

import gym_suite
from gym_suite.envs.heartpole_env import (
    DEFAULT_HEART_ATTACK_PROCLIVITY,
    HEART_ATTACK_HYPERTENSION,
    HEART_ATTACK_PENALTY,
)
from gym_suite.evaluate import EvalResult, evaluate

AGENTS = ("random", "heuristic", "sb3-ppo", "sb3-dqn", "rllib-ppo")
TRAINED_AGENTS = ("sb3-ppo", "sb3-dqn", "rllib-ppo")
AGENT_LABELS = {
    "random": "random",
    "heuristic": "heuristic",
    "sb3-ppo": "SB3 PPO",
    "sb3-dqn": "SB3 DQN",
    "rllib-ppo": "RLlib PPO",
}
#: An agent beats another when its return is higher, episode by episode on the same seeds, by
#: more than this many standard errors of the mean difference (about 2.5 % one-sided false
#: positives for normal means).
MARGIN_SE = 2.0
QUICK_EPISODES = 100
QUICK_BUDGET = 5_000

# --------------------------------------------------------------------------------------------
# Recipes: budgets and hyperparameters
# --------------------------------------------------------------------------------------------

#: Stable-Baselines3 PPO settings for every id unless its recipe says otherwise.
SB3_PPO_DEFAULTS: dict[str, Any] = {
    "n_steps": 256,  # per environment copy: 1,024 steps per update with 4 copies
    "batch_size": 64,
    "n_epochs": 10,
    "learning_rate": 3e-4,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "ent_coef": 0.0,
    "policy_kwargs": {"net_arch": [64, 64]},
}
#: Stable-Baselines3 DQN settings for every id unless its recipe says otherwise.
SB3_DQN_DEFAULTS: dict[str, Any] = {
    "learning_rate": 1e-3,
    "buffer_size": 50_000,
    "learning_starts": 1_000,
    "batch_size": 64,
    "gamma": 0.99,
    "train_freq": 4,
    "gradient_steps": 1,
    "target_update_interval": 1_000,
    "exploration_fraction": 0.2,
    "exploration_final_eps": 0.02,
    "policy_kwargs": {"net_arch": [64, 64]},
}
#: Ray RLlib PPO settings (``PPOConfig.training`` keywords) unless a recipe says otherwise.
RLLIB_PPO_DEFAULTS: dict[str, Any] = {
    "lr": 3e-4,
    "gamma": 0.99,
    "lambda_": 0.95,
    "train_batch_size_per_learner": 2_000,
    "minibatch_size": 128,
    "num_epochs": 10,
}
RLLIB_HIDDENS = [64, 64]
DEFAULT_BUDGET = 100_000
RLLIB_SAMPLE_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class ExpectedPenalty:
    """Train on a random penalty's expected cost instead of its draw, for the ``algos`` listed.

    The env's ``info`` says whether the penalty struck (``event``) and the chance it had
    (``probability``); the training reward adds back ``size * event`` and takes off
    ``size * probability``. The expected return of every policy stays the same, so the best
    policy does too; the noise of the draws goes. Evaluation scores the env's own rewards.
    """

    event: str
    probability: str
    size: float
    algos: tuple[str, ...] = ("ppo",)


@dataclass(frozen=True)
class Recipe:
    """How the agents of one environment are trained: budgets in environment steps and settings.

    ``sb3_ppo``, ``sb3_dqn`` and ``rllib_ppo`` update the defaults above. ``vec_normalize``
    maps ``"ppo"``/``"dqn"`` to ``VecNormalize`` keywords (``norm_obs``, ``norm_reward``, ...)
    for the Stable-Baselines3 training envs: the greedy policy applies the same frozen
    observation statistics. ``reward_scale`` maps ``"ppo"``/``"dqn"`` to a constant that
    multiplies that algorithm's training rewards (the best policy stays the same; the losses
    see better-sized numbers). ``reward_offset`` maps them to a constant added to every training
    reward before the scaling: in episodes of a fixed length it shifts every return by the same
    amount (the best policy stays the same), and it can take out a constant cost that no policy
    avoids, which the value function would otherwise have to learn to many digits.
    ``expected_penalty`` (:class:`ExpectedPenalty`) trains on a random penalty's expected cost.
    Evaluation always scores the env's own rewards.
    """

    budgets: dict[str, int] = field(default_factory=dict)  # agent -> steps, DEFAULT_BUDGET otherwise
    n_envs: int = 4
    vec_normalize: dict[str, dict[str, Any]] = field(default_factory=dict)
    reward_scale: dict[str, float] = field(default_factory=dict)
    reward_offset: dict[str, float] = field(default_factory=dict)
    expected_penalty: ExpectedPenalty | None = None
    sb3_ppo: dict[str, Any] = field(default_factory=dict)
    sb3_dqn: dict[str, Any] = field(default_factory=dict)
    rllib_ppo: dict[str, Any] = field(default_factory=dict)


#: heartpole-v0: the expected cost of the heart attacks at rest (hypertension 0), 100 x
#: 0.5 x sigmoid(-6) = 0.124 a step, that no policy avoids (0.12 % a half-hour even asleep).
HEARTPOLE_RESTING_ATTACK_COST = (
    HEART_ATTACK_PENALTY * DEFAULT_HEART_ATTACK_PROCLIVITY / (1.0 + math.exp(HEART_ATTACK_HYPERTENSION))
)

#: Recipes of the ids that need more (or less) than the default one. An id without a recipe
#: gets ``Recipe()``, so a new environment is in the table as soon as it is registered.
RECIPES: dict[str, Recipe] = {
    # 10-step walks: solved (the heuristic's return) within a few thousand steps
    "example-v0": Recipe(budgets={"sb3-ppo": 20_000, "sb3-dqn": 20_000, "rllib-ppo": 20_000}),
    # a contextual bandit with raw features (text length up to 5,120, hour, battery...): the
    # SB3 networks see them standardized
    "push-v0": Recipe(
        budgets={"sb3-ppo": 300_000, "sb3-dqn": 100_000, "rllib-ppo": 200_000},
        vec_normalize={"ppo": {"norm_obs": True, "norm_reward": False},
                       "dqn": {"norm_obs": True, "norm_reward": False}},
    ),
    # 1,000-step episodes whose return is dominated by -100 heart attacks, against score changes
    # of about 0.001 a step: rewards scaled by 0.01 keep the attacks inside the quadratic part of
    # DQN's Huber loss (unscaled, DQN learns as if they cost 1, and drinks coffee); a large batch,
    # a slow target network and learning rate average the attacks' noise out. PPO trains on the
    # attacks' expected cost (100 x heart_attack_probability) instead of their draws, less the
    # cost at rest that every policy pays (a constant a step, in 1,000-step episodes: the same
    # shift of every return), times 1,000 so that the score changes are of order 0.1 to 1, with
    # normalized observations (time_elapsed and work_done grow to 2,000 and 700) and updates of
    # 4,096 steps: it learns an alertness threshold (paired with the heuristic: -0.0013 ± 0.0004
    # at 400k steps, instead of -0.0090 with VecNormalize's reward normalization and -0.276 for
    # always-sleep). gamma 0.999 does worse (-0.010: a rule on time_since_slept, or always-sleep):
    # the returns then sum the noise of many wake-ups. DQN does worse with expected attacks (it
    # drinks now and then: -4.3), so it keeps the drawn attacks. No agent can beat the heuristic
    # by much: it is the best stationary policy (sleep when the next half-hour's work falls below
    # the long-run score, 0.32, i.e. alertness below about 0.38), see gym-suite/heartpole_policies.py.
    "heartpole-v0": Recipe(
        budgets={"sb3-ppo": 400_000, "sb3-dqn": 150_000, "rllib-ppo": 200_000},
        reward_scale={"dqn": 0.01, "ppo": 1000.0},
        reward_offset={"ppo": HEARTPOLE_RESTING_ATTACK_COST},
        expected_penalty=ExpectedPenalty("heart_attack", "heart_attack_probability", 100.0, algos=("ppo",)),
        vec_normalize={"ppo": {"norm_obs": True, "norm_reward": False}},
        sb3_ppo={"n_steps": 1024, "batch_size": 256},
        sb3_dqn={"batch_size": 256, "learning_rate": 3e-4, "target_update_interval": 5_000},
    ),
    # one continuous action per step; a hit ends the episode
    "target-v0": Recipe(budgets={"sb3-ppo": 100_000, "rllib-ppo": 100_000}),
}


def recipe_for(env_id: str) -> Recipe:
    return RECIPES.get(env_id, Recipe())


def _budget(env_id: str, agent: str, overrides: dict | None = None, quick: bool = False) -> int:
    overrides = overrides or {}
    for key in ((env_id, agent), (None, agent)):
        if key in overrides:
            return overrides[key]
    if quick:
        return QUICK_BUDGET
    return recipe_budget(env_id, agent)


def recipe_budget(env_id: str, agent: str) -> int:
    """The recipe's training budget of ``agent`` (``"sb3-ppo"``, ...) on ``env_id``, in env steps."""
    return recipe_for(env_id).budgets.get(agent, DEFAULT_BUDGET)


def parse_kwargs(items: list[str]) -> dict:
    """``["key=value", ...]`` (command-line env arguments) -> dict, values read as Python literals."""
    import ast

    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"expected KEY=VALUE, got {item!r}")
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value  # a bare word: a string
    return out


def single_thread_torch() -> None:
    """One torch thread: tiny networks train several times faster than with the default pool."""
    import torch

    torch.set_num_threads(1)


# --------------------------------------------------------------------------------------------
# Stable-Baselines3
# --------------------------------------------------------------------------------------------


def _stack(observations: list, space: spaces.Space):
    """A batch of single observations as one array (a dict of arrays for a ``Dict`` space)."""
    if isinstance(space, spaces.Dict):
        return {key: np.stack([np.asarray(o[key]) for o in observations]) for key in space.spaces}
    return np.stack([np.asarray(o) for o in observations])


def _env_actions(actions: np.ndarray, action_space: spaces.Space) -> list:
    """One action per row, as the env takes it: Python ints for ``Discrete``, arrays for ``Box``."""
    if isinstance(action_space, spaces.Discrete):
        return [int(a) for a in actions.reshape(-1).tolist()]
    return [np.asarray(a, dtype=action_space.dtype) for a in actions]


class SB3Policy:
    """A trained Stable-Baselines3 model as a greedy policy for :func:`gym_suite.evaluate`.

    Calling it maps one observation to one action; ``act_batch`` maps a list of observations
    to their actions in one forward pass. It holds the torch policy and, when the model trained
    under ``VecNormalize``, its frozen observation statistics, and pickles (to joblib workers).
    A model that acts in ``[-1, 1]`` for a bounded ``Box`` action space of the env (see
    :func:`make_sb3_env`) has its actions mapped back to the env's bounds.
    """

    def __init__(self, model, name: str = "sb3", normalizer=None):
        self.name = name
        self.policy = model.policy.to("cpu")
        self.policy.set_training_mode(False)
        self.observation_space = model.observation_space
        self.action_space = getattr(model, "env_action_space", None) or model.action_space
        self.rescale = _rescaled(self.action_space)
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
        obs = _stack(observations, self.observation_space)
        if self.normalizer is not None:
            obs = self.normalizer.normalize_obs(obs)
        actions, _ = self.policy.predict(obs, deterministic=True)
        if self.rescale:
            low, high = self.action_space.low, self.action_space.high
            actions = low + (np.clip(actions, -1.0, 1.0) + 1.0) * 0.5 * (high - low)
            actions = np.clip(actions, low, high)  # rounding must not step outside the bounds
        return _env_actions(actions, self.action_space)

    def __call__(self, observation):
        return self.act_batch([observation])[0]


def _rescaled(space: spaces.Space) -> bool:
    """Whether the agents act in ``[-1, 1]`` for this action space (a bounded float ``Box``)."""
    return (
        isinstance(space, spaces.Box)
        and np.issubdtype(space.dtype, np.floating)
        and space.is_bounded("both")
        and not (np.all(space.low == -1.0) and np.all(space.high == 1.0))
    )


class ScaleReward(gymnasium.RewardWrapper):
    """Multiply every reward by a constant, after adding ``offset`` to it (training only)."""

    def __init__(self, env, scale: float, offset: float = 0.0):
        super().__init__(env)
        self.scale = float(scale)
        self.offset = float(offset)

    def reward(self, reward):
        return self.scale * (float(reward) + self.offset)


class ExpectedPenaltyReward(gymnasium.Wrapper):
    """The reward with a random penalty's draw replaced by its expected cost (:class:`ExpectedPenalty`)."""

    def __init__(self, env, penalty: ExpectedPenalty):
        super().__init__(env)
        self.penalty = penalty

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(action)
        p = self.penalty
        reward = float(reward) + p.size * float(info[p.event]) - p.size * float(info[p.probability])
        return obs, reward, terminated, truncated, info


def _training_wrappers(env, reward_scale: float = 1.0, expected_penalty: ExpectedPenalty | None = None,
                       reward_offset: float = 0.0):
    if expected_penalty is not None:
        env = ExpectedPenaltyReward(env, expected_penalty)
    if _rescaled(env.action_space):
        # Gaussian policies start around 0 with unit spread: they explore a bounded Box only
        # when it is [-1, 1] (SB3's advice, and what RLlib's normalize_actions does)
        unit = np.ones(env.action_space.shape, dtype=env.action_space.dtype)
        env = RescaleAction(env, -unit, unit)
    if reward_scale != 1.0 or reward_offset != 0.0:
        env = ScaleReward(env, reward_scale, reward_offset)
    return env


def make_sb3_env(env_id: str, n_envs: int, seed: int, env_kwargs: dict | None = None,
                 vec_normalize: dict[str, Any] | None = None, reward_scale: float = 1.0,
                 expected_penalty: ExpectedPenalty | None = None, reward_offset: float = 0.0):
    """The vectorized training env: ``DummyVecEnv`` of monitored copies (the monitor logs the
    env's own rewards), a random penalty's draw replaced by its expected cost when
    ``expected_penalty`` is given, a bounded ``Box`` action space rescaled to ``[-1, 1]``,
    rewards shifted by ``reward_offset`` and scaled by ``reward_scale``, in ``VecNormalize`` when ``vec_normalize`` (its keyword
    arguments) is given."""
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import VecNormalize

    venv = make_vec_env(env_id, n_envs=n_envs, seed=seed, env_kwargs=env_kwargs, wrapper_class=_training_wrappers,
                        wrapper_kwargs={"reward_scale": reward_scale, "expected_penalty": expected_penalty,
                                        "reward_offset": reward_offset})
    if vec_normalize is not None:
        venv = VecNormalize(venv, **vec_normalize)
    return venv


def sb3_settings(env_id: str, algo: str) -> dict[str, Any]:
    """The keyword arguments of the Stable-Baselines3 model for ``algo`` (``"ppo"``/``"dqn"``)."""
    recipe = recipe_for(env_id)
    if algo == "ppo":
        return {**SB3_PPO_DEFAULTS, **recipe.sb3_ppo}
    if algo == "dqn":
        return {**SB3_DQN_DEFAULTS, **recipe.sb3_dqn}
    raise ValueError(f"unknown algorithm {algo!r}: choose 'ppo' or 'dqn'")


def train_sb3(
    env_id: str,
    algo: str = "ppo",
    steps: int | None = None,
    seed: int = 0,
    env_kwargs: dict | None = None,
    verbose: int = 0,
    progress_bar: bool = False,
):
    """Train Stable-Baselines3 ``algo`` (``"ppo"`` or ``"dqn"``) on ``env_id`` for ``steps`` env steps.

    Uses the id's recipe (:data:`RECIPES`) for the settings and, when ``steps`` is None, the
    budget. Returns the model; ``model.get_vec_normalize_env()`` holds the observation
    statistics when the recipe normalizes. Sets torch to one thread.
    """
    single_thread_torch()
    from stable_baselines3 import DQN, PPO
    from stable_baselines3.common.logger import HumanOutputFormat, Logger

    algo = algo.lower()
    settings = sb3_settings(env_id, algo)
    recipe = recipe_for(env_id)
    if steps is None:
        steps = recipe_budget(env_id, f"sb3-{algo}")
    probe = gymnasium.make(env_id, **(env_kwargs or {}))
    if algo == "dqn" and not isinstance(probe.action_space, spaces.Discrete):
        raise ValueError(f"DQN needs a Discrete action space; {env_id} has {probe.action_space}")
    policy = "MultiInputPolicy" if isinstance(probe.observation_space, spaces.Dict) else "MlpPolicy"
    n_envs = recipe.n_envs if algo == "ppo" else 1
    vec_normalize = recipe.vec_normalize.get(algo)
    if vec_normalize is not None:
        vec_normalize = {"gamma": settings.get("gamma", 0.99), **vec_normalize}
        if isinstance(probe.observation_space, spaces.Dict) and vec_normalize.get("norm_obs", True):
            # VecNormalize scales Box entries only: the Discrete ones are one-hot encoded
            vec_normalize.setdefault("norm_obs_keys", [
                key for key, space in probe.observation_space.spaces.items() if isinstance(space, spaces.Box)
            ])
    env_action_space = probe.action_space
    probe.close()
    penalty = recipe.expected_penalty if recipe.expected_penalty and algo in recipe.expected_penalty.algos else None
    venv = make_sb3_env(env_id, n_envs, seed, env_kwargs, vec_normalize, recipe.reward_scale.get(algo, 1.0), penalty,
                        recipe.reward_offset.get(algo, 0.0))
    cls = PPO if algo == "ppo" else DQN
    model = cls(policy, venv, seed=seed, device="cpu", verbose=verbose, **settings)
    # SB3's default logger makes a fresh directory under /tmp at every learn(): log to stdout only
    formats = [HumanOutputFormat(sys.stdout)] if verbose else []
    model.set_logger(Logger(folder=None, output_formats=formats))
    model.env_action_space = env_action_space  # what SB3Policy maps the [-1, 1] actions back to
    model.learn(total_timesteps=int(steps), progress_bar=progress_bar)
    return model


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

    archive, stats = _model_files(path)
    model = (PPO if algo.lower() == "ppo" else DQN).load(archive, device="cpu")
    env = gymnasium.make(env_id, **(env_kwargs or {}))
    model.env_action_space = env.action_space
    env.close()
    normalizer = None
    if stats.exists():
        normalizer = VecNormalize.load(stats, make_sb3_env(env_id, 1, 0, env_kwargs))
        normalizer.training = False
    return SB3Policy(model, name=f"sb3-{algo.lower()}", normalizer=normalizer)


# --------------------------------------------------------------------------------------------
# Ray RLlib
# --------------------------------------------------------------------------------------------


def rllib_config(
    env_id: str,
    env_config: dict | None = None,
    num_env_runners: int = 1,
    num_envs_per_env_runner: int = 1,
    seed: int = 0,
    **training: Any,
):
    """``PPOConfig`` for ``gym_suite:<env_id>``: the env runners import gym_suite themselves.

    Observations go through RLlib's ``FlattenObservations`` connector (one-hot for
    ``Discrete``, concatenation for ``Dict``), so every observation space meets the default
    fully connected model. ``training`` updates the id's recipe and :data:`RLLIB_PPO_DEFAULTS`.
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    settings = {**RLLIB_PPO_DEFAULTS, **recipe_for(env_id).rllib_ppo, **training}
    return (
        PPOConfig()
        .environment(f"gym_suite:{env_id}", env_config=dict(env_config or {}))
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=num_envs_per_env_runner,
            env_to_module_connector=_flatten_connector,
            # wait for every runner's samples (the default, 60 s, drops a slow runner's batch: on a
            # busy machine an iteration could then train on nothing)
            sample_timeout_s=RLLIB_SAMPLE_TIMEOUT_S,
        )
        .learners(num_learners=0)  # the learner trains in the driver process
        .training(**settings)
        .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=list(RLLIB_HIDDENS)))
        .debugging(seed=seed)
    )


def _flatten_connector(env=None, spaces=None, device=None):
    from ray.rllib.connectors.env_to_module import FlattenObservations

    return FlattenObservations()


def rllib_module_path(checkpoint: str | os.PathLike) -> Path:
    """Where an algorithm checkpoint keeps the learner's (single) RLModule."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE, DEFAULT_MODULE_ID

    return Path(checkpoint) / COMPONENT_LEARNER_GROUP / COMPONENT_LEARNER / COMPONENT_RL_MODULE / DEFAULT_MODULE_ID


class RLlibPolicy:
    """A trained RLlib RLModule as a greedy policy for :func:`gym_suite.evaluate`.

    It repeats what the env runners do around the module: flatten the observation as the
    ``FlattenObservations`` connector does, take the distribution's deterministic action
    (argmax, or the Gaussian mean) and, for ``Box`` actions, unsquash it to the bounds as
    ``normalize_actions=True`` (RLlib's default) does.
    """

    def __init__(self, module, observation_space: spaces.Space, action_space: spaces.Space,
                 normalize_actions: bool = True, name: str = "rllib-ppo"):
        self.name = name
        self.module = module
        self.module.eval()
        self.observation_space = observation_space
        self.action_space = action_space
        self.normalize_actions = normalize_actions

    @classmethod
    def from_checkpoint(cls, checkpoint: str | os.PathLike, env_id: str, env_config: dict | None = None,
                        normalize_actions: bool = True) -> RLlibPolicy:
        from ray.rllib.core.rl_module.rl_module import RLModule

        module = RLModule.from_checkpoint(rllib_module_path(checkpoint))
        env = gymnasium.make(env_id, **(env_config or {}))
        try:
            return cls(module, env.observation_space, env.action_space, normalize_actions)
        finally:
            env.close()

    def act_batch(self, observations: list) -> list:
        import torch
        from ray.rllib.utils.numpy import flatten_inputs_to_1d_tensor
        from ray.rllib.utils.spaces.space_utils import get_base_struct_from_space, unsquash_action

        struct = get_base_struct_from_space(self.observation_space)
        flat = np.stack([flatten_inputs_to_1d_tensor(o, struct, batch_axis=False) for o in observations])
        with torch.no_grad():
            out = self.module.forward_inference({"obs": torch.as_tensor(flat, dtype=torch.float32)})
            dist = self.module.get_inference_action_dist_cls().from_logits(out["action_dist_inputs"])
            actions = dist.to_deterministic().sample().numpy()
        if isinstance(self.action_space, spaces.Box):
            if self.normalize_actions:
                actions = np.stack([unsquash_action(a, self.action_space) for a in actions])
            else:
                actions = np.clip(actions, self.action_space.low, self.action_space.high)
        return _env_actions(actions, self.action_space)

    def __call__(self, observation):
        return self.act_batch([observation])[0]


def train_rllib(
    env_id: str,
    steps: int | None = None,
    seed: int = 0,
    env_config: dict | None = None,
    num_env_runners: int = 1,
    checkpoint_dir: str | os.PathLike | None = None,
    iterations: int | None = None,
    report=None,
    **training: Any,
) -> tuple[Path, int]:
    """Train RLlib PPO on ``gym_suite:<env_id>`` and save a checkpoint; Ray must be running.

    Trains ``iterations`` iterations or, by default, until ``steps`` env steps (the recipe's
    budget when None) are sampled. ``report``, when given, is called with each iteration's
    number and result dict. Returns ``(checkpoint directory, env steps sampled)``. Sets torch
    to one thread (the learner trains in this process).
    """
    single_thread_torch()
    if steps is None:
        steps = recipe_budget(env_id, "rllib-ppo")
    config = rllib_config(env_id, env_config, num_env_runners, seed=seed, **training)
    if iterations is None:
        iterations = -(-steps // config.train_batch_size_per_learner)  # ceil
    algo = config.build_algo()
    sampled = 0
    try:
        for i in range(iterations):
            result = algo.train()
            sampled = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
            if report is not None:
                report(i + 1, result)
        checkpoint_dir = Path(checkpoint_dir or tempfile.mkdtemp(prefix="gym_suite_rllib_")).resolve()
        algo.save_to_path(str(checkpoint_dir))
    finally:
        algo.stop()
    return checkpoint_dir, sampled


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
        from ray.rllib.algorithms.ppo import PPOConfig  # noqa: F401
    except ImportError:
        return False
    return True


def sb3_available() -> bool:
    try:
        import stable_baselines3  # noqa: F401
    except ImportError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------


@dataclass
class Row:
    """One line of the baselines table (``returns``: per episode, in seed order)."""

    env_id: str
    agent: str
    episodes: int
    seed: int
    mean: float
    std: float
    mean_length: float
    train_steps: int | None = None
    train_seconds: float | None = None
    eval_seconds: float = 0.0
    returns: np.ndarray | None = field(default=None, repr=False)
    vs_random: Comparison | None = None
    vs_heuristic: Comparison | None = None

    @classmethod
    def from_result(cls, agent: str, result: EvalResult, eval_seconds: float, **extra) -> Row:
        return cls(result.env_id, agent, len(result.returns), result.seed, result.mean, result.std,
                   result.mean_length, eval_seconds=eval_seconds, returns=result.returns, **extra)


@dataclass(frozen=True)
class Comparison:
    """Mean and standard error of the per-episode difference of returns between two agents.

    Both agents played the same seeded episodes, so the difference is taken episode by episode
    (a paired comparison): randomness the two share (the same start, the same draws where the
    env's random stream lines up) cancels out.
    """

    diff: float
    se: float

    @property
    def better(self) -> bool:
        """Higher by more than :data:`MARGIN_SE` standard errors."""
        return self.diff > MARGIN_SE * self.se if self.se > 0 else self.diff > 0

    def __str__(self) -> str:
        return f"{_short(self.diff, '+')} ± {_short(self.se)} ({'yes' if self.better else 'no'})"


def _short(x: float, sign: str = "") -> str:
    """Three significant digits, without exponents for numbers of a few thousands."""
    if abs(x) >= 1000:
        return format(x, f"{sign},.0f")
    return format(x, f"{sign}.3g")


def compare(a: Row, b: Row | None) -> Comparison | None:
    """``a`` against ``b`` on the same episodes (None when ``b`` is missing or played others)."""
    if b is None or a.returns is None or b.returns is None or a.seed != b.seed or a.episodes != b.episodes:
        return None
    d = np.asarray(a.returns, dtype=np.float64) - np.asarray(b.returns, dtype=np.float64)
    se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else 0.0
    return Comparison(float(d.mean()), se)


def _compare(rows: list[Row]) -> None:
    by_key = {(r.env_id, r.agent): r for r in rows}
    for row in rows:
        if row.agent in TRAINED_AGENTS:
            row.vs_random = compare(row, by_key.get((row.env_id, "random")))
            row.vs_heuristic = compare(row, by_key.get((row.env_id, "heuristic")))


CSV_FIELDS = ("env_id", "agent", "episodes", "seed", "mean_return", "std_return", "mean_length", "train_steps",
              "train_seconds", "eval_seconds", "diff_vs_random", "se_vs_random", "beats_random",
              "diff_vs_heuristic", "se_vs_heuristic", "beats_heuristic")


def _fmt(value, spec: str) -> str:
    return "" if value is None else format(value, spec)


def write_csv(rows: list[Row], path: str | os.PathLike) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(CSV_FIELDS)
        for r in rows:
            cells = [r.env_id, r.agent, r.episodes, r.seed, f"{r.mean:.6g}", f"{r.std:.6g}", f"{r.mean_length:.6g}",
                     _fmt(r.train_steps, "d"), _fmt(r.train_seconds, ".1f"), f"{r.eval_seconds:.1f}"]
            for c in (r.vs_random, r.vs_heuristic):
                cells += ["", "", ""] if c is None else [f"{c.diff:.6g}", f"{c.se:.6g}", c.better]
            writer.writerow(cells)


def _versions() -> str:
    names = ("gymnasium", "numpy", "torch", "stable-baselines3", "ray")
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(found)


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def to_markdown(rows: list[Row], command: str, notes: list[str], total_seconds: float) -> str:
    episodes = sorted({r.episodes for r in rows})
    seeds = sorted({r.seed for r in rows})
    lines = [
        "# Baselines",
        "",
        "Reproduce with",
        "",
        "```bash",
        command,
        "```",
        "",
        f"Measured on {date.today().isoformat()} on {_cpu_name()} ({os.cpu_count()} cores), Python "
        f"{platform.python_version()}, {_versions()}; the whole run took {total_seconds / 60:.1f} min.",
        "",
        f"Return: mean ± standard deviation over {'/'.join(map(str, episodes))} evaluation episodes, episode "
        f"*i* reset with seed {'/'.join(map(str, seeds))} + *i*: the same episodes for every agent. Trained "
        "agents act greedily (the most probable action, or the mean). Budget: environment steps of training. "
        "Train and eval: wall time in seconds (training with one torch thread on the CPU; evaluation "
        "in parallel on every core). "
        "− random, − heuristic: the trained agent's return minus the other's, episode by episode (same seeds), "
        f"mean ± standard error; yes when it is above zero by more than {MARGIN_SE:g} standard errors. "
        "Budgets and settings: `RECIPES` in `gym_suite/baselines.py`, sized for a run of well under an hour "
        "on 2 cores.",
        "",
        "| environment | agent | return (mean ± std) | mean length | budget (steps) | train (s) | eval (s) "
        "| − random | − heuristic |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| `{r.env_id}` | {AGENT_LABELS.get(r.agent, r.agent)} | {r.mean:.2f} ± {r.std:.2f} | "
            f"{r.mean_length:.1f} | {'' if r.train_steps is None else f'{r.train_steps:,}'} | "
            f"{'' if r.train_seconds is None else f'{r.train_seconds:.0f}'} | {r.eval_seconds:.1f} | "
            f"{r.vs_random or ''} | {r.vs_heuristic or ''} |"
        )
    if notes:
        lines += ["", *[f"- {note}" for note in notes]]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------
# Running it
# --------------------------------------------------------------------------------------------


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run(
    ids: list[str],
    agents: list[str],
    episodes: int = 1000,
    seed: int = 0,
    n_jobs: int = -1,
    budgets: dict | None = None,
    quick: bool = False,
    num_env_runners: int = 1,
) -> tuple[list[Row], list[str]]:
    """Evaluate and train ``agents`` on every id in ``ids``: ``(rows, notes)``."""
    rows: list[Row] = []
    notes: list[str] = []
    use_rllib = "rllib-ppo" in agents
    ray_started = False
    if use_rllib:
        import ray

        if not ray.is_initialized():
            ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
            ray_started = True
    try:
        for env_id in ids:
            probe = gymnasium.make(env_id)
            discrete = isinstance(probe.action_space, spaces.Discrete)
            probe.close()
            for agent in agents:
                if agent == "sb3-dqn" and not discrete:
                    notes.append(f"`{env_id}`: no DQN row, the action space is continuous.")
                    continue
                row = _run_agent(env_id, agent, episodes, seed, n_jobs, budgets, quick, num_env_runners)
                rows.append(row)
                _log(f"{env_id:<14} {AGENT_LABELS[agent]:<10} {row.mean:10.3f} ± {row.std:<9.3f}"
                     f" train {row.train_steps or 0:>8} steps {row.train_seconds or 0:7.1f} s"
                     f"  eval {row.eval_seconds:6.1f} s")
    finally:
        if ray_started:
            import ray

            ray.shutdown()
    _compare(rows)
    return rows, notes


def _run_agent(env_id, agent, episodes, seed, n_jobs, budgets, quick, num_env_runners) -> Row:
    train_steps = train_seconds = None
    if agent in ("random", "heuristic"):
        policy = agent
    else:
        steps = _budget(env_id, agent, budgets, quick)
        start = time.perf_counter()
        if agent in ("sb3-ppo", "sb3-dqn"):
            algo = agent.split("-")[1]
            model = train_sb3(env_id, algo, steps, seed=seed)
            policy = SB3Policy(model, name=agent)
            train_steps = int(model.num_timesteps)
        else:
            checkpoint_dir = Path(tempfile.mkdtemp(prefix="gym_suite_rllib_"))
            try:
                checkpoint, train_steps = train_rllib(env_id, steps, seed=seed, num_env_runners=num_env_runners,
                                                      checkpoint_dir=checkpoint_dir)
                policy = RLlibPolicy.from_checkpoint(checkpoint, env_id)
            finally:
                shutil.rmtree(checkpoint_dir, ignore_errors=True)
        train_seconds = time.perf_counter() - start
    start = time.perf_counter()
    result = evaluate(env_id, policy, episodes=episodes, seed=seed, n_jobs=n_jobs)
    return Row.from_result(agent, result, time.perf_counter() - start, train_steps=train_steps,
                           train_seconds=train_seconds)


def _parse_budget(text: str) -> tuple[tuple[str | None, str], int]:
    """``[ID:]AGENT=STEPS`` -> ``((id or None, agent), steps)``."""
    try:
        target, steps = text.rsplit("=", 1)
        env_id, _, agent = target.rpartition(":")
        steps = int(steps.replace("_", "").replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: expected [ID:]AGENT=STEPS, e.g. sb3-ppo=50000") from None
    if agent not in TRAINED_AGENTS:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: agent must be one of {list(TRAINED_AGENTS)}")
    if env_id and env_id not in gym_suite.ENV_IDS:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: unknown id {env_id!r}; ids are {list(gym_suite.ENV_IDS)}")
    if steps < 1:
        raise argparse.ArgumentTypeError(f"--budget {text!r}: steps must be positive")
    return (env_id or None, agent), steps


def _csv_list(choices):
    def parse(text: str) -> list[str]:
        items = [t for t in text.split(",") if t]
        bad = [t for t in items if t not in choices]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"unknown {bad or text!r}; choose from {list(choices)}")
        return items

    return parse


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gym-suite baselines",
        description="Random, heuristic and trained agents (SB3 PPO/DQN, RLlib PPO) on every gym-suite id: "
        "a Markdown table and a CSV file.",
    )
    parser.add_argument("--ids", type=_csv_list(gym_suite.ENV_IDS), default=list(gym_suite.ENV_IDS),
                        help="comma-separated ids (default: every registered id)")
    parser.add_argument("--agents", type=_csv_list(AGENTS), default=list(AGENTS),
                        help=f"comma-separated agents (default: {','.join(AGENTS)})")
    parser.add_argument("--episodes", type=int, default=None,
                        help=f"evaluation episodes per agent (default 1000; {QUICK_EPISODES} with --quick)")
    parser.add_argument("--seed", type=int, default=0, help="training seed and first evaluation seed")
    parser.add_argument("--jobs", type=int, default=-1, help="evaluation processes (-1: every core)")
    parser.add_argument("--budget", type=_parse_budget, action="append", default=[], metavar="[ID:]AGENT=STEPS",
                        help="training budget override, repeatable, e.g. heartpole-v0:sb3-ppo=300000")
    parser.add_argument("--num-env-runners", type=int, default=1, help="RLlib remote env runners")
    parser.add_argument("--no-rllib", action="store_true", help="leave out RLlib PPO even when ray is installed")
    parser.add_argument("--quick", action="store_true",
                        help=f"smoke run: {QUICK_BUDGET:,} training steps and {QUICK_EPISODES} episodes")
    parser.add_argument("--out-md", default="docs/baselines.md", help="Markdown output ('' for none)")
    parser.add_argument("--out-csv", default="docs/baselines.csv", help="CSV output ('' for none)")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    episodes = args.episodes or (QUICK_EPISODES if args.quick else 1000)
    if episodes < 1:
        parser.error("--episodes must be positive")
    agents = list(args.agents)
    skipped = []
    if "rllib-ppo" in agents and (args.no_rllib or not ray_available()):
        agents.remove("rllib-ppo")
        skipped.append("RLlib PPO: not run (" + ("--no-rllib" if args.no_rllib else "ray is not installed") + ").")
    if not sb3_available():
        for agent in ("sb3-ppo", "sb3-dqn"):
            if agent in agents:
                agents.remove(agent)
                skipped.append(f"{AGENT_LABELS[agent]}: not run (stable-baselines3 is not installed).")
    budgets = dict(args.budget)
    start = time.perf_counter()
    rows, notes = run(args.ids, agents, episodes=episodes, seed=args.seed, n_jobs=args.jobs, budgets=budgets,
                      quick=args.quick, num_env_runners=args.num_env_runners)
    total = time.perf_counter() - start
    command = " ".join(["gym-suite baselines", *(argv if argv is not None else sys.argv[1:])]).strip()
    markdown = to_markdown(rows, command, notes + skipped, total)
    print(markdown)
    if args.out_md:
        Path(args.out_md).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out_md).write_text(markdown, encoding="utf-8")
    if args.out_csv:
        write_csv(rows, args.out_csv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
