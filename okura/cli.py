"""The command line: parsing only; the work is done by the modules it calls."""
from __future__ import annotations

import argparse
import sys

from okura import __version__


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="okura", description="A DynamoDB-compatible server.")
    parser.add_argument("--version", action="version", version=f"okura {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="run the server")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8000)")
    serve.add_argument("--data-dir", help="directory of the SQLite data (default ./okura-data)")
    serve.add_argument("--memory", action="store_true", default=None,
                       help="keep everything in memory, nothing on disk")
    serve.add_argument("--postgres", metavar="URL",
                       help="keep everything in this PostgreSQL database "
                            "(postgresql://user@host/db) instead of SQLite")
    serve.add_argument("--durability", choices=["process", "fsync"],
                       help="process: writes survive a crash of okura (default); "
                            "fsync: they also survive power loss")
    serve.add_argument("--status-delay", type=float,
                       help="seconds tables stay CREATING/UPDATING/DELETING (default 0)")
    serve.add_argument("--ttl-interval", type=float,
                       help="seconds between sweeps for expired TTL items (default 1)")
    serve.add_argument("--stream-retention", type=float,
                       help="seconds stream records stay readable (default 86400)")
    serve.add_argument("--clock-offset", type=float,
                       help="start the server's clock this many seconds ahead of real time "
                            "(move it later with POST /okura/clock, see docs/admin.md)")
    serve.add_argument("--throttling", choices=["off", "shadow", "enforce"],
                       help="capacity limits: off, shadow (default: count and log what would be "
                            "throttled), enforce (docs/throttling.md)")
    serve.add_argument("--consistency", choices=["strong", "eventual"],
                       help="strong (default: every read sees the latest write) or eventual "
                            "(indexes, streams and reads lag; docs/consistency.md)")
    serve.add_argument("--consistency-max-delay", type=float, metavar="SECONDS",
                       help="the longest a write stays out of sight under eventual (default 2)")
    serve.add_argument("--consistency-seed", type=int, metavar="N",
                       help="seed the delays, so a run replays exactly (default: a fresh one)")
    serve.add_argument("--auth", choices=["off", "warn", "enforce"],
                       help="verify signatures and IAM policies: off (default), warn (log and "
                            "count would-be denials), enforce (docs/access.md)")
    serve.add_argument("--auth-config", metavar="PATH",
                       help="JSON file of users, access keys, policies and admin keys")
    serve.add_argument("--trigger-interval", type=float,
                       help="seconds between polls of an idle stream by its triggers "
                            "(default 0.25; docs/triggers.md)")
    serve.add_argument("--replication-delay", type=float, metavar="SECONDS",
                       help="seconds of okura's clock before a global table's writes reach "
                            "its other replicas (default 0; docs/global-tables.md)")
    serve.add_argument("--s3-dir", metavar="DIR",
                       help="S3 buckets of exports and imports as directories: bucket B is "
                            "DIR/B (default <data-dir>/s3)")
    serve.add_argument("--s3-endpoint", metavar="URL",
                       help="keep export and import objects in this S3-compatible service "
                            "instead (credentials from the usual AWS variables)")
    serve.add_argument("--kinesis-endpoint", metavar="URL",
                       help="send the records of Kinesis streaming destinations to this "
                            "Kinesis-compatible service (docs/kinesis.md)")
    serve.add_argument("--import-error-dir", metavar="DIR",
                       help="where ImportTable logs the lines it could not import "
                            "(default <data-dir>/import-errors)")
    serve.add_argument("--audit-log", metavar="PATH",
                       help="audit log of requests, CloudTrail-shaped JSON lines (with --auth "
                            "warn|enforce; default: audit.jsonl in the data dir)")
    serve.add_argument("--audit-data-events", action="store_true", default=None,
                       help="audit item reads and writes too, not only control-plane requests")
    serve.add_argument("--tls-cert", metavar="PEM", help="serve HTTPS with this certificate")
    serve.add_argument("--tls-key", metavar="PEM", help="the certificate's private key")
    serve.add_argument("--tls-self-signed", action="store_true", default=None,
                       help="serve HTTPS with a certificate made once and kept in the data dir")
    serve.add_argument("--tls-port", type=int,
                       help="port of HTTPS, beside HTTP on --port (default 8443)")
    serve.add_argument("--log-level", choices=["debug", "info", "warning", "error"])
    serve.add_argument("--config", default="okura.toml", help="settings file (default okura.toml)")
    serve.add_argument("--access-log", metavar="FILE",
                       help="write one JSON line per request to FILE (docs/admin.md)")
    serve.add_argument("--seed", metavar="FILE",
                       help="create the tables and items a JSON or YAML file describes, at "
                            "start (docs/admin.md)")
    serve.add_argument("--no-console", dest="console", action="store_false", default=None,
                       help="do not serve the console under /console/ (docs/console.md)")
    serve.add_argument("--idle-timeout", type=float, metavar="SECONDS",
                       help="close a connection that sends no whole request for this long "
                            "(default 60; 0: never)")
    serve.add_argument("--max-connections", type=int, metavar="N",
                       help="connections open at once (default 10000, within the open-file "
                            "limit); past it the quietest makes room, or the new one gets "
                            "a 503")
    serve.add_argument("--allowed-hosts", metavar="NAMES",
                       help="comma-separated host names okura answers for besides localhost "
                            "and IP addresses (* : any; docs/admin.md, Browsers)")
    serve.add_argument("--cors-origins", metavar="ORIGINS",
                       help="comma-separated origins (https://app.example.com) whose pages may "
                            "call the DynamoDB API besides localhost's (*: any)")
    _backup_commands(commands)
    _transfer_commands(commands)
    _advise_command(commands)
    _mcp_command(commands)
    args = vars(parser.parse_args(argv))
    command = args.pop("command")
    if command == "serve":
        from okura import config
        from okura.server.app import run

        try:
            run(config.load(args.pop("config"), **args))
        except config.StartupError as error:  # one line, no traceback
            print(f"okura: {error}", file=sys.stderr)
            raise SystemExit(2) from None
    elif command in ("backup", "restore"):
        from okura import backup_commands

        getattr(backup_commands, command)(**args)
    elif command in ("export", "import"):
        from okura import transfer_commands

        getattr(transfer_commands, command + "_table")(**args)
    elif command == "advise":
        from okura import advise_command
        from okura.advisor.cost import Rates

        rates = Rates(**{name: args.pop(name) for name in (
            "reads_per_second", "writes_per_second", "storage_gb", "stream_reads_per_second",
            "backup_gb", "replicas")})
        advise_command.run(rates=rates, **args)
    elif command == "mcp":
        from okura import config
        from okura.mcp.server import run as run_mcp

        try:
            run_mcp(**args)
        except config.StartupError as error:  # the okura it starts: one line, as serve's
            print(f"okura: {error}", file=sys.stderr)
            raise SystemExit(2) from None


