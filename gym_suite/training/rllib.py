"""Ray RLlib PPO on the suite, and the greedy policy of a trained module for :func:`gym_suite.evaluate`.

Needs the ``rllib`` extra: ``pip install "gym-suite[rllib]"``. :func:`rllib_config` makes a ready
``PPOConfig`` for any suite id: the env is ``"gym_suite:<id>"`` (whose ``module:id`` form imports
``gym_suite`` in every env runner, remote ones too), stepped as the id's native numpy vector env
(``gym_env_vectorize_mode="vector_entry_point"``); ``Discrete`` and ``Dict`` observations go through
RLlib's ``FlattenObservations`` connector. :class:`RLlibPolicy` acts greedily with the trained
RLModule: ``RLlibPolicy.from_algorithm(algo)`` or ``RLlibPolicy.from_checkpoint``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

try:
    import ray  # noqa: F401
    from ray.rllib.algorithms.ppo import PPOConfig
except ImportError as exc:  # pragma: no cover - depends on the extras installed
    raise ImportError('gym_suite.training.rllib needs Ray RLlib: pip install "gym-suite[rllib]"') from exc

from gym_suite.training import single_thread_torch
from gym_suite.training.recipes import RLLIB_HIDDENS, recipe_budget, rllib_ppo_settings
from gym_suite.training.wrappers import env_actions

#: How long an iteration waits for the env runners' samples. RLlib's default, 60 s, drops a slow
#: runner's batch: on a busy machine an iteration could then train on nothing.
RLLIB_SAMPLE_TIMEOUT_S = 600.0


#: The ``gym_env_vectorize_mode`` of :func:`rllib_config`: the native vector env of the id.
NATIVE_VECTORIZE_MODE = "vector_entry_point"


def suite_env_name(env_id: str) -> str:
    """``"gym_suite:<id>"``, the form that imports gym_suite wherever the env is made (``<id>`` taken as is)."""
    if not isinstance(env_id, str):
        raise TypeError(f"env_id must be a suite id (a str such as 'push-v0'), got {type(env_id).__name__}")
    return env_id if env_id.startswith("gym_suite:") else f"gym_suite:{env_id}"


def needs_flattening(space: spaces.Space) -> bool:
    """Whether RLlib's default model needs ``FlattenObservations`` for this observation space
    (anything but a one-dimensional ``Box``: ``Discrete`` and ``Dict`` have no default encoder)."""
    return not (isinstance(space, spaces.Box) and len(space.shape) == 1)


def rllib_config(
    env_id: str,
    env_config: dict | None = None,
    num_env_runners: int = 1,
    num_envs_per_env_runner: int = 1,
    seed: int = 0,
    *,
    gym_env_vectorize_mode: str = NATIVE_VECTORIZE_MODE,
    **training: Any,
) -> PPOConfig:
    """A ready ``PPOConfig`` for ``gym_suite:<env_id>`` (see the module's docstring).

    ``env_config``: the env's arguments (``max_episode_steps`` included), checked here by
    making the env once, so that a bad one fails now and not in a remote env runner.
    ``gym_env_vectorize_mode``: ``"vector_entry_point"`` (the native vector env, the default),
    or gymnasium's ``"sync"`` / ``"async"`` vectorization of the scalar env. ``training``
    updates the id's recipe and the recipes' defaults (``PPOConfig.training`` keywords).
    The config is a builder as usual: ``.env_runners(...)``, ``.resources(...)`` and the
    like change it further.
    """
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

    name = suite_env_name(env_id)
    env_config = dict(env_config or {})
    probe = gymnasium.make(name, **env_config)  # the env's own errors for bad arguments
    observation_space = probe.observation_space
    probe.close()
    runners: dict[str, Any] = {
        "num_env_runners": num_env_runners,
        "num_envs_per_env_runner": num_envs_per_env_runner,
        "gym_env_vectorize_mode": gym_env_vectorize_mode,
        "sample_timeout_s": RLLIB_SAMPLE_TIMEOUT_S,
    }
    if needs_flattening(observation_space):
        runners["env_to_module_connector"] = _flatten_connector
    return (
        PPOConfig()
        .environment(name, env_config=env_config)
        .env_runners(**runners)
        .learners(num_learners=0)  # the learner trains in the driver process
        .training(**rllib_ppo_settings(name.split(":", 1)[1], **training))
        .rl_module(model_config=DefaultModelConfig(fcnet_hiddens=list(RLLIB_HIDDENS)))
        .debugging(seed=seed)
    )


def _flatten_connector(env=None, spaces=None, device=None):
    from ray.rllib.connectors.env_to_module import FlattenObservations

    return FlattenObservations()


def rllib_module_path(checkpoint: str | os.PathLike) -> Path:
    """Where an algorithm checkpoint keeps the learner's (single) RLModule: an absolute path (a
    relative ``checkpoint`` is taken from the working directory; RLlib reads only absolute ones)."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_LEARNER_GROUP, COMPONENT_RL_MODULE, DEFAULT_MODULE_ID

    if not isinstance(checkpoint, (str, os.PathLike)):
        raise TypeError(f"checkpoint must be a path (str or os.PathLike), got {type(checkpoint).__name__}")
    root = Path(checkpoint).expanduser().resolve()
    return root / COMPONENT_LEARNER_GROUP / COMPONENT_LEARNER / COMPONENT_RL_MODULE / DEFAULT_MODULE_ID


