"""What a change of a provider's configuration does to the resources registered with it.

A Pulumi provider is a resource too, and its configuration decides where every resource registered with it
lives. Two rules of the engine and the providers decide what a changed configuration does, and this module
holds both, with where each was read:

- The provider is *replaced* when its own ``DiffConfig`` says so; the engine then replaces every resource
  registered with it (``providerChanged`` in pulumi/pulumi pkg/resource/deploy/step_generator.go@v3.259.0:
  a resource whose provider reference changed is replaced when the new provider's ``DiffConfig`` reports a
  replacement). Of the providers trainstack uses only the Kubernetes provider's ``DiffConfig`` ever says so
  (:func:`kubernetes_replaces`).
- The provider is *updated in place* but its resources move anyway, each by its own rule (:class:`Move`):
  pulumi-aws 7 gives every regional resource a ``region`` input of its own, filled from the provider's before
  ``Check`` and replacing the resource when it changes; what names an account (credentials, a profile, an
  assumed role) and aws-native's region move nothing the engine can see, so it plans no change at all and
  leaves the resources where they were.

Where the engine plans nothing the resources are not replaced in Pulumi's words, yet the stack loses them all
the same: the state still names them, the provider now looks for them elsewhere (the next ``pulumi refresh``
finds them gone and the next ``up`` makes new, empty ones where the provider points), and the old ones stay,
unmanaged, in the old region or account. The review shows them replaced (``orphaned``), because that is
what the stack gets: new resources, and what the old ones held left behind.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Optional

STEP_GENERATOR = "pulumi/pulumi pkg/resource/deploy/step_generator.go@v3.259.0 (providerChanged, diff)"
KUBERNETES_DIFF_CONFIG = ("pulumi/pulumi-kubernetes provider/v4@f47bc2d6f199 (the module engines/pulumi-kubernetes "
                          "builds) pkg/provider/provider.go DiffConfig, pkg/provider/util.go "
                          "getActiveClusterFromConfig")
AWS_REGION = ("pulumi/pulumi-aws docs/enhanced-region-support.md@d273034c (pulumi-aws 7: \"Changing the value of "
              "`region` will force resource replacement\"; IAM and the other global services have no `region`) and "
              "provider/region.go (applyRegion: a resource's `region` is the provider's unless it sets its own)")
AWS_DIFF_CONFIG = ("pulumi/pulumi-aws provider/resources.go@d273034c (pulumi-aws 7: `region` no longer "
                   "ForcesProviderReplace, pulumi/pulumi-aws#5656) and pulumi/pulumi-terraform-bridge "
                   "pkg/tfbridge/provider.go (configDiffer.DiffConfig replaces only a ForcesProviderReplace key)")
AWS_NATIVE_DIFF_CONFIG = ("pulumi/pulumi-aws-native provider/pkg/provider/provider.go@43eed3b0 (DiffConfig reports "
                          "no replacement, pulumi/pulumi-aws-native#1793; its resources have no `region` input)")

Scope = Literal["regional", "all"]
Fate = Literal["replaced", "orphaned"]


@dataclass(frozen=True)
class Move:
    """What a changed key of a provider updated in place does to the resources registered with it."""

    fate: Fate
    """``replaced``: the engine replaces each; ``orphaned``: it plans nothing and leaves each where it was."""
    scope: Scope
    """``regional``: only the resources of regional types (pulumi-aws's global services stay); ``all``: every one."""
    what: str
    """What the change does, in a reviewer's words: "moves to another region"."""
    source: str
    shows_values: bool = False
    """The review may print the key's values (a region; never credentials or a role)."""


@dataclass(frozen=True)
class ProviderConfigFacts:
    source: str
    """Where the provider's ``DiffConfig`` was read."""
    replaces: Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]] = lambda before, after: []
    """(old inputs, new inputs) -> the keys for which ``DiffConfig`` replaces the provider (none by default)."""
    moves: Mapping[str, Move] = field(default_factory=dict)
    """Keys that move the provider's resources though the provider itself is updated in place."""
    global_modules: tuple[str, ...] = ()
    """The type-token modules (``iam`` of ``aws:iam/role:Role``) of global services: a region move leaves them."""

    def regional(self, type_token: str) -> bool:
        """Whether a resource of ``type_token`` lives in a region (a module no fact names counts as regional: a
        global type wrongly counted so is shown replaced, never the other way round)."""
        module = type_token.split(":")[1].split("/")[0] if type_token.count(":") == 2 else ""
        return module not in self.global_modules


UNKNOWN = "[unknown]"
"""A value known only at deploy (the plan record's mark, and the diff's for a value computed from a replaced one)."""
SECRET = "[secret]"
_NEW_VALUE = "[new value after "
"""The diff's mark for an input computed from a replaced resource (``[new value after NAME is replaced]``)."""


def unknown(value: Any) -> bool:
    """A value the record cannot show: known only at deploy, or hidden as a secret."""
    return value in (UNKNOWN, SECRET) or (isinstance(value, str) and value.startswith(_NEW_VALUE))