def _remote(verb):
    """The options of a verb that works on a running server."""
    verb.add_argument("--endpoint", default="http://127.0.0.1:8000",
                      help="the server's URL (default http://127.0.0.1:8000)")
    verb.add_argument("--region", default="us-east-1", help="default us-east-1")
    verb.add_argument("--wait", action="store_true", help="wait until the job is done")
    verb.add_argument("--timeout", type=float, default=3600.0,
                      help="seconds --wait waits at most (default 3600)")
    return verb


def _backup_commands(commands) -> None:
    """`okura backup` and `okura restore`, against a running server."""
    backup = _remote(commands.add_parser("backup", help="create an on-demand backup of a table"))
    backup.add_argument("table", help="the table's name or ARN")
    backup.add_argument("--name", help="the backup's name (default: table and UTC time)")
    restore = _remote(commands.add_parser(
        "restore", help="restore a backup, or a table to a point in time, into a new table"))
    restore.add_argument("target", help="the new table's name")
    source = restore.add_mutually_exclusive_group(required=True)
    source.add_argument("--backup-arn", help="restore this backup")
    source.add_argument("--table", help="restore this table (name or ARN; deleted ones too) "
                                        "to a point in time")
    restore.add_argument("--time", dest="when", metavar="ISO8601",
                         help="with --table: the time to restore to (default: the latest "
                              "restorable time)")


def _transfer_commands(commands) -> None:
    """`okura export` and `okura import`, against a running server (docs/transfers.md)."""
    export = _remote(commands.add_parser(
        "export", help="export a table to S3 (a bucket of --s3-dir, or of --s3-endpoint)"))
    export.add_argument("table", help="the table's name or ARN")
    export.add_argument("--bucket", required=True, help="the S3 bucket")
    export.add_argument("--prefix", help="the S3 key prefix")
    export.add_argument("--format", dest="fmt", choices=["DYNAMODB_JSON", "ION"],
                        default="DYNAMODB_JSON")
    export.add_argument("--time", dest="when", metavar="ISO8601",
                        help="export the table as of then (default: now)")
    export.add_argument("--since", metavar="ISO8601",
                        help="an incremental export of the changes since then")
    export.add_argument("--until", metavar="ISO8601",
                        help="with --since: the end of the window (default: now)")
    export.add_argument("--view", choices=["NEW_IMAGE", "NEW_AND_OLD_IMAGES"],
                        default="NEW_AND_OLD_IMAGES", help="with --since: the images written")
    imported = _remote(commands.add_parser(
        "import", help="create a table from S3 objects (CSV, DynamoDB JSON or Ion)"))
    imported.add_argument("table", help="the new table's name")
    imported.add_argument("--bucket", required=True, help="the S3 bucket")
    imported.add_argument("--prefix", help="import the objects under this key prefix")
    imported.add_argument("--format", dest="fmt", choices=["CSV", "DYNAMODB_JSON", "ION"],
                          required=True)
    imported.add_argument("--compression", choices=["NONE", "GZIP", "ZSTD"], default="NONE")
    imported.add_argument("--key", required=True, metavar="NAME:TYPE",
                          help="the partition key and its type (S, N or B), e.g. pk:S")
    imported.add_argument("--sort", metavar="NAME:TYPE", help="the sort key and its type")
    imported.add_argument("--delimiter", help="CSV: the delimiter (default ,)")


