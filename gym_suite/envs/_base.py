"""The edges every gym-suite environment shares.

The rules of each environment are written once, as plain arithmetic over their state, with
masks in place of branches. They take an ``ops`` namespace for the few functions that are not
operators (``exp``, ``where``, ...): :data:`SCALAR_OPS` runs them on Python floats at full scalar
speed, :data:`ARRAY_OPS` on numpy arrays for the native vector environments. Everything here
is what surrounds the rules: configuration, input checks, episode bookkeeping and the vector
env's next-step autoreset.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import gymnasium
import numpy as np
from gymnasium.error import ResetNeeded
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space


def _scalar_where(condition, if_true, if_false):
    return if_true if condition else if_false


#: Functions the rules may call, for Python floats.
SCALAR_OPS = SimpleNamespace(
    exp=math.exp,
    sqrt=math.sqrt,
    abs=abs,
    minimum=min,
    maximum=max,
    where=_scalar_where,
)

#: The same functions for numpy arrays (elementwise).
ARRAY_OPS = SimpleNamespace(
    exp=np.exp,
    sqrt=np.sqrt,
    abs=np.abs,
    minimum=np.minimum,
    maximum=np.maximum,
    where=np.where,
)


def sigmoid(x, ops):
    """Logistic function that never overflows, for floats or arrays."""
    e = ops.exp(-ops.abs(x))  # in (0, 1]: no overflow however large |x| is
    positive = 1.0 / (1.0 + e)
    return ops.where(x >= 0, positive, e * positive)


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


def resolve_config(owner: str, defaults: Mapping[str, Any], env_config, kwargs) -> dict:
    """Merge ``env_config`` (a dict, as Ray RLlib passes) and keyword arguments over the defaults.

    An unknown key raises ``TypeError`` naming the allowed ones. Keyword arguments win over
    ``env_config`` entries of the same name.
    """
    merged: dict[str, Any] = {}
    if env_config is not None:
        if not isinstance(env_config, Mapping):
            raise TypeError(
                f"{owner}: the positional argument is env_config, a dict of the keyword arguments "
                f"{sorted(defaults)}; got {type(env_config).__name__} {env_config!r}"
            )
        merged.update(env_config)
    merged.update(kwargs)
    unknown = sorted(set(merged) - set(defaults), key=str)
    if unknown:
        raise TypeError(
            f"{owner} got unknown argument(s) {unknown}; allowed arguments are {sorted(defaults)}"
        )
    return {**defaults, **merged}


def check_render_mode(owner: str, render_mode, render_modes) -> str | None:
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(
            f"{owner}: render_mode={render_mode!r} is not supported; "
            f"choose one of {list(render_modes)} or None"
        )
    return render_mode


def check_int(owner: str, name: str, value, minimum: int | None = None, allow_none=False):
    """An integer argument (``bool`` excluded), optionally bounded below."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{owner}: {name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{owner}: {name} must be >= {minimum}, got {value!r}")
    return int(value)


