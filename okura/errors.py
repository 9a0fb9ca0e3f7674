"""The one DynamoDB error type, its factories and its one serialiser.

Every client-visible failure is a DynamoError: it knows its HTTP status, its
`__type` (with DynamoDB's namespace prefix) and its message. The server turns it
into the wire body with `body()`; nothing else formats errors.
"""
from __future__ import annotations

import orjson

_CORAL = "com.amazon.coral.service#"
_VALIDATE = "com.amazon.coral.validate#"
_DYNAMO = "com.amazonaws.dynamodb.v20120810#"


class DynamoError(Exception):
    __slots__ = ("type", "message", "status", "extra")

    def __init__(self, type_: str, message: str | None, status: int = 400, extra: dict | None = None):
        super().__init__(message)
        self.type = type_
        self.message = message
        self.status = status
        self.extra = extra

    @property
    def name(self) -> str:
        """The short name clients see as the error code (`ValidationException`)."""
        return self.type.rpartition("#")[2]

    def body(self) -> bytes:
        doc: dict = {"__type": self.type}
        if self.message is not None:
            doc["message"] = self.message
        if self.extra:
            doc.update(self.extra)
        return orjson.dumps(doc)

    def __repr__(self) -> str:
        return f"DynamoError({self.name}: {self.message})"


def validation(message: str) -> DynamoError:
    return DynamoError(_VALIDATE + "ValidationException", message)


def access_denied(message: str) -> DynamoError:
    return DynamoError(_CORAL + "AccessDeniedException", message)


def serialization(message: str | None = None) -> DynamoError:
    return DynamoError(_CORAL + "SerializationException", message)


def unknown_operation() -> DynamoError:
    return DynamoError(_CORAL + "UnknownOperationException", None)


def missing_authentication_token() -> DynamoError:
    return DynamoError(_CORAL + "MissingAuthenticationTokenException",
                       "Request is missing Authentication Token")


def incomplete_signature(message: str) -> DynamoError:
    return DynamoError(_CORAL + "IncompleteSignatureException", message)


def invalid_signature(message: str) -> DynamoError:
    return DynamoError(_CORAL + "InvalidSignatureException", message)


def unrecognized_client() -> DynamoError:
    return DynamoError(_CORAL + "UnrecognizedClientException",
                       "The security token included in the request is invalid.")


def expired_token() -> DynamoError:
    return DynamoError(_CORAL + "ExpiredTokenException",
                       "The security token included in the request is expired")


def policy_not_found(message: str) -> DynamoError:
    return DynamoError(_DYNAMO + "PolicyNotFoundException", message)


def request_too_large() -> DynamoError:
    return DynamoError(_CORAL + "RequestEntityTooLargeException",
                       "Request entity too large", status=413)


def resource_not_found(message: str = "Requested resource not found") -> DynamoError:
    return DynamoError(_DYNAMO + "ResourceNotFoundException", message)


def table_not_found(table_name: str) -> DynamoError:
    return resource_not_found(f"Requested resource not found: Table: {table_name} not found")


def resource_in_use(message: str) -> DynamoError:
    return DynamoError(_DYNAMO + "ResourceInUseException", message)


def limit_exceeded(message: str) -> DynamoError:
    return DynamoError(_DYNAMO + "LimitExceededException", message)


def conditional_check_failed(item: dict | None = None) -> DynamoError:
    return DynamoError(_DYNAMO + "ConditionalCheckFailedException", "The conditional request failed",
                       extra={"Item": item} if item is not None else None)


def item_collection_size_limit_exceeded() -> DynamoError:
    return DynamoError(_DYNAMO + "ItemCollectionSizeLimitExceededException",
                       "Collection size exceeded.")


def internal_server_error() -> DynamoError:
    return DynamoError(_DYNAMO + "InternalServerError", "Internal server error", status=500)


def expired_iterator() -> DynamoError:
    """DynamoDB Streams: a shard iterator used more than 15 minutes after it was issued
    (the message as the Streams API model documents the member)."""
    return DynamoError(_DYNAMO + "ExpiredIteratorException",
                       "The provided iterator exceeds the maximum age allowed.")


def trimmed_data_access() -> DynamoError:
    """DynamoDB Streams: a read of a stream record past the retention period."""
    return DynamoError(_DYNAMO + "TrimmedDataAccessException",
                       "The data you are trying to access has been trimmed.")


def transaction_canceled(reasons: list[dict]) -> DynamoError:
    """One CancellationReason per action, in request order. DynamoDB spells this
    error's message member "Message" and lists the reason codes in it."""
    codes = ", ".join(reason["Code"] for reason in reasons)
    return DynamoError(_DYNAMO + "TransactionCanceledException", None, extra={
        "CancellationReasons": reasons,
        "Message": "Transaction cancelled, please refer cancellation reasons for specific "
                   f"reasons [{codes}]"})


