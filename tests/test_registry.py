"""The registry at the bottom of the package (the standard library alone at import time), the classes made from
its rows and published by ``gym_suite.envs``, and no import circle in the package."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pickle
import subprocess
import sys
from pathlib import Path

import gymnasium
import pytest

import gym_suite
import gym_suite.envs
from gym_suite._registry import SPECS, Spec, load
from gym_suite.envs.definition import Definition

PACKAGE = Path(gym_suite.__file__).resolve().parent


def _at_import_time(node: ast.AST):
    """The nodes of a module that run when it is imported: every one but the bodies of functions."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            yield from _at_import_time(child)


def _imports(path: Path, at_import_time: bool = False) -> list[tuple[str, list[str]]]:
    """Every import of a file (with ``at_import_time``, outside functions): ``(module, names)``, relative resolved."""
    found = []
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if path.name != "__init__.py":
        package = package.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in (_at_import_time if at_import_time else ast.walk)(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.append((module, [alias.name for alias in node.names]))
    return found


def test_the_registry_module_imports_only_the_standard_library_at_import_time():
    modules = {module.split(".")[0] for module, _ in _imports(PACKAGE / "_registry.py", at_import_time=True)}
    assert modules, "no import found: the parser missed them"
    assert modules <= set(sys.stdlib_module_names) | {"__future__"}, modules
    lazy = {module for module, _ in _imports(PACKAGE / "_registry.py")} - modules
    lazy = {module for module in lazy if module.split(".")[0] not in sys.stdlib_module_names}
    assert lazy and lazy <= {"gymnasium", "gym_suite.envs.checks", "gym_suite.envs.definition"}, lazy


def _module_graph(at_import_time: bool = False) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (``from a import X``: ``a.X`` when a module, else ``a``)."""
    files = {
        ".".join(p.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__"): p
        for p in PACKAGE.rglob("*.py")
    }
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets = set()
        for module, names in _imports(path, at_import_time):
            if module not in files:
                continue
            subs = {f"{module}.{n}" for n in names} & set(files)
            targets |= subs or {module}
            if subs and len(subs) < len(names):  # names of the package module itself too
                targets.add(module)
        graph[name] = targets - {name}
    return graph


def test_no_module_of_the_package_imports_one_that_imports_it_back():
    graph = _module_graph()
    assert len(graph) > 20 and _module_graph(at_import_time=True)["gym_suite._registry"] == set()
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            raise AssertionError("import circle: " + " -> ".join([*path[path.index(module) :], module]))
        if module in done:
            return
        for target in sorted(graph[module]):
            visit(target, [*path, module])
        done.add(module)

    for module in sorted(graph):
        visit(module, [])


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.id)
def test_a_row_names_a_definition_and_parameters_and_gym_suite_envs_publishes_its_classes(spec):
    definition, params = load(spec.definition), load(spec.params)
    assert isinstance(definition, Definition) and dataclasses.is_dataclass(params) and not isinstance(params, type)
    types = {f.name: f.type for f in dataclasses.fields(params)}
    assert set(definition.arguments) <= set(types) and not hasattr(Spec, "kwargs")
    scalar, vector = getattr(gym_suite.envs, spec.class_name), getattr(gym_suite.envs, spec.vector_class_name)
    assert (
        scalar.__name__ == spec.class_name and vector.__name__ == spec.vector_class_name and vector.scalar_env is scalar
    )
    registered = gymnasium.spec(spec.id)
    assert spec.entry_point == f"gym_suite.envs:{spec.class_name}" == registered.entry_point
    assert spec.vector_entry_point == f"gym_suite.envs:{spec.vector_class_name}" == registered.vector_entry_point
    assert scalar.__module__ == vector.__module__ == spec.definition.partition(":")[0]
    for cls in (scalar, vector):  # written out at the end of the environment's file, each argument typed
        assert inspect.getsource(cls).startswith(f"class {cls.__name__}("), cls
        parameters = inspect.signature(cls).parameters
        assert all(parameters[name].annotation == types[name] for name in definition.arguments), cls
    assert scalar.definition is definition and scalar.base_params is params
    manual = load(spec.manual) if spec.manual else sys.modules[spec.definition.partition(":")[0]].__doc__
    assert scalar.__doc__.split("## Arguments")[0] == manual.split("## Arguments")[0]
    assert "| `render_mode` |" in scalar.__doc__.split("## Arguments")[1]  # the table written from the declarations
    made = gymnasium.make(spec.id, **({"episode_length": 3} if spec.id == "push-v0" else {}))
    assert type(made.unwrapped) is scalar  # one class per row, whoever asks
    assert pickle.loads(pickle.dumps(type(made.unwrapped))) is scalar
    made.close()


def test_two_versions_of_one_definition_are_two_rows_and_an_unknown_name_is_an_attribute_error():
    v0, v1 = (next(s for s in SPECS if s.id == i) for i in ("heartpole-v0", "heartpole-v1"))
    assert load(v0.definition) is load(v1.definition) and load(v0.params) != load(v1.params)
    assert gym_suite.envs.HeartPoleEnv.definition is gym_suite.envs.HeartPoleV1Env.definition
    with pytest.raises(AttributeError, match="NoSuchEnv"):
        gym_suite.envs.NoSuchEnv  # noqa: B018
    with pytest.raises(ImportError):
        exec("from gym_suite.envs import HeartPoleEnvv", {})


def test_importing_the_package_makes_no_class_and_loads_no_environment_file():
    code = (
        "import sys, gym_suite, gym_suite.envs\n"
        "made = sorted(n for n in vars(gym_suite.envs) if n.endswith('Env'))\n"
        "loaded = sorted(m for m in sys.modules if m.endswith('_env') and m.startswith('gym_suite'))\n"
        "assert not made and not loaded, (made, loaded)\n"
        "from gym_suite.envs import TargetV1Env\n"
        "assert 'gym_suite.envs.target_env' in sys.modules and 'gym_suite.envs.heartpole_env' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_jax_env_without_jax_says_to_install_the_extra():
    code = (
        "import sys; sys.modules['jax'] = None\n"
        "import gymnasium, gym_suite\n"
        "try:\n"
        "    gymnasium.make('gym_suite_jax/heartpole-v1')\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("ModuleNotFoundError") and 'pip install "gym-suite[jax]"' in out, out
