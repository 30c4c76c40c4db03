"""One HeartPole step in the shape the heartpole tests read: ``(state, reward, heart_attack,
productivity, heart_attack_probability)``, through the definition's own transition and reward."""

from __future__ import annotations

import dataclasses

import numpy as np

from gym_suite.envs.definition import NUMPY, SCALAR
from gym_suite.envs.heartpole_env import HEARTPOLE, V0, V1, HeartPoleState

V1_DRAWN_COST = dataclasses.replace(V1, expected_cost=False)


def heartpole_step(state, action, u, proclivity=0.5, ops=SCALAR, params=V0):
    """Step the six quantities ``state`` with the uniforms ``u`` (floats, or arrays with NUMPY)."""
    params = dataclasses.replace(params, heart_attack_proclivity=float(np.asarray(proclivity)))
    full = HeartPoleState(*state, -1, False, 0.0, 0.0)
    nxt = HEARTPOLE.transition(full, action, u, params, ops)
    reward = HEARTPOLE.reward(full, action, nxt, params, ops)
    return tuple(nxt[:6]), reward, nxt.heart_attack, nxt.productivity, nxt.heart_attack_probability


__all__ = ["NUMPY", "SCALAR", "V0", "V1", "V1_DRAWN_COST", "heartpole_step"]
