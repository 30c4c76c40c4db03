"""``check_definition``: a contributor's :class:`~gym_suite.envs.definition.Definition`, checked
on every backend, as Gymnasium's ``check_env`` checks an env.

The shells trust the rules (a check per step would cost the speed they exist for). This checker
runs every hook on seeded random episodes on Python numbers (``SCALAR``), numpy arrays (``NUMPY``,
a batch of rows) and JAX (the rules vmapped over the rows under ``jit``), on the same states and
draws, and reports each violation by hook, backend and value.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from gym_suite._registry import find, load, rows
from gym_suite.envs.argument_values import ARGUMENT_ERRORS as ARGUMENT_ERRORS
from gym_suite.envs.argument_values import MESSAGE_LIMIT as MESSAGE_LIMIT
from gym_suite.envs.argument_values import _check_arguments
from gym_suite.envs.checks import _FAILED as FAILED
from gym_suite.envs.checks import (
    ArgumentTypeError,
    _check_in_space,
    _column,
    _column_found,
    _described,
    _disagreement,
    _exception_text,
    _info_found,
    _kind,
    _quantity_problem,
    _row,
    _row_scale,
    check_action,
    check_actions,
    check_int,
    shown,
)
from gym_suite.envs.definition import NUMPY, SCALAR, Definition, draws_at_start, jax_ops, row_of

__all__ = ["BACKENDS", "PROBLEMS", "DefinitionError", "Violation", "check_definition"]

#: The backends a definition runs on, in the order they are checked.
BACKENDS: tuple[str, ...] = ("scalar", "numpy", "jax")
#: Relative tolerance of the comparisons with numpy: Python floats, and JAX in 64-bit mode ...
RTOL = 1e-9
#: ... and JAX in 32 bits (float32 state and draws, from the same float32-rounded inputs).
RTOL_FLOAT32 = 1e-4


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


class DefinitionError(ValueError):
    """Raised by :func:`check_definition` on a broken promise: its message lists them, ``violations`` holds them."""

    def __init__(self, name: str, violations: Sequence[Violation]):
        self.violations = tuple(violations)
        count = len(self.violations)
        more = [f"... and {count - 40} more (DefinitionError.violations has them all)"] * (count > 40)
        lines = [str(v) for v in self.violations[:40]] + more
        super().__init__(f"check_definition({name}): {count} violation{'s' * (count != 1)}:\n  " + "\n  ".join(lines))


_Out = dict[str, Any]  # each hook's value after a start or a step, by name


class _Report:
    """The violations found, one per (hook, backend, problem, what), with the first value seen."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str, str, str], Violation] = {}

    def add(self, hook: str, backend: str, problem: str, message: str, what: str = "") -> None:
        seen = self.found.get(key := (hook, backend, problem, what), Violation(hook, backend, problem, message, 0))
        self.found[key] = dataclasses.replace(seen, count=seen.count + 1)

    def call(self, hook: str, backend: str, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)``, or :data:`FAILED` with a violation if it raises."""
        try:
            return fn(*args)
        except Exception as exc:  # a contributor's hook may raise anything: report it
            self.add(hook, backend, "raised", _exception_text(exc), "raised")
            return FAILED

    def on(self, backend: str) -> Callable[..., Any]:
        """``call`` on ``backend``: ``caller(hook, fn, *args)``."""
        return lambda hook, fn, *args: self.call(hook, backend, fn, *args)


def _compare(report: _Report, hook: str, backend: str, what: str, got: Any, want: Any, rtol: float, scale: Any) -> None:
    if isinstance(want, Mapping) and isinstance(got, Mapping):
        for key in (key for key in want if key in got):
            _compare(report, hook, backend, f"{what}[{key!r}]", got[key], want[key], rtol, scale)
    elif (difference := _disagreement(got, want, rtol, scale)) is not None:
        report.add(hook, backend, "disagree", f"{what}: {difference}", what)


def _registered(d: Definition[Any, Any]) -> Any:
    """The registry's row of ``d`` (``None`` for a definition of no row)."""
    return next((spec for spec in rows() if load(spec.definition) is d), None)


