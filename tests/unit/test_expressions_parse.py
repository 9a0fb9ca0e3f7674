"""Parsing and the text-only checks: syntax errors, reserved words, functions, limits."""
import pytest
from hypothesis import given, strategies as st

from okura.errors import DynamoError
from okura.expressions import Resolver, condition, projection, unparse, update
from okura.expressions import parser
from okura.expressions.ast import (And, Arith, Between, Call, Compare, In, Name, Not, Or, Path,
                                   UpdateExpression, Value)
from okura.expressions.lexer import tokenize
from okura.expressions.reserved import RESERVED

V = {":v": {"N": "1"}, ":w": {"N": "2"}}


def message(fn, text, names=None, values=None, *extra):
    with pytest.raises(DynamoError) as caught:
        fn(text, Resolver(names, values), *extra)
    assert caught.value.name == "ValidationException"
    return caught.value.message


def test_tokens_carry_positions():
    tokens = tokenize("a.#b[10] <> :v")
    assert [(t.kind, t.text, t.start, t.end) for t in tokens] == [
        ("name", "a", 0, 1), ("punct", ".", 1, 2), ("#", "#b", 2, 4), ("punct", "[", 4, 5),
        ("number", "10", 5, 7), ("punct", "]", 7, 8), ("punct", "<>", 9, 11), (":", ":v", 12, 14),
        ("eof", "", 14, 14)]


def test_precedence_not_and_or():
    assert parser.parse_condition("a = :v OR b = :v AND NOT c = :v", "ConditionExpression") == Or(
        Compare("=", Path(("a",)), Value(":v")),
        And(Compare("=", Path(("b",)), Value(":v")), Not(Compare("=", Path(("c",)), Value(":v")))))


def test_parentheses_override_precedence():
    assert parser.parse_condition("(a = :v OR b = :v) AND c = :v", "ConditionExpression") == And(
        Or(Compare("=", Path(("a",)), Value(":v")), Compare("=", Path(("b",)), Value(":v"))),
        Compare("=", Path(("c",)), Value(":v")))


def test_keywords_are_case_insensitive():
    node = parser.parse_condition("a between :v and :w or b in (:v)", "ConditionExpression")
    assert node == Or(Between(Path(("a",)), Value(":v"), Value(":w")), In(Path(("b",)), (Value(":v"),)))


def test_document_paths():
    node = parser.parse_condition("a.#b[3].c[0][1] = :v", "ConditionExpression")
    assert node.left == Path(("a", Name("#b"), 3, "c", 0, 1))


def test_update_clauses_any_order():
    upd, repeated = parser.parse_update("remove x, y[1] set a = b + :v, c = list_append(c, :w) "
                                        "delete s :v add n :w")
    assert repeated is None
    assert upd == UpdateExpression(
        sets=((Path(("a",)), Arith("+", Path(("b",)), Value(":v"))),
              (Path(("c",)), Call("list_append", (Path(("c",)), Value(":w"))))),
        removes=(Path(("x",)), Path(("y", 1))), adds=((Path(("n",)), Value(":w")),),
        deletes=((Path(("s",)), Value(":v")),))


def test_update_parenthesised_arithmetic():
    upd, _ = parser.parse_update("SET a = :v - (b - :w)")
    assert upd.sets[0][1] == Arith("-", Value(":v"), Arith("-", Path(("b",)), Value(":w")))


@pytest.mark.parametrize("text, token, near", [
    ("a = ", "<EOF>", "= "),
    ("a", "<EOF>", "a"),
    ("a = :v AND", "<EOF>", "AND"),
    ("a = :v b", "b", ":v b"),
    ("a = b = c", "=", "b = c"),
    ("a ! :v", "!", "a ! :v"),
    ("a = :v AND b OR c = :v", "OR", "b OR c"),
    ("NOT a", "<EOF>", "a"),
    ("a = NOT b", "NOT", "= NOT b"),
    ("(a) = :v", ")", "a) ="),
    ("a = (b)", "(", "= (b"),
    ("a BETWEEN :v OR :w", "OR", ":v OR :w"),
    ("a IN :v", ":v", "IN :v"),
    ("a[x] = :v", "x", "[x]"),
    ("a.AND = :v", "AND", ".AND ="),
    ("a = :v + :w", "+", ":v + :w"),
    ("# = :v", "#", "# ="),
    ("a = :", ":", "= :"),
    # users' reports: '_' starts no name ("__typename <> :t" near "__", "_version" near "_version")
    ("__typename <> :v", "_", "__"),
    ("_version = :v", "_", "_version"),
])
def test_condition_syntax_errors(text, token, near):
    assert message(condition, text, None, V) == \
        f'Invalid ConditionExpression: Syntax error; token: "{token}", near: "{near}"'


