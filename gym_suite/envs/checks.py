"""Checks of arguments, seeds, options and actions, shared by every shell.

Every message names the argument and what is allowed, and stays short whatever the input (a
``ValueError`` for a bad value, a ``TypeError`` for a bad kind or an unknown argument).
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Callable, Collection, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
from gymnasium import spaces

if TYPE_CHECKING:
    import numpy.typing as npt

MAX_SHOWN = 80  # characters of an offending value shown in a message


class ArgumentTypeError(TypeError):
    """A ``TypeError`` whose message stays short: ``gymnasium.make`` re-raises an environment's
    ``TypeError`` with every keyword argument appended (a DataFrame's whole repr among them); this
    keeps that tail to a few dozen characters."""

    def __init__(self, message: object = ""):
        text = str(message)
        head, sep, tail = text.partition(" was raised from the environment creator for ")
        if sep and len(text) > 600:
            text = head + sep + tail[:MAX_SHOWN] + "...)"
        super().__init__(text)


def shown(value: object) -> str:
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


_TRACER_ERRORS = ("TracerBoolConversionError", "ConcretizationTypeError", "TracerIntegerConversionError")


def _exception_text(exc: BaseException) -> str:
    """An exception as a message shows it: its kind and first line (a hint for JAX's tracer errors)."""
    text = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
    if type(exc).__name__ in _TRACER_ERRORS:
        text += " (a Python if, bool(), int() or float() on data: use ops.where or arithmetic)"
    return text if len(text) <= 300 else text[:297] + "..."


def wrong_arity(function: object, count: int) -> str | None:
    """``None`` where ``function`` can be called with ``count`` positional arguments (or has no
    signature to read, as some builtins); else the end of a message saying what it takes."""
    try:
        inspect.signature(function).bind(*[None] * count)  # type: ignore[arg-type]
    except TypeError:  # not callable, or taking another count of arguments
        return f", which takes {inspect.signature(function)}" if callable(function) else ""
    except ValueError:  # no signature to read: taken as it is
        pass
    return None


def shown_path(path: str) -> str:
    """``repr(path)``; a path of more than 300 characters cut in the middle, so its file name shows."""
    return repr(path) if len(path) <= 300 else repr(path[:120]) + "..." + repr(path[-120:])


def check_render_mode(owner: str, render_mode: str | None, render_modes: Collection[str]) -> str | None:
    """``render_mode``: ``None`` or one of ``render_modes`` (``ValueError`` naming them otherwise)."""
    if render_mode is not None and render_mode not in render_modes:
        raise ValueError(
            f"{owner}: render_mode={shown(render_mode)} is not supported; choose one of {list(render_modes)} or None"
        )
    return render_mode


@overload
def check_int(
    owner: str, name: str, value: object, minimum: int | None = None, allow_none: Literal[False] = False
) -> int: ...


@overload
def check_int(owner: str, name: str, value: object, minimum: int | None = None, *, allow_none: bool) -> int | None: ...


def check_int(owner: str, name: str, value: object, minimum: int | None = None, allow_none: bool = False) -> int | None:
    """An integer argument (``bool`` excluded), optionally bounded below."""
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ArgumentTypeError(f"{owner}: {name} must be an integer, got {shown(value)}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{owner}: {name} must be >= {minimum}, got {shown(value)}")
    return int(value)


def check_number(owner: str, name: str, value: object, low: float = -math.inf, high: float = math.inf) -> float:
    """A finite real argument within ``[low, high]``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ArgumentTypeError(f"{owner}: {name} must be a number, got {shown(value)}")
    try:
        number = float(value)
    except OverflowError:  # an int past the largest float: out of range, as infinity is
        raise ValueError(
            f"{owner}: {name} must be a finite number in [{low}, {high}], got an integer of magnitude at least "
            f"2**{abs(int(value)).bit_length() - 1}"
        ) from None
    if not (math.isfinite(number) and low <= number <= high):
        raise ValueError(f"{owner}: {name} must be a finite number in [{low}, {high}], got {shown(value)}")
    return number


def check_seed(owner: str, seed: object) -> int | None:
    """``None`` or a non-negative integer, as ``reset(seed=...)`` takes."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ArgumentTypeError(f"{owner}.reset: seed must be None or a non-negative integer, got {shown(seed)}")
    if seed < 0:
        raise ValueError(f"{owner}.reset: seed must be None or a non-negative integer, got {shown(seed)}")
    return int(seed)


def check_vector_seeds(
    owner: str, seed: object, num_envs: int, check: Callable[[str, object], int | None] = check_seed
) -> tuple[list[int | None], list[Any]]:
    """A vector env's ``seed``: ``None``, one seed, or a list of ``num_envs`` of them (``None``
    entries allowed), each checked by ``check``. Returns the seeds and the entropy that folds them
    into one generator (a fresh entropy for a ``None`` entry); one seed is a list of one."""
    if seed is None or isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        return [check(owner, seed)], []
    if not isinstance(seed, (list, tuple, np.ndarray)) or isinstance(seed, np.ndarray) and seed.ndim != 1:
        raise ArgumentTypeError(
            f"{owner}.reset: seed must be None, a non-negative integer or a list of {num_envs} "
            f"of them (None entries allowed), got {shown(seed)}"
        )
    if len(seed) != num_envs:
        raise ValueError(f"{owner}.reset: expected {num_envs} seeds, got {len(seed)}")
    seeds = [check(owner, s) for s in seed]
    return seeds, [np.random.SeedSequence().entropy if s is None else s for s in seeds]


def check_env_kwargs(prefix: str, env_kwargs: object, allow_none: bool = False) -> dict[str, Any] | None:
    """``env_kwargs`` (an environment's keyword arguments, as ``evaluate`` and ``train_ppo`` take them)
    as a dict with str keys; ``prefix`` starts the message (``"train_ppo: "``)."""
    if env_kwargs is None and allow_none:
        return None
    if not isinstance(env_kwargs, Mapping):
        allowed = "None or a dict" if allow_none else "a dict"
        raise TypeError(f"{prefix}env_kwargs must be {allowed} of the environment's arguments, got {shown(env_kwargs)}")
    odd = [key for key in env_kwargs if not isinstance(key, str)]
    if odd:
        raise TypeError(f"{prefix}env_kwargs must have the arguments' names (str) as keys, got {shown(odd[0])}")
    return dict(env_kwargs)


def check_options(owner: str, options: object, allowed: Collection[str] = ()) -> None:
    """``reset``'s ``options``: ``None`` or a dict whose keys are among ``allowed`` (``TypeError`` for
    another kind, ``ValueError`` naming the unknown keys and the allowed ones)."""
    if options is None:
        return
    if not isinstance(options, Mapping):
        raise ArgumentTypeError(f"{owner}.reset: options must be None or a dict, got {shown(options)}")
    unknown = sorted(str(k) for k in options if k not in allowed)
    if unknown:
        raise ValueError(
            f"{owner}.reset got unknown option(s) {shown(unknown)}; allowed options are {sorted(allowed) or 'none'}"
        )


def check_discrete_action(action: Any, n: int) -> int:
    """Return ``action`` as an ``int`` in ``range(n)`` or raise ``ValueError``/``TypeError``."""
    if action.__class__ is int and 0 <= action < n:  # the fast path: a plain int in range
        return action
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ArgumentTypeError(
            f"invalid action {shown(action)} of type {type(action).__name__}: "
            f"expected an integer in 0..{n - 1} (Discrete({n}))"
        )
    if not 0 <= action < n:
        raise ValueError(f"invalid action {shown(action)}: expected an integer in 0..{n - 1} (Discrete({n}))")
    return int(action)


def as_batch(actions: object, num_envs: int, shape: tuple[int, ...], kinds: str, what: str) -> npt.NDArray[Any]:
    """``actions`` as an array of shape ``(num_envs, *shape)`` with a dtype kind in ``kinds``."""
    expected = (num_envs, *shape)
    try:
        arr = np.asarray(actions)
    except (ValueError, TypeError):  # a ragged batch
        raise ValueError(f"invalid actions: expected {what} of shape {expected}, got a ragged sequence") from None
    if arr.dtype.kind not in kinds:
        raise ArgumentTypeError(f"invalid actions of dtype {arr.dtype}: expected {what} of shape {expected}")
    if arr.shape != expected:
        raise ValueError(f"invalid actions of shape {arr.shape}: expected {what} of shape {expected}")
    return arr


_INT64 = np.dtype(np.int64)
_UINT64 = np.dtype(np.uint64)
_maximum: Any = np.maximum.reduce


def check_discrete_actions(actions: object, num_envs: int, n: int, copy: bool = False) -> npt.NDArray[np.int64]:
    """A batch of ``num_envs`` actions from ``Discrete(n)``, as an int64 array (a new one if ``copy``)."""
    if actions.__class__ is np.ndarray and actions.dtype == _INT64 and actions.shape == (num_envs,) and num_envs:
        # the common case (what the batched space samples) in one pass, without as_batch's steps:
        # a negative value read as unsigned is 2**63 or more
        if _maximum(actions.view(_UINT64)) < n:
            return actions.copy() if copy else actions
    arr = as_batch(actions, num_envs, (), "iu", f"an integer array with values in 0..{n - 1}")
    if num_envs and (arr.min() < 0 or arr.max() >= n):
        bad = int(np.flatnonzero((arr < 0) | (arr >= n))[0])
        raise ValueError(
            f"invalid action {arr[bad].item()!r} for sub-environment {bad}: expected values in 0..{n - 1} (Discrete({n}))"
        )
    return arr.astype(np.int64, copy=copy)


def check_box_action(action: Any, shape: tuple[int, ...]) -> tuple[float, ...]:
    """A ``Box`` action of shape ``(k,)`` as ``k`` finite Python floats, or ``ValueError`` / ``TypeError``
    (the bounds are the rules' to apply: a point outside is not an error)."""
    if action.__class__ is np.ndarray and action.shape == shape and action.dtype.kind == "f":  # fast path
        values = action.tolist()
        for value in values:
            if value - value != 0.0:  # NaN or an infinity (0.0 for every finite float)
                break
        else:
            return tuple(values)
    else:
        try:
            arr = np.asarray(action)
        except (ValueError, TypeError):  # a ragged sequence
            raise ValueError(f"invalid action {shown(action)}: expected shape {shape}") from None
        if arr.dtype.kind not in "fiu":
            raise ArgumentTypeError(
                f"invalid action {shown(action)} of type {type(action).__name__}: expected a float array of shape "
                f"{shape} or a sequence of {shape[0]} numbers"
            )
        if arr.shape != shape:
            raise ValueError(f"invalid action of shape {arr.shape}: expected shape {shape}; got {shown(action)}")
        values = arr.astype(np.float64).tolist()
    if all(map(math.isfinite, values)):
        return tuple(values)
    raise ValueError(f"invalid action {shown(action)}: every coordinate must be finite (no NaN or infinity)")


def check_box_actions(actions: object, num_envs: int, shape: tuple[int, ...]) -> npt.NDArray[np.float64]:
    """A batch of ``num_envs`` ``Box`` actions of shape ``(k,)`` as a fresh float64 array of shape
    ``(k, num_envs)``: ``x, y = actions`` gives a row per coordinate."""
    arr = as_batch(actions, num_envs, shape, "fiu", "a float array").astype(np.float64)
    if not np.isfinite(arr).all():  # (one pass over the batch; the rows only on failure)
        bad = int(np.flatnonzero(~np.isfinite(arr).all(axis=1))[0])
        raise ValueError(
            f"invalid action {arr[bad].tolist()} for sub-environment {bad}: "
            "every coordinate must be finite (no NaN or infinity)"
        )
    return np.ascontiguousarray(arr.T)


def check_action(action: Any, space: spaces.Space[Any]) -> Any:
    """One action of ``space`` in the form the rules take: an ``int`` (``Discrete``) or a tuple of
    floats (``Box`` of shape ``(k,)``); ``ValueError`` / ``TypeError`` naming what is allowed."""
    if isinstance(space, spaces.Discrete):
        return check_discrete_action(action, int(space.n))
    if isinstance(space, spaces.Box) and len(space.shape) == 1:
        return check_box_action(action, space.shape)
    raise NotImplementedError(f"actions of {shown(space)}: the suite's shells take Discrete and Box of shape (k,)")


def check_actions(actions: Any, num_envs: int, space: spaces.Space[Any]) -> Any:
    """A batch of actions of ``space`` for the rules: a fresh int64 array (``Discrete``) or a
    float64 array of shape ``(k, num_envs)`` (``Box``)."""
    if isinstance(space, spaces.Discrete):
        return check_discrete_actions(actions, num_envs, int(space.n), copy=True)
    if isinstance(space, spaces.Box) and len(space.shape) == 1:
        return check_box_actions(actions, num_envs, space.shape)
    raise NotImplementedError(f"actions of {shown(space)}: the suite's shells take Discrete and Box of shape (k,)")


# Arguments: declared once, in the environment's typed keyword signature --------------------------

_LIMIT_HINT = (
    "; the step limit is not an argument of the environment: pass it to gymnasium.make(id, max_episode_steps=N) "
    "(or to gymnasium.make_vec, or wrap the env in gymnasium.wrappers.TimeLimit)"
)

#: Arguments of the tutorials the environments come from, by their names in the suite: the step
#: limit (``env_config={"max_steps": ...}`` of the RLlib custom-env tutorials) and the side of
#: the target tutorial's square field (its ``resolution``, target-v0's ``size``). The message
#: names the suite's argument when the environment takes it; ``max_steps`` given to a scalar
#: env gets the step-limit hint (the limit belongs to ``gymnasium.make``).
_RENAMED_ARGUMENTS = {"max_steps": "max_episode_steps", "resolution": "size"}


def merge_arguments(
    owner: str, allowed: Collection[str], env_config: object, kwargs: Mapping[str, Any]
) -> dict[str, Any]:
    """``env_config`` (a dict, as Ray RLlib passes it) and keyword arguments, keywords winning; an
    unknown name raises ``TypeError`` naming the allowed ones."""
    if env_config is not None and not isinstance(env_config, Mapping):
        raise ArgumentTypeError(
            f"{owner}: the positional argument is env_config, a dict of the keyword arguments "
            f"{sorted(allowed)}; got {type(env_config).__name__}"
        )
    merged: dict[str, Any] = {**(env_config if isinstance(env_config, Mapping) else {}), **kwargs}
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
        # Python's own words (wrappers such as TorchRL's GymEnv look for them), then the allowed ones
        got = f"an unexpected keyword argument {shown(unknown[0])}"
        if len(unknown) > 1:
            got = "unexpected keyword arguments " + ", ".join(map(shown, unknown))
        raise ArgumentTypeError(f"{owner}.__init__() got {got}; allowed arguments are {sorted(allowed)}{hint}")
    return merged


# Arguments declared as data: one declaration checks the value and writes the manual's table ------

#: A bound that another argument sets: ``"lf_min + 2"`` is the value of ``lf_min`` plus 2.
_RELATIVE_BOUND = re.compile(r"^([A-Za-z_]\w*)\s*([+-])\s*(\d+)$|^([A-Za-z_]\w*)$")


class Argument(str):
    """An argument a user may set, declared once: its name (the ``str`` itself, so a declaration
    is a name wherever one is wanted), its kind, bounds and meaning.

    ``kind`` is ``int`` (an integer, ``bool`` excluded), ``float`` (a finite real number), ``bool``
    (``True`` or ``False``) or ``object`` (anything: the definition's ``make_params`` checks it).
    ``low`` and ``high`` bound it, both included; a bound may name an argument declared before it
    (``low="lf_min + 2"``). ``none`` admits ``None``. ``meaning`` is the manual's one line;
    ``allowed`` says what is allowed where the kind and bounds do not say it all (the manual's
    table shows it instead of the bounds). The default is the parameter set's value.
    """

    kind: type
    low: float | str | None
    high: float | str | None
    none: bool
    meaning: str
    allowed: str

    def __new__(
        cls,
        name: str,
        kind: type = object,
        meaning: str = "",
        *,
        low: float | str | None = None,
        high: float | str | None = None,
        none: bool = False,
        allowed: str = "",
    ) -> Argument:
        if kind not in (int, float, bool, object):
            raise TypeError(f"Argument {name!r}: kind must be int, float, bool or object, got {shown(kind)}")
        self = super().__new__(cls, name)
        self.kind, self.low, self.high, self.none, self.meaning, self.allowed = kind, low, high, none, meaning, allowed
        return self

    def bound(self, bound: float | str | None, values: Mapping[str, Any]) -> Any:
        """A bound's value: a number as it is, ``"name + k"`` from the arguments' ``values``."""
        if not isinstance(bound, str):
            return bound
        match = _RELATIVE_BOUND.match(bound)
        if match is None:
            raise ValueError(f"Argument {str(self)!r}: a bound must be a number or 'name + k', got {bound!r}")
        name, sign, k, alone = match.groups()
        if alone:
            return values[alone]
        return values[name] + int(k) if sign == "+" else values[name] - int(k)

    def check(self, owner: str, value: object, values: Mapping[str, Any] = MappingProxyType({})) -> Any:
        """``value`` checked (``TypeError`` / ``ValueError`` naming the argument and what is
        allowed); ``values`` holds the arguments declared before, for a bound that names one."""
        name = str(self)
        if value is None and self.none or self.kind is object:
            return value
        low, high = self.bound(self.low, values), self.bound(self.high, values)
        if self.kind is bool:
            if not isinstance(value, (bool, np.bool_)):
                raise ArgumentTypeError(f"{owner}: {name} must be True or False, got {shown(value)}")
            return bool(value)
        if self.kind is float:
            return check_number(
                owner, name, value, -math.inf if low is None else low, math.inf if high is None else high
            )
        number = check_int(owner, name, value, low)
        if high is not None and number > high:
            raise ValueError(
                f"{owner}: {name} must be an integer in {low if low is not None else ''}..{high}"
                f"{' or None' if self.none else ''}, got {number if number < 10**20 else f'about 2**{number.bit_length() - 1}'}"
            )
        return number

    def allowed_text(self) -> str:
        """What the manual's table says is allowed."""
        if self.allowed:
            return self.allowed
        low, high = (_bound_text(b) for b in (self.low, self.high))
        if self.kind is bool:
            text = "`True` or `False`"
        elif self.kind is int:
            text = f"an integer in {low}..{high}" if high else f"an integer >= {low}" if low else "an integer"
        elif self.kind is float:
            text = f"a number in [{low or '-inf'}, {high or 'inf'}]" if low or high else "a number"
        else:
            text = "any"
        return text + (", or `None`" if self.none else "")


def _bound_text(bound: float | str | None) -> str:
    """A bound as the manual shows it: ``10^12 - 2``, ``2^24``, ``lf_min + 2``, ``0.5``."""
    if bound is None or isinstance(bound, str):
        return bound or ""
    if isinstance(bound, int) and abs(bound) >= 10**6:
        for base in (10, 2):
            power = round(math.log(abs(bound), base))
            rest = bound - base**power
            if abs(rest) < 100:
                return f"{base}^{power}" + (f" + {rest}" if rest > 0 else f" - {-rest}" if rest else "")
    return f"{bound:g}" if isinstance(bound, float) else str(bound)


def check_arguments(declared: Collection[str], base: Any, owner: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Every declared argument's value, checked by its declaration in the order declared: the
    constructor's where given, else the parameter set ``base``'s (a bound may name an argument
    declared before it, so a default is checked against the others' values too)."""
    values: dict[str, Any] = {}
    for argument in declared:
        name = str(argument)
        value = arguments[name] if name in arguments else getattr(base, name)
        values[name] = argument.check(owner, value, values) if isinstance(argument, Argument) else value
    return values


def arguments_table(declared: Collection[str], base: Any, render_modes: Collection[str], human: str) -> str:
    """The manual's Arguments table, from the declarations and the parameter set ``base``."""
    lines = ["| Argument | Default | Allowed | Meaning |", "|---|---|---|---|"]
    for argument in declared:
        default = getattr(base, str(argument))
        shown_default = f"`{default!r}`" if isinstance(default, str) else str(default)
        if isinstance(default, int) and not isinstance(default, bool):
            shown_default = _bound_text(default)
        if isinstance(argument, Argument):
            lines.append(f"| `{argument}` | {shown_default} | {argument.allowed_text()} | {argument.meaning} |")
        else:
            lines.append(f"| `{argument}` | {shown_default} | | |")
    modes = ", ".join(f'`"{mode}"`' for mode in render_modes)
    shows = "prints the text" if human == "ansi" else "shows the picture in a pygame window (`gym-suite[render]`)"
    lines.append(f'| `render_mode` | None | {modes}, or `None` | what `render()` gives; `"human"` {shows} |')
    return "\n".join(lines)


# Values in a space: what check_definition finds in a hook's value --------------------------------

_KINDS = {"b": "bool", "i": "int", "u": "int", "f": "float"}
_SCALAR_KINDS = (((bool, np.bool_), "bool"), ((int, np.integer), "int"), ((float, np.floating), "float"))
_Found = list[tuple[str, str]]  # (problem, message) of each way a value is not in its space
_FAILED: Any = object()  # what a hook that raised gives: the checks that need its value are skipped


def _asarray(value: Any) -> np.ndarray:
    try:
        return np.asarray(value)
    except Exception:
        return np.asarray(None)


def _kind(value: Any, batch: bool) -> str | None:
    """``"bool"``, ``"int"`` or ``"float"``: a Python number's kind, or an array's for a batch."""
    if batch:
        return _KINDS.get(_asarray(value).dtype.kind)
    return next((name for types, name in _SCALAR_KINDS if isinstance(value, types)), None)


def _described(value: Any) -> str:
    if isinstance(value, np.ndarray) or hasattr(value, "dtype") and hasattr(value, "shape"):
        return f"{shown(np.asarray(value))} (dtype {value.dtype}, shape {tuple(value.shape)})"
    return f"{shown(value)} ({type(value).__name__})"


def _first_bad(array: np.ndarray, bad: np.ndarray, batch: bool = False) -> str:
    """The first value where ``bad`` holds, and where it is (its row first, for a batch)."""
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    value, rest = repr(array[index].item()), index[batch:]
    at = rest[0] if len(rest) == 1 else rest
    if not index:
        return value
    return f"{value} in row {index[0]}" + (f", index {at}" if rest else "") if batch else f"{value} at index {at}"


def _in_dict(space: Any, value: Any, rows: int | None, path: str, float_dtype: Any) -> _Found:
    if not isinstance(value, Mapping):
        return [("kind", f"{path} is {_described(value)}, expected a dict with keys {list(space.spaces)}")]
    if set(value) != set(space.spaces):
        return [("out of space", f"{path} has keys {sorted(map(str, value))}, the space {list(space.spaces)}")]
    items = space.spaces.items()
    return [f for key, sub in items for f in _check_in_space(sub, value[key], rows, f"{path}[{key!r}]", float_dtype)]


def _in_discrete(space: Any, value: Any, rows: int | None, path: str, float_dtype: Any) -> _Found:
    start, n, batch, array = int(space.start), int(space.n), rows is not None, _asarray(value)
    allowed = f"an integer in {start}..{start + n - 1} (Discrete({n}{f', start={start}' if start else ''}))"
    if array.dtype.kind not in "iu" or isinstance(value, (bool, np.bool_)):
        if array.dtype.kind == "f" and np.isnan(array).any():
            where = "" if array.ndim == 0 else f" ({_first_bad(array, np.isnan(array), batch)})"
            return [("nan", f"{path} holds nan{where}, expected {allowed}")]
        return [("dtype", f"{path} is {_described(value)}, expected {allowed}{' per row' * batch}")]
    if array.shape != (rows,) * batch:
        return [("shape", f"{path} has shape {array.shape}, expected {(rows,) * batch}")]
    return _outside(path, array, (array < start) | (array >= start + n), batch, allowed)


def _outside(path: str, array: np.ndarray, outside: np.ndarray, batch: bool, allowed: str) -> _Found:
    if not outside.any():
        return []
    return [("out of space", f"{path} holds {_first_bad(array, outside, batch)}, outside {allowed}")]


def _in_box(space: Any, value: Any, rows: int | None, path: str, float_dtype: Any) -> _Found:
    if not (isinstance(value, np.ndarray) or rows is not None and hasattr(value, "dtype")):
        return [("kind", f"{path} is {_described(value)}, expected a numpy array ({space})")]
    array, expected, batch = np.asarray(value), np.dtype(space.dtype), rows is not None
    if float_dtype is not None and expected.kind == "f" and expected.itemsize > np.dtype(float_dtype).itemsize:
        expected = np.dtype(float_dtype)  # JAX without 64-bit mode holds float32
    found = [("dtype", f"{path} has dtype {array.dtype} where the space declares {expected}")]
    found *= array.dtype != expected
    shape = (rows,) * batch + tuple(space.shape)
    if array.shape != shape:
        return [*found, ("shape", f"{path} has shape {array.shape}, expected {shape}")]
    if array.dtype.kind not in "biuf":
        return found
    nan = np.isnan(array) if array.dtype.kind == "f" else np.zeros(array.shape, bool)
    if nan.any():
        found.append(("nan", f"{path} holds nan ({_first_bad(array, nan, batch)})"))
    low, high = (shown(b.item()) if b.size == 1 else shown(b) for b in (np.unique(space.low), np.unique(space.high)))
    return found + _outside(path, array, ~nan & ((array < space.low) | (array > space.high)), batch, f"[{low}, {high}]")


def _in_other(space: Any, value: Any, rows: int | None, path: str, float_dtype: Any) -> _Found:
    """Gymnasium's ``space.contains``, on each row of a batch."""
    for i, item in enumerate([value] if rows is None else [_row(value, i) for i in range(rows)]):
        try:
            inside = space.contains(item)
        except Exception:
            inside = False
        if not inside:
            where = "" if rows is None else f" (row {i})"
            return [("out of space", f"{path} is {_described(item)}{where}, not in {space}")]
    return []


_SPACE_CHECKS = ((spaces.Dict, _in_dict), (spaces.Discrete, _in_discrete), (spaces.Box, _in_box))


def _check_in_space(space: Any, value: Any, rows: int | None, path: str, float_dtype: Any = None) -> _Found:
    """``(problem, message)`` for each way ``value`` is not in ``space`` (a batch when ``rows`` is given)."""
    check = next((check for kind, check in _SPACE_CHECKS if isinstance(space, kind)), _in_other)
    return check(space, value, rows, path, float_dtype)


def _row(value: Any, i: int) -> Any:
    """Row ``i`` of a batch of values (a dict of them for a ``Dict`` space); ``_FAILED`` if it has none."""
    if value is _FAILED:
        return _FAILED
    if isinstance(value, Mapping):
        found = {key: _row(v, i) for key, v in value.items()}
        return _FAILED if any(v is _FAILED for v in found.values()) else found
    try:
        array = np.asarray(value)
        return array[i] if array.ndim else array  # one value for every row (its shape is checked apart)
    except Exception:  # of the wrong shape: reported by numpy's checks
        return _FAILED


def _column(value: Any, rows: int) -> np.ndarray | None:
    """``value`` as one value per row, or ``None`` (missing, or of the wrong shape: reported apart)."""
    try:
        return None if value is _FAILED else np.broadcast_to(np.asarray(value), (rows,))
    except Exception:
        return None


def _quantity_problem(hook: str, quantity: Any, rows: int | None) -> tuple[str, str] | None:
    """What is wrong with one quantity of a state (at the start, a plain value stands for every row)."""
    if rows is None:
        if _kind(quantity, False) is None:
            return "kind", f"is {_described(quantity)}: one environment's quantities are Python numbers or bools"
        return None
    if _kind(quantity, True) is None:
        return "kind", f"is {_described(quantity)}, not numbers or flags"
    shape = np.shape(quantity)
    if shape != (rows,) and (hook != "initial" or shape != ()):
        plain = " (a plain value stands for every row at the start only)" if shape == () else ""
        return "shape", f"has shape {shape}, expected ({rows},){plain}"
    return None


def _column_found(hook: str, value: Any, rows: int | None) -> _Found:
    """A reward (a finite number, one per row) or a flag (``terminal`` / ``truncation``: a bool, one per row)."""
    flag = hook != "reward"
    problem, expected = (
        ("not boolean", ("True or False", "a bool array")) if flag else ("kind", ("a number", "numbers"))
    )
    if rows is None:
        if not (isinstance(value, (bool, np.bool_)) if flag else _kind(value, False) in ("int", "float")):
            return [(problem, f"returned {_described(value)}, expected {expected[0]}")]
        return [("not finite", f"returned {value!r}")] if not flag and not math.isfinite(value) else []
    array = np.asarray(value)
    if array.dtype != np.bool_ if flag else array.dtype.kind not in "iuf":
        return [(problem, f"returned {_described(value)}, expected {expected[1]}")]
    if array.shape not in ((), (rows,)):
        return [("shape", f"returned shape {array.shape}, expected ({rows},)")]
    if not flag and not np.isfinite(array).all():
        return [("not finite", f"returned {_first_bad(array, ~np.isfinite(array), True)}")]
    return []


def _info_found(info: Any, rows: int | None) -> list[tuple[str, ...]]:
    """An info: a dict, of one value per row for a batch (``(problem, message, key)`` for each value that is not)."""
    if not isinstance(info, dict):
        return [("not a dict", f"returned {_described(info)}, expected a dict")]
    bad = [(k, v) for k, v in info.items() if rows is not None and _column(v, rows) is None]
    return [("shape", f"info[{k!r}] is {_described(v)}, expected one value per row", k) for k, v in bad]


def _row_scale(rows: int, *states: Any) -> np.ndarray:
    """Per row: 1 + the largest finite magnitude of the float quantities (the absolute tolerance)."""
    scale = np.ones(rows)
    for column in (_column(q, rows) for state in states for q in state):
        if column is not None and column.dtype.kind == "f":
            magnitude = np.abs(column.astype(np.float64))
            scale = np.maximum(scale, 1.0 + np.where(np.isfinite(magnitude), magnitude, 0.0))
    return scale


def _disagreement(got: Any, want: Any, rtol: float, scale: Any) -> str | None:
    """``None`` if ``got`` and ``want`` agree (floats within ``rtol * (|want| + scale)``), else the first difference."""
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
    return f"{g[index]!r} where numpy gives {w[index]!r}{f' (row {index[0]})' if index else ''}"
