"""The generic shells that run a definition: a scalar ``gymnasium.Env`` and a numpy ``VectorEnv``.

Nothing here is written per environment. Both shells bind their definition once (``_Shell._bind``:
the arguments, a dict first as Ray RLlib's ``env_config``, merged and checked by the definition's
``make_params``, with the spaces, draws and end hooks that follow). ``step`` checks the action and
draws the step's uniforms (``_uniforms``, the one place each shell draws); a step after the end (or
before the first reset) raises ``gymnasium.error.ResetNeeded``; a call that raises leaves the env as
it was. The step limit is the registry's: ``gymnasium.make`` wraps the scalar env in ``TimeLimit``
and ``gymnasium.make_vec`` passes ``max_episode_steps`` to the vector env. ``render_mode="human"``
shows each frame once, when the env makes it. The vector shell resets a row on the step after its
episode ended (next-step autoreset); its ``info`` holds an array and a ``_key`` mask per key, with
the keys a ``SyncVectorEnv`` of the scalar env would give on that step. :func:`env_classes` gives
the two classes of a registry row.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import operator
import os
import sys
from collections.abc import Mapping
from functools import partial
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import DependencyNotInstalled, ResetNeeded
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from gym_suite._registry import CLASSES_MODULE, Spec, check_row, load
from gym_suite.envs.checks import (
    arguments_table,
    check_action,
    check_actions,
    check_box_action,
    check_int,
    check_options,
    check_render_mode,
    check_seed,
    check_vector_seeds,
    merge_arguments,
    shown,
)
from gym_suite.envs.definition import NUMPY, SCALAR, Definition, draws_at_start, overrides, row_of

INSTALL_RENDER_EXTRA = 'pip install "gym-suite[render]"'

#: numpy's integer types (``Discrete.sample()`` gives ``np.int64``): step takes one in range as its ``int``.
_NUMPY_INTEGERS = frozenset(
    (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.longlong, np.ulonglong)
)
_index: Any = operator.index


class _Window:
    """A pygame window that shows ``rgb_array`` frames (human mode of a picture env)."""

    surface: Any = None
    clock: Any = None

    def __init__(self, caption: str, fps: int):
        self.caption, self.fps = caption, fps

    def show(self, frame: np.ndarray) -> None:
        try:
            os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
            import pygame
        except ImportError as exc:
            raise DependencyNotInstalled(
                f"pygame is not installed; render_mode='human' needs it: {INSTALL_RENDER_EXTRA}"
            ) from exc
        if self.surface is None:
            pygame.display.init()
            pygame.display.set_caption(self.caption)
            self.surface = pygame.display.set_mode((frame.shape[1], frame.shape[0]))
            self.clock = pygame.time.Clock()
        pygame.surfarray.blit_array(self.surface, frame.swapaxes(0, 1))  # pygame indexes (x, y)
        pygame.event.pump()
        pygame.display.flip()
        self.clock.tick(self.fps)

    def close(self) -> None:
        if self.surface is not None:
            import pygame

            pygame.display.quit()
            self.surface = self.clock = None


class _Shell:
    """What both shells hold: a definition bound to its checked parameters (:meth:`_bind`)."""

    definition: Definition[Any, Any]
    base_params: Any
    arguments: tuple[str, ...] = ()
    params: Any
    _start_draws: int
    _ends: bool
    _truncates: bool

    def __init_subclass__(cls, **kwargs: Any):
        """A class with ``definition`` and ``base_params`` (a vector one: ``scalar_env``) in its body
        gets the rest (:func:`_complete`)."""
        super().__init_subclass__(**kwargs)
        vector = issubclass(cls, VectorEnv)
        if ("scalar_env" if vector else "definition") in cls.__dict__:
            _complete(cls, vector)

    def _bind(self, owner: str, kwargs: dict[str, Any]) -> tuple[spaces.Space[Any], spaces.Space[Any]]:
        """Check the arguments once and keep what follows from them: ``params``, the start's draws,
        which end hooks the definition has; returns the spaces of one environment."""
        d = self.definition
        self.params = d.make_params(self.base_params, owner, **kwargs)
        self._start_draws = draws_at_start(d, self.params)
        self._ends, self._truncates = overrides(d, "terminal"), overrides(d, "truncation")
        return d.spaces(self.params)


class SuiteEnv(_Shell, gymnasium.Env[Any, Any]):
    """The scalar shell: one environment of a definition, its state in Python numbers.

    ``env.state`` is the definition's state (a ``NamedTuple``) and ``env.np_random`` the
    generator of its draws: restoring both (and ``TimeLimit``'s step count) replays the same
    future. ``env.params`` holds the checked parameters; each constructor argument also reads as
    an attribute (``env.heart_attack_proclivity``).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}
    reset_options: tuple[str, ...] = ()
    _ended = True  # no step before the first reset
    _window: _Window | None = None
    _shown = False  # human mode: the current frame has been shown

    def __init__(self, env_config: Mapping[str, Any] | None = None, **kwargs: Any):
        owner = type(self).__name__
        kwargs = merge_arguments(owner, (*self.arguments, "render_mode"), env_config, kwargs)
        self.render_mode = check_render_mode(owner, kwargs.pop("render_mode", None), self.metadata["render_modes"])
        self.observation_space, self.action_space = self._bind(owner, kwargs)
        space = self.action_space
        self.state: Any = self.definition.initial((0.5,) * self._start_draws, self.params, SCALAR)
        # step's fast path: a plain int in range of a Discrete space needs no checking
        self._discrete_n = int(space.n) if isinstance(space, spaces.Discrete) else 0
        box = isinstance(space, spaces.Box) and len(space.shape) == 1
        self._check_action = (
            partial(check_box_action, shape=space.shape or ()) if box else partial(check_action, space=space)
        )

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        if options is not None:
            check_options(type(self).__name__, options, self.reset_options)  # before anything changes
        if seed is not None:  # (gymnasium.Env.reset does nothing without a seed)
            seed = check_seed(type(self).__name__, seed)
            self._sync()
            super().reset(seed=seed)
        d = self.definition
        self.state = state = d.initial(self._uniforms(self._start_draws), self.params, SCALAR)
        self._ended = self._shown = False
        if self.render_mode == "human":
            self._show()
        return d.observation(state, self.params, SCALAR), d.info(None, None, state, self.params, SCALAR)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._ended:
            raise ResetNeeded(
                f"{type(self).__name__}: the episode has ended (or reset() was never called); call reset() before step()"
            )
        d, params, state, ops = self.definition, self.params, self.state, SCALAR
        n = self._discrete_n
        if action.__class__ is not int or not 0 <= action < n:
            # a numpy integer in range is the int the check would give; anything else is checked
            index = _index(action) if action.__class__ in _NUMPY_INTEGERS else -1
            action = index if 0 <= index < n else self._check_action(action)
        count = d.step_draws
        if count:
            i = self._drawn  # _uniforms' common case inline: the block's next numbers
            j = i + count
            if j <= self._block_size:
                self._drawn = j
                u: Any = self._block[i:j]
            else:
                u = self._uniforms(count)
        else:
            u = ()
        self.state = next_state = d.transition(state, action, u, params, ops)
        terminated = truncated = False
        if self._ends:
            terminated = d.terminal(next_state, params, ops)
            terminated = terminated if terminated.__class__ is bool else bool(terminated)
        if self._truncates:
            truncated = d.truncation(next_state, params, ops)
            truncated = truncated if truncated.__class__ is bool else bool(truncated)
        self._ended = terminated or truncated
        if self.render_mode == "human":
            self._shown = False
            self._show()
        observation = d.observation(next_state, params, ops)
        reward = d.reward(state, action, next_state, params, ops)
        reward = reward if reward.__class__ is float else float(reward)
        return observation, reward, terminated, truncated, d.info(state, action, next_state, params, ops)

    # The uniforms come from ``np_random`` in blocks of BLOCK_DRAWS (one numpy call instead of one
    # per step), and the block is invisible: the numbers are those drawn one step at a time, and
    # reading ``env.np_random`` first puts the generator where the draws so far leave it (dropping
    # the rest of the block), so a snapshot of ``state`` and ``np_random`` replays the same future.

    BLOCK_DRAWS = 4096
    _block: list[float] = []  # noqa: RUF012 (replaced, never mutated)
    _block_size = 0
    _block_from: Any = None  # the generator the block came from
    _block_state: Any = None  # its bit generator's state before the block
    _drawn = 0  # numbers of the block used so far

    def _uniforms(self, count: int) -> list[float] | tuple[()]:
        """The next ``count`` uniforms of the env's stream (``step`` reads the block inline)."""
        if not count:
            return ()
        i = self._drawn
        j = i + count
        if j <= self._block_size:  # the block's next numbers (a new generator has dropped the block)
            self._drawn = j
            return self._block[i:j]
        self._sync()  # (a new generator always comes through reset or the np_random setter)
        rng: Any = self.np_random
        self._block_state = rng.bit_generator.state
        self._block = rng.random(max(self.BLOCK_DRAWS, count)).tolist()
        self._block_size, self._block_from, self._drawn = len(self._block), rng, count
        return self._block[:count]

    def _sync(self) -> None:
        """Put the block's generator where the draws used so far leave it; drop the block."""
        rng: Any = self._block_from
        if rng is not None and rng is self._np_random:
            rng = self._block_from  # (Any again: the identity test narrowed it)
            rng.bit_generator.state = self._block_state
            if self._drawn:
                rng.random(min(self._drawn, self._block_size))
        self._block, self._block_size, self._block_from, self._drawn = [], 0, None, 0

    @property
    def np_random(self) -> np.random.Generator:
        """The env's generator, as Gymnasium's: where the draws so far leave it."""
        if self._block_from is not None:
            self._sync()
        return super().np_random

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._sync()
        self._np_random, self._np_random_seed = value, -1

    def heuristic(self, observation: Any) -> Any:
        """The definition's documented simple policy, for one observation."""
        action = self.definition.heuristic(observation, self.params, SCALAR)
        return action if isinstance(action, np.ndarray) else int(action)

    def render(self) -> Any:
        mode = self.render_mode
        if mode in ("rgb_array", "ansi"):
            return self.definition.render(self.state, self.params, "rgb" if mode == "rgb_array" else "ansi")
        if mode == "human":
            self._show()  # a frame the env has shown already is not shown again
        return None

    def _show(self) -> None:
        if self._shown:
            return
        self._shown = True
        if self.definition.human == "rgb":
            if self._window is None:
                self._window = _Window(
                    f"gym-suite {self.spec.id if self.spec else type(self).__name__}", self.metadata["render_fps"]
                )
            self._window.show(self.definition.render(self.state, self.params, "rgb"))
        else:
            print(self.definition.render(self.state, self.params, "ansi"), end="")

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None

    def __getstate__(self) -> dict[str, Any]:
        self._sync()  # the generator where the draws so far leave it: no block of draws in the pickle
        state = dict(vars(self))
        state.pop("_window", None)  # a window does not travel
        return state


