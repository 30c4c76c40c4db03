"""The baselines grid as Ray tasks on a real two-node Ray cluster, interrupted and resumed.

``python gym-suite/benchmarks/baselines.py`` is the driver, joining the cluster with
``RAY_ADDRESS`` (``two_node_cluster``, tests/ray_cluster.py: a head with the custom resource
``head_node`` and a second node with ``second_node``, one CPU each). The grid is tiny: two ids,
the random policy (pinned to the second node with ``--resources random:second_node=1``), the
heuristic (pinned to the head) and SB3 PPO for 2,048 steps on two training seeds (placed by Ray).
The first driver is killed as soon as it has recorded its first run; the same command then runs
only what the runs file does not hold.
"""

from __future__ import annotations

import csv
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray")
pytest.importorskip("rliable")  # the summary after the runs (the baselines extra)

pytestmark = [
    pytest.mark.multinode,
    pytest.mark.slow,  # starts a Ray cluster and trains across it
    pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the cluster's processes through /proc (Linux)"),
]

from ray_cluster import WAIT_FOR_NODES  # noqa: E402  (tests/ray_cluster.py)

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "gym-suite" / "benchmarks" / "baselines.py"
IDS = ("example-v0", "target-v0")
SEEDS = (0, 1)
GRID = {
    (env_id, policy, seed) for env_id in IDS for policy, seed in [("random", ""), ("heuristic", ""), *(("sb3-ppo", str(s)) for s in SEEDS)]
}  # fmt: skip
LABELS = {"random": "random", "heuristic": "heuristic", "SB3 PPO": "sb3-ppo"}
#: the driver's line for a recorded run: id, label, seed ("-" for none), ..., the node's id (12 hex digits)
PROGRESS = re.compile(r"^(\S+-v\d+)\s+(random|heuristic|SB3 PPO)\s+seed\s+(\S+)\s+return .* node ([0-9a-f]{12})$")


def command(runs: Path) -> list[str]:
    return [
        sys.executable, str(SCRIPT), "--ids", ",".join(IDS), "--policies", "random,heuristic,sb3-ppo",
        "--seeds", ",".join(map(str, SEEDS)), "--budget", "sb3-ppo=2048", "--episodes", "20", "--reps", "1000",
        "--resources", "random:second_node=1", "--resources", "heuristic:head_node=1",
        "--runs-csv", str(runs), "--out-md", "", "--out-csv", "", "--out-png", "", "--out-machine", "", "--readme", "",
    ]  # fmt: skip


def progress(line: str) -> tuple[tuple[str, str, str], str] | None:
    """``((id, policy, seed), node)`` of a driver's line that reports a recorded run."""
    found = PROGRESS.match(line.strip())
    if not found:
        return None
    env_id, label, seed, node = found.groups()
    return (env_id, LABELS[label], "" if seed == "-" else seed), node


def recorded(runs: Path) -> list[tuple[str, str, str]]:
    with open(runs, newline="", encoding="utf-8") as f:
        return [(r["env_id"], r["policy"], r["train_seed"]) for r in csv.DictReader(f)]


def test_grid_runs_on_both_nodes_and_resumes_after_the_driver_is_killed(two_node_cluster, tmp_path):
    address, env, _ = two_node_cluster
    nodes = subprocess.run(
        [sys.executable, "-c", WAIT_FOR_NODES, address], capture_output=True, text=True, env=env, timeout=180
    )
    assert nodes.returncode == 0, nodes.stderr[-3000:]
    head, second = (json.loads(nodes.stdout.splitlines()[-1])[k][:12] for k in ("head", "second"))
    env = {**env, "RAY_ADDRESS": address}
    runs = tmp_path / "runs.csv"

    # the first driver: killed (SIGKILL, no clean-up) once it has recorded its first run
    first = subprocess.Popen(
        command(runs), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env, cwd=tmp_path
    )
    seen_first, log = [], []
    try:
        for line in first.stderr:  # after the kill: what it printed before it, to the pipe's end
            log.append(line)
            if (found := progress(line)) is not None:
                seen_first.append(found)
                first.send_signal(signal.SIGKILL)
    finally:
        first.kill()
        first.wait(timeout=60)
        first.stderr.close()
    assert seen_first, "".join(log)[-4000:]
    after_kill = recorded(runs)
    assert len(after_kill) == len(set(after_kill)) and set(after_kill) < GRID  # whole lines, some runs missing
    assert seen_first[0][0] in after_kill

    # the same command again: only the missing runs run
    second_run = subprocess.run(command(runs), capture_output=True, text=True, env=env, cwd=tmp_path, timeout=1500)
    assert second_run.returncode == 0, second_run.stderr[-4000:]
    resumed = [found for line in second_run.stderr.splitlines() if (found := progress(line)) is not None]
    assert sorted(run for run, _ in resumed) == sorted(GRID - set(after_kill))
    final = recorded(runs)
    assert sorted(final) == sorted(GRID)  # every run once

    # where the tasks ran: the pinned ones on their node, and both nodes ran tasks
    ran_on = dict(seen_first + resumed)
    assert {node for run, node in ran_on.items() if run[1] == "random"} <= {second}
    assert {node for run, node in ran_on.items() if run[1] == "heuristic"} <= {head}
    assert set(ran_on.values()) == {head, second}, ran_on
    with open(runs, newline="", encoding="utf-8") as f:
        by_run = {(r["env_id"], r["policy"], r["train_seed"]): r for r in csv.DictReader(f)}
    assert {by_run[run]["train_steps"] for run in GRID if run[1] == "sb3-ppo"} == {"2048"}
    assert {by_run[run]["episodes"] for run in GRID} == {"20"}
