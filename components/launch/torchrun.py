"""The command a torch job runs on every node, read as torchrun reads it and refused, before anything is
rendered, when it cannot run.

One convention for every launcher that runs torch (PyTorchJob, HyperPod's PyTorchJob, a TrainJob on a GPU
group, the HyperPod Slurm sbatch script): the command is what each node runs, word for word, and it starts
torchrun itself: ``torchrun [options] train.py [args]`` or ``torchrun [options] -m package.module [args]``
(``python -m torch.distributed.run`` is torchrun too). How many nodes and processes there are and where the
nodes meet reach torchrun through its ``PET_*`` variables, the defaults of its options
(pytorch/pytorch torch/distributed/argparse_util.py @0734fe09, ``env``): the training operator sets them in
each pod (kubeflow/training-operator v1.8.1 pkg/controller.v1/pytorch/envvar.go, elastic.go), Trainer v2 in
each node's container (kubeflow/trainer v2.3.0 pkg/runtime/framework/plugins/torch/torch.go, which changes a
TrainJob's command only for torchtune; its examples/yaml/01-multi-node.yaml runs ``torchrun`` itself), and
the sbatch script exports them before srun. Why: docs/adr/0015-one-launch-command.md

A command that does not start torchrun itself (``bash run.sh``, ``/bin/sh -c ...``) is run as given: what it
starts cannot be read here. Refused, with the fix:

* no command; a first word that is an option or a Python file (torchrun runs the file; the command is
  what runs it);
* ``python ...`` that is not ``python -m torch.distributed.run``: one process per node, and nothing gives it
  the rank torchrun would (the variables above are torchrun's);
* a torchrun command that torchrun's parser refuses (an option it does not have, an ambiguous abbreviation,
  a missing value, no script) or that starts a second torchrun (``torchrun torchrun ...``), or that runs a
  file named ``python`` (``torchrun python train.py``; ``--no-python`` runs it as a program);
* options the launcher decides (``--nnodes`` other than the job's, and on GPUs ``--nproc-per-node`` other than
  one per GPU; the rendezvous options, which would send the nodes to meet elsewhere than where the launcher
  tells them);
* a word with a NUL character, which no process argument can hold.

torchrun's options are those of ``get_args_parser`` in pytorch/pytorch torch/distributed/run.py @010929fd,
read as Python's argparse reads them (abbreviations of long options, ``--name=value``, short options run
together, ``--`` before the script); an option of a later torch is refused until it is added here.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Optional

from ..boundary import cut
from .placement import LaunchError

VALUE_OPTIONS = ("nnodes", "nproc-per-node", "rdzv-backend", "rdzv-endpoint", "rdzv-id", "rdzv-conf", "max-restarts",
                 "monitor-interval", "start-method", "event-log-handler", "role", "log-dir", "redirects", "tee",
                 "local-ranks-filter", "node-rank", "master-addr", "master-port", "local-addr", "logs-specs",
                 "numa-binding", "signals-to-handle")
"""torchrun's options that take a value; each is spelt ``--a-b`` and ``--a_b``."""
FLAGS = ("standalone", "module", "no-python", "run-path")
SHORT = {"m": "module", "r": "redirects", "t": "tee"}
LAUNCH_FLAGS = ("use-env",)
"""``python -m torch.distributed.launch``, torchrun's deprecated predecessor, adds ``--use-env`` (launch.py)."""
MODULES = ("torch.distributed.run", "torch.distributed.launch")
"""The modules ``python -m`` starts torchrun as."""

MEETING = ("rdzv-backend", "rdzv-endpoint", "rdzv-id", "standalone", "node-rank", "master-addr", "master-port")
"""Where and as which node torchrun meets the others: the launcher's to decide."""
COUNTED = ("gpu", "auto")
"""``--nproc-per-node`` values torchrun counts on the node: every GPU the process sees (run.py
``determine_local_world_size``)."""

