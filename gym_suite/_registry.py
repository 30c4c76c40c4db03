"""The suite's registry: one row per environment id, and nothing else.

This module is the bottom of the package: it imports only the standard library, so that every
other module (the package's ``__init__``, the shells, the JAX envs, the command line, the
checker) can read the table without importing anything that runs an environment.

A row names what makes the environment by ``"module:attribute"`` strings: the definition (the
rules), the parameter set (the version) and, where the version's manual is not the module's
docstring, the manual. The classes users import (``gym_suite.envs.HeartPoleV1Env`` and its
``...VectorEnv``) are made from the row, on first use, by ``gym_suite.envs``.

``SPECS`` holds the suite's own rows. Other packages add theirs with ``gym_suite.register``
(:func:`add` here, after its checks): those rows, under ids of their own namespace
(``"mypkg/grid-v0"``), may name their definition and parameters by the objects themselves.
:func:`rows` and :func:`find` read both.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import KW_ONLY, dataclass
from typing import Any, overload

__all__ = [
    "ENV_IDS",
    "JAX_NAMESPACE",
    "RENAMED_IDS",
    "SPECS",
    "SUITE_PREFIX",
    "Spec",
    "add",
    "find",
    "jax_id",
    "load",
    "remove",
    "rows",
    "suite_id",
]

#: The module that publishes the classes of every row (``gym_suite.envs.HeartPoleEnv``).
CLASSES_MODULE = "gym_suite.envs"


@dataclass(frozen=True)
class Spec:
    """One row of the suite's registry.

    ``definition`` and ``params`` are ``"module:attribute"`` strings naming the environment's
    :class:`~gym_suite.envs.definition.Definition` instance and the parameter set of this
    version (a row added by ``gym_suite.register`` may hold the objects themselves); ``class_name`` is the scalar env class's name (the vector env's adds ``Vector``:
    ``HeartPoleV1Env``, ``HeartPoleV1VectorEnv``); ``max_episode_steps`` the step limit
    (``None``: the episode ends by the rules); ``summary`` one line for lists; ``manual`` the
    class's docstring (``"module:attribute"``; ``None``: the definition's module docstring).
    """

    id: str
    _: KW_ONLY
    definition: str | object
    params: str | object
    class_name: str
    max_episode_steps: int | None
    summary: str
    manual: str | None = None

    @property
    def vector_class_name(self) -> str:
        """The native vector env class's name (``HeartPoleV1VectorEnv``)."""
        return self.class_name.removesuffix("Env") + "VectorEnv"

    @property
    def entry_point(self) -> str:
        """Gymnasium's entry point of the scalar env (``"gym_suite.envs:HeartPoleV1Env"``)."""
        return f"{CLASSES_MODULE}:{self.class_name}"

    @property
    def vector_entry_point(self) -> str:
        """Gymnasium's vector entry point (``"gym_suite.envs:HeartPoleV1VectorEnv"``)."""
        return f"{CLASSES_MODULE}:{self.vector_class_name}"


def load(reference: object) -> Any:
    """The object a ``"module:attribute"`` string names, the module imported (the attribute may
    be a dotted path: ``"module:Class.__doc__"``); anything but a string is the object itself (a
    row of ``gym_suite.register`` may hold its definition and parameters)."""
    if not isinstance(reference, str):
        return reference
    module, _, path = reference.partition(":")
    if not module or not path:
        raise ValueError(f"expected a 'module:attribute' reference, got {reference!r}")
    found: Any = importlib.import_module(module)
    for attribute in path.split("."):
        found = getattr(found, attribute)
    return found


#: The one table of environments: everything that registers, lists, makes or tests them reads it.
SPECS: tuple[Spec, ...] = (
    Spec(
        "example-v0",
        definition="gym_suite.envs.example_env:EXAMPLE",
        params="gym_suite.envs.example_env:DEFAULTS",
        class_name="ExampleEnv",
        max_episode_steps=10,
        summary="1-D hot/cold walk: find the goal in the middle of a line, moving left or right.",
    ),
    Spec(
        "example-v1",
        definition="gym_suite.envs.example_env:EXAMPLE_V1",
        params="gym_suite.envs.example_env:V1",
        class_name="ExampleV1Env",
        max_episode_steps=24,
        summary="The hot/cold walk, partly observed: only a noisy warmer/colder of each move; memory pays.",
        manual="gym_suite.envs.example_env:V1_MANUAL",
    ),
    Spec(
        "push-v0",
        definition="gym_suite.envs.push_env:PUSH",
        params="gym_suite.envs.push_env:DEFAULTS",
        class_name="PushEnv",
        max_episode_steps=None,
        summary="Push notifications replayed from a log: deliver (predict opened) or hold back (predict dismissed).",
    ),
    Spec(
        "push-v1",
        definition="gym_suite.envs.push_v1_env:PUSH_V1",
        params="gym_suite.envs.push_v1_env:DEFAULTS",
        class_name="PushV1Env",
        max_episode_steps=None,
        summary=(
            "Push notifications over a user-day: deliver the few the daily budget allows, "
            "when they are likeliest to be opened."
        ),
    ),
    Spec(
        "heartpole-v0",
        definition="gym_suite.envs.heartpole_env:HEARTPOLE",
        params="gym_suite.envs.heartpole_env:V0",
        class_name="HeartPoleEnv",
        max_episode_steps=1000,
        summary="HeartPole: coffee, beer, sleep or work on, half-hour by half-hour; productivity vs heart attacks.",
    ),
    Spec(
        "heartpole-v1",
        definition="gym_suite.envs.heartpole_env:HEARTPOLE",
        params="gym_suite.envs.heartpole_env:V1",
        class_name="HeartPoleV1Env",
        max_episode_steps=None,
        summary=(
            "HeartPole over two weeks: reward the work done, every half-hour's heart-attack risk at its expected cost."
        ),
        manual="gym_suite.envs.heartpole_env:V1_MANUAL",
    ),
    Spec(
        "target-v0",
        definition="gym_suite.envs.target_env:TARGET",
        params="gym_suite.envs.target_env:DEFAULTS",
        class_name="TargetEnv",
        max_episode_steps=1000,
        summary="2-D pointing: place a worker point (continuous action) so that its disc covers the target's.",
    ),
    Spec(
        "target-v1",
        definition="gym_suite.envs.target_env:TARGET_V1",
        params="gym_suite.envs.target_env:V1",
        class_name="TargetV1Env",
        max_episode_steps=300,
        summary=(
            "Intercept a target that bounces off the walls faster than the worker can run: steer, and lead the aim."
        ),
        manual="gym_suite.envs.target_env:V1_MANUAL",
    ),
)

