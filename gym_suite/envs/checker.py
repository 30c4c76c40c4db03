"""``check_definition``: a contributor's :class:`~gym_suite.envs.definition.Definition`, checked
on every backend, as Gymnasium's ``check_env`` checks an env.

The shells trust the rules (a check per step would cost the speed they exist for), so a hook that
returns a NaN observation, a float64 array where the space says float32 or ``"no"`` as
``terminal`` would reach the agent unchanged, or fail deep inside numpy. This checker runs every
hook of a definition on seeded random episodes, on Python numbers (``SCALAR``), on numpy arrays
(``NUMPY``, a batch of rows) and on JAX (``jax_ops()``, the rules vmapped over the rows under
``jit``, as the JAX envs run them), on the same states and draws, and reports each violation by
hook, backend and value.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from gym_suite._registry import find, load, rows
from gym_suite.envs.argument_values import argument_values
from gym_suite.envs.checks import ArgumentTypeError, check_action, check_actions, check_int, shown
from gym_suite.envs.definition import NUMPY, SCALAR, Definition, draws_at_start, jax_ops, row_of

__all__ = ["BACKENDS", "PROBLEMS", "DefinitionError", "Violation", "check_definition"]

#: The backends a definition runs on, in the order they are checked.
BACKENDS: tuple[str, ...] = ("scalar", "numpy", "jax")
#: Relative tolerance of the comparisons with numpy: Python floats, and JAX in 64-bit mode ...
RTOL = 1e-9
#: ... and JAX in 32 bits (float32 state and draws, from the same float32-rounded inputs).
RTOL_FLOAT32 = 1e-4
#: Quantities of a state: Python numbers and flags for one environment, arrays of these kinds
#: for a batch.
_KINDS = {"b": "bool", "i": "int", "u": "int", "f": "float"}


@dataclasses.dataclass(frozen=True)
class Violation:
    """One broken promise of a definition.

    ``hook`` is the method (``"observation"``, ``"terminal"``, ...), ``backend`` where it broke
    (``"scalar"``, ``"numpy"``, ``"jax"``, ``"scalar vs numpy"`` / ``"jax vs numpy"`` when two
    backends disagree on the same draws, ``"all"`` for what the definition declares once: its
    spaces, draws and ``State``), ``problem`` its kind (one of :data:`PROBLEMS`),
    ``message`` what was seen (the value, the row) and ``count`` how many times it was seen.
    """

    hook: str
    backend: str
    problem: str
    message: str
    count: int = 1

    def __str__(self) -> str:
        times = f" (seen {self.count} times)" if self.count > 1 else ""
        return f"{self.hook} [{self.backend}] {self.problem}: {self.message}{times}"


#: The kinds of violation, with what each means.
PROBLEMS: dict[str, str] = {
    "raised": "the hook raised an exception (on JAX: also while tracing under jit)",
    "not a state": "initial / transition returned something that is not the definition's State",
    "kind": "a value of the wrong kind: a state quantity that is not a number or flag, or changes kind; "
    "an observation that is not an array; a reward that is not a number; a space that is not a "
    "gymnasium Space, a count of draws that is not an int >= 0",
    "shape": "an array of the wrong shape (one value per row for a batch)",
    "dtype": "an observation whose dtype is not the space's (float64 where float32 is declared)",
    "nan": "an observation holding NaN",
    "out of space": "an observation, or a heuristic action, outside its space",
    "not finite": "a reward that is NaN or infinite",
    "not boolean": "terminal / truncation that is not a bool (or bool array)",
    "not a dict": "info that is not a dict",
    "not an image": 'render(state, params, "rgb") that is not a uint8 (H, W, 3) array',
    "not text": 'render(state, params, "ansi") that is not a str',
    "not fresh": "an observation array sharing memory with the state or the parameters (a caller writing into it "
    "would change the environment)",
    "disagree": "two backends give different values on the same state and draws",
    "not a parameter": "a name in arguments that the parameters dataclass has no field of",
    "not data": "a name in data_parameters that is not a declared argument holding a number",
    "argument": "a value of a declared argument that make_params refused with another error than ValueError / "
    "TypeError naming the argument, or accepted and then the start or first step broke on",
}
#: The errors a refused argument may raise (with a message naming it): the documented ones.
ARGUMENT_ERRORS = (ValueError, TypeError, FileNotFoundError)
#: The longest message a refused argument may give.
MESSAGE_LIMIT = 1000


class DefinitionError(ValueError):
    """Raised by :func:`check_definition` when the definition broke a promise: the message lists
    every violation, and ``violations`` holds them."""

    def __init__(self, name: str, violations: Sequence[Violation]):
        self.violations = tuple(violations)
        lines = [str(v) for v in self.violations[:40]]
        if len(self.violations) > 40:
            lines.append(f"... and {len(self.violations) - 40} more (DefinitionError.violations has them all)")
        count = len(self.violations)
        super().__init__(f"check_definition({name}): {count} violation{'s' * (count != 1)}:\n  " + "\n  ".join(lines))


class _Failed:
    """What a hook that raised returns: the checks that need its value are skipped."""


FAILED = _Failed()


class _Report:
    """The violations found, one per (hook, backend, problem, what), with the first value seen."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str, str, str], Violation] = {}

    def add(self, hook: str, backend: str, problem: str, message: str, what: str = "") -> None:
        key = (hook, backend, problem, what)
        seen = self.found.get(key)
        if seen is None:
            self.found[key] = Violation(hook, backend, problem, message)
        else:
            self.found[key] = dataclasses.replace(seen, count=seen.count + 1)

    def call(self, hook: str, backend: str, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``, or :data:`FAILED` with a violation if it raises."""
        try:
            return fn(*args)
        except Exception as exc:  # a contributor's hook may raise anything: report it
            self.add(hook, backend, "raised", _exception_text(exc), "raised")
            return FAILED


def _exception_text(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    if type(exc).__name__ in ("TracerBoolConversionError", "ConcretizationTypeError", "TracerIntegerConversionError"):
        text += " (a Python if, bool(), int() or float() on data: use ops.where or arithmetic)"
    return text if len(text) <= 300 else text[:297] + "..."


# --------------------------------------------------------------------------------------------
# The checks of one hook's value
# --------------------------------------------------------------------------------------------


def _scalar_kind(value: Any) -> str | None:
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, np.integer)):
        return "int"
    if isinstance(value, (float, np.floating)):
        return "float"
    return None


def _array_kind(value: Any) -> str | None:
    try:
        kind = np.asarray(value).dtype.kind
    except Exception:
        return None
    return _KINDS.get(kind)


def _described(value: Any) -> str:
    if isinstance(value, np.ndarray) or hasattr(value, "dtype") and hasattr(value, "shape"):
        return f"{shown(np.asarray(value))} (dtype {value.dtype}, shape {tuple(value.shape)})"
    return f"{shown(value)} ({type(value).__name__})"


def _first_bad(array: np.ndarray, bad: np.ndarray, batch: bool = False) -> str:
    """The first value where ``bad`` holds, and where it is (its row first, for a batch)."""
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    value = repr(array[index].item())
    if not index:
        return value
    if batch:
        rest = index[1:]
        return f"{value} in row {index[0]}" + (f", index {rest[0] if len(rest) == 1 else rest}" if rest else "")
    return f"{value} at index {index[0] if len(index) == 1 else index}"


def _box_bounds(space: spaces.Box) -> str:
    low, high = np.unique(space.low), np.unique(space.high)
    return f"[{_bound(low)}, {_bound(high)}]"


def _bound(bound: np.ndarray) -> str:
    return shown(bound.item()) if bound.size == 1 else shown(bound)


def _check_in_space(
    space: spaces.Space[Any], value: Any, rows: int | None, path: str, float_dtype: Any = None
) -> list[tuple[str, str]]:
    """``(problem, message)`` for each way ``value`` is not in ``space`` (a batch of ``rows`` when
    ``rows`` is given). ``float_dtype`` is the float dtype JAX gives for a float box (float32
    without 64-bit mode), ``None`` off JAX."""
    batch = () if rows is None else (rows,)
    if isinstance(space, spaces.Dict):
        if not isinstance(value, Mapping):
            return [("kind", f"{path} is {_described(value)}, expected a dict with keys {list(space.spaces)}")]
        if set(value) != set(space.spaces):
            return [("out of space", f"{path} has keys {sorted(map(str, value))}, the space {list(space.spaces)}")]
        found: list[tuple[str, str]] = []
        for key, sub in space.spaces.items():
            found += _check_in_space(sub, value[key], rows, f"{path}[{key!r}]", float_dtype)
        return found
    if isinstance(space, spaces.Discrete):
        start, n = int(space.start), int(space.n)
        allowed = f"an integer in {start}..{start + n - 1} (Discrete({n}{f', start={start}' if start else ''}))"
        try:
            array = np.asarray(value)
        except Exception:
            array = np.asarray(None)
        if array.dtype.kind not in "iu" or isinstance(value, (bool, np.bool_)):
            if array.dtype.kind == "f" and np.isnan(array).any():
                where = "" if array.ndim == 0 else f" ({_first_bad(array, np.isnan(array), rows is not None)})"
                return [("nan", f"{path} holds nan{where}, expected {allowed}")]
            return [("dtype", f"{path} is {_described(value)}, expected {allowed}{'' if rows is None else ' per row'}")]
        if array.shape != batch:
            return [("shape", f"{path} has shape {array.shape}, expected {batch}")]
        outside = (array < start) | (array >= start + n)
        if outside.any():
            return [("out of space", f"{path} holds {_first_bad(array, outside, rows is not None)}, outside {allowed}")]
        return []
    if isinstance(space, spaces.Box):
        if not (isinstance(value, np.ndarray) or rows is not None and hasattr(value, "dtype")):
            return [("kind", f"{path} is {_described(value)}, expected a numpy array ({space})")]
        array = np.asarray(value)
        expected = np.dtype(space.dtype)
        if float_dtype is not None and expected.kind == "f":
            expected = np.dtype(float_dtype) if expected.itemsize > np.dtype(float_dtype).itemsize else expected
        found = []
        if array.dtype != expected:
            found.append(("dtype", f"{path} has dtype {array.dtype} where the space declares {expected}"))
        if array.shape != batch + tuple(space.shape):
            found.append(("shape", f"{path} has shape {array.shape}, expected {batch + tuple(space.shape)}"))
            return found
        if array.dtype.kind not in "biuf":
            return found
        if array.dtype.kind == "f":
            nan = np.isnan(array)
            if nan.any():
                found.append(("nan", f"{path} holds nan ({_first_bad(array, nan, rows is not None)})"))
            outside = ~nan & ((array < space.low) | (array > space.high))
        else:
            outside = (array < space.low) | (array > space.high)
        if outside.any():
            found.append(
                (
                    "out of space",
                    f"{path} holds {_first_bad(array, outside, rows is not None)}, outside {_box_bounds(space)}",
                )
            )
        return found
    items = [value] if rows is None else [_row(value, i) for i in range(rows)]
    for i, item in enumerate(items):
        try:
            inside = space.contains(item)
        except Exception:
            inside = False
        if not inside:
            where = "" if rows is None else f" (row {i})"
            return [("out of space", f"{path} is {_described(item)}{where}, not in {space}")]
    return []


def _row(value: Any, i: int) -> Any:
    """Row ``i`` of a batch of values (a dict of them for a ``Dict`` space); ``FAILED`` if it has none."""
    if value is FAILED:
        return FAILED
    if isinstance(value, Mapping):
        rows = {key: _row(v, i) for key, v in value.items()}
        return FAILED if any(v is FAILED for v in rows.values()) else rows
    try:
        array = np.asarray(value)
        return array[i] if array.ndim else array  # one value for every row (its shape is checked apart)
    except Exception:  # of the wrong shape: reported by numpy's checks
        return FAILED


def _column(value: Any, rows: int) -> np.ndarray | None:
    """``value`` as one value per row, or ``None`` (missing, or of the wrong shape: reported apart)."""
    if value is FAILED:
        return None
    try:
        return np.broadcast_to(np.asarray(value), (rows,))
    except Exception:
        return None


def _check_state(report: _Report, hook: str, backend: str, state: Any, state_type: Any, rows: int | None) -> bool:
    """Whether ``state`` is a ``state_type`` whose quantities are numbers or flags (one per row
    for a batch; at the start, ``initial``, a plain number or flag stands for every row: the
    shells broadcast it); reports what is not."""
    if not isinstance(state, state_type):
        report.add(hook, backend, "not a state", f"returned {_described(state)}, not a {state_type.__name__}")
        return False
    ok = True
    for name, quantity in zip(state_type._fields, state):
        if rows is None:
            if _scalar_kind(quantity) is None:
                report.add(
                    hook,
                    backend,
                    "kind",
                    f"state.{name} is {_described(quantity)}: one environment's quantities are Python numbers or bools",
                    name,
                )
                ok = False
        elif _array_kind(quantity) is None:
            report.add(hook, backend, "kind", f"state.{name} is {_described(quantity)}, not numbers or flags", name)
            ok = False
        elif np.shape(quantity) != (rows,) and (hook != "initial" or np.shape(quantity) != ()):
            plain = " (a plain value stands for every row at the start only)" if np.shape(quantity) == () else ""
            report.add(
                hook, backend, "shape", f"state.{name} has shape {np.shape(quantity)}, expected ({rows},){plain}", name
            )
            ok = False
    return ok


def _check_reward(report: _Report, backend: str, reward: Any, rows: int | None) -> None:
    if rows is None:
        kind = _scalar_kind(reward)
        if kind not in ("int", "float"):
            report.add("reward", backend, "kind", f"returned {_described(reward)}, expected a number")
        elif not math.isfinite(reward):
            report.add("reward", backend, "not finite", f"returned {reward!r}")
        return
    array = np.asarray(reward)
    if array.dtype.kind not in "iuf":
        report.add("reward", backend, "kind", f"returned {_described(reward)}, expected numbers")
    elif array.shape not in ((), (rows,)):
        report.add("reward", backend, "shape", f"returned shape {array.shape}, expected ({rows},)")
    elif not np.isfinite(array).all():
        report.add("reward", backend, "not finite", f"returned {_first_bad(array, ~np.isfinite(array), True)}")


def _check_flag(report: _Report, hook: str, backend: str, flag: Any, rows: int | None) -> None:
    if rows is None:
        if not isinstance(flag, (bool, np.bool_)):
            report.add(hook, backend, "not boolean", f"returned {_described(flag)}, expected True or False")
        return
    array = np.asarray(flag)
    if array.dtype != np.bool_:
        report.add(hook, backend, "not boolean", f"returned {_described(flag)}, expected a bool array")
    elif array.shape not in ((), (rows,)):
        report.add(hook, backend, "shape", f"returned shape {array.shape}, expected ({rows},)")


def _check_info(report: _Report, hook: str, backend: str, info: Any, rows: int | None) -> bool:
    if not isinstance(info, dict):
        report.add(hook, backend, "not a dict", f"returned {_described(info)}, expected a dict")
        return False
    if rows is not None:
        for key, value in info.items():
            try:
                np.broadcast_to(value, (rows,))
            except Exception:
                report.add(
                    hook, backend, "shape", f"info[{key!r}] is {_described(value)}, expected one value per row", key
                )
    return True


def _check_space_value(report: _Report, hook: str, backend: str, found: list[tuple[str, str]]) -> None:
    for problem, message in found:
        report.add(hook, backend, problem, message, message.split(" ", 1)[0])


# --------------------------------------------------------------------------------------------
# Comparisons of two backends
# --------------------------------------------------------------------------------------------


def _row_scale(rows: int, *states: Any) -> np.ndarray:
    """Per row: 1 + the largest finite magnitude of the float quantities (the absolute tolerance)."""
    scale = np.ones(rows)
    for state in states:
        for q in state:
            column = _column(q, rows)
            if column is not None and column.dtype.kind == "f":
                magnitude = np.abs(column.astype(np.float64))
                scale = np.maximum(scale, 1.0 + np.where(np.isfinite(magnitude), magnitude, 0.0))
    return scale


def _disagreement(got: Any, want: Any, rtol: float, scale: Any) -> str | None:
    """``None`` if ``got`` and ``want`` agree (floats within ``rtol * (|want| + scale)``, NaN
    with NaN; other values exactly), else the first difference."""
    numbers = (bool, int, float, np.bool_, np.integer, np.floating)
    if isinstance(got, numbers) and isinstance(want, numbers):  # one row's value: no arrays
        a, b, s = float(got), float(want), float(scale)
        if a == b or math.isnan(a) and math.isnan(b) or abs(a - b) <= rtol * (abs(b) + s):
            return None
        return f"{got!r} where numpy gives {want.item() if isinstance(want, np.generic) else want!r}"
    try:
        g, w = np.asarray(got), np.asarray(want)
        if g.dtype.kind not in "biuf" or w.dtype.kind not in "biuf":
            return None if np.array_equal(g, w) else f"{shown(got)} where numpy gives {shown(want)}"
        g, w = np.broadcast_arrays(g.astype(np.float64), w.astype(np.float64))
        scale = np.asarray(scale, np.float64)
        scale = np.broadcast_to(scale.reshape(scale.shape + (1,) * (g.ndim - scale.ndim)), g.shape)
    except Exception:
        return f"{_described(got)} where numpy gives {_described(want)}"
    same = (g == w) | (np.isnan(g) & np.isnan(w)) | (np.abs(g - w) <= rtol * (np.abs(w) + scale))
    if same.all():
        return None
    index = tuple(int(i) for i in np.argwhere(~same)[0])
    where = f" (row {index[0]})" if index else ""
    return f"{g[index]!r} where numpy gives {w[index]!r}{where}"


def _compare(report: _Report, hook: str, backend: str, what: str, got: Any, want: Any, rtol: float, scale: Any) -> None:
    if isinstance(want, Mapping) and isinstance(got, Mapping):
        for key in want:
            if key in got:
                _compare(report, hook, backend, f"{what}[{key!r}]", got[key], want[key], rtol, scale)
        return
    difference = _disagreement(got, want, rtol, scale)
    if difference is not None:
        report.add(hook, backend, "disagree", f"{what}: {difference}", what)


# --------------------------------------------------------------------------------------------
# The definition to check
# --------------------------------------------------------------------------------------------


def _resolve(definition: Any, params: Any) -> tuple[Definition[Any, Any], Any, str, str]:
    """The definition, its parameter set (as an env's constructor gets it, before ``make_params``),
    a name for messages (the id, the class, the definition's class) and the owner ``make_params``
    names in its messages (the env class)."""
    label = owner = None
    if isinstance(definition, str):
        name = definition.removeprefix("gym_suite:")
        found = find(name)
        if found is None:
            ids = [spec.id for spec in rows()]
            raise ValueError(f"check_definition: unknown id {definition!r}; the ids are {ids}")
        spec = found
        definition = load(spec.definition)
        if params is None:  # the id's parameters
            params = load(spec.params)
        label, owner = name, spec.class_name
    if isinstance(definition, type) and isinstance(getattr(definition, "definition", None), Definition):
        cls: Any = definition
        label = label or cls.__name__
        definition = cls.definition
        owner = cls.__name__
        if params is None:  # the class's parameters
            params = cls.base_params
    if not isinstance(definition, Definition):
        raise ArgumentTypeError(
            "check_definition: definition must be a Definition instance, an env class (gym_suite.envs.HeartPoleEnv, "
            f"or one made by env_classes) or a registry id, got {shown(definition)}"
        )
    d: Definition[Any, Any] = definition
    if params is None:
        for spec in rows():
            if load(spec.definition) is d:
                params, owner = load(spec.params), owner or spec.class_name
                break
        else:
            raise ArgumentTypeError(
                f"check_definition: params is required for {type(definition).__name__} (its parameters "
                "dataclass, e.g. MyParams()): the definition is not in the registry"
            )
    return d, params, label or type(d).__name__, owner or type(d).__name__


def _check_params(d: Definition[Any, Any], params: Any) -> None:
    """``params`` is a parameters dataclass instance, of the registry's class for a definition of the
    registry: ``TypeError`` naming ``params`` (not a hook that fails on them)."""
    expected = next((type(load(spec.params)) for spec in rows() if load(spec.definition) is d), None)
    if expected is not None and not isinstance(params, expected):
        raise ArgumentTypeError(
            f"check_definition: params must be the {expected.__name__} of {type(d).__name__} (e.g. its id's, made "
            f"by make_params), got {shown(params)}"
        )
    if not dataclasses.is_dataclass(params) or isinstance(params, type):
        raise ArgumentTypeError(
            f"check_definition: params must be the parameters of {type(d).__name__}, an instance of its frozen "
            f"parameters dataclass, got {shown(params)}"
        )


# --------------------------------------------------------------------------------------------
# JAX: the rules vmapped over the rows, under jit
# --------------------------------------------------------------------------------------------


def _device_params(params: Any) -> Any:
    """``params`` with its numeric numpy arrays as JAX arrays (as the JAX envs hold them)."""
    import jax.numpy as jnp

    if not dataclasses.is_dataclass(params) or isinstance(params, type):
        return params
    copy = object.__new__(type(params))  # frozen: set the fields without running __init__'s checks
    for field in dataclasses.fields(params):
        value = getattr(params, field.name)
        if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
            value = jnp.asarray(value)
        object.__setattr__(copy, field.name, value)
    return copy


def _numeric(value: Any) -> bool:
    import jax

    if isinstance(value, (jax.Array, bool, int, float, np.bool_, np.number)):
        return True
    return isinstance(value, np.ndarray) and value.dtype.kind in "biuf"


class _Jax:
    """The definition's hooks on ``jax.numpy``: a start and a step, each one jitted, vmapped call
    (compiled once) that returns every hook's value; a hook that raises while tracing is reported
    and left out."""

    def __init__(self, definition: Definition[Any, Any], params: Any, rows: int, report: _Report):
        import jax
        import jax.numpy as jnp

        self.jax, self.jnp = jax, jnp
        self.d, self.report, self.rows = definition, report, rows
        self.params = _device_params(params)
        self.ops = jax_ops()
        self.float = jnp.zeros(0).dtype
        self.x64 = self.float == np.float64
        self.discrete = isinstance(definition.spaces(params)[1], spaces.Discrete)
        self.start = jax.jit(jax.vmap(self._start, axis_size=rows))
        self.step = jax.jit(jax.vmap(self._step, axis_size=rows))

    def _call(self, hook: str, fn: Callable[..., Any], *args: Any) -> Any:
        value = self.report.call(hook, "jax", fn, *args)
        if value is FAILED:
            return FAILED
        if hook.endswith("info"):
            if not isinstance(value, dict):
                self.report.add(hook, "jax", "not a dict", f"returned {_described(value)}, expected a dict")
                return FAILED
            value = {k: v for k, v in value.items() if _numeric(v)}  # names are left out, as the JAX envs do
        try:
            return self.jax.tree.map(self.jnp.asarray, value)
        except Exception as exc:
            problem = "not boolean" if hook in ("terminal", "truncation") else "kind"
            self.report.add(hook, "jax", problem, f"returned {_described(value)}: not arrays ({_exception_text(exc)})")
            return FAILED

    def _state(self, hook: str, state: Any) -> Any:
        if state is not FAILED and not isinstance(state, self.d.State):
            self.report.add(hook, "jax", "not a state", f"returned {_described(state)}, not a {self.d.State.__name__}")
            return FAILED
        return state

    def _after(self, out: dict[str, Any], state: Any) -> dict[str, Any]:
        d, p, ops = self.d, self.params, self.ops
        out["terminal"] = self._call("terminal", d.terminal, state, p, ops)
        out["truncation"] = self._call("truncation", d.truncation, state, p, ops)
        out["observation"] = observation = self._call("observation", d.observation, state, p, ops)
        if observation is not FAILED:
            out["heuristic"] = self._call("heuristic", d.heuristic, observation, p, ops)
        return {key: value for key, value in out.items() if value is not FAILED}

    def _start(self, u: Any) -> dict[str, Any]:
        d, p, ops = self.d, self.params, self.ops
        state = self._state("initial", self._call("initial", d.initial, u, p, ops))
        if state is FAILED:
            return {}
        out = {"state": state, "state_info": self._call("info", d.info, None, None, state, p, ops)}
        return self._after(out, state)

    def _step(self, state: Any, action: Any, u: Any) -> dict[str, Any]:
        d, p, ops = self.d, self.params, self.ops
        action = self.jnp.asarray(action, dtype=self.jnp.int32 if self.discrete else self.float)
        next_state = self._state("transition", self._call("transition", d.transition, state, action, u, p, ops))
        if next_state is FAILED:
            return {}
        out = {
            "state": next_state,
            "reward": self._call("reward", d.reward, state, action, next_state, p, ops),
            "transition_info": self._call("info", d.info, state, action, next_state, p, ops),
        }
        return self._after(out, next_state)

    def draws(self, u: np.ndarray) -> tuple[Any, np.ndarray]:
        """The JAX draws of numpy's ``u`` ``(rows, count)``, and ``u`` rounded as JAX holds them."""
        if not self.x64:
            u = u.astype(np.float32).astype(np.float64)
        return (self.jnp.asarray(u, dtype=self.float) if u.shape[1] else ()), u

    def state(self, state: Any) -> tuple[Any, Any]:
        """The JAX state of numpy's ``state``, and ``state`` rounded as JAX holds it (what numpy's
        reference step starts from)."""
        quantities = [np.broadcast_to(np.asarray(q), (self.rows,)) for q in state]
        if not self.x64:
            quantities = [q.astype(np.float32).astype(np.float64) if q.dtype.kind == "f" else q for q in quantities]
        return type(state)(*(self.jnp.asarray(q) for q in quantities)), type(state)(*quantities)

    def run(self, fn: Callable[..., Any], *args: Any) -> dict[str, Any]:
        try:
            out = fn(*args)
        except Exception as exc:  # an error jit gives outside the hooks (rare: the hooks are guarded)
            self.report.add("jit", "jax", "raised", _exception_text(exc))
            return {}
        return dict(self.jax.tree.map(np.asarray, out))


def _jax_backend(d: Definition[Any, Any], params: Any, rows: int, report: _Report) -> _Jax | None:
    try:
        import jax  # noqa: F401
    except ImportError:
        warnings.warn(
            'check_definition: JAX is not installed, so the JAX backend was not checked (pip install "gym-suite[jax]")',
            stacklevel=3,
        )
        return None
    return _Jax(d, params, rows, report)


# --------------------------------------------------------------------------------------------
# The checker
# --------------------------------------------------------------------------------------------


def check_definition(
    definition: Any,
    params: Any = None,
    *,
    seed: int = 0,
    num_envs: int = 8,
    steps: int = 100,
    backends: Sequence[str] = BACKENDS,
    raise_error: bool = True,
) -> list[Violation]:
    """Check a definition's hooks on every backend, over seeded random episodes.

    ``definition`` is a :class:`~gym_suite.envs.definition.Definition` instance (with its
    ``params``, the frozen parameters dataclass; for a definition of the registry they default
    to its id's), an env class (``gym_suite.envs.HeartPoleEnv``: its parameters) or a registry id
    (``"heartpole-v1"``). ``num_envs`` rows play ``steps`` steps of random actions from the
    action space, seeded by ``seed`` (a row whose episode ends starts afresh). Every start and
    step runs on numpy arrays (the batch), on Python numbers (each row, ``row_of`` the batch's
    state) and on JAX (the rows vmapped under ``jit``, compiled once), on the same states and
    uniforms, and the checker looks at every value:

    * ``make_params``: the parameters are made as an env's constructor makes them (the set,
      checked and completed: ``make_params(params, owner)``), and the hooks run on those;
    * ``initial`` / ``transition``: the definition's ``State``, each quantity a number or flag
      (Python numbers for one environment, one per row for a batch) of the same kind at the
      start and after a step, and on every backend;
    * ``observation``: in the observation space, of its dtype (float64 where the space
      declares float32 is a violation) and shape, no NaN, in arrays of its own (no memory
      shared with the state or the parameters);
    * ``reward``: a finite number; ``terminal`` / ``truncation``: a bool;
      ``info``: a dict (with one value per row for a batch);
    * ``heuristic``: an action of the action space (``check_action`` / ``check_actions`` accept it),
      in the action space;
    * the spaces are Gymnasium spaces, ``start_draws`` and ``step_draws`` counts,
      ``State`` a ``NamedTuple`` (violations on backend ``"all"``; nothing runs without them);
    * ``render(state, params, "rgb")`` (when the definition renders pictures): a ``uint8`` ``(H, W, 3)`` array;
      ``render(state, params, "ansi")`` (when it renders text): a ``str``;
    * the backends agree on the same draws: Python numbers with numpy to ``RTOL`` (relative,
      after 1 + the largest quantity of the row), JAX with numpy on the same inputs rounded to
      JAX's precision (``RTOL_FLOAT32`` in 32 bits, ``RTOL`` with ``jax_enable_x64``);
    * the arguments: each name in ``arguments`` is a field of the parameters, and each is tried
      with the odd values of :func:`~gym_suite.envs.argument_values.argument_values` (the wrong
      kinds, the boundaries, ``10**1000``, NaN, the infinities): ``make_params`` refuses a value
      with a ``ValueError`` / ``TypeError`` (``FileNotFoundError`` for a path) naming the
      argument (or, for a relation between two, the other: ``rt_max must be >= lf_min + 2``) in
      at most ``MESSAGE_LIMIT`` characters, or accepts it, and then the spaces, a start and a first step on Python numbers
      run, with the observation in its space and a finite reward (problem ``"argument"``).

    JAX runs in the precision it is configured for; without JAX installed its backend is skipped
    with a warning. ``backends`` picks among ``"scalar"``, ``"numpy"`` and ``"jax"`` (numpy
    always runs: it plays the episodes).

    Returns the list of :class:`Violation` found, one per hook, backend, kind and value (with
    the first value seen and a count). With ``raise_error=True`` (the default) a non-empty list
    raises :class:`DefinitionError` instead, whose message lists them all; pass
    ``raise_error=False`` to get the list and decide yourself.

    Bad arguments raise ``TypeError`` / ``ValueError`` naming them.
    """
    owner = "check_definition"
    d, base, name, env_owner = _resolve(definition, params)
    _check_params(d, base)
    seed = check_int(owner, "seed", seed, 0)
    rows = check_int(owner, "num_envs", num_envs, 1)
    steps = check_int(owner, "steps", steps, 1)
    if isinstance(backends, str) or not isinstance(backends, Sequence):
        raise ArgumentTypeError(f"{owner}: backends must be a sequence of {list(BACKENDS)}, got {shown(backends)}")
    unknown = [b for b in backends if b not in BACKENDS]
    if unknown:
        raise ValueError(f"{owner}: unknown backend(s) {shown(unknown)}; the backends are {list(BACKENDS)}")
    if not isinstance(raise_error, (bool, np.bool_)):
        raise ArgumentTypeError(f"{owner}: raise_error must be True or False, got {shown(raise_error)}")
    report = _Report()
    # the parameters as an env's constructor makes them: the set, checked and completed
    params = report.call("make_params", "all", d.make_params, base, env_owner)
    if params is not FAILED:
        _Run(d, params, rows, set(backends), report).play(seed, steps)
        _check_arguments(d, base, params, env_owner, report)
    violations = list(report.found.values())
    if violations and raise_error:
        raise DefinitionError(name, violations)
    return violations


class _Run:
    """One check: numpy plays the episodes; the scalar and JAX backends follow on its states."""

    def __init__(self, d: Definition[Any, Any], params: Any, rows: int, backends: set[str], report: _Report):
        self.d, self.params, self.rows, self.report = d, params, rows, report
        self.scalar = "scalar" in backends
        self.kinds: dict[tuple[str, str], tuple[str, str]] = {}  # (backend, quantity): (kind, hook)
        self.hook_kinds: dict[tuple[str, str, str], str] = {}  # (backend, hook, quantity): the last kind
        # what the definition declares (the same on every backend: "all")
        both = report.call("spaces", "all", d.spaces, params)
        if both is not FAILED and not (isinstance(both, tuple) and len(both) == 2):
            report.add(
                "spaces", "all", "kind", f"returned {_described(both)}, expected (observation_space, action_space)"
            )
            both = FAILED
        self.observation_space: Any
        self.action_space: Any
        self.observation_space, self.action_space = (
            (None, None)
            if both is FAILED
            else (self._space("observation_space", both[0]), self._space("action_space", both[1]))
        )
        self.start_draws = report.call("start_draws", "all", draws_at_start, d, params)
        for name, count in (("start_draws", self.start_draws), ("step_draws", d.step_draws)):
            if count is not FAILED and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
                report.add(name, "all", "kind", f"is {_described(count)}, expected a count of uniforms (an int >= 0)")
                self.start_draws = FAILED
        self.State: Any = getattr(d, "State", None)
        if not (isinstance(self.State, type) and issubclass(self.State, tuple) and hasattr(self.State, "_fields")):
            report.add("State", "all", "not a state", f"is {_described(self.State)}, expected the state's NamedTuple")
            self.State = None
        self.ready = all(
            x is not None and x is not FAILED
            for x in (self.action_space, self.observation_space, self.start_draws, self.State)
        )
        self.jax = _jax_backend(d, params, rows, report) if "jax" in backends and self.ready else None
        modes = set(d.render_modes)
        self.pictures = "rgb_array" in modes or "human" in modes and d.human == "rgb"
        self.text = "ansi" in modes or "human" in modes and d.human == "ansi"
        self.rendered = 0

    # Bookkeeping ----------------------------------------------------------------------------

    def _kinds(self, hook: str, backend: str, state: Any) -> None:
        """Each quantity keeps one kind (bool, int, float) on every backend, start and step alike."""
        for field, q in zip(self.State._fields, state):
            kind = _scalar_kind(q) if backend == "scalar" else _array_kind(q)
            if kind is None:
                continue
            first = self.kinds.setdefault((backend, field), (kind, hook))
            if first[0] != kind:
                self.report.add(
                    hook,
                    backend,
                    "kind",
                    f"state.{field} is {kind} here but {first[0]} from {first[1]}",
                    field,
                )
            self.hook_kinds[(backend, hook, field)] = kind
            numpy = self.hook_kinds.get(("numpy", hook, field))
            if backend != "numpy" and numpy is not None and numpy != kind:
                self.report.add(
                    hook,
                    f"{backend} vs numpy",
                    "kind",
                    f"state.{field} is {kind} on {backend} but {numpy} on numpy",
                    field,
                )

    # numpy ----------------------------------------------------------------------------------

    def _numpy_outputs(self, state: Any, before: Any = None, actions: Any = None) -> dict[str, Any]:
        """Every hook's value on ``state`` (a start, or the step from ``before`` by ``actions``),
        checked; ``FAILED`` where a hook raised."""
        d, p, r, rows = self.d, self.params, self.report, self.rows
        out: dict[str, Any] = {"state": state}
        if before is None:
            out["state_info"] = info = r.call("info", "numpy", d.info, None, None, state, p, NUMPY)
            if info is not FAILED:
                _check_info(r, "info", "numpy", info, rows)
        else:
            out["reward"] = reward = r.call("reward", "numpy", d.reward, before, actions, state, p, NUMPY)
            if reward is not FAILED:
                _check_reward(r, "numpy", reward, rows)
            info = r.call("info", "numpy", d.info, before, actions, state, p, NUMPY)
            out["transition_info"] = info
            if info is not FAILED:
                _check_info(r, "info", "numpy", info, rows)
        for flag in ("terminal", "truncation"):
            out[flag] = value = r.call(flag, "numpy", getattr(d, flag), state, p, NUMPY)
            if value is not FAILED:
                _check_flag(r, flag, "numpy", value, rows)
        out["observation"] = obs = r.call("observation", "numpy", d.observation, state, p, NUMPY)
        if obs is not FAILED:
            _check_space_value(
                r, "observation", "numpy", _check_in_space(self.observation_space, obs, rows, "observation")
            )
            self._check_fresh("numpy", obs, state)
            out["heuristic"] = action = r.call("heuristic", "numpy", d.heuristic, obs, p, NUMPY)
            if action is not FAILED:
                self._check_heuristic("numpy", action)
        return out

    def _check_fresh(self, backend: str, observation: Any, state: Any) -> None:
        """The observation's arrays are the caller's own: no memory shared with the state's
        quantities or the parameters' arrays (the shells hand the observation over as it is, so
        a caller writing into it would change the environment)."""
        parts = observation.items() if isinstance(observation, Mapping) else [("", observation)]
        holders = [(f"state.{f}", q) for f, q in zip(self.State._fields, state) if isinstance(q, np.ndarray)]
        if dataclasses.is_dataclass(self.params):
            holders += [
                (f"params.{f.name}", v)
                for f in dataclasses.fields(self.params)
                if isinstance(v := getattr(self.params, f.name), np.ndarray)
            ]
        for key, part in parts:
            if not isinstance(part, np.ndarray):
                continue
            for holder, array in holders:
                if np.may_share_memory(part, array):
                    where = f"observation[{key!r}]" if key else "observation"
                    self.report.add(
                        "observation",
                        backend,
                        "not fresh",
                        f"{where} shares memory with {holder} (return a copy: ops.copy)",
                        where,
                    )
                    break

    def _check_heuristic(self, backend: str, action: Any) -> None:
        """The heuristic's action is one the definition accepts (``check_action`` /
        ``check_actions`` of its space) and in the action space (a float64 box of a float32 space is fine:
        the shells take actions of any float dtype)."""
        rows = None if backend == "scalar" else self.rows
        try:
            if rows is None:
                check_action(action, self.action_space)
            else:  # one action for every row is taken as that action in each
                shape = (rows, *(self.action_space.shape or ()))
                array = np.asarray(action)
                action = np.broadcast_to(array, shape) if array.ndim < len(shape) else array
                check_actions(action, rows, self.action_space)
        except Exception as exc:
            self.report.add(
                "heuristic",
                backend,
                "out of space",
                f"gave {_described(action)}, not an action of {self.action_space}: {_exception_text(exc)}",
            )
            return
        for problem, message in _check_in_space(self.action_space, action, rows, "action"):
            if problem != "dtype":
                self.report.add("heuristic", backend, "out of space", message, message.split(" ", 1)[0])

    def _numpy_start(self, u: np.ndarray) -> Any:
        """A checked batch start from the draws ``u`` ``(rows, count)``, its quantities ``(rows,)``."""
        d, r = self.d, self.report
        state = r.call("initial", "numpy", d.initial, _uniforms(u), self.params, NUMPY)
        if state is FAILED or not _check_state(r, "initial", "numpy", state, self.State, u.shape[0]):
            return FAILED
        self._kinds("initial", "numpy", state)
        return _broadcast(state, u.shape[0])  # as the vector shell holds it: one value per row

    # Python numbers --------------------------------------------------------------------------

    def _scalar(self, want: dict[str, Any], before: Any, raw_actions: Any, u: np.ndarray, scale: np.ndarray) -> None:
        """Each row on Python numbers, against numpy's values ``want``."""
        d, p, r, rows = self.d, self.params, self.report, self.rows
        backend, vs = "scalar", "scalar vs numpy"
        hook = "initial" if before is None else "transition"
        info_hook = "state_info" if before is None else "transition_info"
        # numpy's values, one per row (None where numpy's value is missing or of the wrong shape)
        states = (
            [None] * len(self.State._fields) if want["state"] is FAILED else [_column(q, rows) for q in want["state"]]
        )
        flags = {flag: _column(want.get(flag, FAILED), rows) for flag in ("terminal", "truncation", "reward")}
        infos = want.get(info_hook)
        info_columns = {k: _column(v, rows) for k, v in infos.items()} if isinstance(infos, dict) else None
        for i in range(rows):
            draws = u[i].tolist()
            if before is None:
                state = r.call("initial", backend, d.initial, draws, p, SCALAR)
                if state is FAILED or not _check_state(r, "initial", backend, state, self.State, None):
                    return
                self._kinds("initial", backend, state)
                info = r.call("info", backend, d.info, None, None, state, p, SCALAR)
            else:
                row = row_of(before, i)
                try:
                    action = check_action(raw_actions[i], self.action_space)
                except Exception as exc:
                    r.add("check_action", backend, "raised", _exception_text(exc))
                    return
                state = r.call("transition", backend, d.transition, row, action, draws, p, SCALAR)
                if state is FAILED or not _check_state(r, "transition", backend, state, self.State, None):
                    return
                self._kinds("transition", backend, state)
                reward = r.call("reward", backend, d.reward, row, action, state, p, SCALAR)
                if reward is not FAILED:
                    _check_reward(r, backend, reward, None)
                    if flags["reward"] is not None:
                        _compare(r, "reward", vs, "reward", reward, flags["reward"][i], RTOL, scale[i])
                info = r.call("info", backend, d.info, row, action, state, p, SCALAR)
            for field, got, expected in zip(self.State._fields, state, states):
                if expected is not None:
                    _compare(r, hook, vs, f"state.{field}", got, expected[i], RTOL, scale[i])
            if info is not FAILED and _check_info(r, info_hook, backend, info, None) and info_columns is not None:
                if set(info) != set(info_columns):
                    r.add(info_hook, vs, "disagree", f"keys {sorted(info)} where numpy has {sorted(info_columns)}")
                for key in set(info) & set(info_columns):
                    column = info_columns[key]
                    if column is not None:
                        _compare(r, info_hook, vs, f"info[{key!r}]", info[key], column[i], RTOL, scale[i])
            for flag in ("terminal", "truncation"):
                value = r.call(flag, backend, getattr(d, flag), state, p, SCALAR)
                if value is not FAILED:
                    _check_flag(r, flag, backend, value, None)
                    if flags[flag] is not None:
                        _compare(r, flag, vs, flag, value, flags[flag][i], 0.0, 0.0)  # type: ignore[index]
            obs = r.call("observation", backend, d.observation, state, p, SCALAR)
            if obs is FAILED:
                continue
            _check_space_value(
                r, "observation", backend, _check_in_space(self.observation_space, obs, None, "observation")
            )
            self._check_fresh(backend, obs, state)
            expected = _row(want.get("observation", FAILED), i)
            if expected is not FAILED:
                _compare(r, "observation", vs, "observation", obs, expected, RTOL, scale[i])
            action = r.call("heuristic", backend, d.heuristic, obs, p, SCALAR)
            if action is not FAILED:
                self._check_heuristic(backend, action)
                expected = _row(want.get("heuristic", FAILED), i)
                if expected is not FAILED:
                    _compare(r, "heuristic", vs, "action", action, expected, RTOL, scale[i])
            if i == 0:
                self._render(state)

    # JAX ----------------------------------------------------------------------------------------

    def _jax(self, before: Any, raw_actions: Any, u: np.ndarray) -> None:
        """The rows on JAX, against numpy on the same inputs rounded as JAX holds them."""
        jx, r, rows = self.jax, self.report, self.rows
        assert jx is not None
        backend, vs = "jax", "jax vs numpy"
        rtol = RTOL if jx.x64 else RTOL_FLOAT32
        if before is None:
            jax_u, u = jx.draws(u)
            got = jx.run(jx.start, jax_u)
            hook = "initial"
        else:
            jax_state, before = jx.state(before)
            jax_u, u = jx.draws(u)
            actions = check_actions(raw_actions, rows, self.action_space)
            got = jx.run(jx.step, jax_state, np.asarray(raw_actions), jax_u)
            hook = "transition"
        # numpy's values on the rounded inputs (its own violations are reported by its run)
        state: Any = FAILED
        want: dict[str, Any] = {}
        try:
            if before is None:
                state = _broadcast(self.d.initial(_uniforms(u), self.params, NUMPY), rows)
                want = self._silent(state)
            else:
                state = self.d.transition(before, actions, _uniforms(u), self.params, NUMPY)
                want = self._silent(state, before, actions)
        except Exception:
            pass
        if not isinstance(state, self.State):
            state = FAILED
        scale = _row_scale(rows, *(s for s in (state, before) if s is not None and s is not FAILED))
        if "state" in got:
            jax_state_out = got["state"]
            if _check_state(r, hook, backend, jax_state_out, self.State, rows):
                self._kinds(hook, backend, jax_state_out)
                if state is not FAILED:
                    for field, g, w in zip(self.State._fields, jax_state_out, state):
                        if (column := _column(w, rows)) is not None:
                            _compare(r, hook, vs, f"state.{field}", g, column, rtol, scale)
        if "reward" in got:
            _check_reward(r, backend, got["reward"], rows)
            if want.get("reward", FAILED) is not FAILED:
                _compare(r, "reward", vs, "reward", got["reward"], want["reward"], rtol, scale)
        for info_hook in ("state_info", "transition_info"):
            if info_hook in got and isinstance(want.get(info_hook), dict):
                for key, value in got[info_hook].items():
                    if key not in want[info_hook]:
                        r.add(info_hook, vs, "disagree", f"info[{key!r}] on JAX, not on numpy", key)
                    else:  # a name on numpy (heartpole's action) is its index on JAX: not compared
                        expected = _column(want[info_hook][key], rows)
                        if expected is not None and expected.dtype.kind in "biuf":
                            _compare(r, info_hook, vs, f"info[{key!r}]", value, expected, rtol, scale)
        for flag in ("terminal", "truncation"):
            if flag in got:
                _check_flag(r, flag, backend, got[flag], rows)
                if (column := _column(want.get(flag, FAILED), rows)) is not None:
                    _compare(r, flag, vs, flag, got[flag], column, 0.0, 0.0)
        if "observation" in got:
            found = _check_in_space(self.observation_space, got["observation"], rows, "observation", jx.float)
            _check_space_value(r, "observation", backend, found)
            if want.get("observation", FAILED) is not FAILED:
                _compare(r, "observation", vs, "observation", got["observation"], want["observation"], rtol, scale)
        if "heuristic" in got:
            self._check_heuristic(backend, got["heuristic"])
            if want.get("heuristic", FAILED) is not FAILED:
                _compare(r, "heuristic", vs, "action", got["heuristic"], want["heuristic"], rtol, scale)

    def _silent(self, state: Any, before: Any = None, actions: Any = None) -> dict[str, Any]:
        """numpy's values without reporting (a reference: numpy's own violations are reported once)."""
        saved = self.report
        self.report = _Report()
        try:
            return self._numpy_outputs(state, before, actions)
        finally:
            self.report = saved

    # Pictures --------------------------------------------------------------------------------

    def _render(self, state: Any) -> None:
        """The pictures of a few states of row 0 (at the start, and after the first steps)."""
        if self.rendered >= 3:
            return
        self.rendered += 1
        d, p, r = self.d, self.params, self.report
        if self.pictures:
            frame = r.call("render", "numpy", d.render, state, p, "rgb")
            if frame is not FAILED and not (
                isinstance(frame, np.ndarray)
                and frame.dtype == np.uint8
                and frame.ndim == 3
                and frame.shape[2] == 3
                and frame.shape[0] >= 1
                and frame.shape[1] >= 1
            ):
                r.add("render", "numpy", "not an image", f"returned {_described(frame)}, expected uint8 (H, W, 3)")
        if self.text:
            text = r.call("render", "numpy", d.render, state, p, "ansi")
            if text is not FAILED and not isinstance(text, str):
                r.add("render", "numpy", "not text", f"returned {_described(text)}, expected a str")

    # The episodes ------------------------------------------------------------------------------

    def _space(self, hook: str, space: Any) -> Any:
        if space is not FAILED and not isinstance(space, spaces.Space):
            self.report.add(hook, "all", "kind", f"is {_described(space)}, expected a gymnasium.spaces.Space")
            return FAILED
        return space

    def play(self, seed: int, steps: int) -> None:
        if not self.ready:  # nothing runs without the spaces, the draws and the state
            return
        d, r, rows = self.d, self.report, self.rows
        rng = np.random.default_rng(seed)
        sampler = copy.deepcopy(self.action_space)  # seeded here: the definition's space is left as it was
        sampler.seed(seed)
        u = rng.random((rows, self.start_draws))
        state = self._numpy_start(u)
        want = {"state": FAILED} if state is FAILED else self._numpy_outputs(state)
        scale = np.ones(rows) if state is FAILED else _row_scale(rows, state)
        if self.scalar:
            self._scalar(want, None, None, u, scale)
        elif state is not FAILED:
            self._render(row_of(state, 0))
        if self.jax is not None:
            self._jax(None, None, u)
        if state is FAILED:
            return
        ended = np.zeros(rows, dtype=bool)
        for _ in range(steps):
            if ended.any():  # those rows start afresh (on draws of their own)
                fresh = self._numpy_start(rng.random((rows, self.start_draws)))
                if fresh is FAILED:
                    return
                fresh = _broadcast(fresh, rows)
                state = self.State(*(np.where(ended, f, q) for f, q in zip(fresh, state)))
            raw_actions = np.array([sampler.sample() for _ in range(rows)])
            try:
                actions = check_actions(raw_actions, rows, self.action_space)
            except Exception as exc:
                r.add("check_actions", "numpy", "raised", _exception_text(exc))
                return
            u = rng.random((rows, d.step_draws))
            draws = _uniforms(u)
            next_state = r.call("transition", "numpy", d.transition, state, actions, draws, self.params, NUMPY)
            failed = next_state is FAILED or not _check_state(r, "transition", "numpy", next_state, self.State, rows)
            if failed:  # the other backends still take this step; the episodes end here
                want, scale = {"state": FAILED}, _row_scale(rows, state)
            else:
                self._kinds("transition", "numpy", next_state)
                want = self._numpy_outputs(next_state, state, actions)
                scale = _row_scale(rows, state, next_state)
            if self.scalar:
                self._scalar(want, state, raw_actions, u, scale)
            if self.jax is not None:
                self._jax(state, raw_actions, u)
            if failed:
                return
            ended = _ended(want, rows)
            state = _broadcast(next_state, rows)


def _uniforms(u: np.ndarray) -> Any:
    """The draws ``(rows, count)`` as the vector shell gives them to the rules: ``(count, rows)``."""
    return u.T if u.shape[1] else ()


def _broadcast(state: Any, rows: int) -> Any:
    return type(state)(*(np.array(np.broadcast_to(q, (rows,))) for q in state))


def _ended(out: dict[str, Any], rows: int) -> np.ndarray:
    ended = np.zeros(rows, dtype=bool)
    for flag in ("terminal", "truncation"):
        try:
            ended |= np.broadcast_to(np.asarray(out.get(flag, False), dtype=bool), (rows,))
        except Exception:  # reported already
            pass
    return ended


# --------------------------------------------------------------------------------------------
# The arguments: each declared one, tried with odd values
# --------------------------------------------------------------------------------------------


def _check_arguments(d: Definition[Any, Any], base: Any, params: Any, owner: str, report: _Report) -> None:
    """Each name of ``d.arguments`` is a field of the parameters, and each odd value of it is
    refused with a documented error naming it, or accepted and run (:func:`_try_argument`).
    ``params`` are those made from ``base``: when a start and a step on them break already, the
    episodes report it, and the values are not tried."""
    fields = [f.name for f in dataclasses.fields(base)] if dataclasses.is_dataclass(base) else []
    names = []
    for name in d.arguments:
        if isinstance(name, str) and hasattr(base, name):
            names.append(name)
            continue
        report.add(
            "arguments",
            "all",
            "not a parameter",
            f"{shown(name)} is declared in arguments, but {type(base).__name__} has no field of that name "
            f"(its fields: {', '.join(fields)})",
            shown(name),
        )
    for name in d.data_parameters:
        value = getattr(params, name, None) if isinstance(name, str) else None
        if name in names and isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
            continue
        report.add(
            "data_parameters",
            "all",
            "not data",
            f"{shown(name)} is declared in data_parameters, but it is not a declared argument holding a number "
            f"(the arguments: {', '.join(map(str, d.arguments)) or 'none'})",
            shown(name),
        )
    if _first_steps(d, params) is not None:
        return
    for name in names:
        for value in argument_values(getattr(base, name)):
            _try_argument(d, base, owner, name, value, report)


def _first_steps(d: Definition[Any, Any], params: Any) -> tuple[str, str] | None:
    """The spaces, a start and a first step (the heuristic's action) on Python numbers: ``None``
    when they run, with the observations in their space and a finite reward; else the hook and
    what went wrong."""
    hook = "spaces"
    try:
        observation_space, action_space = d.spaces(params)
        hook = "start_draws"
        start_draws = draws_at_start(d, params)
        hook = "initial"
        state = d.initial((0.5,) * start_draws, params, SCALAR)
        hook = "observation"
        observation = d.observation(state, params, SCALAR)
        hook = "heuristic"
        action = check_action(d.heuristic(observation, params, SCALAR), action_space)
        hook = "transition"
        next_state = d.transition(state, action, (0.5,) * d.step_draws, params, SCALAR)
        hook = "reward"
        reward = float(d.reward(state, action, next_state, params, SCALAR))
        hook = "observation"
        next_observation = d.observation(next_state, params, SCALAR)
        in_space = all(observation_space.contains(o) for o in (observation, next_observation))
    except Exception as exc:
        return hook, f"{hook} raised {_exception_text(exc)}"
    if not math.isfinite(reward):
        return "reward", f"the first reward is {reward!r}"
    if not in_space:
        return "observation", f"an observation is outside {observation_space}"
    return None


def _try_argument(d: Definition[Any, Any], base: Any, owner: str, name: str, value: Any, report: _Report) -> None:
    """``make_params`` with ``name=value``: refused with a documented error naming the argument,
    or accepted, and then the first steps run (:func:`_first_steps`)."""
    given = f"{name}={_value_text(value)}"
    try:
        params = d.make_params(base, owner, **{name: value})
    except ARGUMENT_ERRORS as exc:
        text = str(exc)
        if not any(isinstance(n, str) and n in text for n in (name, *d.arguments)):  # a relation names the other
            report.add(
                "make_params",
                "all",
                "argument",
                f"{given} was refused by {_exception_text(exc)}, which does not name {name!r}",
                f"{name} unnamed",
            )
        elif len(text) > MESSAGE_LIMIT:
            report.add(
                "make_params", "all", "argument", f"{given}: a message of {len(text)} characters", f"{name} long"
            )
        return
    except Exception as exc:  # a contributor's check may raise anything: report it
        report.add(
            "make_params",
            "all",
            "argument",
            f"{given} raised {_exception_text(exc)}; expected a ValueError or TypeError naming {name!r}",
            f"{name} {type(exc).__name__}",
        )
        return
    broken = _first_steps(d, params)
    if broken is not None:
        hook, what = broken
        report.add(
            hook, "scalar", "argument", f"{given} was accepted by make_params, then {what}", name
        )  # one per hook


def _value_text(value: Any) -> str:
    """A tried value as a message shows it: ``10**1000`` rather than its thousand digits."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        sign = "-" if value < 0 else ""
        power = len(str(abs(value))) - 1
        return f"{sign}10**{power}" if abs(value) == 10**power else f"{sign}2**{abs(value).bit_length() - 1}"
    return shown(value)
