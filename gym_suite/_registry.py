"""The suite's registry: one row per environment id (``SPECS``), and the public :func:`register`.

The bottom of the package: at import time it imports only the standard library. A row names by
``"module:attribute"`` strings the definition (the rules), the parameter set (the version) and,
where it is not the module's docstring, the manual; ``gym_suite.envs`` makes its classes on first
use. Another package registers a definition written the suite's way with one call, under its own
namespace (``mypkg/grid-v0``; its JAX env ``mypkg_jax/grid-v0``); ``gym_suite`` and
``gym_suite_jax`` are reserved::

    gym_suite.register("mypkg/grid-v0", definition=GRID, params=V0, max_episode_steps=100,
                       summary="Find the key, open the door.")
"""

from __future__ import annotations

import dataclasses
import importlib
import re
import sys
from dataclasses import KW_ONLY, dataclass
from typing import TYPE_CHECKING, Any, overload

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

#: The module that publishes the classes of every row (``gym_suite.envs.HeartPoleEnv``).
CLASSES_MODULE = "gym_suite.envs"


@dataclass(frozen=True)
class Spec:
    """One row: ``definition`` and ``params`` as ``"module:attribute"`` strings (or, from
    ``register``, the objects); ``class_name`` the scalar env class's name; ``max_episode_steps``
    (``None``: the rules end the episode); ``summary`` one line; ``manual`` the classes' docstring
    as ``"module:attribute"`` (``None``: the definition's module docstring)."""

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
    """The object a ``"module:attribute"`` string names (``"module:Class.__doc__"`` too); anything else as it is."""
    if not isinstance(reference, str):
        return reference
    module, _, path = reference.partition(":")
    if not module or not path:
        raise ValueError(f"expected a 'module:attribute' reference, got {reference!r}")
    found: Any = importlib.import_module(module)
    for attribute in path.split("."):
        found = getattr(found, attribute)
    return found


def check_row(spec: Spec) -> None:
    """Check what a registered row's strings name, on first use (``register`` imports nothing:
    a package may call it while its own modules are being imported)."""
    if spec.id not in _ADDED:
        return
    from gym_suite.envs.definition import Definition

    kinds: dict[str, tuple[Callable[[object], bool], str]] = {
        "definition": (lambda found: isinstance(found, Definition), "a Definition instance"),
        "params": (
            lambda found: dataclasses.is_dataclass(found) and not isinstance(found, type),
            "a dataclass instance",
        ),
        "manual": (lambda found: isinstance(found, str), "a string, the classes' docstring"),
    }
    for argument, (right, kind) in kinds.items():
        reference = getattr(spec, argument)
        if not isinstance(reference, str):
            continue
        try:
            found = load(reference)
        except AttributeError as exc:
            raise ValueError(f"register({spec.id!r}): {argument}={reference!r}: {exc}") from None
        if not right(found):
            raise TypeError(
                f"register({spec.id!r}): {argument}={reference!r} is of type {type(found).__name__}, expected {kind}"
            )


def listed(ids: Iterable[str], first: int = 20) -> str:
    """A list of ids for a message, cut after the ``first``: ``['a-v0', 'b-v0', ... 12 more]``."""
    ids = list(ids)
    more = f", ... {len(ids) - first} more" if len(ids) > first else ""
    return "[" + ", ".join(map(repr, ids[:first])) + more + "]"


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

#: The tutorials' ids, and the suite's id for each: making one raises an error naming it (no silent alias).
RENAMED_IDS: dict[str, str] = {"HeartPole-v0": "heartpole-v0"}

JAX_NAMESPACE = "gym_suite_jax"

#: Another package's id: ``namespace/name-vN`` (no ``:``: gymnasium reads ``"module:id"`` as a module to import).
ID_PATTERN = re.compile(
    r"(?P<namespace>[A-Za-z][A-Za-z0-9_-]*)/(?P<name>[A-Za-z][A-Za-z0-9_.-]*?)-v(?P<version>0|[1-9][0-9]*)"
)
RESERVED_NAMESPACES = frozenset({"gym_suite", JAX_NAMESPACE})

#: The rows other packages registered, by id, in the order they came.
_ADDED: dict[str, Spec] = {}


def rows() -> tuple[Spec, ...]:
    """Every row: the suite's own (``SPECS``), then those other packages registered."""
    return SPECS + tuple(_ADDED.values())


def find(env_id: str) -> Spec | None:
    """The row of ``env_id`` (the suite's or a registered one), or ``None``."""
    return next((spec for spec in SPECS if spec.id == env_id), None) or _ADDED.get(env_id)


def jax_id(env_id: str) -> str:
    """The row's JAX env id: ``gym_suite_jax/heartpole-v1``, ``mypkg_jax/grid-v0`` for ``mypkg/grid-v0``."""
    namespace, slash, rest = env_id.partition("/")
    return f"{namespace}_jax/{rest}" if slash else f"{JAX_NAMESPACE}/{env_id}"


SUITE_PREFIX = "gym_suite:"


@overload
def suite_id(env_id: str, *, jax: bool = False) -> str: ...


@overload
def suite_id(env_id: object, *, jax: bool = False) -> object: ...