def _info_array(values: Any, num_envs: int, dtype: Any = None) -> np.ndarray:
    """``values`` (over the rows, or one for all) as a fresh ``(num_envs,)`` array of ``dtype``, or
    for ``None`` an info's: numbers and flags as they are, anything else as objects."""
    if values.__class__ is np.ndarray and values.shape == (num_envs,):
        if dtype is not None:
            return values.astype(dtype)  # a copy, also of the dtype asked for
        if values.dtype.kind in "biufO":
            return values.copy()  # the common cases, without broadcast_to's checks
    if values.__class__ in (bool, int, float):  # one Python value for every row
        return np.full(num_envs, values, dtype=dtype)
    array = np.array(np.broadcast_to(values, (num_envs,)), dtype=dtype)
    return array if dtype is not None or array.dtype.kind in "biuf" else array.astype(object)


def _fresh(values: Any, num_envs: int, taken: set[int]) -> bool:
    """Whether ``values`` is a ``(num_envs,)`` array of its own writeable memory whose id is not in
    ``taken`` (an array the rules have just made that nothing else holds); its id joins ``taken``."""
    key = id(values)
    fresh = (
        key not in taken
        and values.__class__ is np.ndarray
        and values.base is None
        and values.shape == (num_envs,)
        and values.flags.writeable
    )
    taken.add(key)
    return fresh


