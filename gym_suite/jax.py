"""JAX environments: every gym-suite id as a gymnax ``Environment`` and as a Gymnasium functional JAX env.

Install the extra with ``pip install "gym-suite[jax]"``; ``import gym_suite`` never imports JAX.
Each id's definition runs with ``ops=jax_ops()`` on draws from ``jax.random`` (``float32`` and
``int32`` unless JAX's 64-bit mode is on; without it :func:`make` refuses an integer argument of
``2**30`` or more in magnitude). :func:`make` returns ``(env, params)`` as ``gymnax.make`` does::

    env, params = gym_suite.jax.make("heartpole-v1")
    keys = jax.random.split(jax.random.key(0), 64)
    obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)

``env.step(key, state, action, params)`` resets an ended episode in the same call
(``info["final_observation"]`` is the last observation). ``params`` is the one parameters pytree:
the step limit ``max_steps_in_episode`` (the registry's, or :data:`NO_LIMIT`; the rules' own end,
heartpole-v1's two weeks, is reported as truncated) and the definition's data parameters:
``params.replace(target_speed=2.0)``, or ``jax.vmap`` over a batch of params, runs one compiled
program for every value. What fixes shapes, spaces or data is static, given to :func:`make`. A
``Dict`` observation (push-v0) is flattened as ``gymnasium.spaces.flatten`` does. ``step`` and
``reset`` check the key, ``params`` and the action by dtype and shape when traced (under ``jit`` a
``Discrete`` action outside ``0..n-1`` acts as the nearest valid one), a Python or numpy action in
full; ``make(id, checked=True)`` checks the values too, with ``jax.experimental.checkify``.

``gymnasium.make("gym_suite_jax/<id>")`` and ``gymnasium.make_vec(...)`` give :class:`JaxEnv` and
:class:`JaxVectorEnv`, which keep the definition's own spaces, check actions, seeds and options as
the numpy envs do, raise ``gymnasium.error.ResetNeeded`` on a step after the end, and copy and
pickle mid-episode. Importing this module turns on JAX's persistent compilation cache
(:mod:`gym_suite._jax_cache`); :func:`compilation_cache_dir` tells the one in use.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

import gymnasium

try:
    import gymnax  # noqa: F401
    import jax
except ModuleNotFoundError as exc:  # "gym_suite_jax/<id>" is registered without JAX: say what to install
    raise ModuleNotFoundError(f'gym_suite.jax needs JAX and gymnax ({exc}): pip install "gym-suite[jax]"') from exc
import jax.numpy as jnp
import numpy as np
from flax import struct
from gymnasium import spaces as gym_spaces
from gymnasium.envs.functional_jax_env import FunctionalJaxEnv, FunctionalJaxVectorEnv
from gymnasium.experimental.functional import FuncEnv
from gymnasium.vector import AutoresetMode
from gymnax.environments import environment
from gymnax.environments import spaces as gymnax_spaces
from jax.experimental import checkify

from gym_suite._jax_cache import cache_dir_in_use, use_compilation_cache
from gym_suite._registry import ENV_IDS, JAX_NAMESPACE, Spec, find, load
from gym_suite._seeds import seed_keys
from gym_suite.envs._device import device_params as _device_params
from gym_suite.envs._device import float_dtype as _float
from gym_suite.envs._device import int_dtype as _int
from gym_suite.envs._device import numeric as _numeric
from gym_suite.envs._device import x64 as _x64
from gym_suite.envs._shells import check_num_envs
from gym_suite.envs.checks import (
    ArgumentTypeError,
    check_int,
    check_options,
    check_seed,
    check_vector_seeds,
    merge_arguments,
    shown,
)
from gym_suite.envs.checks import check_action as _check_one
from gym_suite.envs.checks import check_actions as _check_batch
from gym_suite.envs.definition import Definition, draws_at_start, jax_ops, overrides

__all__ = [
    "NAMESPACE",
    "NO_LIMIT",
    "EnvParams",
    "EnvState",
    "JaxEnv",
    "JaxVectorEnv",
    "SuiteJaxEnv",
    "compilation_cache_dir",
    "jax_ids",
    "make",
]

#: The Gymnasium namespace of the JAX envs: ``gym_suite_jax/heartpole-v1``.
NAMESPACE = JAX_NAMESPACE
#: ``max_steps_in_episode`` of an id whose registry row has no step limit (int32's largest).
NO_LIMIT = 2**31 - 1
#: Without JAX's 64-bit mode the integer parameters stay below this in magnitude, so that the
#: rules' sums of two of them (a position and a step, a start and an offset) fit in int32.
INT32_PARAMETER_LIMIT = 2**30

use_compilation_cache()
#: The directory of JAX's persistent compilation cache in use, or ``None`` when it is off.
compilation_cache_dir = cache_dir_in_use


def jax_ids() -> tuple[str, ...]:
    """The ids that run on JAX: every id (each one's environment is a definition)."""
    return ENV_IDS


@struct.dataclass
class EnvState(environment.EnvState):  # type: ignore[misc]  # gymnax has no type hints
    """gymnax's state: ``time`` (steps in the episode) and ``inner``, the definition's state."""

    inner: Any


@struct.dataclass
class EnvParams(environment.EnvParams):  # type: ignore[misc]  # gymnax has no type hints
    """gymnax's parameters: the step limit and, in an env's own subclass (:func:`params_class`),
    the definition's data parameters as fields (``None`` in one: the env's own value)."""

    max_steps_in_episode: int = NO_LIMIT


@functools.cache
def params_class(env_id: str, names: tuple[str, ...]) -> type[EnvParams]:
    """The :class:`EnvParams` subclass of the id ``env_id``, with the data parameters ``names``
    (pickled by both): an env takes its own id's params only."""

    def __reduce__(self: EnvParams) -> tuple[Any, ...]:
        return _rebuilt_params, (names, tuple(getattr(self, f.name) for f in dataclasses.fields(self)), env_id)

    namespace = {"__annotations__": dict.fromkeys(names, "Any"), "__module__": __name__, "__reduce__": __reduce__}
    return struct.dataclass(type("EnvParams", (EnvParams,), {**dict.fromkeys(names), **namespace, "_env_id": env_id}))


def _rebuilt_params(names: tuple[str, ...], values: tuple[Any, ...], env_id: str) -> EnvParams:
    return params_class(env_id, names)(*values)


def _spec(env_id: str) -> Spec:
    from gym_suite._registry import check_row, jax_id, listed, rows, suite_id  # the one normalizer of ids

    ids = listed(spec.id for spec in rows())
    if not isinstance(env_id, str):
        raise TypeError(f"gym_suite.jax.make: env_id must be a string, one of {ids}, got {env_id!r}")
    spec = find(suite_id(env_id, jax=True))  # "gym_suite:<id>", "gym_suite_jax/<id>": the id
    spec = spec or next((row for row in rows() if jax_id(row.id) == env_id), None)  # "namespace_jax/<name>"
    if spec is None:
        raise ValueError(f"gym_suite.jax.make: unknown env_id {env_id!r}; the ids are {ids}")
    check_row(spec)
    return spec


def _kind(array: Any) -> str:  # the numpy kind of an array's dtype ("key" for PRNG keys)
    return "key" if jnp.issubdtype(array.dtype, jax.dtypes.prng_key) else np.dtype(array.dtype).kind


def _check_int32(owner: str, params: Any) -> None:
    """Without 64-bit mode refuse integer parameters beyond ``INT32_PARAMETER_LIMIT``, naming them."""
    if _x64() or not dataclasses.is_dataclass(params):
        return
    for field in dataclasses.fields(params):
        value = getattr(params, field.name)
        if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.size:
            low, high = int(value.min()), int(value.max())
        elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
            low = high = int(value)
        else:
            continue
        if max(-low, high) >= INT32_PARAMETER_LIMIT:
            raise ValueError(
                f"{owner}: {field.name} holds {shown(high if high >= INT32_PARAMETER_LIMIT else low)}, beyond what JAX's 32-bit integers "
                f"compute with (magnitudes below 2**30); turn on 64-bit mode (JAX_ENABLE_X64=1 or "
                "jax.config.update('jax_enable_x64', True)) before making the env"
            )


def _data_value(owner: str, method: str, name: str, value: Any) -> Any:
    """A data value of params: a concrete array as its number, a traced one checked by dtype and shape."""
    if not isinstance(value, (jax.Array, np.ndarray, np.generic)):
        return value
    tracer = isinstance(value, jax.core.Tracer)
    if _kind(value) not in ("fiu" if tracer else "fiub"):  # a concrete bool: the numpy env's message
        raise ArgumentTypeError(f"{owner}: params.{name} must be a number, got an array of dtype {value.dtype}")
    if np.shape(value) != ():
        raise ValueError(
            f"{owner}: params.{name} must be one number, got an array of shape {tuple(np.shape(value))}; "
            f"jax.vmap env.{method or 'step'} over a batch of params"
        )
    return value if tracer else np.asarray(value).item()


@functools.cache
def _raw_key_shape() -> tuple[int, ...]:
    return tuple(jax.random.PRNGKey(0).shape)


def _gymnax_space(space: gym_spaces.Space[Any]) -> gymnax_spaces.Space:
    """The gymnax space of a Gymnasium space (a ``Dict`` becomes its flattened ``Box``)."""
    if isinstance(space, gym_spaces.Discrete) and int(space.start) == 0:
        discrete = gymnax_spaces.Discrete(int(space.n))
        discrete.dtype = _int()  # the env's integers (gymnax's default is int32)
        return discrete
    if isinstance(space, gym_spaces.Discrete):
        start = int(space.start)
        return gymnax_spaces.Box(start, start + int(space.n) - 1, (), _int())
    if isinstance(space, gym_spaces.Box):
        return gymnax_spaces.Box(jnp.asarray(space.low), jnp.asarray(space.high), tuple(space.shape), space.dtype)
    flat = gym_spaces.flatten_space(space) if isinstance(space, gym_spaces.Dict) else None
    if not isinstance(flat, gym_spaces.Box):  # a Dict of Box and Discrete flattens to a Box
        raise NotImplementedError(f"gym_suite.jax: no gymnax space for {space}")
    return gymnax_spaces.Box(jnp.asarray(flat.low, _float()), jnp.asarray(flat.high, _float()), flat.shape, _float())


def _flatten(value: Any, space: gym_spaces.Space[Any]) -> jax.Array:
    """An observation of ``space`` as one float vector, as ``gymnasium.spaces.flatten`` orders a ``Dict``."""
    if isinstance(space, gym_spaces.Dict):
        return jnp.concatenate([_flatten(value[key], sub) for key, sub in space.spaces.items()])
    if isinstance(space, gym_spaces.Discrete):
        return jax.nn.one_hot(jnp.asarray(value) - int(space.start), int(space.n), dtype=_float())
    if isinstance(space, gym_spaces.Box):
        return jnp.ravel(jnp.asarray(value)).astype(_float())
    raise NotImplementedError(f"gym_suite.jax: cannot flatten {space}")


class SuiteJaxEnv(environment.Environment):  # type: ignore[misc]  # gymnax has no type hints
    """A gym-suite id as a gymnax ``Environment`` (made by :func:`make`).

    ``env.definition`` is the id's definition, ``env.definition_params`` its parameters (the
    arguments, checked as the numpy env checks them) and ``env.data_parameters`` the names of
    those that ``params`` carries as data. :meth:`default_params` goes from the definition's
    parameters to ``EnvParams``, :meth:`definition_params_of` back. :meth:`step_with_draws` is
    one step on given uniforms (no reset, no step limit).
    """

    def __init__(
        self, env_id: str, env_config: Mapping[str, Any] | None = None, *, checked: bool = False, **kwargs: Any
    ):
        super().__init__()
        spec = _spec(env_id)
        owner = spec.class_name
        if not isinstance(checked, (bool, np.bool_)):
            raise ArgumentTypeError(f"gym_suite.jax.make: checked must be True or False, got {shown(checked)}")
        self.checked = bool(checked)
        self.definition: Definition[Any, Any] = load(spec.definition)
        kwargs = merge_arguments(owner, self.definition.arguments, env_config, kwargs)
        self.env_id, self.max_episode_steps = spec.id, spec.max_episode_steps
        self.definition_params = self.definition.make_params(load(spec.params), owner, **kwargs)
        _check_int32(owner, self.definition_params)
        #: The definition's own spaces (Gymnasium's; a ``Dict`` stays a ``Dict``).
        self.gym_observation_space, self.gym_action_space = self.definition.spaces(self.definition_params)
        self._truncates = overrides(self.definition, "truncation")
        #: The uniforms a start takes (the definition's ``start_draws`` with these parameters).
        self.start_draws = draws_at_start(self.definition, self.definition_params)
        self.data_parameters: tuple[str, ...] = tuple(self.definition.data_parameters)
        self.__setstate__({})

    def __repr__(self) -> str:
        return f"SuiteJaxEnv({self.env_id!r})"

    def __getstate__(self) -> dict[str, Any]:
        # jax.numpy's functions (the ops), the compiled functions and the caches are made again
        skip = ("_ops", "_params", "_integers", "_checkified_functions", "_made", "_types")
        return {k: v for k, v in self.__dict__.items() if k not in skip}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._ops = jax_ops()
        self._params = _device_params(self.definition_params)  # device arrays, in the precision of now
        own = self.definition_params  # the data fields the rules read as integers (the others as floats)
        self._integers = {
            n
            for n in self.data_parameters
            if isinstance(v := getattr(own, n), (int, np.integer)) and not isinstance(v, bool)
        }
        self._made: dict[tuple[Any, ...], Any] = {}  # data values checked: the definition's parameters
        self._types: dict[bool, Any] = {}

    # The parameters: EnvParams from the definition's and back ------------------------------------

    @property
    def default_params(self) -> EnvParams:
        """The step limit and the data parameters of ``env.definition_params``."""
        limit = NO_LIMIT if self.max_episode_steps is None else int(self.max_episode_steps)
        data = {name: getattr(self.definition_params, name) for name in self.data_parameters}
        return params_class(self.env_id, self.data_parameters)(max_steps_in_episode=limit, **data)

    def definition_params_of(self, params: EnvParams | None, method: str = "", *, device: bool = True) -> Any:
        """The definition's parameters with the data fields of ``params`` put in (``None``, or a
        field ``None``: the env's own values); ``TypeError`` for params of another id.

        ``device=True``: as the rules read them, device arrays and each data value a JAX scalar
        of the env's number type (traced values too), unchecked. ``device=False``: numpy's,
        concrete values checked by the numpy env's checks (messages start ``<id>.<method>``), a
        traced one by dtype and shape, which leaves the env's own values."""
        self._check_class(method, params)
        own = self._params if device else self.definition_params
        values = {n: v for n in self.data_parameters if params is not None and (v := getattr(params, n)) is not None}
        if not values:
            return own
        if device:
            rules = copy.copy(own)  # frozen: set the fields without running __init__'s checks
            for name, value in values.items():
                object.__setattr__(rules, name, jnp.asarray(value, (_int if name in self._integers else _float)()))
            return rules
        owner = f"{self.env_id}.{method}" if method else self.env_id
        values = {name: _data_value(owner, method, name, value) for name, value in values.items()}
        concrete = {n: v for n, v in values.items() if not isinstance(v, jax.core.Tracer)}
        made = self._made_params(owner, concrete)
        return own if len(concrete) < len(values) else made

    def _made_params(self, owner: str, concrete: dict[str, Any]) -> Any:
        """The definition's parameters with the ``concrete`` data values, by the numpy env's checks (cached)."""
        key: Any = tuple((name, type(value), value) for name, value in concrete.items())
        try:
            made = self._made.get(key)
        except TypeError:  # a value that is no number (a list, a dict): make_params refuses it
            made = key = None
        if made is None:
            own = self.definition_params
            made = self.definition.make_params(own, owner, **concrete)  # the numpy env's checks
            made = own if all(getattr(made, n) == getattr(own, n) for n in concrete) else made
            if key is not None and len(self._made) < 1024:
                self._made[key] = made
        return made

    def _check_class(self, method: str, params: Any) -> None:
        """``TypeError`` unless ``params`` are ``None`` or this id's ``EnvParams`` (not another id's)."""
        if params is not None and type(params) is not params_class(self.env_id, self.data_parameters):
            of = getattr(params, "_env_id", None)
            raise ArgumentTypeError(
                f"{self.env_id}{'.' if method else ''}{method}: params must be None or the EnvParams of "
                f"gym_suite.jax.make({self.env_id!r}), got {shown(params)}{f' of {of}' if of else ''}"
            )

    # Checks at the edge (at trace time under jit) -------------------------------------------------

    def check_action(self, action: Any, num_envs: int | None = None, *, full: bool = False) -> Any:
        """``action`` (a batch of ``num_envs``) as the step takes it, or ``TypeError`` /
        ``ValueError`` naming what is allowed. A JAX array is checked by dtype and shape, unless
        ``full`` or a batch; anything else in full by the numpy env's own check."""
        space = self.gym_action_space
        discrete = isinstance(space, gym_spaces.Discrete)
        if isinstance(action, jax.Array) and not full and num_envs is None:
            n = int(space.n) if discrete else 0
            shape = f"an array of shape {tuple(space.shape)} ({shown(space)})"
            expected = f"an integer in 0..{n - 1} (Discrete({n}))" if discrete else shape
            if _kind(action) not in ("iu" if discrete else "fiu"):
                raise ArgumentTypeError(f"invalid action of dtype {action.dtype}: expected {expected}")
            if tuple(action.shape) != tuple(space.shape):
                raise ValueError(
                    f"invalid action of shape {tuple(action.shape)}: expected {expected}, of shape "
                    f"{tuple(space.shape)} (for a batch of envs, jax.vmap the step)"
                )
            return action
        action = np.asarray(action) if isinstance(action, jax.Array) else action
        checked = _check_one(action, space) if num_envs is None else _check_batch(action, num_envs, space)
        if discrete:
            return np.asarray(checked)
        # numbers in JAX's float type: a finite number beyond float32 becomes an infinity, which the
        # rules treat as the numpy env treats the number; a batch's own form may differ (target-v0)
        with np.errstate(over="ignore"):
            return np.asarray(checked if num_envs is None else action, dtype=np.float64).astype(_float())

    def _check_key(self, method: str, key: Any) -> None:
        if isinstance(key, (jax.Array, np.ndarray)):
            shape, raw = tuple(key.shape), _raw_key_shape()
            typed = jnp.issubdtype(key.dtype, jax.dtypes.prng_key)
            if typed or (key.dtype == np.uint32 and shape[-len(raw) :] == raw):
                batch = shape if typed else shape[: -len(raw)]
                if batch == ():
                    return
                raise ValueError(
                    f"{self.env_id}.{method}: key must be one PRNG key, got keys of shape {batch}; "
                    f"jax.vmap env.{method} over a batch of keys"
                )
            what = f"an array of dtype {key.dtype} and shape {shape}"
        else:
            what = shown(key)
        raise ArgumentTypeError(
            f"{self.env_id}.{method}: key must be a JAX PRNG key (jax.random.key(seed) or "
            f"jax.random.PRNGKey(seed)), got {what}"
        )

    def check_params(self, method: str, params: Any) -> EnvParams:
        """``params`` (``None``: the default ones), checked: this id's ``EnvParams``, the step limit a
        positive integer (its dtype and shape only when it is traced), the data values as the numpy
        env checks them."""
        if params is None:
            return self.default_params
        self._check_class(method, params)
        limit = params.max_steps_in_episode
        largest = 2**63 - 1 if _x64() else 2**31 - 1
        problem = (
            f"{self.env_id}.{method}: params.max_steps_in_episode must be an integer in 1..{largest} "
            f"({'int64' if _x64() else 'int32'})"
        )
        if isinstance(limit, jax.Array) and _kind(limit) not in "iu":  # its dtype and shape; a concrete one's value
            raise ArgumentTypeError(f"{problem}, got an array of dtype {limit.dtype}")
        if isinstance(limit, jax.Array) and limit.shape != ():
            raise ValueError(f"{problem}, got an array of shape {tuple(limit.shape)}")
        if not isinstance(limit, jax.core.Tracer):
            if isinstance(limit, (jax.Array, np.ndarray)) and limit.shape == () and limit.dtype.kind in "iu":
                limit = limit.item()
            if isinstance(limit, (bool, np.bool_)) or not isinstance(limit, (int, np.integer)):
                raise ArgumentTypeError(f"{problem}, got {shown(limit)}")
            if not 1 <= limit <= largest:
                raise ValueError(f"{problem}, got {shown(limit)}")
        self.definition_params_of(params, method, device=False)
        checked: EnvParams = params
        return checked

    def _checkify_values(self, action: Any, params: EnvParams) -> None:
        """Checked mode: the action's values and the step limit, reported by ``checkify`` with the numpy env's messages."""
        space, a = self.gym_action_space, jnp.asarray(action)
        if isinstance(space, gym_spaces.Discrete):
            n, valid = int(space.n), (a >= 0) & (a < int(space.n))
            message = f"invalid action {{}}: expected an integer in 0..{n - 1} (Discrete({n}))"
        else:
            valid, message = jnp.all(jnp.isfinite(a)), f"invalid action {{}}: expected finite values ({shown(space)})"
            probe = np.full(space.shape, np.nan)  # the numpy env's own message for a non-finite action
            try:
                _check_one(probe, space)
            except ValueError as err:
                text = str(err).replace("{", "{{").replace("}", "}}")
                if shown(probe) in text:
                    message = text.replace(shown(probe), "{}", 1)
        checkify.check(valid, message, a)
        limit = jnp.asarray(params.max_steps_in_episode)
        checkify.check(limit >= 1, "params.max_steps_in_episode must be a positive integer, got {}", limit)

    # gymnax's interface -------------------------------------------------------------------------

    def step(
        self, key: jax.Array, state: EnvState, action: Any, params: EnvParams | None = None
    ) -> tuple[Any, EnvState, jax.Array, jax.Array, jax.Array, dict[str, Any]]:
        """gymnax's ``step`` (autoreset in the same call), its arguments checked first."""
        self._check_key("step", key)
        if not isinstance(state, EnvState) or not isinstance(state.inner, self.definition.State):
            raise ArgumentTypeError(
                f"{self.env_id}.step: state must be what reset or step returns (an EnvState holding this id's "
                f"{self.definition.State.__name__}), got {shown(state)}"
            )
        return self._run("step", key, state, self.check_action(action), self.check_params("step", params))  # type: ignore[no-any-return]

    def reset(self, key: jax.Array, params: EnvParams | None = None) -> tuple[Any, EnvState]:
        """gymnax's ``reset``, its key and params checked first."""
        self._check_key("reset", key)
        return self._run("reset", key, self.check_params("reset", params))  # type: ignore[no-any-return]

    def _run(self, method: str, *args: Any) -> Any:
        """gymnax's ``step`` or ``reset``; checked: with its checks functionalized, compiled once."""
        if not self.checked:
            return getattr(super(), method)(*args)
        functions = self.__dict__.setdefault("_checkified_functions", {})
        if method not in functions:
            functions[method] = jax.jit(
                checkify.checkify(functools.partial(getattr(environment.Environment, method), self))
            )
        error, out = functions[method](*args)
        checkify.check_error(error)
        return out

    @property
    def name(self) -> str:
        return self.env_id

    @property
    def num_actions(self) -> int:
        space = self.gym_action_space
        return int(space.n) if isinstance(space, gym_spaces.Discrete) else int(np.prod(space.shape))

    def action_space(self, params: EnvParams | None = None) -> gymnax_spaces.Space:
        return _gymnax_space(self.gym_action_space)

    def observation_space(self, params: EnvParams | None = None) -> gymnax_spaces.Space:
        """The observation space of concrete ``params`` (target-v1's ``target_speed`` bounds the velocity)."""
        return _gymnax_space(self.definition.spaces(self.definition_params_of(params, device=False))[0])

    def reset_env(self, key: jax.Array, params: EnvParams) -> tuple[jax.Array, EnvState]:
        state = self.initial_with_draws(self.draws(key, self.start_draws), params)
        return self.get_obs(state, params), state

    def step_env(
        self, key: jax.Array, state: EnvState, action: Any, params: EnvParams
    ) -> tuple[jax.Array, EnvState, jax.Array, jax.Array, dict[str, Any]]:
        if self.checked:
            self._checkify_values(action, params)
        obs, next_state, reward, terminated, _, info = self.step_with_draws(
            state, action, self.draws(key, self.definition.step_draws), params
        )
        return obs, next_state, reward, terminated, info

    def get_obs(self, state: EnvState, params: EnvParams | None = None, key: Any = None) -> jax.Array:
        """gymnax's observation: the definition's, a ``Dict`` flattened into one float vector."""
        observation = self.observation(state, params)
        if isinstance(self.gym_observation_space, gym_spaces.Dict):
            return _flatten(observation, self.gym_observation_space)
        return jnp.asarray(observation)

    def is_terminal(self, state: EnvState, params: EnvParams | None = None) -> jax.Array:
        return self.is_terminated(state, params) | self.is_truncated(state, params or self.default_params)

    def is_truncated(self, state: EnvState, params: EnvParams) -> jax.Array:
        """The step limit, or the rules' own end (heartpole-v1's two weeks)."""
        return (state.time >= params.max_steps_in_episode) | self.rules_truncation(state, params)  # type: ignore[no-any-return]

    # The definition's rules, on given draws -------------------------------------------------------

    def _rules(self, hook: str, params: EnvParams | None, *args: Any) -> Any:
        return getattr(self.definition, hook)(*args, self.definition_params_of(params), self._ops)

    def observation(self, state: EnvState, params: EnvParams | None = None) -> Any:
        """The definition's own observation of ``state`` (a ``Dict`` stays a dict)."""
        return self._rules("observation", params, state.inner)

    def reward(self, state: EnvState, action: Any, next_state: EnvState, params: EnvParams | None = None) -> jax.Array:
        reward = self._rules("reward", params, state.inner, self._action(action), next_state.inner)
        return jnp.asarray(reward, dtype=_float())

    def state_info(self, state: EnvState, params: EnvParams | None = None) -> dict[str, Any]:
        """The numeric ``info`` of a start."""
        return self.transition_info(None, None, state, params)

    def transition_info(
        self, state: EnvState | None, action: Any, next_state: EnvState, params: EnvParams | None = None
    ) -> dict[str, Any]:
        """The numeric ``info`` of the step from ``state`` to ``next_state``."""
        inner, action = (None, None) if state is None else (state.inner, self._action(action))
        info = self._rules("info", params, inner, action, next_state.inner)
        return {key: jnp.asarray(value) for key, value in info.items() if _numeric(value)}

    def is_terminated(self, state: EnvState, params: EnvParams | None = None) -> jax.Array:
        return jnp.asarray(self._rules("terminal", params, state.inner), dtype=bool)

    def rules_truncation(self, state: EnvState, params: EnvParams | None = None) -> jax.Array:
        """Whether the definition's own clock ended the episode (not the step limit)."""
        return jnp.asarray(self._truncates and self._rules("truncation", params, state.inner), dtype=bool)

    def draws(self, key: jax.Array, count: int) -> Any:
        """``count`` uniforms on [0, 1) of ``key`` in the env's float type (``()`` for none)."""
        return jax.random.uniform(key, (count,), dtype=_float()) if count else ()

    def initial_with_draws(self, u: Any, params: EnvParams | None = None) -> EnvState:
        """A fresh state from the start's uniforms."""
        return EnvState(time=jnp.zeros((), _int()), inner=self._canonical(self._rules("initial", params, u)))

    def transition_with_draws(self, state: EnvState, action: Any, u: Any, params: EnvParams | None = None) -> EnvState:
        """The next state on the step's uniforms ``u``."""
        inner = self._rules("transition", params, state.inner, self._action(action), u)
        return EnvState(time=state.time + 1, inner=self._canonical(inner))

    def step_with_draws(
        self, state: EnvState, action: Any, u: Any, params: EnvParams | None = None
    ) -> tuple[jax.Array, EnvState, jax.Array, jax.Array, jax.Array, dict[str, Any]]:
        """One step on the uniforms ``u``: ``(obs, next_state, reward, terminated, truncated by
        the rules, info)``; no reset, no step limit."""
        next_state = self.transition_with_draws(state, action, u, params)
        return (
            self.get_obs(next_state, params),
            next_state,
            self.reward(state, action, next_state, params),
            self.is_terminated(next_state, params),
            self.rules_truncation(next_state, params),
            self.transition_info(state, action, next_state, params),
        )

    def _action(self, action: Any) -> Any:
        space = self.gym_action_space
        if isinstance(space, gym_spaces.Discrete):  # out of range under jit: the nearest valid action
            return jnp.clip(jnp.asarray(action), 0, int(space.n) - 1).astype(_int())
        return jnp.asarray(action, dtype=_float())

    def _canonical(self, inner: Any) -> Any:
        """``inner`` in the dtypes and shapes a step gives, so that a reset state and a stepped one
        are interchangeable (``lax.select``, ``lax.scan``)."""
        x64 = _x64()
        if x64 not in self._types:
            d, params, ops = self.definition, self._params, self._ops
            start, step = (jax.ShapeDtypeStruct((n,), _float()) for n in (self.start_draws, d.step_draws))  # type: ignore[no-untyped-call]
            action = jax.eval_shape(lambda: self.action_space().sample(jax.random.key(0)))
            strong = functools.partial(jax.tree.map, lambda t: jax.ShapeDtypeStruct(jnp.shape(t), jnp.result_type(t)))  # type: ignore[no-untyped-call]
            types = strong(jax.eval_shape(lambda u: d.initial(u if self.start_draws else (), params, ops), start))
            for _ in range(2):  # the step's types, from a state of the step's types
                types = strong(
                    jax.eval_shape(
                        lambda s, a, u: d.transition(s, self._action(a), u if d.step_draws else (), params, ops),
                        types,
                        action,
                        step,
                    )
                )
            self._types[x64] = types
        return jax.tree.map(
            lambda x, t: jnp.broadcast_to(jnp.asarray(x, dtype=t.dtype), t.shape), inner, self._types[x64]
        )

    # Pictures (numpy) ------------------------------------------------------------------------

    def state_as_numbers(self, state: EnvState) -> Any:
        """One (not batched) state as the definition's state of Python numbers."""
        inner = state.inner
        return type(inner)(*(np.asarray(q).item() if np.ndim(q) == 0 else np.asarray(q) for q in inner))

    def render_rgb(self, state: EnvState) -> np.ndarray:
        """The picture of one state (an ``(H, W, 3)`` ``uint8`` array, drawn by numpy)."""
        frame: np.ndarray = self.definition.render(self.state_as_numbers(state), self.definition_params, "rgb")
        return frame

    def render_ansi(self, state: EnvState) -> str:
        """The text of one state."""
        text: str = self.definition.render(self.state_as_numbers(state), self.definition_params, "ansi")
        return text


def make(env_id: str, *, checked: bool = False, **kwargs: Any) -> tuple[SuiteJaxEnv, EnvParams]:
    """``(env, params)`` of a gym-suite id as a gymnax ``Environment``, as ``gymnax.make`` returns.

    ``env_id`` is a registry id (``"heartpole-v1"``; ``"gym_suite:heartpole-v1"`` and
    ``"gym_suite_jax/heartpole-v1"`` are accepted); ``kwargs`` are the id's arguments, checked as
    the numpy env checks them. ``params`` holds the step limit and the data parameters
    (``params.replace(heart_attack_proclivity=0.3)``: another value without compiling again).

    ``checked=True`` checks the values of actions and params too, with
    ``jax.experimental.checkify``: called directly, ``env.step`` raises
    ``checkify.JaxRuntimeError`` (a ``ValueError``) with the numpy env's message; under ``jit``,
    functionalize the checks::

        env, params = gym_suite.jax.make("example-v0", checked=True)
        error, (obs, state, reward, terminated, truncated, info) = jax.jit(checkify.checkify(env.step))(
            key, state, action, params)
        error.throw()  # "invalid action 7: expected an integer in 0..1 (Discrete(2))"
    """
    env = SuiteJaxEnv(env_id, checked=checked, **kwargs)
    return env, env.default_params


# Gymnasium's route: FuncEnv, FunctionalJaxEnv, FunctionalJaxVectorEnv -------------------------------


class SuiteFuncEnv(FuncEnv[EnvState, Any, Any, jax.Array, jax.Array, Any, EnvParams]):
    """Gymnasium's ``FuncEnv`` of a :class:`SuiteJaxEnv`, on the env's public methods; ``params``
    ``None`` (as ``FunctionalJaxEnv`` passes it) is the env's own values, compiled as constants."""

    def __init__(self, env: SuiteJaxEnv) -> None:
        self.env = env
        super().__init__()
        self.observation_space = env.gym_observation_space
        self.action_space = env.gym_action_space

    def get_default_params(self, **kwargs: Any) -> EnvParams:
        return self.env.default_params

    def initial(self, rng: Any, params: EnvParams | None = None) -> EnvState:
        return self.env.initial_with_draws(self.env.draws(rng, self.env.start_draws), params)

    def transition(self, state: EnvState, action: Any, rng: Any, params: EnvParams | None = None) -> EnvState:
        return self.env.transition_with_draws(
            state, action, self.env.draws(rng, self.env.definition.step_draws), params
        )

    def observation(self, state: EnvState, rng: Any, params: EnvParams | None = None) -> Any:
        return self.env.observation(state, params)

    def reward(self, state: EnvState, action: Any, next_state: EnvState, rng: Any, params: Any = None) -> jax.Array:
        return self.env.reward(state, action, next_state, params)

    def terminal(self, state: EnvState, rng: Any, params: EnvParams | None = None) -> jax.Array:
        return self.env.is_terminated(state, params)

    def truncation(self, state: EnvState, params: EnvParams | None = None) -> jax.Array:
        return self.env.rules_truncation(state, params)

    def state_info(self, state: EnvState, params: EnvParams | None = None) -> dict[str, Any]:
        return self.env.state_info(state, params)

    def transition_info(self, state: EnvState, action: Any, next_state: EnvState, params: Any = None) -> dict[str, Any]:
        return self.env.transition_info(state, action, next_state, params)

    def transform(self, func: Any) -> None:
        super().transform(func)  # FuncEnv's own five methods; these two are this env's
        self.transition_info = func(self.transition_info)  # type: ignore[method-assign]
        self.truncation = func(self.truncation)  # type: ignore[method-assign]

    def render_init(self, params: Any = None, **kwargs: Any) -> None:
        return None

    def render_image(self, state: EnvState, render_state: Any, params: Any = None) -> tuple[Any, np.ndarray]:
        return render_state, self.env.render_rgb(state)


def _func_env(owner: str, env_id: str, env_config: Any, kwargs: Any, render_mode: Any, vector: bool) -> Any:
    """The env, its jitted :class:`SuiteFuncEnv` and the metadata of a Gymnasium shell."""
    env = SuiteJaxEnv(env_id, env_config, **kwargs)
    func_env = _jitted(env)
    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": env.definition.render_fps, "jax": True}
    if vector:
        metadata["autoreset_mode"] = AutoresetMode.NEXT_STEP
    if render_mode is not None and render_mode not in metadata["render_modes"]:
        raise ValueError(f"{owner}: render_mode must be None or 'rgb_array', got {render_mode!r}")
    return env, func_env, metadata


def _jitted(env: SuiteJaxEnv) -> SuiteFuncEnv:
    """The jitted :class:`SuiteFuncEnv` of ``env`` (made again when a shell is unpickled or copied)."""
    func_env = SuiteFuncEnv(env)
    func_env.transform(jax.jit)
    return func_env


def _seed(env: Any, seed: int | None, shell: Any) -> None:
    """Seed ``np_random`` as Gymnasium does and the JAX key as :func:`gym_suite.training.jax.train_ppo`."""
    if seed is not None:
        shell.reset(env, seed=seed)
        env.rng = jnp.asarray(seed_keys(seed, 1)[0])


class _Pickled:
    """A Gymnasium shell pickled as the numpy env is, mid-episode too: without its jitted functions,
    which ``__setstate__`` makes again; ``copy.deepcopy`` shares them (a copy compiles nothing)."""

    _jitted_functions = ("func_env", "_batch_step")

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in self._jitted_functions}

    def __deepcopy__(self, memo: dict[int, Any]) -> Any:
        clone = memo[id(self)] = object.__new__(type(self))
        jitted = self._jitted_functions
        clone.__dict__.update({k: v if k in jitted else copy.deepcopy(v, memo) for k, v in self.__dict__.items()})
        return clone


