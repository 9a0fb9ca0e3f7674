"""Where exports write and imports read: S3 buckets, kept either in a local directory
(bucket B, key K is the file DIR/B/K; the default, `--s3-dir`) or in any S3-compatible
service reached through boto3 (`--s3-endpoint`, credentials from the usual AWS
variables). A bucket must exist before it is used, as in S3: locally, a directory
DIR/B. The methods block (files, HTTP): jobs call them through asyncio.to_thread."""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Protocol


class StoreError(Exception):
    """An object could not be written or read: `code` becomes the job's FailureCode."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ObjectStore(Protocol):
    def put(self, bucket: str, key: str, data: bytes) -> str:
        """Store one object; returns its ETag (the MD5 hex of a single-part upload)."""

    def get(self, bucket: str, key: str) -> bytes:
        """One object's bytes."""

    def listing(self, bucket: str, prefix: str) -> list[tuple[str, int]]:
        """The keys and sizes of the bucket's objects whose keys start with `prefix`, in
        ascending key order."""


def _no_bucket(bucket: str) -> StoreError:
    # S3's NoSuchBucket message; the FailureCode is the one DynamoDB reports (unverified)
    return StoreError("S3NoSuchBucket", f"The specified bucket does not exist: {bucket}")


class LocalStore:
    """Buckets as directories under `root`."""

    def __init__(self, root: str) -> None:
        self.root = Path(root)

    def _bucket(self, bucket: str) -> Path:
        path = self.root / bucket
        if not path.is_dir():
            raise _no_bucket(bucket)
        return path

    def _path(self, bucket: str, key: str) -> Path:
        parts = key.split("/")
        if not key or any(part in ("", ".", "..") for part in parts[:-1]) or parts[-1] in (
                "", ".", ".."):
            raise StoreError("S3InvalidKey", f"Invalid object key: {key}")  # unverified code
        return self._bucket(bucket).joinpath(*parts)

    def put(self, bucket: str, key: str, data: bytes) -> str:
        path = self._path(bucket, key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # written whole or not at all: a reader never sees half an object
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".okura-")
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except OSError as failure:
            raise StoreError("S3AccessDenied", f"Access Denied: {failure.strerror}") from None
        return hashlib.md5(data).hexdigest()

    def get(self, bucket: str, key: str) -> bytes:
        path = self._path(bucket, key)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise StoreError("S3NoSuchKey", f"The specified key does not exist: {key}") from None
        except OSError as failure:
            raise StoreError("S3AccessDenied", f"Access Denied: {failure.strerror}") from None

    def listing(self, bucket: str, prefix: str) -> list[tuple[str, int]]:
        base = self._bucket(bucket)
        found = []
        for directory, _, files in os.walk(base):
            for name in files:
                if name.startswith(".okura-"):
                    continue  # an object being written
                path = Path(directory, name)
                key = path.relative_to(base).as_posix()
                if key.startswith(prefix):
                    try:
                        found.append((key, path.lstat().st_size))
                    except OSError:
                        continue  # gone meanwhile
        return sorted(found)


class S3Store:
    """An S3-compatible service at `endpoint`, through boto3."""

    def __init__(self, endpoint: str) -> None:
        import boto3  # only a server configured with an endpoint needs it
        from botocore.config import Config

        self.client = boto3.client(
            "s3", endpoint_url=endpoint,
            region_name=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
            or "us-east-1",
            config=Config(retries={"max_attempts": 2}, s3={"addressing_style": "path"}))

    def _failure(self, failure: Exception, bucket: str) -> StoreError:
        from botocore.exceptions import BotoCoreError, ClientError

        if isinstance(failure, ClientError):
            error = failure.response.get("Error", {})
            code = str(error.get("Code", ""))
            message = str(error.get("Message") or code)
            if code in ("NoSuchBucket", "404") and "Key" not in error:
                return _no_bucket(bucket)
            if code in ("AccessDenied", "403", "AllAccessDisabled", "InvalidAccessKeyId",
                        "SignatureDoesNotMatch"):
                return StoreError("S3AccessDenied", message)
            if code in ("NoSuchKey",):
                return StoreError("S3NoSuchKey", message)
            return StoreError("S3" + code if code else "UnknownError", message)
        if isinstance(failure, BotoCoreError):
            return StoreError("UnknownError", str(failure))
        raise failure

    def put(self, bucket: str, key: str, data: bytes) -> str:
        try:
            reply = self.client.put_object(Bucket=bucket, Key=key, Body=data)
        except Exception as failure:
            raise self._failure(failure, bucket) from None
        return str(reply.get("ETag", "")).strip('"') or hashlib.md5(data).hexdigest()

    def get(self, bucket: str, key: str) -> bytes:
        try:
            return self.client.get_object(Bucket=bucket, Key=key)["Body"].read()
        except Exception as failure:
            raise self._failure(failure, bucket) from None

    def listing(self, bucket: str, prefix: str) -> list[tuple[str, int]]:
        found: list[tuple[str, int]] = []
        try:
            for page in self.client.get_paginator("list_objects_v2").paginate(
                    Bucket=bucket, Prefix=prefix):
                found.extend((entry["Key"], int(entry.get("Size", 0)))
                             for entry in page.get("Contents", ()))
        except Exception as failure:
            raise self._failure(failure, bucket) from None
        return sorted(found)


def store_for(s3_dir: str, s3_endpoint: str) -> ObjectStore:
    return S3Store(s3_endpoint) if s3_endpoint else LocalStore(s3_dir)
