"""Kubernetes as trainstack talks to it: the REST client by discovery (``client``), a kubeconfig read
into it (``kubeconfig``), resource quantities (``quantity``). Stands on nothing of trainstack but the
file boundary, so the rehearsal, the preflight and the controller models can all use it."""
