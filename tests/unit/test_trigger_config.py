"""okura.toml's [functions.NAME] and [[event_source_mappings]]: what is accepted, and the
reasons a declaration is refused (the server then stops at start, status 2)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from okura.config import Settings
from okura.triggers.duty import check_triggers
from okura.triggers.functions import TriggerConfigError, declared


def test_each_kind_and_its_settings():
    functions = declared({
        "a": {"handler": "pkg.mod:fn", "timeout": 10, "environment": {"N": 1}, "memory": 256},
        "b": {"command": "cat"},
        "c": {"url": "http://127.0.0.1:3001"}})
    assert [(f.kind, f.target, f.timeout) for f in functions.values()] == [
        ("handler", "pkg.mod:fn", 10.0), ("command", "cat", 3.0),
        ("url", "http://127.0.0.1:3001", 3.0)]
    assert functions["a"].environment == {"N": "1"} and functions["a"].memory == 256
    assert functions["a"].arn("eu-west-1", "123456789012") == \
        "arn:aws:lambda:eu-west-1:123456789012:function:a"


@pytest.mark.parametrize("spec, reason", [
    ({"handler": "m:f", "url": "http://x"}, "functions.f needs exactly one of handler, command, url"),
    ({}, "functions.f needs exactly one of handler, command, url"),
    ({"handler": "no-colon"}, "functions.f.handler is not valid: 'no-colon'"),
    ({"url": "https://x"}, "functions.f.url is not valid: 'https://x'"),
    ({"command": "x", "timeout": 0}, "functions.f: timeout must be a positive number and "
                                     "environment a table"),
    ({"command": "x", "retries": 1}, "functions.f: unknown settings ['retries']"),
])
def test_refused_functions(spec, reason):
    with pytest.raises(TriggerConfigError) as excinfo:
        declared({"f": spec})
    assert str(excinfo.value) == reason


@pytest.mark.parametrize("entry", [
    {"table": "t"},                                      # no function
    {"function": "f"},                                   # no source
    {"function": "f", "table": "t", "event_source_arn": "arn:aws:dynamodb:x"},
    {"function": "f", "table": "t", "batchsize": 5},     # unknown setting
])
def test_refused_mappings(entry):
    with pytest.raises(TriggerConfigError):
        check_triggers(Settings(event_source_mappings=[entry]))


def test_a_refused_declaration_stops_the_server(tmp_path):
    path = tmp_path / "okura.toml"
    path.write_text('[functions.bad]\nhandler = "m:f"\ncommand = "x"\n')
    done = subprocess.run([sys.executable, "-m", "okura", "serve", "--memory", "--port", "0",
                           "--config", str(path)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "functions.bad needs exactly one of handler, command, url" in done.stderr
