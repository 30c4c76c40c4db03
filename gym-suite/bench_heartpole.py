"""Speed of ``heartpole-v0`` against the PyPI package ``heartpole==1.2``, in one run.

    python gym-suite/bench_heartpole.py [--side-venv /tmp/heartpole12-venv] [gym-suite bench options]

``heartpole==1.2`` (the tutorial author's release) pins ``numpy<2`` and ``gymnasium 0.29``, so it
runs in a virtual environment of its own. This script creates that environment at
``--side-venv`` with pip from PyPI when it is missing, then runs ``gym-suite bench --ids
heartpole-v0`` with it: the same timing protocol, rows and targets as the whole-suite
benchmark (heartpole 1.2; heartpole-v0 raw, through ``gymnasium.make`` and ``gym.make``;
``SyncVectorEnv`` at N=8 and 64; the native vector env at N=64, 1,024 and 4,096; CartPole-v1
for reference), and its targets: ``make`` >= 5x heartpole 1.2, native N=64 >= 20x
``SyncVectorEnv`` N=64, native N=4,096 >= 5M env-steps/s. Other options go to the bench
(``--quick``, ``--repeats``, ``--seconds``, ``--json``, ``--markdown``).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from gym_suite import bench

DEFAULT_SIDE_VENV = Path(bench.HEARTPOLE_VENV_CANDIDATES[0])


def ensure_side_venv(path: Path) -> Path:
    """A virtual environment at ``path`` holding ``heartpole==1.2`` (made with pip when missing)."""
    python = path / "bin" / "python"
    check = [str(python), "-c", "import heartpole"]
    if python.exists() and subprocess.run(check, capture_output=True).returncode == 0:
        return path
    print(f"creating {path} with heartpole==1.2 from PyPI ...", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "-q", "heartpole==1.2"], check=True)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--side-venv", type=Path, default=DEFAULT_SIDE_VENV, help=f"default {DEFAULT_SIDE_VENV}")
    args, rest = parser.parse_known_args(argv)
    venv = ensure_side_venv(args.side_venv)
    return bench.main(["--ids", "heartpole-v0", "--heartpole-venv", str(venv), *rest])


if __name__ == "__main__":
    sys.exit(main())
