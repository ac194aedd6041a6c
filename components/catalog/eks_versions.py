"""Amazon EKS's Kubernetes version window as dated data: the minors EKS offers on a day, in standard or in
extended support, and when each support period ends.

The rows are ``eks_versions.json`` (package data), dated by its ``generatedOn`` (:data:`DATA_DATE`); each row names
the source it was read from. ``python -m trainstack.catalog.generate_eks_versions --refresh`` rewrites the file from
EKS's own answer (``DescribeClusterVersions``) and ``--check`` says what moved (:mod:`.generate_eks_versions`, which
imports this module, never the reverse).

EKS's rules, from the user guide (awsdocs/amazon-eks-user-guide latest/ug/versioning/kubernetes-versions.adoc @
013856044148d6eeed4723027a45aa2180536bcb, read 2026-11-28):

* "A minor version is under standard support in Amazon EKS for the first 14 months after it's released. Once a
  version is past the end of standard support date, it enters extended support for the next 12 months." Extended
  support is on by default (upgrade policy ``EXTENDED``).
* "Billing for extended support starts at the beginning of the day that the version reaches end of standard
  support, in the UTC+0 timezone", and the calendar's dates are UTC. So on its end-of-standard-support date a version
  is in extended support (:meth:`EksVersion.support_on`). The same page's FAQ words it differently ("standard support
  for version 1.23 ... ended on October 11, 2023. Extended support ... began on October 12, 2023"), which would leave
  that day in standard support; the billing sentence decides, because it is what a cluster is charged, and EKS's
  API agrees with it: its example gives 1.31's ``endOfStandardSupportDate`` as 2025-11-26T00:00Z, the instant the
  calendar's day begins.
* "On the end of extended support date, you can no longer create new Amazon EKS clusters with the unsupported
  version"; existing control planes are then upgraded by EKS "at any time" to the oldest version still supported.
  So on its end-of-extended-support date a version has ``ended``.

Which rows the file holds: every minor in standard or extended support on its date, and the one whose extended
support ended last (1.31, ended 2026-11-26), so a message can say when it ended. Older minors have no row:
:func:`version` answers ``None`` for them, as for a minor EKS never offered.

Kubernetes 1.37 has no row. Upstream released 1.37.0 on 2026-08-26 (kubernetes.io/releases/1.37/, read 2026-11-28),
but no stored source says EKS offers it: the newest copy of AWS's table (endoflife-date/release-data
releases/amazon-eks.json @ f626bdef, 2026-08-18) ends at 1.36, and aws/containers-roadmap issue #2864 ("Support for
Kubernetes 1.37", opened 2026-08-28) was open in its stored copy. EKS has lately shipped a minor five to six weeks
after upstream, so 1.37 may be offered on 2026-11-28; neither answer is written down here. ``--check`` against
EKS's API says "1.37 added" once it is.

Searched again on 2026-11-29 (issue 64), for any AWS source that gives 1.37's EKS release day and support dates: the
EKS User Guide's version pages (kubernetes-versions, kubernetes-versions-standard, in every stored language: the
newest name 1.36 as the current minor, none names 1.37), the AWS What's New posts and Containers blog ("Amazon EKS
... now supports Kubernetes 1.37": none stored), awsdocs/amazon-eks-user-guide (its newest snapshot is 4d52b4d0,
2024-12-18) and aws/containers-roadmap #2864 (still open, no availability comment). The one AWS artifact that names
1.37 is aws/eks-distro's release v1-37-eks-2 (2026-09-02): EKS Distro, the Kubernetes build EKS runs, which is not
EKS offering the minor and carries no calendar dates. So 1.37 stays out of the window.

Control-plane rates: $0.10 per cluster-hour in standard support and $0.60 in all in extended support, effective
from the April 2024 billing cycle (AWS Containers blog, "Amazon EKS extended support for Kubernetes versions
pricing", aws.amazon.com/blogs/containers/amazon-eks-extended-support-for-kubernetes-versions-pricing/, stored copy
read 2026-11-26: "will be charged a total of $0.60 per cluster per hour ... you will continue to pay $0.10 per
cluster per hour"). They live here, beside the dates they follow, because the catalog imports nothing of
trainstack; ``estimate/prices.py`` prices the control plane from them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Literal, Optional

KUBELET_SKEW = 3
"""Minors a kubelet, and kube-proxy, may be behind kube-apiserver: "kubelet may be up to three minor versions older
than kube-apiserver (kubelet < 1.25 may only be up to two minor versions older)" (kubernetes/website
content/en/releases/version-skew-policy.md, https://kubernetes.io/releases/version-skew-policy/#kubelet). Every
minor of EKS's window is 1.25 or later, so the three minors apply."""

DATA_FILE: Path = Path(__file__).with_name("eks_versions.json")

Support = Literal["standard", "extended", "ended"]

STANDARD_SUPPORT_USD_PER_CLUSTER_HOUR = 0.10
EXTENDED_SUPPORT_USD_PER_CLUSTER_HOUR = 0.60
"""The control plane's whole rate in extended support (the standard $0.10 plus $0.50), not a surcharge."""
RATES_VALID_FROM = date(2024, 4, 1)
RATES_SOURCE = ("AWS Containers blog, Amazon EKS extended support for Kubernetes versions pricing "
                "(aws.amazon.com/blogs/containers/amazon-eks-extended-support-for-kubernetes-versions-pricing/)")

_MINOR = re.compile(r"\d+\.\d+")
_DATES = (("kubernetesRelease", "kubernetes_release"), ("eksRelease", "eks_release"),
          ("endOfStandardSupport", "end_of_standard_support"), ("endOfExtendedSupport", "end_of_extended_support"))
"""Each row's dates, JSON key and field, in the order a row's dates must run."""


