# test_jcs.py: referee's jcs suite as pytest items, one per check.
#   pytest test_jcs.py                        # every check, twice
#   pytest test_jcs.py -k jcs/numbers         # the number checks
#   pytest test_jcs.py --lf                   # what failed last time
import sys
from pathlib import Path

from referee.pytest import conformance_tests

import jcs_adapter

HERE = Path(__file__).parent

# The canonicaliser called in this process: referee sends each request over loopback
# HTTP to a function of its args.
test_jcs_library = conformance_tests("jcs", jcs_adapter.OPS, name="example-jcs", version="1.0.0")

# The same canonicaliser as an adapter program, which referee starts and talks to on stdio.
test_jcs_adapter = conformance_tests("jcs", [sys.executable, str(HERE / "jcs_adapter.py")])
