"""A suite id's native vector env as a Stable-Baselines3 ``VecEnv``: :class:`SuiteVecEnv`.

Where ``DummyVecEnv`` steps N scalar envs in turn, :class:`SuiteVecEnv` steps the id's native numpy
vector env (one call for the batch) and gives what a ``DummyVecEnv`` of ``Monitor``-wrapped envs
gives: SB3's autoreset (``terminal_observation``; the row restarted by the vector env's
``restart(rows)``), ``info["TimeLimit.truncated"]``, ``Monitor``'s ``info["episode"]`` (the env's
own rewards), float32 rewards, one info dict per row. With ``n_envs=1`` and the same seed it gives
what ``DummyVecEnv([lambda: Monitor(gymnasium.make(env_id))])`` gives; more rows draw from one
generator seeded once. The transforms of :func:`gym_suite.training.wrappers.training_wrappers` are
keyword arguments, applied to the batch with the same arithmetic.
"""

from __future__ import annotations

import dataclasses
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.wrappers import RescaleAction, TimeLimit
from gymnasium.wrappers.utils import rescale_box

from gym_suite.quiet import import_gym_quietly

import_gym_quietly()  # Stable-Baselines3 imports gym when it is installed: without its banner

from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from gym_suite.envs._shells import SuiteVectorEnv, _Parameter
from gym_suite.envs.checks import check_int, check_seed, shown
from gym_suite.training.recipes import ExpectedPenalty
from gym_suite.training.wrappers import acts_in_unit_box, check_reward_transform, penalized_reward

#: Vector-env methods that act on the whole batch: the ``VecEnv``'s own methods do that.
_BATCH_METHODS = ("reset", "step", "close")
_MISSING = object()


def make_native_vector_env(env_id: str, n_envs: int, env_kwargs: Mapping[str, Any] | None = None) -> SuiteVectorEnv:
    """The native vector env of a suite id (``gymnasium.make_vec`` with its ``vector_entry_point``)."""
    if not isinstance(env_id, str):
        raise TypeError(f"env_id must be a registered id (a str), got {shown(env_id)}")
    n_envs = check_int("SuiteVecEnv", "n_envs", n_envs, 1)
    if env_kwargs is not None and not isinstance(env_kwargs, Mapping):
        raise TypeError(f"env_kwargs must be None or a dict of the env's arguments, got {shown(env_kwargs)}")
    from gym_suite.evaluate import find_spec

    spec = find_spec(env_id)  # gymnasium's error (with its suggestions) for an unknown id; "gym_suite:" taken
    if spec.vector_entry_point is None:
        raise ValueError(
            f"{env_id} has no native vector env (no vector_entry_point): use Stable-Baselines3's DummyVecEnv "
            "(make_sb3_env(..., vec_env='dummy'))"
        )
    if (env_kwargs or {}).get("render_mode") == "human":
        raise ValueError(
            f"SuiteVecEnv: render_mode='human' is not supported by {env_id}'s native vector env (one batch, no "
            "window per row): use 'rgb_array' (render(mode='human') shows the tiled frames with OpenCV) or "
            "Stable-Baselines3's DummyVecEnv (make_sb3_env(..., vec_env='dummy'))"
        )
    venv = gymnasium.make_vec(
        env_id, num_envs=n_envs, vectorization_mode="vector_entry_point", **dict(env_kwargs or {})
    )
    if not isinstance(venv.unwrapped, SuiteVectorEnv):
        venv.close()
        raise ValueError(
            f"{env_id}'s vector env is a {type(venv.unwrapped).__name__}, not a gym-suite native vector env "
            "(SuiteVectorEnv): use Stable-Baselines3's DummyVecEnv (make_sb3_env(..., vec_env='dummy'))"
        )
    return venv.unwrapped


