"""IAM policy documents, compiled once, and their evaluation as the IAM user guide's
"Policy evaluation logic" describes it: an explicit Deny anywhere wins; otherwise an
Allow is needed: from an identity-based policy or from the resource's policy within
one account, from both across accounts.

A statement matches a request when its Action (or NotAction), its Resource (or
NotResource), for a resource policy its Principal (or NotPrincipal), and every
condition match."""
from __future__ import annotations

from typing import Callable, NamedTuple

import orjson

from okura import arns
from okura.access.conditions import (Condition, Facts, PolicyError, conditions_of, substitute,
                                     template)
from okura.access.patterns import action_glob, arn_matcher


def _strings(value: object, element: str) -> list[str]:
    listed = value if isinstance(value, list) else [value]
    if not listed or not all(isinstance(v, str) for v in listed):
        raise PolicyError(f"{element} must be a string or a list of strings")
    return listed  # type: ignore[return-value]  # all str, checked above


class Principals:
    """A resource policy statement's Principal: "*", or AWS account ids and ARNs."""

    __slots__ = ("anyone", "arns", "accounts")

    def __init__(self, value: object) -> None:
        self.anyone = value == "*" or (isinstance(value, dict) and value.get("AWS") == "*")
        self.arns: set[str] = set()
        self.accounts: set[str] = set()  # "123456789012" or arn:aws:iam::123456789012:root
        if self.anyone:
            return
        if not isinstance(value, dict) or "AWS" not in value:
            raise PolicyError("Principal must be \"*\" or {\"AWS\": ...}")
        for name in _strings(value["AWS"], "Principal"):
            root_of = arns.root_account(name)
            if name.isdigit() and len(name) == 12:
                self.accounts.add(name)
            elif root_of is not None:
                self.accounts.add(root_of)
            elif name == "*":
                self.anyone = True
            else:
                self.arns.add(name)

    def naming(self, caller_arns: tuple[str, ...], account: str) -> str | None:
        """"principal" when the statement names the caller itself (or anyone), "account"
        when it names the caller's account, else None."""
        if self.anyone or any(arn in self.arns for arn in caller_arns):
            return "principal"
        return "account" if account in self.accounts else None


class Statement:
    __slots__ = ("allow", "actions", "not_actions", "resources", "not_resources", "principals",
                 "not_principals", "conditions", "_acts", "variable", "_covers")

    def __init__(self, doc: object, resource_policy: bool) -> None:
        if not isinstance(doc, dict):
            raise PolicyError("each Statement must be an object")
        effect = doc.get("Effect")
        if effect not in ("Allow", "Deny"):
            raise PolicyError("Effect must be Allow or Deny")
        self.allow = effect == "Allow"
        if ("Action" in doc) == ("NotAction" in doc):
            raise PolicyError("a statement needs exactly one of Action and NotAction")
        self.actions = [action_glob(a) for a in _strings(doc.get("Action"), "Action")] \
            if "Action" in doc else None
        self.not_actions = [action_glob(a) for a in _strings(doc.get("NotAction"), "NotAction")] \
            if "NotAction" in doc else None
        if ("Resource" in doc) == ("NotResource" in doc):
            raise PolicyError("a statement needs exactly one of Resource and NotResource")
        self.resources = _strings(doc["Resource"], "Resource") if "Resource" in doc else None
        self.not_resources = _strings(doc["NotResource"], "NotResource") \
            if "NotResource" in doc else None
        self.principals = self.not_principals = None
        if resource_policy:
            if ("Principal" in doc) == ("NotPrincipal" in doc):
                raise PolicyError("a resource policy statement needs a Principal or NotPrincipal")
            if "Principal" in doc:
                self.principals = Principals(doc["Principal"])
            else:
                self.not_principals = Principals(doc["NotPrincipal"])
        elif "Principal" in doc or "NotPrincipal" in doc:
            raise PolicyError("an identity-based policy names no Principal")
        self.conditions: list[Condition] = conditions_of(doc.get("Condition"))
        self._acts: dict[str, bool] = {}  # action -> whether Action/NotAction covers it
        listed = self.resources if self.resources is not None else self.not_resources
        assert listed is not None
        self.variable = any("${" in pattern for pattern in listed)  # a resource varies
        self._covers: dict[str, bool] = {}  # resource -> covers() (without variables)

    def acts_on(self, action: str) -> bool:
        known = self._acts.get(action)
        if known is None:
            if self.actions is not None:
                known = any(p.fullmatch(action) is not None for p in self.actions)
            else:
                assert self.not_actions is not None
                known = not any(p.fullmatch(action) is not None for p in self.not_actions)
            if len(self._acts) > 1024:
                self._acts.clear()
            self._acts[action] = known
        return known

    def covers(self, resource: str, facts: Facts) -> bool:
        known = self._covers.get(resource)
        if known is not None:
            return known
        listed = self.resources if self.resources is not None else self.not_resources
        assert listed is not None
        hit = False
        for pattern in listed:
            if "${" in pattern:
                resolved = substitute(pattern, facts)
                if resolved is None:
                    continue
                pattern = resolved
            if arn_matcher(pattern)(resource):
                hit = True
                break
        covered = hit if self.resources is not None else not hit
        if not self.variable:  # the same answer for every request: kept (bounded)
            if len(self._covers) > 1024:
                self._covers.clear()
            self._covers[resource] = covered
        return covered

    def holds(self, facts: Facts) -> bool:
        for condition in self.conditions:
            if not condition.test(facts):
                return False
        return True


