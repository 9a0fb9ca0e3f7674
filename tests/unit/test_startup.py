"""Start-up mistakes are one line and a non-zero exit, never a traceback; the data
directory is held by one server at a time; `okura --version` (issue 25)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest
from conftest import Server

from okura import __version__, config
from okura.config import StartupError


def okura(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "okura", *args], capture_output=True,
                          text=True, timeout=30, cwd=cwd,
                          env=dict(os.environ, PYTHONPATH=os.getcwd()))


def refused(done: subprocess.CompletedProcess) -> str:
    """The one line a refused start printed."""
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_version():
    done = okura("--version")
    assert (done.returncode, done.stdout.strip()) == (0, f"okura {__version__}")


def test_a_misspelt_key_in_okura_toml_is_refused_with_a_suggestion(tmp_path):
    (tmp_path / "okura.toml").write_text("prot = 9207\n")
    assert refused(okura("serve", "--memory", cwd=tmp_path)) == (
        "okura: okura.toml: unknown setting 'prot' (did you mean 'port'?)")


@pytest.mark.parametrize("text, message", [
    ('port = "abc"', "okura.toml: port must be a whole number, not 'abc'"),
    ("port = 70000", "okura.toml: port must be between 0 and 65535, not 70000"),
    ('durability = "never"', "okura.toml: durability must be one of process, fsync, not 'never'"),
    ("memory = 1", "okura.toml: memory must be true or false, not 1"),
    ("status_delay = 2", None),  # a whole number is a number
    ('consistency = "sometimes"',
     "okura.toml: consistency must be one of strong, eventual, not 'sometimes'"),
    ("consistency_max_delay = -1",
     "okura.toml: consistency_max_delay must be at least 0, not -1.0"),
    ("nonsense = 1", "okura.toml: unknown setting 'nonsense'"),
    ("port = ", "okura.toml: Invalid value (at line 1, column 8)"),
])
def test_okura_toml_values_are_checked(tmp_path, text, message):
    path = tmp_path / "okura.toml"
    path.write_text(text + "\n")
    if message is None:
        assert config.load(str(path)).status_delay == 2.0
        return
    with pytest.raises(StartupError) as caught:
        config.load(str(path))
    assert str(caught.value) == message.replace("okura.toml", str(path))


def test_consistency_from_the_file_the_environment_and_flags(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert (config.load().consistency, config.load().consistency_max_delay) == ("strong", 2.0)
    (tmp_path / "okura.toml").write_text('consistency = "eventual"\nconsistency-seed = 7\n')
    loaded = config.load()
    assert (loaded.consistency, loaded.consistency_seed) == ("eventual", 7)
    assert config.load(environ={"OKURA_CONSISTENCY": "strong",
                                "OKURA_CONSISTENCY_MAX_DELAY": "30"}).consistency_max_delay == 30
    assert config.load(consistency="strong").consistency == "strong"


def test_a_named_settings_file_must_exist(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert config.load().port == 8000  # okura.toml itself may be absent
    with pytest.raises(StartupError) as caught:
        config.load("other.toml")
    assert str(caught.value) == "other.toml: No such file or directory"


def test_environment_values_are_checked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StartupError) as caught:
        config.load(environ={"OKURA_PORT": "x"})
    assert str(caught.value) == "OKURA_PORT: must be a whole number, not 'x'"
    with pytest.raises(StartupError) as caught:
        config.load(environ={"OKURA_LOG_LEVEL": "loud"})
    assert str(caught.value) == ("OKURA_LOG_LEVEL: log_level must be one of debug, info, "
                                 "warning, error, not 'loud'")


def test_a_port_in_use_is_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert refused(okura("serve", "--memory", "--port", str(port))) == (
            f"okura: cannot listen on 127.0.0.1:{port}: the port is in use (another okura, "
            "or another program)")


def test_a_second_server_on_a_data_directory_refuses_naming_the_holder(tmp_path):
    data = str(tmp_path / "data")
    first = Server(data_dir=data)
    try:
        second = okura("serve", "--data-dir", data, "--port", "0")
        assert refused(second) == (f"okura: the data directory {data} is in use by another "
                                   f"okura (pid {first.process.pid})")
        ddb = first.client()  # the first goes on serving, unharmed
        ddb.create_table(TableName="still", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        assert ddb.list_tables()["TableNames"] == ["still"]
    finally:
        first.stop()
    again = Server(data_dir=data)  # the lock went with the first server
    try:
        assert again.client().list_tables()["TableNames"] == ["still"]
    finally:
        again.stop()


def test_an_unusable_data_directory_is_one_line(tmp_path):
    (tmp_path / "file").write_text("")
    assert refused(okura("serve", "--data-dir", str(tmp_path / "file"), "--port", "0")) == (
        f"okura: cannot use the data directory {tmp_path / 'file'}: it is not a directory")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "okura.sqlite3").write_text("not a database, not at all" * 10)
    line = refused(okura("serve", "--data-dir", str(tmp_path / "bad"), "--port", "0"))
    assert line.startswith(f"okura: cannot open the storage ({tmp_path / 'bad'}): "), line


def test_a_seed_file_okura_cannot_read_is_one_line(tmp_path):
    missing = tmp_path / "seed.yaml"
    assert refused(okura("serve", "--memory", "--port", "0", "--seed", str(missing))) == (
        f"okura: seed file {missing}: No such file or directory")
