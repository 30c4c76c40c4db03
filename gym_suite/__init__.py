"""gym-suite: custom reinforcement-learning environments for Gymnasium (and the legacy gym).

Importing the package registers every environment with Gymnasium, and with gym when gym has
already been imported (gym itself finds them through the ``gym.envs`` plugin otherwise)::

    import gymnasium
    env = gymnasium.make("gym_suite:heartpole-v0")
"""

from __future__ import annotations

import functools
import sys
from dataclasses import dataclass, field
from typing import Any, NoReturn

import gymnasium

__version__ = "0.1.0"


@dataclass(frozen=True)
class Spec:
    """One row of the suite's registry."""

    id: str
    entry_point: str
    vector_entry_point: str
    max_episode_steps: int | None
    summary: str
    kwargs: dict[str, Any] = field(default_factory=dict)


#: The one table of environments: everything that registers, lists or tests them reads it.
SPECS: tuple[Spec, ...] = (
    Spec(
        "example-v0",
        "gym_suite.envs.example_env:ExampleEnv",
        "gym_suite.envs.example_env:ExampleVectorEnv",
        10,
        "1-D hot/cold walk: find the goal in the middle of a line, moving left or right.",
    ),
    Spec(
        "push-v0",
        "gym_suite.envs.push_env:PushEnv",
        "gym_suite.envs.push_env:PushVectorEnv",
        None,
        "Push notifications replayed from a log: deliver (predict opened) or hold back (predict dismissed).",
    ),
    Spec(
        "push-v1",
        "gym_suite.envs.push_v1_env:PushV1Env",
        "gym_suite.envs.push_v1_env:PushV1VectorEnv",
        None,
        "Push notifications over a user-day: deliver the few the daily budget allows, when they are likeliest to be opened.",
    ),
    Spec(
        "heartpole-v0",
        "gym_suite.envs.heartpole_env:HeartPoleEnv",
        "gym_suite.envs.heartpole_env:HeartPoleVectorEnv",
        1000,
        "HeartPole: coffee, beer, sleep or work on, half-hour by half-hour; productivity vs heart attacks.",
    ),
    Spec(
        "heartpole-v1",
        "gym_suite.envs.heartpole_env:HeartPoleV1Env",
        "gym_suite.envs.heartpole_env:HeartPoleV1VectorEnv",
        None,
        "HeartPole over two weeks: reward the work done, every half-hour's heart-attack risk at its expected cost.",
    ),
    Spec(
        "target-v0",
        "gym_suite.envs.target_env:TargetEnv",
        "gym_suite.envs.target_env:TargetVectorEnv",
        1000,
        "2-D pointing: place a worker point (continuous action) so that its disc covers the target's.",
    ),
    Spec(
        "target-v1",
        "gym_suite.envs.target_env:TargetV1Env",
        "gym_suite.envs.target_env:TargetV1VectorEnv",
        300,
        "Intercept a target that bounces off the walls faster than the worker can run: steer, and lead the aim.",
    ),
)

ENV_IDS: tuple[str, ...] = tuple(spec.id for spec in SPECS)

#: Ids of the tutorials the environments come from, and the suite's id for each: making one
#: raises an error that names the suite's id (the rules differ, so no silent alias).
RENAMED_IDS: dict[str, str] = {"HeartPole-v0": "heartpole-v0"}


def _renamed_id(old: str, new: str, **kwargs: Any) -> NoReturn:
    raise gymnasium.error.Error(
        f"{old} is the tutorial's id; gym-suite's environment is {new!r}: "
        f"gymnasium.make('gym_suite:{new}') (its docstring says how it differs from the tutorial's)"
    )


#: The namespace of the JAX envs: ``gymnasium.make("gym_suite_jax/heartpole-v1")``.
JAX_NAMESPACE = "gym_suite_jax"


def register_gymnasium() -> None:
    """Register every environment with Gymnasium (ids that already exist are left alone)."""
    for spec in SPECS:
        if spec.id in gymnasium.registry:
            continue
        gymnasium.register(
            id=spec.id,
            entry_point=spec.entry_point,
            vector_entry_point=spec.vector_entry_point,
            max_episode_steps=spec.max_episode_steps,  # TimeLimit's, and make_vec passes it to the vector env
            kwargs=dict(spec.kwargs),
        )
    for spec in SPECS:  # the JAX envs (gym_suite.jax, the [jax] extra): strings only, JAX loads on make
        jax_id = f"{JAX_NAMESPACE}/{spec.id}"
        if jax_id not in gymnasium.registry:
            gymnasium.register(
                id=jax_id,
                entry_point="gym_suite.jax:JaxEnv",
                vector_entry_point="gym_suite.jax:JaxVectorEnv",
                max_episode_steps=spec.max_episode_steps,
                kwargs={"env_id": spec.id},
                disable_env_checker=True,
            )
    for old, new in RENAMED_IDS.items():
        if old not in gymnasium.registry:
            gymnasium.register(id=old, entry_point=functools.partial(_renamed_id, old, new))


register_gymnasium()

if "gym" in sys.modules:  # gym was imported first: give it the ids now
    from gym_suite._gym import register_gym

    register_gym()

from gym_suite.evaluate import action_seed, evaluate  # noqa: E402  (light: joblib and tqdm load on use)

__all__ = ["ENV_IDS", "SPECS", "Spec", "action_seed", "evaluate", "register_gymnasium", "__version__"]