class SuiteVecEnv(VecEnv):
    """A suite id's native vector env as a Stable-Baselines3 ``VecEnv`` (see the module's docstring).

    ``seed``: the first ``reset``'s (None: fresh entropy), as ``make_vec_env(seed=...)``;
    ``env_kwargs``: the env's arguments. Training transforms, off by default: ``unit_box_actions``
    (a bounded ``Box`` as ``[-1, 1]``, as ``RescaleAction``), ``reward_offset``, ``reward_scale``
    (``expected_penalty`` is deprecated: the env's ``expected_cost=True``). Attributes and methods
    are the vector env's, else its scalar template's (``single_env``): an array over the rows gives
    each row its element, anything else is shared; indices are ``DummyVecEnv``'s. Where one native
    batch cannot act as N envs: :meth:`set_attr` of a shared value is for every row at once, a
    per-row value must fit the row's dtype, the spaces and parameters cannot be set and ``state``
    takes only the definition's ``NamedTuple``; reset options are the batch's; the rows share one
    generator; ``render_mode="human"`` is refused.
    """

    def __init__(
        self,
        env_id: str,
        n_envs: int = 1,
        seed: int | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
        *,
        unit_box_actions: bool = False,
        expected_penalty: ExpectedPenalty | None = None,
        reward_offset: float = 0.0,
        reward_scale: float = 1.0,
    ):
        seed = check_seed("SuiteVecEnv", seed)
        reward_scale, reward_offset = check_reward_transform("SuiteVecEnv", reward_scale, reward_offset)
        if expected_penalty is not None and not isinstance(expected_penalty, ExpectedPenalty):
            raise TypeError(f"expected_penalty must be None or an ExpectedPenalty, got {shown(expected_penalty)}")
        self.env_id = env_id
        self.venv = native = make_native_vector_env(env_id, n_envs, env_kwargs)
        action_space = native.single_action_space
        self._unrescale = None
        if unit_box_actions and acts_in_unit_box(action_space):
            unit = np.ones(action_space.shape, dtype=action_space.dtype)
            # gymnasium's RescaleAction arithmetic, applied to the batch: the same actions to the bit
            action_space, _, self._unrescale = rescale_box(action_space, -unit, unit)
        self.expected_penalty, self.reward_offset, self.reward_scale = expected_penalty, reward_offset, reward_scale
        self.t_start = time.time()
        self._episode_returns = np.zeros(native.num_envs, dtype=np.float64)
        self._episode_lengths = np.zeros(native.num_envs, dtype=np.int64)
        self._next_seed = self._actions = None
        single = native.single_env
        # as DummyVecEnv's rows answer: the scalar env's metadata, the spec that makes one row
        spec = native.spec
        if spec is not None:
            vector_only = ("num_envs", "vectorization_mode", "max_episode_steps")
            spec = dataclasses.replace(spec, kwargs={k: v for k, v in spec.kwargs.items() if k not in vector_only})
        self._row_attrs: dict[str, Any] = {"metadata": dict(single.metadata), "spec": spec}
        super().__init__(native.num_envs, native.single_observation_space, action_space)
        self.metadata = dict(single.metadata)
        if seed is not None:
            self.seed(seed)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next ``reset`` (the batch's one generator); None draws a seed, as ``VecEnv.seed`` does."""
        if seed is None:
            seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
        self._next_seed = check_seed("SuiteVecEnv", seed)
        return [self._next_seed] * self.num_envs

    def reset(self) -> VecEnvObs:
        options = self._options
        if any(options) and any(o != options[0] for o in options):
            raise ValueError(
                "SuiteVecEnv.reset: the rows of a native vector env reset with the same options; "
                f"got different options per row: {shown(options)}"
            )
        seed, self._next_seed = self._next_seed, None
        obs, info = self.venv.reset(seed=seed, options=options[0] or None)
        self._episode_returns[:] = 0.0
        self._episode_lengths[:] = 0
        self.reset_infos = self._row_infos(info)
        self._reset_seeds()
        self._reset_options()
        return self._as_sb3_obs(obs)

    def step_async(self, actions: np.ndarray) -> None:
        if actions is None:
            raise TypeError(
                f"SuiteVecEnv.step: actions must be a batch of {self.num_envs} actions of {self.action_space}, got None"
            )
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        if self._actions is None:
            raise RuntimeError("SuiteVecEnv.step_wait: call step_async(actions) first")
        actions, self._actions = self._actions, None
        if self._unrescale is not None:
            actions = self._unrescale(np.asarray(actions))
        obs, reward, terminated, truncated, info = self.venv.step(actions)
        self._episode_returns += reward
        self._episode_lengths += 1
        train_reward = self._training_reward(reward, info)
        dones = terminated | truncated
        infos = self._row_infos(info)
        for row, flag in zip(infos, (truncated & ~terminated).tolist()):
            row["TimeLimit.truncated"] = flag
        if dones.any():
            obs = self._as_sb3_obs(obs)
            seconds = round(time.time() - self.t_start, 6)
            ended = np.flatnonzero(dones).tolist()
            for i in ended:
                infos[i]["terminal_observation"] = self._row(obs, i)
                infos[i]["episode"] = {
                    "r": round(float(self._episode_returns[i]), 6),
                    "l": int(self._episode_lengths[i]),
                    "t": seconds,
                }
            self._episode_returns[dones] = 0.0
            self._episode_lengths[dones] = 0
            obs, start_info = self.venv.restart(dones)  # Stable-Baselines3's autoreset, the env's start hooks
            start_infos = self._row_infos(start_info)
            for i in ended:
                self.reset_infos[i] = start_infos[i]
        return self._as_sb3_obs(obs), train_reward, dones, infos

    def close(self) -> None:
        self.venv.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        if self.render_mode != "rgb_array":
            warnings.warn(
                f"The render mode is {self.render_mode}, but this method assumes it is `rgb_array` to obtain images.",
                stacklevel=2,
            )
            return [None] * self.num_envs
        return list(self.venv.render())

    def render(self, mode: str | None = None):
        """``rgb_array``: the rows' frames tiled into one image (as ``DummyVecEnv``); ``ansi``: the
        vector env's text, a line per row."""
        if (mode or self.render_mode) == "ansi" and self.render_mode == "ansi":
            return self.venv.render()
        return super().render(mode=mode)

    def _render_rows(self) -> list:
        if self.render_mode == "rgb_array":
            return list(self.venv.render())
        if self.render_mode == "ansi":
            lines = self.venv.render().splitlines(keepends=True)
            if len(lines) == self.num_envs:
                return lines
            raise ValueError(f"{type(self.venv).__name__}.render() gave {len(lines)} lines for {self.num_envs} rows")
        return [None] * self.num_envs

    def _get_indices(self, indices: VecEnvIndices) -> list[int]:
        """The rows ``indices`` names: an int or a sequence of ints, negative ones from the end."""
        n = self.num_envs
        if indices is None:
            return list(range(n))
        items = [indices] if isinstance(indices, (int, np.integer)) else indices
        try:
            items = list(items)
        except TypeError:
            raise TypeError(f"indices must be None, an int or a sequence of ints, got {shown(indices)}") from None
        rows = []
        for i in items:
            if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
                raise TypeError(f"indices must be None, an int or a sequence of ints, got {shown(indices)}")
            if not -n <= i < n:
                raise IndexError(f"SuiteVecEnv: index {int(i)} is out of range for {n} envs")
            rows.append(int(i) % n)
        return rows

    def _lookup(self, name: str):
        """``(value, per_row)``: the vector env's attribute, or its scalar template's."""
        if name in ("observation_space", "action_space"):  # what the agent sees of one row
            return getattr(self, name), False
        if name in self._row_attrs:
            return self._row_attrs[name], False
        native = self.venv
        value = getattr(native, name, _MISSING)
        if value is not _MISSING:
            return value, self._per_row(value)
        if name.startswith("_"):
            raise AttributeError(f"{type(native).__name__} has no attribute {name!r}")
        try:
            return getattr(native.single_env, name), False
        except AttributeError:
            raise AttributeError(
                f"neither {type(native).__name__} nor its scalar env {type(native.single_env).__name__} "
                f"has an attribute {name!r}"
            ) from None

    def _per_row(self, value: Any) -> bool:
        """Whether ``value`` is an array over the rows."""
        return isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == self.num_envs

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        if not isinstance(attr_name, str):
            raise TypeError(f"SuiteVecEnv.get_attr: attr_name must be a str, got {shown(attr_name)}")
        rows = self._get_indices(indices)
        value, per_row = self._lookup(attr_name)
        return [value[i] for i in rows] if per_row else [value for _ in rows]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set an attribute of the rows (see the class docstring for what is refused); it reads back the same."""
        if not isinstance(attr_name, str):
            raise TypeError(f"SuiteVecEnv.set_attr: attr_name must be a str, got {shown(attr_name)}")
        rows = self._get_indices(indices)
        if attr_name in ("observation_space", "action_space"):
            raise ValueError(
                f"SuiteVecEnv.set_attr: {attr_name} is the adapter's (what the agent sees of a row); it cannot be set"
            )
        if attr_name == "params" or isinstance(getattr(type(self.venv), attr_name, None), _Parameter):
            arguments = getattr(self.venv, "arguments", ())
            hint = (
                f"make a new env with env_kwargs={{{attr_name!r}: ...}}"
                if attr_name in arguments
                else f"it follows from the arguments {list(arguments)}"
            )
            raise ValueError(
                f"SuiteVecEnv.set_attr: {attr_name} is a parameter of the environment, checked and fixed when it is "
                f"made (the rules read env.params); {hint}"
            )
        if attr_name == "np_random" and not isinstance(value, np.random.Generator):
            raise TypeError(f"SuiteVecEnv.set_attr: np_random must be a numpy Generator, got {shown(value)}")
        if attr_name == "state":
            value = self._checked_state(value)
        current = getattr(self.venv, attr_name, None)
        if self._per_row(current):
            current[rows] = self._row_value(attr_name, current, value)
        elif sorted(set(rows)) == list(range(self.num_envs)):
            if attr_name in self._row_attrs:
                self._row_attrs[attr_name] = value
            else:
                setattr(self.venv, attr_name, value)
        else:
            raise ValueError(
                f"SuiteVecEnv.set_attr: {attr_name!r} is shared by every row of the native vector env (not an "
                "array over the rows); set it for all rows (indices=None)"
            )

    def _checked_state(self, value: Any) -> Any:
        """``value`` as the native env's next state (fresh arrays, one row each), or an error."""
        current = self.venv.state
        kind = type(current)
        if type(value) is not kind:
            raise TypeError(
                f"SuiteVecEnv.set_attr: state must be a {kind.__name__} (the environment's state, fields "
                f"{', '.join(kind._fields)}), got {shown(value)}; to change one quantity, set it by its name"
            )
        quantities = []
        for name, new, old in zip(kind._fields, value, current):
            try:
                quantities.append(np.array(np.broadcast_to(np.asarray(new, dtype=old.dtype), old.shape)))
            except (ValueError, TypeError, OverflowError):
                raise ValueError(
                    f"SuiteVecEnv.set_attr: state.{name} must be one {old.dtype} value or {self.num_envs} of them, "
                    f"got {shown(new)}"
                ) from None
        return kind(*quantities)

    def _row_value(self, name: str, current: np.ndarray, value):
        """``value`` as one row's element of the per-row array ``current``, or ``ValueError``."""
        try:
            array = np.asarray(value)
            converted = array.astype(current.dtype)
            same = (
                array.shape == current.shape[1:]
                and array.dtype.kind in "biuf"
                and bool(np.array_equal(converted, array, equal_nan=array.dtype.kind == "f"))
            )
        except (TypeError, ValueError, OverflowError):
            same = False
        if not same:
            raise ValueError(
                f"SuiteVecEnv.set_attr: {name!r} holds one value per row ({current.dtype} of shape "
                f"{current.shape[1:]}); got {shown(value)}, which a row cannot hold as it is"
            )
        return converted

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        if not isinstance(method_name, str):
            raise TypeError(f"SuiteVecEnv.env_method: method_name must be a str, got {shown(method_name)}")
        rows = self._get_indices(indices)
        done = self._wrapper_method(method_name, method_args, method_kwargs, rows)
        if done is not None:
            return done
        if method_name in _BATCH_METHODS:
            raise ValueError(
                f"SuiteVecEnv.env_method: {method_name!r} acts on the whole native batch; call the VecEnv's own "
                f"{method_name}() instead"
            )
        native = self.venv
        if not method_name.startswith("_"):
            row_method = getattr(native.single_env, method_name, None)  # a row's own method comes first
            if callable(row_method):
                return [row_method(*method_args, **method_kwargs) for _ in rows]
            method = getattr(native, method_name, None)
            if callable(method):
                result = method(*method_args, **method_kwargs)
                if isinstance(result, (list, tuple, np.ndarray)) and len(result) == self.num_envs:
                    return [result[i] for i in rows]
                return [result for _ in rows]
        raise AttributeError(
            f"neither {type(native).__name__} nor its scalar env {type(native.single_env).__name__} "
            f"has a method {method_name!r}"
        )

    def _wrapper_method(self, name: str, args: tuple, kwargs: dict, rows: list[int]) -> list[Any] | None:
        """``get_wrapper_attr``, ``set_wrapper_attr`` and ``render`` of the rows; None for another method."""
        if name == "get_wrapper_attr" and len(args) == 1 and not kwargs:
            return self.get_attr(args[0], indices=rows)
        if name == "set_wrapper_attr" and len(args) == 2 and set(kwargs) <= {"force"}:
            self.set_attr(args[0], args[1], indices=rows)
            return [True for _ in rows]  # as gymnasium's set_wrapper_attr: the attribute was set
        if name == "render" and not args and not kwargs:
            frames = self._render_rows()
            return [frames[i] for i in rows]
        return None

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """True for the wrappers whose work the adapter does (``Monitor``, ``TimeLimit``, ``RescaleAction``)."""
        done_here = {
            Monitor: True,
            TimeLimit: self.venv.max_episode_steps is not None,
            RescaleAction: self._unrescale is not None,
        }
        return [done_here.get(wrapper_class, False) for _ in self._get_indices(indices)]

    def _training_reward(self, reward: np.ndarray, info: dict) -> np.ndarray:
        """The reward the agent trains on, float32 as ``DummyVecEnv`` stores it."""
        if self.expected_penalty is not None:  # deprecated: the env's expected_cost argument
            reward = penalized_reward(reward, info, self.expected_penalty)
        if self.reward_scale != 1.0 or self.reward_offset != 0.0:
            reward = self.reward_scale * (reward + self.reward_offset)
        return reward.astype(np.float32)

    def _row_infos(self, info: dict) -> list[dict[str, Any]]:
        """One dict per row from a vector info (arrays with ``_key`` masks): the keys of that row."""
        rows: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for key, values in info.items():
            if isinstance(key, str) and key.startswith("_") and key[1:] in info:
                continue
            values = values.tolist() if isinstance(values, np.ndarray) else list(values)
            mask = info.get(f"_{key}")
            if mask is None or mask.all():
                for row, value in zip(rows, values):
                    row[key] = value
            else:
                for i in np.flatnonzero(mask).tolist():
                    rows[i][key] = values[i]
        return rows

    def _as_sb3_obs(self, obs):
        """The batch in the dtypes of the observation space (as ``DummyVecEnv``'s buffers hold it)."""
        space = self.observation_space
        if isinstance(space, spaces.Dict):
            return {key: np.asarray(obs[key], dtype=sub.dtype) for key, sub in space.spaces.items()}
        return np.asarray(obs, dtype=space.dtype)

    def _row(self, obs, i: int):
        if isinstance(obs, dict):
            return {key: values[i].copy() for key, values in obs.items()}
        return obs[i].copy()
