"""Wrappers of the gymnax envs (:func:`gym_suite.jax.make`) for code written for other gymnax versions or spaces.

Each wrapper is a gymnax ``Environment`` around another one (never a Gymnasium env: ``TypeError``):
it can be wrapped again, jitted, vmapped and copied with ``copy.deepcopy`` (rejax deepcopies its
config); attributes it does not define are the wrapped env's. :class:`FiveValueStep` steps as gymnax
before 1.0 (rejax 0.1.3, PureJaxRL), :class:`OneHotObservation` one-hots a ``Discrete`` observation,
:class:`RescaleAction` takes a bounded ``Box`` action in ``[low, high]``, :class:`TransformReward`
moves and scales rewards, :class:`DrawnParams` draws each episode's data parameters. The numbers
(``low``, ``high``, ``scale``, ``offset``) are numbers, not bools or strings (``TypeError``), and
finite (``ValueError``), each error naming the argument. rejax, unchanged::

    env, params = gym_suite.jax.make("example-v0")
    algo = rejax.DQN.create(env=FiveValueStep(OneHotObservation(env)), env_params=params, total_timesteps=10_000)
    train_state, evaluation = jax.jit(algo.train)(jax.random.key(0))
"""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium
import jax
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnax.environments import environment
from gymnax.environments import spaces as gymnax_spaces
from gymnax.wrappers.purerl import GymnaxWrapper

from gym_suite.envs.checks import ArgumentTypeError, check_number, shown, wrong_arity

__all__ = [
    "DrawnParams",
    "DrawnParamsState",
    "FiveValueStep",
    "OneHotObservation",
    "RescaleAction",
    "TransformReward",
    "Wrapper",
    "check_drawn",
]


class Wrapper(environment.Environment):  # type: ignore[misc]  # gymnax has no type hints
    """A gymnax ``Environment`` that hands every call to ``env``; unlike gymnax's ``GymnaxWrapper``
    an ``Environment`` (``isinstance`` passes) that ``copy.deepcopy`` copies."""

    def __init__(self, env: Any) -> None:
        if not isinstance(env, (environment.Environment, GymnaxWrapper)):
            hint = " (a Gymnasium env: use gym_suite.jax.make(id) for the gymnax env of an id)"
            raise ArgumentTypeError(
                f"{type(self).__name__}: env must be a gymnax Environment (gym_suite.jax.make's env, this "
                f"module's or gymnax's wrappers of one), got {type(env).__name__}{hint if isinstance(env, gymnasium.Env) else ''}"
            )
        super().__init__()
        self._env = env

    def __getattr__(self, name: str) -> Any:
        # only once the wrapped env is set: copy and pickle look attributes up on an empty object
        if name.startswith("__") or "_env" not in vars(self):
            raise AttributeError(name)
        return getattr(self._env, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._env!r})"

    @property
    def env(self) -> Any:
        return self._env

    @property
    def unwrapped(self) -> Any:
        """The innermost env (:class:`gym_suite.jax.SuiteJaxEnv` for an env of :func:`gym_suite.jax.make`)."""
        return self._env.unwrapped if isinstance(self._env, Wrapper) else self._env

    @property
    def default_params(self) -> Any:
        return self._env.default_params

    @property
    def name(self) -> str:
        return str(self._env.name)

    @property
    def num_actions(self) -> int:
        return int(self._env.num_actions)

    def action_space(self, params: Any = None) -> Any:
        return self._env.action_space(params)

    def observation_space(self, params: Any = None) -> Any:
        return self._env.observation_space(params)

    def reset(self, key: jax.Array, params: Any = None) -> tuple[Any, Any]:
        return self._env.reset(key, params)  # type: ignore[no-any-return]

    def step(self, key: jax.Array, state: Any, action: Any, params: Any = None) -> tuple[Any, ...]:
        return tuple(self._env.step(key, state, action, params))


