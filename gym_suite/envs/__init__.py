"""The suite's environments: the classes of every registry row, and :func:`check_definition`.

Each environment is one module (``heartpole_env.py``, ...): the manual, the parameter sets (its
versions), the rules as a ``Definition``, the pictures and its classes, which read here (those of
a row of ``gym_suite.register`` made from it on first use)::

    from gym_suite.envs import HeartPoleEnv, HeartPoleV1VectorEnv

(``gymnasium.make("gym_suite:heartpole-v0")`` makes the same class.) Also here:
:func:`check_definition`, the checker of a definition's hooks on every backend.
"""

from __future__ import annotations

import threading
from typing import Any

from gym_suite._registry import SPECS, Spec, rows
from gym_suite.envs.checker import DefinitionError, Violation, check_definition

#: Every env class name of the suite's own rows (those of ``gym_suite.register`` are looked up).
_ROWS: dict[str, Spec] = {name: spec for spec in SPECS for name in (spec.class_name, spec.vector_class_name)}
_LOCK = threading.RLock()  # each class is made once, whoever asks first


def __getattr__(name: str) -> Any:
    """``HeartPoleEnv`` and the other classes of the registry's rows, made on first use."""
    spec = _ROWS.get(name) or next((s for s in rows() if name in (s.class_name, s.vector_class_name)), None)
    if spec is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _LOCK:
        if name not in globals():
            from gym_suite.envs._shells import env_classes

            globals()[spec.class_name], globals()[spec.vector_class_name] = env_classes(spec, module=__name__)
    return globals()[name]


def __dir__() -> list[str]:
    return sorted({*globals(), *_ROWS, *(n for s in rows() for n in (s.class_name, s.vector_class_name))})


__all__ = ["DefinitionError", "Violation", "check_definition", *_ROWS]