def check_number(owner: str, name: str, value, low=-math.inf, high=math.inf) -> float:
    """A finite real argument within ``[low, high]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{owner}: {name} must be a number, got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"{owner}: {name} must be a finite number in [{low}, {high}], got {value!r}")
    return value


def check_discrete_action(action, n: int) -> int:
    """Return ``action`` as an ``int`` in ``range(n)`` or raise ``ValueError``/``TypeError``."""
    if action.__class__ is int and 0 <= action < n:  # the fast path: a plain int in range
        return action
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(
            f"invalid action {action!r} of type {type(action).__name__}: "
            f"expected an integer in 0..{n - 1} (Discrete({n}))"
        )
    if not 0 <= action < n:
        raise ValueError(f"invalid action {action!r}: expected an integer in 0..{n - 1} (Discrete({n}))")
    return int(action)


def check_discrete_actions(actions, num_envs: int, n: int) -> np.ndarray:
    """A batch of ``num_envs`` actions from ``Discrete(n)``, as an int64 array."""
    arr = np.asarray(actions)
    if arr.shape != (num_envs,) or arr.dtype.kind not in "iu":
        raise ValueError(
            f"invalid actions: expected an integer array of shape ({num_envs},) with values in "
            f"0..{n - 1}, got shape {arr.shape} and dtype {arr.dtype}"
        )
    if num_envs and (arr.min() < 0 or arr.max() >= n):
        bad = int(np.flatnonzero((arr < 0) | (arr >= n))[0])
        raise ValueError(
            f"invalid action {arr[bad]!r} for sub-environment {bad}: expected values in 0..{n - 1} (Discrete({n}))"
        )
    return arr


# --------------------------------------------------------------------------------------------
# Base classes
# --------------------------------------------------------------------------------------------


class SuiteEnv(gymnasium.Env):
    """Base of the scalar environments: argument handling and the end-of-episode guard.

    Subclasses set ``ARGUMENTS`` (name -> default, ``render_mode`` and ``max_episode_steps``
    included) and call :meth:`_configure` first thing in ``__init__``. ``step`` implementations
    call :meth:`_start_step` before touching the state and :meth:`_end_step` to count the step,
    which truncates at ``max_episode_steps`` and then refuses further steps until ``reset``.
    """

    ARGUMENTS: dict[str, Any] = {"render_mode": None, "max_episode_steps": None}

    def _configure(self, env_config, kwargs) -> SimpleNamespace:
        owner = type(self).__name__
        cfg = resolve_config(owner, self.ARGUMENTS, env_config, kwargs)
        self.render_mode = check_render_mode(owner, cfg["render_mode"], self.metadata["render_modes"])
        self.max_episode_steps = check_int(owner, "max_episode_steps", cfg["max_episode_steps"], 1, allow_none=True)
        self._ended = True  # no step before the first reset
        self._elapsed_steps = 0
        return SimpleNamespace(**cfg)

    def _start_reset(self, seed, options, allowed_options=()):
        super().reset(seed=seed)
        if options:
            unknown = sorted(set(options) - set(allowed_options), key=str)
            if unknown:
                raise ValueError(
                    f"{type(self).__name__}.reset got unknown option(s) {unknown}; "
                    f"allowed options are {sorted(allowed_options) or 'none'}"
                )
        self._ended = False
        self._elapsed_steps = 0

    def _start_step(self):
        if self._ended:
            raise ResetNeeded(
                f"{type(self).__name__}: the episode has ended (or reset() was never called); "
                "call reset() before step()"
            )

    def _end_step(self, terminated: bool) -> bool:
        """Count the step; return ``truncated`` and remember whether the episode is over."""
        self._elapsed_steps += 1
        limit = self.max_episode_steps
        truncated = limit is not None and self._elapsed_steps >= limit and not terminated
        self._ended = terminated or truncated
        return truncated


class SuiteVectorEnv(VectorEnv):
    """Base of the native vector environments: N copies in numpy arrays, next-step autoreset.

    Subclasses set ``single_observation_space``/``single_action_space`` in ``__init__`` (after
    :meth:`_configure`) and implement ``_reset_rows(mask)`` (draw a fresh start for the rows in
    ``mask``), ``_advance(actions)`` (apply the rules to every row and return
    ``(reward, terminated, info)``) and ``_observe()`` (a fresh observation batch).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}
    scalar_env: type[SuiteEnv]

    def _configure(self, num_envs, env_config, kwargs) -> SimpleNamespace:
        owner = type(self).__name__
        self.num_envs = check_int(owner, "num_envs", num_envs, 1)
        cfg = resolve_config(owner, self.scalar_env.ARGUMENTS, env_config, kwargs)
        self.render_mode = check_render_mode(owner, cfg["render_mode"], self.metadata["render_modes"])
        self.max_episode_steps = check_int(owner, "max_episode_steps", cfg["max_episode_steps"], 1, allow_none=True)
        self._steps = np.zeros(self.num_envs, dtype=np.int64)
        self._prev_done = np.zeros(self.num_envs, dtype=bool)
        self._started = False
        return SimpleNamespace(**cfg)

    def _batch_spaces(self):
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(self, *, seed=None, options=None):
        if seed is not None and not isinstance(seed, (int, np.integer)):
            # one seed per sub-environment: fold them into one generator for the batch
            seeds = [check_int(type(self).__name__, "seed", s, 0) for s in seed]
            if len(seeds) != self.num_envs:
                raise ValueError(f"expected {self.num_envs} seeds, got {len(seeds)}")
            self._np_random = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seeds)))
            self._np_random_seed = seeds[0]
        else:
            super().reset(seed=seed)
        if options:
            raise ValueError(f"{type(self).__name__}.reset got unknown option(s) {sorted(options)}; allowed options are none")
        everything = np.ones(self.num_envs, dtype=bool)
        self._reset_rows(everything)
        self._steps[:] = 0
        self._prev_done[:] = False
        self._started = True
        return self._observe(), {}

    def step(self, actions):
        if not self._started:
            raise ResetNeeded(f"{type(self).__name__}: call reset() before step()")
        actions = self._check_actions(actions)
        reward, terminated, info = self._advance(actions)
        self._steps += 1
        if self.max_episode_steps is None:
            truncated = np.zeros(self.num_envs, dtype=bool)
        else:
            truncated = (self._steps >= self.max_episode_steps) & ~terminated
        done = self._prev_done
        if done.any():  # next-step autoreset: rows that ended last step start afresh now
            self._reset_rows(done)
            self._steps[done] = 0
            reward[done] = 0.0
            terminated[done] = False
            truncated[done] = False
        self._prev_done = terminated | truncated
        return self._observe(), reward, terminated, truncated, info


def action_seed(seed: int) -> int:
    """The seed for a random policy's action space in the episode reset with ``seed``.

    Seeding the action space with the env's own seed would make both draw the same numbers
    (a random point action would then land where the start was drawn): derive another stream.
    """
    return int(np.random.SeedSequence([int(seed), 0xAC7]).generate_state(1)[0])
