"""Declarative request shapes (model.json, generated from DynamoDB's service model by
tools/gen_shapes.py) and the checker that validates requests against them."""
from okura.shapes.checker import OPERATIONS, Shape, members, of

__all__ = ["OPERATIONS", "Shape", "members", "of"]
