"""The odd values a caller may give an environment's argument: ``check_definition`` tries every
declared argument with :func:`argument_values` (each must be refused with a ``ValueError`` /
``TypeError`` naming the argument, or accepted and run: the trials are here too), and the suite's
property tests draw from them. A fixed list, without hypothesis, so that the checker runs wherever
the package does::

    from gym_suite.envs.argument_values import argument_values

    for value in argument_values(6.0):  # the values of a float argument whose default is 6.0
        ...
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from gym_suite.envs.checks import _exception_text, check_action, shown
from gym_suite.envs.definition import SCALAR, Definition, draws_at_start

__all__ = ["ARGUMENT_VALUES", "HUGE", "argument_values"]

#: The errors a refused argument may raise (with a message naming it): the documented ones.
ARGUMENT_ERRORS = (ValueError, TypeError, FileNotFoundError)
#: The longest message a refused argument may give.
MESSAGE_LIMIT = 1000
#: An integer past every float and every fixed-width integer (``float(HUGE)`` overflows).
HUGE = 10**1000

#: The values every argument is tried with, whatever its kind: the wrong kinds (``None``, the
#: bools, text, containers, bytes), the boundaries of the integers (0, -1, past int32 and int64),
#: the huge, and the floats no argument means (NaN, the infinities, the tiny and the huge, -0.0).
ARGUMENT_VALUES: tuple[Any, ...] = (None, True, False, 0, 1, -1, 2**31, 2**63, -(2**63) - 1, HUGE, -HUGE, 0.5, -0.0)
ARGUMENT_VALUES += (-1.5, 5e-324, 1e300, math.nan, math.inf, -math.inf, "", "text", b"bytes", [1], (), {}, 1 + 1j)


def argument_values(default: Any = None) -> tuple[Any, ...]:
    """The values to try an argument with: :data:`ARGUMENT_VALUES`, then those near its default
    (``default`` is the argument's value in the parameter set: for an integer its neighbours and
    a thousand times it, for a float the same and its negative, for a tuple of numbers the same
    length with NaN, infinity or :data:`HUGE` in it and one item more or fewer, for text the same
    text changed, for ``None`` (an optional argument) pairs of the same odd numbers)."""
    near: list[Any] = []
    if isinstance(default, bool):
        near = [not default, int(default), str(default)]
    elif isinstance(default, int):
        near = [default + 1, default - 1, default * 1000, -default, float(default)]
    elif isinstance(default, float):
        near = [math.nextafter(default, math.inf), -default, default * 1000.0, default / 1000.0, int(default)]
    elif isinstance(default, tuple) and default and all(isinstance(x, (int, float)) for x in default):
        rest = tuple(default[1:])
        near = [(math.nan, *rest), (math.inf, *rest), (HUGE, *rest), (-HUGE, *rest), tuple(str(x) for x in default)]
        near += [default[:-1], (*default, default[-1]), list(default)]
    elif isinstance(default, str):
        near = [default.upper(), f" {default}", default * 2]
    elif default is None:  # an optional argument: a pair is a common kind (a point)
        near = [(math.nan, 0.0), (0.0, math.inf), (HUGE, 0), (1.0,), (1.0, 2.0, 3.0)]
    return ARGUMENT_VALUES + tuple(v for v in near if not any(_same(v, w) for w in ARGUMENT_VALUES))


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and (a == b or a != a and b != b)


# check_definition's trials: each declared argument, tried with the odd values --------------------


def _check_arguments(d: Definition[Any, Any], base: Any, params: Any, owner: str, add: Callable[..., None]) -> None:
    """Each name of ``d.arguments`` is a field of the parameters, and each odd value of it is
    refused with a documented error naming it, or accepted and run (:func:`_try_argument`); not
    tried when the first steps on ``params`` (made from ``base``) break already."""
    fields = ", ".join(f.name for f in dataclasses.fields(base)) if dataclasses.is_dataclass(base) else ""
    names = [name for name in d.arguments if isinstance(name, str) and hasattr(base, name)]
    for name in (name for name in d.arguments if name not in names):
        message = f"{shown(name)} is declared in arguments, but {type(base).__name__} has no field of that name"
        add("arguments", "all", "not a parameter", f"{message} (its fields: {fields})", shown(name))
    for name in d.data_parameters:
        value = getattr(params, name, None) if isinstance(name, str) else None
        if name in names and isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
            continue
        message = f"{shown(name)} is declared in data_parameters, but it is not a declared argument holding a number"
        arguments = ", ".join(map(str, d.arguments)) or "none"
        add("data_parameters", "all", "not data", f"{message} (the arguments: {arguments})", shown(name))
    if _first_steps(d, params) is None:
        for name in names:
            for value in argument_values(getattr(base, name)):
                _try_argument(d, base, owner, name, value, add)


def _first_steps(d: Definition[Any, Any], params: Any) -> tuple[str, str] | None:
    """The spaces, a start and a first step (the heuristic's action) on Python numbers: ``None``
    when they run, with the observations in their space and a finite reward; else the hook and
    what went wrong."""
    at = ["spaces"]

    def run(hook: str, fn: Callable[..., Any], *args: Any) -> Any:
        at[0] = hook
        return fn(*args)

    try:
        observation_space, action_space = run("spaces", d.spaces, params)
        state = run("initial", d.initial, (0.5,) * run("start_draws", draws_at_start, d, params), params, SCALAR)
        observation = run("observation", d.observation, state, params, SCALAR)
        action = run("heuristic", lambda: check_action(d.heuristic(observation, params, SCALAR), action_space))
        after = run("transition", d.transition, state, action, (0.5,) * d.step_draws, params, SCALAR)
        reward = run("reward", lambda: float(d.reward(state, action, after, params, SCALAR)))
        seen = (observation, run("observation", d.observation, after, params, SCALAR))
        in_space = all(observation_space.contains(o) for o in seen)
    except Exception as exc:
        return at[0], f"{at[0]} raised {_exception_text(exc)}"
    if not math.isfinite(reward):
        return "reward", f"the first reward is {reward!r}"
    if not in_space:
        return "observation", f"an observation is outside {observation_space}"
    return None


def _try_argument(
    d: Definition[Any, Any], base: Any, owner: str, name: str, value: Any, add: Callable[..., None]
) -> None:
    """``make_params`` with ``name=value``: refused with a documented error naming the argument,
    or accepted, and then the first steps run (:func:`_first_steps`)."""
    given = f"{name}={_value_text(value)}"
    try:
        params = d.make_params(base, owner, **{name: value})
    except ARGUMENT_ERRORS as exc:
        text = str(exc)
        if not any(isinstance(n, str) and n in text for n in (name, *d.arguments)):  # a relation names the other
            message = f"{given} was refused by {_exception_text(exc)}, which does not name {name!r}"
            add("make_params", "all", "argument", message, f"{name} unnamed")
        elif len(text) > MESSAGE_LIMIT:
            add("make_params", "all", "argument", f"{given}: a message of {len(text)} characters", f"{name} long")
        return
    except Exception as exc:  # a contributor's check may raise anything: report it
        message = f"{given} raised {_exception_text(exc)}; expected a ValueError or TypeError naming {name!r}"
        add("make_params", "all", "argument", message, f"{name} {type(exc).__name__}")
        return
    broken = _first_steps(d, params)
    if broken is not None:  # one per hook
        add(broken[0], "scalar", "argument", f"{given} was accepted by make_params, then {broken[1]}", name)


def _value_text(value: Any) -> str:
    """A tried value as a message shows it: ``10**1000`` rather than its thousand digits."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        sign = "-" if value < 0 else ""
        power = len(str(abs(value))) - 1
        return f"{sign}10**{power}" if abs(value) == 10**power else f"{sign}2**{abs(value).bit_length() - 1}"
    return shown(value)
