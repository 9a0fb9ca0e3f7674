"""One Settings object, from okura.toml, then OKURA_* environment variables, then flags."""
from __future__ import annotations

import dataclasses
import difflib
import os
import tomllib
from dataclasses import dataclass, field, fields
from typing import Any


@dataclass
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: str = "okura-data"
    memory: bool = False
    log_level: str = "info"
    durability: str = "process"       # "process" survives kill -9; "fsync" survives power loss
    account_id: str = "000000000000"  # every credential maps to this one account
    status_delay: float = 0.0         # seconds a table stays CREATING/UPDATING/DELETING
    postgres: str = ""                # postgresql:// URL: keep everything there, not in SQLite
    ttl_interval: float = 1.0         # seconds between TTL sweeps
    stream_retention: float = 86400.0  # seconds stream records stay readable
    clock_offset: float = 0.0         # start the server's clock this many seconds ahead
    auth: str = "off"                 # off | warn | enforce: SigV4 and IAM policies (docs/access.md)
    auth_config: str = ""             # JSON file of users, keys, policies and admin keys
    audit_log: str = ""               # CloudTrail-shaped JSON lines (default: data dir, SQLite)
    audit_data_events: bool = False   # also item reads and writes, PartiQL, stream records
    audit_max_bytes: int = 100 * 1024 * 1024  # the audit log rotates past this size
    audit_backups: int = 5            # rotated audit files kept
    tls_cert: str = ""                # PEM certificate (chain) for HTTPS
    tls_key: str = ""                 # its PEM private key
    tls_self_signed: bool = False     # make (once) and use a certificate kept in the data dir
    tls_port: int = 8443              # the HTTPS port, beside --port's HTTP
    # Stream triggers (docs/triggers.md): [functions.NAME] tables and
    # [[event_source_mappings]] entries of okura.toml, and the poll interval
    functions: dict = field(default_factory=dict)
    event_source_mappings: list = field(default_factory=list)
    trigger_interval: float = 0.25    # seconds between polls of an idle stream
    replication_delay: float = 0.0    # seconds of the clock before a global table's write
    #                                   reaches its other replicas (docs/global-tables.md)
    s3_dir: str = ""                  # S3 buckets for exports and imports (default <data-dir>/s3)
    s3_endpoint: str = ""             # or an S3-compatible service's URL (boto3)
    kinesis_endpoint: str = ""        # Kinesis destinations' records go here (boto3)
    import_error_dir: str = ""        # import error logs (default <data-dir>/import-errors)
    access_log: str = ""              # a file of one JSON line per request (docs/admin.md)
    seed: str = ""                    # a JSON/YAML file of tables and items loaded at start
    faults: list = field(default_factory=list)  # [[faults]] rules injected from the start
    throttling: str = "shadow"        # off | shadow | enforce: capacity limits (docs/throttling.md)
    consistency: str = "strong"       # strong | eventual: what reads may miss (docs/consistency.md)
    consistency_max_delay: float = 2.0  # seconds: the longest a write stays out of sight
    consistency_seed: int = -1        # the delays' seed (negative: a fresh one, logged)
    console: bool = True              # the console's pages under /console/ (docs/console.md)
    idle_timeout: float = 60.0        # seconds a connection may go without a whole request
    max_connections: int = 10000      # connections open at once (server/connections.py)
    allowed_hosts: str = ""           # Host names okura answers besides localhost and addresses
    cors_origins: str = ""            # origins whose pages may call the API besides localhost

    def merged(self, **overrides) -> "Settings":
        given = {key: value for key, value in overrides.items() if value is not None}
        return dataclasses.replace(self, **given)


DEFAULT_FILE = "okura.toml"


class StartupError(Exception):
    """A mistake that stops okura from starting: its one-line explanation."""


# The settings whose values are one of a few words (the flags' choices).
CHOICES = {"durability": ("process", "fsync"), "log_level": ("debug", "info", "warning", "error"),
           "auth": ("off", "warn", "enforce"),
           "throttling": ("off", "shadow", "enforce"), "consistency": ("strong", "eventual")}
# The settings with a least value
_AT_LEAST: dict[str, float] = {"idle_timeout": 0, "max_connections": 1,
                                "consistency_max_delay": 0}
_KINDS = {bool: "true or false", int: "a whole number", float: "a number", str: "a string",
          dict: "a table", list: "a list"}


def _coerce(kind: type, text: str):
    if kind is bool:
        return text.strip().lower() in ("1", "true", "yes", "on")
    return kind(text)


def _checked(name: str, kind: type, value: Any, origin: str) -> Any:
    """`value` as the setting's type; a StartupError naming `origin` if it is not one."""
    if kind is float and type(value) is int:
        value = float(value)
    if type(value) is not kind:
        raise StartupError(f"{origin}: {name} must be {_KINDS[kind]}, not {value!r}")
    if name in CHOICES and value not in CHOICES[name]:
        raise StartupError(f"{origin}: {name} must be one of {', '.join(CHOICES[name])}, "
                           f"not {value!r}")
    if name == "port" and isinstance(value, int) and not 0 <= value <= 65535:
        raise StartupError(f"{origin}: port must be between 0 and 65535, not {value}")
    if name in _AT_LEAST and isinstance(value, (int, float)) and value < _AT_LEAST[name]:
        raise StartupError(f"{origin}: {name} must be at least {_AT_LEAST[name]}, not {value}")
    return value


def _from_file(config_file: str, types: dict[str, type]) -> dict:
    try:
        with open(config_file, "rb") as handle:
            table = tomllib.load(handle)
    except OSError as error:
        raise StartupError(f"{config_file}: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise StartupError(f"{config_file}: {error}") from None
    given = {}
    for key, value in table.items():
        name = key.replace("-", "_")
        if name not in types:
            close = difflib.get_close_matches(name, types, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise StartupError(f"{config_file}: unknown setting {key!r}{hint}")
        given[name] = _checked(name, types[name], value, config_file)
    return given


def load(config_file: str = DEFAULT_FILE, environ=os.environ, **flags) -> Settings:
    """The settings; StartupError (one line) for an unreadable file, an unknown key or a
    value of the wrong kind."""
    settings = Settings()
    types = {f.name: type(getattr(settings, f.name)) for f in fields(settings)}
    if os.path.exists(config_file) or config_file != DEFAULT_FILE:  # one named must exist
        settings = settings.merged(**_from_file(config_file, types))
    from_env = {}
    for name, kind in types.items():
        variable = f"OKURA_{name.upper()}"
        if variable in environ and kind not in (dict, list):
            try:
                value = _coerce(kind, environ[variable])
            except ValueError:
                raise StartupError(f"{variable}: must be {_KINDS[kind]}, "
                                   f"not {environ[variable]!r}") from None
            from_env[name] = _checked(name, kind, value, variable)
    return settings.merged(**from_env).merged(**flags)
