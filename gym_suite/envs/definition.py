"""What an environment definition is, and the operations its rules run on.

A definition is one environment written once, as pure functions in the vocabulary of
Gymnasium's functional environments (``gymnasium.experimental.functional.FuncEnv``):

=================================================  ===========================================
``make_params(base, owner, **arguments)``          the constructor's arguments, checked, as the
                                                   frozen parameters the rules read
``spaces(params)``                                 the observation and action spaces of one
                                                   environment
``initial(u, params, ops)``                        a fresh state from the start's uniforms
``transition(state, action, u, params, ops)``      the next state from the step's uniforms
``observation(state, params, ops)``                what the agent sees (fresh memory)
``reward(state, action, next_state, params, ops)`` the step's reward
``terminal(state, params, ops)``                   the episode ended by the rules
``truncation(state, params, ops)``                 the episode ended by the rules' own clock
                                                   (not the step limit: that is the registry's)
``info(state, action, next_state, params, ops)``   the info of a step (of a start: ``state``
                                                   and ``action`` are ``None``)
``heuristic(observation, params, ops)``            the documented simple policy
``render(state, params, mode)``                    the pictures of one state (``"ansi"``:
                                                   text, ``"rgb"``: an array; numpy only)
``data_parameters`` (a class attribute)            the parameters JAX may trace: the fields the
                                                   rules use only in arithmetic, which the JAX
                                                   env's ``EnvParams`` carries as data
=================================================  ===========================================

The state is a ``NamedTuple`` of quantities: Python numbers for one environment, arrays over the
rows for a batch, ``jax`` arrays under ``jit``. Randomness comes in as ``u``: ``start_draws``
uniforms on [0, 1) for ``initial`` and ``step_draws`` for ``transition`` (a sequence of floats,
or one array per draw for a batch), so every backend runs the same rules on the same draws.
Actions reach ``transition`` checked against the action space (:func:`~gym_suite.envs.checks.check_action`):
an ``int`` for ``Discrete``, a tuple of floats for a ``Box`` of shape ``(k,)``; on a batch an int64
array, or a float64 array of shape ``(k, num_envs)`` (``x, y = action`` works on both).

``ops`` (an :class:`Ops`) holds the few functions that are not Python operators (``exp``,
``where``, ...), with one implementation per backend: :data:`SCALAR` for Python floats (scalar
speed), :data:`NUMPY` for numpy arrays (the native vector env) and :func:`jax_ops` for
``jax.numpy`` under ``jit`` (imported only when asked for). A rule never asks which backend it
runs on: where the backends differ (a name, a column, a copy), an ``ops`` function says what to
do on each. A rule that branches on data calls :meth:`Ops.where`; a branch on a parameter is an
ordinary ``if`` (parameters are static configuration), except on a data parameter.

``data_parameters`` names the numeric fields of the parameters that the rules use only in
arithmetic (never in a Python ``if``, never for a shape, a space's size or bounds, nor to derive
another field in ``make_params``), each an argument of the same name. The JAX env
(``gym_suite.jax``) carries them in its ``EnvParams`` as data: ``params.replace(name=value)``,
``jax.vmap`` over a batch of them, one compiled program for every value; under ``jit`` the rules
see them as traced scalars. Every other parameter stays static configuration of the env.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import operator
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType, MethodType, ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeAlias, TypeVar, cast

import numpy as np
from gymnasium import spaces

from gym_suite.envs.checks import check_arguments, shown

if TYPE_CHECKING:
    import jax
    import numpy.typing as npt
    from _typeshed import DataclassInstance

StateT = TypeVar("StateT")
#: The parameters of a definition: a frozen dataclass (``make_params`` replaces its fields).
ParamsT = TypeVar("ParamsT", bound="DataclassInstance")
_T = TypeVar("_T")
_StateT = TypeVar("_StateT", bound=tuple[Any, ...])

#: A quantity the rules compute with: a Python number for one environment, a numpy array over
#: the rows of a batch, a ``jax.numpy`` array under ``jit``. One rule runs on all three (through
#: ``ops``), so no narrower static type is true of it.
Array: TypeAlias = Any
#: A float64 numpy array (the numpy namespace's results).
FloatArray: TypeAlias = "npt.NDArray[np.float64]"

#: Small batches stack the arguments of :meth:`Ops.sigmoids` into one array (fewer numpy
#: calls); above this many bytes the stacked temporaries cost more in page faults than the calls
#: they save (glibc serves blocks of 128 KiB and more with fresh pages).
STACK_BYTES = 64 * 1024


class Ops(Protocol):
    """The functions a definition's rules call besides Python's operators: the contract of every backend.

    A rule is written once against these functions and runs unchanged on :data:`SCALAR` (Python
    numbers: one environment), :data:`NUMPY` (numpy arrays over the rows of a batch: the native
    vector env) and :func:`jax_ops` (``jax.numpy`` arrays, traceable under ``jit`` and ``vmap``).
    "Array" below means a value of the backend: a Python number on ``SCALAR``, a numpy array (or
    number) on ``NUMPY``, a ``jax`` array on JAX. Elementwise functions broadcast as numpy does.
    ``mypy --strict`` checks the rules against this protocol, and each backend's class against it
    (a backend is a class with every one of these functions, usually static).
    """

    # Elementwise -----------------------------------------------------------------------------

    def exp(self, x: Array) -> Array:
        """``e ** x``, elementwise."""
        ...

    def sqrt(self, x: Array) -> Array:
        """The square root of ``x >= 0``, elementwise."""
        ...

    def abs(self, x: Array) -> Array:
        """``|x|``, elementwise."""
        ...

    def minimum(self, a: Array, b: Array) -> Array:
        """The smaller of ``a`` and ``b``, elementwise."""
        ...

    def maximum(self, a: Array, b: Array) -> Array:
        """The larger of ``a`` and ``b``, elementwise."""
        ...

    def where(self, condition: Array, if_true: Array, if_false: Array) -> Array:
        """``if_true`` where ``condition`` holds, else ``if_false``, elementwise: the rules'
        ``if`` on data (a Python ``if`` on a batch or a traced value fails)."""
        ...

    def floor_int(self, x: Array) -> Array:
        """``floor(x)`` as an integer: a Python ``int``, an int64 array, a JAX int array."""
        ...

    def sigmoids(self, *xs: Array) -> Array:
        """The sigmoids of several quantities at once (``[sigmoid(x) for x in xs]``, in fewer
        calls on numpy); unpack the result: ``a, b = ops.sigmoids(x, y)``."""
        ...

    def clip_to_unit(self, x: Array, y: Array) -> tuple[Array, Array]:
        """The plane vector ``(x, y)`` scaled down to length 1 where it is longer (its direction
        kept), else as it is: ``x, y = ops.clip_to_unit(x, y)``. Computed as ``x * (1 / sqrt(x * x
        + y * y))``, the same bits on every backend, and never overflowing: where the square
        overflows (a component beyond about ``1.3e154`` in float64, ``1.8e19`` in float32) the
        vector is first divided by its largest component. An infinite component (under JAX, a
        finite number past float32's range) counts as the largest: ``(inf, 5)`` gives ``(1, 0)``."""
        ...

    def one_hot(self, index: Array, n: int) -> Array:
        """``n`` floats, 1.0 at ``index`` and 0.0 elsewhere (per row for arrays); unpack the
        result. Arithmetic with them is exact, and on arrays cheaper than with flags."""
        ...

    # Over several values -------------------------------------------------------------------------

    def product(self, fn: Callable[..., Array], constants: tuple[float, ...], *args: Array) -> Array:
        """The product of ``fn(c, *args)`` over the ``constants`` ``c``, multiplied in their order.

        On arrays ``fn`` runs once, with ``c`` a column of the constants broadcast against the
        first of ``args`` (a new leading axis); on Python numbers once per constant. ``fn`` uses
        only operators and ``ops`` functions (pass ``ops`` in ``args``). For example the chance
        of no event among several independent ones, each with its own probability.
        """
        ...

    def first(self, test: Callable[..., Any], candidates: Sequence[Any], default: Sequence[Any]) -> tuple[Array, ...]:
        """The first of several candidates that passes ``test``, else ``default``.

        ``candidates`` is one sequence per quantity (a candidate is one value of each),
        ``test(*quantities)`` says whether a candidate passes (elementwise), ``default`` gives a
        value per quantity. On Python numbers a loop that stops at the first pass; on numpy a
        block of candidates at a time; under JAX every candidate at once.
        """
        ...

    def only_where(self, mask: Array, fn: Callable[..., Array], x: Array, *shared: Any) -> Array:
        """``fn(x, *shared)`` where ``mask`` holds, 0.0 elsewhere: on numpy ``fn`` runs on the rows
        of ``mask`` alone (``x`` is an array over the rows, ``shared`` the same for every row)."""
        ...

    # Tables and vectors ------------------------------------------------------------------------

    def take(self, table: Any, index: Array) -> Array:
        """``table[index]`` of a 1-D numeric table of the parameters (a numpy array; a JAX array
        under JAX): a Python number on ``SCALAR``, an array of them for an array of indices."""
        ...

    def take_columns(self, table: Any, index: Array, keepdims: bool = False) -> Array:
        """Column ``index`` of a 2-D numeric table ``(fields, rows)`` of the parameters: one value
        per field, fresh. Python numbers on ``SCALAR``; arrays over the batch's rows otherwise.
        ``keepdims=True`` keeps a last axis of length 1 (each value an array of shape ``(1,)``
        for one environment, ``(N, 1)`` for a batch)."""
        ...

    def lookup(self, names: tuple[Any, ...], index: Array) -> Any:
        """``names[index]`` of a tuple of Python objects (e.g. the actions' names, for ``info``):
        the object on ``SCALAR``, an object array of them on numpy; under JAX, whose arrays hold
        no strings, ``index`` itself."""
        ...

    def column(self, x: Any, i: int) -> Array:
        """Item ``i`` of the last axis: ``x[i]`` of one environment's vector (e.g. an
        observation), ``x[..., i]`` of a batch's ``(N, k)`` array."""
        ...

    def vector(self, items: Sequence[Array], dtype: Any) -> Array:
        """The quantities ``items`` as one vector of ``dtype`` on the last axis, fresh: shape
        ``(len(items),)`` for one environment, ``(N, len(items))`` for a batch (an observation)."""
        ...

    def copy(self, x: Array) -> Array:
        """``x`` in memory of its own (an observation must not share memory with the state);
        Python numbers and JAX arrays, which never change, as they are."""
        ...


# --------------------------------------------------------------------------------------------
# Python numbers
# --------------------------------------------------------------------------------------------


def _scalar_where(condition: object, if_true: _T, if_false: _T) -> _T:
    return if_true if condition else if_false


def _scalar_minimum(a: float, b: float) -> float:
    return b if b < a else a  # min(a, b) exactly, without the builtin's argument parsing


def _scalar_maximum(a: float, b: float) -> float:
    return b if b > a else a  # max(a, b) exactly


def _scalar_sigmoids(*xs: float, tanh: Callable[[float], float] = math.tanh) -> list[float]:
    # up to four written out: a list display costs less than a comprehension (its own function call)
    n = len(xs)
    if n == 4:
        a, b, c, d = xs
        return [
            0.5 + 0.5 * tanh(0.5 * a),
            0.5 + 0.5 * tanh(0.5 * b),
            0.5 + 0.5 * tanh(0.5 * c),
            0.5 + 0.5 * tanh(0.5 * d),
        ]
    if n == 3:
        a, b, c = xs
        return [0.5 + 0.5 * tanh(0.5 * a), 0.5 + 0.5 * tanh(0.5 * b), 0.5 + 0.5 * tanh(0.5 * c)]
    if n == 2:
        a, b = xs
        return [0.5 + 0.5 * tanh(0.5 * a), 0.5 + 0.5 * tanh(0.5 * b)]
    return [0.5 + 0.5 * tanh(0.5 * x) for x in xs]


def _scalar_product(fn: Callable[..., float], constants: tuple[float, ...], *args: Any) -> float:
    # from the first to the last, as a loop; map with repeat calls fn without building its arguments
    return math.prod(map(fn, constants, *map(itertools.repeat, args)))


def _scalar_only_where(mask: object, fn: Callable[..., float], x: float, *shared: Any) -> float:
    return fn(x, *shared) if mask else 0.0


def _scalar_take(array: npt.NDArray[Any], index: Any) -> Any:
    if index.__class__ is int and array.__class__ is np.ndarray and array.ndim == 1:
        return array.item(index)  # the Python number of array[index], in one call
    value = array[index]
    return value.item() if isinstance(value, np.generic) else value


def _scalar_take_columns(table: npt.NDArray[Any], index: int, keepdims: bool = False) -> Any:
    if keepdims:
        return table[:, index : index + 1].copy()  # (fields, 1): a fresh (1,) array per field
    return table[:, index].tolist()


def _scalar_clip_to_unit(x: float, y: float, sqrt: Callable[[float], float] = math.sqrt) -> tuple[float, float]:
    squared = x * x + y * y
    if squared <= 1.0:  # the common case: as it is
        return x, y
    if squared == math.inf:  # a square overflowed: divide by the largest component first
        largest = abs(x) if abs(x) > abs(y) else abs(y)
        x = math.copysign(1.0, x) if abs(x) == largest else x / largest  # inf / inf would be NaN
        y = math.copysign(1.0, y) if abs(y) == largest else y / largest
        squared = x * x + y * y
    scale = 1.0 / sqrt(squared)
    return x * scale, y * scale


@functools.cache
def _one_hots(n: int) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(float(i == j) for j in range(n)) for i in range(n))


