"""A job kept inside one UltraServer: the pod affinity that puts every pod of the job on nodes of one unit.

Inside a unit the job's collectives run over the accelerator fabric (NVLink across a GB200 UltraServer,
NeuronLink-v3 across a Trn2 one); across units they leave it for EFA. The label that names a node's unit, and who
sets it, are the catalog's (catalog/ultraservers.py, with sources). As AWS's examples do (the EKS P6e-GB200 page's
nvbandwidth MPIJob; the Neuron docs' UltraServer MPIJobs), a job that fits one unit gets a required pod affinity
on that label, and a larger one a preferred one (weight 100), which packs it into as few units as the scheduler
finds. Which unit size was bought is not in the outputs, so "fits" means fits the smallest unit the type is sold in.

The pods select each other by ``names.JOB_POD_LABEL``, which the launcher sets on the job's pod templates
(the job operators' own pod labels differ by operator and version).
"""

from __future__ import annotations

from typing import Any

from ..catalog.ultraservers import smallest_unit, unit_label
from ..names import JOB_POD_LABEL

PREFERRED_WEIGHT = 100


def unit_affinity(instance_type: str, nodes: int, job: str, hyperpod: bool = False) -> dict[str, Any]:
    """``{"podAffinity": ...}`` keeping the job's ``nodes`` pods in one UltraServer; ``{}`` for a type sold alone
    or one whose unit label no source gives."""
    unit, label = smallest_unit(instance_type), unit_label(instance_type, hyperpod)
    if unit is None or label is None:
        return {}
    term = {"labelSelector": {"matchLabels": {JOB_POD_LABEL: job}}, "topologyKey": label.key}
    if nodes <= unit.instances:
        return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": PREFERRED_WEIGHT, "podAffinityTerm": term}]}}


def keep_in_unit(template: dict[str, Any], instance_type: str, nodes: int, job: str,
                 hyperpod: bool = False) -> dict[str, Any]:
    """The pod ``template`` with the job's label and the unit affinity added (unchanged for a type sold alone)."""
    affinity = unit_affinity(instance_type, nodes, job, hyperpod)
    if not affinity:
        return template
    metadata = template.get("metadata") or {}
    spec = template["spec"]
    return {**template, "metadata": {**metadata, "labels": {**(metadata.get("labels") or {}), JOB_POD_LABEL: job}},
            "spec": {**spec, "affinity": {**(spec.get("affinity") or {}), **affinity}}}