class Policy:
    """A parsed policy document."""

    __slots__ = ("statements", "text")

    def __init__(self, document: object, resource_policy: bool = False) -> None:
        if isinstance(document, (str, bytes)):
            try:
                document = orjson.loads(document)
            except orjson.JSONDecodeError as error:
                raise PolicyError(f"not JSON: {error}") from None
        if not isinstance(document, dict) or "Statement" not in document:
            raise PolicyError("a policy is an object with a Statement")
        statements = document["Statement"]
        listed = statements if isinstance(statements, list) else [statements]
        self.statements = [Statement(s, resource_policy) for s in listed]
        self.text = document


class Verdict(NamedTuple):
    denied: bool  # an explicit Deny matched
    allowed: bool  # an Allow matched (naming the caller itself, for a resource policy)
    account_allowed: bool  # a resource policy's Allow matched naming the caller's account


NOTHING = Verdict(False, False, False)


def keys_of(statements: list[Statement]) -> frozenset[str]:
    """The condition keys the statements read, in conditions and in variables."""
    keys = set()
    for statement in statements:
        texts = list(statement.resources or statement.not_resources or ())
        for condition in statement.conditions:
            keys.add(condition.key)
            texts += condition.values
        for text in texts:
            if "${" in text:
                keys.update(key for _literal, key, _default in template(text) if key)
    return frozenset(keys)


def unconditional(statements: list[Statement], action: str, resource: str) -> bool:
    """Whether the statements allow the action on the resource whatever the request's
    details: an Allow without conditions or variables covers it, and no Deny could."""
    allowed = False
    for statement in statements:
        if not statement.acts_on(action):
            continue
        if statement.variable:
            if not statement.allow:
                return False
            continue
        if not statement.covers(resource, _NO_FACTS):
            continue
        if not statement.allow:
            return False
        allowed = allowed or not statement.conditions
    return allowed


_NO_FACTS = Facts({}, {}, {}, 0.0)


def judge(statements: list[Statement], action: str, resource: str, facts: Facts,
          caller: Callable[[Principals], str | None] | None = None) -> Verdict:
    """What the statements say of one action on one resource (`caller` tells, for a
    resource policy, how a statement's Principal names the caller)."""
    allowed = account_allowed = False
    for statement in statements:
        if not statement.acts_on(action):
            continue
        naming = None
        if caller is not None:
            if statement.principals is not None:
                naming = caller(statement.principals)
                if naming is None:
                    continue
            else:
                assert statement.not_principals is not None
                if caller(statement.not_principals) is not None:
                    continue
                naming = "principal"
        if not statement.covers(resource, facts) or not statement.holds(facts):
            continue
        if not statement.allow:
            return Verdict(True, False, False)
        if naming == "account":
            account_allowed = True
        else:
            allowed = True
    return Verdict(False, allowed, account_allowed) if allowed or account_allowed else NOTHING