#: ``n`` -> :func:`_one_hots` of ``n``, for the small ``n`` of actions (a dict's lookup, not the cache's call)
_ONE_HOTS = {n: _one_hots(n) for n in range(1, 17)}


def _scalar_one_hot(index: int, n: int) -> tuple[float, ...]:
    """``(0.0, ..., 1.0, ..., 0.0)``: 1.0 at ``index`` of ``n``."""
    table = _ONE_HOTS.get(n)
    return (table if table is not None else _one_hots(n))[index]


def _scalar_first(
    test: Callable[..., object], candidates: Sequence[Sequence[float]], default: Sequence[float]
) -> tuple[float, ...]:
    """The first of the candidates that passes ``test``, else ``default``: a loop that stops there."""
    for values in zip(*candidates):
        if test(*values):
            return values
    return tuple(default)


def _scalar_copy(x: _T) -> _T:
    return x.copy() if x.__class__ is np.ndarray else x  # type: ignore[attr-defined]


class ScalarOps:
    """:class:`Ops` on Python numbers (one environment, at full scalar speed): :data:`SCALAR`."""

    __slots__ = ()
    exp = staticmethod(math.exp)
    sqrt = staticmethod(math.sqrt)
    abs = staticmethod(abs)
    minimum = staticmethod(_scalar_minimum)
    maximum = staticmethod(_scalar_maximum)
    where = staticmethod(_scalar_where)
    floor_int = staticmethod(math.floor)
    sigmoids = staticmethod(_scalar_sigmoids)
    clip_to_unit = staticmethod(_scalar_clip_to_unit)
    one_hot = staticmethod(_scalar_one_hot)
    product = staticmethod(_scalar_product)
    first = staticmethod(_scalar_first)
    only_where = staticmethod(_scalar_only_where)
    take = staticmethod(_scalar_take)
    take_columns = staticmethod(_scalar_take_columns)
    lookup = staticmethod(cast("Callable[[Any, Any], Any]", operator.getitem))  # names[index]
    column = staticmethod(cast("Callable[[Any, int], Any]", operator.getitem))  # x[i]
    vector = staticmethod(cast("Callable[[Sequence[Array], Any], Array]", np.array))  # one C call
    copy = staticmethod(_scalar_copy)

    def __repr__(self) -> str:
        return "SCALAR"


