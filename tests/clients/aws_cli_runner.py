"""Runs AWS CLI command lines (JSON list on stdin) through the CLI's own driver in this
one process, as `aws ...` would run each: the CLI starts once (about a second) instead of
once per command. Prints a JSON list of {"rc", "out", "err"}."""
from __future__ import annotations

import contextlib
import io
import json
import shlex
import sys

from awscli.clidriver import create_clidriver

results = []
for line in json.load(sys.stdin):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = create_clidriver().main(shlex.split(line))
    results.append({"rc": rc, "out": out.getvalue(), "err": err.getvalue()})
print(json.dumps(results))
