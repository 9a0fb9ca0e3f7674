"""PartiQL's error messages (ValidationException unless said otherwise)."""
from __future__ import annotations

from okura import errors
from okura.errors import DynamoError

_MALFORMED = "Statement wasn't well formed, can't be processed: "


def malformed(detail: str) -> DynamoError:
    return errors.validation(_MALFORMED + detail)


def not_dml() -> DynamoError:
    return malformed("Expected data manipulation")


def unexpected(token) -> DynamoError:
    return malformed(f"Unexpected token: {token.text or 'end of statement'}")  # unverified


def parameter_count() -> DynamoError:
    return errors.validation("Number of parameters in request and statement don't match.")


def key_equality() -> DynamoError:
    return errors.validation(  # users' reports
        "Where clause does not contain a mandatory equality on all key attributes")


def empty_set() -> DynamoError:
    return errors.validation("A set literal may not be empty")  # unverified


def mixed_set() -> DynamoError:
    return errors.validation("Set members must all be of one type: S, N or B")  # unverified


def set_function(name: str) -> DynamoError:
    return malformed(f"{name} must name the attribute it sets and one set of values")  # unverified


def set_operand(name: str) -> DynamoError:
    return errors.validation(f"The value {name} adds or deletes must be a set")  # unverified


def delete_returning() -> DynamoError:
    return malformed("DELETE can only return ALL OLD *")  # unverified


def order_key(path: str) -> DynamoError:
    return errors.validation(f"ORDER BY can only name a key attribute; found: {path}")  # unverified


def order_without_partition() -> DynamoError:
    return errors.validation(  # unverified
        "ORDER BY needs a WHERE clause with an equality or IN on the partition key")


def too_many_in(limit: int) -> DynamoError:
    return errors.validation(f"A statement can name at most {limit} values here")  # unverified