PYTHON = re.compile(r"python(\d+(\.\d+)*)?")
_PYTHON_FLAGS = set("bBdEhiIOPqsSuvVxR")
"""CPython's options that take no value (``python --help``); ``-W`` and ``-X`` take one."""
EXAMPLE = "torchrun train.py"
_NEGATIVE = re.compile(r"-\d+|-\d*\.\d+")
"""argparse's negative number (``_negative_number_matcher``): a value, never an option, here."""


@dataclass(frozen=True)
class TorchJob:
    """What the launcher tells torchrun: the nodes (a range when elastic) and processes per node."""
    min_nodes: int
    max_nodes: int
    procs_per_node: Optional[int]
    """One per GPU the job has on each node; None on Neuron, where a process per NeuronCore or per device is the
    script's choice, so ``--nproc-per-node`` is not judged."""
    counted: bool = False
    """``--nproc-per-node gpu`` or ``auto`` count ``procs_per_node``: the job has every GPU of the node, on
    Kubernetes (a pod sees the GPUs it asked for) and under Slurm (an exclusive node shows all of its GPUs) alike."""


@dataclass(frozen=True)
class Torchrun:
    """A torchrun command line as torchrun's parser reads it."""
    options: tuple[tuple[str, str], ...]
    """(option, value) in order, each option by its long name with dashes; a flag's value is ``""``."""
    program: str
    """The training script or, with ``-m``, the module."""
    arguments: tuple[str, ...]

    def has(self, option: str) -> bool:
        return any(name == option for name, _ in self.options)


def check_torch_command(command: Sequence[str], job: TorchJob) -> None:
    """Refuse ``command`` if the nodes could not run it as the launcher renders it (see the module's list)."""
    words = list(command)
    shown = repr(cut(shlex.join(words)))
    if not words:
        raise LaunchError("command (none): a torch job needs the command each node runs. Fix: pass it after --, "
                          f"e.g. -- {EXAMPLE}.")
    if any("\0" in word for word in words):
        raise LaunchError(f"command {shown}: a NUL character cannot be part of a process argument. Fix: remove it.")
    first = os.path.basename(words[0])
    if words[0].startswith("-"):
        raise LaunchError(f"command {shown}: a command begins with the program to run, not an option. Fix: put "
                          f"torchrun first, e.g. -- torchrun {shlex.join(words)}.")
    if first.endswith(".py"):
        raise LaunchError(f"command {shown}: a Python file is what torchrun runs, not a command. Fix: -- torchrun "
                          f"{shlex.join(words)}.")
    if PYTHON.fullmatch(first):
        rest = _torchrun_module_words(words[1:])
        if rest is None:
            raise LaunchError(
                f"command {shown}: {first} starts one process on each node, and nothing gives it a rank: the "
                "launcher sets torchrun's PET_* variables, and torchrun starts one process per device with its rank. "
                f"Fix: start it with torchrun, e.g. -- torchrun {_without_interpreter(words[1:])}.")
        parsed = read_torchrun(rest, launch=_module_of(words[1:]) == MODULES[1], shown=shown)
    elif first == "torchrun":
        parsed = read_torchrun(words[1:], launch=False, shown=shown)
    else:
        return
    _check_program(parsed, shown)
    _check_launchers_options(parsed, job, shown)


def read_torchrun(words: Sequence[str], *, launch: bool = False, shown: str = "") -> Torchrun:
    """torchrun's options, script (or module) and the script's arguments, as its argparse parser reads ``words``
    (what follows ``torchrun``); a LaunchError where that parser would stop with an error."""
    longs = _long_spellings(launch)
    options: list[tuple[str, str]] = []
    at = 0
    while at < len(words):
        word = words[at]
        if word == "--":  # what follows is the script
            at += 1
            break
        if not _is_option(word, longs):
            break
        at += 1
        if word.startswith("--"):
            spelt, equals, value = word.partition("=")
            name = _long_option(spelt, longs, shown)
            if name in FLAGS or name in LAUNCH_FLAGS:
                if equals:
                    raise LaunchError(f"command {shown}: torchrun's {spelt} takes no value ('{cut(word)}'). "
                                      f"Fix: write {spelt} alone.")
                options.append((name, ""))
                continue
            if not equals:
                value, at = _value(words, at, spelt, longs, shown)
            options.append((name, value))
            continue
        at = _short_options(word, words, at, options, longs, shown)
    if at >= len(words):
        raise LaunchError(f"command {shown}: torchrun needs the script to run after its options. Fix: name it, e.g. "
                          f"-- {EXAMPLE}.")
    return Torchrun(tuple(options), words[at], tuple(words[at + 1:]))