ENV_IDS: tuple[str, ...] = tuple(spec.id for spec in SPECS)

#: Ids of the tutorials the environments come from, and the suite's id for each: making one
#: raises an error that names the suite's id (the rules differ, so no silent alias).
RENAMED_IDS: dict[str, str] = {"HeartPole-v0": "heartpole-v0"}

#: The namespace of the JAX envs: ``gymnasium.make("gym_suite_jax/heartpole-v1")``.
JAX_NAMESPACE = "gym_suite_jax"

#: The id of a row another package registers: ``namespace/name-vN``. The namespace is required
#: (the suite's own ids have none, so the two never meet) and holds no ``:`` (gymnasium reads
#: ``"module:id"`` as a module to import first); the version is required, as in every suite id.
ID_PATTERN = re.compile(
    r"(?P<namespace>[A-Za-z][A-Za-z0-9_-]*)/(?P<name>[A-Za-z][A-Za-z0-9_.-]*?)-v(?P<version>0|[1-9][0-9]*)"
)
#: Namespaces another package may not take: the suite's.
RESERVED_NAMESPACES = frozenset({"gym_suite", JAX_NAMESPACE})

#: The rows other packages registered (``gym_suite.register``), by id, in the order they came.
_ADDED: dict[str, Spec] = {}


def rows() -> tuple[Spec, ...]:
    """Every row: the suite's own (``SPECS``), then those other packages registered."""
    return SPECS + tuple(_ADDED.values())


def find(env_id: str) -> Spec | None:
    """The row of ``env_id`` (the suite's or a registered one), or ``None``."""
    for spec in SPECS:
        if spec.id == env_id:
            return spec
    return _ADDED.get(env_id)


def jax_id(env_id: str) -> str:
    """The Gymnasium id of a row's JAX env: ``gym_suite_jax/heartpole-v1`` for the suite's ids,
    ``mypkg_jax/grid-v0`` for ``mypkg/grid-v0`` (a namespace holds no ``/``)."""
    namespace, slash, rest = env_id.partition("/")
    return f"{namespace}_jax/{rest}" if slash else f"{JAX_NAMESPACE}/{env_id}"


def add(spec: Spec) -> None:
    """Add a registered row (``gym_suite.register`` checks it first); an id or class name that
    is taken raises ``ValueError``."""
    for row in rows():
        if row.id == spec.id:
            raise ValueError(f"register: the id {spec.id!r} is registered already (unregister it first)")
        if row.class_name == spec.class_name:
            raise ValueError(
                f"register: the class name {spec.class_name!r} is taken by {row.id!r}; pass class_name='...Env'"
            )
    _ADDED[spec.id] = spec


def remove(env_id: str) -> Spec:
    """Remove a registered row and return it; the suite's own ids stay (``ValueError``)."""
    if any(spec.id == env_id for spec in SPECS):
        raise ValueError(f"unregister: {env_id!r} is one of the suite's own ids, which stay registered")
    if env_id not in _ADDED:
        raise ValueError(f"unregister: {env_id!r} is not registered; the registered ids are {list(_ADDED)}")
    return _ADDED.pop(env_id)


#: The module prefix ``gymnasium.make`` takes: ``"gym_suite:heartpole-v1"`` imports gym_suite first.
SUITE_PREFIX = "gym_suite:"


@overload
def suite_id(env_id: str, *, jax: bool = False) -> str: ...


@overload
def suite_id(env_id: object, *, jax: bool = False) -> object: ...


def suite_id(env_id: object, *, jax: bool = False) -> object:
    """The registry id of ``env_id``, the one form every public function looks its id up by.

    ``"gym_suite:push-v1"`` (the module prefix ``gymnasium.make`` takes) is ``"push-v1"``; with
    ``jax``, so is ``"gym_suite_jax/push-v1"`` (the JAX env's id: for what depends on the
    environment alone, such as its training recipe, or what always runs the JAX env). An id's
    recipe, budget and environment are the same whichever form names it. Only a suite id loses
    its prefix; anything else (another library's id, a value that is not a ``str``) is returned
    as it is, for the caller to check and refuse with its own message.
    """
    if not isinstance(env_id, str):
        return env_id
    name = env_id.removeprefix(SUITE_PREFIX)
    if jax:
        name = name.removeprefix(f"{JAX_NAMESPACE}/")
    return name if name in ENV_IDS else env_id
