"""The functions triggers invoke, as okura.toml declares them (`[functions.NAME]`).

Each has exactly one of:
- `handler = "package.module:function"`: a Python callable (event, context), run in
  worker processes (worker.py) kept between invocations, one per concurrent call;
- `command = "..."`: a shell command run per invocation, the event JSON on its stdin,
  its response JSON on its stdout (a non-zero exit is a function error);
- `url = "http://..."`: a server speaking Lambda's Invoke API (`sam local
  start-lambda`, the Runtime Interface Emulator), POSTed to at
  /2015-03-31/functions/NAME/invocations.
and optionally `timeout` (seconds, Lambda's default 3), `environment` (a table of
variables), `code` (the directory the handler is imported from and the command runs
in; default the server's working directory) and `memory` (what the context reports).
"""
from __future__ import annotations

import asyncio
import http.client
import logging
import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import orjson

from okura import arns

log = logging.getLogger("okura.triggers")
WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")
KINDS = ("handler", "command", "url")
DEFAULT_TIMEOUT = 3.0
# The longest line read from a worker: a reply (Lambda's responses reach 6 MB), or a
# line of the function's output
REPLY_LIMIT = 8 * 1024 * 1024


class TriggerConfigError(ValueError):
    """okura.toml declares a function or mapping okura cannot run."""


class Outcome(NamedTuple):
    """What one invocation came to: `error` is None when the function succeeded (its
    response in `payload`), else Lambda's error shape ({errorMessage, errorType});
    `throttled` when it was refused before it ran."""
    payload: Any
    error: dict | None
    throttled: bool = False


@dataclass
class Function:
    name: str
    kind: str          # "handler", "command" or "url"
    target: str        # the handler, the command or the URL
    timeout: float = DEFAULT_TIMEOUT
    environment: dict[str, str] = field(default_factory=dict)
    code: str = ""
    memory: int = 128
    idle: list[asyncio.subprocess.Process] = field(default_factory=list)

    def arn(self, region: str, account: str) -> str:
        return arns.function(region, account, self.name)

    async def invoke(self, event: dict, region: str, account: str) -> Outcome:
        request_id = str(uuid.uuid4())
        try:
            if self.kind == "handler":
                return await self._worker(event, request_id, region, account)
            if self.kind == "command":
                return await self._command(event)
            return await asyncio.to_thread(self._post, orjson.dumps(event))
        except asyncio.TimeoutError:
            return Outcome(None, {"errorMessage": f"Task timed out after {self.timeout:.2f} "
                                                  "seconds", "errorType": "Sandbox.Timedout"})

    def _env(self) -> dict[str, str]:
        return {**os.environ, "AWS_LAMBDA_FUNCTION_NAME": self.name,
                "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(self.memory),
                "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST", **self.environment}

    async def _worker(self, event: dict, request_id: str, region: str,
                      account: str) -> Outcome:
        worker = self.idle.pop() if self.idle else await self._spawn()
        line = orjson.dumps({"event": event, "requestId": request_id, "function": self.name,
                             "deadline": time.time() + self.timeout, "memory": self.memory,
                             "arn": self.arn(region, account)}) + b"\n"
        assert worker.stdin is not None and worker.stdout is not None
        try:
            worker.stdin.write(line)
            reply = await asyncio.wait_for(worker.stdout.readline(), self.timeout)
        except BaseException:
            # timed out (or cancelled) mid-call: the worker's state is unknown
            worker.kill()
            raise
        if not reply:  # the worker died: it failed to import, or the function exited
            await worker.wait()
            return Outcome(None, {"errorMessage": f"the worker of {self.name} exited with "
                                                  f"status {worker.returncode}",
                                  "errorType": "Runtime.ExitError"})
        self.idle.append(worker)
        answer = orjson.loads(reply)
        return Outcome(answer.get("result"), answer.get("error"))

    async def _spawn(self) -> asyncio.subprocess.Process:
        worker = await asyncio.create_subprocess_exec(
            sys.executable, WORKER, self.code or os.getcwd(), self.target,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self._env(), cwd=self.code or None,
            limit=REPLY_LIMIT)
        assert worker.stderr is not None
        asyncio.ensure_future(_log_output(self.name, worker.stderr))
        return worker

    async def _command(self, event: dict) -> Outcome:
        process = await asyncio.create_subprocess_shell(
            self.target, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=self._env(), cwd=self.code or None)
        try:
            out, err = await asyncio.wait_for(process.communicate(orjson.dumps(event)),
                                              self.timeout)
        except BaseException:
            process.kill()
            await process.wait()
            raise
        for text in err.decode(errors="replace").splitlines():
            _function_log(self.name).info("%s", text)
        if process.returncode != 0:
            return Outcome(None, {"errorMessage": f"the command exited with status "
                                                  f"{process.returncode}",
                                  "errorType": "Runtime.ExitError"})
        try:
            return Outcome(orjson.loads(out) if out.strip() else None, None)
        except orjson.JSONDecodeError:
            return Outcome(None, {"errorMessage": "the command's output is not JSON",
                                  "errorType": "Runtime.InvalidResponse"})

    def _post(self, body: bytes) -> Outcome:
        """Lambda's Invoke API, synchronously (run in a thread)."""
        url = urlsplit(self.target)
        connection = http.client.HTTPConnection(url.hostname or "localhost", url.port or 80,
                                                timeout=self.timeout)
        path = f"{url.path.rstrip('/')}/2015-03-31/functions/{self.name}/invocations"
        try:
            connection.request("POST", path, body, {
                "Content-Type": "application/json",
                "X-Amz-Invocation-Type": "RequestResponse"})
            response = connection.getresponse()
            payload = response.read()
            function_error = response.getheader("X-Amz-Function-Error")
        except TimeoutError:
            raise asyncio.TimeoutError() from None
        except OSError as error:
            return Outcome(None, {"errorMessage": f"{self.target}: {error}",
                                  "errorType": "ServiceException"})
        finally:
            connection.close()
        if response.status == 429:
            return Outcome(None, {"errorMessage": payload.decode(errors="replace"),
                                  "errorType": "TooManyRequestsException"}, True)
        try:
            answer = orjson.loads(payload) if payload.strip() else None
        except orjson.JSONDecodeError:
            answer = {"errorMessage": payload.decode(errors="replace")}
        if response.status != 200 or function_error:
            failure = answer if isinstance(answer, dict) else {"errorMessage": str(answer)}
            failure.setdefault("errorType", function_error or f"HTTP {response.status}")
            return Outcome(None, failure)
        return Outcome(answer, None)

    def close(self) -> None:
        for worker in self.idle:
            if worker.returncode is None:
                worker.kill()
        self.idle.clear()


