"""HTTPS beside HTTP: --tls-cert/--tls-key (PEM files), or --tls-self-signed, which makes a
certificate once and keeps it in the data dir (tls/okura-cert.pem, tls/okura-key.pem) so
clients can trust it from one start to the next: it is its own CA, valid for localhost,
127.0.0.1, ::1 and the host's name; give it to an SDK as its CA bundle (docs/access.md)."""
from __future__ import annotations

import datetime
import ipaddress
import os
import socket
import ssl

from okura.config import Settings, StartupError

CERT, KEY = "okura-cert.pem", "okura-key.pem"


def context(settings: Settings) -> ssl.SSLContext | None:
    """The server's TLS context, or None without TLS; a bad setting is a StartupError."""
    if settings.tls_self_signed:
        cert, key = self_signed(os.path.join(settings.data_dir, "tls"))
    elif settings.tls_cert or settings.tls_key:
        if not (settings.tls_cert and settings.tls_key):
            raise StartupError("--tls-cert and --tls-key go together")
        cert, key = settings.tls_cert, settings.tls_key
    else:
        return None
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        tls.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as error:
        raise StartupError(f"cannot load the TLS certificate {cert}: {error}") from None
    return tls


def self_signed(directory: str) -> tuple[str, str]:
    """(certificate, key) paths in the directory, made on the first call."""
    cert, key = os.path.join(directory, CERT), os.path.join(directory, KEY)
    if os.path.exists(cert) and os.path.exists(key):
        return cert, key
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    os.makedirs(directory, exist_ok=True)
    private = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "okura")])
    now = datetime.datetime.now(datetime.timezone.utc)
    names: list[x509.GeneralName] = [x509.DNSName("localhost"),
                                     x509.DNSName(socket.gethostname()),
                                     x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                     x509.IPAddress(ipaddress.ip_address("::1"))]
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(private.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(
            digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
            key_encipherment=False, data_encipherment=False, key_agreement=False,
            encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]),
                       critical=False)
        .sign(private, hashes.SHA256()))
    descriptor = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(private.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    with open(cert, "wb") as handle:
        handle.write(certificate.public_bytes(serialization.Encoding.PEM))
    return cert, key
