"""Helm 3's release records, read as Helm's own storage reads them.

Helm 3 keeps one record per revision, a Secret ``sh.helm.release.v1.<release>.v<revision>`` of type
``helm.sh/release.v1`` labelled ``owner=helm``, ``name``, ``status`` and ``version`` (the revision), whose
``data.release`` is base64 of gzipped JSON (helm/helm v3.18.6, the Helm the Pulumi Kubernetes provider embeds:
pkg/storage/driver/secrets.go ``newSecretsObject``, util.go ``encodeRelease``, pkg/storage/storage.go ``makeKey``);
with ``HELM_DRIVER=configmap`` the same record is a ConfigMap, labelled alike (cfgmaps.go). The newest revision is
the release. The JSON is Helm's ``Release`` (pkg/release/release.go, info.go, status.go): its ``name``,
``namespace`` and ``version`` (the revision), ``info.status`` and ``info.description``, ``chart.metadata`` (the
chart's ``name`` and ``version``), ``chart.values`` (the chart's defaults) and ``config`` (what the installer
set). SQL storage is not read."""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .client import Cluster

RELEASE_RECORDS = "owner=helm"
"""The selector Helm's own storage lists its records by (pkg/storage/driver/secrets.go, ``List``)."""
RELEASE_SECRET_TYPE = "helm.sh/release.v1"
GZIP_MAGIC = b"\x1f\x8b\x08"
"""What util.go ``decodeRelease`` looks for before it decompresses (``magicGzip``)."""


@dataclass(frozen=True)
class HelmRelease:
    """One revision of a release, as Helm recorded it."""

    name: str
    namespace: str
    revision: int
    status: str
    """``deployed``, ``failed``, ``superseded``, ``pending-install`` ... (pkg/release/status.go)."""
    chart: str
    """The chart's own name (Chart.yaml ``name``)."""
    version: str
    """The chart's version (Chart.yaml ``version``); the release's own version is ``revision``."""
    description: str
    chart_values: Mapping[str, Any] = field(default_factory=dict)
    """The chart's default values, as the release recorded them."""
    values: Mapping[str, Any] = field(default_factory=dict)
    """What the installer set (``--set``, ``-f``)."""


def release_records(cluster: Cluster, status: str | None = None) -> list[dict[str, Any]]:
    """Helm's records holding a release, in all namespaces, from both storages Helm keeps them in by default, each
    marked with its ``kind``; only those of ``status`` when it is given (the ``status`` label)."""
    selector = RELEASE_RECORDS if status is None else f"{RELEASE_RECORDS},status={status}"
    secrets = cluster.get("/api/v1/secrets", labelSelector=selector).get("items", [])
    config_maps = cluster.get("/api/v1/configmaps", labelSelector=selector).get("items", [])
    records = [{"kind": "Secret", **s} for s in secrets if s.get("type") == RELEASE_SECRET_TYPE]
    records += [{"kind": "ConfigMap", **c} for c in config_maps]
    return [record for record in records if "release" in (record.get("data") or {})]


def _document(record: Mapping[str, Any]) -> dict[str, Any]:
    """The release JSON of one record: a Secret's API base64-encodes Helm's text once more; a ConfigMap holds it as
    Helm wrote it. Helm 3 before compression stored the JSON without gzip (util.go ``decodeRelease`` reads both)."""
    text: str | bytes = record["data"]["release"]
    if record.get("kind") == "Secret" or record.get("type") == RELEASE_SECRET_TYPE:
        text = base64.b64decode(text)
    payload = base64.b64decode(text)
    if payload[:3] == GZIP_MAGIC:
        payload = gzip.decompress(payload)
    document: dict[str, Any] = json.loads(payload)
    return document


def release_of(record: Mapping[str, Any]) -> HelmRelease:
    """The release one record holds (a Secret is known by its ``kind`` or its ``type``)."""
    document = _document(record)
    chart = document.get("chart") or {}
    metadata = chart.get("metadata") or {}
    info = document.get("info") or {}
    return HelmRelease(str(document.get("name", "")), str(document.get("namespace", "")),
                       int(document.get("version") or 0), str(info.get("status", "unknown")),
                       str(metadata.get("name", "")), str(metadata.get("version", "")),
                       str(info.get("description", "")), chart.get("values") or {}, document.get("config") or {})


def newest_releases(records: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], HelmRelease]:
    """(namespace, name) -> the newest revision of each release among Helm's ``records``, known by their labels as
    Helm's storage knows them; only those revisions are decoded."""
    newest: dict[tuple[str, str], tuple[int, Mapping[str, Any]]] = {}
    for record in records:
        labels = record["metadata"].get("labels") or {}
        if "release" not in (record.get("data") or {}) or not str(labels.get("version", "")).isdigit():
            continue
        key = (record["metadata"].get("namespace", ""), str(labels.get("name", "")))
        revision = int(labels["version"])
        if key not in newest or revision > newest[key][0]:
            newest[key] = (revision, record)
    return {key: release_of(record) for key, (_, record) in newest.items()}
