"""A self-signed certificate for ``https://127.0.0.1``, generated once per process.

The SDK (sync and async) skips certificate verification for ``127.0.0.1`` and
``localhost``, so product code talks to the fake with no special client settings, as
it would to the emulator. An EC P-256 key keeps generation to a few milliseconds; no
node, no files in the repository.
"""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import tempfile
import threading
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

_lock = threading.Lock()
_files: tuple[Path, Path] | None = None


def _generate(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "fake-cosmos-gateway")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    cert_path = directory / "cert.pem"
    key_path = directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def server_context() -> ssl.SSLContext:
    """An SSL context serving the process's self-signed certificate."""
    global _files
    with _lock:
        if _files is None:
            directory = Path(tempfile.mkdtemp(prefix="fake-cosmos-tls-"))
            _files = _generate(directory)
        cert_path, key_path = _files
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_path, key_path)
    return context
