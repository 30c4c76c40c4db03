"""CPU time of the JAX page's compiled rollout (docs/training/jax.md), this checkout against
another one, paired; and the compiled programs compared instruction by instruction.

    git worktree add /tmp/before <commit>
    python gym-suite/benchmarks/jax_rollout.py --against /tmp/before

The rollout is the JAX page's: ``num_envs`` gymnax envs of ``gym_suite.jax.make(id)`` reset under
``vmap`` and stepped ``steps`` times under ``lax.scan``, random actions, all in one ``jax.jit``.
Each source tree runs in a subprocess of its own (its ``gym_suite`` first on ``sys.path``), the
two alternating round by round so that a change of load touches both; a round compiles the
rollout once, then times ``--repeats`` calls with ``time.process_time`` and keeps the fastest.
The table gives the fastest round of each tree. Timings on a loaded machine vary by tens of
percent from round to round, more than a small change costs; the last columns settle what the
clock cannot: how many instructions of the optimized XLA program (source locations left out)
differ between the two trees.
"""

from __future__ import annotations

import argparse
import difflib
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

CHILD = r"""
import json, re, sys, time, warnings
src, ids, num_envs, steps, repeats = sys.argv[1], sys.argv[2].split(","), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
sys.path.insert(0, src)
warnings.simplefilter("ignore")
import jax
import gym_suite.jax
if not gym_suite.jax.__file__.startswith(src):
    sys.exit(f"gym_suite was imported from {gym_suite.jax.__file__}, not from {src}")
out = {}
for env_id in ids:
    env, params = gym_suite.jax.make(env_id)
    sample = env.action_space(params).sample

    def rollout(key):
        key, reset_key = jax.random.split(key)
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(jax.random.split(reset_key, num_envs), params)

        def step(state, key):
            action_key, step_key = jax.random.split(key)
            actions = jax.vmap(sample)(jax.random.split(action_key, num_envs))
            obs, state, reward, terminated, truncated, info = jax.vmap(env.step, in_axes=(0, 0, 0, None))(
                jax.random.split(step_key, num_envs), state, actions, params
            )
            return state, reward

        state, rewards = jax.lax.scan(step, state, jax.random.split(key, steps))
        return rewards.mean()

    compiled = jax.jit(rollout).lower(jax.random.key(0)).compile()
    program = re.sub(r", metadata=\{[^}]*\}", "", compiled.as_text())
    program = [line for line in program.splitlines() if "file_location_id" not in line and "file_name_id" not in line and '"' not in line]
    compiled(jax.random.key(0)).block_until_ready()
    best = float("inf")
    for i in range(repeats):
        start = time.process_time()
        compiled(jax.random.key(i + 1)).block_until_ready()
        best = min(best, time.process_time() - start)
    out[env_id] = {"seconds": best, "program": program}
print(json.dumps(out))
"""


def _run(src: Path, args: argparse.Namespace) -> dict[str, dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(src), args.ids, str(args.num_envs), str(args.steps), str(args.repeats)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"{src}: {done.stderr[-2000:]}")
    result: dict[str, dict[str, object]] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _changed(before: list[str], after: list[str]) -> int:
    """Lines of one program not in the other, removed plus added (numbering aside)."""
    import re

    def canonical(lines: list[str]) -> list[str]:
        return [re.sub(r"\d+", "N", line) for line in lines]

    diff = difflib.ndiff(canonical(before), canonical(after))
    return sum(1 for line in diff if line[:2] in ("- ", "+ "))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, required=True, help="another checkout (a directory holding gym_suite/)")
    parser.add_argument("--ids", default="heartpole-v1,example-v0,target-v0,push-v0", help="comma-separated ids")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per tree")
    parser.add_argument("--repeats", type=int, default=10, help="timed calls per round (the fastest counts)")
    args = parser.parse_args()
    if not (args.against / "gym_suite").is_dir():
        parser.error(f"--against: {args.against} holds no gym_suite/ directory")
    best: dict[str, dict[str, float]] = {"this": {}, "against": {}}
    programs: dict[str, dict[str, list[str]]] = {"this": {}, "against": {}}
    for _ in range(args.rounds):
        for name, src in (("against", args.against.resolve()), ("this", REPO)):
            for env_id, row in _run(src, args).items():
                seconds = float(row["seconds"])  # type: ignore[arg-type]
                best[name][env_id] = min(best[name].get(env_id, float("inf")), seconds)
                programs[name][env_id] = list(row["program"])  # type: ignore[call-overload]
    print("| id | against (ms) | this (ms) | ratio | XLA lines removed + added (of this one's) |")
    print("|---|---:|---:|---:|---:|")
    for env_id, seconds in best["this"].items():
        other = best["against"].get(env_id)
        changed = _changed(programs["against"].get(env_id, []), programs["this"][env_id])
        ratio = f"{seconds / other:.2f}" if other else "-"
        against = f"{other * 1e3:.2f}" if other else "-"
        print(f"| {env_id} | {against} | {seconds * 1e3:.2f} | {ratio} | {changed} ({len(programs['this'][env_id])}) |")


if __name__ == "__main__":
    main()
