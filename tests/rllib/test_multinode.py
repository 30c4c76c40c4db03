"""Ray RLlib PPO on a real two-node Ray cluster: the env runners sample on the second node.

Both nodes run on this machine, each started with ``ray start`` as a separate process with its
own temporary directory, port and resources: the head (``--num-cpus=1``) and a second node
(``--num-cpus=1`` and a custom resource ``second_node``). A driver program joins the cluster
(``ray.init(address=...)`` of the head) and trains PPO with every env runner asking for
``second_node``, so that it can only be placed there: the samples cross from one raylet's
worker to the driver, as they do between machines. The driver is a process of its own, as a
user's training script is: it starts with the cluster's authentication token in its
environment (Ray reads it when it is imported).

The nodes are stopped in the fixture's teardown whatever the test did. Not with ``ray stop
--force``: that stops every Ray process of the user on the machine, other clusters included.
Each node is started in a session of its own, and every process in those two sessions (the
raylets, the GCS, the workers) is ended by its process id; then the raylets running are
exactly those that ran before the cluster started.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")
pytest.importorskip("ray.rllib")

import gym_suite  # noqa: E402

pytestmark = [
    pytest.mark.multinode,
    pytest.mark.slow,  # starts a Ray cluster and trains across it
    pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the cluster's processes through /proc (Linux)"),
]

ALL_IDS = [spec.id for spec in gym_suite.SPECS]
RAY = Path(sys.executable).parent / "ray"
ITERATIONS = 2
BATCH = 200  # env steps an iteration


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def raylet_pids() -> set[int]:
    """The running raylets, as ``pgrep -f raylet`` lists them (zombies left out)."""
    found = subprocess.run(["pgrep", "-f", "raylet"], capture_output=True, text=True).stdout.split()
    return {int(pid) for pid in found if _state(int(pid)) not in (None, "Z")}


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()  # after "pid (name) ": state, ppid, pgrp, session, ...


def _state(pid: int) -> str | None:
    stat = _stat(pid)
    return stat[0] if stat else None


def session_pids(session: int) -> set[int]:
    """Live processes of a session (the session of a ``ray start`` started with ``start_new_session``)."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None and stat[0] != "Z" and int(stat[3]) == session:
                pids.add(int(entry.name))
    return pids


def end_sessions(starters: list[subprocess.Popen], grace: float = 5.0) -> None:
    """End every process of the starters' sessions: SIGTERM, then SIGKILL what is left after ``grace``."""
    sessions = [p.pid for p in starters]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for session in sessions:
            for pid in session_pids(session):
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + (grace if sig == signal.SIGTERM else 10.0)
        while time.monotonic() < deadline and any(session_pids(s) for s in sessions):
            time.sleep(0.2)
        for p in starters:
            try:
                p.wait(timeout=1)
            except subprocess.TimeoutExpired:
                pass
        if not any(session_pids(s) for s in sessions):
            return




@pytest.fixture
def two_node_cluster():
    """``(address, env, starters, raylets before)`` of a running two-node cluster; ``env``: a driver's environment."""
    raylets_before = raylet_pids()
    port = free_port()
    address = f"127.0.0.1:{port}"
    dirs = [Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp")) for prefix in ("rh", "rn")]  # short: socket paths
    # a token of this cluster's own, for its nodes and its driver
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32),
           "RAY_USAGE_STATS_ENABLED": "0", "OMP_NUM_THREADS": "1"}
    common = ["--num-cpus=1", "--node-ip-address=127.0.0.1", "--disable-usage-stats", "--block"]
    commands = [
        [str(RAY), "start", "--head", f"--port={port}", f"--temp-dir={dirs[0]}", "--include-dashboard=false", *common],
        [str(RAY), "start", f"--address={address}", f"--temp-dir={dirs[1]}", '--resources={"second_node": 1}', *common],
    ]
    starters: list[subprocess.Popen] = []
    try:
        for command, directory in zip(commands, dirs):
            with open(directory / "ray-start.log", "w") as log:
                starters.append(subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env,
                                                 start_new_session=True))
        yield address, env, raylets_before
    finally:
        end_sessions(starters)
        for directory in dirs:
            shutil.rmtree(directory, ignore_errors=True)
    # nothing of the cluster is left: the same raylets as before it started
    deadline = time.monotonic() + 10
    while raylet_pids() != raylets_before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert raylet_pids() == raylets_before
    assert not any(session_pids(p.pid) for p in starters)


#: The driver: joins the cluster once both nodes are up, trains PPO on each id with the env
#: runners on the second node, and prints one JSON line per id.
DRIVER = r"""
import json, sys, time
import ray
from gym_suite.training import single_thread_torch
from gym_suite.training.rllib import rllib_config

address, ids, batch, iterations = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
deadline, problem = time.monotonic() + 120, None
while True:
    try:
        if not ray.is_initialized():
            ray.init(address=address, log_to_driver=False)
        nodes = [n for n in ray.nodes() if n["Alive"]]
        second = [n["NodeID"] for n in nodes if n["Resources"].get("second_node")]
        if len(nodes) == 2 and second:
            break
    except Exception as exc:
        problem = exc
    if time.monotonic() > deadline:
        raise SystemExit(f"the cluster did not come up: {problem!r}")
    time.sleep(0.5)
single_thread_torch()


def count_by_node(*, env_runner, metrics_logger, samples, **kwargs):
    node = ray.get_runtime_context().get_node_id()
    metrics_logger.log_value(("env_steps_by_node", node), sum(len(e) for e in samples), reduce="sum")


for env_id in ids:
    config = (
        rllib_config(env_id, num_env_runners=1, num_envs_per_env_runner=2, seed=0,
                     train_batch_size_per_learner=batch, minibatch_size=100, num_epochs=1)
        .env_runners(custom_resources_per_env_runner={"second_node": 1})
        .callbacks(on_sample_end=count_by_node)
    )
    algo = config.build_algo()
    try:
        runners = algo.env_runner_group.foreach_env_runner(
            lambda r: (ray.get_runtime_context().get_node_id(), type(r.env.unwrapped).__name__),
            local_env_runner=False,
        )
        for _ in range(iterations):
            result = algo.train()
    finally:
        algo.stop()
    print(json.dumps({
        "id": env_id, "second_node": second[0], "driver_node": ray.get_runtime_context().get_node_id(),
        "runners": runners, "by_node": result["env_runners"]["env_steps_by_node"],
        "sampled": result["env_runners"]["num_env_steps_sampled_lifetime"],
    }), flush=True)
ray.shutdown()
"""


def test_env_runners_sample_on_the_second_node(two_node_cluster, tmp_path):
    """A few PPO iterations on every id, sampled by one env runner that can only live on the
    second node; the samples are counted by the node where they were made."""
    address, env, raylets_before = two_node_cluster
    done = subprocess.run([sys.executable, "-c", DRIVER, address, json.dumps(ALL_IDS), str(BATCH), str(ITERATIONS)],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=1200)
    assert done.returncode == 0, done.stderr[-4000:]
    assert len(raylet_pids() - raylets_before) == 2  # the cluster's two raylets were running
    results = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert [r["id"] for r in results] == ALL_IDS
    for r in results:
        second = r["second_node"]
        assert r["driver_node"] != second  # the driver joined through the head
        assert [node for node, _ in r["runners"]] == [second], r
        assert r["runners"][0][1].endswith("VectorEnv"), r  # the id's native vector env, made on the second node
        assert set(r["by_node"]) == {second}, r  # every sample of the last iteration was made there
        assert r["by_node"][second] >= BATCH, r
        assert r["sampled"] >= ITERATIONS * BATCH, r
