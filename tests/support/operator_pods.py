"""The pods the controllers would create from a rendered job, for the real scheduler.

The operators are not run; each pod is the job's pod template with the names, labels and
restart policy its controller gives it:

* batch/v1 Job: ``parallelism`` pods (kubernetes pkg/controller/job: at most
  ``completions`` run at once), labelled ``batch.kubernetes.io/job-name``.
* kubeflow.org/v1 PyTorchJob: ``replicas`` pods per replica type, named
  ``<job>-<type>-<index>`` (training-operator v1.8.1, pkg/controller.v1/common/util.go ``GenGeneralName``), the
  replica spec's ``restartPolicy`` on the pod, ``ExitCode`` as ``Never``.
* kubeflow.org/v2beta1 MPIJob: the launcher (one pod, from the launcher Job the MPI
  operator creates, ``<job>-launcher``) and ``replicas`` workers named ``<job>-worker-<index>``
  (mpi-operator v0.8.0, pkg/controller/mpi_job_controller.go ``workerName``, ``setRestartPolicy``).
* trainer.kubeflow.org/v1alpha1 TrainJob on the MPI runtime: one launcher pod (the trainer step,
  with the trainer's image and command) and ``numNodes - 1`` (at least 1) node pods, all with
  the trainer's devices and environment (mpi.go ``EnforceMLPolicy`` with ``runLauncherAsNode``).
* trainer.kubeflow.org/v1alpha1 TrainJob: ``numNodes`` pods of the runtime's ``node`` Job (JobSet
  names its Job ``<jobset>-<replicatedJob>-<index>``), each the runtime's pod template with the
  job's runtime patch merged in by name (volumes, containers) and the trainer's image, command,
  resources and environment on the ``node`` container (kubeflow/trainer v2.3.0,
  pkg/runtime/framework/plugins/torch, jobset). The runtime is trainstack's own as
  ``trainstack.addons.trainer`` renders it (the one the stack creates).
"""

from __future__ import annotations

import copy
from typing import Any

REPLICA_SPECS = {"PyTorchJob": "pytorchReplicaSpecs", "MPIJob": "mpiReplicaSpecs"}


def _pod(name: str, namespace: str, labels: dict[str, str], template: dict[str, Any],
         restart_policy: str | None) -> dict[str, Any]:
    spec = copy.deepcopy(template["spec"])
    if restart_policy is not None:
        spec["restartPolicy"] = "Never" if restart_policy == "ExitCode" else restart_policy
    metadata = copy.deepcopy(template.get("metadata") or {})
    metadata.update(name=name, namespace=namespace, labels={**metadata.get("labels", {}), **labels})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def pods_of(job: dict[str, Any]) -> list[dict[str, Any]]:
    """The pods the job's controller creates for ``job`` (a rendered Kubernetes object)."""
    name = job["metadata"]["name"]
    namespace = job["metadata"].get("namespace", "default")
    kind = job["kind"]
    if kind == "Job":
        spec = job["spec"]
        count = min(spec.get("parallelism", 1), spec.get("completions", spec.get("parallelism", 1)))
        return [_pod(f"{name}-{index}", namespace, {"batch.kubernetes.io/job-name": name}, spec["template"], None)
                for index in range(count)]
    if kind == "TrainJob":
        return _trainjob_pods(job, name, namespace)
    if kind not in REPLICA_SPECS:
        raise ValueError(f"no pod model for kind {kind} (job {name})")
    pods = []
    for replica_type, replica in job["spec"][REPLICA_SPECS[kind]].items():
        for index in range(replica.get("replicas", 1)):
            pod_name = f"{name}-{replica_type.lower()}" + ("" if replica_type == "Launcher" else f"-{index}")
            labels = {"training.kubeflow.org/job-name": name,
                      "training.kubeflow.org/replica-type": replica_type.lower(),
                      "training.kubeflow.org/replica-index": str(index)}
            pods.append(_pod(pod_name, namespace, labels, replica["template"], replica.get("restartPolicy")))
    return pods


