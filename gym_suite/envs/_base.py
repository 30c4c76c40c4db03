"""What every gym-suite environment shares: the base classes that own the protocol, and checks.

The rules of each environment are written once, as plain arithmetic over their state, with
masks in place of branches. They take an ``ops`` namespace for the few functions that are not
operators (``exp``, ``where``, ...): :data:`SCALAR_OPS` runs them on Python floats at full scalar
speed, :data:`ARRAY_OPS` on numpy arrays for the native vector environments.

:class:`SuiteEnv` and :class:`SuiteVectorEnv` run ``reset`` and ``step`` the same way for every
environment, scalar or vector: check the input, call the environment's hooks, observe, build the
info, render in human mode. An environment supplies the hooks:

============================  =================================================================
``_check_action(action)``     the action in the form the rules take, or ``ValueError`` /
                              ``TypeError`` naming what is allowed (vector: ``_check_actions``)
``_start()``                  draw a fresh start from ``self.np_random`` (vector: ``_start(rows)``
                              for the rows of a boolean mask)
``_advance(action)``          apply the rules: ``(reward, terminated, truncated, info)`` (vector:
                              ``_advance(actions, active)``, arrays over every row; only the rows
                              of ``active`` are stepped, random draws are made for them alone)
``_observe()``                a fresh observation (no memory shared with the state)
``_start_info()``             the info of a fresh start (vector: arrays over every row)
``render()``                  the picture of the current state
============================  =================================================================

The step limit is not the environment's: ``gymnasium.make`` wraps the scalar env in
``TimeLimit``, and ``gymnasium.make_vec`` passes ``max_episode_steps`` to the vector env, which
is the only place it is counted for a batch.
"""

from __future__ import annotations

import functools
import inspect
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


def action_seed(seed: int) -> int:
    """The seed of a random policy's action space in the episode reset with ``seed``.

    The one convention of the suite (evaluation, the command line, the legacy gym adapter, the
    examples): seeding the action space with the env's own seed would make both draw the same
    numbers (a random point action would land where the start was drawn), so derive another
    stream.
    """
    return int(np.random.SeedSequence([int(seed), 0xAC7]).generate_state(1)[0])


# --------------------------------------------------------------------------------------------
# Checks. Every message says what is allowed and stays short whatever the input.
# --------------------------------------------------------------------------------------------

MAX_SHOWN = 80  # characters of an offending value shown in a message


def shown(value) -> str:
    """``repr(value)``, cut to ``MAX_SHOWN`` characters (an action of a million numbers stays short)."""
    try:
        if isinstance(value, np.ndarray) and value.size > 16:
            return f"<array of shape {value.shape}, dtype {value.dtype}>"
        if isinstance(value, (list, tuple)) and len(value) > 16:
            return f"<{type(value).__name__} of length {len(value)}>"
        text = repr(value)
    except Exception:  # a repr that fails must not hide the real error
        text = f"<{type(value).__name__}>"
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def check_render_mode(owner: str, render_mode, render_modes) -> str | None:
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(
            f"{owner}: render_mode={shown(render_mode)} is not supported; choose one of {list(render_modes)} or None"
        )
    return render_mode


def check_int(owner: str, name: str, value, minimum: int | None = None, allow_none=False):
    """An integer argument (``bool`` excluded), optionally bounded below."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{owner}: {name} must be an integer, got {shown(value)}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{owner}: {name} must be >= {minimum}, got {shown(value)}")
    return int(value)


def check_number(owner: str, name: str, value, low=-math.inf, high=math.inf) -> float:
    """A finite real argument within ``[low, high]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{owner}: {name} must be a number, got {shown(value)}")
    value = float(value)
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"{owner}: {name} must be a finite number in [{low}, {high}], got {shown(value)}")
    return value


