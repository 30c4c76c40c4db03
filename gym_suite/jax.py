"""JAX environments: every gym-suite id as a gymnax ``Environment`` and as a Gymnasium functional JAX env.

Install the extra with ``pip install "gym-suite[jax]"`` (JAX and gymnax). ``import gym_suite``
never imports JAX; ``import gym_suite.jax`` does.

Nothing here is written per environment: each id's definition (``gym_suite/envs/*_env.py``)
runs with ``ops=jax_ops()`` (``jax.numpy``), so the JAX env follows the same rules as the
scalar and numpy envs, on draws from ``jax.random``.

**gymnax** (PureJaxRL-style loops, rejax, Stoix): :func:`make` returns ``(env, params)`` as
``gymnax.make`` does::

    import jax
    import gym_suite.jax

    env, params = gym_suite.jax.make("heartpole-v1")
    keys = jax.random.split(jax.random.key(0), 64)
    obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)

``env.step(key, state, action, params)`` is gymnax's: it resets an ended episode in the same
call (the returned observation is the new start's; ``info["final_observation"]`` is the last
one). The step limit is ``params.max_steps_in_episode`` (the registry's, or ``2**31 - 1`` when
the registry has none: heartpole-v1 and push-v0 end by their own rules);
``params.replace(max_steps_in_episode=N)`` changes it. An episode that the rules truncate
(heartpole-v1's two weeks) is reported as truncated, as the step limit is.

**Parameters as data**: ``params`` also carries the definition's data parameters
(``Definition.data_parameters``: heartpole's ``heart_attack_proclivity``, target-v1's
``target_speed``), as gymnax's envs carry theirs: ``params.replace(target_speed=2.0)``, params
passed per call, ``jax.vmap`` over a batch of params (one compiled program for every value)::

    speeds = jnp.array([0.5, 1.0, 1.5])
    batch = jax.vmap(lambda v: params.replace(target_speed=v))(speeds)
    obs, state = jax.vmap(env.reset)(jax.random.split(key, 3), batch)

What fixes shapes, spaces or data (sizes, push's logs, a rule chosen by a flag) stays static
configuration of the env, given to :func:`make`.

Observations are the definition's, except a ``Dict`` observation (push-v0), which is flattened
into one float vector, in the order of ``gymnasium.spaces.flatten`` (its keys in the space's
order; a ``Discrete`` part one-hot, a ``Box`` part as its values), so that array-based trainers
take it; :meth:`SuiteJaxEnv.observation_space` is the matching ``Box``. ``info`` holds the
step's numeric values (an action's name is given as its index).

**Checks**: ``env.step`` and ``env.reset`` check the key (one PRNG key), ``params`` and the
action's dtype and shape when they are traced (once per compilation, not in the compiled
step); a Python or numpy action is checked in full, as the numpy env checks it. A JAX
array's value cannot raise under ``jit``: a ``Discrete`` action outside ``0..n-1`` acts as the
nearest valid one, a ``Box`` action reaches the rules as given. ``make(id, checked=True)`` checks
the values too, with ``jax.experimental.checkify`` (see :func:`make` and the Errors page).

**Gymnasium**: ``import gym_suite`` registers ``gym_suite_jax/<id>`` for every id
(:func:`gym_suite.register_gymnasium`, strings only: JAX loads when an env is made), for example
``gymnasium.make("gym_suite_jax/heartpole-v1")`` and ``gymnasium.make_vec("gym_suite_jax/heartpole-v1",
num_envs=8)``: :class:`JaxEnv` and :class:`JaxVectorEnv` on Gymnasium's ``FunctionalJaxEnv`` and
``FunctionalJaxVectorEnv``. ``gymnasium.make("gym_suite.jax:gym_suite_jax/heartpole-v1")`` imports
the package first, so it works without an import. These keep the definition's own observation space
(``Dict`` for push-v0), return JAX arrays, and render ``rgb_array`` pictures with numpy. Their ``step`` checks
an action (or a batch) with the numpy env's own check, and ``reset`` its seed (any non-negative
integer) and options by the numpy env's rules, before anything changes; as the numpy env's, a
``step`` after the episode ended raises ``gymnasium.error.ResetNeeded`` until ``reset``.

**Precision**: the state, the draws and the rewards are ``float32`` unless JAX's 64-bit mode is
on (``jax.config.update("jax_enable_x64", True)`` before making the env, or the environment
variable ``JAX_ENABLE_X64=1``); then they are ``float64`` and agree with the numpy env to about
``1e-12`` relative on the same draws (float32: about ``1e-5``). Observations keep the dtype of
the observation space (``float32`` boxes). The JAX env's random streams are ``jax.random``'s:
the same seed gives other episodes than the numpy env (the same distributions). Integer
quantities (example-v0's positions, the step count) are ``int32``, or ``int64`` in 64-bit mode;
without it, :func:`make` refuses an integer argument of ``2**30`` or more in magnitude (the
rules add two of them).

**Compilation cache**: importing this module turns on JAX's persistent compilation cache, so that
a program compiled once (a rollout, :func:`gym_suite.training.jax.train_ppo`'s training) is
loaded from disk in the next process instead of compiled again: in ``$XDG_CACHE_HOME/gym_suite/jax``
(``~/.cache/gym_suite/jax``), elsewhere with the environment variable ``GYM_SUITE_JAX_CACHE=/some/dir``
(a relative path: from the working directory at the import),
off with ``GYM_SUITE_JAX_CACHE=off``. A cache directory already given to JAX
(``JAX_COMPILATION_CACHE_DIR``, ``jax_compilation_cache_dir``) is left as it is.
:func:`compilation_cache_dir` tells the directory in use.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from typing import Any

import gymnasium
import jax
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
from gym_suite.envs._device import numeric as _numeric
from gym_suite.envs._shells import check_num_envs
from gym_suite.envs.checks import (
    ArgumentTypeError,
    check_action,
    check_actions,
    check_int,
    check_options,
    check_seed,
    check_vector_seeds,
    merge_arguments,
    shown,
)
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
#: gymnax 1.0 and later split ``terminated`` and ``truncated`` (``Environment.is_truncated``);
#: before, ``step_env`` returned one ``done``.
_SPLIT_STEP = hasattr(environment.Environment, "is_truncated")

use_compilation_cache()


def compilation_cache_dir() -> str | None:
    """The directory of JAX's persistent compilation cache in use (the suite's default, the one of
    ``GYM_SUITE_JAX_CACHE`` or the user's own), or ``None`` when it is off."""
    return cache_dir_in_use()


