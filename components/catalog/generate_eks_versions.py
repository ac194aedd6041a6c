"""Regenerate ``eks_versions.json`` from EKS's own answer, or say how the committed file differs from it.

Run with AWS credentials (any account: the call reads no resource of it)::

    .venv/bin/python -m trainstack.catalog.generate_eks_versions --check    # prints what moved; exits 1 if anything did
    .venv/bin/python -m trainstack.catalog.generate_eks_versions --refresh  # rewrites the file

Both call ``DescribeClusterVersions`` (``GET /cluster-versions``; botocore's EKS model, apiVersion 2017-11-01) with
``clusterType=eks`` and ``includeAll=true``, page by page through ``nextToken``. Each answered
``ClusterVersionInformation`` gives ``clusterVersion``, ``releaseDate``, ``endOfStandardSupportDate``,
``endOfExtendedSupportDate`` and ``versionStatus`` (``STANDARD_SUPPORT | EXTENDED_SUPPORT | UNSUPPORTED``). Its
``status`` field is not read: botocore's model marks it deprecated ("Use ``versionStatus`` instead"), with
lower-case values (``standard-support``); the user guide's example still shows ``status`` with the upper-case
values, and the model decides, being what the API serves. The answer's timestamps are instants (the guide's example:
``"releaseDate": "2024-09-25T17:00:00-07:00"`` for 1.31, whose calendar row says September 26, 2024), so each is
read as its UTC day, the calendar's time zone.

The answer has no upstream release date: a row's ``kubernetesRelease`` is kept from the committed file, or taken
from :data:`UPSTREAM_RELEASES` for a minor the file does not hold yet; a new minor in neither is refused with
the fix. moto (5.2.5) does not implement this API, so the tests answer through botocore's Stubber.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import UTC, date, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, Optional

from .eks_versions import DATA_FILE, minor_key, parse

OPERATION = "describe_cluster_versions"
REQUEST = {"clusterType": "eks", "includeAll": True, "maxResults": 100}
"""Every parameter sent, ``nextToken`` aside: EKS clusters (not HyperPod's), every version, the most a page holds."""
FIELDS = ("clusterVersion", "clusterType", "releaseDate", "endOfStandardSupportDate", "endOfExtendedSupportDate",
          "versionStatus")
"""The ``ClusterVersionInformation`` members read; tests/catalog/test_eks_versions.py checks them against
botocore's model."""
STATUS = {"STANDARD_SUPPORT": "standard", "EXTENDED_SUPPORT": "extended", "UNSUPPORTED": "ended"}
"""``versionStatus`` values and the support they mean."""

UPSTREAM_RELEASES: dict[str, tuple[date, str]] = {
    "1.37": (date(2026, 8, 26), "kubernetes.io/releases/1.37/: 1.37.0 released on 2026-08-26, read 2026-11-28"),
}
"""Upstream release days of minors EKS may add next; once a minor has a row, its row holds the day."""

_WORDS = (("eksRelease", "EKS release"), ("endOfStandardSupport", "end of standard support"),
          ("endOfExtendedSupport", "end of extended support"))


def describe_cluster_versions(client: Any) -> list[dict[str, Any]]:
    """Every ``ClusterVersionInformation`` EKS answers, all pages."""
    answered: list[dict[str, Any]] = []
    token: Optional[str] = None
    while True:
        page = getattr(client, OPERATION)(**REQUEST, **({"nextToken": token} if token else {}))
        answered += page.get("clusterVersions") or []
        token = page.get("nextToken")
        if not token:
            return answered


def utc_day(value: datetime) -> date:
    """The UTC day of an answered instant; botocore gives aware datetimes (a naive one is taken as UTC)."""
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC).date()


