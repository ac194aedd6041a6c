"""Stand-in Helm charts for the engine's deploy tests, which cannot reach any chart repository.

Each chart a stack's plan installs gets a chart of the same name and version in a directory, which
the stack then takes its charts from (``helmCharts.directory``, the route an air-gapped cluster uses).
What a stand-in renders is not the upstream chart's: one ConfigMap holding the values trainstack gave
the release (so a change of values is a change the engine must see, and a release that does not
change must not show one), and, in ``crds/``, the upstream CRDs of the operators that tests/data/crds
carries at the pinned versions (Kueue, Trainer, Karpenter), so that the custom resources trainstack
makes beside the release are served. The upstream charts' workloads (controllers, webhooks, device
plugin DaemonSets) are the rehearsal's business (tests/rehearsal runs those controllers).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml
from trainstack.names import HELM_RELEASE
from trainstack.plan import Plan

CRDS = Path(__file__).resolve().parents[1] / "data" / "crds"
# The CRDs each stand-in carries: the operators whose custom resources trainstack creates itself.
UPSTREAM_CRDS = {"kueue": "kueue-v0.19.2", "kubeflow-trainer": "trainer-v2.3.0", "karpenter": "karpenter-v1.14.1"}

VALUES_TEMPLATE = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-values
  namespace: {{ .Release.Namespace }}
  labels:
    trainstack.test/stand-in-chart: {{ .Chart.Name }}
data:
  values.yaml: |
{{ toYaml .Values | indent 4 }}
"""


def stand_in_charts(plan: Plan, directory: Path) -> list[str]:
    """Write a stand-in for every chart ``plan`` installs into ``directory``; return ``name-version`` of each."""
    written = []
    for release in plan.resources:
        if release.type != HELM_RELEASE:
            continue
        name = str(release.inputs["chart"]).rsplit("/", 1)[-1]
        version = str(release.inputs["version"])
        chart = directory / name
        if chart.exists():
            continue
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text(yaml.safe_dump({
            "apiVersion": "v2", "name": name, "version": version,
            "description": f"stand-in for {release.inputs['chart']} {version} (tests/support/stand_in_charts.py)"}))
        (chart / "templates" / "values.yaml").write_text(VALUES_TEMPLATE)
        if name in UPSTREAM_CRDS:
            (chart / "crds").mkdir()
            for crd in sorted((CRDS / UPSTREAM_CRDS[name]).glob("*.yaml")):
                shutil.copy(crd, chart / "crds" / crd.name)
        written.append(f"{name}-{version}")
    return written