def _short_options(word: str, words: Sequence[str], at: int, options: list[tuple[str, str]], longs: dict[str, str],
                   shown: str) -> int:
    """``-m``, ``-r VALUE``, ``-t VALUE`` and their run-together forms (``-r3``, ``-mr3``), as argparse reads them."""
    letters = word[1:]
    for index, letter in enumerate(letters):
        name = SHORT.get(letter)
        if name is None:
            raise LaunchError(f"command {shown}: torchrun has no option -{letter} (in '{cut(word)}'); its short "
                              "options are -m, -r and -t. Fix: drop it, or spell the option out.")
        if name in FLAGS:
            options.append((name, ""))
            continue
        attached = letters[index + 1:]
        if index == 0:  # `-r=3`: argparse splits at '=' only where the word's first letter is the option
            attached = attached.removeprefix("=")
        if attached:
            options.append((name, attached))
            return at
        value, at = _value(words, at, f"-{letter}", longs, shown)
        options.append((name, value))
        return at
    return at


def _value(words: Sequence[str], at: int, spelt: str, longs: dict[str, str], shown: str) -> tuple[str, int]:
    """The word after an option that takes a value; argparse refuses one that is an option string or '--'."""
    if at >= len(words) or words[at] == "--" or _is_option(words[at], longs):
        raise LaunchError(f"command {shown}: torchrun's {spelt} needs a value. Fix: give one, as {spelt}=VALUE.")
    return words[at], at + 1



def _is_option(word: str, longs: dict[str, str]) -> bool:
    """Whether argparse reads ``word`` as an option string (Lib/argparse.py ``_parse_optional``): it begins with '-'
    and is not '-' alone; it names an option (exactly, before an '=', as an abbreviation, or by a short option's
    letter), or else is neither a negative number (torchrun has no option that looks like one) nor holds a space."""
    if not word.startswith("-") or word == "-":
        return False
    if word.startswith("--"):
        before = word.partition("=")[0]
        if any(spelling.startswith(before) for spelling in longs):
            return True
    elif word[1] in SHORT:
        return True
    return not _NEGATIVE.fullmatch(word) and " " not in word


def _long_spellings(launch: bool) -> dict[str, str]:
    """Every ``--spelling`` torchrun accepts, to its option's name."""
    names = VALUE_OPTIONS + FLAGS + (LAUNCH_FLAGS if launch else ())
    return {f"--{spelling}": name for name in names for spelling in (name, name.replace("-", "_"))}


def _long_option(spelt: str, longs: dict[str, str], shown: str) -> str:
    """The option ``spelt`` names: exactly, or as the one option it abbreviates (argparse's ``allow_abbrev``)."""
    if spelt in longs:
        return longs[spelt]
    meant = sorted({name for spelling, name in longs.items() if spelling.startswith(spelt)})
    if len(meant) == 1:
        return meant[0]
    if meant:
        raise LaunchError(f"command {shown}: torchrun's {cut(spelt)} could be any of --{', --'.join(meant)}. Fix: "
                          "spell the option out.")
    raise LaunchError(f"command {shown}: torchrun has no option {cut(spelt)} (pytorch torch/distributed/run.py), so "
                      "it would stop before starting anything. Fix: drop it, or pass it to the script after the "
                      "script's name.")


