"""The ``gym-suite`` command (also ``python -m gym_suite``): ``list``, ``demo``, ``evaluate``, ``play`` and ``record``."""

from __future__ import annotations

import argparse
import importlib
import os
import pickle
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import gymnasium
import numpy as np

from gym_suite import __version__
from gym_suite._registry import RENAMED_IDS, find, rows
from gym_suite.envs.checks import shown
from gym_suite.quiet import make

#: The longest error message the command prints: a longer one is cut in the middle, keeping the argument's name.
MAX_MESSAGE = 300


def short_message(message: str, limit: int = MAX_MESSAGE) -> str:
    """``message`` on one line, cut in the middle to ``limit`` characters."""
    message = " ".join(message.split())
    if len(message) <= limit:
        return message
    return message[: limit - 60] + " ... " + message[-55:]


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose usage errors stay one short line (exit status 2), whose epilog may be
    written only when the help is shown (``epilog_from``)."""

    def __init__(self, *args: Any, epilog_from: Callable[[], str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.epilog_from = epilog_from

    def format_help(self) -> str:
        if self.epilog_from is not None:
            self.epilog = self.epilog_from()
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        super().error(short_message(message, MAX_MESSAGE - len(f"{self.prog}: error: ")))  # the line, prefix included


def _import(module: str) -> None:
    """Import a module that registers ids of its own; whatever its import raises is a usage error."""
    try:
        importlib.import_module(module)
    except Exception as exc:
        reason = str(exc) if isinstance(exc, ImportError) else f"{type(exc).__name__}: {exc}"
        raise argparse.ArgumentTypeError(f"cannot import {module!r} (a module that registers ids): {reason}") from None


def _list(args: argparse.Namespace) -> int:
    for module in args.modules:
        try:
            _import(module)
        except argparse.ArgumentTypeError as exc:
            args.parser.error(str(exc))
    for spec in rows():
        env = make(spec.id)  # from its spec: no notice that heartpole-v0 has a v1
        print(f"{spec.id}  (max_episode_steps={spec.max_episode_steps})\n    {spec.summary}")
        print(f"    action space:      {env.action_space}\n    observation space: {env.observation_space}")
        env.close()
    return 0


def demo_episode(env_id: str, seed: int) -> tuple[int, float, str]:
    """One seeded episode with random actions: ``(steps, return, how it ended)``."""
    from gym_suite.evaluate import play

    env = make(env_id)
    try:
        steps = list(play(env, "random", seed))
    finally:
        env.close()
    ended = "terminated" if steps and steps[-1].terminated else "truncated"
    return len(steps), sum(step.reward for step in steps), ended


def _demo(args: argparse.Namespace) -> int:
    rows_played = [(spec.id, *demo_episode(spec.id, args.seed)) for spec in rows()]
    print(f"One episode of every gym-suite environment, random actions, seed {args.seed}:\n")
    print(f"| {'id':<14} | {'steps':>5} | {'return':>10} | ended      |")
    print(f"|{'-' * 16}|{'-' * 7}|{'-' * 12}|------------|")
    for env_id, steps, total, how in rows_played:
        print(f"| {env_id:<14} | {steps:>5} | {total:>10.3f} | {how:<10} |")
    return 0


def _histogram(values: np.ndarray, bins: int = 12, width: int = 40) -> str:
    counts, edges = np.histogram(values, bins=bins)
    top = max(1, counts.max())
    return "\n".join(
        f"{lo:>10.2f} .. {hi:<10.2f} {count:>6} {'#' * int(round(width * count / top))}"
        for count, lo, hi in zip(counts, edges[:-1], edges[1:])
    )


#: What bad environment arguments raise, and a bad policy file of ``record``: a usage error, one line.
_ENV_ERRORS = (TypeError, ValueError, OSError, gymnasium.error.Error)
_POLICY_ERRORS = (*_ENV_ERRORS, EOFError, pickle.UnpicklingError)


def _env_error_message(exc: Exception) -> str:
    """The env's own message, one line, without the kwargs gymnasium appends to a ``TypeError``."""
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    message, _, _ = message.partition(" was raised from the environment creator for ")
    return message


