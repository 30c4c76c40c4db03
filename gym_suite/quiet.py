"""The suite's own commands, scripts and workers make its environments without library noise.

Two notices print where nothing is wrong:

* ``gymnasium.make("heartpole-v0")`` warns that the environment "is out of date" because a v1
  is registered; the suite keeps v0 on purpose. Its own code makes environments from their
  :class:`~gymnasium.envs.registration.EnvSpec` (:func:`make`, :func:`make_vec`: Gymnasium checks
  the version only when it looks a string id up), and wraps code that makes them by string id
  (Stable-Baselines3's helpers) in :func:`no_version_notice`. A user's own ``gymnasium.make``
  still warns: no warnings filter changes outside those calls.
* gym 0.26.2 prints "Gym has been unmaintained since 2022 ..." when imported, and
  Stable-Baselines3 imports gym whenever it is installed: :func:`import_gym_quietly` imports it
  first with that notice left out.
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
    """The registered spec of a suite id (``"heartpole-v0"`` or ``"gym_suite:heartpole-v0"``);
    any other id, or a spec, is returned as it is."""
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
    """Within this block, Gymnasium's "out of date" warning for the suite's own ids is not shown
    (the warnings filters are restored after it; like ``warnings.catch_warnings``, not thread-safe)."""
    import re
    import warnings

    names = "|".join(re.escape(env_id) for env_id in ENV_IDS)
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=rf".*The environment (gym_suite:)?({names}) is out of date", category=DeprecationWarning
        )
        yield


def import_gym_quietly() -> None:
    """Import gym, when it is installed and not imported yet, without its "unmaintained" notice.

    Whatever else gym prints on import still reaches standard error.
    """
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
