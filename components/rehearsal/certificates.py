"""Throwaway certificates for a rehearsal: one CA, and serving certificates it signs.

The API server serves on loopback with one; every controller's webhook server gets its own,
and the API server reaches them by URL with the CA as ``caBundle``, the way
controller-runtime's envtest points webhook configurations at a local server
(sigs.k8s.io/controller-runtime, pkg/envtest/webhook.go). ``openssl`` makes them: it is on
every machine that has Go and a C library, and the rehearsal needs nothing else for this.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

# A cert-controller rotator (Kueue's, the training operator's) keeps the certificates it finds
# in its Secret only if (open-policy-agent/cert-controller, pkg/rotator/rotator.go): they are
# valid for longer than its look-ahead of 90 days (``lookaheadInterval``); the keys are PKCS #1
# (``x509.ParsePKCS1PrivateKey``); and the CA certificate verifies for the rotator's CA name as
# a DNS name (``validCACert``), so the CA carries each of those names.
VALIDITY_DAYS = 365
ROTATOR_CA_NAMES = ("kueue-ca", "training-operator-ca")
"""kueue pkg/util/cert/cert.go (v0.19.2) and training-operator pkg/cert/cert.go (v1.8.1), ``caName``."""


@dataclass(frozen=True)
class KeyPair:
    certificate: Path
    key: Path


def _openssl(directory: Path, *arguments: str) -> None:
    subprocess.run(["openssl", *arguments], cwd=directory, check=True, capture_output=True)


def authority(directory: Path) -> KeyPair:
    """A self-signed CA in ``directory`` (ca.crt, ca.key)."""
    directory.mkdir(parents=True, exist_ok=True)
    names = ",".join(f"DNS:{name}" for name in ROTATOR_CA_NAMES)
    _openssl(directory, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", str(VALIDITY_DAYS),
             "-subj", "/CN=trainstack-rehearsal-ca", "-addext", f"subjectAltName={names}",
             "-keyout", "ca.key", "-out", "ca.crt")
    _pkcs1(directory, "ca.key")
    return KeyPair(directory / "ca.crt", directory / "ca.key")


def _pkcs1(directory: Path, key: str) -> None:
    """Rewrite ``key`` as PKCS #1 (OpenSSL 3 writes PKCS #8 unless told; OpenSSL 1.1 has no -traditional)."""
    try:
        _openssl(directory, "rsa", "-in", key, "-out", key, "-traditional")
    except subprocess.CalledProcessError:
        _openssl(directory, "rsa", "-in", key, "-out", key)


def serving(ca: KeyPair, directory: Path, name: str, dns_names: tuple[str, ...] = ()) -> KeyPair:
    """A certificate for 127.0.0.1, localhost and ``dns_names``, signed by ``ca``: ``<name>.crt``, ``<name>.key``."""
    directory.mkdir(parents=True, exist_ok=True)
    _openssl(directory, "req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}",
             "-keyout", f"{name}.key", "-out", f"{name}.csr")
    _pkcs1(directory, f"{name}.key")
    names = ",".join(["IP:127.0.0.1", "DNS:localhost", *(f"DNS:{dns}" for dns in dns_names)])
    (directory / f"{name}.ext").write_text(f"subjectAltName={names}\n")
    _openssl(directory, "x509", "-req", "-in", f"{name}.csr", "-CA", str(ca.certificate), "-CAkey", str(ca.key),
             "-CAcreateserial", "-days", str(VALIDITY_DAYS), "-extfile", f"{name}.ext", "-out", f"{name}.crt")
    return KeyPair(directory / f"{name}.crt", directory / f"{name}.key")


def service_account_keys(directory: Path) -> KeyPair:
    """The key pair the API server signs service-account tokens with (sa.pub is the 'certificate')."""
    _openssl(directory, "genrsa", "-out", "sa.key", "2048")
    _openssl(directory, "rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub")
    return KeyPair(directory / "sa.pub", directory / "sa.key")
