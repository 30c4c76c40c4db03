"""gym-suite: custom reinforcement-learning environments for Gymnasium (and the legacy gym).

Importing the package registers every environment with Gymnasium, and with gym when it is
imported already (otherwise gym finds them through its ``gym.envs`` plugin)::

    env = gymnasium.make("gym_suite:heartpole-v0")

Another package registers its own environment, written the suite's way, with :func:`register`.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
from typing import Any, NoReturn


def _is_record_command() -> bool:
    """Whether this process is ``gym-suite record`` (or ``python -m gym_suite[.cli] record``)."""
    if sys.argv[1:2] != ["record"]:
        return False
    if sys.argv[0] == "-m":  # while `python -m` imports the package
        module = sys.orig_argv[sys.orig_argv.index("-m") + 1 :][:1] if "-m" in sys.orig_argv else []
        return module in (["gym_suite"], ["gym_suite.cli"])
    return os.path.basename(sys.argv[0]).startswith("gym-suite")


if _is_record_command() and hasattr(signal, "pthread_sigmask"):
    # a Ctrl-C during the imports waits, pending, for the command's handler (gym_suite.cli.main unblocks it)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

import gymnasium  # noqa: E402

from gym_suite._registry import ENV_IDS, JAX_NAMESPACE, RENAMED_IDS, SPECS, Spec, register, register_row, unregister  # noqa: E402
from gym_suite._registry import rows as specs  # noqa: E402

__version__ = "0.1.0"


def _renamed_id(old: str, new: str, **kwargs: Any) -> NoReturn:
    raise gymnasium.error.Error(
        f"{old} is the tutorial's id; gym-suite's environment is {new!r}: "
        f"gymnasium.make('gym_suite:{new}') (its docstring says how it differs from the tutorial's)"
    )


def register_gymnasium() -> None:
    """Register every id, its JAX env and the tutorials' renamed ids with Gymnasium (existing ids left alone)."""
    for spec in SPECS:
        register_row(spec)
    for old, new in RENAMED_IDS.items():
        if old not in gymnasium.registry:
            gymnasium.register(id=old, entry_point=functools.partial(_renamed_id, old, new))


register_gymnasium()

if "gym" in sys.modules:  # gym was imported first: give it the ids now
    from gym_suite._gym import register_gym

    register_gym()

from gym_suite.evaluate import action_seed, evaluate  # noqa: E402  (light: joblib and tqdm load on use)
from gym_suite.score import score  # noqa: E402

__all__ = [
    "ENV_IDS",
    "JAX_NAMESPACE",
    "RENAMED_IDS",
    "SPECS",
    "Spec",
    "__version__",
    "action_seed",
    "evaluate",
    "register",
    "register_gymnasium",
    "score",
    "specs",
    "unregister",
]
