"""What an environment definition is, and the operations its rules run on.

A definition is one environment written once, as pure functions in the vocabulary of Gymnasium's
functional environments (``FuncEnv``): the hooks of :class:`Definition`. The state is a
``NamedTuple`` of quantities: Python numbers for one environment, arrays over the rows for a batch,
``jax`` arrays under ``jit``. Randomness comes in as ``u``: ``start_draws`` uniforms on [0, 1) for
``initial`` and ``step_draws`` for ``transition`` (floats, or one array per draw for a batch), so
every backend runs the same rules on the same draws. Actions reach ``transition`` checked against
the action space: an ``int`` for ``Discrete``, a tuple of floats for a ``Box`` of shape ``(k,)``; on
a batch an int64 array, or a float64 array of shape ``(k, num_envs)`` (``x, y = action`` works on both).

``ops`` (an :class:`Ops`) holds the few functions that are not Python operators, one implementation
per backend: :data:`SCALAR` (Python floats), :data:`NUMPY` (the native vector env) and
:func:`jax_ops` (``jax.numpy`` under ``jit``, imported when asked for). A rule that branches on data
calls :meth:`Ops.where`; a branch on a parameter is an ordinary ``if``, except on a data parameter
(``data_parameters``: the fields the JAX env carries as data in its ``EnvParams``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType, MethodType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeAlias, TypeVar, cast

import numpy as np
from gymnasium import spaces

from gym_suite.envs.checks import check_arguments, shown

if TYPE_CHECKING:
    import numpy.typing as npt
    from _typeshed import DataclassInstance

StateT = TypeVar("StateT")
#: The parameters of a definition: a frozen dataclass (``make_params`` replaces its fields).
ParamsT = TypeVar("ParamsT", bound="DataclassInstance")
_T = TypeVar("_T")
_StateT = TypeVar("_StateT", bound=tuple[Any, ...])

#: A quantity of the rules: a Python number, a numpy array over a batch's rows, a ``jax.numpy``
#: array under ``jit``; one rule runs on all three, so no narrower static type is true of it.
Array: TypeAlias = Any
#: A float64 numpy array (the numpy namespace's results).
FloatArray: TypeAlias = "npt.NDArray[np.float64]"


class Ops(Protocol):
    """The functions a definition's rules call besides Python's operators: the contract of every backend.

    "Array" means a value of the backend: a Python number on :data:`SCALAR`, a numpy array (or
    number) on :data:`NUMPY`, a ``jax`` array on :func:`jax_ops` (traceable under ``jit`` and
    ``vmap``). Elementwise functions broadcast as numpy does; ``mypy --strict`` checks the rules and
    each backend against this protocol. What one environment needs beyond these (heartpole's
    sigmoids) is a function of its file, written with these.
    """

    @property
    def name(self) -> str:
        """The backend: ``"scalar"``, ``"numpy"`` or ``"jax"`` (a function may branch on it for a faster way)."""

    def exp(self, x: Array) -> Array:
        """``e ** x``, elementwise."""

    def sqrt(self, x: Array) -> Array:
        """The square root of ``x >= 0``, elementwise."""

    def abs(self, x: Array) -> Array:
        """``|x|``, elementwise."""

    def minimum(self, a: Array, b: Array) -> Array:
        """The smaller of ``a`` and ``b``, elementwise."""

    def maximum(self, a: Array, b: Array) -> Array:
        """The larger of ``a`` and ``b``, elementwise."""

    def where(self, condition: Array, if_true: Array, if_false: Array) -> Array:
        """``if_true`` where ``condition`` holds, else ``if_false``, elementwise: the rules' ``if`` on data
        (a Python ``if`` on a batch or a traced value fails)."""

    def floor_int(self, x: Array) -> Array:
        """``floor(x)`` as an integer: a Python ``int``, an int64 array, a JAX int array."""

    def take(self, table: Any, index: Array) -> Array:
        """``table[index]`` of a 1-D numeric table of the parameters (a numpy array; a JAX array under JAX): a
        Python number on ``SCALAR``, an array of them for an array of indices."""

    def column(self, x: Any, i: int) -> Array:
        """Item ``i`` of the last axis: ``x[i]`` of one environment's vector, ``x[..., i]`` of a batch's."""

    def vector(self, items: Sequence[Array], dtype: Any) -> Array:
        """``items`` as one fresh vector of ``dtype`` on the last axis: ``(len(items),)``, or ``(N, len(items))``."""

    def copy(self, x: Array) -> Array:
        """``x`` in memory of its own (an observation must not share memory with the state); Python numbers
        and JAX arrays, which never change, as they are."""


def _scalar_where(condition: object, if_true: _T, if_false: _T) -> _T:
    return if_true if condition else if_false


def _scalar_minimum(a: float, b: float) -> float:
    return b if b < a else a  # min(a, b) exactly, without the builtin's argument parsing


def _scalar_maximum(a: float, b: float) -> float:
    return b if b > a else a  # max(a, b) exactly


def _scalar_take(array: npt.NDArray[Any], index: Any) -> Any:
    if index.__class__ is int and array.__class__ is np.ndarray and array.ndim == 1:
        return array.item(index)  # the Python number of array[index], in one call
    value = array[index]
    return value.item() if isinstance(value, np.generic) else value


def _scalar_copy(x: _T) -> _T:
    return x.copy() if x.__class__ is np.ndarray else x  # type: ignore[attr-defined]


class ScalarOps:
    """:class:`Ops` on Python numbers (one environment, at full scalar speed): :data:`SCALAR`."""

    __slots__ = ()
    name = "scalar"
    exp = staticmethod(math.exp)
    sqrt = staticmethod(math.sqrt)
    abs = staticmethod(abs)
    minimum = staticmethod(_scalar_minimum)
    maximum = staticmethod(_scalar_maximum)
    where = staticmethod(_scalar_where)
    floor_int = staticmethod(math.floor)
    take = staticmethod(_scalar_take)
    column = staticmethod(cast("Callable[[Any, int], Any]", operator.getitem))  # x[i]
    vector = staticmethod(cast("Callable[[Sequence[Array], Any], Array]", np.array))  # one C call
    copy = staticmethod(_scalar_copy)

    def __repr__(self) -> str:
        return "SCALAR"


def _numpy_vector(items: Sequence[npt.ArrayLike], dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    return np.array(items, dtype=dtype).T  # (num_envs, len(items)), fresh memory


def _last_axis(x: Any, i: int) -> Array:
    return x[..., i]


class NumpyOps:
    """:class:`Ops` on numpy arrays over the rows of a batch (the native vector env): :data:`NUMPY`."""

    __slots__ = ()
    name = "numpy"
    exp = staticmethod(np.exp)
    sqrt = staticmethod(np.sqrt)
    abs = staticmethod(np.abs)
    minimum = staticmethod(np.minimum)
    maximum = staticmethod(np.maximum)
    where = staticmethod(np.where)

    take = staticmethod(cast("Callable[[Any, Array], Array]", operator.getitem))  # table[index]
    column = staticmethod(_last_axis)
    vector = staticmethod(_numpy_vector)
    copy = staticmethod(cast("Callable[[Array], Array]", np.array))  # a fresh array

    @staticmethod
    def floor_int(x: Array) -> Array:
        return np.floor(x).astype(np.int64)

    def __repr__(self) -> str:
        return "NUMPY"


#: Python numbers: one environment at full scalar speed.
SCALAR: Ops = ScalarOps()
#: numpy arrays over the rows of a batch (elementwise).
NUMPY: Ops = NumpyOps()


@functools.cache
def jax_ops() -> Ops:
    """The :class:`Ops` of ``jax.numpy`` (traceable under ``jit`` and ``vmap``); imports JAX."""
    import jax.numpy as jnp

    class JaxOps:
        """:class:`Ops` on ``jax.numpy`` arrays (traceable under ``jit`` and ``vmap``): :func:`jax_ops`."""

        __slots__ = ()
        name = "jax"
        exp = staticmethod(jnp.exp)
        sqrt = staticmethod(jnp.sqrt)
        abs = staticmethod(jnp.abs)
        minimum = staticmethod(jnp.minimum)
        maximum = staticmethod(jnp.maximum)

        @staticmethod
        def where(condition: Array, if_true: Array, if_false: Array) -> Array:
            return jnp.where(condition, if_true, if_false)

        @staticmethod
        def floor_int(x: Array) -> Array:
            return jnp.floor(x).astype(int)  # int32, or int64 under x64

        @staticmethod
        def take(table: Any, index: Array) -> Array:
            return jnp.asarray(table)[index]

        column = staticmethod(_last_axis)

        @staticmethod
        def vector(items: Sequence[Array], dtype: Any) -> Array:
            return jnp.stack([jnp.asarray(i) for i in items], axis=-1).astype(dtype)

        @staticmethod
        def copy(x: Array) -> Array:
            return x

        def __repr__(self) -> str:
            return "jax_ops()"

    return JaxOps()


class Definition(Generic[StateT, ParamsT]):
    """Base of the environment definitions: override the rules; the shells do the rest.

    Every rule takes ``ops``, an :class:`Ops`: it runs unchanged on Python numbers, numpy arrays
    and ``jax.numpy``. The class attributes below say what the rules need besides.
    """

    name: ClassVar[str]
    """The file's environment, e.g. ``"heartpole"``."""
    State: ClassVar[type]
    """The ``NamedTuple`` of the state's quantities."""
    start_draws: ClassVar[Any] = 0
    """The uniforms on [0, 1) a start takes: a number, or a function of the parameters
    (``start_draws = staticmethod(lambda params: 2 + 2 * params.candidates)``)."""
    step_draws: ClassVar[int] = 0
    """The uniforms on [0, 1) every step takes, whatever the action."""
    arguments: ClassVar[tuple[str, ...]] = ()
    """The parameters a user may set, in the constructor's order: each an :class:`~gym_suite.envs.checks.Argument`
    (its kind, bounds and meaning: its check and its row of the manual's table), or a name ``make_params`` checks."""
    data_parameters: ClassVar[tuple[str, ...]] = ()
    """The arguments the rules use only in arithmetic (never in an ``if``, a shape, a space or a derived
    field), which the JAX env carries as data in its ``EnvParams``."""
    env_attributes: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    """Attributes the env classes get besides the state's quantities and the parameters (a
    constant, or a ``property`` of the env: ``env.state`` and ``env.params`` are there)."""
    render_modes: ClassVar[tuple[str, ...]] = ("ansi", "human", "rgb_array")
    """The render modes of the env."""
    render_fps: ClassVar[int] = 4
    """Frames a second of human rendering."""
    human: ClassVar[str] = "ansi"
    """What human mode shows: ``"ansi"`` prints the text, ``"rgb"`` shows the picture in a pygame window."""

    def make_params(self, base: ParamsT, owner: str, **arguments: Any) -> ParamsT:
        """The parameters of an environment: ``base`` (the registry row's set) with the
        constructor's ``arguments`` checked and put in. Raises ``ValueError`` / ``TypeError``
        naming the argument. The default checks each declared :class:`~gym_suite.envs.checks.Argument`;
        override it to derive fields or check relations (call it first: ``super().make_params(...)``)."""
        if not arguments:
            return base  # the version's own set
        return dataclasses.replace(base, **check_arguments(self.arguments, base, owner, arguments))

    def spaces(self, params: ParamsT) -> tuple[spaces.Space[Any], spaces.Space[Any]]:
        """``(observation_space, action_space)`` of one environment with these parameters."""
        raise NotImplementedError

    def initial(self, u: Sequence[Any], params: ParamsT, ops: Ops) -> StateT:
        """A fresh state from the start's ``start_draws`` uniforms ``u`` on [0, 1)."""
        raise NotImplementedError

    def transition(self, state: StateT, action: Any, u: Sequence[Any], params: ParamsT, ops: Ops) -> StateT:
        """The state after ``action`` (checked), from the step's ``step_draws`` uniforms ``u``."""
        raise NotImplementedError

    def observation(self, state: StateT, params: ParamsT, ops: Ops) -> Any:
        """What the agent sees of ``state``, in memory of its own (:meth:`Ops.copy`, :meth:`Ops.vector`)."""
        raise NotImplementedError

    def reward(self, state: StateT, action: Any, next_state: StateT, params: ParamsT, ops: Ops) -> Any:
        """The reward of the step from ``state`` to ``next_state``."""
        raise NotImplementedError

    def terminal(self, state: StateT, params: ParamsT, ops: Ops) -> Any:
        """Whether the rules end the episode in ``state`` (default: never)."""
        return False

    def truncation(self, state: StateT, params: ParamsT, ops: Ops) -> Any:
        """Whether the rules' own clock ends the episode in ``state`` (default: never; the step limit is the registry's)."""
        return False

    def info(self, state: StateT | None, action: Any, next_state: StateT, params: ParamsT, ops: Ops) -> dict[str, Any]:
        """The ``info`` of the step from ``state`` to ``next_state``; of a start, ``state`` and
        ``action`` are ``None`` and ``next_state`` is the start (default: empty)."""
        return {}

    def heuristic(self, observation: Any, params: ParamsT, ops: Ops) -> Any:
        """The documented simple policy: an action (a batch of them on arrays) for ``observation``."""
        raise NotImplementedError

    def render(self, state: StateT, params: ParamsT, mode: str) -> Any:
        """The picture of one state (Python numbers): ``"ansi"`` a text, ``"rgb"`` a ``(H, W, 3)`` uint8 array."""
        raise NotImplementedError


