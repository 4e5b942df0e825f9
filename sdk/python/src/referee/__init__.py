"""referee for Python: the referee binary, an adapter kit and a conformance runner.

- `serve_adapter(ops, name=..., version=...)`: a mapping of ops as a referee-adapter/1
  adapter on stdio.
- `run_conformance(suite, adapter, **options)`: run a suite against a mapping of ops (in
  this process) or an adapter command; returns a `Report`.
- `referee.pytest.conformance_tests(suite, adapter, **options)`: one pytest item per check.
- `find_referee()`: the binary's path (REFEREE_BIN, the wheel's, PATH).
"""

from ._binary import find_referee
from ._errors import RefereeError, RefereeNotFound, RefereeWarning, ReportError, UsageError
from ._version import REFEREE_VERSION, __version__
from .adapter import PROTOCOL, AdapterError, Args, RawJSON, serve_adapter
from .conformance import REPORT_FORMAT, Check, Report, run_conformance

__all__ = [
    "PROTOCOL",
    "REFEREE_VERSION",
    "REPORT_FORMAT",
    "AdapterError",
    "Args",
    "Check",
    "RawJSON",
    "RefereeError",
    "RefereeNotFound",
    "RefereeWarning",
    "Report",
    "ReportError",
    "UsageError",
    "__version__",
    "find_referee",
    "run_conformance",
    "serve_adapter",
]
