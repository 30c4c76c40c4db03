"""The package as users get it, built and installed for real: sdist and wheel, twine, a fresh venv, an index."""

from __future__ import annotations

import email
import os
import re
import socket
import subprocess
import sys
import tarfile
import time
import urllib.request
import venv
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import gym_suite

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
VERSION = gym_suite.__version__
pytestmark = pytest.mark.slow

SMOKE = """
import gymnasium, gym_suite, sys
assert 'site-packages' in gym_suite.__file__, gym_suite.__file__
for env_id in gym_suite.ENV_IDS:
    env = gymnasium.make('gym_suite:' + env_id)
    env.reset(seed=0)
    env.step(env.action_space.sample())
if '--gym' in sys.argv:
    import gym
    for env_id in gym_suite.ENV_IDS:
        env = gym.make(env_id)
        env.reset(seed=0)
        env.step(env.action_space.sample())
print('served', len(gym_suite.ENV_IDS))
"""


def run(*cmd, cwd=None, **kwargs):
    """``cmd``, without a ``PYTHONPATH`` that would let a fresh venv import the source tree."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, env=env, **kwargs)
    if result.returncode != 0:
        raise AssertionError(f"{cmd} failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", out, ROOT)
    return out


def fresh_python(where: Path) -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    return where / "bin" / "python"


def test_build_makes_sdist_and_wheel_that_twine_accepts_with_pyprojects_metadata(dist):
    wheels = list(dist.glob(f"gym_suite-{VERSION}-*.whl"))
    sdists = list(dist.glob(f"gym_suite-{VERSION}.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1
    assert run(sys.executable, "-m", "twine", "check", "--strict", *wheels, *sdists).stdout.count("PASSED") == 2
    meta = email.message_from_bytes(zipfile.ZipFile(wheels[0]).read(f"gym_suite-{VERSION}.dist-info/METADATA"))
    assert meta["Name"] == "gym-suite" and meta["Version"] == VERSION  # read from gym_suite.__version__
    assert meta["Requires-Python"] == ">=3.10"
    runtime = sorted(str(Requirement(r)) for r in meta.get_all("Requires-Dist") if "extra ==" not in r)
    assert runtime == sorted(str(Requirement(r)) for r in pyproject_dependencies())
    assert {"gym", "render", "sb3", "rllib", "test", "dev"} <= set(meta.get_all("Provides-Extra"))
    description = meta.get_payload()
    assert "# gym-suite" in description  # README.md is the long description ...
    assert "](docs/" not in description and "![" not in description  # ... without pictures the index cannot show
    assert meta["Description-Content-Type"] == "text/markdown"


def test_the_wheel_ships_the_data_and_the_sdist_the_repository(dist):
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    wheel_names = set(zipfile.ZipFile(wheel).namelist())
    with tarfile.open(sdist) as tar:
        sdist_names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    data = [p.relative_to(ROOT).as_posix() for p in (ROOT / "gym_suite" / "envs" / "data").rglob("*") if p.is_file()]
    shipped = [*data, "gym_suite/py.typed", "gym_suite/data/baselines.csv"]  # type hints; score's table
    assert not [name for name in shipped if name not in wheel_names or name not in sdist_names]
    assert {"gym_suite/__init__.py", "gym_suite/_gym.py", "gym_suite/envs/example_env.py"} <= wheel_names
    entry_points = zipfile.ZipFile(wheel).read(f"gym_suite-{VERSION}.dist-info/entry_points.txt").decode()
    assert "gym-suite = gym_suite.cli:main" in entry_points and "[gym.envs]" in entry_points
    wanted = ["README.md", "LICENSE", "CHANGELOG.md", "environment.yml", "pyproject.toml", "setup.py", "mkdocs.yml"]
    folders = {"gym-suite": ("*.py", "README.md"), "tests": ("*.py",), "docs": ("*.md", "*.py", "*.gif")}
    for folder, patterns in folders.items():  # the documentation site builds from the sdist
        found = [p for pattern in patterns for p in (ROOT / folder).rglob(pattern) if "__pycache__" not in p.parts]
        wanted += [p.relative_to(ROOT).as_posix() for p in found]
    assert "tests/conftest.py" in wanted and "docs/_scripts/gen_env_pages.py" in wanted
    missing = [name for name in wanted if name not in sdist_names]
    assert not missing, f"missing from the sdist: {missing}"


def test_wheel_in_a_fresh_venv_serves_gymnasium_and_gym(dist, tmp_path):
    python = fresh_python(tmp_path / "venv")
    (wheel,) = dist.glob("*.whl")
    run(python, "-m", "pip", "install", "-q", f"{wheel}[gym]")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()  # outside the source tree, so only the installed package can be imported
    out = run(python, "-c", SMOKE, "--gym", cwd=elsewhere)
    assert out.stdout.strip() == f"served {len(gym_suite.ENV_IDS)}"
    demo = run(tmp_path / "venv" / "bin" / "gym-suite", "demo", cwd=elsewhere)
    for env_id in gym_suite.ENV_IDS:
        assert env_id in demo.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_release_path_twine_upload_to_an_index_then_pip_install(dist, tmp_path):
    packages = tmp_path / "index"
    packages.mkdir()
    port = free_port()
    serve = [sys.executable, "-m", "pypiserver", "run", "-i", "127.0.0.1", "-p", str(port), "-a", ".", "-P", "."]
    server = subprocess.Popen([*serve, str(packages)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "/simple/", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise AssertionError("the local package index did not start") from None
                time.sleep(0.2)
        upload = ["upload", "--non-interactive", "--repository-url", url + "/", "-u", "user", "-p", "secret"]
        run(sys.executable, "-m", "twine", *upload, *dist.glob("*"))
        uploaded = sorted(p.name for p in packages.iterdir())
        assert len(uploaded) == 2, uploaded
        python = fresh_python(tmp_path / "venv")
        # gym-suite from the local index only; its dependencies then from the usual one
        run(python, "-m", "pip", "install", "-q", "--no-deps", "--index-url", url + "/simple/", f"gym-suite=={VERSION}")
        run(python, "-m", "pip", "install", "-q", f"gym-suite=={VERSION}")
        out = run(python, "-c", SMOKE, cwd=tmp_path)
        assert out.stdout.strip() == f"served {len(gym_suite.ENV_IDS)}"
    finally:
        server.terminate()
        server.wait(timeout=10)


def pyproject_dependencies() -> list[str]:
    """The runtime requirements: pyproject.toml's ``[project] dependencies``."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        dependencies = tomllib.load(f)["project"]["dependencies"]
    assert dependencies, "pyproject.toml lists no runtime dependencies"
    return dependencies


def requirement_name(requirement: str) -> str:
    return re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")


def test_environment_yml_matches_the_runtime_requirements():
    """environment.yml's conda list is the runtime requirements (and python, pip); pip installs the gym extra."""
    yaml = pytest.importorskip("yaml")
    spec = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert spec["name"] == "gym-suite" and "conda-forge" in spec["channels"]
    conda = [d for d in spec["dependencies"] if isinstance(d, str)]
    assert "python=3.11" in conda
    conda_bounds = {
        requirement_name(d): Requirement(d.replace(" ", "")).specifier
        for d in conda
        if requirement_name(d) not in ("python", "pip")
    }
    assert conda_bounds == {requirement_name(r): Requirement(r).specifier for r in pyproject_dependencies()}
    pip_section = next(d["pip"] for d in spec["dependencies"] if isinstance(d, dict))
    assert any("[gym]" in line for line in pip_section)