def _own(values: Any, num_envs: int, dtype: Any, taken: set[int]) -> np.ndarray:
    """``values`` as a ``(num_envs,)`` array of ``dtype`` (``None``: an info's) that nothing else
    holds: as it is if :func:`_fresh` (tested here inline: a step calls this for every quantity),
    else a copy."""
    key = id(values)
    if (
        key not in taken
        and values.__class__ is np.ndarray
        and values.base is None
        and values.shape == (num_envs,)
        and values.flags.writeable
        and (values.dtype.kind in "biufO" if dtype is None else values.dtype == dtype)
    ):
        taken.add(key)
        return values
    taken.add(key)
    return _info_array(values, num_envs, dtype)


#: The most rows a vector env holds (2**24; the ``gym_suite_jax/`` vector envs' too), so that more
#: raise ``ValueError`` at construction instead of a ``MemoryError`` after minutes (memory may run
#: out below it: target-v0 draws up to 98 float64 uniforms a row at a start, 13 GB at 2**24 rows).
MAX_NUM_ENVS = 2**24


def check_num_envs(owner: str, num_envs: object) -> int:
    """``num_envs``: an integer in ``1..MAX_NUM_ENVS`` (``TypeError`` / ``ValueError`` naming it)."""
    n = check_int(owner, "num_envs", num_envs, 1)
    if n > MAX_NUM_ENVS:
        raise ValueError(
            f"{owner}: num_envs must be an integer in 1..{MAX_NUM_ENVS} (2**24: the rows' arrays must fit in memory), "
            f"got {shown(num_envs)}"
        )
    return n