def _function_log(name: str) -> logging.Logger:
    return logging.getLogger(f"okura.function.{name}")


async def _log_output(name: str, stream: asyncio.StreamReader) -> None:
    """Log what a worker writes (the function's own output), line by line."""
    logger = _function_log(name)
    while True:
        try:
            line = await stream.readline()
        except ValueError:  # past REPLY_LIMIT: the reader dropped it
            logger.info("(a line of output longer than %d bytes, left out)", REPLY_LIMIT)
            continue
        if not line:
            return
        logger.info("%s", line.decode(errors="replace").rstrip("\n"))


def declared(table: dict) -> dict[str, Function]:
    """The functions of okura.toml's [functions] table; raises TriggerConfigError."""
    functions = {}
    for name, spec in table.items():
        if not isinstance(spec, dict):
            raise TriggerConfigError(f"functions.{name} must be a table")
        kinds = [kind for kind in KINDS if kind in spec]
        if len(kinds) != 1:
            raise TriggerConfigError(f"functions.{name} needs exactly one of handler, command, url")
        kind = kinds[0]
        target = spec[kind]
        if not isinstance(target, str) or (kind == "handler" and ":" not in target) or (
                kind == "url" and urlsplit(target).scheme != "http"):
            raise TriggerConfigError(f"functions.{name}.{kind} is not valid: {target!r}")
        unknown = set(spec) - {kind, "timeout", "environment", "code", "memory"}
        if unknown:
            raise TriggerConfigError(f"functions.{name}: unknown settings {sorted(unknown)}")
        timeout = spec.get("timeout", DEFAULT_TIMEOUT)
        environment = spec.get("environment", {})
        if type(timeout) not in (int, float) or timeout <= 0 or not isinstance(
                environment, dict):
            raise TriggerConfigError(f"functions.{name}: timeout must be a positive number and "
                              "environment a table")
        functions[name] = Function(
            name, kind, target, float(timeout), {k: str(v) for k, v in environment.items()},
            os.path.abspath(spec["code"]) if "code" in spec else "", int(spec.get("memory", 128)))
    return functions
