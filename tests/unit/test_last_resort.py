"""Nothing kills a node (issue 37): the last resort logs any failure and cannot fail
itself, whatever the exception, its message or the log handler do (okura/last_resort.py);
a request that meets a bug anywhere on its way is answered InternalServerError and the
server serves on."""
from __future__ import annotations

import asyncio
import contextlib
import logging
import sys

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

import okura
from okura.core.metrics import Metrics
from okura.last_resort import StderrHandler, log_unexpected, loop_exception_handler
from okura.server import app as app_module
from okura.server import http
from okura.server.router import ROUTES


class Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("__str__ of a broken exception")

    def __repr__(self):
        raise RuntimeError("__repr__ of a broken exception")


class NoTraceback(Exception):
    """Its traceback cannot be built: traceback reads __notes__, which raises."""

    def __getattribute__(self, name):
        if name == "__notes__":
            raise RuntimeError("no notes")
        return super().__getattribute__(name)


class BrokenStream:
    def write(self, text):
        raise ValueError("I/O operation on closed file")

    def flush(self):
        raise ValueError("I/O operation on closed file")


@pytest.fixture
def log(caplog):
    caplog.set_level(logging.ERROR, logger="okura.test")
    return logging.getLogger("okura.test")


@contextlib.contextmanager
def broken_logging():
    """okura's records go to a handler whose stream raises, and logging's report of that
    to sys.stderr raises too (the issue's nodes died of a failure inside that report).
    Set within the test (pytest puts its own sys.stderr back as a test's call starts);
    what reaches file descriptor 2 is in capfd."""
    handler = logging.StreamHandler(BrokenStream())
    logging.getLogger("okura").addHandler(handler)
    stderr, sys.stderr = sys.stderr, BrokenStream()
    try:
        yield
    finally:
        sys.stderr = stderr
        logging.getLogger("okura").removeHandler(handler)


def raised(error: BaseException) -> BaseException:
    try:
        raise error
    except BaseException as caught:  # noqa: B902 - returned with its traceback
        return caught


def test_an_exception_whose_str_and_repr_raise_is_logged_with_its_traceback(log, caplog):
    try:
        raise Unprintable()
    except Unprintable:
        log_unexpected(log, "request %s failed", "R1")
    assert "request R1 failed\nTraceback (most recent call last):" in caplog.text
    assert "Unprintable: <exception str() failed>" in caplog.text


def test_an_exception_whose_traceback_cannot_be_formatted_is_named(log, caplog):
    log_unexpected(log, "duty failed", error=raised(NoTraceback()))
    assert ("duty failed\ntest_last_resort.NoTraceback (its traceback could not be "
            "formatted)") in caplog.text


def test_a_non_exception_passed_as_the_error_is_shown(log, caplog):
    log_unexpected(log, "first", error="not an exception")
    log_unexpected(log, "second", error=Unprintable)  # a class, not an instance
    log_unexpected(log, "third", error=NonRepr())
    assert [record.getMessage() for record in caplog.records] == [
        "first\n(not an exception: 'not an exception')",
        "second\n(not an exception: <class 'test_last_resort.Unprintable'>)",
        "third\n(not an exception: <NonRepr whose repr() failed>)"]


class NonRepr:
    def __repr__(self):
        raise RuntimeError("no repr")


def test_arguments_that_do_not_fit_the_message_are_shown_beside_it(log, caplog):
    log_unexpected(log, "%d items in %s", "many", error=None)
    log_unexpected(log, "%s", NonRepr(), error=None)  # its str is its failing repr
    assert [record.getMessage() for record in caplog.records] == [
        "'%d items in %s' (its arguments ('many',) do not fit it)",
        "'%s' (its arguments <tuple whose repr() failed> do not fit it)"]


def test_nothing_is_formatted_when_errors_are_not_logged(caplog):
    caplog.set_level(logging.CRITICAL, logger="okura.quiet")
    log_unexpected(logging.getLogger("okura.quiet"), "%d", "x", error=raised(NoTraceback()))
    assert caplog.records == []


def test_a_handler_whose_stream_raises_does_not_raise_into_the_caller(capfd):
    with broken_logging():
        try:
            raise Unprintable()
        except Unprintable:
            log_unexpected(logging.getLogger("okura.test"), "request %s failed", "R2")
    assert "okura: an error could not be logged: request %s failed\n" in capfd.readouterr().err