class SuiteVectorEnv(_Shell, VectorEnv[Any, Any, Any]):
    """The numpy shell: ``num_envs`` environments of a definition in arrays, next-step autoreset.

    The arguments are the scalar env's, plus ``num_envs`` and ``max_episode_steps`` (``None`` or
    ``-1``: no limit; ``gymnasium.make_vec`` passes the registered one). Every step draws the
    step's uniforms for the rows that step, in row order, so ``num_envs=1`` follows the scalar
    env from the same seed. A row that ended on the previous step starts afresh instead of
    stepping (reward 0, not terminated, not truncated) and its info is that of its new start.
    """

    scalar_env: type[SuiteEnv]
    metadata: dict[str, Any] = {
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": ["ansi", "rgb_array"],
        "render_fps": 4,
    }

    def __init__(
        self,
        num_envs: int = 1,
        env_config: Mapping[str, Any] | None = None,
        *,
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        **kwargs: Any,
    ):
        owner = type(self).__name__
        allowed = ("num_envs", "max_episode_steps", "render_mode", *self.arguments)
        kwargs = merge_arguments(owner, allowed, env_config, kwargs)
        max_episode_steps = kwargs.pop("max_episode_steps", max_episode_steps)
        render_mode = kwargs.pop("render_mode", render_mode)
        num_envs = kwargs.pop("num_envs", num_envs)
        self.num_envs = check_num_envs(owner, num_envs)
        if isinstance(max_episode_steps, (int, np.integer)) and max_episode_steps == -1:  # Gymnasium's "no limit"
            max_episode_steps = None
        self.max_episode_steps = check_int(owner, "max_episode_steps", max_episode_steps, 1, allow_none=True)
        self.render_mode = check_render_mode(owner, render_mode, self.metadata["render_modes"])
        self.single_observation_space, self.single_action_space = self._bind(owner, kwargs)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        u = tuple(np.full(self.num_envs, 0.5) for _ in range(self._start_draws))
        start: Any = self.definition.initial(u, self.params, NUMPY)
        self.state: Any = type(start)(*(np.array(np.broadcast_to(q, (self.num_envs,))) for q in start))
        self._steps = np.zeros(self.num_envs, dtype=np.int64)
        self._prev_done = np.zeros(self.num_envs, dtype=bool)
        self._row_index = np.arange(self.num_envs)
        self._started = False
        self._single_env: SuiteEnv | None = None

    @property
    def single_env(self) -> SuiteEnv:
        """A scalar env with the same arguments (made on first use; it never steps)."""
        if self._single_env is None:
            self._single_env = self.scalar_env(**{name: getattr(self.params, name) for name in self.arguments})
        return self._single_env

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        owner = type(self).__name__
        check_options(owner, options)
        seeds, entropy = check_vector_seeds(owner, seed, self.num_envs)
        if not entropy:  # one seed (or None)
            super().reset(seed=seeds[0])
        else:  # one seed per sub-environment: fold them into one generator for the batch
            self._np_random = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))
            self._np_random_seed = seeds[0] if seeds[0] is not None else -1
        observation, start_info = self._restart(np.ones(self.num_envs, dtype=bool))
        self._started = True
        info = {}
        for key, values in start_info.items():
            info[key], info[f"_{key}"] = values, np.ones(self.num_envs, dtype=bool)
        return observation, info

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Every row one step on with its info, then the rows that ended on the previous step start afresh instead."""
        if not self._started:
            raise ResetNeeded(f"{type(self).__name__}: call reset() before step()")
        d, params, state = self.definition, self.params, self.state
        actions = check_actions(actions, self.num_envs, self.single_action_space)
        done = self._prev_done
        # the rows that start afresh, by index: integer indexing is several times faster than a mask's
        rows: np.ndarray | None = done.nonzero()[0]
        if not rows.size:  # type: ignore[union-attr]
            rows = None
        next_state, reward, terminated, truncated, taken = self._advance(state, actions, rows)
        info = self._step_info(state, actions, next_state, done, rows, taken)
        self.state = next_state
        self._steps += 1
        if rows is not None:
            self._autoreset(rows, (reward, terminated, truncated), info, state)
        self._prev_done = terminated | truncated
        return d.observation(self.state, params, NUMPY), reward, terminated, truncated, info

    def _advance(
        self, state: Any, actions: Any, rows: np.ndarray | None
    ) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, set[int]]:
        """The rules' step of every row: ``(next_state, reward, terminated, truncated, taken)``, each
        array its own (``taken``: their ids); rows in ``rows`` draw nothing (:meth:`_autoreset` replaces them)."""
        d, params, n = self.definition, self.params, self.num_envs
        draws = d.step_draws
        u: Any = ()
        if draws:
            if rows is None:
                u = self._uniforms(n, draws).T
            elif rows.size < n:
                # row i that steps takes the draws of the (i - restarts before it)-th stepping row; a
                # restarting row takes some row's (its results are replaced): one gather, where a
                # masked assignment costs several times as much
                index = self._row_index - self._prev_done.cumsum()
                u = self._uniforms(n - rows.size, draws).take(index, axis=0, mode="clip").T
            else:
                u = np.full((draws, n), 0.5)
        next_state = d.transition(state, actions, u, params, NUMPY)
        taken = set(map(id, next_state))
        reward = _own(d.reward(state, actions, next_state, params, NUMPY), n, np.float64, taken)
        if self._ends:
            terminated = _own(d.terminal(next_state, params, NUMPY), n, np.bool_, taken)
        else:
            terminated = np.zeros(n, dtype=bool)
        limit = self.max_episode_steps
        if self._truncates:
            truncated = _own(d.truncation(next_state, params, NUMPY), n, np.bool_, taken)
            if limit is not None:
                truncated |= self._steps >= limit - 1
        elif limit is not None:
            truncated = self._steps >= limit - 1
        else:
            truncated = np.zeros(n, dtype=bool)
        return next_state, reward, terminated, truncated, taken

    def _step_info(
        self, state: Any, actions: Any, next_state: Any, done: np.ndarray, rows: np.ndarray | None, taken: set[int]
    ) -> dict[str, Any]:
        """The step's info as a ``SyncVectorEnv`` has it: per key an array over the rows and a ``_key``
        mask of the rows that stepped (not those of ``done``, which start afresh); no key if none did."""
        n = self.num_envs
        if rows is not None and rows.size == n:
            return {}
        step_info = self.definition.info(state, actions, next_state, self.params, NUMPY)
        if not step_info:
            return {}
        info: dict[str, Any] = {}
        masks = np.empty((len(step_info), n), dtype=bool)  # one mask per key, each a row of one array
        if rows is None:
            masks.fill(True)
        else:
            np.logical_not(done, out=masks)  # (one call: the rows broadcast)
        for mask, (key, values) in zip(masks, step_info.items()):
            info[key] = _own(values, n, None, taken)
            info[f"_{key}"] = mask
        return info

    def _autoreset(self, rows: np.ndarray, results: tuple[Any, ...], info: dict[str, Any], previous: Any) -> None:
        """Start the rows ``rows`` afresh: in ``results`` reward 0, neither terminated nor truncated; the
        info of their new start (the step's keys a start lacks hold 0 / False / None there); ``previous``
        is the state before the step."""
        self._start(rows, previous)
        self._steps[rows] = 0
        for array in results:
            array[rows] = 0
        start_info = self.definition.info(None, None, self.state, self.params, NUMPY)
        for key, values in info.items():
            if key[0] != "_" and key not in start_info:
                values[rows] = None if values.dtype == object else 0
        n = self.num_envs
        for key, values in start_info.items():
            if key in info:  # the rows' values alone (every step: no array made where none is needed)
                column = info[key]
                if values.__class__ is np.ndarray and values.shape == (n,) and values.dtype.kind in "biufO":
                    column[rows] = values[rows]
                elif values.__class__ in (bool, int, float) and column.dtype != object:
                    column[rows] = values  # (one number for every row)
                else:
                    column[rows] = _info_array(values, n)[rows]
                info[f"_{key}"].fill(True)  # the rows that stepped, and now those that start
            else:
                values = _info_array(values, n)
                info[key] = np.zeros_like(values) if values.dtype != object else np.full(n, None)
                info[key][rows] = values[rows]
                info[f"_{key}"] = np.zeros(n, dtype=bool)
                info[f"_{key}"][rows] = True

    def restart(self, rows: Any) -> tuple[Any, dict[str, Any]]:
        """Start the sub-environments of the boolean mask ``rows`` afresh now, not on their next
        step: for callers with same-step autoreset (Stable-Baselines3's ``VecEnv``). Returns the
        whole batch's observation and the start info (arrays over every row; the values of
        ``rows`` are their new starts')."""
        rows = np.asarray(rows)
        if rows.dtype != bool or rows.shape != (self.num_envs,):
            raise ValueError(
                f"restart: expected a boolean mask of shape ({self.num_envs},), got {rows.dtype} of shape {rows.shape}"
            )
        if not self._started:
            raise ResetNeeded(f"{type(self).__name__}: call reset() before restart()")
        return self._restart(rows)

    def _restart(self, rows: np.ndarray) -> tuple[Any, dict[str, Any]]:
        self._start(np.flatnonzero(rows))
        self._steps[rows] = 0
        self._prev_done[rows] = False
        d = self.definition
        info = {k: _info_array(v, self.num_envs) for k, v in d.info(None, None, self.state, self.params, NUMPY).items()}
        return d.observation(self.state, self.params, NUMPY), info

    def _uniforms(self, count: int, draws: int) -> np.ndarray:
        """``draws`` uniforms for each of ``count`` rows, in row order on the batch's stream: a
        ``(count, draws)`` array (its transpose is the rules' ``u``)."""
        rng = self._np_random
        if rng is None:  # (the property makes one)
            rng = self.np_random
        return rng.random((count, draws))

    #: Starts of this many rows or fewer run on Python numbers, row by row (a numpy call costs more
    #: than its few elements), more on arrays; ``initial`` gives the same numbers both ways (tested).
    SCALAR_START_ROWS = 4
    #: Batches of this many rows or more reuse for an autoreset the arrays a step has just made
    #: (below, copying a quantity costs less than the checks that would spare it).
    REUSE_ROWS = 1024

    def _start(self, rows: np.ndarray, previous: Any = None) -> None:
        """Draw fresh starts for the ascending indices ``rows`` into a copy of each quantity or, after
        a step (from ``previous``) of ``REUSE_ROWS`` rows or more, into the step's own new arrays."""
        d, params, draws, count = self.definition, self.params, self._start_draws, rows.size
        if previous is None or self.num_envs < self.REUSE_ROWS:
            state = [np.array(q) for q in self.state]  # own arrays: a caller may hold the state's
        else:
            seen = set(map(id, previous))
            state = [q if _fresh(q, self.num_envs, seen) else np.array(q) for q in self.state]
        if count > self.SCALAR_START_ROWS:
            u_all: Any = self._uniforms(count, draws).T if draws else ()
            start: Any = d.initial(u_all, params, NUMPY)
            for quantity, value in zip(state, start):
                quantity[rows] = value
        elif count == 1:
            row = int(rows[0])
            u = self._uniforms(1, draws)[0].tolist() if draws else ()
            for quantity, value in zip(state, d.initial(u, params, SCALAR)):
                quantity[row] = value
        elif count:
            us = self._uniforms(count, draws).tolist() if draws else [()] * count
            starts = [d.initial(u, params, SCALAR) for u in us]
            for quantity, values in zip(state, zip(*starts)):
                quantity[rows] = values
        self.state = self.state._make(state)

    def heuristic(self, observations: Any) -> Any:
        """The definition's documented simple policy, for a batch of observations."""
        return self.definition.heuristic(observations, self.params, NUMPY)

    def render(self) -> Any:
        rows = [row_of(self.state, i) for i in range(self.num_envs)]
        if self.render_mode == "rgb_array":
            return tuple(self.definition.render(row, self.params, "rgb") for row in rows)
        if self.render_mode == "ansi":
            return "".join(
                f"[{i}] " + self.definition.render(row, self.params, "ansi").rstrip("\n").replace("\n", " | ") + "\n"
                for i, row in enumerate(rows)
            )
        return None


def _signature(base_params: Any, arguments: tuple[str, ...], vector: bool) -> inspect.Signature:
    """The typed constructor users and IDEs see: the row's arguments with their defaults."""
    hints: dict[str, Any] = {}  # the annotations of the parameters' class and of those it extends
    for klass in reversed(type(base_params).__mro__):
        hints.update(vars(klass).get("__annotations__", {}))
    positional, keyword = inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter("env_config", positional, default=None, annotation="Mapping[str, Any] | None")]
    if vector:
        params.insert(0, inspect.Parameter("num_envs", positional, default=1, annotation="int"))
        params.append(inspect.Parameter("max_episode_steps", keyword, default=None, annotation="int | None"))
    for name in arguments:
        annotation = hints.get(name, inspect.Parameter.empty)
        params.append(inspect.Parameter(name, keyword, default=getattr(base_params, name), annotation=annotation))
    params.append(inspect.Parameter("render_mode", keyword, default=None, annotation="str | None"))
    return inspect.Signature(params)


def _state_property(index: int, name: str) -> property:
    def get(self: Any) -> Any:
        return self.state[index]

    def set(self: Any, value: Any) -> None:  # a row's quantity set from outside (a test, an adapter)
        current = self.state[index]
        if isinstance(current, np.ndarray):
            new = np.array(np.broadcast_to(np.asarray(value, dtype=current.dtype), current.shape))
        else:
            new = type(current)(value)
        self.state = self.state._replace(**{name: new})

    return property(get, set, doc=f"The state's ``{name}`` (``env.state.{name}``).")


class _Parameter:
    """A parameter read as an attribute of the env (``env.goal`` is ``env.params.goal``): a non-data
    descriptor, so an attribute set on the env comes first (a ``__getattr__`` would slow every look-up)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __get__(self, env: Any, owner: Any = None) -> Any:
        if env is None:
            return self
        params = env.__dict__.get("params")
        if params is None:  # (before the constructor has checked the arguments)
            raise AttributeError(f"{type(env).__name__!r} object has no attribute {self.name!r}")
        return getattr(params, self.name)


def with_arguments_table(doc: str | None, definition: Definition[Any, Any], base_params: Any) -> str | None:
    """``doc`` (a manual) with the table of its ``## Arguments`` section written from the
    definition's declared arguments (a table there before is replaced)."""
    if not doc or "## Arguments" not in doc:
        return doc
    head, _, rest = doc.partition("## Arguments")
    lines = rest.split("\n")
    i = 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    while i < len(lines) and lines[i].lstrip().startswith("|"):
        del lines[i]
    indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())] if i < len(lines) else ""
    table = arguments_table(definition.arguments, base_params, definition.render_modes, definition.human)
    lines[1:1] = ["", *(indent + line for line in table.split("\n"))]
    return head + "## Arguments" + "\n".join(lines)


