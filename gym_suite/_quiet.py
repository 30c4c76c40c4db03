"""The former name of :mod:`gym_suite.quiet`, kept so that imports of it keep working."""

from gym_suite.quiet import SUITE_MODULE, import_gym_quietly, make, make_vec, no_version_notice, suite_spec

__all__ = ["SUITE_MODULE", "import_gym_quietly", "make", "make_vec", "no_version_notice", "suite_spec"]
