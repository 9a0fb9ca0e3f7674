"""Resolution of #names and :values, unused/undefined placeholders and value-dependent rules."""
import pytest

from okura.errors import DynamoError
from okura.expressions import Resolver, condition, projection, update
from okura.expressions.ast import Compare, Path, Value

N1 = {"N": "1"}


def message(call):
    with pytest.raises(DynamoError) as caught:
        call()
    assert caught.value.name == "ValidationException"
    return caught.value.message


def test_names_are_substituted_and_values_stay_placeholders():
    r = Resolver({"#n": "name", "#x": "x.y"}, {":v": N1})
    assert condition("#n.#x[2] = :v", r) == Compare("=", Path(("name", "x.y", 2)), Value(":v"))
    r.finish()


def test_a_request_reuses_the_cached_tree_and_builds_nothing():
    """Once its names are resolved, one tree serves every request with those names:
    the request's values are checked, not substituted (the evaluator reads them)."""
    text = "#n = :v AND size(b) BETWEEN :lo AND :hi"
    values = {":v": N1, ":lo": N1, ":hi": {"N": "2"}}
    first = condition(text, Resolver({"#n": "name"}, values))
    again = condition(text, Resolver({"#n": "name"}, {**values, ":v": {"S": "other"}}))
    assert again is first
    upd = update("SET #n = :v ADD c :one", Resolver({"#n": "name"}, {":v": N1, ":one": N1}))
    assert update("SET #n = :v ADD c :one",
                  Resolver({"#n": "name"}, {":v": {"S": "x"}, ":one": N1})) is upd
    assert upd.paths == (Path(("name",)), Path(("c",)))


def test_undefined_name_and_value():
    assert message(lambda: condition("#a = :v", Resolver(None, {":v": N1}))) == (
        "Invalid ConditionExpression: An expression attribute name used in the document path is not "
        "defined; attribute name: #a")
    assert message(lambda: update("SET a = :v", Resolver({"#b": "b"}, None))) == (
        "Invalid UpdateExpression: An expression attribute value used in expression is not defined; "
        "attribute value: :v")
    assert message(lambda: projection("a, #p", Resolver(None, None))) == (
        "Invalid ProjectionExpression: An expression attribute name used in the document path is not "
        "defined; attribute name: #p")


def test_first_fault_in_expression_order_whatever_is_cached():
    """Names are resolved once per (text, names) and cached; a request whose names fail
    is resolved in one pass, so a value's fault before a name's is the one reported,
    the first time and from the cache alike."""
    for _ in range(2):
        assert message(lambda: update("SET a = :v, #b = :w", Resolver({"#x": "x"}, {":w": N1}))) == (
            "Invalid UpdateExpression: An expression attribute value used in expression is not "
            "defined; attribute value: :v")
        assert message(lambda: condition(":v = #b", Resolver({"#x": "x"}, {":w": N1}))) == (
            "Invalid ConditionExpression: An expression attribute value used in expression is not "
            "defined; attribute value: :v")
    # The names resolve (and are cached); the value's type is checked per request.
    assert update("ADD #c :v", Resolver({"#c": "c"}, {":v": N1})).adds[0][0] == Path(("c",))
    assert message(lambda: update("ADD #c :v", Resolver({"#c": "c"}, {":v": {"S": "x"}}))) == (
        "Invalid UpdateExpression: Incorrect operand type for operator or function; "
        "operator: ADD, operand type: STRING")


def test_unused_names_then_values():
    r = Resolver({"#a": "a", "#b": "b", "#c": "c"}, {":v": N1, ":w": N1})
    condition("#a = :v", r)
    assert message(r.finish) == "Value provided in ExpressionAttributeNames unused in expressions: keys: {#b, #c}"
    r = Resolver({"#a": "a"}, {":v": N1, ":w": N1})
    condition("#a = :v", r)
    assert message(r.finish) == "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"