def _algorithm_env(config) -> gymnasium.Env:
    """One env of an algorithm's config, for its spaces: ``config.env`` an id (``gymnasium.make``)
    or, as RLlib also takes, an env class or creator called with ``env_config``."""
    env, env_config = config.env, dict(config.env_config or {})
    if isinstance(env, str):
        try:
            return gymnasium.make(env, **env_config)
        except gymnasium.error.NameNotFound:
            from ray.tune.registry import ENV_CREATOR, _global_registry

            if not _global_registry.contains(ENV_CREATOR, env):
                raise
            made = _global_registry.get(ENV_CREATOR, env)(config.env_config)
    elif callable(env):
        from ray.rllib.env.env_context import EnvContext

        made = env(EnvContext(env_config, worker_index=0))
    else:
        raise ValueError(
            "RLlibPolicy.from_algorithm: the algorithm's config names no env (config.env is "
            f"{type(env).__name__}); build it with .environment(<id or env class>, env_config=...)"
        )
    if not isinstance(made, gymnasium.Env):
        raise TypeError(
            f"RLlibPolicy.from_algorithm: the algorithm's env {env!r} made a {type(made).__name__}, not a gymnasium.Env"
        )
    return made


class RLlibPolicy:
    """A trained RLlib RLModule as a greedy policy for :func:`gym_suite.evaluate`: the env runners'
    flattening, ``forward_inference``, the deterministic action, unsquashed to a ``Box``'s bounds
    as ``normalize_actions=True`` does. ``act_batch`` maps a list of observations in one pass."""

    def __init__(
        self,
        module,
        observation_space: spaces.Space,
        action_space: spaces.Space,
        normalize_actions: bool = True,
        name: str = "rllib-ppo",
    ):
        self.name = name
        self.module = module
        self.module.eval()
        self.observation_space = observation_space
        self.action_space = action_space
        self.normalize_actions = normalize_actions

    @classmethod
    def from_algorithm(cls, algo, normalize_actions: bool | None = None) -> RLlibPolicy:
        """The greedy policy of a copy of a built algorithm's module, as it is now (training on
        does not change it); ``normalize_actions`` defaults to the algorithm's setting."""
        import copy

        module = algo.get_module()
        if module is None:
            raise ValueError("the algorithm has no RLModule to act with (RLlib's get_module() gave None)")
        config = algo.config
        if normalize_actions is None:
            normalize_actions = bool(config.normalize_actions)
        env = _algorithm_env(config)
        try:
            return cls(copy.deepcopy(module), env.observation_space, env.action_space, normalize_actions)
        finally:
            env.close()

    @classmethod
    def from_checkpoint(
        cls, checkpoint: str | os.PathLike, env_id: str, env_config: dict | None = None, normalize_actions: bool = True
    ) -> RLlibPolicy:
        """The greedy policy of the module saved in an algorithm checkpoint (``algo.save_to_path``,
        :func:`train_rllib`); ``checkpoint`` absolute or relative to the working directory."""
        from ray.rllib.core.rl_module.rl_module import RLModule

        path = rllib_module_path(checkpoint)
        if not path.is_dir():
            where = Path(checkpoint).expanduser().resolve()
            raise FileNotFoundError(
                f"{checkpoint}: no RLlib algorithm checkpoint there ({where} has no "
                f"{path.relative_to(where)}); give the directory algo.save_to_path() or train_rllib wrote"
            )
        module = RLModule.from_checkpoint(path)
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
        return env_actions(actions, self.action_space)

    def __call__(self, observation):
        return self.act_batch([observation])[0]


def train_rllib(
    env_id: str,
    steps: int | None = None,
    seed: int = 0,
    env_config: dict | None = None,
    num_env_runners: int = 1,
    *,
    checkpoint_dir: str | os.PathLike,
    num_envs_per_env_runner: int = 1,
    iterations: int | None = None,
    report=None,
    **training: Any,
) -> tuple[Path, int]:
    """Train RLlib PPO on ``gym_suite:<env_id>`` and save a checkpoint in ``checkpoint_dir``; Ray must be running.

    Trains ``iterations`` iterations or, by default, until ``steps`` env steps (the recipe's
    budget when None) are sampled. ``report``, when given, is called with each iteration's
    number and result dict. Returns ``(checkpoint directory, env steps sampled)``. Sets torch
    to one thread (the learner trains in this process).
    """
    single_thread_torch()
    if steps is None:
        steps = recipe_budget(env_id, "rllib-ppo")
    config = rllib_config(env_id, env_config, num_env_runners, num_envs_per_env_runner, seed=seed, **training)
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
        checkpoint_dir = Path(checkpoint_dir).resolve()
        algo.save_to_path(str(checkpoint_dir))
    finally:
        algo.stop()
    return checkpoint_dir, sampled
