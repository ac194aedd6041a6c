"""A kubeconfig read as kubectl reads it, for what trainstack supports (bearer tokens, token files, exec plugins
such as `aws eks get-token`), and refused by field for what it does not. The exec plugins here are real
processes: a script that prints an ExecCredential, as the AWS CLI does."""

import base64
import json
import stat
import sys
from pathlib import Path

import pytest
from trainstack.kube.kubeconfig import CredentialError, KubeconfigError, connect, read_access

PEM = b"-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n"
SERVER = "https://ABCDEF.gr7.us-east-1.eks.amazonaws.com"


def kubeconfig(user, cluster=None, contexts=None, current="aws"):
    """A kubeconfig shaped as pulumi-eks writes a stack's (one cluster, one user, one context)."""
    return {"apiVersion": "v1", "kind": "Config", "current-context": current,
            "clusters": [{"name": "kubernetes", "cluster": cluster or {
                "server": SERVER, "certificate-authority-data": base64.b64encode(PEM).decode()}}],
            "contexts": contexts or [{"name": "aws", "context": {"cluster": "kubernetes", "user": "aws"}}],
            "users": [{"name": "aws", "user": user}]}


def plugin(tmp_path, body):
    """An executable exec plugin: Python that reads its arguments and environment and prints ``body``'s result."""
    script = tmp_path / "get-token"
    script.write_text(f"#!{sys.executable}\nimport json, os, sys\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def credential(token="k8s-aws-v1.abc", version="client.authentication.k8s.io/v1beta1"):
    return json.dumps({"apiVersion": version, "kind": "ExecCredential", "status": {"token": token}})


def test_a_bearer_token_and_the_inline_ca_of_an_eks_kubeconfig():
    access = read_access(kubeconfig({"token": "secret-token"}), "kubeconfig k", Path("."))
    assert (access.server, access.token, access.ca_pem, access.context) == (SERVER, "secret-token", PEM, "aws")
    with connect(access) as cluster:
        # requests verifies the server against exactly that CA, written where it can read it while connected.
        assert Path(cluster.session.verify).read_bytes() == PEM
        assert cluster.session.headers["Authorization"] == "Bearer secret-token"
    assert not Path(cluster.session.verify).exists()


def test_a_token_file_and_a_ca_file_are_read_relative_to_the_kubeconfigs_directory(tmp_path):
    (tmp_path / "token").write_text("from-a-file\n")
    (tmp_path / "ca.crt").write_bytes(PEM)
    document = kubeconfig({"tokenFile": "token"}, cluster={"server": SERVER, "certificate-authority": "ca.crt"})
    access = read_access(document, "kubeconfig k", tmp_path)
    assert (access.token, access.ca_file) == ("from-a-file", tmp_path / "ca.crt")


def test_an_exec_plugin_is_run_with_its_args_and_env_and_told_it_has_no_terminal(tmp_path):
    script = plugin(tmp_path, """
info = json.loads(os.environ["KUBERNETES_EXEC_INFO"])
assert sys.argv[1:] == ["eks", "get-token", "--cluster-name", "trainstack-dev"], sys.argv
assert os.environ["AWS_PROFILE"] == "training", os.environ.get("AWS_PROFILE")
assert info["spec"]["interactive"] is False and "cluster" not in info["spec"], info
print(json.dumps({"apiVersion": info["apiVersion"], "kind": "ExecCredential", "status": {"token": "k8s-aws-v1.x"}}))
""")
    document = kubeconfig({"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1", "command": str(script),
                                    "args": ["eks", "get-token", "--cluster-name", "trainstack-dev"],
                                    "env": [{"name": "AWS_PROFILE", "value": "training"}]}})
    access = read_access(document, "kubeconfig k", tmp_path)
    assert access.token is None  # nothing runs until a client is wanted
    with connect(access) as cluster:
        assert cluster.session.headers["Authorization"] == "Bearer k8s-aws-v1.x"


def test_a_plugin_that_asks_for_cluster_info_gets_the_server_and_its_ca(tmp_path):
    script = plugin(tmp_path, """
cluster = json.loads(os.environ["KUBERNETES_EXEC_INFO"])["spec"]["cluster"]
print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                  "status": {"token": cluster["server"]}}))
""")
    document = kubeconfig({"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(script),
                                    "interactiveMode": "Never", "provideClusterInfo": True}})
    with connect(read_access(document, "k", tmp_path)) as cluster:
        assert cluster.session.headers["Authorization"] == f"Bearer {SERVER}"


