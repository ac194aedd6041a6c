"""Properties over whatever a user may hand the CLI (Hypothesis, the fixed profile in
conftest.py): any stack file either plans or is refused with exit 2, and any record either
compares or is refused with exit 2; never a traceback, never an unbounded error."""

import json
from pathlib import Path

import yaml
from hypothesis import event, given
from hypothesis import strategies as st
from trainstack import cli
from trainstack.analysis import plan_stack, render_json
from trainstack.plan import find_project

REPO = Path(__file__).resolve().parent.parent
ERROR_MAX = 10_000
"""An error report may list several config issues, each value cut; never more than this."""

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=True),
                    st.text(max_size=30), st.sampled_from(["us-east-1", "us-east-1a", "p5.48xlarge", "gpu", "dev",
                                                           "10.0.0.0/16", "2026-12-01T11:30:00Z"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=12), inner, max_size=4)),
                      max_leaves=12)


def replace_somewhere(data, document, value_strategy):
    """``document`` with one value, at a path Hypothesis draws, replaced or deleted."""
    node = document
    for _ in range(6):
        keys = list(range(len(node))) if isinstance(node, list) else sorted(node) if isinstance(node, dict) else []
        if not keys:
            break
        key = data.draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, (dict, list)) and child and data.draw(st.booleans()):
            node = child
            continue
        if isinstance(node, dict) and data.draw(st.integers(0, 4)) == 0:
            del node[key]
        else:
            node[key] = data.draw(value_strategy)
        break
    return document


def outcome(capsys, argv) -> tuple[int, str]:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out
    return code, err


@given(data=st.data())
def test_any_stack_file_either_plans_or_is_refused_with_exit_2(tmp_path_factory, capsys, data):
    directory = tmp_path_factory.mktemp("stack")
    (directory / "Pulumi.yaml").write_text(f"name: trainstack\nruntime: python\nmain: {REPO / 'stacks'}\n")
    shape = data.draw(st.sampled_from(["the dev stack changed once", "any YAML value", "any text", "any bytes"]))
    if shape == "the dev stack changed once":
        document = replace_somewhere(data, yaml.safe_load((REPO / "stacks" / "Pulumi.dev.yaml").read_text()), values)
        (directory / "Pulumi.h.yaml").write_text(yaml.safe_dump(document))
    elif shape == "any YAML value":
        top = data.draw(st.one_of(values, st.fixed_dictionaries({"config": values})))
        (directory / "Pulumi.h.yaml").write_text(yaml.safe_dump(top))
    elif shape == "any text":
        (directory / "Pulumi.h.yaml").write_text(data.draw(st.text(max_size=200)))
    else:
        (directory / "Pulumi.h.yaml").write_bytes(data.draw(st.binary(max_size=200)))
    code, err = outcome(capsys, ["plan", "--cwd", str(directory), "--stack", "h"])
    event(f"{shape}: exit {code}")
    assert code in (0, 1, 2), err[:2000]
    assert code != 2 or (err.startswith("error: ") and len(err) < ERROR_MAX), err[:2000]


def json_values():
    leaves = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=False),
                       st.text(max_size=20))
    return st.recursive(leaves, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                        st.dictionaries(st.text(max_size=10), inner, max_size=3)),
                        max_leaves=8)


RECORD = None


def dev_record() -> dict:
    global RECORD
    if RECORD is None:
        RECORD = json.loads(render_json(plan_stack("dev", find_project(REPO))))
    return json.loads(json.dumps(RECORD))


@given(data=st.data())
def test_any_record_either_compares_or_is_refused_with_exit_2(tmp_path_factory, capsys, data):
    directory = tmp_path_factory.mktemp("records")
    base, head = directory / "base.json", directory / "head.json"
    base.write_text(json.dumps(dev_record()))
    head.write_text(json.dumps(replace_somewhere(data, dev_record(), json_values())))
    side = data.draw(st.sampled_from(["base", "head"]))
    argv = ["diff", str(head), str(base)] if side == "base" else ["diff", str(base), str(head)]
    code, err = outcome(capsys, [*argv, "--cwd", str(directory), "--format",
                                 data.draw(st.sampled_from(["text", "markdown", "json", "sarif"]))])
    assert code in (0, 1, 2), err[:2000]
    assert code != 2 or (err.startswith("error: ") and err.count("\n") == 1 and len(err) < 600), err[:2000]
