"""The suite's environments: the classes of every registry row, and :func:`check_definition`.

Each environment is one module (``heartpole_env.py``, ...) that defines it: the manual, the
parameter sets (its versions), the rules as a ``Definition``, the pictures. The classes users
import are made from the registry's rows (``gym_suite.SPECS``) by the shells, on first use, and
live here::

    from gym_suite.envs import HeartPoleEnv, HeartPoleV1VectorEnv

(``gymnasium.make("gym_suite:heartpole-v0")`` makes the same class.) Also here:
:func:`check_definition`, the checker of a definition's hooks on every backend.
"""

from __future__ import annotations

import threading
from typing import Any

from gym_suite._registry import SPECS, Spec
from gym_suite.envs.checker import DefinitionError, Violation, check_definition

#: Every env class name of the registry, and its row.
_ROWS: dict[str, Spec] = {name: spec for spec in SPECS for name in (spec.class_name, spec.vector_class_name)}
_LOCK = threading.RLock()  # each class is made once, whoever asks first


def __getattr__(name: str) -> Any:
    """``HeartPoleEnv`` and the other classes of the registry's rows, made on first use."""
    spec = _ROWS.get(name)
    if spec is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _LOCK:
        if name not in globals():
            from gym_suite.envs._shells import env_classes

            globals()[spec.class_name], globals()[spec.vector_class_name] = env_classes(spec, module=__name__)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *_ROWS})


__all__ = ["DefinitionError", "Violation", "check_definition", *_ROWS]
