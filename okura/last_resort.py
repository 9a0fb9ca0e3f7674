"""The last resort: a failure nothing else handled is logged, and logging it cannot fail.

Every catch-all that keeps a node serving (a request's, a background duty's, the event
loop's exception handler) logs through log_unexpected. It formats the failure itself,
describing instead what breaks formatting (an exception whose __str__ raises or whose
traceback cannot be built, a non-exception passed as one, arguments that do not fit the
message), and a log handler that raises meets a line written straight to file descriptor
2. Issue 37: an exception that failed inside logging's own error handler, while a failure
was being logged, killed both nodes of a race. Imports nothing of okura: every layer may
use it."""
from __future__ import annotations

import asyncio
import logging
import os
import sys
import traceback
from typing import Any

_HANDLED: Any = object()  # log_unexpected's default error: the exception being handled
_loop_log = logging.getLogger("okura.loop")


def log_unexpected(logger: logging.Logger, message: str, *args: object,
                   error: object = _HANDLED) -> None:
    """Log `message % args` at ERROR with the traceback of `error` (by default the
    exception being handled; None: none). Never raises: call it from any `except
    Exception:` that must not fail itself."""
    try:
        if not logger.isEnabledFor(logging.ERROR):
            return
        if error is _HANDLED:
            error = sys.exception()
        # formatted here, so that nothing is left for a handler's formatter to fail on
        logger.error("%s", _message(message, args) + _traceback(error))
    except Exception:  # a handler, and logging's report of its failure, raised
        _to_fd2(message)


def loop_exception_handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
    """The event loop's handler (serve() sets it) of what escaped a callback, a protocol
    or a task nobody awaited: logged with what asyncio says of it, and the loop goes on
    (asyncio's own handler logs through logging, and a failure there escaped the loop)."""
    try:
        details = "".join(f"\n{key}: {_shown(value)}" for key, value in context.items()
                          if key not in ("message", "exception"))
        log_unexpected(_loop_log, "%s%s", context.get("message", "unexpected event loop error"),
                       details, error=context.get("exception"))
    except Exception:  # `context` is not the dict asyncio documents
        _to_fd2("unexpected event loop error")


class StderrHandler(logging.StreamHandler):
    """okura's log handler when it owns the process (`okura serve`): a record it cannot
    write is reported as logging reports it, and that report failing is not raised into
    the code that logged."""

    def handleError(self, record: logging.LogRecord) -> None:
        try:
            super().handleError(record)  # on sys.stderr, which may be what failed
        except Exception:
            _to_fd2(f"a log record could not be written: {_shown(record.msg)}")


def _message(message: str, args: tuple) -> str:
    try:
        return message % args if args else str(message)
    except Exception:
        return f"{_shown(message)} (its arguments {_shown(args)} do not fit it)"


def _traceback(error: object) -> str:
    if error is None:
        return ""
    if not isinstance(error, BaseException):
        return f"\n(not an exception: {_shown(error)})"
    try:
        return "\n" + "".join(traceback.format_exception(error)).rstrip("\n")
    except Exception:
        kind = type(error)
        return f"\n{kind.__module__}.{kind.__qualname__} (its traceback could not be formatted)"


def _shown(value: object) -> str:
    try:
        return repr(value)
    except Exception:
        return f"<{type(value).__qualname__} whose repr() failed>"


def _to_fd2(what: object) -> None:
    """The last line of all: straight to file descriptor 2, past sys.stderr and logging
    (either may be what failed)."""
    try:
        os.write(2, f"okura: an error could not be logged: {what}\n".encode("utf-8", "replace"))
    except Exception:  # nowhere is left to say it
        pass