def _evaluate(args: argparse.Namespace) -> int:
    from gym_suite.evaluate import BUILTIN_POLICIES, _plus_minus, evaluate

    if args.policy not in BUILTIN_POLICIES:  # a trained policy's file, read as record reads it
        from gym_suite.record import load_policy

        try:
            args.policy = load_policy(args.policy, args.id, args.algo)
        except _POLICY_ERRORS as exc:
            hint = ": use random, heuristic or a trained policy's file" if isinstance(exc, FileNotFoundError) else ""
            args.parser.error(f"argument --policy: {_env_error_message(exc)}{hint}")
    if args.against_table:
        from gym_suite.score import against_table_command

        return against_table_command(args)

    env_kwargs = dict(args.env_kwargs)
    try:
        env = make(args.id, **env_kwargs)
    except _ENV_ERRORS as exc:
        args.parser.error(f"argument --env-kwargs: {_env_error_message(exc)}")
    try:  # kept open while evaluating: an env's caches (push-v0's log) stay warm for the episodes
        episodes, seed, jobs = args.episodes, args.seed, args.jobs
        result = evaluate(args.id, args.policy, episodes, seed, n_jobs=jobs, env_kwargs=env_kwargs, progress=True)
    finally:
        env.close()
    pm = _plus_minus(sys.stdout)
    print(result.describe(pm))
    print(f"\nreturn: {result.mean:.3f} {pm} {result.std:.3f}\n")
    print(_histogram(result.returns))
    return 0


def _play(args: argparse.Namespace) -> int:
    """``gym-suite play ID``: exit 2 with one line when pygame is missing or no window can open."""
    from gymnasium.error import DependencyNotInstalled

    try:
        from gym_suite.play import play

        kwargs = {"env_kwargs": dict(args.env_kwargs), "seed": args.seed, "episodes": args.episodes}
        returns = play(args.id, screenshot=args.screenshot, **kwargs)
    except DependencyNotInstalled as exc:
        print(f"gym-suite play: {exc}", file=sys.stderr)
        return 2
    except _ENV_ERRORS as exc:
        args.parser.error(_env_error_message(exc))
    except Exception as exc:  # pygame.error: no display to open a window on
        if type(exc).__module__.split(".")[0] != "pygame":
            raise
        print(f"gym-suite play: cannot open a window: {exc} (is DISPLAY set?)", file=sys.stderr)
        return 1
    if returns:
        print(f"{len(returns)} episode(s), mean return {sum(returns) / len(returns):.3f}")
    return 0


def _record(args: argparse.Namespace) -> int:
    """``gym-suite record ID``: exit 2 with one line when Minari is missing or the dataset exists (Ctrl-C: :func:`main`)."""
    import importlib.util

    try:
        from gym_suite.record import load_policy, record

        if importlib.util.find_spec("minari") is None:  # gym_suite.record imports it when it records
            raise ModuleNotFoundError("No module named 'minari'")
    except ModuleNotFoundError as exc:
        print(f'gym-suite record: {exc}: pip install "gym-suite[minari]"', file=sys.stderr)
        return 2
    policy: Any = args.policy
    name = args.name
    if policy not in ("random", "heuristic"):
        try:
            policy = load_policy(args.policy, args.id, args.algo)
        except _POLICY_ERRORS as exc:
            args.parser.error(f"argument --policy: {_env_error_message(exc)}")
        name = name or os.path.splitext(os.path.basename(args.policy))[0]
    given = ("seed", "dataset_id", "overwrite", "author", "author_email", "code_permalink", "description")
    try:
        kwargs = {"env_kwargs": dict(args.env_kwargs), "policy_name": name, **{key: vars(args)[key] for key in given}}
        dataset = record(args.id, policy, args.episodes, **kwargs)
    except _POLICY_ERRORS as exc:
        args.parser.error(_env_error_message(exc))
    spec = dataset.spec
    print(f"{spec.dataset_id}: {dataset.total_episodes} episodes, {dataset.total_steps} steps")
    print(f"written to {spec.data_path}\nload it with minari.load_dataset({spec.dataset_id!r})")
    return 0


# Argument types: a bad value is argparse's usage error (exit status 2), never a traceback


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        digits = text.strip().lstrip("+-").replace("_", "")
        if digits.isdigit():  # Python reads at most 4,300 digits (sys.get_int_max_str_digits)
            raise argparse.ArgumentTypeError(
                f"an integer of {len(digits):,} digits is too long: {shown(text)}"
            ) from None
        raise argparse.ArgumentTypeError(f"invalid integer: {shown(text)}") from None