#: The hooks an older Definition had, and what replaces each.
OLD_HOOKS = {
    "action_space": "now spaces(params), which returns (observation_space, action_space)",
    "observation_space": "now spaces(params), which returns (observation_space, action_space)",
    "state_info": "now info(None, None, state, params, ops)",
    "transition_info": "now info(state, action, next_state, params, ops)",
    "render_ansi": 'now render(state, params, "ansi")',
    "render_rgb": 'now render(state, params, "rgb")',
    "draws_at_start": "now start_draws, a number or a function of the parameters",
    "check_action": "gone: actions are checked against the action space",
    "check_actions": "gone: actions are checked against the action space",
    "may_truncate": "gone: truncation is called whenever the definition defines it",
}


def _attributes(cls: type[Any], definition: Definition[Any, Any], base_params: Any) -> dict[str, Any]:
    """``env_attributes``, then the state's quantities and the parameters where no other name is."""
    extra = dict(definition.env_attributes)
    taken = set(extra) | set(dir(SuiteEnv)) | set(dir(SuiteVectorEnv))
    fields = enumerate(getattr(definition.State, "_fields", ()))
    states = {name: _state_property(i, name) for i, name in fields if name not in taken}
    taken |= set(states) | set(vars(cls)) | {"params"}
    names = [f.name for f in dataclasses.fields(base_params)] if dataclasses.is_dataclass(base_params) else []
    names += [name for name in dir(type(base_params)) if not name.startswith("_") and name not in names]
    return {**{n: _Parameter(n) for n in names if n not in taken}, **states, **extra}