def _resolve(definition: Any, params: Any) -> tuple[Definition[Any, Any], Any, str, str]:
    """The definition, its parameter set, a name for messages and the owner ``make_params`` names (the env class)."""
    label = owner = None
    if isinstance(definition, str):
        name = definition.removeprefix("gym_suite:")
        if (spec := find(name)) is None:
            raise ValueError(f"check_definition: unknown id {definition!r}; the ids are {[s.id for s in rows()]}")
        definition, label, owner = load(spec.definition), name, spec.class_name
        params = load(spec.params) if params is None else params
    if isinstance(definition, type) and isinstance(getattr(definition, "definition", None), Definition):
        cls: Any = definition
        label, owner, definition = label or cls.__name__, cls.__name__, cls.definition
        params = cls.base_params if params is None else params
    if not isinstance(definition, Definition):
        raise ArgumentTypeError(
            "check_definition: definition must be a Definition instance, an env class (gym_suite.envs.HeartPoleEnv, "
            f"or one made by env_classes) or a registry id, got {shown(definition)}"
        )
    d: Definition[Any, Any] = definition
    kind = type(d).__name__
    spec = _registered(d)
    if params is None:
        if spec is None:
            message = f"params is required for {kind} (its parameters dataclass, e.g. MyParams())"
            raise ArgumentTypeError(f"check_definition: {message}: the definition is not in the registry")
        params, owner = load(spec.params), owner or spec.class_name
    expected = None if spec is None else type(load(spec.params))
    if expected is not None and not isinstance(params, expected):
        message = f"params must be the {expected.__name__} of {kind} (e.g. its id's, made by make_params)"
        raise ArgumentTypeError(f"check_definition: {message}, got {shown(params)}")
    if not dataclasses.is_dataclass(params) or isinstance(params, type):
        message = f"params must be the parameters of {kind}, an instance of its frozen parameters dataclass"
        raise ArgumentTypeError(f"check_definition: {message}, got {shown(params)}")
    return d, params, label or kind, owner or kind


def _declared(d: Definition[Any, Any], params: Any, report: _Report) -> list[Any]:
    """The spaces, the start's draws and ``State`` (``FAILED`` for each one that is broken)."""
    both = report.call("spaces", "all", d.spaces, params)
    if both is not FAILED and not (isinstance(both, tuple) and len(both) == 2):
        report.add("spaces", "all", "kind", f"returned {_described(both)}, expected (observation_space, action_space)")
        both = FAILED
    found = [FAILED, FAILED] if both is FAILED else list(both)
    for i, name in enumerate(("observation_space", "action_space")):
        if found[i] is not FAILED and not isinstance(found[i], spaces.Space):
            report.add(name, "all", "kind", f"is {_described(found[i])}, expected a gymnasium.spaces.Space")
            found[i] = FAILED
    found.append(report.call("start_draws", "all", draws_at_start, d, params))
    for name, count in (("start_draws", found[2]), ("step_draws", d.step_draws)):
        if count is not FAILED and (isinstance(count, bool) or not isinstance(count, int) or count < 0):
            report.add(name, "all", "kind", f"is {_described(count)}, expected a count of uniforms (an int >= 0)")
            found[2] = FAILED
    state = getattr(d, "State", None)
    if not (isinstance(state, type) and issubclass(state, tuple) and hasattr(state, "_fields")):
        report.add("State", "all", "not a state", f"is {_described(state)}, expected the state's NamedTuple")
        state = FAILED
    return [*found, state]


def _hooks(d: Any, params: Any, ops: Any, call: Callable[..., Any], state: Any, before: Any, action: Any) -> Any:
    """Every hook's value after a start (``before`` None) or a step, by ``call(hook, fn, *args)``; not those raising."""
    out = {"state": state}
    if before is None:
        out["state_info"] = call("info", d.info, None, None, state, params, ops)
    else:
        out["reward"] = call("reward", d.reward, before, action, state, params, ops)
        out["transition_info"] = call("info", d.info, before, action, state, params, ops)
    for flag in ("terminal", "truncation"):
        out[flag] = call(flag, getattr(d, flag), state, params, ops)
    out["observation"] = call("observation", d.observation, state, params, ops)
    if out["observation"] is not FAILED:
        out["heuristic"] = call("heuristic", d.heuristic, out["observation"], params, ops)
    return {key: value for key, value in out.items() if value is not FAILED}


