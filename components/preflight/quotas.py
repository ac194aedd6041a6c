"""The account's own quota values, through Service Quotas, against what the stack needs at max size.

The needs are the offline plan's (``config/quotas.py``): the EKS managed node groups and their nodes, the
network interfaces the nodes attach, the On-Demand vCPUs of each family class. Each code is read with
GetServiceQuota (the account's applied value). Service Quotas answers NoSuchResourceException for a quota
whose applied value it does not track ("If the applied quota value is not available for a quota, the quota is
not retrieved": Service Quotas API reference, GetServiceQuota,
https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_GetServiceQuota.html, read 2026-11-27);
then the account runs on AWS's default, which GetAWSDefaultServiceQuota gives.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from botocore.exceptions import BotoCoreError, ClientError

from ..config import StackConfig
from ..config.quotas import QuotaNeed, quota_needs, vcpu_needs
from .check import Check, unreachable


def quota_checks(config: StackConfig, quotas: Any) -> Iterator[Check]:
    """One check per quota the stack reaches: the vCPU quotas first (with or without EKS), then EKS's and the
    VPC's (on a stack that makes its EKS cluster)."""
    plan = quota_needs(config)
    vcpus = [need for need in plan.needs if need.quota.service_code == "ec2"] if plan is not None \
        else vcpu_needs(config)
    for need in vcpus:
        yield _vcpu_check(need, quotas)
    for need in plan.needs if plan is not None else ():
        if need.quota.service_code != "ec2":
            yield _check(need, quotas)


def _value(need: QuotaNeed, quotas: Any) -> tuple[float, str]:
    """The account's value of the quota, and where it came from."""
    request = {"ServiceCode": need.quota.service_code, "QuotaCode": need.quota.code}
    try:
        return quotas.get_service_quota(**request)["Quota"]["Value"], "the account's value"
    except ClientError as error:
        if error.response["Error"]["Code"] != "NoSuchResourceException":
            raise
    return quotas.get_aws_default_service_quota(**request)["Quota"]["Value"], "AWS's default (no applied value)"


def _vcpu_check(need: QuotaNeed, quotas: Any) -> Check:
    subject = need.quota.title
    try:
        value, _ = _value(need, quotas)
    except (ClientError, BotoCoreError) as error:
        return Check("vCPU quota", subject, "could-not-check", unreachable(error))
    ok = value >= need.need
    return Check("vCPU quota", subject, "pass" if ok else "fail",
                 f"quota {value:g} vCPUs; max size needs {need.need} ({', '.join(need.lines)})"
                 + ("" if ok else "; request an increase in Service Quotas"))


def _check(need: QuotaNeed, quotas: Any) -> Check:
    quota = need.quota
    name = f"{quota.service_code.upper()} quota"
    try:
        value, source = _value(need, quotas)
    except (ClientError, BotoCoreError) as error:
        return Check(name, quota.title, "could-not-check", unreachable(error))
    said = f"{source} {value:g}; the stack needs {need.need} at max size ({'; '.join(need.lines)})"
    if value >= need.need:
        return Check(name, quota.title, "pass", said)
    return Check(name, quota.title, "fail",
                 f"{said}: raise it by {need.need - value:g} (aws service-quotas request-service-quota-increase "
                 f"--service-code {quota.service_code} --quota-code {quota.code} --desired-value {need.need}), "
                 "or lower the stack's maxSize")