def _check_program(parsed: Torchrun, shown: str) -> None:
    """What torchrun starts must not be torchrun again, nor a file named python."""
    module, no_python = parsed.has("module"), parsed.has("no-python")
    again = (parsed.program in MODULES if module else
             _starts_torchrun([parsed.program, *parsed.arguments]) if no_python else
             os.path.basename(parsed.program) == "torchrun")
    if again:
        raise LaunchError(f"command {shown}: torchrun would start torchrun on every process it starts. Fix: name "
                          f"torchrun once, e.g. -- {EXAMPLE}.")
    if not module and not no_python and PYTHON.fullmatch(os.path.basename(parsed.program)):
        raise LaunchError(f"command {shown}: torchrun runs its script with Python itself, so it would run a file "
                          f"named {parsed.program}. Fix: -- torchrun {shlex.join(parsed.arguments) or 'train.py'} "
                          "(or --no-python to start a program).")


def _check_launchers_options(parsed: Torchrun, job: TorchJob, shown: str) -> None:
    """Options the launcher decides may say what it decided, no more."""
    for name, value in parsed.options:
        if name in MEETING:
            raise LaunchError(f"command {shown}: --{name} would send the nodes to meet elsewhere than where the "
                              "launcher tells torchrun to (its PET_* variables). Fix: drop it.")
        if name == "nnodes" and _node_range(value) != (job.min_nodes, job.max_nodes):
            asked = str(job.max_nodes) if job.min_nodes == job.max_nodes else f"{job.min_nodes}:{job.max_nodes}"
            raise LaunchError(f"command {shown}: --nnodes {cut(value)} is not the job's {asked} nodes. Fix: drop it "
                              "(the launcher sets it from --nodes and --min-nodes).")
        if name == "nproc-per-node" and job.procs_per_node is not None and not (
                value == str(job.procs_per_node) or (value in COUNTED and job.counted)):
            counted = " or gpu" if job.counted else ""
            raise LaunchError(f"command {shown}: --nproc-per-node {cut(value)} is not the job's "
                              f"{job.procs_per_node}{counted} processes per node, one per GPU it has. Fix: drop "
                              "it (the launcher sets it from --per-node).")


def _node_range(value: str) -> tuple[int, int] | None:
    """``N`` or ``MIN:MAX``, as torchrun reads ``--nnodes`` (run.py ``parse_min_max_nnodes``)."""
    parts = value.split(":")
    if len(parts) > 2 or not all(part.strip().isdigit() for part in parts):
        return None
    return int(parts[0]), int(parts[-1])


def _python_words(words: Sequence[str]) -> tuple[list[str], list[str]]:
    """A Python command's interpreter options, and the words from its script, ``-m`` or ``-c`` on."""
    at = 0
    while at < len(words):
        word = words[at]
        if word.startswith("-") and len(word) > 1 and set(word[1:]) <= _PYTHON_FLAGS:
            at += 1
        elif word in ("-W", "-X"):
            at += 2
        elif word[:2] in ("-W", "-X"):
            at += 1
        else:
            break
    return list(words[:at]), list(words[at:])


def _module_of(words: Sequence[str]) -> str | None:
    """The module ``python <words>`` runs with ``-m``, if any."""
    _, rest = _python_words(words)
    if rest[:1] == ["-m"] and len(rest) > 1:
        return rest[1]
    return rest[0][2:] if rest[:1] and rest[0].startswith("-m") and len(rest[0]) > 2 else None


def _torchrun_module_words(words: Sequence[str]) -> list[str] | None:
    """What follows ``-m torch.distributed.run`` (torchrun's words) when ``python <words>`` starts torchrun."""
    if _module_of(words) not in MODULES:
        return None
    _, rest = _python_words(words)
    return rest[2:] if rest[0] == "-m" else rest[1:]


def _starts_torchrun(words: Sequence[str]) -> bool:
    first = os.path.basename(words[0]) if words else ""
    return first == "torchrun" or (bool(PYTHON.fullmatch(first)) and _module_of(words[1:]) in MODULES)


def _without_interpreter(words: Sequence[str]) -> str:
    """The fix's words: what the interpreter ran, without its options (``-m module`` stays)."""
    _, rest = _python_words(words)
    return shlex.join(rest) if rest and rest[0] != "-c" else "train.py"