@struct.dataclass
class EnvState(environment.EnvState):  # type: ignore[misc]  # gymnax has no type hints
    """gymnax's state: ``time`` (steps in the episode) and ``inner``, the definition's state
    (its ``NamedTuple`` of JAX arrays)."""

    inner: Any


@struct.dataclass
class EnvParams(environment.EnvParams):  # type: ignore[misc]  # gymnax has no type hints
    """gymnax's parameters: the step limit, and in an env's own subclass (the class of its
    ``default_params``) the definition's data parameters as top-level fields
    (``Definition.data_parameters``: heartpole's ``heart_attack_proclivity``, target-v1's
    ``target_speed``), so that ``params.replace(target_speed=2.0)`` and ``jax.vmap`` over a batch
    of params work as in gymnax. The other parameters (what fixes shapes, spaces or data) are
    static configuration of the env (``env.definition_params``)."""

    max_steps_in_episode: int = NO_LIMIT


def _rebuilt_params(names: tuple[str, ...], values: tuple[Any, ...]) -> EnvParams:
    """An :class:`EnvParams` of the data parameters ``names`` (what a pickle holds)."""
    return params_class(names)(*values)


@functools.cache
def params_class(names: tuple[str, ...]) -> type[EnvParams]:
    """The :class:`EnvParams` subclass whose fields are the step limit and the data parameters
    ``names`` (``None`` in a field: the env's own value); :class:`EnvParams` itself without them."""
    if not names:
        return EnvParams

    def __reduce__(self: EnvParams) -> tuple[Any, ...]:  # a class made here: pickled by its names
        return _rebuilt_params, (names, tuple(getattr(self, field.name) for field in dataclasses.fields(self)))

    namespace: dict[str, Any] = {"__annotations__": dict.fromkeys(names, "Any"), "__module__": __name__}
    namespace.update(dict.fromkeys(names))
    namespace["__reduce__"] = __reduce__
    cls = type("EnvParams", (EnvParams,), namespace)
    return struct.dataclass(cls)


def _spec(env_id: str) -> Spec:
    if not isinstance(env_id, str):
        raise TypeError(f"gym_suite.jax.make: env_id must be a string, one of {list(ENV_IDS)}, got {env_id!r}")
    from gym_suite._registry import suite_id  # the one normalizer of ids

    name = suite_id(env_id, jax=True)  # "gym_suite:<id>", "gym_suite_jax/<id>": the id
    spec = find(name)
    if spec is not None:
        return spec
    raise ValueError(f"gym_suite.jax.make: unknown env_id {env_id!r}; the ids are {list(ENV_IDS)}")


def jax_ids() -> tuple[str, ...]:
    """The ids that run on JAX: every id (each one's environment is a definition)."""
    return ENV_IDS


def _with_fields(params: Any, changes: Mapping[str, Any]) -> Any:
    """A copy of the frozen dataclass ``params`` with ``changes`` (JAX values) in its fields, set
    without running its ``__init__``'s checks (the values were checked as arguments)."""
    copy = object.__new__(type(params))
    for field in dataclasses.fields(params):
        object.__setattr__(copy, field.name, changes.get(field.name, getattr(params, field.name)))
    return copy


def _int() -> Any:
    """JAX's default integer: int32, or int64 in 64-bit mode."""
    return jnp.zeros(0, dtype=int).dtype


def _x64() -> bool:
    return bool(jax.config.read("jax_enable_x64"))  # type: ignore[no-untyped-call]  # jax leaves Config.read unannotated


def _check_int32(owner: str, params: Any) -> None:
    """Without 64-bit mode JAX's integers are int32: refuse parameters whose arithmetic they cannot
    hold (see ``INT32_PARAMETER_LIMIT``), naming the argument."""
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
        limit = INT32_PARAMETER_LIMIT
        if low <= -limit or high >= limit:
            raise ValueError(
                f"{owner}: {field.name} holds {shown(high if high >= limit else low)}, beyond what JAX's 32-bit integers "
                f"compute with (magnitudes below 2**30); turn on 64-bit mode (JAX_ENABLE_X64=1 or "
                "jax.config.update('jax_enable_x64', True)) before making the env"
            )


@functools.cache
def _raw_key_shape() -> tuple[int, ...]:
    """The shape of one raw key of ``jax.random.PRNGKey`` (``(2,)`` with threefry)."""
    return tuple(jax.random.PRNGKey(0).shape)


def _gymnax_space(space: gym_spaces.Space[Any]) -> gymnax_spaces.Space:
    """The gymnax space of a Gymnasium space (a ``Dict`` becomes its flattened ``Box``)."""
    if isinstance(space, gym_spaces.Discrete) and int(space.start) == 0:
        discrete = gymnax_spaces.Discrete(int(space.n))
        discrete.dtype = _int()  # the env's integers: int32, int64 in 64-bit mode (gymnax's default is int32)
        return discrete
    if isinstance(space, gym_spaces.Discrete):
        start = int(space.start)
        return gymnax_spaces.Box(start, start + int(space.n) - 1, (), _int())
    if isinstance(space, gym_spaces.Box):
        return gymnax_spaces.Box(jnp.asarray(space.low), jnp.asarray(space.high), tuple(space.shape), space.dtype)
    if isinstance(space, gym_spaces.Dict):
        flat = gym_spaces.flatten_space(space)
        if not isinstance(flat, gym_spaces.Box):  # a Dict of Box and Discrete flattens to a Box
            raise NotImplementedError(f"gym_suite.jax: no gymnax space for {space}")
        dtype = jnp.zeros(0).dtype  # float32, float64 under x64
        return gymnax_spaces.Box(jnp.asarray(flat.low, dtype), jnp.asarray(flat.high, dtype), tuple(flat.shape), dtype)
    raise NotImplementedError(f"gym_suite.jax: no gymnax space for {space}")


