"""The exceptions and the warning the referee package raises."""


class RefereeError(Exception):
    """Something kept referee from giving a report: the base of this package's errors."""


class RefereeNotFound(RefereeError):
    """No referee binary: REFEREE_BIN names a missing file, or neither the wheel nor PATH has one."""


class UsageError(RefereeError):
    """referee refused the run before it started (exit 2): a bad option, suite, corpus or pattern."""

    def __init__(self, message, exit_code=2, stderr=""):
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr


class ReportError(RefereeError):
    """referee's output is not a referee-report/2 document this package can read."""


class RefereeWarning(UserWarning):
    """A failed should check: reported with its evidence, but it does not block conformance."""