@pytest.mark.parametrize("text, token, near", [
    ("SET a = :v, #", "#", ", #"),
    ("a = :v", "a", "a ="),
    ("SET a :v", ":v", "a :v"),
    ("SET a = :v b = :w", "b", ":v b ="),
    ("ADD a b", "b", "a b"),
    ("REMOVE a,", "<EOF>", ","),
    ("SET a = :v AND b", "AND", ":v AND b"),
    ("SET _123 = :v", "_", "SET _123"),
    ("SET _abc = :v", "_", "SET _abc"),
    ("SET 123a = :v", "123", "SET 123a"),
    ("SET 123 = :v", "123", "SET 123 ="),
    ("SET a = _f(:v)", "_", "= _f"),
    # a SET value is one operand or two joined by + or -, a function's operands are operands
    ("SET a = :v + :w + :v", "+", ":w + :v"),
    ("SET a = :v - :w + :v", "+", ":w + :v"),
    ("SET a = if_not_exists(c, :v + :w)", "+", ":v + :w"),
    ("SET a = list_append(:v - b, :w)", "-", ":v - b"),
])
def test_update_syntax_errors(text, token, near):
    assert message(update, text, None, V) == \
        f'Invalid UpdateExpression: Syntax error; token: "{token}", near: "{near}"'


@pytest.mark.parametrize("text, token, near", [
    ("my-attr", "-", "my-attr"),
    ("a,", "<EOF>", ","),
    (":v", ":v", ":v"),
])
def test_projection_syntax_errors(text, token, near):
    assert message(projection, text) == \
        f'Invalid ProjectionExpression: Syntax error; token: "{token}", near: "{near}"'


def test_list_index_range():
    assert message(projection, "a[99999999999999]") == (
        "Invalid ProjectionExpression: List index is not within the allowable range; "
        "index: [99999999999999]")
    assert message(projection, "a.b[2147483648]").endswith("index: [2147483648]")
    assert message(update, "REMOVE a[2147483648]").startswith("Invalid UpdateExpression: List index")
    projection("a[2147483647]", Resolver(None, None))


@pytest.mark.parametrize("fn, param", [(condition, "ConditionExpression"), (update, "UpdateExpression"),
                                       (projection, "ProjectionExpression")])
@pytest.mark.parametrize("text", ["", "   "])
def test_empty_expression(fn, param, text):
    assert message(fn, text) == f"Invalid {param}: The expression can not be empty;"


def test_filter_and_key_condition_prefixes():
    from okura.expressions import key_condition
    assert message(condition, "a =", None, None, "FilterExpression") == \
        'Invalid FilterExpression: Syntax error; token: "<EOF>", near: "="'
    assert message(key_condition, "a =") == \
        'Invalid KeyConditionExpression: Syntax error; token: "<EOF>", near: "="'


def test_expression_length_limit():
    ok = "a" * 4091 + " = :v"  # 4096 bytes
    condition(ok, Resolver(None, {":v": {"N": "1"}}))
    too_long = ok + " "
    assert message(condition, too_long, None, V) == \
        "Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; expression size: 4097"


def test_expression_length_counts_utf8_bytes():
    text = "é" * 2049  # 2049 characters, 4098 bytes
    assert message(condition, text, None, V).endswith("expression size: 4098")


@pytest.mark.parametrize("word", ["name", "Status", "SIZE", "ttl"])
def test_reserved_words(word):
    assert message(condition, f"{word} = :v", None, V) == \
        f"Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: {word}"
    assert message(update, f"SET a.{word} = :v", None, V) == \
        f"Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: {word}"
    assert message(projection, f"a[0].{word}") == \
        f"Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: {word}"


def test_reserved_word_list_is_the_documented_one():
    assert len(RESERVED) == 573
    assert {"ABORT", "FLATTERN", "INNTER", "LOGED", "ZONE", "NAME", "STATUS"} <= RESERVED
    assert "ID" not in RESERVED


def test_syntax_error_wins_over_reserved_word():
    assert message(condition, "name =", None, V) == \
        'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "="'


@pytest.mark.parametrize("text, detail", [
    ("foo(a)", "Invalid function name; function: foo"),
    ("Size(a) > :v", "Invalid function name; function: Size"),
    ("size(a)", "The function is not allowed to be used this way in an expression; function: size"),
    ("attribute_exists(a) = :v",
     "The function is not allowed to be used this way in an expression; function: attribute_exists"),
    ("begins_with(a)",
     "Incorrect number of operands for operator or function; operator or function: begins_with, "
     "number of operands: 1"),
    ("attribute_exists(a, b)",
     "Incorrect number of operands for operator or function; operator or function: attribute_exists, "
     "number of operands: 2"),
    ("contains()",
     "Incorrect number of operands for operator or function; operator or function: contains, "
     "number of operands: 0"),
    ("attribute_not_exists(:v)",
     "Operator or function requires a document path; operator or function: attribute_not_exists"),
    ("size(size(a)) = :w",
     "Incorrect operand type for operator or function; operator or function: size, operand type: N"),
    ("list_append(a, :v) = :w", "The function is not allowed in a condition expression; function: list_append"),
    ("((a = :v))", "The expression has redundant parentheses;"),
    ("a IN (" + ", ".join([":v"] * 101) + ")",
     "The IN operator is provided with too many operands; number of operands: 101"),
    ("a" + ".b" * 32 + " = :v", "The document path has too many nesting levels; nesting levels: 33"),
])
def test_condition_checks(text, detail):
    assert message(condition, text, None, V) == f"Invalid ConditionExpression: {detail}"