def test_okuras_handler_reports_a_record_it_cannot_write_and_does_not_raise(capfd):
    logger = logging.getLogger("okura.test.handler")
    logger.propagate = False
    logger.addHandler(StderrHandler(BrokenStream()))
    try:
        with broken_logging():
            logger.error("table %s is gone", "t1")
            logger.error("%d", "not a number")
    finally:
        logger.handlers.clear()
        logger.propagate = True
    err = capfd.readouterr().err
    assert "okura: an error could not be logged: a log record could not be written: " \
           "'table %s is gone'\n" in err
    assert "a log record could not be written: '%d'\n" in err


def test_the_event_loop_logs_what_escapes_its_callbacks_and_goes_on(caplog, capfd):
    caplog.set_level(logging.ERROR, logger="okura.loop")
    ran = []

    def broken():
        raise Unprintable()

    async def scenario():
        loop = asyncio.get_running_loop()
        loop.set_exception_handler(loop_exception_handler)
        loop.call_soon(broken)
        loop.call_exception_handler({"message": "odd", "what": NonRepr(),
                                     "exception": "not an exception"})
        loop.call_exception_handler("not a dict")  # type: ignore[arg-type]
        await asyncio.sleep(0.01)
        ran.append(True)

    asyncio.run(scenario())
    assert ran == [True]
    told, escaped = [record.getMessage() for record in caplog.records]
    assert told == ("odd\nwhat: <NonRepr whose repr() failed>\n"
                    "(not an exception: 'not an exception')")
    assert escaped.startswith("Exception in callback ")
    assert "Unprintable: <exception str() failed>" in escaped
    assert "okura: an error could not be logged: unexpected event loop error\n" in (
        capfd.readouterr().err)


# The same on a real server: each bug below once answered 400 "Malformed HTTP request"
# (a bug raised out of the HTTP parser's callbacks reads as a malformed request), or no
# reply at all; now InternalServerError, and the next request is served.
INTERNAL = {"Code": "InternalServerError", "Message": "Internal server error"}


@pytest.fixture(scope="module")
def ddb():
    with okura.Server() as server:
        yield boto3.client("dynamodb", endpoint_url=server.endpoint_url,
                           region_name="us-east-1", aws_access_key_id="k",
                           aws_secret_access_key="s",
                           config=Config(retries={"max_attempts": 0}, read_timeout=10))


def failing_once(monkeypatch, target, name: str, failure):
    """Patch target.name to `failure` for one call, the original after."""
    original = getattr(target, name)

    def once(*args, **kwargs):
        monkeypatch.setattr(target, name, original)
        return failure(*args, **kwargs)

    monkeypatch.setattr(target, name, once)


def refused(call) -> dict:
    with pytest.raises(ClientError) as excinfo:
        call()
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500
    return excinfo.value.response["Error"]


def unprintable(*args, **kwargs):
    raise Unprintable()


def test_a_handler_raising_a_broken_exception_while_logging_fails(ddb, monkeypatch, capfd):
    target = "DynamoDB_20120810.ListTables"
    operation = ROUTES[target]

    def broken(ctx, body):
        ROUTES[target] = operation
        raise Unprintable()

    monkeypatch.setitem(ROUTES, target, operation._replace(handler=broken))
    with broken_logging():
        assert refused(ddb.list_tables) == INTERNAL
    assert "TableNames" in ddb.list_tables()
    assert "okura: an error could not be logged: internal error in " in capfd.readouterr().err


def test_a_bug_in_the_http_front(ddb, monkeypatch, caplog):
    failing_once(monkeypatch, http, "Request", unprintable)
    with caplog.at_level(logging.ERROR, logger="okura"):
        assert refused(ddb.list_tables) == INTERNAL
    assert "internal error in the HTTP front" in caplog.text
    assert "TableNames" in ddb.list_tables()


def test_a_bug_past_dispatch_in_a_request_that_waited(ddb, monkeypatch, caplog):
    async def broken(self, request, raw):
        await asyncio.sleep(0)  # the reply is a task's
        raise Unprintable()

    failing_once(monkeypatch, app_module.App, "dispatch", broken)
    with caplog.at_level(logging.ERROR, logger="okura"):
        assert refused(ddb.list_tables) == INTERNAL
    assert "Unprintable: <exception str() failed>" in caplog.text
    assert "TableNames" in ddb.list_tables()


def test_a_request_whose_metrics_fail_keeps_its_reply(ddb, monkeypatch, caplog):
    ddb.create_table(TableName="kept", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")
    failing_once(monkeypatch, Metrics, "request", unprintable)
    with caplog.at_level(logging.ERROR, logger="okura"):
        ddb.put_item(TableName="kept", Item={"pk": {"S": "a"}})
    assert "recording DynamoDB_20120810.PutItem (request " in caplog.text
    assert ddb.get_item(TableName="kept", Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}
