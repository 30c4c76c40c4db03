"""The former name of :mod:`gym_suite.progress`, kept so that imports of it keep working."""

from gym_suite.progress import DEFAULT_INTERVAL, INTERVAL_VARIABLE, Progress, duration, sb3_callback

__all__ = ["DEFAULT_INTERVAL", "INTERVAL_VARIABLE", "Progress", "duration", "sb3_callback"]
