"""Shared fixtures: the registry, how to drive any suite environment generically, a two-node Ray cluster."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # human render modes open no window in the tests

import numpy as np
import pytest
from ray_cluster import isolated_cluster, two_node_cluster  # noqa: F401  (fixtures: two-node Ray clusters on this machine)

import gym_suite

ALL_IDS = [spec.id for spec in gym_suite.SPECS]
DOCUMENTED_ERRORS = (ValueError, TypeError)  # what a refused argument or action raises
MESSAGE_LIMIT = 1000  # the longest error message allowed


def load_hypothesis_profile():
    """``HYPOTHESIS_PROFILE=long`` runs many more examples than the default ``fast``."""
    from hypothesis import HealthCheck, settings

    for name, examples in (("fast", 25), ("long", 1000)):
        settings.register_profile(
            name, max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
        )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


def same(a, b, rtol: float = 0.0) -> bool:
    """Equal, recursively through dicts, tuples and lists (NaNs unequal); floats within ``rtol``."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k], rtol) for k in a)
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(same(x, y, rtol) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    if rtol and "f" in (a.dtype.kind, b.dtype.kind):
        return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=0.0))
    return bool(np.array_equal(a, b))


def invalid_action(space):
    """An action that no suite environment may accept, whatever its action space."""
    from gymnasium import spaces

    if isinstance(space, spaces.Discrete):
        return int(space.start + space.n)  # one past the last valid index
    if isinstance(space, spaces.Box):
        return np.full(space.shape, np.nan, dtype=space.dtype)
    raise NotImplementedError(f"no invalid action defined for {space}")


def rollout(env, seed: int, steps: int, action_seed: int | None = None):
    """Observations, rewards and flags of ``steps`` random steps (resetting as needed), the actions seeded
    ``action_seed`` or else ``gym_suite.evaluate.action_seed(seed)``."""
    from gym_suite.evaluate import action_seed as derived_action_seed

    out = [env.reset(seed=seed)[0]]
    env.action_space.seed(derived_action_seed(seed) if action_seed is None else action_seed)
    for _ in range(steps):
        obs, reward, terminated, truncated, _ = env.step(env.action_space.sample())
        out.append((obs, reward, terminated, truncated))
        if terminated or truncated:
            out.append(env.reset()[0])
    return out


@pytest.fixture
def gym_np_bool8(monkeypatch):
    """gym 0.26.2's checkers call ``np.bool8``, which numpy 2 removed: put it back, in tests only."""
    if not hasattr(np, "bool8"):
        monkeypatch.setattr(np, "bool8", np.bool_, raising=False)