def test_in_with_hundred_operands_and_depth_32_are_accepted():
    condition("a IN (" + ", ".join([":v"] * 100) + ")", Resolver(None, {":v": {"N": "1"}}))
    condition("a" + ".b" * 31 + " = :v", Resolver(None, {":v": {"N": "1"}}))


@pytest.mark.parametrize("text, detail", [
    ("SET a = size(b)", "The function is not allowed in an update expression; function: size"),
    ("SET a = if_not_exists(:v, :w)",
     "Operator or function requires a document path; operator or function: if_not_exists"),
    ("SET a = list_append(:v)",
     "Incorrect number of operands for operator or function; operator or function: list_append, "
     "number of operands: 1"),
    ("SET a = foo(b)", "Invalid function name; function: foo"),
    ("SET a = list_append(list_append(b, :v), :w)",
     "The function is not allowed to be used this way in an expression; function: list_append"),
    ("REMOVE a SET b = :v REMOVE c", 'The "REMOVE" section can only be used once in an update expression;'),
    ("ADD a :v, b :w ADD c :v", 'The "ADD" section can only be used once in an update expression;'),
    ("DELETE a :v delete b :v", 'The "DELETE" section can only be used once in an update expression;'),
    ("SET " + ", ".join(f"a{i}=b+:v" for i in range(301)),
     "The expression contains too many operators; operator count: 301"),
])
def test_update_checks(text, detail):
    assert message(update, text, None, V) == f"Invalid UpdateExpression: {detail}"


def test_three_hundred_operators_are_accepted():
    upd, _ = parser.parse_update("SET " + ", ".join(f"a{i}=b+:v" for i in range(300)))
    from okura.expressions import checks
    checks.update(upd)


def test_parse_and_names_are_cached_by_text_and_names():
    from okura.expressions import _condition, _named_condition
    _condition.cache_clear()
    _named_condition.cache_clear()
    for name in ("a", "a", "b"):
        tree = condition("#n = :v", Resolver({"#n": name}, {":v": {"N": "1"}}))
        assert tree.left == Path((name,))
    assert (_condition.cache_info().misses, _condition.cache_info().hits) == (1, 1)
    info = _named_condition.cache_info()
    assert (info.misses, info.hits) == (2, 1)


# --- parse(unparse(tree)) == tree -----------------------------------------------------------
_names = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(
    lambda s: s.upper() not in RESERVED and s.upper() not in parser._KEYWORDS)
_element = st.one_of(_names, st.builds(Name, st.from_regex(r"#[A-Za-z0-9_]{1,5}", fullmatch=True)))
_paths = st.builds(lambda first, rest: Path((first, *rest)), _element,
                   st.lists(st.one_of(_element, st.integers(0, 99)), max_size=4))
_values = st.builds(Value, st.from_regex(r":[A-Za-z0-9_]{1,5}", fullmatch=True))
_operands = st.one_of(_paths, _values, st.builds(lambda p: Call("size", (p,)), _paths))
_comparisons = st.one_of(
    st.builds(Compare, st.sampled_from(["=", "<>", "<", "<=", ">", ">="]), _operands, _operands),
    st.builds(Between, _operands, _operands, _operands),
    st.builds(In, _operands, st.lists(_operands, min_size=1, max_size=4).map(tuple)),
    st.builds(lambda p: Call("attribute_exists", (p,)), _paths),
    st.builds(lambda p, v: Call("begins_with", (p, v)), _paths, _operands),
)
_conditions = st.recursive(_comparisons, lambda inner: st.one_of(
    st.builds(And, inner, inner), st.builds(Or, inner, inner), st.builds(Not, inner)), max_leaves=12)


@given(_conditions)
def test_condition_round_trip(tree):
    assert parser.parse_condition(unparse(tree), "ConditionExpression") == tree


_set_operands = st.recursive(
    st.one_of(_paths, _values),
    lambda inner: st.one_of(
        st.builds(lambda a, b: Call("list_append", (a, b)), inner, inner),
        st.builds(lambda p, v: Call("if_not_exists", (p, v)), _paths, inner)), max_leaves=6)
_set_values = st.one_of(_set_operands,
                        st.builds(Arith, st.sampled_from("+-"), _set_operands, _set_operands))
_actions = st.lists(_paths, max_size=3).map(tuple)


@given(st.builds(lambda s, r, a, d: UpdateExpression(s, r, a, d),
                 st.lists(st.tuples(_paths, _set_values), max_size=3).map(tuple), _actions,
                 st.lists(st.tuples(_paths, _values), max_size=2).map(tuple),
                 st.lists(st.tuples(_paths, _values), max_size=2).map(tuple))
       .filter(lambda u: u.sets or u.removes or u.adds or u.deletes))
def test_update_round_trip(tree):
    assert parser.parse_update(unparse(tree)) == (tree, None)
