"""A worker process of a Python function: `python worker.py CODE_DIR module:function`.

Run as a script (not `-m okura...`), so that it needs nothing of okura on its path:
only the standard library and the function's own code, imported from CODE_DIR.
It reads one invocation per line on stdin ({"event", "requestId", "deadline",
"function", "arn", "memory"}) and answers each with one line on the file descriptor
its stdout had at start ({"result": ...} or {"error": {...}} in Lambda's error
shape). Whatever the function prints goes to stderr, which okura logs as the
function's output."""
from __future__ import annotations

import importlib
import json
import os
import sys
import time
import traceback


class LambdaContext:
    """The members of Lambda's Python context object that functions commonly read."""

    def __init__(self, request: dict) -> None:
        self.function_name = request["function"]
        self.function_version = "$LATEST"
        self.invoked_function_arn = request["arn"]
        self.memory_limit_in_mb = request["memory"]
        self.aws_request_id = request["requestId"]
        self.log_group_name = f"/aws/lambda/{request['function']}"
        self.log_stream_name = "okura"
        self._deadline = request["deadline"]

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.time()) * 1000))


def main() -> None:
    code_dir, handler = sys.argv[1], sys.argv[2]
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # print() and C-level writes of the function go to the log
    sys.stdout = sys.stderr
    sys.path[0] = code_dir
    module_name, _, name = handler.partition(":")
    function = getattr(importlib.import_module(module_name), name)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply: dict = {"result": function(request["event"], LambdaContext(request))}
            text = json.dumps(reply)
        except Exception as error:  # the function's failure is its invocation's outcome
            text = json.dumps({"error": {
                "errorMessage": str(error), "errorType": type(error).__name__,
                "stackTrace": traceback.format_tb(error.__traceback__)}})
        sys.stderr.flush()
        replies.write(text + "\n")
        replies.flush()


if __name__ == "__main__":
    main()