# JAX: the rules vmapped over the rows, under jit ----------------------------------------------


class _Jax:
    """The hooks on ``jax.numpy``, a jitted and vmapped start and step returning every hook's value."""

    def __init__(self, definition: Definition[Any, Any], params: Any, rows: int, report: _Report):
        import jax

        from gym_suite.envs._device import device_params, float_dtype, numeric

        self.jax, self.jnp, self.numeric = jax, jax.numpy, numeric
        self.d, self.report, self.rows = definition, report, rows
        self.params, self.ops = device_params(params), jax_ops()
        self.float = float_dtype()
        self.x64 = self.float == np.float64
        self.discrete = isinstance(definition.spaces(params)[1], spaces.Discrete)
        self.start = jax.jit(jax.vmap(self._start, axis_size=rows))
        self.step = jax.jit(jax.vmap(self._step, axis_size=rows))

    def _call(self, hook: str, fn: Callable[..., Any], *args: Any) -> Any:
        value = self.report.call(hook, "jax", fn, *args)
        if value is FAILED:
            return FAILED
        if hook == "info":
            if not isinstance(value, dict):
                self.report.add(hook, "jax", "not a dict", f"returned {_described(value)}, expected a dict")
                return FAILED
            value = {k: v for k, v in value.items() if self.numeric(v)}  # names are left out, as the JAX envs do
        try:
            value = self.jax.tree.map(self.jnp.asarray, value)
        except Exception as exc:
            problem = "not boolean" if hook in ("terminal", "truncation") else "kind"
            self.report.add(hook, "jax", problem, f"returned {_described(value)}: not arrays ({_exception_text(exc)})")
            return FAILED
        if hook in ("initial", "transition") and not isinstance(value, self.d.State):
            self.report.add(hook, "jax", "not a state", f"returned {_described(value)}, not a {self.d.State.__name__}")
            return FAILED
        return value

    def _start(self, u: Any) -> _Out:
        state = self._call("initial", self.d.initial, u, self.params, self.ops)
        return {} if state is FAILED else _hooks(self.d, self.params, self.ops, self._call, state, None, None)

    def _step(self, state: Any, action: Any, u: Any) -> _Out:
        action = self.jnp.asarray(action, dtype=self.jnp.int32 if self.discrete else self.float)
        after = self._call("transition", self.d.transition, state, action, u, self.params, self.ops)
        return {} if after is FAILED else _hooks(self.d, self.params, self.ops, self._call, after, state, action)

    def rounded(self, u: np.ndarray, state: Any) -> tuple[np.ndarray, Any]:
        """numpy's draws ``u`` ``(rows, count)`` and ``state`` (``None`` at a start) as JAX holds them."""

        def held(q: np.ndarray) -> np.ndarray:
            return q if self.x64 or q.dtype.kind != "f" else q.astype(np.float32).astype(np.float64)

        if state is not None:
            state = type(state)(*(held(np.broadcast_to(np.asarray(q), (self.rows,))) for q in state))
        return held(u), state

    def run(self, u: np.ndarray, state: Any, actions: Any) -> _Out:
        """The hooks' values of a start (``state`` None) or a step, as numpy arrays."""
        draws = self.jnp.asarray(u, dtype=self.float) if u.shape[1] else ()
        try:
            args = () if state is None else (type(state)(*(self.jnp.asarray(q) for q in state)), np.asarray(actions))
            out = self.step(*args, draws) if args else self.start(draws)
        except Exception as exc:  # an error jit gives outside the hooks (rare: the hooks are guarded)
            self.report.add("jit", "jax", "raised", _exception_text(exc))
            return {}
        return dict(self.jax.tree.map(np.asarray, out))