def _by_name(base: list[dict[str, Any]], patch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A strategic merge of two lists keyed by ``name`` (a patch entry updates its namesake)."""
    merged = {item["name"]: copy.deepcopy(item) for item in base}
    for item in patch:
        target = merged.setdefault(item["name"], {})
        for key, value in item.items():
            target[key] = _by_name(target.get(key, []), value) if key == "volumeMounts" else copy.deepcopy(value)
    return list(merged.values())


def _runtime(name: str) -> dict[str, Any]:
    from trainstack.addons.device_plugins import NEURON_SCHEDULER_NAME
    from trainstack.addons.trainer import CHECK_RUNTIME, MPI_RUNTIME, mpi_runtime, torch_runtime

    if name == MPI_RUNTIME:
        return mpi_runtime(NEURON_SCHEDULER_NAME, "us-east-1")  # the shipped stacks with Neuron groups
    return torch_runtime(name, restarts=0) if name == CHECK_RUNTIME else torch_runtime(name)


def _trainjob_pods(job: dict[str, Any], name: str, namespace: str) -> list[dict[str, Any]]:
    from trainstack.addons.trainer import NODE

    spec = job["spec"]
    runtime = _runtime(spec["runtimeRef"]["name"])
    trainer = spec["trainer"]
    mpi = runtime["spec"]["mlPolicy"].get("mpi")
    pods = []
    for replicated in runtime["spec"]["template"]["spec"]["replicatedJobs"]:
        template = _patched(copy.deepcopy(replicated["template"]["spec"]["template"]), replicated["name"], spec)
        ancestor = replicated["template"].get("metadata", {}).get("labels", {}).get(
            "trainer.kubeflow.org/trainjob-ancestor-step") == "trainer"
        for container in template["spec"]["containers"]:
            if container["name"] != NODE:
                continue
            # The trainer step gets the image and command; with the MPI policy's runLauncherAsNode
            # the node job gets the devices and environment too (jobset/builder.go, trainingruntime.go).
            if ancestor:
                container.update(image=trainer["image"], command=trainer["command"])
            if ancestor or mpi:
                container.update(resources=trainer["resourcesPerNode"], env=trainer.get("env", []))
        # A runtime that sets no restartPolicy gets OnFailure: the real Trainer v2.3.0 / JobSet v0.12.0 pods
        # of kueue-p5 carry it (JobSet's defaulting webhook; seen by tests/rehearsal/
        # test_models_against_controllers.py, where this stand-in said Never).
        template["spec"].setdefault("restartPolicy", "OnFailure")
        count = trainer["numNodes"]
        if mpi:  # mpi.go EnforceMLPolicy: the launcher is one pod, the node job the other nodes (1 at least)
            count = 1 if ancestor else max(trainer["numNodes"] - 1, 1)
        pods += [_pod(f"{name}-{replicated['name']}-0-{index}", namespace, {"jobset.sigs.k8s.io/jobset-name": name},
                      template, None) for index in range(count)]
    return pods


def _patched(template: dict[str, Any], job_name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The runtime's pod template with the TrainJob's runtime patches for ``job_name`` merged in."""
    pod_spec = template["spec"]
    for patch in spec.get("runtimePatches", []):
        for patched in patch["trainingRuntimeSpec"]["template"]["spec"]["replicatedJobs"]:
            if patched["name"] != job_name:
                continue
            pod = patched["template"]["spec"]["template"]
            metadata = template.setdefault("metadata", {})
            for key in ("labels", "annotations"):
                metadata[key] = {**metadata.get(key, {}), **pod.get("metadata", {}).get(key, {})}
            for key, value in pod.get("spec", {}).items():
                pod_spec[key] = _by_name(pod_spec.get(key, []), value) if key in ("volumes", "containers") else value
    return template
