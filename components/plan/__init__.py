"""The offline plan: run a Pulumi program under mocks and record what it registers."""

from .engine import SECRET_MARK, UNKNOWN_MARK, run_plan, run_program
from .project import Project, ProjectError, StackSettings, find_project, load_stack
from .record import PLAN_FORMAT_VERSION, Plan, ResourceOptions, ResourceRecord
from .render import render_json, render_text
from .sections import SavedSection, Section, Sections

__all__ = [
    "PLAN_FORMAT_VERSION", "Plan", "Project", "ProjectError", "ResourceOptions", "ResourceRecord",
    "SECRET_MARK", "SavedSection", "Section", "Sections", "StackSettings", "UNKNOWN_MARK", "find_project",
    "load_stack", "render_json", "render_text", "run_plan", "run_program",
]
