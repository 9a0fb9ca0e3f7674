"""The callers okura knows, from the --auth-config JSON file (README, "Access control"):
IAM users with access keys, secrets, tags and identity-based policies, roles whose
sessions hold temporary credentials (an access key, a secret and a session token, until
an expiry), and the access keys that may use the admin endpoints."""
from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, field
from typing import Any
from datetime import datetime

import orjson

from okura import arns
from okura.access.conditions import PolicyError, Values
from okura.access.policies import Policy, Statement, keys_of


class AuthConfigError(ValueError):
    """The auth config is unusable; the message says where."""


@dataclass
class Identity:
    """One set of credentials and whom they stand for."""
    access_key: str
    secret: str
    account: str
    arn: str  # the principal's ARN: arn:aws:iam::<account>:user/<name>, or the session's
    arns: tuple[str, ...]  # every ARN a resource policy may name it by (a session: its role's too)
    userid: str  # aws:userid
    statements: list[Statement]
    admin: bool = False
    token: str | None = None  # a session's token, required with its key
    expires: float | None = None  # a session's end, in epoch seconds
    facts: dict[str, Values] = field(default_factory=dict)  # aws:username, aws:PrincipalTag/...
    # (operation, region, table name, index name) -> the table, for requests found allowed
    # whatever their details (Guard.granted)
    granted: dict[tuple, Any] = field(default_factory=dict)
    # (action, resource) -> whether its statements allow it whatever the request's details
    unconditional: dict[tuple[str, str], bool] = field(default_factory=dict)
    # the condition keys its statements read: what a request's facts need to hold
    keys: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.keys = keys_of(self.statements)


def _unique_id(prefix: str, name: str) -> str:
    """A stable IAM-style unique id (AIDA... for users, AROA... for roles)."""
    digest = base64.b32encode(hashlib.sha256(name.encode()).digest()).decode()
    return prefix + digest[:17]


def _policies(entry: dict, where: str) -> list[Statement]:
    documents = entry.get("policies", [])
    if not isinstance(documents, list):
        raise AuthConfigError(f"{where}: policies must be a list of policy documents")
    statements = []
    for number, document in enumerate(documents):
        try:
            statements += Policy(document).statements
        except PolicyError as error:
            raise AuthConfigError(f"{where}: policy {number}: {error}") from None
    return statements


def _tags(entry: dict, where: str) -> dict[str, str]:
    tags = entry.get("tags", {})
    if not isinstance(tags, dict) or not all(isinstance(v, str) for v in tags.values()):
        raise AuthConfigError(f"{where}: tags must map names to strings")
    return tags


def _credentials(entry: dict, where: str) -> tuple[str, str]:
    key, secret = entry.get("access_key_id"), entry.get("secret_access_key")
    if not isinstance(key, str) or not key or not isinstance(secret, str) or not secret:
        raise AuthConfigError(f"{where}: access_key_id and secret_access_key are required strings")
    return key, secret


def _principal_facts(account: str, arn: str, userid: str, kind: str, tags: dict[str, str],
                     username: str | None) -> dict[str, Values]:
    facts: dict[str, Values] = {
        "aws:principalarn": [arn], "aws:principalaccount": [account], "aws:userid": [userid],
        "aws:principaltype": [kind]}
    if username is not None:
        facts["aws:username"] = [username]
    for name, value in tags.items():
        facts["aws:principaltag/" + name.lower()] = [value]
    return facts


def _named(entry: object, where: str, account: str) -> tuple[str, str]:
    """A user's or role's name and account (the file's account unless it says)."""
    name = entry.get("name") if isinstance(entry, dict) else None
    if not isinstance(name, str) or not name:
        raise AuthConfigError(f"{where}: a name is required")
    assert isinstance(entry, dict)
    return name, str(entry.get("account_id", account))


def load(path: str, default_account: str) -> dict[str, Identity]:
    """Every identity of the file, by access key id; raises AuthConfigError."""
    try:
        with open(path, "rb") as handle:
            doc = orjson.loads(handle.read())
    except (OSError, orjson.JSONDecodeError) as error:
        raise AuthConfigError(f"cannot read the auth config {path}: {error}") from None
    if not isinstance(doc, dict):
        raise AuthConfigError("the auth config must be a JSON object")
    account = str(doc.get("account_id", default_account))
    admins = set(doc.get("admin_access_key_ids", []))
    found: dict[str, Identity] = {}

    def add(identity: Identity, where: str) -> None:
        if identity.access_key in found:
            raise AuthConfigError(f"{where}: access key {identity.access_key} is given twice")
        found[identity.access_key] = identity

    for number, user in enumerate(doc.get("users", [])):
        where = f"users[{number}]"
        name, user_account = _named(user, where, account)
        key, secret = _credentials(user, where)
        arn = arns.iam_user(user_account, name)
        userid = user.get("user_id") or _unique_id("AIDA", arn)
        add(Identity(key, secret, user_account, arn, (arn,), userid, _policies(user, where),
                     key in admins, facts=_principal_facts(user_account, arn, userid, "User",
                                                           _tags(user, where), name)), where)
    for number, role in enumerate(doc.get("roles", [])):
        where = f"roles[{number}]"
        name, role_account = _named(role, where, account)
        role_arn = arns.iam_role(role_account, name)
        role_id = role.get("role_id") or _unique_id("AROA", role_arn)
        statements, tags = _policies(role, where), _tags(role, where)
        for index, session in enumerate(role.get("sessions", [])):
            at = f"{where}.sessions[{index}]"
            key, secret = _credentials(session, at)
            token, session_name = session.get("session_token"), session.get("session_name")
            if not isinstance(token, str) or not token or not isinstance(session_name, str):
                raise AuthConfigError(f"{at}: session_token and session_name are required strings")
            expires = None
            if "expiration" in session:
                try:
                    expires = datetime.fromisoformat(
                        str(session["expiration"]).replace("Z", "+00:00")).timestamp()
                except ValueError:
                    raise AuthConfigError(f"{at}: expiration must be an ISO 8601 time") from None
            arn = arns.assumed_role(role_account, name, session_name)
            userid = f"{role_id}:{session_name}"
            facts = _principal_facts(role_account, role_arn, userid, "AssumedRole", tags, None)
            add(Identity(key, secret, role_account, arn, (arn, role_arn), userid, statements,
                         key in admins, token, expires, facts), at)
    return found