def test_use_is_counted_across_the_expressions_of_a_request():
    r = Resolver({"#a": "a", "#p": "p"}, {":v": N1, ":w": N1})
    update("SET #a = :v", r)
    condition("attribute_exists(#a) AND b = :w", r)
    projection("#p", r)
    r.finish()


@pytest.mark.parametrize("names, values, expected", [
    ({}, None, "ExpressionAttributeNames must not be empty"),
    (None, {}, "ExpressionAttributeValues must not be empty"),
    ({"a": "a"}, None, 'ExpressionAttributeNames contains invalid key: Syntax error; key: "a"'),
    ({"#a-b": "a"}, None, 'ExpressionAttributeNames contains invalid key: Syntax error; key: "#a-b"'),
    (None, {"v": N1}, 'ExpressionAttributeValues contains invalid key: Syntax error; key: "v"'),
    (None, {":": N1}, 'ExpressionAttributeValues contains invalid key: Syntax error; key: ":"'),
    ({"#a": ""}, None, "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"),
])
def test_placeholder_maps(names, values, expected):
    assert message(lambda: Resolver(names, values)) == expected


def test_a_placeholder_valid_as_one_kind_stays_invalid_as_the_other():
    """Keys that passed are remembered per kind: #a as a name says nothing of #a as a value."""
    Resolver({"#a": "a"}, {":a": N1})
    assert message(lambda: Resolver(None, {"#a": N1})) == (
        'ExpressionAttributeValues contains invalid key: Syntax error; key: "#a"')
    assert message(lambda: Resolver({":a": "a"}, None)) == (
        'ExpressionAttributeNames contains invalid key: Syntax error; key: ":a"')


def test_reserved_words_are_fine_behind_a_name_placeholder():
    condition("#s = :v", Resolver({"#s": "status"}, {":v": N1}))


@pytest.mark.parametrize("text, values, detail", [
    ("attribute_type(a, :t)", {":t": {"S": "X"}},
     "Invalid attribute type name found; type: X, valid types: { B,NULL,SS,BOOL,L,BS,N,NS,S,M }"),
    ("attribute_type(a, :t)", {":t": N1},
     "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"),
    ("begins_with(a, :t)", {":t": N1},
     "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"),
    ("a BETWEEN :hi AND :lo", {":lo": N1, ":hi": {"N": "10"}},
     "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
     "lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:1}"),
    ("a BETWEEN :lo AND :hi", {":lo": N1, ":hi": {"S": "z"}},
     "The BETWEEN operator requires same data type for lower and upper bounds; "
     "lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:z}"),
    ("a BETWEEN :lo AND :hi", {":lo": {"BOOL": False}, ":hi": {"BOOL": True}},
     "Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: BOOL"),
    ("a BETWEEN :lo AND :hi", {":lo": N1, ":hi": {"SS": ["a"]}},
     "Incorrect operand type for operator or function; operator or function: BETWEEN, operand type: SS"),
    # a user's report gives "<=" with BOOL; the other ordering comparators and types follow it
    ("a < :v", {":v": {"L": [N1]}},
     "Incorrect operand type for operator or function; operator or function: <, operand type: L"),
    (":v >= a", {":v": {"L": []}},
     "Incorrect operand type for operator or function; operator or function: >=, operand type: L"),
    ("a <= :v", {":v": {"BOOL": True}},
     "Incorrect operand type for operator or function; operator or function: <=, operand type: BOOL"),
    ("a > :v", {":v": {"M": {}}},
     "Incorrect operand type for operator or function; operator or function: >, operand type: M"),
    ("size(:v) > :w", {":v": N1, ":w": N1},
     "Incorrect operand type for operator or function; operator or function: size, operand type: N"),
    ("size(:v) > :w", {":v": {"BOOL": True}, ":w": N1},
     "Incorrect operand type for operator or function; operator or function: size, operand type: BOOL"),
    ("a = a", {},
     "The first operand must be distinct from the remaining operands for this operator or function; "
     "operator: =, first operand: [a]"),
    ("contains(a.b, a.b)", {},
     "The first operand must be distinct from the remaining operands for this operator or function; "
     "operator: contains, first operand: [a, b]"),
    ("a IN (:v, a)", {":v": N1},
     "The first operand must be distinct from the remaining operands for this operator or function; "
     "operator: IN, first operand: [a]"),
])
def test_condition_value_rules(text, values, detail):
    assert message(lambda: condition(text, Resolver(None, values or None))) == \
        f"Invalid ConditionExpression: {detail}"


