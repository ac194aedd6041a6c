"""`trainstack preflight nodes` checks the CSI driver etcd's claim needs: a stack that runs etcd for elastic rendezvous
gives it a claim of trainstack-gp3, which only the Amazon EBS CSI driver provisions; on a cluster trainstack did not
make (byo-p5) nothing installs that driver, etcd stays Pending, and every job with --rendezvous etcd fails at
rendezvous. Objects are as the API server returns them; the command runs against a small API server on loopback
that answers the reads it makes."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from support.rendered_jobs import outputs_of, planned_record
from trainstack import cli
from trainstack.catalog import HUGEPAGES_RESOURCE
from trainstack.launch.placement import resources
from trainstack.names import EBS_CSI_PROVISIONER, GP3_STORAGE_CLASS, NODE_GROUP_LABEL
from trainstack.preflight.node_devices import needs_from_outputs
from trainstack.preflight.volume_drivers import check_volume_drivers, volume_needs

BYO = outputs_of("byo-p5")
[ETCD] = volume_needs(BYO)


def named(name, **fields):
    return {"metadata": {"name": name}, **fields}


def gp3(provisioner=EBS_CSI_PROVISIONER):
    return named(GP3_STORAGE_CLASS, provisioner=provisioner, parameters={"type": "gp3", "encrypted": "true"})


def test_a_stack_that_runs_etcd_needs_a_driver_for_etcds_claim_and_one_without_etcd_needs_none():
    assert (ETCD.claim, ETCD.storage_class, ETCD.provisioner) == ("etcd/data-etcd-0", "trainstack-gp3",
                                                                  "ebs.csi.aws.com")
    assert volume_needs(outputs_of("nemo-p4de")) == []


def test_etcds_claim_on_a_cluster_without_the_ebs_csi_driver_fails_with_the_add_on_to_install():
    (check,) = check_volume_drivers([ETCD], [gp3()], [named("efs.csi.aws.com")], "ml-platform-prod")
    assert check.status == "fail" and check.subject == "etcd/data-etcd-0 (StorageClass trainstack-gp3)"
    assert ("StorageClass trainstack-gp3 names provisioner ebs.csi.aws.com, and the cluster has no CSIDriver "
            "ebs.csi.aws.com (it has: efs.csi.aws.com)") in check.reason
    assert "stays Pending" in check.reason
    assert ("Fix: install the Amazon EBS CSI driver as the EKS add-on aws-ebs-csi-driver, with an IAM role that holds "
            "AmazonEBSCSIDriverPolicy: `aws eks create-addon --cluster-name ml-platform-prod --addon-name "
            "aws-ebs-csi-driver --service-account-role-arn <role ARN>`") in check.reason


def test_the_claim_passes_once_the_classs_provisioner_has_its_csidriver():
    (check,) = check_volume_drivers([ETCD], [gp3()], [named("efs.csi.aws.com"), named("ebs.csi.aws.com")], "c")
    assert check.status == "pass"
    assert check.reason == ("StorageClass trainstack-gp3 names provisioner ebs.csi.aws.com, and CSIDriver "
                            "ebs.csi.aws.com is registered")


def test_before_up_makes_the_class_the_check_judges_the_provisioner_the_stack_will_give_it():
    (check,) = check_volume_drivers([ETCD], [named("gp2", provisioner="kubernetes.io/aws-ebs")], [], None)
    assert check.status == "fail"
    assert "not in the cluster yet: the stack makes it at up) will name provisioner ebs.csi.aws.com" in check.reason
    assert "(it has: none)" in check.reason and "--cluster-name <cluster>" in check.reason


def test_a_class_already_in_the_cluster_is_judged_by_the_provisioner_it_names():
    # EKS Auto Mode's own EBS provisioner is not the one the EBS CSI driver registers.
    (check,) = check_volume_drivers([ETCD], [gp3("ebs.csi.eks.amazonaws.com")], [named("ebs.csi.aws.com")], "c")
    assert check.status == "fail"
    assert "names provisioner ebs.csi.eks.amazonaws.com, and the cluster has no CSIDriver ebs.csi.eks.amazonaws.com"\
        in check.reason
    assert check.reason.endswith("Fix: install the CSI driver ebs.csi.eks.amazonaws.com on the cluster, or turn off "
                                 "operators.etcd")


@pytest.fixture
def api_server():
    """An API server on loopback answering discovery and the lists preflight nodes reads, from ``objects``, and
    single objects by path (``objects["paths"]``: the VPC CNI's, which it reads on a stack with teams)."""
    objects = {"nodes": [], "storageclasses": [], "csidrivers": [], "paths": {}}
    groups = {"/api/v1": [("nodes", "Node")],
              "/apis/storage.k8s.io/v1": [("storageclasses", "StorageClass"), ("csidrivers", "CSIDriver")]}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            path = self.path.split("?")[0]
            prefix, _, plural = path.rpartition("/")
            if path in objects["paths"]:
                body = objects["paths"][path]
            elif path in groups:
                body = {"resources": [{"name": p, "kind": k, "namespaced": False} for p, k in groups[path]]}
            elif prefix in groups and plural in objects:
                body = {"items": objects[plural]}
            else:
                self.send_error(404)
                return
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", objects
    server.shutdown()
    server.server_close()


def whole_p5_nodes():
    """byo-p5's two p5 nodes, each showing every device and the huge pages its pods request."""
    group = BYO.accelerated_groups["p5"]
    [need] = needs_from_outputs(BYO, {})
    allocatable = {**{device: str(count) for device, count in need.devices.items()},
                   HUGEPAGES_RESOURCE: resources(group, group.accelerators_per_node)["requests"][HUGEPAGES_RESOURCE]}
    return [{"metadata": {"name": f"ip-10-20-0-{i}", "labels": {NODE_GROUP_LABEL: "p5"}},
             "status": {"allocatable": allocatable}} for i in (1, 2)]


def test_preflight_nodes_on_byo_p5_fails_without_the_ebs_csi_driver_and_passes_with_it(api_server, tmp_path,
                                                                                        capsys):
    url, objects = api_server
    objects["nodes"] = whole_p5_nodes()
    # byo-p5 has a team: its NetworkPolicy is enforced here (tests/engines/test_network_policy_enforced.py).
    agent = {"name": "aws-eks-nodeagent", "args": ["--enable-network-policy=true"]}
    objects["paths"]["/apis/apps/v1/namespaces/kube-system/daemonsets/aws-node"] = {
        "spec": {"template": {"spec": {"containers": [{"name": "aws-node"}, agent]}}}}
    kubeconfig, outputs = tmp_path / "kubeconfig", tmp_path / "plan.json"
    kubeconfig.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config", "current-context": "byo",
        "clusters": [{"name": "k", "cluster": {"server": url}}],
        "contexts": [{"name": "byo", "context": {"cluster": "k", "user": "u"}}],
        "users": [{"name": "u", "user": {"token": "t"}}]}))
    outputs.write_text(json.dumps(planned_record("byo-p5")))
    argv = ["preflight", "nodes", "--outputs", str(outputs), "--kubeconfig", str(kubeconfig)]

    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    assert "fail             volume CSI driver            etcd/data-etcd-0 (StorageClass trainstack-gp3)" in out
    assert "--cluster-name ml-platform-prod --addon-name aws-ebs-csi-driver" in out
    assert "1 failed, 0 could not be checked, 3 passed" in out and "1 check failed" in err

    objects["storageclasses"], objects["csidrivers"] = [gp3()], [named("ebs.csi.aws.com")]
    assert cli.main(argv) == 0
    assert "0 failed, 0 could not be checked, 4 passed" in capsys.readouterr().out
