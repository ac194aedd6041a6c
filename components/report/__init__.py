"""The plan report: one self-contained HTML page with the resource graph, the deploy timeline and the cost.

    from trainstack.report import render_report
    html = render_report(record, base=None)   # records as `trainstack plan --json` writes them
"""

from .page import REPORT_FORMAT_VERSION, ReportError, render_report

__all__ = ["REPORT_FORMAT_VERSION", "ReportError", "render_report"]