# --------------------------------------------------------------------------------------------
# numpy arrays
# --------------------------------------------------------------------------------------------


@functools.cache
def _arange_column(n: int, ndim: int) -> npt.NDArray[np.int64]:
    column = np.arange(n).reshape((n,) + (1,) * ndim)
    column.flags.writeable = False
    return column


@functools.cache
def _constant_column(constants: tuple[float, ...], ndim: int) -> FloatArray:
    """``constants`` as a float64 array of shape ``(k, 1, ...)``: a new leading axis for ``ndim`` axes."""
    column = np.array(constants, dtype=np.float64).reshape((len(constants),) + (1,) * ndim)
    column.flags.writeable = False
    return column


@functools.cache
def _object_table(names: tuple[Any, ...]) -> npt.NDArray[np.object_]:
    table = np.empty(len(names), dtype=object)
    table[:] = names
    table.flags.writeable = False
    return table


def _numpy_one_hot(index: npt.NDArray[np.integer[Any]], n: int) -> FloatArray:
    rows: npt.NDArray[np.bool_] = index == _arange_column(n, np.ndim(index))  # (n, *index.shape)
    return rows.astype(np.float64)


def _array_first(
    xp: ModuleType,
) -> Callable[[Callable[..., Any], Sequence[Any], Sequence[Any]], tuple[Any, ...]]:
    """``first`` on the arrays of ``xp`` (numpy or ``jax.numpy``): every candidate tested at once."""

    def first(test: Callable[..., Any], candidates: Sequence[Any], default: Sequence[Any]) -> tuple[Any, ...]:
        columns = [xp.asarray(c) for c in candidates]  # (candidates, ...) each
        passes = test(*columns)
        # argmax: the index of the first True (of the first False when none is: then not found)
        index = xp.arange(passes.shape[0]).reshape((-1,) + (1,) * (passes.ndim - 1))
        chosen = passes.argmax(axis=0) == index
        found = passes.any(axis=0)
        # (c * chosen).sum() is c's chosen value exactly: the other terms are +0.0
        return tuple(xp.where(found, (c * chosen).sum(axis=0), d) for c, d in zip(columns, default))

    return first