class FiveValueStep(Wrapper):
    """``step`` as gymnax before 1.0: ``(obs, state, reward, done, info)``, ``done = terminated or
    truncated``, ``info`` keeping ``"terminated"`` and ``"truncated"``. Outermost: six-value wrappers go inside."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        while isinstance(env, Wrapper):
            if isinstance(env, FiveValueStep):
                raise ValueError(
                    "FiveValueStep: env already steps with five values (a FiveValueStep is inside it); wrap "
                    "the six-value env once, outermost"
                )
            env = env.env

    def step(self, key: jax.Array, state: Any, action: Any, params: Any = None) -> tuple[Any, ...]:
        obs, state, reward, terminated, truncated, info = self._env.step(key, state, action, params)
        info = {**info, "terminated": terminated, "truncated": truncated}
        return obs, state, reward, jnp.logical_or(terminated, truncated), info


class OneHotObservation(Wrapper):
    """A ``Discrete(n)`` observation (and ``info["final_observation"]``) as a float vector of length
    ``n``, 1.0 at the index (``gymnasium.spaces.flatten``'s form); ``TypeError`` for another space."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        space = env.observation_space(env.default_params)
        if not isinstance(space, gymnax_spaces.Discrete):
            raise TypeError(
                f"OneHotObservation: the observation space must be Discrete, got {type(space).__name__} "
                f"(of {getattr(env, 'name', type(env).__name__)})"
            )
        self._n = int(space.n)

    def observation_space(self, params: Any = None) -> gymnax_spaces.Box:
        return gymnax_spaces.Box(0.0, 1.0, (self._n,), jnp.float32)

    def _one_hot(self, obs: Any) -> jax.Array:
        return jax.nn.one_hot(obs, self._n, dtype=jnp.float32)

    def reset(self, key: jax.Array, params: Any = None) -> tuple[Any, Any]:
        obs, state = self._env.reset(key, params)
        return self._one_hot(obs), state

    def step(self, key: jax.Array, state: Any, action: Any, params: Any = None) -> tuple[Any, ...]:
        obs, state, *rest = self._env.step(key, state, action, params)
        info = rest[-1]
        if isinstance(info, dict) and "final_observation" in info:
            rest[-1] = {**info, "final_observation": self._one_hot(info["final_observation"])}
        return (self._one_hot(obs), state, *rest)


class RescaleAction(Wrapper):
    """A bounded ``Box`` action taken in ``[low, high]`` (numbers or arrays of the action's shape,
    ``low < high``) and mapped linearly to the env's bounds, clipped into ``[low, high]`` first, as
    Gymnasium's ``RescaleAction``; ``TypeError`` for an action space that is not a bounded ``Box``."""

    def __init__(self, env: Any, low: Any = -1.0, high: Any = 1.0) -> None:
        super().__init__(env)
        space = env.action_space(env.default_params)
        if not isinstance(space, gymnax_spaces.Box):
            raise TypeError(f"RescaleAction: the action space must be a Box, got {type(space).__name__}")
        shape, self._dtype = tuple(space.shape), space.dtype
        env_low, env_high = (np.broadcast_to(np.asarray(b, dtype=np.float64), shape) for b in (space.low, space.high))
        if not (np.all(np.isfinite(env_low)) and np.all(np.isfinite(env_high))):
            raise TypeError("RescaleAction: the action space must have finite bounds")
        self._env_low, self._env_high = env_low.astype(space.dtype), env_high.astype(space.dtype)
        with np.errstate(over="ignore"):
            self._low, self._high = (_bound(n, v, shape).astype(space.dtype) for n, v in (("low", low), ("high", high)))
        if not (np.all(np.isfinite(self._low)) and np.all(np.isfinite(self._high)) and np.all(self._low < self._high)):
            raise ValueError(
                f"RescaleAction: low and high must be finite in the action's dtype {np.dtype(space.dtype)} with "
                f"low < high there, got {shown(low)} and {shown(high)}"
            )

    def action_space(self, params: Any = None) -> gymnax_spaces.Box:
        return gymnax_spaces.Box(self._low, self._high, self._low.shape, self._dtype)

    def env_action(self, action: Any) -> jax.Array:
        """The env's action for the agent's ``action`` (clipped into ``[low, high]`` first)."""
        action = jnp.clip(jnp.asarray(action, self._dtype), self._low, self._high)
        fraction = (action - self._low) / (self._high - self._low)
        return jnp.clip(self._env_low + fraction * (self._env_high - self._env_low), self._env_low, self._env_high)

    def step(self, key: jax.Array, state: Any, action: Any, params: Any = None) -> tuple[Any, ...]:
        return tuple(self._env.step(key, state, self.env_action(action), params))


class TransformReward(Wrapper):
    """Rewards as ``(reward + offset) * scale``."""

    def __init__(self, env: Any, scale: float = 1.0, offset: float = 0.0) -> None:
        super().__init__(env)
        self.scale = check_number("TransformReward", "scale", _scalar(scale))
        self.offset = check_number("TransformReward", "offset", _scalar(offset))

    def step(self, key: jax.Array, state: Any, action: Any, params: Any = None) -> tuple[Any, ...]:
        obs, state, reward, *rest = self._env.step(key, state, action, params)
        reward = reward + self.offset if self.offset else reward
        return (obs, state, reward * self.scale if self.scale != 1.0 else reward, *rest)


def _scalar(value: Any) -> Any:
    if isinstance(value, (np.ndarray, jax.Array)) and value.shape == () and np.dtype(value.dtype).kind in "iuf":
        return value.item()
    return value


def _bound(name: str, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """``RescaleAction``'s ``low`` or ``high`` as float64 of ``shape``, checked."""
    what = f"a finite number or an array of them broadcasting to shape {shape}"
    value = _scalar(value)
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
        return np.full(shape, check_number("RescaleAction", name, value))
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):  # a ragged sequence
        raise ValueError(f"RescaleAction: {name} must be {what}, got {shown(value)}") from None
    if (
        array.dtype.kind == "O"
        and array.size
        and all(isinstance(v, int) and not isinstance(v, bool) for v in array.flat)
    ):
        # Python integers past int64: a ValueError past float64's range
        array = np.array([check_number("RescaleAction", f"{name}'s element", v) for v in array.flat]).reshape(
            array.shape
        )
    if array.dtype.kind not in "iuf":
        raise ArgumentTypeError(f"RescaleAction: {name} must be {what}, got {shown(value)}")
    try:
        array = np.broadcast_to(array.astype(np.float64), shape)
    except ValueError:
        raise ValueError(f"RescaleAction: {name} must be {what}, got an array of shape {array.shape}") from None
    if not np.all(np.isfinite(array)):
        raise ValueError(f"RescaleAction: low and high must be finite with low < high, got {name}={shown(value)}")
    return array


@struct.dataclass
class DrawnParamsState:
    """:class:`DrawnParams`' state: the wrapped env's and its episode's params."""

    env_state: Any
    params: Any


class DrawnParams(Wrapper):
    """Domain randomization: each episode starts with data parameters drawn by ``draw(key, params)
    -> params`` (``params``: those given to ``reset`` / ``step``, or the default ones) and keeps them
    to its end (``state.params``)::

        env = DrawnParams(env, lambda key, p: p.replace(target_speed=jax.random.uniform(key, minval=0.5, maxval=2.0)))

    The draws are traced: keep them in the argument's range. What ``draw`` returns is checked as
    it is traced (:func:`check_drawn`)."""

    def __init__(self, env: Any, draw: Any) -> None:
        super().__init__(env)
        takes = wrong_arity(draw, 2)  # called as draw(key, params)
        if takes is not None:
            raise ArgumentTypeError(
                f"DrawnParams: draw must be a function (key, params) -> params, got {shown(draw)}{takes}"
            )
        self._draw = draw

    def _drawn(self, key: jax.Array, params: Any) -> Any:
        base = self._env.default_params if params is None else params
        drawn = jax.tree.map(jnp.asarray, self._draw(key, base))  # arrays: one type whatever the draw
        check_drawn("DrawnParams: draw", base, drawn)
        return drawn

    def reset(self, key: jax.Array, params: Any = None) -> tuple[Any, DrawnParamsState]:
        draw_key, reset_key = jax.random.split(key)
        obs, state = self._env.reset(reset_key, drawn := self._drawn(draw_key, params))
        return obs, DrawnParamsState(env_state=state, params=drawn)

    def step(self, key: jax.Array, state: Any, action: Any, params: Any = None) -> tuple[Any, ...]:
        step_key, reset_key = jax.random.split(key)
        obs, env_state, reward, terminated, truncated, info = self._env.step(
            step_key, state.env_state, action, state.params
        )
        done = jnp.logical_or(terminated, truncated)
        obs_re, state_re = self.reset(reset_key, params)  # the next episode, on params drawn afresh
        kept = DrawnParamsState(env_state=env_state, params=state.params)
        next_state, obs = jax.tree.map(lambda a, b: jnp.where(done, a, b), (state_re, obs_re), (kept, obs))
        return obs, next_state, reward, terminated, truncated, info


def check_drawn(owner: str, given: Any, drawn: Any) -> None:
    """What a draw returned (``drawn``) for the params ``given``: params of ``given``'s class
    (``TypeError`` otherwise), each field of the shape of ``given``'s (``ValueError``; ``None`` on
    either side passes). Reads classes and shapes alone, so works on traced values."""
    if type(drawn) is not type(given) or not dataclasses.is_dataclass(given):
        names = [f.name for f in dataclasses.fields(given)] if dataclasses.is_dataclass(given) else []
        raise ArgumentTypeError(
            f"{owner} must return params of the class it is given ({type(given).__name__}, fields {names}: "
            f"return params.replace(name=value)), got {shown(drawn)}"
        )
    for f in dataclasses.fields(given):
        before, after = getattr(given, f.name), getattr(drawn, f.name)
        if before is not None and after is not None and np.shape(before) != np.shape(after):
            raise ValueError(
                f"{owner} must return params whose {f.name} has the shape of the given params' "
                f"{np.shape(before)} (one value an episode), got one of shape {np.shape(after)}"
            )