def _real(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number: {shown(text)}") from None


def _checked_int(
    allowed: Callable[[Any], bool], refusal: str, read: Callable[[str], Any] = _integer
) -> Callable[[str], Any]:
    """An argparse type: an integer (a number, with ``read=_real``) for which ``allowed`` holds, else ``refusal``."""

    def check(text: str) -> Any:
        value = read(text)
        if not allowed(value):
            raise argparse.ArgumentTypeError(refusal.format(value=value))
        return value

    return check


positive_int = _checked_int(lambda n: n >= 1, "must be a positive integer, got {value}")
non_negative_int = _checked_int(lambda n: n >= 0, "must be a non-negative integer, got {value}")
jobs_int = _checked_int(lambda n: n != 0, "must be a positive number of processes, or negative (-1: every core)")


def episodes_int(text: str) -> int:
    """A number of episodes for ``evaluate``: 1 .. :data:`gym_suite.evaluate.MAX_EPISODES`."""
    from gym_suite.evaluate import MAX_EPISODES

    refusal = f"must be a positive integer, at most {MAX_EPISODES:,}, got {{value}}"
    return int(_checked_int(lambda n: 1 <= n <= MAX_EPISODES, refusal)(text))


def screenshot_path(text: str) -> str:
    """An argparse type: ``play --screenshot``'s path, checked before the window opens."""
    from gym_suite.play import check_screenshot

    try:
        path = check_screenshot(text)
    except (TypeError, ValueError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    assert path is not None
    return path


def dataset_id_text(text: str) -> str:
    """An argparse type: ``--dataset-id``, not empty (the default id is the option's absence)."""
    if not text:
        raise argparse.ArgumentTypeError(
            "must be a Minari dataset id such as 'gym_suite/heartpole-v1/heuristic-v0', got ''"
        )
    return text


class _Ids:
    """The ids a subcommand takes, read when the argument is checked (``module:id`` registers it first)."""

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str) and find(value) is not None

    def __iter__(self) -> Any:
        return iter([spec.id for spec in rows()])


def suite_id(text: str) -> str:
    """An argparse type: an id, ``gym_suite:`` prefix allowed, or another package's after the module
    that registers it (``mypkg:mypkg/grid-v0``); a tutorial's renamed id is refused as ``gymnasium.make`` does."""
    module, sep, name = text.partition(":") if ":" in text else ("", "", text)
    if sep and module != "gym_suite":
        _import(module)
    if name in RENAMED_IDS:
        try:
            gymnasium.make(name)
        except gymnasium.error.Error as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return name


def _key_value(item: str) -> tuple[str, object]:
    import ast

    key, sep, value = item.partition("=")
    if not sep or not key:
        raise ValueError(f"expected KEY=VALUE, got {shown(item)}")
    try:
        return key, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return key, value  # a bare word: a string
    except (RecursionError, MemoryError):  # "x=----...1", "x=[[[...]]]": too deep for Python's parser
        raise ValueError(f"the value of {shown(key)} is nested too deeply to read: {shown(value)}") from None


def parse_kwargs(items: list[str]) -> dict[str, Any]:
    """``["key=value", ...]`` -> dict: values read as Python literals (``0.3``, ``None``, ``(1, 2)``),
    a bare word a string; an item without ``=`` raises ``ValueError``."""
    return dict(_key_value(item) for item in items)


def key_value(text: str) -> tuple[str, object]:
    """An argparse type: ``KEY=VALUE`` -> ``(key, value)`` (see :func:`parse_kwargs`)."""
    try:
        return _key_value(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    """The command's parser. No option may be abbreviated (``--episode`` is not ``--episodes``);
    an error in a subcommand's arguments prints that subcommand's usage (see :func:`main`)."""
    from gym_suite.play import controls_help

    ids = [spec.id for spec in rows()]
    parser = ArgumentParser(prog="gym-suite", description="gym-suite environments", allow_abbrev=False)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.set_defaults(parser=parser)
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name: str, func: Callable[[argparse.Namespace], int], **kwargs: Any) -> argparse.ArgumentParser:
        """A subcommand; but for ``list`` and ``demo`` it takes an id, a seed and the env's arguments."""
        command = sub.add_parser(name, allow_abbrev=False, **kwargs)
        command.set_defaults(func=func, parser=command)
        if name in ("list", "demo"):
            return command
        command.add_argument("id", type=suite_id, choices=_Ids())
        seed = None if name == "play" else 0
        command.add_argument("--seed", type=non_negative_int, default=seed, help="episode i is reset with seed + i")
        command.add_argument("--env-kwargs", nargs="*", type=key_value, default=[], metavar="KEY=VALUE",
                             help="arguments of the environment")  # fmt: skip
        return command

    def policy(command: argparse.ArgumentParser, default: str, choices: str, help: str) -> None:
        command.add_argument("--policy", default=default, metavar=choices, help=help)
        command.add_argument("--algo", default="ppo", choices=["ppo", "dqn"], help="the algorithm of a .zip model")

    ls = command("list", _list, help="every environment id with its spaces")
    ls.add_argument("--import", dest="modules", action="append", default=[], metavar="MODULE",
                    help="a module to import first, which registers ids of its own (gym_suite.register); may repeat")  # fmt: skip
    demo = command("demo", _demo, help="one seeded random episode of every environment")
    demo.add_argument("--seed", type=non_negative_int, default=0, help="the episodes' seed (default: 0)")
    ev = command("evaluate", _evaluate, help="seeded evaluation of a built-in or trained policy")
    policy(ev, "random", "random|heuristic|PATH", "random: the action space's sampler, seeded per episode; heuristic: "
           "the id's documented simple policy; or a trained one's file: a Stable-Baselines3 model (.zip) or a pickled "
           "callable (default: random)")  # fmt: skip
    ev.add_argument("--episodes", type=episodes_int, default=1000, help="episodes to play (default: 1000)")
    ev.add_argument("--jobs", type=jobs_int, default=1, help="parallel processes (-1: every core)")
    ev.add_argument("--against-table", action="store_true",
                    help="score the policy on the baselines table's evaluation episodes (seeds 0..N-1, its env "
                    "arguments) and place it among the table's rows: normalized score, interval, paired difference "
                    "with the heuristic")  # fmt: skip
    pl = command(
        "play",
        _play,
        help="play an environment by hand in a window (needs gym-suite[render])",
        description='Play an environment by hand in a pygame window (pip install "gym-suite[render]").',
        epilog_from=lambda: controls_help(ids),  # makes every env: only for --help
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pl.add_argument("--episodes", type=positive_int, default=None, help="stop after this many (default: until Esc)")
    pl.add_argument("--screenshot", type=screenshot_path, default=None, metavar="PATH",
                    help="save the window's last picture (PNG) when play stops")  # fmt: skip
    rec = command("record", _record, help="record seeded episodes as a Minari dataset (needs gym-suite[minari])")
    policy(rec, "heuristic", "heuristic|random|PATH", "a built-in policy, or a trained one's file: a "
           "Stable-Baselines3 model (.zip) or a pickled callable")  # fmt: skip
    rec.add_argument("--episodes", type=positive_int, default=100, help="how many episodes (default: 100)")
    rec.add_argument("--dataset-id", type=dataset_id_text, default=None,
                     help="the Minari dataset id (default: gym_suite/ID/POLICY-v0)")  # fmt: skip
    rec.add_argument("--name", help="the policy's name in the dataset (default: heuristic, random or the file's stem)")
    rec.add_argument("--overwrite", action="store_true", help="replace a local dataset of the same id")
    for flag, what in [("--author", "the dataset's author"), ("--author-email", "the author's e-mail"),
                       ("--code-permalink", "a link to the code that made the dataset")]:  # fmt: skip
        rec.add_argument(flag, help=f"{what} (default: gym-suite's package metadata)")
    rec.add_argument("--description", help="the dataset's description (default: what was recorded)")
    return parser


def _stdout_closed() -> int:
    """The reader of standard output went away (``gym-suite list | head -n 1``): stop quietly, with
    standard output on /dev/null so that the interpreter's last flush does not complain again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return 1


def main(argv: list[str] | None = None) -> int:
    if (sys.argv[1:] if argv is None else argv)[:1] != ["record"]:
        return _main(argv)
    import signal

    from gym_suite.record import interrupts

    try:  # Ctrl-C at any moment: one line, exit 130, nothing left behind (gym_suite.record's staging goes)
        with interrupts():
            if hasattr(signal, "pthread_sigmask"):  # a press during the imports (gym_suite/__init__.py) lands here
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            return _main(argv)
    except KeyboardInterrupt:
        print("gym-suite record: interrupted: no dataset written", file=sys.stderr)
        return 130


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # the usage of the subcommand they were given to, not the top level's
        args.parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if sys.stdout is None:  # `gym-suite list >&-`: nowhere to write the output to
        print(f"{parser.prog}: standard output is closed: nothing to write the output to", file=sys.stderr)
        return 1
    try:
        code: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        return _stdout_closed()
    return code


if __name__ == "__main__":
    sys.exit(main())
