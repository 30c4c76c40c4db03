"""The suite's environments, one module each (see ``gym_suite.SPECS`` for their ids), and
:func:`check_definition`, the checker of a definition's hooks on every backend."""

from gym_suite.envs.checker import DefinitionError, Violation, check_definition

__all__ = ["DefinitionError", "Violation", "check_definition"]