def minor_key(minor: str) -> tuple[int, ...]:
    """``"1.9"`` before ``"1.10"``: minors ordered as numbers, not as text."""
    return tuple(int(part) for part in minor.split("."))


@dataclass(frozen=True)
class EksVersion:
    minor: str
    """``"1.34"``."""
    kubernetes_release: date
    """Upstream's release of the minor's .0."""
    eks_release: date
    """The day EKS first offered the minor: the calendar's "Amazon EKS release" column (not the eks.1 platform
    version's date, which can differ by days)."""
    end_of_standard_support: date
    """The first day of extended support (billed from 00:00 UTC)."""
    end_of_extended_support: date
    """The first day EKS creates no cluster on the minor and may upgrade existing ones."""
    source: str

    def support_on(self, day: date) -> Support:
        """EKS's support of this minor on ``day`` (UTC); a day before EKS offered it has no answer (ValueError)."""
        if day < self.eks_release:
            raise ValueError(f"Kubernetes {self.minor} was not offered by EKS on {day.isoformat()}: EKS released it "
                             f"on {self.eks_release.isoformat()}; ask about a day on or after that.")
        if day < self.end_of_standard_support:
            return "standard"
        if day < self.end_of_extended_support:
            return "extended"
        return "ended"


def parse(document: dict[str, Any], where: str = DATA_FILE.name) -> tuple[date, tuple[EksVersion, ...]]:
    """The data's date and rows, oldest first; ValueError naming the row, field and value when one is unusable."""
    generated_on = _iso_date(document.get("generatedOn"), f"{where}: generatedOn")
    rows = tuple(sorted((_row(row, where) for row in document.get("versions") or []),
                        key=lambda row: minor_key(row.minor)))
    minors = [row.minor for row in rows]
    if len(set(minors)) != len(minors):
        raise ValueError(f"{where}: a minor has two rows ({', '.join(minors)}); keep one row per minor.")
    return generated_on, rows


def _row(row: dict[str, Any], where: str) -> EksVersion:
    minor = row.get("minor")
    if not isinstance(minor, str) or not _MINOR.fullmatch(minor):
        raise ValueError(f"{where}: minor {minor!r} is not a Kubernetes minor; write it as \"1.34\".")
    dates = {field: _iso_date(row.get(key), f"{where}: {minor} {key}") for key, field in _DATES}
    upstream, released, standard_ends, extended_ends = dates.values()
    if not upstream <= released < standard_ends < extended_ends:
        said = ", ".join(f"{key} {dates[field].isoformat()}" for key, field in _DATES)
        raise ValueError(f"{where}: {minor}'s dates are out of order ({said}); each must follow the one before it.")
    source = row.get("source")
    if not isinstance(source, str) or not source.strip():
        raise ValueError(f"{where}: {minor} has no source; name where its dates were read.")
    return EksVersion(minor=minor, source=source, **dates)


def _iso_date(value: Any, what: str) -> date:
    try:
        return date.fromisoformat(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} {value!r} is not an ISO date; write it as YYYY-MM-DD.") from None


DATA_DATE: date
VERSIONS: tuple[EksVersion, ...]
DATA_DATE, VERSIONS = parse(json.loads(DATA_FILE.read_text()))
"""The day the data was read (its ``generatedOn``), and every row, oldest first."""

_BY_MINOR = {row.minor: row for row in VERSIONS}


def version(minor: str) -> Optional[EksVersion]:
    """The row of ``minor`` (``"1.34"``); None for a minor the data does not hold."""
    return _BY_MINOR.get(minor)


def offered(day: date = DATA_DATE) -> tuple[str, ...]:
    """The minors EKS offers on ``day`` (standard or extended support), oldest first."""
    return tuple(row.minor for row in VERSIONS if row.eks_release <= day and row.support_on(day) != "ended")


def newest(day: date = DATA_DATE) -> str:
    """The newest minor EKS offers on ``day``."""
    minors = offered(day)
    if not minors:
        raise ValueError(f"the EKS version data of {DATA_DATE.isoformat()} holds no minor offered on "
                         f"{day.isoformat()}; ask about a day inside its window.")
    return minors[-1]


def extended_support_note(minor: str, day: date = DATA_DATE, stack: str = "STACK") -> Optional[str]:
    """One sentence for a cluster on ``minor`` in extended support on ``day``: since when, what it costs, when it
    ends and the command that moves ``stack`` on; None when the minor is not in extended support that day."""
    row = version(minor)
    if row is None or day < row.eks_release or row.support_on(day) != "extended":
        return None
    return (f"Kubernetes {minor} has been in EKS extended support since {row.end_of_standard_support.isoformat()}: its "
            f"control plane is billed at ${EXTENDED_SUPPORT_USD_PER_CLUSTER_HOUR:.2f} per cluster-hour instead of "
            f"${STANDARD_SUPPORT_USD_PER_CLUSTER_HOUR:.2f}, and support ends on "
            f"{row.end_of_extended_support.isoformat()}, after which EKS upgrades the cluster itself; fix: "
            f"`trainstack upgrade --stack {stack} --to {next_minor(minor)}`.")


def previous_minor(minor: str) -> str:
    """The minor an upgrade to ``minor`` comes from (``next_minor``'s inverse): ``"1.34"`` for ``"1.35"``."""
    major, number = minor_key(minor)
    return f"{major}.{number - 1}"


def next_minor(minor: str) -> str:
    """The minor an upgrade of ``minor`` goes to: "you can update only one minor version at a time" (EKS user guide,
    awsdocs/amazon-eks-user-guide latest/ug/clusters/update-cluster.adoc @ 13c3274b3b861dced034f67f1744e6130eeffb2b,
    read 2026-11-28)."""
    major, number = minor_key(minor)
    return f"{major}.{number + 1}"
