"""`okura mcp` as a command: over streamable HTTP (`--http PORT`), reached by the SDK's
client at http://127.0.0.1:PORT/mcp, here against an okura already running (--endpoint);
and a start that fails."""
from __future__ import annotations

import subprocess
import sys

from conftest import Server, free_port
from mcp_session import ROOT, Session, wait_listening


def test_mcp_over_streamable_http(tmp_path):
    okura = Server()
    port = free_port()
    with open(tmp_path / "mcp.log", "w") as log:
        process = subprocess.Popen([sys.executable, "-m", "okura", "mcp", "--endpoint",
                                    okura.url, "--http", str(port)], cwd=ROOT, stderr=log)
    try:
        wait_listening(port, process)
        session = Session(url=f"http://127.0.0.1:{port}/mcp")
        try:
            assert okura.url in session.client.instructions
            assert session.json("list_tables") == {"TableNames": []}
            assert "--allow-writes" in session.error("put_item", table_name="dev-x-y",
                                                     item={"k": {"S": "v"}})
        finally:
            session.close()
    finally:
        process.terminate()
        process.wait(10)
        okura.stop()


def test_a_start_up_mistake_is_one_line(tmp_path):
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    done = subprocess.run([sys.executable, "-m", "okura", "mcp", "--data-dir",
                           str(not_a_directory)], cwd=ROOT, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=90)
    assert done.returncode == 2
    assert done.stdout == ""  # stdout is the MCP channel
    assert done.stderr.startswith("okura: ") and done.stderr.count("\n") == 1, done.stderr