#: numpy's ``first`` on more rows than this tests ``FIRST_BLOCK`` candidates at once, then (for
#: the rows still without one) all the others: a few dozen numpy calls whatever the count, where
#: one candidate at a time took a dozen calls per candidate; on fewer rows, where a call costs
#: more than its elements, it takes one candidate at a time and stops when every row has one.
FIRST_BLOCK, FIRST_BLOCK_ROWS = 4, 256


def _numpy_first(test: Callable[..., Any], candidates: Sequence[Any], default: Sequence[Any]) -> tuple[Any, ...]:
    """``first`` on numpy arrays: the same choice as :func:`_array_first`'s (the first candidate
    that passes, else the default), without testing candidates no row needs (see
    ``FIRST_BLOCK``): where a candidate passes with probability ``p``, a row needs the second
    block with probability ``(1 - p) ** FIRST_BLOCK``.
    """
    columns = [np.asarray(c) for c in candidates]  # (candidates, ...) each
    total = columns[0].shape[0]
    if total == 0:  # no candidates: the default
        return tuple(np.array(d, dtype=np.float64) for d in default)
    rows = max(c[0].size for c in columns)
    if rows > FIRST_BLOCK_ROWS:
        blocks = [(0, min(FIRST_BLOCK, total)), (FIRST_BLOCK, total)]
    else:
        blocks = [(k, k + 1) for k in range(total)]
    chosen: list[Any] = []
    found: Any = None
    for start, stop in blocks:
        if start >= stop:
            break
        if stop - start == 1:  # one candidate
            values = [c[start] for c in columns]
            hit: Any = np.asarray(test(*values))
        else:
            block = [c[start:stop] for c in columns]
            passes = np.asarray(test(*block))  # (block, ...)
            hit = passes.any(axis=0)
            # the first passing candidate of each row as a one-hot mask over the block: (b * first)
            # summed over the block is that candidate's value exactly (the other terms are +0.0)
            first = passes.argmax(axis=0) == np.arange(stop - start).reshape((-1,) + (1,) * (passes.ndim - 1))
            values = [(b * first).sum(axis=0) for b in block]
        if found is None:
            chosen = [np.where(hit, v, d) for v, d in zip(values, default)]  # fresh arrays
            found = np.array(hit, dtype=bool)
        else:
            new = hit & ~found
            for out, v in zip(chosen, values):
                np.copyto(out, v, where=new)
            found |= new
        if found.all():
            break
    return tuple(chosen)


