"""The offline plan's placeholder outputs name the region of the provider that made them: for every region
of the regions table Hypothesis draws, a program whose resources, invokes and remote component (pulumi-eks's
Cluster, handed its providers as a map) use that region's provider, in a project not named trainstack and
with ``aws:region`` set elsewhere, gets ARNs, DNS names, kubeconfigs and zone IDs of that region and of no
other. Zone IDs are checked against moto's zone table (its per-account data, and its own rule for the rest)."""

import re

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks
from hypothesis import given, settings
from hypothesis import strategies as st
from moto.ec2.models.availability_zones_and_regions import RegionsAndZonesBackend
from trainstack.catalog import regions
from trainstack.plan import run_program

ELSEWHERE = "us-east-1"
"""The default provider's region (``aws:region``): never what the regional provider's resources say."""
REGION_NAMES = re.compile("|".join(sorted(map(re.escape, regions.names()), key=len, reverse=True)))
MOTO_ZONE_IDS = {region: {zone.zone_id.rsplit("-az", 1)[0] for zone in zones}
                 for region, zones in RegionsAndZonesBackend.zones.items()}


def regional_program(region: str):
    def program():
        provider = aws.Provider("regional", region=region)
        opts = pulumi.ResourceOptions(provider=provider)
        vpc = aws.ec2.Vpc("vpc", cidr_block="10.0.0.0/16", opts=opts)
        aws.ec2.Subnet("subnet", vpc_id=vpc.id, cidr_block="10.0.0.0/24", availability_zone=f"{region}a", opts=opts)
        aws.s3.Bucket("bucket", opts=opts)
        aws.kms.Key("key", opts=opts)
        aws.ecr.Repository("repository", opts=opts)
        eks.Cluster("cluster", vpc_id=vpc.id, opts=pulumi.ResourceOptions(providers={"aws": provider}))
        pulumi.export("region", aws.get_region_output(opts=pulumi.InvokeOutputOptions(provider=provider)).region)
    return program


def strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


@settings(max_examples=10)
@given(region=st.sampled_from(sorted(set(regions.names()) - {ELSEWHERE})))
def test_placeholder_outputs_name_the_region_of_their_provider(region):
    plan = run_program(regional_program(region), project="consumer", stack="dev", config={"aws:region": ELSEWHERE})
    named = {(r.type, name) for r in plan.resources for text in strings(r.outputs)
             for name in REGION_NAMES.findall(text)}
    assert {name for _, name in named} == {region}, sorted(named)
    assert {t for t, _ in named} >= {"aws:ec2/vpc:Vpc", "aws:s3/bucket:Bucket", "eks:index:Cluster"}
    assert plan.outputs["region"] == region
    (subnet,) = [r for r in plan.resources if r.type == "aws:ec2/subnet:Subnet"]
    prefix = subnet.outputs["availabilityZoneId"].rsplit("-az", 1)[0]
    assert prefix in MOTO_ZONE_IDS.get(region, {prefix}), (prefix, MOTO_ZONE_IDS.get(region))
