"""The suite's own code makes its environments without two notices that print where nothing is wrong.

Gymnasium warns that ``heartpole-v0`` "is out of date" (a v1 is registered; v0 stays on purpose)
when it looks a string id up: :func:`make` and :func:`make_vec` make the suite's ids from their
spec, :func:`no_version_notice` wraps code that makes them by id (Stable-Baselines3's helpers); a
user's own ``gymnasium.make`` still warns. gym 0.26.2 prints "Gym has been unmaintained ..." on
import (Stable-Baselines3 imports it when installed): :func:`import_gym_quietly` leaves that out.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from collections.abc import Iterator
from typing import Any

import gymnasium
from gymnasium.envs.registration import EnvSpec

from gym_suite._registry import ENV_IDS, suite_id

SUITE_MODULE = "gym_suite"


def suite_spec(env_id: str | EnvSpec) -> str | EnvSpec:
    """The registered spec of a suite id (``"gym_suite:"`` prefix allowed); anything else as it is."""
    if not isinstance(env_id, str):
        return env_id
    name = suite_id(env_id)
    if name in ENV_IDS and name in gymnasium.registry:  # (importing gym_suite registered them)
        return gymnasium.registry[name]
    return env_id


def make(env_id: str | EnvSpec, **kwargs: Any) -> gymnasium.Env[Any, Any]:
    """``gymnasium.make(env_id, **kwargs)``, made from the spec for the suite's own ids (no notice)."""
    return gymnasium.make(suite_spec(env_id), **kwargs)


def make_vec(env_id: str | EnvSpec, *args: Any, **kwargs: Any) -> gymnasium.vector.VectorEnv[Any, Any, Any]:
    """``gymnasium.make_vec(env_id, ...)``, made from the spec for the suite's own ids (no notice)."""
    return gymnasium.make_vec(suite_spec(env_id), *args, **kwargs)


@contextlib.contextmanager
def no_version_notice() -> Iterator[None]:
    """Gymnasium's "out of date" warning for the suite's ids not shown within the block (not thread-safe)."""
    import re
    import warnings

    names = "|".join(re.escape(env_id) for env_id in ENV_IDS)
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=rf".*The environment (gym_suite:)?({names}) is out of date", category=DeprecationWarning
        )
        yield


def import_gym_quietly() -> None:
    """Import gym, when installed and not imported yet, without its "unmaintained" notice (the rest of what it prints stays)."""
    if "gym" in sys.modules or importlib.util.find_spec("gym") is None:
        return
    printed = io.StringIO()
    try:
        with contextlib.redirect_stderr(printed):
            import gym
    finally:
        text = printed.getvalue()
        try:
            from gym_notices.notices import notices

            notice = notices.get(sys.modules["gym"].__version__) if "gym" in sys.modules else None
        except Exception:  # noqa: BLE001 - no notices package, or another layout: keep all the text
            notice = None
        if notice:
            text = text.replace(notice + "\n", "", 1)
        if text:
            sys.stderr.write(text)
    del gym
