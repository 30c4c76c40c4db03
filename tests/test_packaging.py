"""The package as users get it: a built sdist and wheel, twine, a fresh virtual environment, an index.

These tests build and install for real (a minute or two): a wheel that forgot its data or its
plugin entry point fails here, not in a user's hands.
"""

from __future__ import annotations

import ast
import os
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

import gym_suite

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
    result = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, **kwargs)
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


def test_build_makes_sdist_and_wheel_that_twine_accepts(dist):
    wheels = list(dist.glob(f"gym_suite-{VERSION}-*.whl"))
    sdists = list(dist.glob(f"gym_suite-{VERSION}.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1
    out = run(sys.executable, "-m", "twine", "check", "--strict", *wheels, *sdists)
    assert out.stdout.count("PASSED") == 2


def test_every_data_file_ships_in_sdist_and_wheel(dist):
    data_dir = ROOT / "gym_suite" / "envs" / "data"
    data_files = sorted(p.relative_to(ROOT).as_posix() for p in data_dir.rglob("*") if p.is_file())
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    wheel_names = set(zipfile.ZipFile(wheel).namelist())
    with tarfile.open(sdist) as tar:
        sdist_names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    for name in data_files:
        assert name in wheel_names, f"{name} missing from the wheel"
        assert name in sdist_names, f"{name} missing from the sdist"
    for module in ("gym_suite/__init__.py", "gym_suite/_gym.py", "gym_suite/envs/example_env.py"):
        assert module in wheel_names
    entry_points = zipfile.ZipFile(wheel).read(f"gym_suite-{VERSION}.dist-info/entry_points.txt").decode()
    assert "gym-suite = gym_suite.cli:main" in entry_points
    assert "[gym.envs]" in entry_points


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
    server = subprocess.Popen(
        [sys.executable, "-m", "pypiserver", "run", "-i", "127.0.0.1", "-p", str(port),
         "-a", ".", "-P", ".", str(packages)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url + "/simple/", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise AssertionError("the local package index did not start")
                time.sleep(0.2)
        run(sys.executable, "-m", "twine", "upload", "--non-interactive", "--repository-url", url + "/",
            "-u", "user", "-p", "secret", *dist.glob("*"))
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


def setup_py_requirements() -> list[str]:
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "INSTALL_REQUIRES":
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py has no INSTALL_REQUIRES list")


def requirement_name(requirement: str) -> str:
    import re

    return re.split(r"[<>=!~\[ ;]", requirement, maxsplit=1)[0].strip().lower()


def test_environment_yml_names_every_runtime_requirement():
    yaml = pytest.importorskip("yaml")
    spec = yaml.safe_load((ROOT / "environment.yml").read_text())
    assert spec["name"] == "gym-suite"
    assert "conda-forge" in spec["channels"]
    conda = [d for d in spec["dependencies"] if isinstance(d, str)]
    pip_section = next(d["pip"] for d in spec["dependencies"] if isinstance(d, dict))
    assert "python=3.11" in conda
    conda_names = {requirement_name(d) for d in conda}
    runtime = setup_py_requirements()
    assert runtime, "no runtime requirements found"
    missing = [r for r in runtime if requirement_name(r) not in conda_names]
    assert not missing, f"environment.yml lacks {missing}"
    assert any(line.replace(" ", "").startswith("-e.[gym]") or "[gym]" in line for line in pip_section)


def test_cli_list_and_demo_and_module_entry():
    listed = run(sys.executable, "-m", "gym_suite", "list").stdout
    demo = run(sys.executable, "-m", "gym_suite", "demo", "--seed", "3").stdout
    for env_id in gym_suite.ENV_IDS:
        assert env_id in listed
        row = next(line for line in demo.splitlines() if line.startswith(f"| {env_id} "))
        assert "terminated" in row or "truncated" in row
    assert "observation space" in listed
