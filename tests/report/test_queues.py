"""The report of a stack with Kueue queues shows each team's queue, guarantee and reach."""

import re

from support.plan_records import render_report
from support.rendered_jobs import planned_record


def test_the_report_has_a_queues_section_with_the_quotas():
    page = render_report(planned_record("kueue-p5"))
    section = re.search(r'<section id="queues">.*?</section>', page, re.S).group(0)
    assert "llm: LocalQueue llm in namespace llm, cohort p5-pool" in section
    assert "p5: 6 nodes guaranteed, up to 16 (128 nvidia.com/gpu, 512 vpc.amazonaws.com/efa)" in section


def test_a_stack_without_queues_has_no_queues_section():
    assert '<section id="queues">' not in render_report(planned_record("fsdp-p5"))
