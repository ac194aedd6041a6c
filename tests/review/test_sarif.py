"""SARIF from trainstack diff is valid SARIF 2.1.0: every object is built through the SARIF SDK's
object model (sarif-om, generated from the 2.1.0 schema), so an unknown property, a missing
required one or a level outside the spec fails; and it points where code scanning needs it."""

import json
from pathlib import Path
from typing import Any

import attr
import pytest
import sarif_om
from support.plan_records import record
from trainstack import cli

# Which object model class each nested SARIF property holds (SARIF 2.1.0 section 3).
NESTED: dict[tuple[type, str], type] = {
    (sarif_om.SarifLog, "runs"): sarif_om.Run,
    (sarif_om.Run, "tool"): sarif_om.Tool,
    (sarif_om.Run, "results"): sarif_om.Result,
    (sarif_om.Run, "automationDetails"): sarif_om.RunAutomationDetails,
    (sarif_om.Tool, "driver"): sarif_om.ToolComponent,
    (sarif_om.ToolComponent, "rules"): sarif_om.ReportingDescriptor,
    (sarif_om.ReportingDescriptor, "shortDescription"): sarif_om.MultiformatMessageString,
    (sarif_om.ReportingDescriptor, "defaultConfiguration"): sarif_om.ReportingConfiguration,
    (sarif_om.Result, "message"): sarif_om.Message,
    (sarif_om.Result, "locations"): sarif_om.Location,
    (sarif_om.Location, "physicalLocation"): sarif_om.PhysicalLocation,
    (sarif_om.Location, "logicalLocations"): sarif_om.LogicalLocation,
    (sarif_om.PhysicalLocation, "artifactLocation"): sarif_om.ArtifactLocation,
    (sarif_om.PhysicalLocation, "region"): sarif_om.Region,
}
FREE_FORM = {(sarif_om.Result, "partialFingerprints")}
LEVELS = {"none", "note", "warning", "error"}  # SARIF 2.1.0 3.27.10


def build(cls: type, data: dict[str, Any]) -> Any:
    fields = {f.metadata["schema_property_name"]: f for f in attr.fields(cls)}
    unknown = set(data) - set(fields)
    assert not unknown, f"{cls.__name__} has no properties {unknown}"
    kwargs = {}
    for name, value in data.items():
        nested = NESTED.get((cls, name))
        if nested is not None:
            value = [build(nested, v) for v in value] if isinstance(value, list) else build(nested, value)
        else:
            assert (cls, name) in FREE_FORM or not isinstance(value, (dict, list)), \
                f"{cls.__name__}.{name} is an object this test does not map"
        kwargs[fields[name].name] = value
    return cls(**kwargs)  # a missing required property is a TypeError


@pytest.fixture(scope="module")
def sarif(tmp_path_factory) -> tuple[dict, Path]:
    root = tmp_path_factory.mktemp("sarif")
    base = record(root / "base", "dev")
    head_dir = root / "head"
    head = record(head_dir, "dev", lambda c: (c["trainstack:nodeGroups"][0].update(minSize=1),
                                              c["trainstack:cost"].update(maxHourlyUsd=1)))
    (root / "base.json").write_text(json.dumps(base))
    (root / "head.json").write_text(json.dumps(head))
    output = root / "out.sarif"
    code = cli.main(["diff", str(root / "base.json"), str(root / "head.json"), "--cwd", str(head_dir),
                     "--format", "sarif", "--output", str(output)])
    assert code == 1
    return json.loads(output.read_text()), head_dir


def test_the_log_is_sarif_2_1_0_by_the_object_model(sarif):
    log, _ = sarif
    model = build(sarif_om.SarifLog, log)
    assert model.version == "2.1.0" and model.schema_uri.endswith("sarif-schema-2.1.0.json")
    run = model.runs[0]
    assert run.tool.driver.name == "trainstack" and run.automation_details.id == "trainstack/dev/"
    rules = [r.id for r in run.tool.driver.rules]
    for result in run.results:
        assert result.level in LEVELS
        assert rules[result.rule_index] == result.rule_id
        assert result.message.text


def test_each_failed_policy_points_at_the_stack_file_line_of_its_key(sarif):
    log, head_dir = sarif
    lines = (head_dir / "Pulumi.dev.yaml").read_text().splitlines()
    by_rule = {r["ruleId"]: r for r in log["runs"][0]["results"]}
    assert {"dev-groups-scale-to-zero", "hourly-cost-ceiling"} <= set(by_rule)
    for rule, text in (("dev-groups-scale-to-zero", "minSize: 1"), ("hourly-cost-ceiling", "maxHourlyUsd: 1")):
        physical = by_rule[rule]["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == "Pulumi.dev.yaml"
        assert lines[physical["region"]["startLine"] - 1].strip() == text
    group = by_rule["dev-groups-scale-to-zero"]["locations"][0]["logicalLocations"][0]
    assert group["fullyQualifiedName"].endswith("aws:eks/nodeGroup:NodeGroup::dev-eks-gpu")


def test_an_unknown_property_fails_the_object_model_check():
    with pytest.raises(AssertionError, match="no properties"):
        build(sarif_om.Result, {"message": {"text": "x"}, "severity": "error"})
    with pytest.raises(TypeError):
        build(sarif_om.Result, {"ruleId": "x"})  # message is required