def _numpy_sigmoid(x: FloatArray) -> FloatArray:
    s = np.multiply(x, 0.5)  # 0.5 + 0.5 * tanh(0.5 * x), in one array of its own
    if s.__class__ is not np.ndarray:  # a number
        return 0.5 + 0.5 * np.tanh(s)
    np.tanh(s, out=s)
    np.multiply(s, 0.5, out=s)
    return np.add(s, 0.5, out=s)


def _numpy_sigmoids(*xs: FloatArray) -> FloatArray | list[FloatArray]:
    if len(xs) * np.asarray(xs[0]).nbytes <= STACK_BYTES:  # small batches: one pass
        return _numpy_sigmoid(np.array(xs))
    return [_numpy_sigmoid(x) for x in xs]


def _numpy_clip_to_unit(x: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray]:
    with np.errstate(over="ignore"):  # an overflow gives inf: handled below
        squared = x * x + y * y
    if np.max(squared, initial=0.0) == math.inf:  # a square overflowed: those rows divided by their largest component
        x, y = _divided_by_largest(np, x, y, np.isinf(squared))
        squared = x * x + y * y
    scale = np.where(squared > 1.0, 1.0 / np.sqrt(np.maximum(squared, 1.0)), 1.0)
    return x * scale, y * scale


