"""The exceptions of flux: every error the library reports is a flux.Error.

str() of an error is the message the command line prints after
"flux: error: " (for example "w.json: tasks[3].bytes = -5: must be a
positive integer").
"""

from typing import Sequence

__all__ = ["Error", "InputError", "ScheduleError", "TraceWarning"]


class Error(Exception):
    """Base of every error Flux reports."""


class InputError(Error, ValueError):
    """Bad input: a malformed file, a field's invalid value, an infeasible option.

    Attributes:
        file: the file it is in ("" for an option or a value given in Python).
        field: the field or option ("tasks[3].bytes", "--switches").
        value: the offending value as text ("" when there is none).
        problem: what is wrong with it.
    """

    def __init__(self, message: str, file: str = "", field: str = "", value: str = "",
                 problem: str = "") -> None:
        super().__init__(message)
        self.file = file
        self.field = field
        self.value = value
        self.problem = problem


class ScheduleError(Error):
    """A schedule that breaks the model's constraints (the validator's verdict).

    Attributes:
        violations: the first violations, human-readable.
        violation_count: how many there are in all.
    """

    def __init__(self, message: str, violations: Sequence[str] = (),
                 violation_count: int = 0) -> None:
        super().__init__(message)
        self.violations = list(violations)
        self.violation_count = violation_count


class TraceWarning(UserWarning):
    """Something an imported trace holds that Flux skipped (import_chakra)."""