def kept(answer: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The versions the file holds: those in standard or extended support, and the one whose extended support
    ended last."""
    eks = [info for info in answer if info.get("clusterType", "eks") == "eks"]
    offered = [info for info in eks if STATUS.get(info.get("versionStatus", "")) in ("standard", "extended")]
    ended = [info for info in eks
             if STATUS.get(info.get("versionStatus", "")) == "ended" and info.get("endOfExtendedSupportDate")]
    last_ended = max(ended, key=lambda info: utc_day(info["endOfExtendedSupportDate"]), default=None)
    return offered + ([last_ended] if last_ended else [])


def build(answer: Sequence[dict[str, Any]], day: date, committed: dict[str, Any]) -> dict[str, Any]:
    """The document ``eks_versions.json`` holds, from EKS's answer on ``day``."""
    upstream = {row["minor"]: row["kubernetesRelease"] for row in committed.get("versions") or []}
    source = f"Amazon EKS DescribeClusterVersions, {day.isoformat()}"
    rows = sorted((_row(info, upstream, source) for info in kept(answer)), key=lambda row: minor_key(row["minor"]))
    document = {
        "generatedOn": day.isoformat(),
        "source": (f"{source} (clusterType eks, includeAll; botocore {metadata.version('botocore')}), written by "
                   "`python -m trainstack.catalog.generate_eks_versions --refresh`: the minors in standard or extended "
                   "support (versionStatus) and the one whose extended support ended last. EKS gives no upstream "
                   "release day: each is kept from the file before, or from UPSTREAM_RELEASES in "
                   "catalog/generate_eks_versions.py."),
        "versions": rows,
    }
    parse(document, "DescribeClusterVersions")  # the answer makes a usable file, or the refresh stops here
    return document


def _row(info: dict[str, Any], upstream: dict[str, str], source: str) -> dict[str, str]:
    minor = info["clusterVersion"]
    missing = [name for name in FIELDS[2:5] if not info.get(name)]
    if missing:
        raise ValueError(f"DescribeClusterVersions gave {minor} no {', '.join(missing)}; the window needs all "
                         "three dates, so the file was left as it is.")
    if minor not in upstream and minor not in UPSTREAM_RELEASES:
        raise ValueError(f"EKS offers {minor}, whose upstream release day neither eks_versions.json nor "
                         f"UPSTREAM_RELEASES holds; add it to UPSTREAM_RELEASES from kubernetes.io/releases/{minor}/.")
    kubernetes = upstream.get(minor) or UPSTREAM_RELEASES[minor][0].isoformat()
    return {"minor": minor, "kubernetesRelease": kubernetes,
            **{key: utc_day(info[name]).isoformat() for (key, _), name in zip(_WORDS, FIELDS[2:5], strict=True)},
            "source": source}


def status_disagreements(answer: Sequence[dict[str, Any]], document: dict[str, Any], day: date) -> list[str]:
    """Minors whose answered ``versionStatus`` says other than their dates say for ``day``: something to look at
    before committing (the dates decide what trainstack says)."""
    said = {info["clusterVersion"]: STATUS.get(info.get("versionStatus", "")) for info in answer}
    return [f"{row.minor}: versionStatus says {said[row.minor]} support, its dates say {row.support_on(day)} "
            f"on {day.isoformat()}"
            for row in parse(document)[1] if day >= row.eks_release and said.get(row.minor) not in
            (None, row.support_on(day))]


def drift(committed: dict[str, Any], answered: dict[str, Any]) -> list[str]:
    """What moved from the committed document to the answered one, a line per change, oldest minor first."""
    before = {row["minor"]: row for row in committed.get("versions") or []}
    after = {row["minor"]: row for row in answered.get("versions") or []}
    moved = []
    for minor in sorted(before.keys() | after.keys(), key=minor_key):
        if minor not in before:
            moved.append(f"{minor} added: " + ", ".join(f"{words} {after[minor][key]}" for key, words in _WORDS))
        elif minor not in after:
            moved.append(f"{minor} removed")
        else:
            moved += [f"{minor}: {words} {before[minor][key]} -> {after[minor][key]}"
                      for key, words in _WORDS if before[minor][key] != after[minor][key]]
    return moved


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=1) + "\n"


def main(argv: Optional[Sequence[str]] = None, client: Any = None, data_file: Path = DATA_FILE,
         today: Optional[date] = None) -> int:
    """``--refresh`` rewrites ``data_file`` from EKS's answer; ``--check`` prints what moved and returns 1 if
    anything did."""
    parser = argparse.ArgumentParser(prog="python -m trainstack.catalog.generate_eks_versions",
                                     description="EKS's Kubernetes version window from DescribeClusterVersions.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--refresh", action="store_true", help="rewrite eks_versions.json from DescribeClusterVersions")
    mode.add_argument("--check", action="store_true", help="print what moved; exit 1 when something did")
    parser.add_argument("--region", default="us-east-1", help="the Region whose EKS endpoint answers")
    args = parser.parse_args(argv)
    if client is None:
        import boto3

        client = boto3.client("eks", region_name=args.region)
    day = today or datetime.now(UTC).date()
    answer = describe_cluster_versions(client)
    committed = json.loads(data_file.read_text())
    answered = build(answer, day, committed)
    for disagreement in status_disagreements(answer, answered, day):
        print(f"note: {disagreement}", file=sys.stderr)
    moved = drift(committed, answered)
    print("\n".join(moved) if moved else f"{data_file.name}: no drift from EKS's answer of {day.isoformat()}")
    if args.refresh:
        data_file.write_text(render(answered))
        print(f"wrote {data_file}")
        return 0
    if moved:
        print(f"{data_file.name} differs from EKS's answer; run "
              "`python -m trainstack.catalog.generate_eks_versions --refresh` and commit the file.")
    return 1 if moved else 0


if __name__ == "__main__":
    raise SystemExit(main())