def _advise_command(commands) -> None:
    """`okura advise`: design advice and a cost estimate (docs/advisor.md)."""
    advise = commands.add_parser(
        "advise", help="check tables against the DynamoDB design guidelines and price them")
    where = advise.add_mutually_exclusive_group()
    where.add_argument("--endpoint", help="a running okura or DynamoDB endpoint (default: "
                                          "http://127.0.0.1:8000 unless files are given)")
    where.add_argument("--aws", action="store_true",
                       help="real DynamoDB with your AWS credentials (read-only)")
    advise.add_argument("--terraform", action="append", default=[], metavar="PATH",
                        help="a .tf file or a directory of them (repeatable)")
    advise.add_argument("--cloudformation", action="append", default=[], metavar="PATH",
                        help="a CloudFormation/SAM template or a directory of them (repeatable)")
    advise.add_argument("--region", default="us-east-1",
                        help="the region read, and whose prices are used (default us-east-1)")
    advise.add_argument("--sample", type=int, metavar="N",
                        help="scan up to N items per table for the data rules (default: 1000 "
                             "on okura, none on other endpoints; 0: none)")
    advise.add_argument("--format", dest="fmt", choices=["text", "json", "markdown"],
                        default="text")
    advise.add_argument("--fail-on", choices=["info", "warning", "error"],
                        help="exit 1 when a finding is this severe or more")
    advise.add_argument("--access-control", action="store_true",
                        help="access control is on where the tables run (multi-tenant rule)")
    rates = advise.add_argument_group("rates for the cost estimate (per table; default: "
                                      "observed traffic)")
    rates.add_argument("--reads-per-second", type=float, help="read request units per second")
    rates.add_argument("--writes-per-second", type=float, help="write request units per second")
    rates.add_argument("--storage-gb", type=float, help="table size in GB")
    rates.add_argument("--stream-reads-per-second", type=float, default=0.0,
                       help="GetRecords calls per second outside Lambda triggers (default 0)")
    rates.add_argument("--backup-gb", type=float, help="on-demand backups kept, in GB")
    rates.add_argument("--replicas", type=int, help="other regions of a global table")


def _mcp_command(commands) -> None:
    """`okura mcp`: a Model Context Protocol server for coding agents (docs/mcp.md)."""
    mcp = commands.add_parser(
        "mcp", help="serve okura's tables, items, advisor, clock and faults to coding agents "
                    "over the Model Context Protocol")
    where = mcp.add_mutually_exclusive_group()
    where.add_argument("--endpoint", metavar="URL",
                       help="use the okura already running there (default: start one in "
                            "this process, in memory unless --data-dir or --postgres)")
    where.add_argument("--memory", action="store_true", default=None,
                       help="the okura started keeps everything in memory (the default)")
    where.add_argument("--data-dir", help="the okura started keeps its SQLite data here")
    where.add_argument("--postgres", metavar="URL",
                       help="the okura started keeps its data in this PostgreSQL database")
    mcp.add_argument("--port", type=int,
                     help="port of the okura started, for the application under test to "
                          "share it (default: a free one; the agent is told which)")
    mcp.add_argument("--seed", metavar="FILE",
                     help="the okura started creates these tables and items first "
                          "(docs/admin.md)")
    mcp.add_argument("--throttling", choices=["off", "shadow", "enforce"],
                     help="the okura started's throttling mode (default shadow)")
    mcp.add_argument("--region", default="us-east-1", help="default us-east-1")
    mcp.add_argument("--allow-writes", action="store_true",
                     help="let the agent put, update and delete items (default: read-only)")
    mcp.add_argument("--max-output", type=int, default=40_000, metavar="BYTES",
                     help="bytes of JSON one tool call returns at most; pages of items are "
                          "cut to fit (default 40000)")
    mcp.add_argument("--http", type=int, metavar="PORT",
                     help="serve MCP over streamable HTTP on this port (path /mcp) instead "
                          "of stdio")
    mcp.add_argument("--http-host", default="127.0.0.1",
                     help="address of --http (default 127.0.0.1)")
