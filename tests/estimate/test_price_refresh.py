"""`trainstack prices refresh` reads the AWS Price List Query API (GetProducts) and writes a dated snapshot;
the cost estimate prices the snapshot's region from it. The responses below are in the API's shape
(docs.aws.amazon.com/aws-cost-management/latest/APIReference/API_pricing_GetProducts.html: ``PriceList`` is
a list of JSON strings, each a product with its attributes and its OnDemand terms), served by botocore's
Stubber, which also checks every request against the service model."""

import json
import subprocess
import sys
from datetime import UTC, datetime

import boto3
import pytest
from botocore.stub import Stubber
from trainstack.catalog.model import Price
from trainstack.catalog.prices import with_snapshots
from trainstack.estimate.price_refresh import on_demand_filters, refresh


def product(instance_type: str, region: str, usd: str) -> str:
    """One PriceList entry as GetProducts returns it (an offer file's product and its OnDemand term)."""
    sku = f"SKU{instance_type.replace('.', '')}"
    return json.dumps({
        "product": {"productFamily": "Compute Instance", "sku": sku, "attributes": {
            "instanceType": instance_type, "regionCode": region, "operatingSystem": "Linux", "tenancy": "Shared",
            "preInstalledSw": "NA", "capacitystatus": "Used", "servicecode": "AmazonEC2"}},
        "serviceCode": "AmazonEC2",
        "terms": {"OnDemand": {f"{sku}.JRTCKXETXF": {
            "offerTermCode": "JRTCKXETXF", "sku": sku, "effectiveDate": "2026-11-01T00:00:00Z",
            "priceDimensions": {f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                "unit": "Hrs", "pricePerUnit": {"USD": usd}, "rateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
                "description": f"${usd} per On Demand Linux {instance_type} Instance Hour",
                "beginRange": "0", "endRange": "Inf", "appliesTo": []}},
            "termAttributes": {}}}},
        "version": "20261101000000", "publicationDate": "2026-11-01T00:00:00Z"})


def expect(stubber: Stubber, region: str, instance_type: str, pages: list[list[str]]) -> None:
    for index, items in enumerate(pages):
        request = {"ServiceCode": "AmazonEC2", "Filters": on_demand_filters(region, instance_type),
                   "FormatVersion": "aws_v1", "MaxResults": 100}
        if index:
            request["NextToken"] = f"page{index}"
        response = {"FormatVersion": "aws_v1", "PriceList": items}
        if index + 1 < len(pages):
            response["NextToken"] = f"page{index + 1}"
        stubber.add_response("get_products", response, request)


@pytest.fixture
def client():
    return boto3.client("pricing", region_name="us-east-1", aws_access_key_id="testing",
                        aws_secret_access_key="testing")


def test_a_snapshot_holds_each_types_rate_with_its_region_date_and_source(client, tmp_path):
    with Stubber(client) as stubber:
        expect(stubber, "us-west-2", "c5.2xlarge", [[product("c5.2xlarge", "us-west-2", "0.3400000000")]])
        # A second page: the rate is on it, the first page held nothing.
        expect(stubber, "us-west-2", "p5.48xlarge", [[], [product("p5.48xlarge", "us-west-2", "55.0400000000")]])
        expect(stubber, "us-west-2", "trn2.48xlarge", [[]])
        document = refresh("us-west-2", tmp_path / "prices.json", client=client,
                           instance_types=["p5.48xlarge", "c5.2xlarge", "trn2.48xlarge"],
                           now=datetime(2026, 11, 25, 12, 0, tzinfo=UTC))
        stubber.assert_no_pending_responses()
    assert document == json.loads((tmp_path / "prices.json").read_text())
    assert document["usdPerHour"] == {"c5.2xlarge": 0.34, "p5.48xlarge": 55.04, "trn2.48xlarge": None}
    assert (document["region"], document["fetchedAt"]) == ("us-west-2", "2026-11-25T12:00:00Z")
    assert document["source"].startswith("AWS Price List Query API")


def test_a_snapshot_replaces_the_committed_rate_of_its_region_only(tmp_path):
    path = tmp_path / "prices-us-west-2.json"
    path.write_text(json.dumps({"region": "us-west-2", "fetchedAt": "2026-11-25T12:00:00Z",
                                "source": "AWS Price List Query API (pricing:GetProducts, AmazonEC2)",
                                "usdPerHour": {"c5.2xlarge": 0.34, "trn2.48xlarge": None}}))
    committed = {"c5.2xlarge": (Price(0.34, "us-east-1", datetime(2026, 7, 20).date(), "east"),)}
    merged = with_snapshots(committed, [path])
    east, west = merged["c5.2xlarge"]
    assert east.source == "east"
    assert (west.region, west.usd_per_hour, str(west.valid_on)) == ("us-west-2", 0.34, "2026-11-25")
    assert "snapshot prices-us-west-2.json" in west.source
    assert "trn2.48xlarge" not in merged  # no rate in the Price List: still no price, never zero


def test_the_plan_prices_a_region_from_the_snapshot_TRAINSTACK_PRICES_names(tmp_path):
    path = tmp_path / "prices-us-west-2.json"
    path.write_text(json.dumps({"region": "us-west-2", "fetchedAt": "2026-11-25T12:00:00Z", "source": "S",
                                "usdPerHour": {"c5.2xlarge": 0.34}}))
    code = ("from trainstack import catalog; p = catalog.get('c5.2xlarge').price('us-west-2'); "
            "print(p.usd_per_hour, p.valid_on, p.source)")
    out = subprocess.run([sys.executable, "-c", code], env={"TRAINSTACK_PRICES": str(path), "PATH": ""},
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0.34 2026-11-25 S, snapshot prices-us-west-2.json"