def _flatten(observation: Any, space: gym_spaces.Dict) -> jax.Array:
    """A ``Dict`` observation as one float vector, as ``gymnasium.spaces.flatten`` orders it."""
    dtype = jnp.zeros(0).dtype
    parts = []
    for key, sub in space.spaces.items():
        value = observation[key]
        if isinstance(sub, gym_spaces.Discrete):
            parts.append(jax.nn.one_hot(jnp.asarray(value) - int(sub.start), int(sub.n), dtype=dtype))
        elif isinstance(sub, gym_spaces.Box):
            parts.append(jnp.ravel(jnp.asarray(value)).astype(dtype))
        elif isinstance(sub, gym_spaces.Dict):
            parts.append(_flatten(value, sub))
        else:
            raise NotImplementedError(f"gym_suite.jax: cannot flatten {sub}")
    return jnp.concatenate(parts)


class SuiteJaxEnv(environment.Environment):  # type: ignore[misc]  # gymnax has no type hints
    """A gym-suite id as a gymnax ``Environment`` (made by :func:`make`).

    ``env.definition`` is the id's definition and ``env.definition_params`` its parameters (the
    constructor's arguments, checked as the numpy env checks them); ``env.data_parameters`` names
    those of them that ``params`` carries as data (:meth:`rule_params` puts them in). The state
    is an :class:`EnvState`; :meth:`step_with_draws` is one step on given uniforms (what the
    equivalence tests call), :meth:`transition_with_draws` its next state alone.

    :meth:`step` and :meth:`reset` check what they are given when they are traced (once per
    compilation, nothing in the compiled step): the key (one PRNG key), ``params`` and the
    action's dtype and shape; a Python or numpy action is checked in full, as the numpy env
    checks it. A JAX array's values cannot raise under ``jit``: a ``Discrete`` action outside
    ``0..n-1`` acts as the nearest valid one (clipped), a ``Box`` action reaches the rules as
    given. With ``checked=True`` the values are checked too, with ``jax.experimental.checkify``
    (see :func:`make`).
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
        self.env_id = spec.id
        self.definition_params = self.definition.make_params(load(spec.params), owner, **kwargs)
        self.max_episode_steps = spec.max_episode_steps
        _check_int32(owner, self.definition_params)
        self._params = _device_params(self.definition_params)
        self._ops = jax_ops()
        self._gym_observation_space, self._gym_action_space = self.definition.spaces(self.definition_params)
        self._truncates = overrides(self.definition, "truncation")
        #: The uniforms a start takes (the definition's ``start_draws`` with these parameters).
        self.start_draws = draws_at_start(self.definition, self.definition_params)
        #: The definition's parameters that ``EnvParams`` carries as data (``Definition.data_parameters``).
        self.data_parameters: tuple[str, ...] = tuple(self.definition.data_parameters)
        self._params_class = params_class(self.data_parameters)
        self._checked_values: set[tuple[Any, ...]] = set()
        self._types: dict[bool, Any] = {}

    def __repr__(self) -> str:
        return f"SuiteJaxEnv({self.env_id!r})"

    def __getstate__(self) -> dict[str, Any]:
        # jax.numpy's functions (the ops namespace) do not pickle, and the cached shapes are rebuilt
        state = dict(self.__dict__)
        state.pop("_ops", None)
        state.pop("_checkified_functions", None)
        state.pop("_params_class", None)  # made here, found again by its names
        state["_types"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._ops = jax_ops()
        self._params_class = params_class(self.data_parameters)
        # the device arrays, as a new env holds them (a parameter set may pickle as numpy arrays)
        self._params = _device_params(self.definition_params)

    # Checks at the edge (at trace time under jit) -------------------------------------------------

    def _expected_action(self) -> str:
        space = self._gym_action_space
        if isinstance(space, gym_spaces.Discrete):
            n = int(space.n)
            return f"an integer in 0..{n - 1} (Discrete({n}))"
        return f"an array of shape {tuple(space.shape)} ({shown(space)})"

    def check_action(self, action: Any) -> Any:
        """``action`` as :meth:`step` takes it, or ``TypeError`` / ``ValueError`` naming what is allowed.

        A JAX array (a tracer under ``jit``) is checked by dtype and shape; anything else (a Python
        number, a list, a numpy array) in full, by the numpy env's own check, and returned as a
        numpy array.
        """
        space = self._gym_action_space
        if isinstance(action, jax.Array):
            dtype, shape = action.dtype, tuple(action.shape)
            kinds = "iu" if isinstance(space, gym_spaces.Discrete) else "fiu"
            if jnp.issubdtype(dtype, jax.dtypes.prng_key) or np.dtype(dtype).kind not in kinds:
                raise ArgumentTypeError(f"invalid action of dtype {dtype}: expected {self._expected_action()}")
            if shape != tuple(space.shape):
                raise ValueError(
                    f"invalid action of shape {shape}: expected {self._expected_action()}, of shape "
                    f"{tuple(space.shape)} (for a batch of envs, jax.vmap the step)"
                )
            return action
        checked = check_action(action, space)
        return np.asarray(checked) if isinstance(space, gym_spaces.Discrete) else self._as_float(checked)

    def check_action_value(self, action: Any) -> Any:
        """``action`` checked in full as the numpy env checks it (a JAX array is read back)."""
        if isinstance(action, jax.Array):
            action = np.asarray(action)
        checked = check_action(action, self._gym_action_space)
        return (
            self._as_float(checked)
            if not isinstance(self._gym_action_space, gym_spaces.Discrete)
            else np.asarray(checked)
        )

    def _as_float(self, values: Any) -> Any:
        """Numbers in JAX's float type (float32 unless in 64-bit mode): a finite number beyond
        float32 becomes an infinity, which the rules treat as the numpy env treats the number
        (target-v0: the field's edge)."""
        with np.errstate(over="ignore"):
            return np.asarray(values, dtype=np.float64).astype(self._float())

    def check_actions(self, actions: Any, num_envs: int) -> Any:
        """A batch of ``num_envs`` actions checked in full as the numpy vector env checks them."""
        if isinstance(actions, jax.Array):
            actions = np.asarray(actions)
        space = self._gym_action_space
        checked = check_actions(actions, num_envs, space)
        if isinstance(space, gym_spaces.Discrete):
            return checked
        return self._as_float(actions)  # the rules' own form may differ (target-v0's columns)

    def _check_key(self, method: str, key: Any) -> None:
        if isinstance(key, (jax.Array, np.ndarray)):
            shape = tuple(key.shape)
            if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
                if shape == ():
                    return
                raise ValueError(
                    f"{self.env_id}.{method}: key must be one PRNG key, got keys of shape {shape}; "
                    f"jax.vmap env.{method} over a batch of keys"
                )
            raw = _raw_key_shape()
            if key.dtype == np.uint32 and shape[-len(raw) :] == raw:
                if shape == raw:
                    return
                raise ValueError(
                    f"{self.env_id}.{method}: key must be one PRNG key, got keys of shape {shape[: -len(raw)]}; "
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
        """``params`` (``None``: the default ones), their step limit checked: a positive integer
        (its dtype and shape only when it is a JAX array)."""
        if params is None:
            return self.default_params
        if not isinstance(params, EnvParams):
            raise ArgumentTypeError(
                f"{self.env_id}.{method}: params must be None or the EnvParams of gym_suite.jax.make, got {shown(params)}"
            )
        limit = params.max_steps_in_episode
        largest = 2**63 - 1 if _x64() else 2**31 - 1
        problem = (
            f"{self.env_id}.{method}: params.max_steps_in_episode must be an integer in 1..{largest} "
            f"({'int64' if _x64() else 'int32'})"
        )
        if isinstance(limit, jax.Array):  # a tracer under jit: its dtype and shape
            if jnp.issubdtype(limit.dtype, jax.dtypes.prng_key) or np.dtype(limit.dtype).kind not in "iu":
                raise ArgumentTypeError(f"{problem}, got an array of dtype {limit.dtype}")
            if limit.shape != ():
                raise ValueError(f"{problem}, got an array of shape {tuple(limit.shape)}")
            self._check_data(method, params)
            return params
        if isinstance(limit, np.ndarray) and limit.shape == () and limit.dtype.kind in "iu":
            limit = limit.item()
        if isinstance(limit, (bool, np.bool_)) or not isinstance(limit, (int, np.integer)):
            raise ArgumentTypeError(f"{problem}, got {shown(limit)}")
        if not 1 <= limit <= largest:
            raise ValueError(f"{problem}, got {shown(limit)}")
        self._check_data(method, params)
        return params

    def _check_data(self, method: str, params: EnvParams) -> None:
        """The data parameters of ``params``: a traced one by dtype and shape (one number: vmap
        the step over a batch), concrete ones by the numpy env's own checks of the arguments."""
        owner = f"{self.env_id}.{method}"
        concrete: dict[str, Any] = {}
        for name in self.data_parameters:
            value = getattr(params, name, None)
            if value is None:  # the env's own value
                continue
            if isinstance(value, jax.core.Tracer):
                dtype = value.dtype
                if jnp.issubdtype(dtype, jax.dtypes.prng_key) or np.dtype(dtype).kind not in "fiu":
                    raise ArgumentTypeError(f"{owner}: params.{name} must be a number, got an array of dtype {dtype}")
                if tuple(value.shape) != ():
                    raise ValueError(
                        f"{owner}: params.{name} must be one number, got an array of shape {tuple(value.shape)}; "
                        f"jax.vmap env.{method} over a batch of params"
                    )
                continue
            if isinstance(value, (jax.Array, np.ndarray, np.generic)):
                array = np.asarray(value)
                if array.shape != ():
                    raise ValueError(
                        f"{owner}: params.{name} must be one number, got an array of shape {array.shape}; "
                        f"jax.vmap env.{method} over a batch of params"
                    )
                value = array.item()
            concrete[name] = value
        if not concrete:
            return
        key = tuple((name, type(value), value) for name, value in concrete.items())
        if key in self._checked_values:
            return
        self.definition.make_params(self.definition_params, owner, **concrete)  # the numpy env's checks
        if len(self._checked_values) < 1024:
            self._checked_values.add(key)

    def _value_message(self) -> str:
        """The message of an action value out of the space, a ``checkify`` format (``{}``: the value)."""
        space = self._gym_action_space
        if isinstance(space, gym_spaces.Discrete):
            n = int(space.n)
            return f"invalid action {{}}: expected an integer in 0..{n - 1} (Discrete({n}))"
        probe = np.full(space.shape, np.nan)  # the numpy env's own message for a non-finite action
        try:
            check_action(probe, space)
        except ValueError as err:
            text = str(err).replace("{", "{{").replace("}", "}}")
            if shown(probe) in text:
                return text.replace(shown(probe), "{}", 1)
        return f"invalid action {{}}: expected finite values ({shown(space)})"

    def _checkify_action(self, action: Any) -> None:
        """Checked mode: the action's values, reported by ``checkify`` with the numpy env's message."""
        space = self._gym_action_space
        a = jnp.asarray(action)
        if isinstance(space, gym_spaces.Discrete):
            valid = (a >= 0) & (a < int(space.n))
        else:
            valid = jnp.all(jnp.isfinite(a))
        checkify.check(valid, self._value_message(), a)

    # gymnax's step and reset, their arguments checked --------------------------------------------

    def step(
        self, key: jax.Array, state: EnvState, action: Any, params: EnvParams | None = None
    ) -> tuple[Any, EnvState, jax.Array, jax.Array, jax.Array, dict[str, Any]]:
        """gymnax's ``step`` (autoreset in the same call), its arguments checked first (see the class)."""
        self._check_key("step", key)
        action = self.check_action(action)
        params = self.check_params("step", params)
        if not self.checked:
            return super().step(key, state, action, params)  # type: ignore[no-any-return]  # gymnax is untyped
        error, out = self._checkified("step")(key, state, action, params)
        checkify.check_error(error)
        return out  # type: ignore[no-any-return]  # checkify is untyped

    def reset(self, key: jax.Array, params: EnvParams | None = None) -> tuple[Any, EnvState]:
        """gymnax's ``reset``, its key and params checked first."""
        self._check_key("reset", key)
        params = self.check_params("reset", params)
        if not self.checked:
            return super().reset(key, params)  # type: ignore[no-any-return]  # gymnax is untyped
        error, out = self._checkified("reset")(key, params)
        checkify.check_error(error)
        return out  # type: ignore[no-any-return]  # checkify is untyped

    def _checkified(self, method: str) -> Any:
        """gymnax's ``step`` or ``reset`` with its checks functionalized, compiled once."""
        functions = self.__dict__.setdefault("_checkified_functions", {})
        if method not in functions:
            function = functools.partial(getattr(environment.Environment, method), self)
            functions[method] = jax.jit(checkify.checkify(function))
        return functions[method]

    # gymnax's interface -------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.env_id

    @property
    def default_params(self) -> EnvParams:
        limit = self.max_episode_steps
        data = {name: getattr(self.definition_params, name) for name in self.data_parameters}
        return self._params_class(max_steps_in_episode=NO_LIMIT if limit is None else int(limit), **data)

    @property
    def gym_observation_space(self) -> Any:  # a gymnasium Space
        """The definition's own observation space (Gymnasium's; a ``Dict`` stays a ``Dict``)."""
        return self._gym_observation_space

    @property
    def gym_action_space(self) -> Any:  # a gymnasium Space
        """The definition's own action space (Gymnasium's)."""
        return self._gym_action_space

    @property
    def num_actions(self) -> int:
        space = self._gym_action_space
        if isinstance(space, gym_spaces.Discrete):
            return int(space.n)
        return int(np.prod(space.shape))

    def action_space(self, params: EnvParams | None = None) -> gymnax_spaces.Space:
        return _gymnax_space(self._gym_action_space)

    def observation_space(self, params: EnvParams | None = None) -> gymnax_spaces.Space:
        """The observation space; with concrete ``params`` whose data parameters bound it
        (target-v1's ``target_speed`` bounds the velocity), the space of those values."""
        return _gymnax_space(self.definition.spaces(self.numpy_params(params))[0])

    def numpy_params(self, params: EnvParams | None = None) -> Any:
        """The definition's parameters (numpy, as the numpy env holds them) with the data
        parameters of concrete ``params`` put in and checked; ``env.definition_params`` for
        ``None``, the default params or traced ones."""
        if params is None or not self.data_parameters:
            return self.definition_params
        concrete = {}
        for name in self.data_parameters:
            value = getattr(params, name, None)
            if value is None or isinstance(value, jax.core.Tracer):
                return self.definition_params
            concrete[name] = (
                np.asarray(value).item() if isinstance(value, (jax.Array, np.ndarray, np.generic)) else value
            )
        if all(concrete[name] == getattr(self.definition_params, name) for name in concrete):
            return self.definition_params
        return self.definition.make_params(self.definition_params, self.env_id, **concrete)

    def rule_params(self, params: EnvParams | None = None) -> Any:
        """The definition's parameters the rules read (device arrays), with the data parameters
        of ``params`` put in as JAX scalars of the env's float (or integer) type; traced values
        are fine. ``None`` (or a field left ``None``): the env's own values, as constants."""
        if params is None or not self.data_parameters:
            return self._params
        changes = {}
        for name in self.data_parameters:
            value = getattr(params, name, None)
            if value is None:
                continue
            own = getattr(self.definition_params, name)
            integer = isinstance(own, (int, np.integer)) and not isinstance(own, (bool, np.bool_))
            changes[name] = jnp.asarray(value, dtype=_int() if integer else self._float())
        if not changes:
            return self._params
        return _with_fields(self._params, changes)

    def reset_env(self, key: jax.Array, params: EnvParams) -> tuple[jax.Array, EnvState]:
        state = self.initial_with_draws(self.draws(key, self.start_draws), params)
        return self.get_obs(state, params), state

    def step_env(
        self, key: jax.Array, state: EnvState, action: Any, params: EnvParams
    ) -> tuple[jax.Array, EnvState, jax.Array, jax.Array, dict[str, Any]]:
        if self.checked:
            self._checkify_action(action)
            limit = params.max_steps_in_episode
            checkify.check(
                limit >= 1, "params.max_steps_in_episode must be a positive integer, got {}", jnp.asarray(limit)
            )
        obs, next_state, reward, terminated, _, info = self.step_with_draws(
            state, action, self.draws(key, self.definition.step_draws), params
        )
        if not _SPLIT_STEP:  # gymnax before 1.0: one `done`, the step limit included
            terminated = terminated | self.is_truncated(next_state, params)
        return obs, next_state, reward, terminated, info

    def get_obs(self, state: EnvState, params: EnvParams | None = None, key: Any = None) -> jax.Array:
        """gymnax's observation: the definition's, a ``Dict`` flattened into one float vector."""
        observation = self.observation(state, params)
        if isinstance(self._gym_observation_space, gym_spaces.Dict):
            return _flatten(observation, self._gym_observation_space)
        return jnp.asarray(observation)

    def observation(self, state: EnvState, params: EnvParams | None = None) -> Any:
        """The definition's own observation of ``state`` (a ``Dict`` stays a dict)."""
        return self.definition.observation(state.inner, self.rule_params(params), self._ops)

    def reward(self, state: EnvState, action: Any, next_state: EnvState, params: EnvParams | None = None) -> jax.Array:
        """The reward of the step from ``state`` to ``next_state``, in the env's float type."""
        rules = self.rule_params(params)
        reward = self.definition.reward(state.inner, self._action(action), next_state.inner, rules, self._ops)
        return jnp.asarray(reward, dtype=self._float())

    def state_info(self, state: EnvState, params: EnvParams | None = None) -> dict[str, Any]:
        """The numeric ``info`` of a start."""
        info = self.definition.info(None, None, state.inner, self.rule_params(params), self._ops)
        return {key: jnp.asarray(value) for key, value in info.items() if _numeric(value)}

    def transition_info(
        self, state: EnvState, action: Any, next_state: EnvState, params: EnvParams | None = None
    ) -> dict[str, Any]:
        """The numeric ``info`` of the step from ``state`` to ``next_state``."""
        rules = self.rule_params(params)
        info = self.definition.info(state.inner, self._action(action), next_state.inner, rules, self._ops)
        return {key: jnp.asarray(value) for key, value in info.items() if _numeric(value)}

    def is_terminated(self, state: EnvState, params: EnvParams | None = None) -> jax.Array:
        return jnp.asarray(self.definition.terminal(state.inner, self.rule_params(params), self._ops), dtype=bool)

    def is_terminal(self, state: EnvState, params: EnvParams | None = None) -> jax.Array:
        return self.is_terminated(state, params) | self.is_truncated(state, params or self.default_params)

    def is_truncated(self, state: EnvState, params: EnvParams) -> jax.Array:
        """The step limit, or the rules' own end (heartpole-v1's two weeks)."""
        return (state.time >= params.max_steps_in_episode) | self.rules_truncation(state, params)  # type: ignore[no-any-return]  # gymnax's state.time is Any

    def rules_truncation(self, state: EnvState, params: EnvParams | None = None) -> jax.Array:
        """Whether the definition's own clock ended the episode (not the step limit)."""
        if not self._truncates:
            return jnp.asarray(False)
        return jnp.asarray(self.definition.truncation(state.inner, self.rule_params(params), self._ops), dtype=bool)

    # The definition on given draws ----------------------------------------------------------------

    def draws(self, key: jax.Array, count: int) -> Any:
        """``count`` uniforms on [0, 1) of ``key``, in the env's float type (``()`` for none):
        ``draws(key, env.start_draws)`` for a start, ``definition.step_draws`` for a step."""
        return jax.random.uniform(key, (count,), dtype=self._float()) if count else ()

    def initial_with_draws(self, u: Any, params: EnvParams | None = None) -> EnvState:
        """A fresh state from the start's uniforms (``params``: the data parameters; ``None``: the env's)."""
        inner = self._canonical(self.definition.initial(u, self.rule_params(params), self._ops))
        return EnvState(time=jnp.zeros((), _int()), inner=inner)

    def transition_with_draws(self, state: EnvState, action: Any, u: Any, params: EnvParams | None = None) -> EnvState:
        """The next state on the step's uniforms ``u`` (nothing else computed)."""
        inner = self.definition.transition(state.inner, self._action(action), u, self.rule_params(params), self._ops)
        return EnvState(time=state.time + 1, inner=self._canonical(inner))

    def step_with_draws(
        self, state: EnvState, action: Any, u: Any, params: EnvParams | None = None
    ) -> tuple[jax.Array, EnvState, jax.Array, jax.Array, jax.Array, dict[str, Any]]:
        """One step on the uniforms ``u``: ``(obs, next_state, reward, terminated, truncated by
        the rules, info)``; no reset, no step limit. ``params``: the data parameters (``None``:
        the env's own)."""
        d, rules, ops = self.definition, self.rule_params(params), self._ops
        action = self._action(action)
        inner = self._canonical(d.transition(state.inner, action, u, rules, ops))
        reward = jnp.asarray(d.reward(state.inner, action, inner, rules, ops), dtype=self._float())
        next_state = EnvState(time=state.time + 1, inner=inner)
        info = {
            key: jnp.asarray(value)
            for key, value in d.info(state.inner, action, inner, rules, ops).items()
            if _numeric(value)
        }
        return (
            self.get_obs(next_state, params),
            next_state,
            reward,
            self.is_terminated(next_state, params),
            self.rules_truncation(next_state, params),
            info,
        )

    def _float(self) -> Any:
        return jnp.zeros(0).dtype  # float32, or float64 under x64

    def _action(self, action: Any) -> Any:
        space = self._gym_action_space
        if isinstance(space, gym_spaces.Discrete):  # out of range under jit: the nearest valid action
            return jnp.clip(jnp.asarray(action), 0, int(space.n) - 1).astype(_int())
        return jnp.asarray(action, dtype=self._float())

    def _canonical(self, inner: Any) -> Any:
        """``inner`` with the dtypes and shapes a step gives (strong types), so that a reset
        state and a stepped one are interchangeable (``lax.select``, ``lax.scan``)."""
        types = self._state_types()
        return jax.tree.map(lambda x, t: jnp.broadcast_to(jnp.asarray(x, dtype=t.dtype), t.shape), inner, types)

    def _state_types(self) -> Any:
        x64 = _x64()
        if x64 not in self._types:
            d, params, ops = self.definition, self._params, self._ops
            float_dtype = self._float()
            start = jax.ShapeDtypeStruct((self.start_draws,), float_dtype)  # type: ignore[no-untyped-call]  # jax leaves it unannotated
            step = jax.ShapeDtypeStruct((d.step_draws,), float_dtype)  # type: ignore[no-untyped-call]  # jax leaves it unannotated
            action = jax.eval_shape(lambda: self.action_space().sample(jax.random.key(0)))

            def strong(tree: Any) -> Any:
                return jax.tree.map(lambda t: jax.ShapeDtypeStruct(jnp.shape(t), jnp.result_type(t)), tree)  # type: ignore[no-untyped-call]  # jax leaves it unannotated

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
        return self._types[x64]

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
    ``"gym_suite_jax/heartpole-v1"`` are accepted); ``kwargs`` are the id's arguments
    (``heart_attack_proclivity=0.3``), checked as the numpy env checks them. ``params`` holds the
    registry's step limit (``max_steps_in_episode``) and the definition's data parameters
    (``params.replace(heart_attack_proclivity=0.3)``: the same env with another value, without
    compiling again); a concrete value in ``params`` is checked as the argument is, a traced one
    by its dtype and shape.

    ``env.step`` and ``env.reset`` check the key, ``params`` and the action's dtype and shape when
    they are traced; under ``jit`` an action's value cannot raise (a ``Discrete`` action outside
    ``0..n-1`` acts as the nearest valid one, a ``Box`` action reaches the rules as given).
    ``checked=True`` checks the values too, with ``jax.experimental.checkify``: called directly,
    ``env.step`` raises ``checkify.JaxRuntimeError`` (a ``ValueError``) with the numpy env's
    message; under ``jit``, functionalize the checks with ``checkify.checkify``::

        from jax.experimental import checkify

        env, params = gym_suite.jax.make("example-v0", checked=True)
        step = jax.jit(checkify.checkify(env.step))
        error, (obs, state, reward, terminated, truncated, info) = step(key, state, action, params)
        error.throw()  # "invalid action 7: expected an integer in 0..1 (Discrete(2))"
    """
    env = SuiteJaxEnv(env_id, checked=checked, **kwargs)
    return env, env.default_params


# --------------------------------------------------------------------------------------------
# Gymnasium's route: FuncEnv, FunctionalJaxEnv, FunctionalJaxVectorEnv
# --------------------------------------------------------------------------------------------


class SuiteFuncEnv(FuncEnv[EnvState, Any, Any, jax.Array, jax.Array, Any, EnvParams]):
    """Gymnasium's ``FuncEnv`` of a :class:`SuiteJaxEnv` (the definition's own observation space;
    the state is an :class:`EnvState`), on the env's public methods. ``params`` is the env's
    :class:`EnvParams` (its data parameters: ``env.default_params.replace(...)``); ``None``, as
    ``FunctionalJaxEnv`` passes it, is the env's own values, compiled as constants."""

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
        u = self.env.draws(rng, self.env.definition.step_draws)
        return self.env.transition_with_draws(state, action, u, params)

    def observation(self, state: EnvState, rng: Any, params: EnvParams | None = None) -> Any:
        return self.env.observation(state, params)

    def reward(
        self, state: EnvState, action: Any, next_state: EnvState, rng: Any, params: EnvParams | None = None
    ) -> jax.Array:
        return self.env.reward(state, action, next_state, params)

    def terminal(self, state: EnvState, rng: Any, params: EnvParams | None = None) -> jax.Array:
        return self.env.is_terminated(state, params)

    def truncation(self, state: EnvState, params: EnvParams | None = None) -> jax.Array:
        return self.env.rules_truncation(state, params)

    def state_info(self, state: EnvState, params: EnvParams | None = None) -> dict[str, Any]:
        return self.env.state_info(state, params)

    def transition_info(
        self, state: EnvState, action: Any, next_state: EnvState, params: EnvParams | None = None
    ) -> dict[str, Any]:
        return self.env.transition_info(state, action, next_state, params)

    def transform(self, func: Any) -> None:
        super().transform(func)
        # FuncEnv.transform jits its own five methods; these two are this env's (FuncEnv names
        # the first step_info)
        self.transition_info = func(self.transition_info)  # type: ignore[method-assign]
        self.truncation = func(self.truncation)  # type: ignore[method-assign]

    def render_init(self, params: Any = None, **kwargs: Any) -> None:
        return None

    def render_image(self, state: EnvState, render_state: Any, params: Any = None) -> tuple[Any, np.ndarray]:
        return render_state, self.env.render_rgb(state)


