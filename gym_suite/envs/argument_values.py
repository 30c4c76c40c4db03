"""The odd values a caller may give an environment's argument: ``check_definition`` tries every
declared argument with :func:`argument_values` (each must be refused with a ``ValueError`` /
``TypeError`` naming the argument, or accepted and run), and the suite's property tests draw from
them. A fixed list, without hypothesis, so that the checker runs wherever the package does::

    from gym_suite.envs.argument_values import argument_values

    for value in argument_values(6.0):  # the values of a float argument whose default is 6.0
        ...
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["ARGUMENT_VALUES", "HUGE", "argument_values"]

#: An integer past every float and every fixed-width integer (``float(HUGE)`` overflows).
HUGE = 10**1000

#: The values every argument is tried with, whatever its kind: the wrong kinds (``None``, the
#: bools, text, containers, bytes), the boundaries of the integers (0, -1, past int32 and int64),
#: the huge, and the floats no argument means (NaN, the infinities, the tiny and the huge, -0.0).
ARGUMENT_VALUES: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    1,
    -1,
    2**31,
    2**63,
    -(2**63) - 1,
    HUGE,
    -HUGE,
    0.5,
    -0.0,
    -1.5,
    5e-324,
    1e300,
    math.nan,
    math.inf,
    -math.inf,
    "",
    "text",
    b"bytes",
    [1],
    (),
    {},
    1 + 1j,
)


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
        near = [
            (math.nan, *rest),
            (math.inf, *rest),
            (HUGE, *rest),
            (-HUGE, *rest),
            tuple(str(x) for x in default),
            default[:-1],
            (*default, default[-1]),
            list(default),
        ]
    elif isinstance(default, str):
        near = [default.upper(), f" {default}", default * 2]
    elif default is None:  # an optional argument: a pair is a common kind (a point)
        near = [(math.nan, 0.0), (0.0, math.inf), (HUGE, 0), (1.0,), (1.0, 2.0, 3.0)]
    return ARGUMENT_VALUES + tuple(v for v in near if not any(_same(v, w) for w in ARGUMENT_VALUES))


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and (a == b or a != a and b != b)