def suite_id(env_id: object, *, jax: bool = False) -> object:
    """The registry id of ``env_id``: ``"gym_suite:push-v1"`` is ``"push-v1"``, and with ``jax`` so
    is ``"gym_suite_jax/push-v1"``; anything but a suite id is returned as it is, for the caller to refuse."""
    if not isinstance(env_id, str):
        return env_id
    name = env_id.removeprefix(SUITE_PREFIX)
    if jax:
        name = name.removeprefix(f"{JAX_NAMESPACE}/")
    return name if name in ENV_IDS else env_id


_REFERENCE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*")
_CLASS_NAME = re.compile(r"[A-Za-z_]\w*Env")


def _class_name(env_id: str) -> str:
    """The checked id's class name: ``mypkg/key-door-v0`` -> ``KeyDoorEnv``, ``mypkg/grid-v1`` -> ``GridV1Env``."""
    import gymnasium

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
    if find(env_id) is not None:
        raise ValueError(f"register: the id {env_id!r} is registered already (unregister it first)")
    for taken in (env_id, jax_id(env_id)):
        if taken in gymnasium.registry:
            raise ValueError(f"register: the id {taken!r} is registered with gymnasium already (unregister it first)")
    words = re.split(r"[^A-Za-z0-9]+", match["name"])
    version = int(match["version"])
    return "".join(word[:1].upper() + word[1:] for word in words) + (f"V{version}" if version else "") + "Env"


def _check_reference(name: str, value: object, kind: str) -> None:
    if isinstance(value, str) and not _REFERENCE.fullmatch(value):
        raise ValueError(f"register: {name} must be {kind} or a 'module:attribute' string naming it, got {value!r}")


def _check_definition(definition: Any, params: Any) -> None:
    from gym_suite.envs.definition import Definition

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

    ``env_id`` is ``"namespace/name-vN"``; ``definition`` the
    :class:`~gym_suite.envs.definition.Definition` and ``params`` the version's frozen dataclass
    instance (either as a ``"module:attribute"``, imported on first use); ``max_episode_steps``
    the step limit (``None``: the rules end every episode); ``summary`` one line; ``class_name``
    the scalar env class's name (default from the id: ``GridEnv``, ``GridV1Env``); ``manual`` a
    ``"module:attribute"`` naming the classes' docstring (default: the definition's module's).
    Returns the row. ``TypeError`` for a wrong kind, ``ValueError`` for a bad or taken id or class
    name, before anything is registered.
    """
    from gym_suite.envs.checks import check_int

    default_class_name = _class_name(env_id)
    _check_definition(definition, params)
    max_episode_steps = check_int("register", "max_episode_steps", max_episode_steps, 1, allow_none=True)
    if not isinstance(summary, str):
        raise TypeError(f"register: summary must be a string (one line), got {type(summary).__name__}")
    if not summary.strip() or summary.splitlines() != [summary]:  # "\r", "\u2028": line breaks too
        raise ValueError(f"register: summary must be one line of text, got {summary!r}")
    if class_name is None:
        class_name = default_class_name
    elif not isinstance(class_name, str):
        raise TypeError(f"register: class_name must be a string ending in 'Env', got {type(class_name).__name__}")
    elif not _CLASS_NAME.fullmatch(class_name):
        raise ValueError(f"register: class_name must be an identifier ending in 'Env' ('GridEnv'), got {class_name!r}")
    if manual is not None and not isinstance(manual, str):
        raise TypeError(f"register: manual must be a 'module:attribute' string or None, got {type(manual).__name__}")
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
    for row in rows():  # the scalar and the vector names: gym_suite.envs publishes both
        if taken := sorted({spec.class_name, spec.vector_class_name} & {row.class_name, row.vector_class_name}):
            raise ValueError(f"register: the class name {taken[0]!r} is taken by {row.id!r}; pass class_name='...Env'")
    _ADDED[env_id] = spec
    register_row(spec)
    if "gym" in sys.modules:  # by name, as the rows name their modules: gym_suite._gym imports this one
        load("gym_suite._gym:register_gym")()
    return spec


def register_row(spec: Spec) -> None:
    """Register a row's id and its JAX env with Gymnasium (an id that exists is left alone)."""
    import gymnasium

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
    For tests and notebooks: an env made before keeps working; the suite's own ids stay (``ValueError``)."""
    if not isinstance(env_id, str):
        raise TypeError(f"unregister: env_id must be a string, got {type(env_id).__name__}")
    import gymnasium

    if any(spec.id == env_id for spec in SPECS):
        raise ValueError(f"unregister: {env_id!r} is one of the suite's own ids, which stay registered")
    if env_id not in _ADDED:
        shown = repr(env_id) if len(env_id) <= 80 else repr(env_id[:77]) + "..."
        raise ValueError(f"unregister: {shown} is not registered; the registered ids are {listed(_ADDED)}")
    spec = _ADDED.pop(env_id)
    for registered in (spec.id, jax_id(spec.id)):
        gymnasium.registry.pop(registered, None)
    gym = sys.modules.get("gym")
    if gym is not None:
        gym.envs.registration.registry.pop(spec.id, None)
    envs = sys.modules.get("gym_suite.envs")
    if envs is not None:
        for name in (spec.class_name, spec.vector_class_name):
            vars(envs).pop(name, None)
    return spec
