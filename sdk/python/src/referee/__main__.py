"""python -m referee ARGS...: runs the referee binary with ARGS and exits with its status."""

import os
import subprocess
import sys

from ._binary import find_referee
from ._errors import RefereeNotFound


def main(argv=None):
    """Find the binary and run it: exec on POSIX, a child process on Windows."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        binary = find_referee()
    except RefereeNotFound as e:
        sys.stderr.write("referee: %s\n" % e)
        return 2
    if os.name == "nt":
        try:
            return subprocess.run([binary] + args).returncode
        except KeyboardInterrupt:
            return 130
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(binary, [binary] + args)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