def _divided_by_largest(xp: ModuleType, x: Array, y: Array, rows: Array) -> tuple[Array, Array]:
    """``(x, y)`` divided by their largest magnitude on ``rows``, as they are elsewhere (numpy or
    ``jax.numpy``): the largest component becomes its sign (an infinite one too), the others 0 beside
    an infinite one."""
    ax, ay = xp.abs(x), xp.abs(y)
    largest = xp.where(rows, xp.maximum(ax, ay), 1.0)
    with np.errstate(invalid="ignore"):  # inf / inf, replaced by the sign
        return xp.where(ax == largest, xp.sign(x), x / largest), xp.where(ay == largest, xp.sign(y), y / largest)


def _numpy_only_where(
    mask: npt.NDArray[np.bool_], fn: Callable[..., FloatArray], x: FloatArray, *shared: Any
) -> FloatArray:
    out = np.zeros(np.shape(mask))
    rows = np.flatnonzero(mask)
    if rows.size:  # fn runs on the rows of mask alone
        out[rows] = fn(x[rows], *shared)
    return out


def _numpy_vector(items: Sequence[npt.ArrayLike], dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    return np.array(items, dtype=dtype).T  # (num_envs, len(items)), fresh memory


def _numpy_product(fn: Callable[..., FloatArray], constants: tuple[float, ...], *args: Any) -> Any:
    column = _constant_column(constants, np.ndim(args[0]) if args else 0)
    return np.multiply.reduce(fn(column, *args), axis=0)  # over the leading axis: in its order, per element


def _numpy_take_columns(table: npt.NDArray[Any], index: Any, keepdims: bool = False) -> npt.NDArray[Any]:
    columns: npt.NDArray[Any] = table.take(index, axis=1)  # fresh: (fields, N); a fast path of table[:, index]
    return columns[..., None] if keepdims else columns


class NumpyOps:
    """:class:`Ops` on numpy arrays over the rows of a batch (the native vector env): :data:`NUMPY`."""

    __slots__ = ()
    exp = staticmethod(np.exp)
    sqrt = staticmethod(np.sqrt)
    abs = staticmethod(np.abs)
    minimum = staticmethod(np.minimum)
    maximum = staticmethod(np.maximum)
    where = staticmethod(np.where)

    @staticmethod
    def floor_int(x: Array) -> Array:
        return np.floor(x).astype(np.int64)

    sigmoids = staticmethod(_numpy_sigmoids)
    clip_to_unit = staticmethod(_numpy_clip_to_unit)
    one_hot = staticmethod(_numpy_one_hot)
    product = staticmethod(_numpy_product)
    first = staticmethod(_numpy_first)
    only_where = staticmethod(_numpy_only_where)

    @staticmethod
    def take(table: Any, index: Array) -> Array:
        return table[index]

    take_columns = staticmethod(_numpy_take_columns)

    @staticmethod
    def lookup(names: tuple[Any, ...], index: Array) -> Any:
        return _object_table(names).take(index)

    @staticmethod
    def column(x: Any, i: int) -> Array:
        return x[..., i]

    vector = staticmethod(_numpy_vector)

    @staticmethod
    def copy(x: Array) -> Array:
        return np.array(x)

    def __repr__(self) -> str:
        return "NUMPY"


#: Python numbers: one environment at full scalar speed.
SCALAR: Ops = ScalarOps()
#: numpy arrays over the rows of a batch (elementwise).
NUMPY: Ops = NumpyOps()


# --------------------------------------------------------------------------------------------
# jax.numpy (imported when first asked for)
# --------------------------------------------------------------------------------------------

_JAX_OPS: Ops | None = None


def jax_ops() -> Ops:
    """The :class:`Ops` of ``jax.numpy`` (traceable under ``jit`` and ``vmap``); imports JAX."""
    global _JAX_OPS
    if _JAX_OPS is None:
        _JAX_OPS = _make_jax_ops()
    return _JAX_OPS


def _make_jax_ops() -> Ops:
    import jax.numpy as jnp

    def sigmoid(x: jax.Array) -> jax.Array:
        return 0.5 + 0.5 * jnp.tanh(0.5 * x)

    class JaxOps:
        """:class:`Ops` on ``jax.numpy`` arrays (traceable under ``jit`` and ``vmap``): :func:`jax_ops`."""

        __slots__ = ()
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
        def sigmoids(*xs: Array) -> list[Array]:
            return [sigmoid(x) for x in xs]

        @staticmethod
        def clip_to_unit(x: Array, y: Array) -> tuple[Array, Array]:
            squared = x * x + y * y
            x, y = _divided_by_largest(jnp, x, y, jnp.isinf(squared))  # as they are unless a square overflowed
            squared = x * x + y * y
            scale = jnp.where(squared > 1.0, 1.0 / jnp.sqrt(jnp.maximum(squared, 1.0)), 1.0)
            return x * scale, y * scale

        @staticmethod
        def one_hot(index: Array, n: int) -> Array:
            column = jnp.arange(n).reshape((n,) + (1,) * jnp.ndim(index))
            return (jnp.asarray(index) == column).astype(jnp.result_type(float))

        @staticmethod
        def product(fn: Callable[..., Array], constants: tuple[float, ...], *args: Array) -> Array:
            ndim = jnp.ndim(args[0]) if args else 0
            values = fn(jnp.asarray(constants).reshape((len(constants),) + (1,) * ndim), *args)
            return functools.reduce(operator.mul, [values[k] for k in range(len(constants))])  # in order

        first = staticmethod(_array_first(jnp))

        @staticmethod
        def only_where(mask: Array, fn: Callable[..., Array], x: Array, *shared: Any) -> Array:
            return jnp.where(mask, fn(x, *shared), 0.0)

        @staticmethod
        def take(table: Any, index: Array) -> Array:
            return jnp.asarray(table)[index]

        @staticmethod
        def take_columns(table: Any, index: Array, keepdims: bool = False) -> Array:
            columns = jnp.asarray(table)[:, index]
            return columns[..., None] if keepdims else columns

        @staticmethod
        def lookup(names: tuple[Any, ...], index: Array) -> Any:
            return index

        @staticmethod
        def column(x: Any, i: int) -> Array:
            return x[..., i]

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

    Class attributes: ``name`` (the file's environment, e.g. ``"heartpole"``), ``State`` (the
    ``NamedTuple`` of quantities), ``start_draws`` and ``step_draws`` (uniforms per start and per
    step), ``arguments`` (the parameters a user may set), ``data_parameters`` (those of them the
    JAX env carries as data), ``render_modes``, ``render_fps`` and ``human`` (``"ansi"``: human
    mode prints the text; ``"rgb"``: it shows the picture in a pygame window) and
    ``env_attributes`` (extra attributes of the envs). Every rule takes ``ops``, an :class:`Ops`:
    it runs unchanged on Python numbers, numpy arrays and ``jax.numpy``.
    """

    name: ClassVar[str]
    """The file's environment, e.g. ``"heartpole"``."""
    State: ClassVar[type]
    """The ``NamedTuple`` of the state's quantities."""
    start_draws: ClassVar[Any] = 0  # an int, or a function of the parameters
    """The uniforms on [0, 1) a start takes: a number, or a function of the parameters
    (``start_draws = staticmethod(lambda params: 2 + 2 * params.candidates)``)."""
    step_draws: ClassVar[int] = 0
    """The uniforms on [0, 1) every step takes, whatever the action."""
    arguments: ClassVar[tuple[str, ...]] = ()
    """The parameters a user may set, in the order of the env's typed constructor: each an
    :class:`~gym_suite.envs.checks.Argument` (its kind, bounds and meaning, which check it and
    write the manual's Arguments table), or a plain name that ``make_params`` checks."""
    data_parameters: ClassVar[tuple[str, ...]] = ()
    """The arguments the rules use only in arithmetic (numbers: never in an ``if``, a shape, a
    space or a derived field), which the JAX env carries as data in its ``EnvParams``."""
    env_attributes: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    """Attributes the env classes get besides the state's quantities and the parameters (a
    constant, or a ``property`` of the env: ``env.state`` and ``env.params`` are there)."""
    render_modes: ClassVar[tuple[str, ...]] = ("ansi", "human", "rgb_array")
    """The render modes of the env."""
    render_fps: ClassVar[int] = 4
    """Frames a second of human rendering."""
    human: ClassVar[str] = "ansi"
    """What human mode shows: ``"ansi"`` prints the text, ``"rgb"`` shows the picture in a pygame window."""

    # Parameters and spaces ------------------------------------------------------------------

    def make_params(self, base: ParamsT, owner: str, **arguments: Any) -> ParamsT:
        """The parameters of an environment: ``base`` (the registry row's set) with the
        constructor's ``arguments`` checked and put in. Raises ``ValueError`` / ``TypeError``
        naming the argument. The default checks each declared :class:`~gym_suite.envs.checks.Argument`;
        override it to derive fields or check relations (call it first: ``super().make_params(...)``)."""
        if not arguments:
            return base  # the version's own set
        return dataclasses.replace(base, **check_arguments(self.arguments, base, owner, arguments))

    def spaces(self, params: ParamsT) -> tuple[spaces.Space[Any], spaces.Space[Any]]:
        """The observation space and the action space of one environment with these parameters."""
        raise NotImplementedError

    # The rules --------------------------------------------------------------------------------

    def initial(self, u: Sequence[Any], params: ParamsT, ops: Ops) -> StateT:
        """A fresh state from the start's ``start_draws`` uniforms ``u`` on [0, 1)."""
        raise NotImplementedError

    def transition(self, state: StateT, action: Any, u: Sequence[Any], params: ParamsT, ops: Ops) -> StateT:
        """The state after ``action`` (checked against the action space), from the step's
        ``step_draws`` uniforms ``u``."""
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
        """Whether the rules' own clock ends the episode in ``state`` (default: never; the step limit is the
        registry's)."""
        return False

    def info(self, state: StateT | None, action: Any, next_state: StateT, params: ParamsT, ops: Ops) -> dict[str, Any]:
        """The ``info`` of the step from ``state`` to ``next_state``; of a start, ``state`` and
        ``action`` are ``None`` and ``next_state`` is the start (default: empty)."""
        return {}

    def heuristic(self, observation: Any, params: ParamsT, ops: Ops) -> Any:
        """The documented simple policy: an action (a batch of them on arrays) for ``observation``."""
        raise NotImplementedError

    # Pictures (numpy, one state) ---------------------------------------------------------------

    def render(self, state: StateT, params: ParamsT, mode: str) -> Any:
        """The picture of one state (Python numbers): ``mode="ansi"`` a text, ``mode="rgb"`` a
        ``uint8`` array of shape ``(H, W, 3)``."""
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
    is ``State(a, b, c)``.

    For a rule that runs on every step: it builds the ``NamedTuple`` from one tuple of all its
    quantities in field order, without the argument parsing of ``State(...)`` or the length check
    of ``State._make`` (about half their cost on Python numbers), so it is the caller's to give
    every quantity, once each. Raises ``TypeError`` if ``state_class`` is not a ``NamedTuple`` class.
    """
    if not (isinstance(state_class, type) and issubclass(state_class, tuple) and hasattr(state_class, "_fields")):
        raise TypeError(f"state_maker: state_class must be a NamedTuple class, got {shown(state_class)}")
    return cast("Callable[[Iterable[Any]], _StateT]", MethodType(tuple.__new__, state_class))


def row_of(state: Any, i: int) -> Any:
    """Row ``i`` of a batched state, as Python numbers (for the pictures)."""
    return type(state)(*(np.asarray(q)[i].item() for q in state))


Rule = Callable[..., Any]