# The checker -----------------------------------------------------------------------------------


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

    ``definition`` is a :class:`~gym_suite.envs.definition.Definition` (with ``params``, its frozen
    parameters dataclass; a registry definition defaults to its id's), an env class or a registry id.
    ``num_envs`` rows play ``steps`` steps of random actions seeded by ``seed`` on numpy, each row on
    Python numbers and the rows vmapped under ``jit`` on JAX, on the same states and uniforms (JAX's
    rounded to its precision); ``backends`` picks among them (numpy always runs; JAX, when not
    installed, is skipped with a warning). Every hook's value is checked (the state's kind and shape;
    the observation in its space, of its dtype, without NaN, in memory of its own; a finite reward,
    bool flags, dict infos, heuristic actions in the action space, the pictures), the backends are
    compared (``RTOL``; JAX in 32 bits ``RTOL_FLOAT32``), and each declared argument is tried with the
    odd values of :func:`~gym_suite.envs.argument_values.argument_values`: refused by a ``ValueError``
    / ``TypeError`` naming it in at most ``MESSAGE_LIMIT`` characters, or accepted and then a first
    start and step run. The problems are :data:`PROBLEMS`. Returns the :class:`Violation` list (one
    per hook, backend, kind and value, with a count); with ``raise_error=True`` (the default) a
    non-empty list raises :class:`DefinitionError` listing them. Bad arguments raise ``TypeError`` /
    ``ValueError`` naming them.
    """
    owner = "check_definition"
    d, base, name, env_owner = _resolve(definition, params)
    seed = check_int(owner, "seed", seed, 0)
    num_rows = check_int(owner, "num_envs", num_envs, 1)
    steps = check_int(owner, "steps", steps, 1)
    if isinstance(backends, str) or not isinstance(backends, Sequence):
        raise ArgumentTypeError(f"{owner}: backends must be a sequence of {list(BACKENDS)}, got {shown(backends)}")
    if unknown := [b for b in backends if b not in BACKENDS]:
        raise ValueError(f"{owner}: unknown backend(s) {shown(unknown)}; the backends are {list(BACKENDS)}")
    if not isinstance(raise_error, (bool, np.bool_)):
        raise ArgumentTypeError(f"{owner}: raise_error must be True or False, got {shown(raise_error)}")
    report = _Report()
    made = report.call("make_params", "all", d.make_params, base, env_owner)
    if made is not FAILED:
        _Run(d, made, num_rows, set(backends), report).play(seed, steps)
        _check_arguments(d, base, made, env_owner, report.add)
    violations = list(report.found.values())
    if violations and raise_error:
        raise DefinitionError(name, violations)
    return violations


_NO_JAX = 'check_definition: JAX is not installed, so the JAX backend was not checked (pip install "gym-suite[jax]")'
_PICTURES = (("rgb", "rgb_array", "not an image", "uint8 (H, W, 3)"), ("ansi", "ansi", "not text", "a str"))


class _Run:
    """One check: numpy plays the episodes; the scalar and JAX backends follow on its states."""

    def __init__(self, d: Definition[Any, Any], params: Any, rows: int, backends: set[str], report: _Report):
        self.d, self.params, self.rows, self.report = d, params, rows, report
        self.scalar = "scalar" in backends
        self.kinds: dict[tuple[str, str], tuple[str, str]] = {}  # (backend, quantity): (kind, hook)
        self.hook_kinds: dict[tuple[str, str, str], str] = {}  # (backend, hook, quantity): the last kind
        declared = _declared(d, params, report)
        self.observation_space, self.action_space, self.start_draws, self.State = declared
        self.ready = all(x is not FAILED for x in declared)
        self.jax = _Jax(d, params, rows, report) if "jax" in backends and self.ready and _has_jax() else None
        modes = set(d.render_modes)
        self.pictures = [p for p in _PICTURES if p[1] in modes or "human" in modes and d.human == p[0]]
        self.rendered = 0

    def _state_ok(self, hook: str, backend: str, state: Any, rows: int | None) -> bool:
        """Whether ``state`` is a ``State`` of numbers or flags (one per row for a batch); reports what is not."""
        if not isinstance(state, self.State):
            self.report.add(hook, backend, "not a state", f"returned {_described(state)}, not a {self.State.__name__}")
            return False
        problems = [(n, p) for n, q in zip(self.State._fields, state) if (p := _quantity_problem(hook, q, rows))]
        for name, (problem, message) in problems:
            self.report.add(hook, backend, problem, f"state.{name} {message}", name)
        for field, q in zip(self.State._fields, state) if not problems else ():
            # each quantity keeps one kind (bool, int, float) on every backend, start and step alike
            if (kind := _kind(q, backend != "scalar")) is None:
                continue
            first = self.kinds.setdefault((backend, field), (kind, hook))
            if first[0] != kind:
                message = f"state.{field} is {kind} here but {first[0]} from {first[1]}"
                self.report.add(hook, backend, "kind", message, field)
            self.hook_kinds[(backend, hook, field)] = kind
            numpy = self.hook_kinds.get(("numpy", hook, field))
            if backend != "numpy" and numpy is not None and numpy != kind:
                message = f"state.{field} is {kind} on {backend} but {numpy} on numpy"
                self.report.add(hook, f"{backend} vs numpy", "kind", message, field)
        return not problems

    def _checked(self, backend: str, out: _Out, rows: int | None, float_dtype: Any = None) -> None:
        """The checks of each hook's value after a start or a step (the state's are made apart)."""
        for key in ("reward", "state_info", "transition_info", "terminal", "truncation"):
            if key in out and not (backend == "jax" and "info" in key):  # JAX's infos: checked when traced
                hook, value = key if rows is None or "info" not in key else "info", out[key]
                found = _info_found(value, rows) if "info" in key else _column_found(key, value, rows)
                for problem, message, *what in found:
                    self.report.add(hook, backend, problem, message, *what)
        if "observation" in out:
            found = _check_in_space(self.observation_space, out["observation"], rows, "observation", float_dtype)
            for problem, message in found:
                self.report.add("observation", backend, problem, message, message.split(" ", 1)[0])
            if backend != "jax":
                self._check_fresh(backend, out["observation"], out["state"])
        if "heuristic" in out:
            self._check_heuristic(backend, out["heuristic"])

    def _agree(self, hook: str, vs: str, got: _Out, want: _Out, i: Any, rtol: float, scale: Any) -> None:
        """A backend's values ``got`` against numpy's ``want``: row ``i`` (Python numbers) or the batch (``i=None``)."""
        r, batch = self.report, i is None

        def column(value: Any) -> Any:
            found = _column(value, self.rows)
            return found if found is None or batch else found[i]

        for field, g, w in zip(self.State._fields, got.get("state", ()), want.get("state", ())):
            if (w := column(w)) is not None:
                _compare(r, hook, vs, f"state.{field}", g, w, rtol, scale)
        for key in ("reward", "terminal", "truncation", "observation", "heuristic"):
            exact = key in ("terminal", "truncation")
            if exact or key == "reward" and not batch:
                w = column(want.get(key, FAILED))
            elif (w := want.get(key, FAILED) if batch else _row(want.get(key, FAILED), i)) is FAILED:
                w = None
            if key in got and w is not None:
                what = "action" if key == "heuristic" else key
                _compare(r, key, vs, what, got[key], w, 0.0 if exact else rtol, 0.0 if exact else scale)
        for key in ("state_info", "transition_info"):
            info, expected = got.get(key), want.get(key)
            if isinstance(info, dict) and isinstance(expected, dict):
                self._agree_info(key, vs, info, {k: column(v) for k, v in expected.items()}, batch, rtol, scale)

    def _agree_info(self, key: str, vs: str, info: _Out, expected: _Out, batch: bool, rtol: float, scale: Any) -> None:
        """An info of a backend against numpy's (its values aligned as by :meth:`_agree`)."""
        if batch:  # a name on numpy (heartpole's action) is its index on JAX: not compared
            expected = {k: None if c is None or c.dtype.kind not in "biuf" else c for k, c in expected.items()}
        elif set(info) != set(expected):
            self.report.add(key, vs, "disagree", f"keys {sorted(info)} where numpy has {sorted(expected)}")
        for k, value in info.items():
            if k not in expected and batch:
                self.report.add(key, vs, "disagree", f"info[{k!r}] on JAX, not on numpy", k)
            elif expected.get(k) is not None:
                _compare(self.report, key, vs, f"info[{k!r}]", value, expected[k], rtol, scale)

    def _check_fresh(self, backend: str, observation: Any, state: Any) -> None:
        """No observation array shares memory with the state or the parameters (the shells hand it over as it is)."""
        holders = [(f"state.{f}", q) for f, q in zip(self.State._fields, state)]
        if dataclasses.is_dataclass(self.params):
            holders += [(f"params.{f.name}", getattr(self.params, f.name)) for f in dataclasses.fields(self.params)]
        holders = [(holder, array) for holder, array in holders if isinstance(array, np.ndarray)]
        for key, part in observation.items() if isinstance(observation, Mapping) else [("", observation)]:
            shared = [h for h, array in holders if isinstance(part, np.ndarray) and np.may_share_memory(part, array)]
            if shared:
                where = f"observation[{key!r}]" if key else "observation"
                message = f"{where} shares memory with {shared[0]} (return a copy: ops.copy)"
                self.report.add("observation", backend, "not fresh", message, where)

    def _check_heuristic(self, backend: str, action: Any) -> None:
        """The heuristic's action is one the shells accept, in the action space (of any float dtype)."""
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
            message = f"gave {_described(action)}, not an action of {self.action_space}: {_exception_text(exc)}"
            self.report.add("heuristic", backend, "out of space", message)
            return
        for problem, message in _check_in_space(self.action_space, action, rows, "action"):
            if problem != "dtype":
                self.report.add("heuristic", backend, "out of space", message, message.split(" ", 1)[0])

    def _numpy_start(self, u: np.ndarray) -> Any:
        """A checked batch start from the draws ``u`` ``(rows, count)``, its quantities ``(rows,)``."""
        state = self.report.call("initial", "numpy", self.d.initial, _uniforms(u), self.params, NUMPY)
        if state is FAILED or not self._state_ok("initial", "numpy", state, u.shape[0]):
            return FAILED
        return _broadcast(state, u.shape[0])  # as the vector shell holds it: one value per row

    def _numpy(self, state: Any, before: Any = None, actions: Any = None) -> _Out:
        out: _Out = _hooks(self.d, self.params, NUMPY, self.report.on("numpy"), state, before, actions)
        self._checked("numpy", out, self.rows)
        return out

    def _follow(self, want: _Out, before: Any, raw_actions: Any, u: np.ndarray, scale: np.ndarray) -> None:
        """The scalar backend (row by row) and JAX (the rows at once) on numpy's start or step, against its ``want``."""
        d, p, r, hook = self.d, self.params, self.report, "initial" if before is None else "transition"
        for i in range(self.rows) if self.scalar else ():
            row = action = None
            if before is None:
                state = r.call(hook, "scalar", d.initial, u[i].tolist(), p, SCALAR)
            else:
                row, action = row_of(before, i), check_action(raw_actions[i], self.action_space)
                state = r.call(hook, "scalar", d.transition, row, action, u[i].tolist(), p, SCALAR)
            if state is FAILED or not self._state_ok(hook, "scalar", state, None):
                break
            out = _hooks(d, p, SCALAR, r.on("scalar"), state, row, action)
            self._checked("scalar", out, None)
            self._agree(hook, "scalar vs numpy", out, want, i, RTOL, scale[i])
            if i == 0 and "observation" in out:
                self._render(state)
        if self.jax is None:
            return
        # numpy again, on the inputs rounded as JAX holds them (its own violations are reported by its run)
        u, before = self.jax.rounded(u, before)
        got = self.jax.run(u, before, raw_actions)
        actions = None if before is None else check_actions(raw_actions, self.rows, self.action_space)
        quiet = _Report()
        if before is None:
            state = quiet.call(hook, "numpy", lambda: _broadcast(d.initial(_uniforms(u), p, NUMPY), self.rows))
        else:
            state = quiet.call(hook, "numpy", d.transition, before, actions, _uniforms(u), p, NUMPY)
        valid = isinstance(state, self.State)
        want = _hooks(d, p, NUMPY, quiet.on("numpy"), state, before, actions) if valid else {}
        scale = _row_scale(self.rows, *([state] if valid else []), *([] if before is None else [before]))
        if "state" in got and not self._state_ok(hook, "jax", got["state"], self.rows):
            del got["state"]
        self._checked("jax", got, self.rows, self.jax.float)
        self._agree(hook, "jax vs numpy", got, want, None, RTOL if self.jax.x64 else RTOL_FLOAT32, scale)

    def _render(self, state: Any) -> None:
        """The pictures of a few states of row 0 (at the start, and after the first steps)."""
        if self.rendered >= 3:
            return
        self.rendered += 1
        for mode, _, problem, expected in self.pictures:
            value = self.report.call("render", "numpy", self.d.render, state, self.params, mode)
            image = isinstance(value, np.ndarray) and value.dtype == np.uint8 and value.shape[2:] == (3,) and value.size
            if value is not FAILED and not (image if mode == "rgb" else isinstance(value, str)):
                self.report.add("render", "numpy", problem, f"returned {_described(value)}, expected {expected}")

    def play(self, seed: int, steps: int) -> None:
        if not self.ready:  # nothing runs without the spaces, the draws and the state
            return
        d, r, rows = self.d, self.report, self.rows
        rng = np.random.default_rng(seed)
        sampler = copy.deepcopy(self.action_space)  # seeded here: the definition's space is left as it was
        sampler.seed(seed)
        u = rng.random((rows, self.start_draws))
        state = self._numpy_start(u)
        want = {} if state is FAILED else self._numpy(state)
        if not self.scalar and state is not FAILED:
            self._render(row_of(state, 0))
        self._follow(want, None, None, u, np.ones(rows) if state is FAILED else _row_scale(rows, state))
        ended = np.zeros(rows, dtype=bool)
        for _ in range(steps if state is not FAILED else 0):
            if ended.any():  # those rows start afresh (on draws of their own)
                fresh = self._numpy_start(rng.random((rows, self.start_draws)))
                if fresh is FAILED:
                    return
                state = self.State(*(np.where(ended, f, q) for f, q in zip(_broadcast(fresh, rows), state)))
            raw_actions = np.array([sampler.sample() for _ in range(rows)])
            try:
                actions = check_actions(raw_actions, rows, self.action_space)
            except Exception as exc:
                r.add("check_actions", "numpy", "raised", _exception_text(exc))
                return
            u = rng.random((rows, d.step_draws))
            after = r.call("transition", "numpy", d.transition, state, actions, _uniforms(u), self.params, NUMPY)
            failed = after is FAILED or not self._state_ok("transition", "numpy", after, rows)
            want = {} if failed else self._numpy(after, state, actions)  # on failure the others still take the step
            self._follow(want, state, raw_actions, u, _row_scale(rows, state, *([] if failed else [after])))
            if failed:
                return
            ended, state = np.zeros(rows, dtype=bool), _broadcast(after, rows)
            for flag in ("terminal", "truncation"):
                with contextlib.suppress(Exception):  # reported already
                    ended |= np.broadcast_to(np.asarray(want.get(flag, True), dtype=bool), (rows,))  # raised: all end


def _has_jax() -> bool:
    try:
        import jax  # noqa: F401
    except ImportError:
        warnings.warn(_NO_JAX, stacklevel=3)
        return False
    return True


def _uniforms(u: np.ndarray) -> Any:
    """The draws ``(rows, count)`` as the vector shell gives them to the rules: ``(count, rows)``."""
    return u.T if u.shape[1] else ()


def _broadcast(state: Any, rows: int) -> Any:
    return type(state)(*(np.array(np.broadcast_to(q, (rows,))) for q in state))
