"""DynamoDB's expression error texts, in one place so each can be checked against the real service.

Texts marked `# unverified` follow our best knowledge of DynamoDB but were not
confirmed from a public source.
"""
from __future__ import annotations

from okura import errors
from okura.errors import DynamoError


def invalid(param: str, detail: str) -> DynamoError:
    """A parse/validation failure of one expression parameter: "Invalid UpdateExpression: ..."."""
    return errors.validation(f"Invalid {param}: {detail}")


def syntax(param: str, token: str, near: str) -> DynamoError:
    return invalid(param, f'Syntax error; token: "{token}", near: "{near}"')


def empty(param: str) -> DynamoError:
    return invalid(param, "The expression can not be empty;")


def too_long(param: str, size: int) -> DynamoError:
    # seen in a user's report of a 5872-byte FilterExpression
    return invalid(param, f"Expression size has exceeded the maximum allowed size; expression size: {size}")


def reserved(param: str, word: str) -> DynamoError:
    return invalid(param, f"Attribute name is a reserved keyword; reserved keyword: {word}")


def unknown_function(param: str, name: str) -> DynamoError:
    return invalid(param, f"Invalid function name; function: {name}")


def misused_function(param: str, name: str) -> DynamoError:
    return invalid(param, f"The function is not allowed to be used this way in an expression; function: {name}")


def function_not_in_update(name: str) -> DynamoError:
    # unverified
    return invalid("UpdateExpression", f"The function is not allowed in an update expression; function: {name}")


def function_not_in_condition(param: str, name: str) -> DynamoError:
    # unverified
    return invalid(param, f"The function is not allowed in a condition expression; function: {name}")


def operand_count(param: str, name: str, count: int) -> DynamoError:
    return invalid(param, "Incorrect number of operands for operator or function; "
                          f"operator or function: {name}, number of operands: {count}")


def needs_path(param: str, name: str) -> DynamoError:
    return invalid(param, f"Operator or function requires a document path; operator or function: {name}")


def needs_value(param: str, name: str) -> DynamoError:
    return invalid(param, f"Operator or function requires a value; operator or function: {name}")  # unverified


def operand_type(param: str, name: str, type_: str) -> DynamoError:
    # users' reports give size(), + and <= with the short type name (S, N, BOOL, ...); -, the
    # other comparators and functions are taken to follow them (unverified)
    return invalid(param, "Incorrect operand type for operator or function; "
                          f"operator or function: {name}, operand type: {type_}")


# The full type names DynamoDB uses in ADD/DELETE operand errors.
_LONG_NAMES = {"S": "STRING", "N": "NUMBER", "B": "BINARY", "BOOL": "BOOLEAN", "NULL": "NULL",
               "L": "LIST", "M": "MAP", "SS": "STRING_SET", "NS": "NUMBER_SET", "BS": "BINARY_SET"}


def action_operand_type(action: str, type_: str) -> DynamoError:
    # ADD and DELETE name the operator alone and the type in full ("STRING")
    return invalid("UpdateExpression", "Incorrect operand type for operator or function; "
                                       f"operator: {action}, operand type: {_LONG_NAMES[type_]}")


def attribute_type_name(param: str, name: str) -> DynamoError:
    # unverified
    return invalid(param, f"Invalid attribute type name found; type: {name}, "
                          "valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }")


def _text(av: dict) -> str:
    """An attribute value as DynamoDB prints it in messages: {N:10}, {S:abc}."""
    (tag, value), = av.items()
    return f"{{{tag}:{value}}}"


def between_bounds(param: str, low: dict, high: dict) -> DynamoError:
    # users' reports
    return invalid(param, "The BETWEEN operator requires upper bound to be greater than or equal to "
                          f"lower bound; lower bound operand: AttributeValue: {_text(low)}, "
                          f"upper bound operand: AttributeValue: {_text(high)}")


def between_types(param: str, low: dict, high: dict) -> DynamoError:
    # unverified
    return invalid(param, "The BETWEEN operator requires same data type for lower and upper bounds; "
                          f"lower bound operand: AttributeValue: {_text(low)}, "
                          f"upper bound operand: AttributeValue: {_text(high)}")


def not_distinct(param: str, operator: str, path: str) -> DynamoError:
    # unverified
    return invalid(param, "The first operand must be distinct from the remaining operands for this "
                          f"operator or function; operator: {operator}, first operand: {path}")


def too_many_in_operands(param: str, count: int) -> DynamoError:
    # users' reports
    return invalid(param, f"The IN operator is provided with too many operands; number of operands: {count}")


def too_many_operators(param: str, count: int) -> DynamoError:
    # users' reports
    return invalid(param, f"The expression contains too many operators; operator count: {count}")


def too_deep(param: str, levels: int) -> DynamoError:
    # unverified
    return invalid(param, f"The document path has too many nesting levels; nesting levels: {levels}")


def index_range(param: str, index: str) -> DynamoError:
    # recorded with a 14-digit index; the bound (a 32-bit int) and other params unverified
    return invalid(param, f"List index is not within the allowable range; index: [{index}]")


def redundant_parentheses(param: str) -> DynamoError:
    # users' reports
    return invalid(param, "The expression has redundant parentheses;")


def clause_repeated(keyword: str) -> DynamoError:
    return invalid("UpdateExpression", f'The "{keyword}" section can only be used once in an update expression;')


def paths_overlap(param: str, one: str, two: str) -> DynamoError:
    return invalid(param, "Two document paths overlap with each other; must remove or rewrite one of these "
                          f"paths; path one: {one}, path two: {two}")


def paths_conflict(param: str, one: str, two: str) -> DynamoError:
    # unverified (same shape as the overlap message)
    return invalid(param, "Two document paths conflict with each other; must remove or rewrite one of these "
                          f"paths; path one: {one}, path two: {two}")


def undefined_name(param: str, placeholder: str) -> DynamoError:
    return invalid(param, "An expression attribute name used in the document path is not defined; "
                          f"attribute name: {placeholder}")


def undefined_value(param: str, placeholder: str) -> DynamoError:
    return invalid(param, "An expression attribute value used in expression is not defined; "
                          f"attribute value: {placeholder}")


def unused(parameter: str, keys: list[str]) -> DynamoError:
    return errors.validation(f"Value provided in {parameter} unused in expressions: keys: {{{', '.join(keys)}}}")


def empty_map(parameter: str) -> DynamoError:
    return errors.validation(f"{parameter} must not be empty")


def invalid_key(parameter: str, key: str) -> DynamoError:
    return errors.validation(f'{parameter} contains invalid key: Syntax error; key: "{key}"')


def empty_name(placeholder: str) -> DynamoError:
    # users' reports
    return errors.validation(f"ExpressionAttributeNames contains invalid value: Empty attribute name for key {placeholder}")


# Failures found while applying an update to the stored item.
def missing_attribute() -> DynamoError:
    return errors.validation("The provided expression refers to an attribute that does not exist in the item")


def wrong_data_type() -> DynamoError:
    return errors.validation("An operand in the update expression has an incorrect data type")


def legacy_type_mismatch() -> DynamoError:
    return errors.validation("Type mismatch for attribute to update")


def invalid_update_path() -> DynamoError:
    return errors.validation("The document path provided in the update expression is invalid for update")