def _complete(cls: type[Any], vector: bool) -> None:
    """Give an env class what follows from its definition and parameter set: the typed constructor, the
    metadata, the state's quantities, the parameters and ``env_attributes`` as attributes, and the
    manual's Arguments table written from the declared arguments."""
    source = cls.scalar_env if vector else cls
    definition, base_params = source.definition, source.base_params
    old = [f"{name} ({new})" for name, new in OLD_HOOKS.items() if hasattr(definition, name)]
    if old:
        raise TypeError(
            f"{cls.__name__}: {type(definition).__name__} defines hooks of gym-suite 0.x's older Definition: "
            f"{', '.join(old)}; see 'Porting a definition' in the CHANGELOG"
        )
    arguments = tuple(definition.arguments)
    missing = [name for name in arguments if not isinstance(name, str) or not hasattr(base_params, name)]
    if missing:
        raise ValueError(
            f"{cls.__name__}: {type(definition).__name__}.arguments declares {missing}, which "
            f"{type(base_params).__name__} has no field of (check_definition reports it too)"
        )
    for name, value in _attributes(cls, definition, base_params).items():
        if name not in vars(cls):
            setattr(cls, name, value)
    cls.definition, cls.base_params, cls.arguments = definition, base_params, arguments
    modes = [m for m in definition.render_modes if m != "human"] if vector else list(definition.render_modes)
    cls.metadata = {**cls.metadata, "render_modes": modes, "render_fps": definition.render_fps}
    cls.__signature__ = _signature(base_params, arguments, vector)
    if vector:
        cls.__doc__ = cls.__doc__ or (
            f"``num_envs`` copies of :class:`{cls.scalar_env.__name__}` in numpy arrays (next-step autoreset); "
            f"the same arguments, plus ``num_envs`` and ``max_episode_steps``. See :class:`{cls.scalar_env.__name__}` "
            "for the manual."
        )
    else:
        cls.__doc__ = with_arguments_table(cls.__doc__, definition, base_params)


