"""What the item-operation API tests share (candidates for conftest.py)."""
from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from conftest import error_of

NOT_FOUND = ("ResourceNotFoundException", "Requested resource not found")
FAILED = ("ConditionalCheckFailedException", "The conditional request failed")


def fails(call, **params) -> tuple[str, str]:
    """(code, message) of the ClientError that `call(**params)` raises."""
    with pytest.raises(ClientError) as excinfo:
        call(**params)
    return error_of(excinfo)