def _metadata(env: SuiteJaxEnv, vector: bool) -> dict[str, Any]:
    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": env.definition.render_fps, "jax": True}
    if vector:
        metadata["autoreset_mode"] = AutoresetMode.NEXT_STEP
    return metadata


class JaxEnv(FunctionalJaxEnv[EnvState]):
    """``gymnasium.make("gym_suite_jax/<id>")``: one env on JAX (``FunctionalJaxEnv``), whose step
    also reports the rules' own truncation and, after the episode ended (or before the first
    ``reset``), raises ``gymnasium.error.ResetNeeded`` as the numpy env does. The step limit is
    ``TimeLimit``'s, as for the numpy ids."""

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 4, "jax": True}

    def __init__(
        self, env_id: str, render_mode: str | None = None, env_config: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> None:
        env = SuiteJaxEnv(env_id, env_config, **kwargs)
        self._env = env
        func_env = SuiteFuncEnv(env)
        func_env.transform(jax.jit)
        metadata = _metadata(env, vector=False)
        if render_mode is not None and render_mode not in metadata["render_modes"]:
            raise ValueError(f"JaxEnv: render_mode must be None or 'rgb_array', got {render_mode!r}")
        super().__init__(func_env, metadata=metadata, render_mode=render_mode)

    #: Whether the episode has ended (or never started): ``step`` raises ``ResetNeeded`` until ``reset``.
    _ended = True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Gymnasium's ``reset``; ``seed`` and ``options`` follow the numpy env's rules: any
        non-negative integer is a seed (its key: :func:`gym_suite.training.jax.train_ppo`'s)."""
        owner = type(self).__name__
        check_options(owner, options)  # before anything changes
        seed = check_seed(owner, seed)
        if seed is not None:
            gymnasium.Env.reset(self, seed=seed)  # np_random, as Gymnasium seeds it
            self.rng = jnp.asarray(seed_keys(seed, 1)[0])
        observation, info = super().reset(seed=None, options=options)
        self._ended = False
        return observation, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._ended:
            raise gymnasium.error.ResetNeeded(
                f"{type(self).__name__}: the episode has ended (or reset() was never called); call reset() before step()"
            )
        action = self._env.check_action_value(action)  # the numpy env's check, before anything changes
        observation, reward, terminated, _, info = super().step(action)
        truncated = bool(self.func_env.truncation(self.state))  # type: ignore[attr-defined]
        self._ended = terminated or truncated
        return observation, reward, terminated, truncated, info


class JaxVectorEnv(FunctionalJaxVectorEnv[Any, Any, EnvState]):
    """``gymnasium.make_vec("gym_suite_jax/<id>", num_envs=N)``: ``N`` envs on JAX with next-step
    autoreset (a row that ended starts afresh on its next step, with reward 0). The state is a
    pytree (an :class:`EnvState` over the rows); the whole step is one jitted call."""

    metadata: dict[str, Any] = {
        "render_modes": ["rgb_array"],
        "render_fps": 4,
        "jax": True,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

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
        env = SuiteJaxEnv(env_id, env_config, **kwargs)
        func_env = SuiteFuncEnv(env)
        func_env.transform(jax.jit)
        metadata = _metadata(env, vector=True)
        if render_mode is not None and render_mode not in metadata["render_modes"]:
            raise ValueError(f"JaxVectorEnv: render_mode must be None or 'rgb_array', got {render_mode!r}")
        limit = 0 if max_episode_steps is None else max_episode_steps  # 0: FunctionalJaxVectorEnv's "no limit"
        super().__init__(func_env, int(num_envs), max_episode_steps=limit, metadata=metadata, render_mode=render_mode)
        self._env = env
        self._batch_step = jax.jit(functools.partial(_batch_step, env, limit))

    def reset(
        self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Gymnasium's ``reset``; ``seed`` and ``options`` follow the numpy vector env's rules: one
        seed, or a list of ``num_envs`` seeds (``None`` entries allowed) folded into one."""
        owner = type(self).__name__
        check_options(owner, options)  # before anything changes
        seeds, entropy = check_vector_seeds(owner, seed, self.num_envs)
        if not entropy:  # one seed (or None)
            one = seeds[0]
        else:
            one = int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0])
        if one is not None:
            gymnasium.vector.VectorEnv.reset(self, seed=one)  # np_random, as Gymnasium seeds it
            self.rng = jnp.asarray(seed_keys(one, 1)[0])
        observation, info = super().reset(seed=None, options=options)
        self.prev_done = jnp.zeros(self.num_envs, dtype=bool)
        return observation, info

    def step(self, action: Any) -> tuple[Any, jax.Array, jax.Array, jax.Array, dict[str, Any]]:
        out: tuple[Any, jax.Array, jax.Array, jax.Array, dict[str, Any]]
        if not hasattr(self, "state"):
            raise gymnasium.error.ResetNeeded("JaxVectorEnv: call reset() before step()")
        action = self._env.check_actions(action, self.num_envs)  # the numpy env's check, before anything changes
        self.rng, key = jax.random.split(self.rng)
        self.state, self.prev_done, out = self._batch_step(self.state, self.prev_done, key, jnp.asarray(action))
        self.steps = self.state.time
        return out

    def render(self) -> tuple[np.ndarray, ...] | None:
        if self.render_mode != "rgb_array":
            return None
        return tuple(self._env.render_rgb(jax.tree.map(lambda q, i=i: q[i], self.state)) for i in range(self.num_envs))


def _batch_step(
    env: SuiteJaxEnv,
    limit: int,
    state: EnvState,
    prev_done: jax.Array,
    key: jax.Array,
    action: jax.Array,
    params: EnvParams | None = None,
) -> tuple[EnvState, jax.Array, tuple[Any, jax.Array, jax.Array, jax.Array, dict[str, Any]]]:
    """One step of every row, next-step autoreset; ``params`` the same for every row (``None``: the env's)."""
    n = prev_done.shape[0]
    step_key, reset_key = jax.random.split(key)
    d = env.definition
    u_step = jax.vmap(lambda k: env.draws(k, d.step_draws))(jax.random.split(step_key, n)) if d.step_draws else ()
    draws = env.start_draws
    u_start = jax.vmap(lambda k: env.draws(k, draws))(jax.random.split(reset_key, n)) if draws else ()
    obs, stepped, reward, terminated, truncated, info = jax.vmap(
        lambda s, a, u: env.step_with_draws(s, a, u, params), axis_size=n
    )(state, action, u_step)
    fresh = jax.vmap(lambda u: env.initial_with_draws(u, params), axis_size=n)(u_start)
    restart = prev_done
    next_state = jax.tree.map(lambda a, b: jnp.where(restart.reshape((n,) + (1,) * (a.ndim - 1)), a, b), fresh, stepped)
    if limit:
        truncated = truncated | (next_state.time >= limit)
    active = ~restart
    terminated, truncated = terminated & active, truncated & active
    reward = jnp.where(active, reward, 0.0)
    observation = jax.vmap(lambda s: env.observation(s, params))(next_state)
    return next_state, terminated | truncated, (observation, reward, terminated, truncated, info)
