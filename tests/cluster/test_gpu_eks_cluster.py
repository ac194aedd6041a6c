"""The EKS cluster as planned for the shipped stacks: control plane settings, add-on
order, the EFA security group, device plugins on their nodes, the autoscaler's IAM."""

import json
from pathlib import Path

import pytest
from trainstack.plan import find_project, run_plan

PROJECT = find_project(Path(__file__).resolve().parents[2])
ADDON, NG, RELEASE = "aws:eks/addon:Addon", "aws:eks/nodeGroup:NodeGroup", "kubernetes:helm.sh/v3:Release"


@pytest.fixture(scope="module")
def nemo():
    return run_plan(PROJECT, "nemo-p4de")


@pytest.fixture(scope="module")
def dev():
    return run_plan(PROJECT, "dev")


def test_control_plane_uses_api_auth_kms_secrets_and_logs(nemo):
    cluster = nemo.get("eks:index:Cluster", "nemo-p4de-eks").inputs
    key = nemo.get("aws:kms/key:Key", "nemo-p4de-eks-secrets")
    assert cluster["authenticationMode"] == "API"
    assert cluster["encryptionConfigKeyArn"] == key.outputs["arn"]
    assert key.inputs["enableKeyRotation"] is True
    assert cluster["enabledClusterLogTypes"] == ["api", "audit", "authenticator"]
    assert cluster["accessEntries"]["admin-0"]["principalArn"] == "arn:aws:iam::123456789012:role/ml-platform-admin"


def test_pulumi_eks_defaults_are_off_so_the_plan_shows_everything(nemo):
    cluster = nemo.get("eks:index:Cluster", "nemo-p4de-eks").inputs
    assert cluster["skipDefaultNodeGroup"] and cluster["skipDefaultSecurityGroups"]
    assert cluster["corednsAddonOptions"]["enabled"] is False
    assert cluster["kubeProxyAddonOptions"]["enabled"] is False
    assert cluster["useDefaultVpcCni"] is True and cluster["bootstrapSelfManagedAddons"] is False


def test_production_endpoint_is_private_and_dev_is_public_for_its_allowlist_only(nemo, dev):
    production = nemo.get("eks:index:Cluster", "nemo-p4de-eks").inputs
    assert (production["endpointPrivateAccess"], production["endpointPublicAccess"]) == (True, False)
    assert "publicAccessCidrs" not in production
    development = dev.get("eks:index:Cluster", "dev-eks").inputs
    assert (development["endpointPrivateAccess"], development["endpointPublicAccess"]) == (True, True)
    assert development["publicAccessCidrs"] == ["203.0.113.0/24"]


def test_core_addons_are_ours_and_ordered_around_the_system_nodes(nemo):
    cluster = nemo.get("eks:index:Cluster", "nemo-p4de-eks")
    system = nemo.get(NG, "nemo-p4de-eks-system")
    cluster_component = nemo.get("trainstack:index:GpuEksCluster", "nemo-p4de-eks")
    addons = {a.inputs["addonName"]: a for a in nemo.children(cluster_component.urn) if a.type == ADDON}
    assert set(addons) == {"vpc-cni", "kube-proxy", "eks-pod-identity-agent", "coredns", "eks-node-monitoring-agent"}
    for early in ("vpc-cni", "kube-proxy", "eks-pod-identity-agent"):
        assert addons[early].dependencies == [cluster.urn]
    assert addons["coredns"].dependencies == [system.urn]
    assert addons["vpc-cni"].urn in system.dependencies
    assert addons["vpc-cni"].urn in nemo.get(NG, "nemo-p4de-eks-p4de").dependencies


def test_system_nodes_spread_over_the_private_subnets_on_the_standard_ami(nemo):
    system = nemo.get(NG, "nemo-p4de-eks-system").inputs
    private = [s.id for s in nemo.by_type("aws:ec2/subnet:Subnet") if "private" in s.name]
    assert sorted(system["subnetIds"]) == sorted(private)
    assert (system["instanceTypes"], system["amiType"]) == (["c5.2xlarge"], "AL2023_x86_64_STANDARD")
    assert system["labels"] == {"trainstack.io/node-group": "system"}


