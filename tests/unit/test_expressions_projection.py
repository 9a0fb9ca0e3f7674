"""ProjectionExpression semantics over wire-form items."""
from okura.expressions import Path, Projection, Resolver, project, projection

ITEM = {
    "id": {"S": "k"}, "n": {"N": "1"},
    "m": {"M": {"a": {"S": "x"}, "b": {"M": {"c": {"N": "2"}, "d": {"N": "3"}}}, "e": {"S": "y"}}},
    "l": {"L": [{"S": "zero"}, {"M": {"f": {"S": "one"}, "g": {"S": "uno"}}}, {"S": "two"}, {"S": "three"}]},
}


def proj(text, names=None):
    return project(projection(text, Resolver(names, None)), ITEM)


def test_top_level_attributes():
    assert proj("id, n, absent") == {"id": {"S": "k"}, "n": {"N": "1"}}


def test_nested_map_paths_keep_only_what_was_asked():
    assert proj("m.a, m.b.d") == {"m": {"M": {"a": {"S": "x"}, "b": {"M": {"d": {"N": "3"}}}}}}


def test_list_indexes_keep_order_and_close_up():
    assert proj("l[3], l[1].g, l[9]") == {"l": {"L": [{"M": {"g": {"S": "uno"}}}, {"S": "three"}]}}


def test_paths_that_select_nothing_leave_the_attribute_out():
    assert proj("m.zz, l[7], n[0], id.x") == {}


def test_name_placeholders():
    assert proj("#m.#a", {"#m": "m", "#a": "a"}) == {"m": {"M": {"a": {"S": "x"}}}}


def test_projection_from_update_paths():
    paths = [Path(("m", "b", "c")), Path(("n",))]
    assert project(Projection(paths), ITEM) == {"m": {"M": {"b": {"M": {"c": {"N": "2"}}}}}, "n": {"N": "1"}}
