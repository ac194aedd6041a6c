"""`trainstack launch KIND`: the parser and the dispatch read one table, and each kind's options are its launcher's."""

import dataclasses
import inspect

import pytest
from trainstack.cli import launch as kinds
from trainstack.cli.parser import parser

REQUIRED = ["--group", "g", "--nodes", "2"]


@pytest.mark.parametrize("kind", kinds.KINDS, ids=lambda kind: kind.name)
def test_each_kind_passes_its_launcher_only_arguments_the_launcher_takes_and_every_one_it_requires(kind):
    image = ["--image", "i"] if kind.image != "none" else []
    command = ["--", "python", "train.py"] if kind.command else []
    args = parser().parse_args(["launch", kind.name, *REQUIRED, *image, *command])
    given = {}
    kinds.launched(dataclasses.replace(kind, render=lambda outputs, **kw: given.update(kw)), args, None)
    parameters = inspect.signature(kind.render).parameters
    assert set(given) <= set(parameters)
    required = {name for name, p in parameters.items() if p.default is p.empty and name != "outputs"}
    assert required <= set(given)
    if kind.command:
        assert given[kind.command] == ["python", "train.py"]


def test_the_queue_options_are_on_exactly_the_kinds_that_go_through_kueue():
    queued = {kind.name for kind in kinds.KINDS if kind.queued}
    assert queued == {"pytorchjob", "mpijob", "device-check", "all-reduce", "trainjob"}
    for kind in kinds.KINDS:
        takes_queue = "queue" in inspect.signature(kind.render).parameters
        assert takes_queue == kind.queued, kind.name


def test_the_mpi_launcher_offers_only_the_restart_policies_a_batch_job_may_have(capsys):
    with pytest.raises(SystemExit):
        parser().parse_args(["launch", "mpijob", *REQUIRED, "--image", "i", "--restart-policy", "Always"])
    assert "invalid choice: 'Always'" in capsys.readouterr().err
