"""One Settings object, from okura.toml, then OKURA_* environment variables, then flags."""
from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field, fields


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
    s3_dir: str = ""                  # S3 buckets for exports and imports (default <data-dir>/s3)
    s3_endpoint: str = ""             # or an S3-compatible service's URL (boto3)
    import_error_dir: str = ""        # import error logs (default <data-dir>/import-errors)

    def merged(self, **overrides) -> "Settings":
        given = {key: value for key, value in overrides.items() if value is not None}
        return dataclasses.replace(self, **given)


def _coerce(kind: type, text: str):
    if kind is bool:
        return text.strip().lower() in ("1", "true", "yes", "on")
    return kind(text)


def load(config_file: str = "okura.toml", environ=os.environ, **flags) -> Settings:
    settings = Settings()
    types = {f.name: type(getattr(settings, f.name)) for f in fields(settings)}
    if os.path.exists(config_file):
        with open(config_file, "rb") as handle:
            table = tomllib.load(handle)
        settings = settings.merged(**{k.replace("-", "_"): v for k, v in table.items()
                                      if k.replace("-", "_") in types})
    from_env = {name: _coerce(kind, environ[f"OKURA_{name.upper()}"])
                for name, kind in types.items()
                if f"OKURA_{name.upper()}" in environ and kind not in (dict, list)}
    return settings.merged(**from_env).merged(**flags)