def transaction_conflict() -> DynamoError:
    return DynamoError(_DYNAMO + "TransactionConflictException",
                       "Transaction is ongoing for the item")  # users' reports


def transaction_in_progress() -> DynamoError:
    return DynamoError(_DYNAMO + "TransactionInProgressException",
                       "Transaction from previous request is still in progress")


def idempotent_parameter_mismatch() -> DynamoError:
    return DynamoError(_DYNAMO + "IdempotentParameterMismatchException",
                       "The request uses the same client token as a previous, but non-identical "
                       "request.")  # unverified


def duplicate_item() -> DynamoError:
    return DynamoError(_DYNAMO + "DuplicateItemException",
                       "Duplicate primary key exists in table")  # users' reports


# Backups and point-in-time recovery. Their messages are not documented; where no
# recorded reply gave them they are marked unverified.
def backup_error(name: str, message: str) -> DynamoError:
    """TableNotFoundException, TableAlreadyExistsException, TableInUseException,
    BackupNotFoundException, BackupInUseException, InvalidRestoreTimeException,
    PointInTimeRecoveryUnavailableException, ContinuousBackupsUnavailableException."""
    return DynamoError(_DYNAMO + name, message)


def backup_table_not_found(name: str) -> DynamoError:
    return backup_error("TableNotFoundException", f"Table not found: {name}")  # users' reports


# Exports and imports. DynamoDB's messages for these are not documented: each is the
# service model's description of the error (unverified).

def point_in_time_recovery_unavailable(table_name: str) -> DynamoError:
    return backup_error("PointInTimeRecoveryUnavailableException",
                        f"Point in time recovery is not enabled for table '{table_name}'")


def invalid_export_time(message: str) -> DynamoError:
    return DynamoError(_DYNAMO + "InvalidExportTimeException", message)


def export_conflict() -> DynamoError:
    return DynamoError(_DYNAMO + "ExportConflictException",
                       "There was a conflict when writing to the specified S3 bucket.")


def export_not_found(arn: str) -> DynamoError:
    return DynamoError(_DYNAMO + "ExportNotFoundException", f"Export not found: {arn}")


def import_conflict() -> DynamoError:
    return DynamoError(_DYNAMO + "ImportConflictException",
                       "There was a conflict when importing from the specified S3 source. This "
                       "can occur when the current import conflicts with a previous import "
                       "request that had the same client token.")


def import_not_found(arn: str) -> DynamoError:
    return DynamoError(_DYNAMO + "ImportNotFoundException", f"Import not found: {arn}")


# Throttling (docs/throttling.md). `reasons`: ThrottlingReason documents, {"reason":
# "TableWriteProvisionedThroughputExceeded", "resource": <table or index ARN>}.
# ProvisionedThroughputExceededException's text is recorded from DynamoDB; the other
# two are the texts users quote. ThrottlingException names its list in lower camel case
# (botocore's model).
def provisioned_throughput_exceeded(reasons: list[dict]) -> DynamoError:
    return DynamoError(
        _DYNAMO + "ProvisionedThroughputExceededException",
        "The level of configured provisioned throughput for the table was exceeded. Consider "
        "increasing your provisioning level with the UpdateTable API.",
        extra={"ThrottlingReasons": reasons} if reasons else None)


def throttling(reasons: list[dict]) -> DynamoError:
    return DynamoError(
        "com.amazon.coral.availability#ThrottlingException",
        "Throughput exceeds the current capacity of your table or index. DynamoDB is "
        "automatically scaling your table or index so please try again shortly. If exceptions "
        "persist, check if you have a hot key: https://docs.aws.amazon.com/amazondynamodb/latest"
        "/developerguide/bp-partition-key-design.html",
        extra={"throttlingReasons": reasons} if reasons else None)


def request_limit_exceeded(reasons: list[dict]) -> DynamoError:
    return DynamoError(
        _DYNAMO + "RequestLimitExceeded",
        "Throughput exceeds the current throughput quota for your account. Please contact AWS "
        "Support at https://aws.amazon.com/support request a quota increase",
        extra={"ThrottlingReasons": reasons} if reasons else None)


THROTTLING_ERRORS = frozenset(("ProvisionedThroughputExceededException", "ThrottlingException",
                               "RequestLimitExceeded"))


# Bulk puts (StartBulkPutItems, ...): DynamoDB's messages are not documented (unverified).

def bulk_operation_not_found(arn: str) -> DynamoError:
    return resource_not_found(f"Requested resource not found: BulkOperationArn: {arn} not found")