def env_classes(spec: Spec, *, module: str = CLASSES_MODULE) -> tuple[type[SuiteEnv], type[SuiteVectorEnv]]:
    """The scalar and the vector env class of one registry row: those written in the definition's
    module under the row's names (``class HeartPoleEnv(SuiteEnv)``) where there are, else classes made
    from the row (a row of ``gym_suite.register`` may hold the objects themselves) living in ``module``.
    """
    check_row(spec)  # what a registered row's strings name
    definition: Definition[Any, Any] = load(spec.definition)
    base_params = load(spec.params)
    home = importlib.import_module(spec.definition.partition(":")[0]) if isinstance(spec.definition, str) else None
    if home is not None:
        scalar, vector = getattr(home, spec.class_name, None), getattr(home, spec.vector_class_name, None)
        if (
            isinstance(scalar, type)
            and issubclass(scalar, SuiteEnv)
            and scalar.definition is definition
            and scalar.base_params is base_params
            and isinstance(vector, type)
            and issubclass(vector, SuiteVectorEnv)
            and vector.scalar_env is scalar
        ):
            return scalar, vector
    if spec.manual:
        doc = load(spec.manual)
    elif home is not None:
        doc = home.__doc__
    else:  # a registered row holding the definition itself: its module's docstring
        doc = getattr(sys.modules.get(type(definition).__module__), "__doc__", None) or type(definition).__doc__
    namespace = {"definition": definition, "base_params": base_params, "__doc__": doc, "__module__": module}
    scalar_class = type(spec.class_name, (SuiteEnv,), namespace)
    vector_class = type(
        spec.vector_class_name, (SuiteVectorEnv,), {"scalar_env": scalar_class, "__module__": module, "__doc__": None}
    )
    return scalar_class, vector_class
