"""Teams as tenants: what one team of a shared cluster reaches, and the fences around it.
Why: docs/adr/0016-teams-as-tenants.md

    model.py       Tenant: each team's namespace, members, Kubernetes group, service account, data and quotas,
                   derived from the stack's config (the one source the components, the plan and the launchers read)
    rbac.py        the team's Role and RoleBinding (its members' group), the cluster-wide queue viewer
    isolation.py   the namespace's Pod Security labels, NetworkPolicy, ResourceQuota and LimitRange
    data.py        the team's Pod Identity policy: its checkpoint prefix, the datasets it is given
    admission.py   the ValidatingAdmissionPolicy refusing a member's job that names no Kueue queue
    teams.py       Teams: the component that makes all of it, and each member's EKS access entry
"""

from .model import Tenant, tenants

__all__ = ["Tenant", "tenants"]