def check_seed(owner: str, seed) -> int | None:
    """``None`` or a non-negative integer, as ``reset(seed=...)`` takes."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{owner}.reset: seed must be None or a non-negative integer, got {shown(seed)}")
    if seed < 0:
        raise ValueError(f"{owner}.reset: seed must be None or a non-negative integer, got {shown(seed)}")
    return int(seed)


def check_options(owner: str, options, allowed=()) -> None:
    if options is None:
        return
    if not isinstance(options, Mapping):
        raise TypeError(f"{owner}.reset: options must be None or a dict, got {shown(options)}")
    unknown = sorted(str(k) for k in options if k not in allowed)
    if unknown:
        raise ValueError(
            f"{owner}.reset got unknown option(s) {shown(unknown)}; allowed options are {sorted(allowed) or 'none'}"
        )


def check_discrete_action(action, n: int) -> int:
    """Return ``action`` as an ``int`` in ``range(n)`` or raise ``ValueError``/``TypeError``."""
    if action.__class__ is int and 0 <= action < n:  # the fast path: a plain int in range
        return action
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(
            f"invalid action {shown(action)} of type {type(action).__name__}: "
            f"expected an integer in 0..{n - 1} (Discrete({n}))"
        )
    if not 0 <= action < n:
        raise ValueError(f"invalid action {shown(action)}: expected an integer in 0..{n - 1} (Discrete({n}))")
    return int(action)


def as_batch(actions, num_envs: int, shape: tuple, kinds: str, what: str) -> np.ndarray:
    """``actions`` as an array of shape ``(num_envs, *shape)`` with a dtype kind in ``kinds``."""
    expected = (num_envs, *shape)
    try:
        arr = np.asarray(actions)
    except (ValueError, TypeError):  # a ragged batch
        raise ValueError(f"invalid actions: expected {what} of shape {expected}, got a ragged sequence") from None
    if arr.dtype.kind not in kinds:
        raise TypeError(f"invalid actions of dtype {arr.dtype}: expected {what} of shape {expected}")
    if arr.shape != expected:
        raise ValueError(f"invalid actions of shape {arr.shape}: expected {what} of shape {expected}")
    return arr


def check_discrete_actions(actions, num_envs: int, n: int) -> np.ndarray:
    """A batch of ``num_envs`` actions from ``Discrete(n)``, as an int64 array."""
    arr = as_batch(actions, num_envs, (), "iu", f"an integer array with values in 0..{n - 1}")
    if num_envs and (arr.min() < 0 or arr.max() >= n):
        bad = int(np.flatnonzero((arr < 0) | (arr >= n))[0])
        raise ValueError(
            f"invalid action {arr[bad]!r} for sub-environment {bad}: expected values in 0..{n - 1} (Discrete({n}))"
        )
    return arr.astype(np.int64, copy=False)


# --------------------------------------------------------------------------------------------
# Arguments: declared once, in the environment's typed keyword signature
# --------------------------------------------------------------------------------------------

_LIMIT_HINT = (
    "; the step limit is not an argument of the environment: pass it to gymnasium.make(id, max_episode_steps=N) "
    "(or to gymnasium.make_vec, or wrap the env in gymnasium.wrappers.TimeLimit)"
)

#: Arguments of the tutorials the environments come from, by their names in the suite: the step
#: limit (``env_config={"max_steps": ...}`` of the RLlib custom-env tutorials) and the side of
#: the target tutorial's square field (its ``resolution``, target-v0's ``size``). The message
#: names the suite's argument when the environment takes it; ``max_steps`` given to a scalar
#: env gets the step-limit hint (the limit belongs to ``gymnasium.make``).
_RENAMED_ARGUMENTS = {
    "max_steps": "max_episode_steps",
    "resolution": "size",
}


def merge_arguments(owner: str, allowed, env_config, kwargs) -> dict:
    """``env_config`` (a dict, as Ray RLlib passes it) and keyword arguments, keywords winning.

    An unknown name raises ``TypeError`` naming the allowed ones.
    """
    merged: dict[str, Any] = {}
    if env_config is not None:
        if not isinstance(env_config, Mapping):
            raise TypeError(
                f"{owner}: the positional argument is env_config, a dict of the keyword arguments "
                f"{sorted(allowed)}; got {type(env_config).__name__}"
            )
        merged.update(env_config)
    merged.update(kwargs)
    unknown = sorted((k for k in merged if k not in allowed), key=str)
    if unknown:
        hint, limit = "", "max_episode_steps" in unknown
        for name in unknown:
            suite_name = _RENAMED_ARGUMENTS.get(name)
            if suite_name in allowed:
                hint += f"; {name!r} is {suite_name!r} here"
            elif suite_name == "max_episode_steps":
                hint += f"; {name!r} is the step limit, max_episode_steps"
                limit = True
        if limit:
            hint += _LIMIT_HINT
        raise TypeError(f"{owner} got unknown argument(s) {shown(unknown)}; allowed arguments are {sorted(allowed)}{hint}")
    return merged


def keyword_parameters(init) -> list[inspect.Parameter]:
    """The keyword-only parameters of an ``__init__`` (its declared arguments)."""
    return [p for p in inspect.signature(init).parameters.values() if p.kind is inspect.Parameter.KEYWORD_ONLY]


def _accepting_env_config(init):
    """Wrap a keyword-only ``__init__`` so that it also takes one ``env_config`` dict first."""
    params = keyword_parameters(init)
    allowed = tuple(p.name for p in params)

    @functools.wraps(init)
    def __init__(self, env_config: Mapping[str, Any] | None = None, **kwargs):
        init(self, **merge_arguments(type(self).__name__, allowed, env_config, kwargs))

    env_config = inspect.Parameter("env_config", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
                                   annotation="Mapping[str, Any] | None")
    self_param = next(iter(inspect.signature(init).parameters.values()))
    __init__.__signature__ = inspect.Signature([self_param, env_config, *params])
    __init__.arguments = allowed
    return __init__


# --------------------------------------------------------------------------------------------
# Base classes
# --------------------------------------------------------------------------------------------


class SuiteEnv(gymnasium.Env):
    """Base of the scalar environments: owns ``reset`` and ``step``; subclasses supply the hooks.

    A subclass declares its arguments once, as the keyword-only parameters of its ``__init__``
    (``render_mode`` among them); the base lets ``__init__`` also take them as one dict first
    (Ray RLlib's ``env_config``) and rejects an unknown name with a ``TypeError`` listing the
    allowed ones. ``step`` after the episode terminated, or before the first ``reset``, raises
    ``gymnasium.error.ResetNeeded``. Truncation by the step limit is ``TimeLimit``'s, added by
    ``gymnasium.make`` (Gymnasium lets the env be stepped on after it).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    #: Names ``reset(options=...)`` accepts.
    reset_options: tuple[str, ...] = ()
    _ended = True  # no step before the first reset

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not hasattr(init, "arguments"):
            cls.__init__ = _accepting_env_config(init)

    def _set_render_mode(self, render_mode) -> None:
        self.render_mode = check_render_mode(type(self).__name__, render_mode, self.metadata["render_modes"])

    # The protocol -------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        owner = type(self).__name__
        check_options(owner, options, self.reset_options)  # before anything changes
        super().reset(seed=check_seed(owner, seed))
        self._start()
        self._ended = False
        observation, info = self._observe(), self._start_info()
        if self.render_mode == "human":
            self.render()
        return observation, info

    def step(self, action):
        if self._ended:
            raise ResetNeeded(
                f"{type(self).__name__}: the episode has ended (or reset() was never called); call reset() before step()"
            )
        action = self._check_action(action)
        reward, terminated, truncated, info = self._advance(action)
        self._ended = terminated or truncated
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, info

    # Hooks ---------------------------------------------------------------------------------

    def _check_action(self, action):
        raise NotImplementedError

    def _start(self) -> None:
        raise NotImplementedError

    def _advance(self, action) -> tuple[float, bool, bool, dict]:
        raise NotImplementedError

    def _observe(self):
        raise NotImplementedError

    def _start_info(self) -> dict:
        return {}


def _info_array(values) -> np.ndarray:
    """A fresh array of info values: numbers and flags as they are, anything else as objects
    (rows without a value then hold 0 / False / None, as in Gymnasium's vector envs)."""
    array = np.array(values)
    return array if array.dtype.kind in "biuf" else array.astype(object)


class SuiteVectorEnv(VectorEnv):
    """Base of the native vector environments: N copies in numpy arrays, next-step autoreset.

    The arguments are the scalar env's (``scalar_env``), plus ``num_envs`` and
    ``max_episode_steps`` (``None`` or ``-1``: no limit; ``gymnasium.make_vec`` passes the
    registered one). The constructor builds one scalar env, which validates the arguments,
    as ``self.single_env`` (a template: its spaces and validated attributes), then calls
    the subclass's ``_setup()``.

    The info of a step holds, for every key, an array over the rows and a ``_key`` mask, as
    Gymnasium's vector envs do. A row that ended on the previous step starts afresh instead of
    stepping (reward 0, not terminated, not truncated) and its info is that of its new start:
    keys of the start's info carry the new start's values, other keys 0 / False / None with a
    False mask. ``reset`` returns the start info of every row, with the keys of the scalar
    env's ``reset``.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    scalar_env: type[SuiteEnv]

    def __init__(
        self,
        num_envs: int = 1,
        env_config: Mapping[str, Any] | None = None,
        *,
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        **kwargs,
    ):
        owner = type(self).__name__
        arguments = [a for a in self.scalar_env.__init__.arguments if a != "render_mode"]
        allowed = ("num_envs", "max_episode_steps", "render_mode", *arguments)
        kwargs = merge_arguments(owner, allowed, env_config, kwargs)
        max_episode_steps = kwargs.pop("max_episode_steps", max_episode_steps)
        render_mode = kwargs.pop("render_mode", render_mode)
        num_envs = kwargs.pop("num_envs", num_envs)
        self.num_envs = check_int(owner, "num_envs", num_envs, 1)
        if max_episode_steps == -1:  # Gymnasium's "no limit"
            max_episode_steps = None
        self.max_episode_steps = check_int(owner, "max_episode_steps", max_episode_steps, 1, allow_none=True)
        self.render_mode = check_render_mode(owner, render_mode, self.metadata["render_modes"])
        self.single_env = self.scalar_env(**kwargs)
        self.single_observation_space = self.single_env.observation_space
        self.single_action_space = self.single_env.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._steps = np.zeros(self.num_envs, dtype=np.int64)
        self._prev_done = np.zeros(self.num_envs, dtype=bool)
        self._started = False
        self._setup()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        scalar = cls.__dict__.get("scalar_env")
        if scalar is not None:  # the signature users and IDEs see: the scalar env's arguments too
            own = [p for p in inspect.signature(SuiteVectorEnv.__init__).parameters.values() if p.kind is not p.VAR_KEYWORD]
            extra = [p for p in keyword_parameters(scalar.__init__.__wrapped__) if p.name != "render_mode"]
            cls.__signature__ = inspect.Signature(own[1:] + extra)

    # The protocol -------------------------------------------------------------------------

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict | None = None):
        owner = type(self).__name__
        check_options(owner, options)
        if seed is None or isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
            super().reset(seed=check_seed(owner, seed))
        else:  # one seed per sub-environment: fold them into one generator for the batch
            if isinstance(seed, (str, bytes)) or not hasattr(seed, "__len__"):
                raise TypeError(
                    f"{owner}.reset: seed must be None, a non-negative integer or a list of {self.num_envs} "
                    f"of them (None entries allowed), got {shown(seed)}"
                )
            if len(seed) != self.num_envs:
                raise ValueError(f"{owner}.reset: expected {self.num_envs} seeds, got {len(seed)}")
            seeds = [check_seed(owner, s) for s in seed]
            entropy = [np.random.SeedSequence().entropy if s is None else s for s in seeds]
            self._np_random = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))
            self._np_random_seed = seeds[0] if seeds[0] is not None else -1
        everything = np.ones(self.num_envs, dtype=bool)
        self._start(everything)
        self._steps[:] = 0
        self._prev_done[:] = False
        self._started = True
        info = {}
        for key, values in self._start_info().items():
            info[key] = _info_array(values)
            info[f"_{key}"] = everything.copy()
        return self._observe(), info

    def step(self, actions):
        if not self._started:
            raise ResetNeeded(f"{type(self).__name__}: call reset() before step()")
        actions = self._check_actions(actions)
        restart = self._prev_done  # rows that ended on the last step start afresh now
        active = ~restart
        reward, terminated, truncated, step_info = self._advance(actions, active)
        reward = np.asarray(reward, dtype=np.float64)
        terminated = np.asarray(terminated, dtype=bool)
        truncated = np.asarray(truncated, dtype=bool)
        self._steps += 1
        info = {}
        for key, values in step_info.items():
            info[key] = _info_array(values)  # a copy: never the env's own state
            info[f"_{key}"] = active.copy()
        if restart.any():
            self._start(restart)
            self._steps[restart] = 0
            reward = np.where(restart, 0.0, reward)
            terminated = terminated & active
            truncated = truncated & active
            start_info = self._start_info()
            for key, values in list(info.items()):
                if not key.startswith("_") and key not in start_info:
                    values[restart] = None if values.dtype == object else 0
            for key, values in start_info.items():
                values = _info_array(values)
                if key not in info:
                    info[key] = np.zeros_like(values) if values.dtype != object else np.full(values.shape, None)
                    info[f"_{key}"] = np.zeros(self.num_envs, dtype=bool)
                info[key][restart] = values[restart]
                info[f"_{key}"] |= restart
        if self.max_episode_steps is not None:
            truncated = truncated | (self._steps >= self.max_episode_steps)
        self._prev_done = terminated | truncated
        return self._observe(), reward, terminated, truncated, info

    def restart(self, rows) -> tuple[Any, dict]:
        """Start the sub-environments of the boolean mask ``rows`` afresh now, not on their next
        step: for callers with same-step autoreset (Stable-Baselines3's ``VecEnv``). Returns the
        whole batch's observation and the start info (arrays over every row; the values of
        ``rows`` are their new starts')."""
        rows = np.asarray(rows, dtype=bool)
        if rows.shape != (self.num_envs,):
            raise ValueError(f"restart: expected a boolean mask of shape ({self.num_envs},), got shape {rows.shape}")
        if not self._started:
            raise ResetNeeded(f"{type(self).__name__}: call reset() before restart()")
        self._start(rows)
        self._steps[rows] = 0
        self._prev_done[rows] = False
        return self._observe(), self._start_info()

    # Hooks ---------------------------------------------------------------------------------

    def _setup(self) -> None:
        """Allocate the state arrays (the validated arguments are on ``self.single_env``)."""
        raise NotImplementedError

    def _check_actions(self, actions):
        raise NotImplementedError

    def _start(self, rows: np.ndarray) -> None:
        raise NotImplementedError

    def _advance(self, actions, active: np.ndarray):
        raise NotImplementedError

    def _observe(self):
        raise NotImplementedError

    def _start_info(self) -> dict:
        return {}
