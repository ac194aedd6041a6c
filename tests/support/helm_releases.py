"""A plan's Helm releases installed on a rehearsal's API server by Helm itself: the Pulumi Kubernetes provider
built from source (engine ``pulumi-kubernetes``, which embeds Helm v3's library) run by the Pulumi CLI built from
source (engine ``pulumi``), through trainstack.deploy, with a program of one ``helm.v3.Release`` per release.

The rehearsal runs the controllers the stack installs as processes (rehearsal/controllers.py) and installs no Helm
release, so its API server holds no release record and no chart's DaemonSet; a chart repository is not reachable
here either. Each release therefore takes a stand-in chart of its chart's name and of the version asked for, written
here (as support/stand_in_charts.py does for the deploy tests, without their CRDs: Helm never deletes a CRD it
installed, and the doctor tests share one cluster). A stand-in renders a ConfigMap of the values it was given and,
for a device plugin or DRA driver chart, the per-node DaemonSet whose placement (nodeSelector, tolerations,
affinity) and container resources come from the same place in its values as the upstream chart's do, which is
where the controller models read them (controllers/cluster_autoscaler.py DEVICE_PLUGINS, controllers/dra.py
DRIVERS). Helm writes the release records (Secrets ``sh.helm.release.v1.<release>.v<revision>``) and annotates
what it installs; the real DaemonSet controller places the pods, the scheduler binds them and kwok runs them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml
from trainstack.catalog.addons import NVIDIA_DEVICE_PLUGIN
from trainstack.controllers.cluster_autoscaler import DEVICE_PLUGINS
from trainstack.controllers.dra import DRIVERS
from trainstack.deploy.engine import Engine, Outcome, run
from trainstack.doctor.planned_releases import PlannedRelease
from trainstack.plan import find_project

from support.stand_in_charts import VALUES_TEMPLATE

PROJECT = "doctor-releases"
STACK = "rehearsal"
PROGRAM = '''"""One helm.v3.Release per entry of the config's releases, on the cluster of its kubeconfig. Neither the
provider nor Helm waits for what a release installs (skipAwait): the tests wait for what they need, and one whose
pods must stay Pending would otherwise wait out the provider's timeout, after which Helm records the revision
failed."""
import json

import pulumi
import pulumi_kubernetes as k8s

config = pulumi.Config()
provider = k8s.Provider("rehearsal", kubeconfig=config.require("kubeconfig"))
for release in json.loads(config.require("releases")):
    k8s.helm.v3.Release(release["resource"], name=release["name"], chart=release["chart"],
                        version=release["version"], namespace=release["namespace"], create_namespace=True,
                        values=release["values"], skip_await=True,
                        opts=pulumi.ResourceOptions(provider=provider))
'''
ENABLED_AT = {NVIDIA_DEVICE_PLUGIN.name: ("devicePlugin",)}
"""Where a chart's switch for its DaemonSet sits when it is not beside the placement: the NVIDIA chart's
templates/daemonset-device-plugin.yml renders only ``if .Values.devicePlugin.enabled`` (catalog.addons
runs_device_plugin)."""
DAEMONSET_TEMPLATE = """{{{{- $placement := .Values{path} }}}}
{{{{- $switch := .Values{switch} }}}}
{{{{- if and $placement (or (not $switch) (ne (toString $switch.enabled) "false")) }}}}
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{{{ .Release.Name }}}}{suffix}
  namespace: {{{{ .Release.Namespace }}}}