# -- the Kubernetes provider ------------------------------------------------------------------------------
CONNECTION_KEYS = ("kubeconfig", "context", "cluster")
"""The keys that name the cluster the provider talks to."""


def kubernetes_replaces(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The keys for which the Kubernetes provider's ``DiffConfig`` replaces it (KUBERNETES_DIFF_CONFIG).

    A changed ``clusterIdentifier`` replaces; an unchanged one that is set keeps the provider whatever else
    changes. Otherwise a connection key whose new value is unknown replaces (the provider's conservative
    choice), so does a new ``renderYamlToDirectory``, and the connection keys that changed replace when the
    active cluster (the kubeconfig's cluster entry that the context, or the overrides, select) is another. A
    kubeconfig the record hides (a secret on one side) is taken as unknown: the diff cannot rule it out."""
    changed = [key for key in sorted(set(before) | set(after)) if before.get(key) != after.get(key)]
    if not changed:
        return []
    identifier = "clusterIdentifier"
    if before.get(identifier) is not None and after.get(identifier) is not None:
        return [identifier] if identifier in changed else []
    for key in CONNECTION_KEYS:
        if key in changed and unknown(after.get(key)):
            return [key]
    replaced = [key for key in changed if key == "renderYamlToDirectory"]
    if any(unknown(before.get(key)) or unknown(after.get(key)) for key in CONNECTION_KEYS if key in changed):
        return replaced + [key for key in CONNECTION_KEYS if key in changed]
    old, new = _active_cluster(before), _active_cluster(after)
    if old is not None and new is not None and old != new:
        replaced += [key for key in CONNECTION_KEYS if key in changed]
    return replaced


def _active_cluster(inputs: Mapping[str, Any]) -> Optional[Any]:
    """The cluster entry the provider would talk to, or None where the kubeconfig names none (the provider then
    plans no replacement). The kubeconfig comes read (an object): the reader of the record parses its text."""
    config = inputs.get("kubeconfig")
    if not isinstance(config, dict):
        return None
    context = _named(config.get("contexts"), "context", inputs.get("context") or config.get("current-context"))
    if not isinstance(context, dict):
        return None
    cluster = _named(config.get("clusters"), "cluster", inputs.get("cluster") or context.get("cluster"))
    # client-go's Cluster is a struct: a field left out and one at its zero value compare equal.
    return {key: value for key, value in cluster.items() if value not in (None, False, "", [], {})} \
        if isinstance(cluster, dict) else None


def _named(entries: Any, field_name: str, name: Any) -> Any:
    """The ``field_name`` of the entry called ``name`` in a kubeconfig's list of named entries (``- name: a`` /
    ``cluster: {...}``); None where there is none."""
    found = [entry.get(field_name) for entry in entries if isinstance(entry, dict) and entry.get("name") == name] \
        if isinstance(entries, list) and isinstance(name, str) else []
    return found[-1] if found else None


KUBERNETES = ProviderConfigFacts(KUBERNETES_DIFF_CONFIG, replaces=kubernetes_replaces)

# -- AWS ------------------------------------------------------------------------------------------------
_ACCOUNT = ("may act in another AWS account: Pulumi plans no change, so the resource stays where it was, unmanaged, "
            "and the stack makes a new one where the provider now points")
_AWS_ACCOUNT = Move("orphaned", "all", _ACCOUNT, AWS_DIFF_CONFIG)

AWS = ProviderConfigFacts(
    AWS_DIFF_CONFIG,
    moves={"region": Move("replaced", "regional", "moves to another region: a regional resource's own `region` "
                                                  "follows the provider's and cannot change in place, so it is "
                                                  "replaced", AWS_REGION, shows_values=True),
           # What names the caller's identity, and so the account (pulumi-aws 7 Provider arguments).
           **{key: _AWS_ACCOUNT for key in ("accessKey", "secretKey", "token", "profile", "assumeRoles",
                                            "assumeRoleWithWebIdentity", "sharedCredentialsFiles",
                                            "sharedConfigFiles")}},
    # The global services of the pulumi-aws 7 page (AWS_REGION) whose token module its list names.
    global_modules=("bcmdataexports", "billing", "budgets", "cloudfront", "cloudfrontkeyvaluestore",
                    "costoptimizationhub", "cur", "globalaccelerator", "iam", "networkmanager", "notifications",
                    "notificationscontacts", "organizations", "pricing", "rolesanywhere", "route53",
                    "route53domains", "shield", "waf"))

AWS_NATIVE = ProviderConfigFacts(
    AWS_NATIVE_DIFF_CONFIG,
    moves={"region": Move("orphaned", "all", "moves to another region: Pulumi plans no change, so the resource "
                                             "stays in the old one, unmanaged, and the stack makes a new one in the "
                                             "new region", AWS_NATIVE_DIFF_CONFIG, shows_values=True),
           # pulumi-aws-native 1 Provider arguments.
           **{key: Move("orphaned", "all", _ACCOUNT, AWS_NATIVE_DIFF_CONFIG)
              for key in ("accessKey", "secretKey", "token", "profile", "assumeRole", "roleArn",
                          "sharedCredentialsFile")}})
