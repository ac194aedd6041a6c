"""Each shipped stack rehearsed once per test session (trainstack.rehearsal), shared by the
rehearsal tests and the models' cross-checks against the real controllers."""

from __future__ import annotations

import functools

from trainstack.plan import Plan
from trainstack.rehearsal import Rehearsal, rehearse

from support import rendered_jobs


@functools.cache
def rehearsed(stack: str) -> Rehearsal:
    return rehearse(Plan.from_dict(rendered_jobs.planned_record(stack)))
