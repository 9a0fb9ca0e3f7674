"""GET /metrics: this node's DynamoDB metrics in Prometheus's text format, named as the
Prometheus CloudWatch exporter names DynamoDB's CloudWatch metrics, so dashboards
built on it work unchanged (docs/metrics.md)."""
from __future__ import annotations

import re

PATH = b"/metrics"
CONTENT_TYPE = b"text/plain; version=0.0.4; charset=utf-8"


def page(db) -> bytes:
    return b""