def test_efa_security_group_allows_all_traffic_from_and_to_itself_by_reference(nemo):
    group = nemo.get("aws:ec2/securityGroup:SecurityGroup", "nemo-p4de-eks-efa")
    ingress = nemo.get("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule", "nemo-p4de-eks-efa-in-from-self")
    egress = nemo.get("aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule", "nemo-p4de-eks-efa-out-to-self")
    for rule in (ingress, egress):
        assert rule.inputs["ipProtocol"] == "-1"
        assert rule.inputs["securityGroupId"] == rule.inputs["referencedSecurityGroupId"] == group.id
        assert "cidrIpv4" not in rule.inputs


def test_efa_interfaces_carry_the_cluster_and_efa_security_groups(nemo):
    template = nemo.get("aws:ec2/launchTemplate:LaunchTemplate", "nemo-p4de-eks-p4de").inputs
    cluster_sg = nemo.get("eks:index:Cluster", "nemo-p4de-eks").outputs["clusterSecurityGroupId"]
    efa_sg = nemo.get("aws:ec2/securityGroup:SecurityGroup", "nemo-p4de-eks-efa").id
    assert {tuple(i["securityGroups"]) for i in template["networkInterfaces"]} == {(cluster_sg, efa_sg)}


def test_a_stack_without_efa_has_no_efa_security_group_or_plugin(dev):
    assert not dev.by_type("aws:ec2/securityGroup:SecurityGroup")
    charts = {r.inputs["chart"] for r in dev.by_type(RELEASE)}
    assert "nvidia-device-plugin" in charts and "aws-efa-k8s-device-plugin" not in charts


def test_device_plugins_are_pinned_and_select_only_nodes_with_their_devices(nemo):
    releases = {r.inputs["chart"]: r for r in nemo.by_type(RELEASE)}
    nvidia, efa = releases["nvidia-device-plugin"], releases["aws-efa-k8s-device-plugin"]
    assert nvidia.inputs["version"] == "0.20.0"
    assert nvidia.inputs["values"]["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert nvidia.inputs["values"]["mofedEnabled"] is False
    assert efa.inputs["version"] == "v0.5.30"
    assert efa.inputs["values"]["nodeSelector"] == {"vpc.amazonaws.com/efa.present": "true"}
    gpu_labels = nemo.get(NG, "nemo-p4de-eks-p4de").inputs["labels"]
    system_labels = nemo.get(NG, "nemo-p4de-eks-system").inputs["labels"]
    for release in (nvidia, efa):
        selector = release.inputs["values"]["nodeSelector"]
        assert selector.items() <= gpu_labels.items()
        assert not selector.items() <= system_labels.items()
        assert nemo.get(NG, "nemo-p4de-eks-p4de").urn in release.dependencies


def test_every_release_is_atomic_with_a_timeout_and_a_pinned_version(nemo):
    for release in nemo.by_type(RELEASE):
        assert release.inputs["atomic"] is True and release.inputs["timeout"] == 600
        assert release.inputs["version"][0].isdigit() or release.inputs["version"].startswith("v")


def test_autoscaler_runs_on_system_nodes_with_pod_identity_scoped_to_this_cluster(nemo):
    release = nemo.get(RELEASE, "nemo-p4de-eks-autoscaler")
    assert release.inputs["version"] == "9.59.0"
    assert release.inputs["values"]["autoDiscovery"] == {"clusterName": "trainstack-nemo-p4de"}
    assert release.inputs["values"]["nodeSelector"] == {"trainstack.io/node-group": "system"}
    association = nemo.get("aws:eks/podIdentityAssociation:PodIdentityAssociation", "nemo-p4de-eks-autoscaler")
    assert (association.inputs["namespace"], association.inputs["serviceAccount"]) == ("kube-system",
                                                                                       "cluster-autoscaler")
    assert association.urn in release.dependencies
    trust = json.loads(nemo.get("aws:iam/role:Role", "nemo-p4de-eks-autoscaler").inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    policy = json.loads(nemo.get("aws:iam/rolePolicy:RolePolicy", "nemo-p4de-eks-autoscaler").inputs["policy"])
    actions = [a for s in policy["Statement"] for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])]
    assert not any(a == "*" or a.endswith(":*") for a in actions)
    resize = next(s for s in policy["Statement"] if "autoscaling:SetDesiredCapacity" in s["Action"])
    assert resize["Condition"] == {"StringEquals": {
        "aws:ResourceTag/k8s.io/cluster-autoscaler/trainstack-nemo-p4de": "owned"}}


