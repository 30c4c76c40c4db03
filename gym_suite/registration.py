"""Registering another package's environment: :func:`register` and :func:`unregister`.

A definition written the suite's way (a :class:`~gym_suite.envs.definition.Definition` and a
frozen parameters dataclass) becomes an environment of the suite with one call: a registry row,
the ids with Gymnasium (and the legacy gym when it is imported), the env classes in
``gym_suite.envs``, ``gym_suite.jax.make``, ``check_definition`` and the ``gym-suite`` command::

    import gym_suite
    from mypkg.grid import GRID, V0

    gym_suite.register("mypkg/grid-v0", definition=GRID, params=V0, max_episode_steps=100,
                       summary="Find the key, open the door.")
    env = gymnasium.make("mypkg/grid-v0")

Another package's ids are namespaced (``namespace/name-vN``, as Gymnasium recommends for
third-party environments: ``ALE/Pong-v5``), so they never meet the suite's own ids, which have
none; its JAX env is ``namespace_jax/name-vN``. The suite's namespaces (``gym_suite``,
``gym_suite_jax``) are reserved.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from typing import Any

import gymnasium

from gym_suite import _registry
from gym_suite._registry import ID_PATTERN, RESERVED_NAMESPACES, Spec, jax_id

__all__ = ["register", "unregister"]

_REFERENCE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
_CLASS_NAME = re.compile(r"[A-Za-z_]\w*Env")


def default_class_name(env_id: str) -> str:
    """The scalar env class's name of an id, as the suite names its own: ``mypkg/key-door-v0``
    -> ``KeyDoorEnv``, ``mypkg/grid-v1`` -> ``GridV1Env`` (the namespace left out)."""
    match = ID_PATTERN.fullmatch(env_id)
    if match is None:
        raise ValueError(f"register: env_id must be 'namespace/name-vN' (e.g. 'mypkg/grid-v0'), got {env_id!r}")
    words = re.split(r"[^A-Za-z0-9]+", match["name"])
    version = int(match["version"])
    return "".join(word[:1].upper() + word[1:] for word in words) + (f"V{version}" if version else "") + "Env"


def _check_id(env_id: object) -> str:
    if not isinstance(env_id, str):
        raise TypeError(f"register: env_id must be a string 'namespace/name-vN', got {type(env_id).__name__}")
    match = ID_PATTERN.fullmatch(env_id)
    if match is None:
        raise ValueError(
            f"register: env_id must be 'namespace/name-vN' (e.g. 'mypkg/grid-v0': another package's ids are "
            f"namespaced), got {env_id!r}"
        )
    if match["namespace"] in RESERVED_NAMESPACES or match["namespace"].endswith("_jax"):
        raise ValueError(
            f"register: the namespace {match['namespace']!r} is reserved (the suite's, or a JAX env's); "
            "use your package's name"
        )
    if _registry.find(env_id) is not None:
        raise ValueError(f"register: the id {env_id!r} is registered already (unregister it first)")
    for taken in (env_id, jax_id(env_id)):
        if taken in gymnasium.registry:
            raise ValueError(f"register: the id {taken!r} is registered with gymnasium already (unregister it first)")
    return env_id


def _check_reference(name: str, value: object, kind: str) -> None:
    if isinstance(value, str) and not _REFERENCE.fullmatch(value):
        raise ValueError(f"register: {name} must be {kind} or a 'module:attribute' string naming it, got {value!r}")


def register(
    env_id: str,
    *,
    definition: Any,
    params: Any,
    max_episode_steps: int | None,
    summary: str,
    class_name: str | None = None,
    manual: str | None = None,
) -> Spec:
    """Register another package's environment with the suite, Gymnasium and (when imported) gym.

    ``env_id`` is ``"namespace/name-vN"`` (``"mypkg/grid-v0"``); ``definition`` the
    :class:`~gym_suite.envs.definition.Definition` instance (or a ``"module:attribute"`` string
    naming it, imported on first use); ``params`` the version's parameter set, a frozen
    dataclass instance (or its ``"module:attribute"``); ``max_episode_steps`` the step limit
    (``None``: the rules end every episode); ``summary`` one line for lists; ``class_name`` the
    scalar env class's name in ``gym_suite.envs`` (default from the id: ``GridEnv``,
    ``GridV1Env``; the vector class adds ``Vector``); ``manual`` a ``"module:attribute"`` naming
    the classes' docstring (default: the definition's module docstring).

    Returns the registry row. Afterwards ``gymnasium.make(env_id)``, ``gymnasium.make_vec``,
    ``gymnasium.make("namespace_jax/name-vN")``, ``gym_suite.jax.make(env_id)``,
    ``check_definition(env_id)``, ``gym_suite.evaluate`` and ``gym-suite evaluate`` know it.
    Raises ``TypeError`` for an argument of the wrong kind and ``ValueError`` for a bad or taken
    id or class name, before anything is registered.
    """
    from gym_suite.envs.checks import check_int
    from gym_suite.envs.definition import Definition

    env_id = _check_id(env_id)
    if not isinstance(definition, (str, Definition)):
        raise TypeError(
            f"register: definition must be a Definition instance or a 'module:attribute' string, "
            f"got {type(definition).__name__}"
        )
    _check_reference("definition", definition, "a Definition instance")
    if isinstance(params, str):
        _check_reference("params", params, "a parameters dataclass instance")
    elif not dataclasses.is_dataclass(params) or isinstance(params, type):
        raise TypeError(
            "register: params must be the version's parameter set, a dataclass instance (V0 = GridParams()), "
            f"or a 'module:attribute' string, got {type(params).__name__}"
        )
    if not isinstance(definition, str) and not isinstance(params, str):
        missing = [name for name in definition.arguments if not isinstance(name, str) or not hasattr(params, name)]
        if missing:
            raise ValueError(
                f"register: the definition's arguments declare {missing}, which {type(params).__name__} has no "
                "field of: each argument is a field of the parameters"
            )
    max_episode_steps = check_int("register", "max_episode_steps", max_episode_steps, 1, allow_none=True)
    if not isinstance(summary, str):
        raise TypeError(f"register: summary must be a string (one line), got {type(summary).__name__}")
    if not summary.strip() or "\n" in summary:
        raise ValueError(f"register: summary must be one line of text, got {summary!r}")
    if class_name is None:
        class_name = default_class_name(env_id)
    elif not isinstance(class_name, str):
        raise TypeError(f"register: class_name must be a string ending in 'Env', got {type(class_name).__name__}")
    elif not _CLASS_NAME.fullmatch(class_name):
        raise ValueError(f"register: class_name must be an identifier ending in 'Env' ('GridEnv'), got {class_name!r}")
    if manual is not None:
        if not isinstance(manual, str):
            raise TypeError(
                f"register: manual must be a 'module:attribute' string or None, got {type(manual).__name__}"
            )
        _check_reference("manual", manual, "None")
    spec = Spec(
        env_id,
        definition=definition,
        params=params,
        class_name=class_name,
        max_episode_steps=max_episode_steps,
        summary=summary.strip(),
        manual=manual,
    )
    _registry.add(spec)
    register_row(spec)
    if "gym" in sys.modules:
        from gym_suite._gym import register_gym

        register_gym()
    return spec


def register_row(spec: Spec) -> None:
    """Register one row's ids with Gymnasium: the id and its JAX env (``gym_suite_jax/<id>``, or
    ``namespace_jax/<name>``); an id that exists already is left alone."""
    if spec.id not in gymnasium.registry:
        gymnasium.register(
            id=spec.id,
            entry_point=spec.entry_point,
            vector_entry_point=spec.vector_entry_point,
            max_episode_steps=spec.max_episode_steps,  # TimeLimit's, and make_vec passes it to the vector env
        )
    jax = jax_id(spec.id)
    if jax not in gymnasium.registry:  # the JAX env (gym_suite.jax, the [jax] extra): strings only, JAX loads on make
        gymnasium.register(
            id=jax,
            entry_point="gym_suite.jax:JaxEnv",
            vector_entry_point="gym_suite.jax:JaxVectorEnv",
            max_episode_steps=spec.max_episode_steps,
            kwargs={"env_id": spec.id},
            disable_env_checker=True,
        )


def unregister(env_id: str) -> Spec:
    """Remove a row :func:`register` added, and its ids from Gymnasium (and gym); returns the row.

    Meant for tests and notebooks: an env made before keeps working. The suite's own ids stay
    registered (``ValueError``), as does an id no one registered.
    """
    if not isinstance(env_id, str):
        raise TypeError(f"unregister: env_id must be a string, got {type(env_id).__name__}")
    spec = _registry.remove(env_id)
    for registered in (spec.id, jax_id(spec.id)):
        gymnasium.registry.pop(registered, None)
    gym = sys.modules.get("gym")
    if gym is not None:
        gym.envs.registration.registry.pop(spec.id, None)
    envs = sys.modules.get("gym_suite.envs")
    if envs is not None:  # the classes it published go with the row
        for name in (spec.class_name, spec.vector_class_name):
            vars(envs).pop(name, None)
    return spec