def test_a_relative_plugin_path_is_the_kubeconfigs_and_a_bare_name_is_left_to_path(tmp_path):
    plugin(tmp_path, f"print({credential()!r})")
    relative = read_access(kubeconfig({"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                                "command": "./get-token"}}), "k", tmp_path)
    assert relative.plugin.command == str(tmp_path / "get-token")
    bare = read_access(kubeconfig({"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                            "command": "aws"}}), "k", tmp_path)
    assert bare.plugin.command == "aws"


@pytest.mark.parametrize(("body", "said"), [
    ("sys.stderr.write('Unable to locate credentials\\n'); sys.exit(255)",
     "exited 255: Unable to locate credentials"),
    ("print('not json')", "printed no ExecCredential JSON (not json)"),
    (f"print({credential(version='client.authentication.k8s.io/v1')!r})",
     "printed ExecCredential, not an ExecCredential of client.authentication.k8s.io/v1beta1"),
    ("print(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1beta1', 'kind': 'ExecCredential', "
     "'status': {'clientCertificateData': 'x', 'clientKeyData': 'y'}}))", "answers with a client certificate"),
    ("print(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1beta1', 'kind': 'ExecCredential', "
     "'status': {}}))", "gave no status.token"),
])
def test_a_plugin_that_gives_no_token_is_a_credential_error_saying_why(tmp_path, body, said):
    script = plugin(tmp_path, body)
    access = read_access(kubeconfig({"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                                              "command": str(script)}}), "kubeconfig k", tmp_path)
    with pytest.raises(CredentialError, match="kubeconfig k: user 'aws': the exec plugin") as raised:
        connect(access).__enter__()
    assert said in str(raised.value)


def test_a_plugin_not_on_path_says_its_install_hint(tmp_path):
    access = read_access(kubeconfig({"exec": {
        "apiVersion": "client.authentication.k8s.io/v1beta1", "command": "trainstack-no-such-plugin",
        "installHint": "Install the AWS CLI: https://aws.amazon.com/cli/"}}), "k", tmp_path)
    with pytest.raises(CredentialError, match="`trainstack-no-such-plugin` is not found: Install the AWS CLI"):
        connect(access).__enter__()


@pytest.mark.parametrize(("user", "said"), [
    ({"client-certificate-data": "x", "client-key-data": "y"}, "client-certificate-data is set, but trainstack "
                                                               "does not support client certificates; it reads a "
                                                               "bearer token (token, tokenFile) or an exec plugin"),
    ({"username": "admin", "password": "x"}, "username is set, but trainstack does not support basic authentication"),
    ({"auth-provider": {"name": "oidc"}}, "auth-provider is set, but trainstack does not support auth providers"),
    ({"token": "t", "as": "someone-else"}, "as is set, but trainstack does not support impersonation"),
    ({}, "user 'aws' gives no credentials"),
    ({"exec": {"apiVersion": "client.authentication.k8s.io/v1alpha1", "command": "aws"}},
     "exec apiVersion is client.authentication.k8s.io/v1alpha1"),
    ({"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": "aws", "interactiveMode": "Always"}},
     "interactiveMode is Always"),
])
def test_unsupported_credentials_are_refused_naming_the_field_and_what_is_supported(user, said):
    with pytest.raises(KubeconfigError, match=r"^kubeconfig k: user 'aws'") as raised:
        read_access(kubeconfig(user), "kubeconfig k", Path("."))
    assert said in str(raised.value)


@pytest.mark.parametrize(("field", "value"), [
    ("insecure-skip-tls-verify", True), ("proxy-url", "http://proxy:3128"), ("tls-server-name", "other")])
def test_cluster_settings_trainstack_would_not_honour_are_refused_not_ignored(field, value):
    with pytest.raises(KubeconfigError, match=f"cluster 'kubernetes': {field} .* is not supported"):
        read_access(kubeconfig({"token": "t"}, cluster={"server": SERVER, field: value}), "k", Path("."))


@pytest.mark.parametrize(("cluster", "said"), [
    ({"server": "ABCDEF.eks.amazonaws.com"}, "server is ABCDEF.eks.amazonaws.com, not a URL"),
    ({"server": SERVER, "certificate-authority-data": "%%%"}, "certificate-authority-data (%%%) is not base64"),
    ({"server": SERVER, "certificate-authority-data": base64.b64encode(b"hello").decode()}, "decodes to no PEM"),
    ({"server": SERVER, "certificate-authority": "missing.crt"}, "is not a file"),
])
def test_a_cluster_entry_that_cannot_be_used_is_refused_with_the_value(cluster, said):
    with pytest.raises(KubeconfigError) as raised:
        read_access(kubeconfig({"token": "t"}, cluster=cluster), "k", Path("/nonexistent"))
    assert said in str(raised.value)


def test_the_context_is_the_current_one_or_the_one_asked_for():
    contexts = [{"name": "aws", "context": {"cluster": "kubernetes", "user": "aws"}},
                {"name": "other", "context": {"cluster": "elsewhere", "user": "aws"}}]
    document = kubeconfig({"token": "t"}, contexts=contexts)
    assert read_access(document, "k", Path(".")).context == "aws"
    with pytest.raises(KubeconfigError, match="no cluster named 'elsewhere' in clusters"):
        read_access(document, "k", Path("."), context="other")
    with pytest.raises(KubeconfigError, match=r"no context named 'missing' in contexts \(aws, other\); give "
                                              "--context with one of the contexts"):
        read_access(document, "k", Path("."), context="missing")
    with pytest.raises(KubeconfigError, match="has no current-context and 2 contexts"):
        read_access(kubeconfig({"token": "t"}, contexts=contexts, current=""), "k", Path("."))


def test_a_document_that_is_not_a_kubeconfig_says_so():
    with pytest.raises(KubeconfigError, match="has no contexts list; it is not a kubeconfig"):
        read_access({"current-context": "aws"}, "k", Path("."))