def test_first_operand_distinct_after_name_resolution():
    assert message(lambda: condition("#x <> a", Resolver({"#x": "a"}, None))).endswith(
        "operator: <>, first operand: [a]")


def test_equality_with_any_type_is_fine():
    condition("a = :v AND b <> :v", Resolver(None, {":v": {"L": [N1]}}))


def test_between_with_equal_bounds_is_fine():
    condition("a BETWEEN :v AND :v", Resolver(None, {":v": N1}))


@pytest.mark.parametrize("text, values, detail", [
    ("ADD a :v", {":v": {"S": "x"}},
     "Incorrect operand type for operator or function; operator: ADD, operand type: STRING"),
    ("ADD a :v", {":v": {"L": []}},
     "Incorrect operand type for operator or function; operator: ADD, operand type: LIST"),
    ("ADD a :v", {":v": {"BOOL": True}},
     "Incorrect operand type for operator or function; operator: ADD, operand type: BOOLEAN"),
    ("DELETE a :v", {":v": N1},
     "Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"),
    ("DELETE a :v", {":v": {"M": {}}},
     "Incorrect operand type for operator or function; operator: DELETE, operand type: MAP"),
    ("SET a = b + :v", {":v": {"S": "x"}},
     "Incorrect operand type for operator or function; operator or function: +, operand type: S"),
    ("SET a = :v - b", {":v": {"SS": ["x"]}},
     "Incorrect operand type for operator or function; operator or function: -, operand type: SS"),
    ("SET a = list_append(a, :v)", {":v": {"S": "x"}},
     "Incorrect operand type for operator or function; operator or function: list_append, operand type: S"),
    ("SET a = :v, a.b = :v", {":v": N1},
     "Two document paths overlap with each other; must remove or rewrite one of these paths; "
     "path one: [a], path two: [a, b]"),
    ("SET a.b = :v REMOVE a", {":v": N1},
     "Two document paths overlap with each other; must remove or rewrite one of these paths; "
     "path one: [a, b], path two: [a]"),
    ("SET a[1] = :v ADD a[1] :v", {":v": N1},
     "Two document paths overlap with each other; must remove or rewrite one of these paths; "
     "path one: [a, [1]], path two: [a, [1]]"),
    ("SET a.b = :v, a[0] = :v", {":v": N1},
     "Two document paths conflict with each other; must remove or rewrite one of these paths; "
     "path one: [a, b], path two: [a, [0]]"),
])
def test_update_value_rules(text, values, detail):
    assert message(lambda: update(text, Resolver(None, values))) == f"Invalid UpdateExpression: {detail}"


def test_overlap_through_name_placeholders():
    assert message(lambda: update("SET #a = :v, #b = :v", Resolver({"#a": "f", "#b": "f"}, {":v": N1}))) == (
        "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite "
        "one of these paths; path one: [f], path two: [f]")


def test_sibling_paths_do_not_overlap():
    update("SET a.b = :v, a.c = :v, l[0] = :v, l[1] = :v REMOVE a.d, l[2]", Resolver(None, {":v": N1}))


def test_projection_overlap_and_conflict():
    assert message(lambda: projection("a.b, c, a", Resolver(None, None))) == (
        "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or "
        "rewrite one of these paths; path one: [a, b], path two: [a]")
    assert message(lambda: projection("a[0], a.b", Resolver(None, None))) == (
        "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or "
        "rewrite one of these paths; path one: [a, [0]], path two: [a, b]")