class JaxEnv(_Pickled, FunctionalJaxEnv[EnvState]):
    """``gymnasium.make("gym_suite_jax/<id>")``: one env on JAX, whose step also reports the
    rules' own truncation and, after the episode ended (or before the first ``reset``), raises
    ``gymnasium.error.ResetNeeded``. The step limit is ``TimeLimit``'s."""

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 4, "jax": True}
    #: Whether the episode has ended (or never started): ``step`` raises ``ResetNeeded`` until ``reset``.
    _ended = True

    def __init__(
        self, env_id: str, render_mode: str | None = None, env_config: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> None:
        self._env, func_env, metadata = _func_env("JaxEnv", env_id, env_config, kwargs, render_mode, vector=False)
        super().__init__(func_env, metadata=metadata, render_mode=render_mode)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.func_env = _jitted(self._env)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Gymnasium's ``reset``; ``seed`` (any non-negative integer) and ``options`` as the numpy env takes them."""
        check_options(type(self).__name__, options)  # before anything changes
        _seed(self, check_seed(type(self).__name__, seed), gymnasium.Env)
        observation, info = super().reset(seed=None, options=options)
        self._ended = False
        return observation, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._ended:
            raise gymnasium.error.ResetNeeded(
                f"{type(self).__name__}: the episode has ended (or reset() was never called); call reset() before step()"
            )
        action = self._env.check_action(action, full=True)  # the numpy env's check, before anything changes
        observation, reward, terminated, _, info = super().step(action)
        truncated = bool(self.func_env.truncation(self.state))  # type: ignore[attr-defined]
        self._ended = terminated or truncated
        return observation, reward, terminated, truncated, info


class JaxVectorEnv(_Pickled, FunctionalJaxVectorEnv[Any, Any, EnvState]):
    """``gymnasium.make_vec("gym_suite_jax/<id>", num_envs=N)``: ``N`` envs on JAX with next-step
    autoreset (a row that ended starts afresh on its next step, with reward 0), one jitted step."""

    metadata: dict[str, Any] = {**JaxEnv.metadata, "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        env_id: str,
        num_envs: int = 1,
        max_episode_steps: int | None = None,
        render_mode: str | None = None,
        env_config: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        owner = type(self).__name__
        num_envs = check_num_envs(owner, num_envs)
        if isinstance(max_episode_steps, (int, np.integer)) and max_episode_steps == -1:  # Gymnasium's "no limit"
            max_episode_steps = None
        max_episode_steps = check_int(owner, "max_episode_steps", max_episode_steps, 1, allow_none=True)
        env, func_env, metadata = _func_env(owner, env_id, env_config, kwargs, render_mode, vector=True)
        limit = max_episode_steps or 0  # 0: FunctionalJaxVectorEnv's "no limit"
        super().__init__(func_env, int(num_envs), max_episode_steps=limit, metadata=metadata, render_mode=render_mode)
        self._env = env
        self._batch_step = jax.jit(functools.partial(_batch_step, env, limit))

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.func_env = _jitted(self._env)
        self.func_env.transform(jax.vmap)
        self._batch_step = jax.jit(functools.partial(_batch_step, self._env, self.time_limit))

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Gymnasium's ``reset``; one seed, or a list of ``num_envs`` seeds (``None`` entries
        allowed) folded into one, as the numpy vector env takes them."""
        owner = type(self).__name__
        check_options(owner, options)  # before anything changes
        seeds, entropy = check_vector_seeds(owner, seed, self.num_envs)
        one = int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0]) if entropy else seeds[0]
        _seed(self, one, gymnasium.vector.VectorEnv)
        observation, info = super().reset(seed=None, options=options)
        self.prev_done = jnp.zeros(self.num_envs, dtype=bool)
        return observation, info

    def step(self, action: Any) -> tuple[Any, jax.Array, jax.Array, jax.Array, dict[str, Any]]:
        out: tuple[Any, jax.Array, jax.Array, jax.Array, dict[str, Any]]
        if not hasattr(self, "state"):
            raise gymnasium.error.ResetNeeded("JaxVectorEnv: call reset() before step()")
        action = self._env.check_action(action, self.num_envs)  # the numpy env's check, before anything changes
        self.rng, key = jax.random.split(self.rng)
        self.state, self.prev_done, out = self._batch_step(self.state, self.prev_done, key, jnp.asarray(action))
        self.steps = self.state.time
        return out

    def render(self) -> tuple[np.ndarray, ...] | None:
        if self.render_mode != "rgb_array":
            return None
        return tuple(self._env.render_rgb(jax.tree.map(lambda q, i=i: q[i], self.state)) for i in range(self.num_envs))


def _batch_step(
    env: SuiteJaxEnv, limit: int, state: EnvState, prev_done: jax.Array, key: jax.Array, action: jax.Array
) -> tuple[EnvState, jax.Array, tuple[Any, jax.Array, jax.Array, jax.Array, dict[str, Any]]]:
    """One step of every row with next-step autoreset, on the env's own parameters."""
    n = prev_done.shape[0]
    step_key, reset_key = jax.random.split(key)
    u_step, u_start = (
        jax.vmap(functools.partial(env.draws, count=count))(jax.random.split(k, n)) if count else ()
        for k, count in ((step_key, env.definition.step_draws), (reset_key, env.start_draws))
    )
    obs, stepped, reward, terminated, truncated, info = jax.vmap(env.step_with_draws, axis_size=n)(
        state, action, u_step
    )
    fresh = jax.vmap(env.initial_with_draws, axis_size=n)(u_start)
    next_state = jax.tree.map(
        lambda a, b: jnp.where(prev_done.reshape((n,) + (1,) * (a.ndim - 1)), a, b), fresh, stepped
    )
    if limit:
        truncated = truncated | (next_state.time >= limit)
    active = ~prev_done
    terminated, truncated = terminated & active, truncated & active
    reward = jnp.where(active, reward, 0.0)
    observation = jax.vmap(env.observation)(next_state)
    return next_state, terminated | truncated, (observation, reward, terminated, truncated, info)
