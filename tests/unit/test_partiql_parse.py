"""The PartiQL parser: statements, literals, predicates as expressions-AST nodes,
parameters, and its error messages."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from okura import partiql
from okura.errors import DynamoError
from okura.expressions.ast import And, Between, Call, Compare, Const, In, Not, Or, Path
from okura.partiql.ast import Delete, Exists, Insert, Select, Update


def message(text, parameters=None):
    with pytest.raises(DynamoError) as excinfo:
        partiql.statement(text, parameters)
    return excinfo.value.message


def test_select_with_index_projection_and_predicates():
    stmt = partiql.statement(
        'SELECT a, "b".c[0] FROM "t"."i" WHERE pk = ? AND (x BETWEEN 1 AND 2 OR NOT y <> -3)'
        " AND z IN ['a', 'b'] AND w IS NOT MISSING AND begins_with(s, 'p')", [{"S": "k"}])
    assert stmt == Select("t", "i", (Path(("a",)), Path(("b", "c", 0))), And(And(And(And(
        Compare("=", Path(("pk",)), Const({"S": "k"})),
        Or(Between(Path(("x",)), Const({"N": "1"}), Const({"N": "2"})),
           Not(Compare("<>", Path(("y",)), Const({"N": "-3"}))))),
        In(Path(("z",)), (Const({"S": "a"}), Const({"S": "b"})))),
        Call("attribute_exists", (Path(("w",)),))),
        Call("begins_with", (Path(("s",)), Const({"S": "p"})))))


def test_literals_bind_parameters_inside_composites():
    stmt = partiql.statement(
        "INSERT INTO t VALUE {'pk': ?, 'n': 1.50e1, 'it''s': [TRUE, NULL, <<?, 2>>], 'm': {}}",
        [{"S": "k"}, {"N": "1"}])
    assert stmt == Insert("t", Const({"M": {
        "pk": {"S": "k"}, "n": {"N": "15"},
        "it's": {"L": [{"BOOL": True}, {"NULL": True}, {"NS": ["1", "2"]}]},
        "m": {"M": {}}}}))


def test_update_delete_exists():
    assert partiql.statement("UPDATE t SET a = a + 1 REMOVE b WHERE pk = 'k'", None) == Update(
        "t", ((Path(("a",)), partiql.parser.Arith("+", Path(("a",)), Const({"N": "1"}))),),
        (Path(("b",)),), Compare("=", Path(("pk",)), Const({"S": "k"})))
    assert partiql.statement("delete from t where pk = 'k'", None) == Delete(
        "t", Compare("=", Path(("pk",)), Const({"S": "k"})))
    assert partiql.statement("EXISTS(SELECT * FROM t WHERE pk = 'k')", None) == Exists(
        Select("t", None, None, Compare("=", Path(("pk",)), Const({"S": "k"}))))


def test_returning_order_by_and_set_functions():
    key = Compare("=", Path(("pk",)), Const({"S": "k"}))
    assert partiql.statement(
        "UPDATE t SET a = 1, s = set_add(s, <<'x'>>) SET n = SET_DELETE(n, ?) WHERE pk = 'k'"
        " RETURNING MODIFIED NEW *", [{"NS": ["1"]}]) == Update(
        "t", ((Path(("a",)), Const({"N": "1"})),), (), key, "UPDATED_NEW",
        ((Path(("s",)), Const({"SS": ["x"]})),), ((Path(("n",)), Const({"NS": ["1"]})),))
    assert partiql.statement("DELETE FROM t WHERE pk = 'k' returning all old *", None) == Delete(
        "t", key, "ALL_OLD")
    assert partiql.statement("SELECT * FROM t WHERE pk = 'k' ORDER BY pk, sk DESC, x ASC",
                             None).order == (
        (Path(("pk",)), False), (Path(("sk",)), True), (Path(("x",)), False))
    # the words are keywords only where they stand
    assert partiql.statement("SELECT returning, \"order\" FROM t WHERE by = 1 AND old = 2",
                             None).projection == (Path(("returning",)), Path(("order",)))


def test_errors():
    malformed = "Statement wasn't well formed, can't be processed: "
    assert message("CREATE TABLE t") == malformed + "Expected data manipulation"
    assert message("SELECT * FROM t WHERE") == malformed + "Unexpected token: end of statement"
    assert message("SELECT * FROM t WHERE a = ?") == (
        "Number of parameters in request and statement don't match.")
    assert message("INSERT INTO t VALUE {'s': <<1, 'a'>>}") == (
        "Set members must all be of one type: S, N or B")
    for text in ("UPDATE t SET a = 1 WHERE pk = 'k' RETURNING ALL", "SELECT * FROM t ORDER sk",
                 "UPDATE t SET a = 1 WHERE pk = 'k' RETURNING NEW ALL *",
                 "SELECT * FROM t WHERE a = list_append(a, [1])",
                 "UPDATE t SET a = size(b) WHERE pk = 'k'"):
        assert message(text).startswith(malformed + "Unexpected token: ")
    assert message("DELETE FROM t WHERE pk = 'k' RETURNING ALL NEW *").startswith(malformed)
    assert message("UPDATE t SET a = set_add(b, <<1>>) WHERE pk = 'k'").startswith(malformed)


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=30))
def test_any_string_literal_round_trips(text):
    quoted = "'" + text.replace("'", "''") + "'"
    stmt = partiql.statement(f"SELECT * FROM t WHERE a = {quoted}", None)
    assert stmt.where.right == Const({"S": text})