def draws_at_start(definition: Definition[Any, Any], params: Any) -> int:
    """The uniforms a start of ``definition`` takes with these parameters (its ``start_draws``)."""
    draws = definition.start_draws
    return draws if isinstance(draws, int) else draws(params)


def overrides(definition: Definition[Any, Any], hook: str) -> bool:
    """Whether ``definition`` has a ``hook`` of its own (the shells skip the defaults' calls)."""
    return getattr(type(definition), hook) is not getattr(Definition, hook)


def state_maker(state_class: type[_StateT]) -> Callable[[Iterable[Any]], _StateT]:
    """The fast constructor of a state: ``make = state_maker(State)``, then ``make((a, b, c))``
    is ``State(a, b, c)`` at about half the cost on Python numbers (no argument parsing nor length
    check: the caller gives every quantity, once each, in field order). Raises ``TypeError`` if
    ``state_class`` is not a ``NamedTuple`` class."""
    if not (isinstance(state_class, type) and issubclass(state_class, tuple) and hasattr(state_class, "_fields")):
        raise TypeError(f"state_maker: state_class must be a NamedTuple class, got {shown(state_class)}")
    return cast("Callable[[Iterable[Any]], _StateT]", MethodType(tuple.__new__, state_class))


def row_of(state: Any, i: int) -> Any:
    """Row ``i`` of a batched state, as Python numbers (for the pictures)."""
    return type(state)(*(np.asarray(q)[i].item() for q in state))
