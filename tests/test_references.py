"""Every reference in the repository resolves inside it: a path the code, the tests or the docs
cite (``docs/...``, ``tests/data/...``, ``components/...``, a Markdown link) names a file or
folder that is here, and nothing cites documents that live outside the repository (the
research notes it was built from, a design document). A fact is cited by its primary source
(the upstream file at a tag, the AWS page), which a reader can open."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SELF_CHECKS = (Path(__file__).resolve().relative_to(ROOT).as_posix(), "tests/test_adr_pointers.py")
SCANNED = ("components", "tests", "docs", "README.md", "CONTRIBUTING.md")
OUR_FOLDERS = ("docs", "tests", "components", "stacks", "bench", "engines", "policies", ".ci")
# A path of ours starts a word (not inside a URL or another path) and may hold placeholders
# (<stack>, *), which make it a pattern rather than a reference.
PATH = re.compile(r"(?<![\w./:@<-])((?:" + "|".join(re.escape(f) for f in OUR_FOLDERS) + r")/[\w./<>*-]*[\w/>*])")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
OUTSIDE = ("shared/research", "DESIGN.md", "../shared")
UPSTREAM = {
    # Paths cited inside another project's repository, with the project the citing line names.
    ("components/config/ip_budget.py", "docs/eni-and-ip-target.md"): "aws/amazon-vpc-cni-k8s",
    ("components/config/vpc_cni.py", "docs/eni-and-ip-target.md"): "aws/amazon-vpc-cni-k8s",
    ("tests/config/test_ip_budget.py", "docs/eni-and-ip-target.md"): "aws/amazon-vpc-cni-k8s",
    ("docs/adr/0004-vpc-cni-ip-targets.md", "docs/eni-and-ip-target.md"): "aws/amazon-vpc-cni-k8s",
    ("components/storage/lustre_eks.py", "docs/options.md"): "kubernetes-sigs/aws-fsx-csi-driver",
    ("components/storage/s3_datasets.py", "docs/CONFIGURATION.md"): "awslabs/mountpoint-s3-csi-driver",
    ("components/storage/s3_datasets.py", "docs/CACHING.md"): "awslabs/mountpoint-s3-csi-driver",
    ("components/tenancy/data.py", "docs/CONFIGURATION.md"): "awslabs/mountpoint-s3-csi-driver",
    ("components/catalog/provider_config.py", "docs/enhanced-region-support.md"): "pulumi/pulumi-aws",
    ("tests/review/test_provider_moves.py", "docs/enhanced-region-support.md"): "pulumi/pulumi-aws",
    ("tests/catalog/test_pinned_images.py", "docs/src/data/pytorch-training-neuronx/2.8-neuronx-sdk2.26.1.yml"):
        "aws/deep-learning-containers",
}
"""Where a path of another project is cited: the citing file must name the project."""


def _scanned_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", *SCANNED], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    # This file and the ADR pointer test are left out: they hold other projects' paths, the marks
    # they look for and a made-up missing record their own check must find.
    return [ROOT / name for name in sorted(set(listed)) if (ROOT / name).is_file() and name not in SELF_CHECKS
            and (ROOT / name).suffix in (".py", ".md", ".sh", ".json", ".yaml", ".toml", ".txt", "")]


def _references(file: Path):
    """(line number, path) of each repository path ``file`` cites, placeholders left out."""
    for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
        for match in PATH.finditer(line):
            ref = match.group(1).rstrip(".")
            if not any(mark in ref for mark in "<>*"):
                yield number, ref


FILES = _scanned_files()


def test_the_scan_reads_the_code_the_tests_and_the_docs():
    names = {file.relative_to(ROOT).as_posix() for file in FILES}
    assert {"README.md", "CONTRIBUTING.md", "docs/ARCHITECTURE.md", "components/training_stack.py",
            "tests/data/README.md", "tests/data/instance_facts.json"} <= names


@pytest.mark.parametrize("file", FILES, ids=lambda f: f.relative_to(ROOT).as_posix())
def test_every_repository_path_a_file_cites_exists(file):
    name = file.relative_to(ROOT).as_posix()
    missing = []
    for number, ref in _references(file):
        upstream = UPSTREAM.get((name, ref))
        if upstream is not None:
            assert upstream.split("/")[1] in file.read_text(), f"{name} cites {ref} of {upstream} without naming it"
            continue
        if not (ROOT / ref).exists():
            missing.append(f"{name}:{number}: {ref}")
    assert not missing, "paths cited that are not in the repository:\n" + "\n".join(missing)


@pytest.mark.parametrize("file", [f for f in FILES if f.suffix == ".md"], ids=lambda f: f.relative_to(ROOT).as_posix())
def test_every_markdown_link_to_a_file_resolves(file):
    # Code is not links: the stack reference shows the models' patterns (`^[a-z]([-a-z0-9]{0,61})?$`) in code
    # spans, and the errors a wrong value gets, which quote them, in fenced blocks.
    text = re.sub(r"^```.*?^```", "", file.read_text(), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    targets = [t for t in LINK.findall(text) if not re.match(r"[a-z]+:", t)]
    assert [t for t in targets if not (file.parent / t).exists()] == []


def test_nothing_cites_documents_outside_the_repository():
    found = [f"{file.relative_to(ROOT).as_posix()}:{number}: {line.strip()[:100]}"
             for file in FILES for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1)
             if any(mark in line for mark in OUTSIDE)]
    assert found == []


def test_the_upstream_paths_are_not_ours_and_are_still_cited():
    # An entry that names a path of ours, or one no longer cited, would hide a broken reference.
    for (name, ref), upstream in UPSTREAM.items():
        assert not (ROOT / ref).exists(), f"{ref} is in this repository: cite it as ours, not {upstream}'s"
        assert ref in (ROOT / name).read_text(), f"{name} no longer cites {ref}: drop the entry"