spec:
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{{{ .Release.Name }}}}
      app.kubernetes.io/component: daemon{suffix}
  template:
    metadata:
      labels:
        app.kubernetes.io/instance: {{{{ .Release.Name }}}}
        app.kubernetes.io/component: daemon{suffix}
    spec:
      {{{{- with $placement.nodeSelector }}}}
      nodeSelector: {{{{- toYaml . | nindent 8 }}}}
      {{{{- end }}}}
      {{{{- with $placement.tolerations }}}}
      tolerations: {{{{- toYaml . | nindent 8 }}}}
      {{{{- end }}}}
      {{{{- with $placement.affinity }}}}
      affinity: {{{{- toYaml . | nindent 8 }}}}
      {{{{- end }}}}
      containers:
        - name: daemon
          image: registry.k8s.io/pause:3.10
          {{{{- with $placement.resources }}}}
          resources: {{{{- toYaml . | nindent 12 }}}}
          {{{{- end }}}}
{{{{- end }}}}
"""


def _placements(chart: str) -> list[tuple[str, ...]]:
    return list(dict.fromkeys(path for name, path in [*DEVICE_PLUGINS.values(), *DRIVERS.values()] if name == chart))


def write_chart(release: PlannedRelease, version: str, directory: Path) -> Path:
    """A stand-in of ``release``'s chart at ``version`` (its name as the chart's last path part)."""
    name = release.chart.rsplit("/", 1)[-1]
    chart = directory / f"{name}-{version}"
    if chart.exists():
        return chart
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(yaml.safe_dump({
        "apiVersion": "v2", "name": name, "version": version,
        "description": f"stand-in for {release.chart} {version} (tests/support/helm_releases.py)"}))
    (chart / "templates" / "values.yaml").write_text(VALUES_TEMPLATE)
    for index, path in enumerate(_placements(release.chart)):
        switch = ENABLED_AT.get(release.chart, path)
        (chart / "templates" / f"daemonset-{index}.yaml").write_text(DAEMONSET_TEMPLATE.format(
            path="".join(f".{key}" for key in path), switch="".join(f".{key}" for key in switch),
            suffix=f"-{'-'.join(path).lower()}" if path else ""))
    return chart


def _project(directory: Path) -> Path:
    (directory / "program").mkdir(parents=True, exist_ok=True)
    (directory / "Pulumi.yaml").write_text(yaml.safe_dump({"name": PROJECT, "runtime": "python", "main": "program"}))
    (directory / "program" / "__main__.py").write_text(PROGRAM)
    (directory / f"Pulumi.{STACK}.yaml").write_text(yaml.safe_dump({"config": {}}))
    return directory


class Releases:
    """The releases of one Pulumi stack on the rehearsal's API server; ``up`` installs or upgrades them."""

    def __init__(self, kubeconfig: Path, directory: Path, progress: Any = print):
        self.kubeconfig, self.directory, self.progress = kubeconfig, directory, progress
        self.project = find_project(_project(directory / "project"))
        self.engine = Engine.built(automatic_logs=False)

    def _run(self, action: str, releases: list[dict[str, Any]]) -> Outcome:
        config = {f"{PROJECT}:kubeconfig": str(self.kubeconfig), f"{PROJECT}:releases": json.dumps(releases)}
        return run(self.project, STACK, action, engine=self.engine, state=self.directory / "state",  # type: ignore[arg-type]
                   config=config, progress=self.progress)

    def up(self, planned: list[PlannedRelease], versions: Mapping[str, str] | None = None,
           values: Mapping[str, Mapping[str, Any]] | None = None) -> Outcome:
        """Install or upgrade each of ``planned`` from a stand-in at its pinned version with the plan's values, or at
        ``versions``' and with ``values``' top-level keys over the plan's for the releases they name (by resource
        name)."""
        releases = []
        for release in planned:
            version = (versions or {}).get(release.resource, release.version)
            chart = write_chart(release, version, self.directory / "charts")
            releases.append({"resource": release.resource, "name": release.name, "chart": str(chart),
                             "version": version, "namespace": release.namespace,
                             "values": {**release.values, **(values or {}).get(release.resource, {})}})
        return self._run("up", releases)

    def destroy(self) -> Outcome:
        return self._run("destroy", [])


@contextmanager
def installed(kubeconfig: Path, directory: Path, planned: list[PlannedRelease],
              progress: Any = print) -> Iterator[Releases]:
    """``planned`` installed at their pins by Helm, and uninstalled again on the way out."""
    releases = Releases(kubeconfig, directory, progress)
    try:
        releases.up(planned)
        yield releases
    finally:
        releases.destroy()
