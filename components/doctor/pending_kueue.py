"""Kueue's own words about a Workload it does not admit, read back into numbers: the message of its
``QuotaReserved=False`` condition, which Kueue writes from what its scheduler tried per flavor.

The pieces, each as kubernetes-sigs/kueue v0.19.2 formats it (the engine ``kueue`` is built at that tag):

* ``pkg/scheduler/flavorassigner/flavorassigner.go`` ``fitsResourceQuota``: "insufficient unused quota for R in
  flavor F, N more needed" (it may fit once quota is free) and "insufficient quota for R in flavor F, previously
  considered podsets requests (A) + current podset request (B) > maximum capacity (C)" (it never fits);
  ``Assignment.Message``: "couldn't assign flavors to pod set P: " before them; ``flavorMatches``: "untolerated
  taint {key value effect <nil>} in flavor F" (Go's %s of a ``corev1.Taint``) and "flavor F doesn't match node
  affinity";
* ``pkg/cache/scheduler/tas_flavor_snapshot.go`` ``notFitMessage``: 'topology "T" allows to fit only A out of B
  pod(s)' or "doesn't allow to fit any of B pod(s)", then ". Total nodes: N; excluded: ..." with
  ``formatReasons``' 'taint "k=v:Effect": n', 'resource "r": n', "nodeSelector: n", "affinity: n";
* ``pkg/controller/core/workload_controller.go`` ``getQueueBlocker``: "LocalQueue Q doesn't exist", "ClusterQueue Q
  is inactive" and the like.

A message nothing here reads is kept whole: doctor quotes Kueue rather than guess."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

from ..kube.quantity import quantity

_SHORT = re.compile(r"insufficient unused quota for (?P<resource>\S+) in flavor (?P<flavor>[^\s,]+), "
                    r"(?P<needed>\S+) more needed")
_NEVER = re.compile(r"insufficient quota for (?P<resource>\S+) in flavor (?P<flavor>[^\s,]+), previously considered "
                    r"podsets requests \((?P<before>[^)]*)\) \+ current podset request \((?P<request>[^)]*)\) > "
                    r"maximum capacity \((?P<maximum>[^)]*)\)")
_TOPOLOGY = re.compile(r'topology "(?P<topology>[^"]+)" (?:allows to fit only (?P<fit>\d+) out of|doesn\'t allow to '
                       r"fit any of) (?P<count>\d+) (?P<unit>pod|slice)\(s\)(?:\. Total nodes: (?P<nodes>\d+))?")
_EXCLUDED = re.compile(r'(?P<kind>taint|resource) "(?P<what>[^"]+)": (?P<count>\d+)'
                       r"|(?P<filter>nodeSelector|affinity|topologyDomain|schedulerLibraryNoFit): (?P<filtered>\d+)")
_FLAVOR_TAINT = re.compile(r"untolerated taint \{(?P<key>\S+) (?P<value>\S*) ?(?P<effect>NoSchedule|NoExecute|"
                           r"PreferNoSchedule)[^}]*\} in flavor (?P<flavor>[^\s,;]+)")
_FLAVOR_AFFINITY = re.compile(r"flavor (?P<flavor>[^\s,;]+) doesn't match node affinity")
_FLAVOR_TAS = re.compile(r'Flavor "(?P<flavor>[^"]+)" (?P<what>does not support|supports only) TopologyAwareScheduling')
_QUEUE = re.compile(r"(?P<kind>LocalQueue|ClusterQueue) (?P<name>\S*) ?(?P<state>doesn't exist|is inactive|is stopped|"
                    r"not found)")


@dataclass(frozen=True)
class Short:
    """Quota that may come free: ``needed`` more of ``resource`` in ``flavor`` than the queue can use now."""

    resource: str
    flavor: str
    needed: Fraction


@dataclass(frozen=True)
class Never:
    """A request above all the queue could ever be given (its nominal quota plus all it may borrow)."""

    resource: str
    flavor: str
    request: Fraction
    maximum: Fraction


@dataclass(frozen=True)
class NoRoom:
    """Topology-aware scheduling found room for ``fit`` of ``count`` pods (or slices) in topology ``topology``."""

    topology: str
    fit: int
    count: int
    unit: str
    nodes: int | None
    """The nodes TAS looked at, when it excluded some (its "Total nodes")."""
    excluded: dict[str, int] = field(default_factory=dict)
    """Nodes left out and why, as Kueue counts them: ``taint k=v:NoSchedule``, ``resource nvidia.com/gpu``,
    ``nodeSelector``, ``affinity``."""


@dataclass(frozen=True)
class Unmatched:
    """A flavor the pod set cannot use at all, and why: a taint of its nodes the pods do not tolerate, node labels
    they do not select, or a topology request the flavor cannot serve."""

    flavor: str
    why: str


@dataclass(frozen=True)
class QueueBlocked:
    kind: str
    name: str
    state: str


@dataclass(frozen=True)
class Pending:
    """Everything one ``QuotaReserved=False`` message says."""

    message: str
    short: tuple[Short, ...] = ()
    never: tuple[Never, ...] = ()
    no_room: tuple[NoRoom, ...] = ()
    unmatched: tuple[Unmatched, ...] = ()
    queue: QueueBlocked | None = None

    @property
    def decisive(self) -> bool:
        """It says what holds the Workload back: quota, topology or its queue (a flavor the pods cannot use at all
        says only where Kueue did not look, and Kueue's next attempt may name no other: it resumes after the flavor
        it last tried, ``pkg/scheduler/flavorassigner`` ``LastTriedFlavorIdx``)."""
        return bool(self.short or self.never or self.no_room or self.queue)


def read_pending(message: str) -> Pending:
    """The pieces of Kueue's ``QuotaReserved`` message (module docstring)."""
    short = tuple(Short(m["resource"], m["flavor"], quantity(m["needed"])) for m in _SHORT.finditer(message))
    never = tuple(Never(m["resource"], m["flavor"], quantity(m["request"]), quantity(m["maximum"]))
                  for m in _NEVER.finditer(message))
    rooms = list(_TOPOLOGY.finditer(message))
    no_room = tuple(NoRoom(m["topology"], int(m["fit"] or 0), int(m["count"]), m["unit"],
                           int(m["nodes"]) if m["nodes"] else None,
                           _excluded(message[m.end():rooms[i + 1].start() if i + 1 < len(rooms) else None]))
                    for i, m in enumerate(rooms))
    unmatched = tuple(
        [Unmatched(m["flavor"], f"its nodes' taint {m['key']}={m['value']}:{m['effect']}, which the pods do not "
                                "tolerate") for m in _FLAVOR_TAINT.finditer(message)]
        + [Unmatched(m["flavor"], "its node labels are not what the pods select")
           for m in _FLAVOR_AFFINITY.finditer(message)]
        + [Unmatched(m["flavor"], "it has no topology and the pods ask to be placed by one"
                     if m["what"] == "does not support" else "it places pods by topology only")
           for m in _FLAVOR_TAS.finditer(message)])
    queue = next((QueueBlocked(m["kind"], m["name"], m["state"]) for m in _QUEUE.finditer(message)), None)
    return Pending(message, short, never, no_room, unmatched, queue)


def _excluded(text: str) -> dict[str, int]:
    """The nodes TAS left out, by reason, from the text after its "excluded:" (up to the next topology's message)."""
    if "excluded:" not in text:
        return {}
    found: dict[str, int] = {}
    for m in _EXCLUDED.finditer(text.split("excluded:", 1)[1]):
        key = f"{m['kind']} {m['what']}" if m["kind"] else str(m["filter"])
        found[key] = found.get(key, 0) + int(m["count"] or m["filtered"])
    return found