def test_pinned_addon_versions_reach_the_addons(tmp_path):
    import yaml

    document = yaml.safe_load(PROJECT.stack_file("nemo-p4de").read_text())
    document["config"]["trainstack:eks"]["addonVersions"] = {"vpcCni": "v1.19.2-eksbuild.1"}
    (tmp_path / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {PROJECT.main}\n")
    (tmp_path / "Pulumi.pinned.yaml").write_text(yaml.safe_dump(document))
    plan = run_plan(find_project(tmp_path), "pinned")
    versions = {a.inputs["addonName"]: a.inputs.get("addonVersion") for a in plan.by_type(ADDON)}
    assert versions == {"vpc-cni": "v1.19.2-eksbuild.1", "kube-proxy": None, "eks-pod-identity-agent": None,
                        "coredns": None, "aws-fsx-csi-driver": None, "amazon-cloudwatch-observability": None,
                        "eks-node-monitoring-agent": None}


def test_a_private_endpoint_tells_the_user_where_pulumi_up_must_run(nemo, dev):
    assert any("is private: run `pulumi up` from inside the VPC" in d["message"] for d in nemo.diagnostics)
    assert not any("is private" in d["message"] for d in dev.diagnostics)


VPC_CNI_SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "data" / "vpc-cni-addon-configuration.schema.json")
                            .read_text())


def test_the_vpc_cni_holds_addresses_by_the_ip_targets_chosen_for_training_nodes(nemo):
    import jsonschema

    addons = {a.inputs["addonName"]: a.inputs for a in nemo.by_type(ADDON)}
    configuration = json.loads(addons["vpc-cni"]["configurationValues"])
    assert configuration == {"env": {"MINIMUM_IP_TARGET": "16", "WARM_IP_TARGET": "8"}}
    jsonschema.validate(configuration, VPC_CNI_SCHEMA)  # only the add-on's documented keys, as strings
    assert "configurationValues" not in addons["kube-proxy"]


@pytest.mark.parametrize("settings,env", [
    ({"warmEniTarget": 1}, {"WARM_ENI_TARGET": "1"}),
    ({"minimumIpTarget": 30}, {"MINIMUM_IP_TARGET": "30", "WARM_IP_TARGET": "8"}),
    ({"warmIpTarget": 0, "minimumIpTarget": 12}, {"MINIMUM_IP_TARGET": "12", "WARM_IP_TARGET": "0"}),
])
def test_an_overridden_vpc_cni_configuration_keeps_to_the_documented_keys(settings, env):
    import jsonschema
    from trainstack.config import VpcCniConfig

    configuration = json.loads(VpcCniConfig.model_validate(settings).configuration_values())
    assert configuration == {"env": env}
    jsonschema.validate(configuration, VPC_CNI_SCHEMA)


def test_the_documented_schema_catches_a_key_the_add_on_does_not_have():
    import jsonschema

    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"env": {"MAX_PODS": "250"}}, VPC_CNI_SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"env": {"WARM_IP_TARGET": 8}}, VPC_CNI_SCHEMA)
