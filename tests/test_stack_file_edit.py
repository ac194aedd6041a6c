"""A stack file changed in place (trainstack.stack_file_edit): the lines of the keys that change are rewritten and no
other. A comment on a changed key's line stays; a key that is absent is added at the end of its mapping, indented as
its siblings; a removed key takes its own lines only; a value keeps its quotes; and whatever value is written, the
stack-file reader reads it back as that value (a Kubernetes version "1.30" stays a string)."""

import copy
import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from trainstack.boundary import dump_yaml, parse_yaml
from trainstack.plan import Project, load_stack
from trainstack.stack_file_edit import NotEditable, edited

STACK = """\
# yaml-language-server: $schema=stack.schema.json
# A small cluster.
config:
  trainstack:region: us-east-1
  trainstack:eks:
    version: "1.33"  # the Neuron scheduler's minor: move them together
    adminPrincipals:
      - arn:aws:iam::123456789012:role/admin  # the platform team
  # The GPU groups.
  trainstack:nodeGroups:
    - name: gpu
      instanceType: g5.2xlarge
"""


def change(text, edit):
    before = parse_yaml(text)
    after = copy.deepcopy(before)
    edit(after["config"])
    return edited(text, before, after, "stack file Pulumi.test.yaml")


def eks(**keys):
    return lambda config: config["trainstack:eks"].update(keys)


def read(text, tmp_path):
    """The config as the stack-file reader hands it to the program."""
    directory = tmp_path / str(len(list(tmp_path.iterdir())))
    directory.mkdir()
    (directory / "Pulumi.test.yaml").write_text(text)
    return load_stack(Project(root=directory, name="trainstack", main=directory, stack_config_dir=directory),
                      "test").config


def test_a_comment_on_the_line_of_a_changed_key_stays():
    result = change(STACK, eks(version="1.34"))
    assert result == STACK.replace('version: "1.33"  # the Neuron', 'version: "1.34"  # the Neuron')


def test_a_comment_on_the_line_of_a_key_whose_block_value_is_rewritten_stays():
    text = STACK.replace("    adminPrincipals:\n", "    adminPrincipals:  # who administers it\n")
    result = change(text, eks(adminPrincipals=["arn:aws:iam::123456789012:role/ops"]))
    assert result == text.replace("    adminPrincipals:  # who administers it\n"
                                  "      - arn:aws:iam::123456789012:role/admin  # the platform team\n",
                                  "    adminPrincipals: ['arn:aws:iam::123456789012:role/ops']  # who administers it\n")


def test_a_key_that_is_absent_is_added_at_the_end_of_its_mapping_indented_as_its_siblings():
    result = change(STACK, eks(upgrade={"fromVersion": "1.33", "held": ["charts", "nodeGroups"]}))
    assert result == STACK.replace("  # The GPU groups.\n", """\
    upgrade:
      fromVersion: "1.33"
      held: [charts, nodeGroups]
  # The GPU groups.
""")


def test_a_key_added_to_a_mapping_whose_last_value_is_a_list_of_mappings_goes_after_the_lists_last_line():
    result = change(STACK + "  # trailing notes\n", lambda config: config.update({"trainstack:profile": "dev"}))
    assert result == STACK + "  trainstack:profile: dev\n  # trailing notes\n"


def test_a_removed_key_takes_its_own_lines_and_leaves_the_comment_above_it():
    result = change(STACK, lambda config: config.pop("trainstack:nodeGroups"))
    assert result == STACK.removesuffix("    - name: gpu\n      instanceType: g5.2xlarge\n").replace(
        "  trainstack:nodeGroups:\n", "")
    assert "  # The GPU groups.\n" in result


@pytest.mark.parametrize(("written", "expected", "others"), [('"1.33"', '"1.34"', "'"), ("'1.33'", "'1.34'", '"')])
def test_a_changed_value_keeps_its_quotes_where_the_rest_of_the_file_quotes_otherwise(written, expected, others):
    text = STACK.replace('"1.33"', written)
    for value in ("us-east-1", "g5.2xlarge"):
        text = text.replace(f" {value}\n", f" {others}{value}{others}\n")
    assert change(text, eks(version="1.34")) == text.replace(written, expected)


def test_a_kubernetes_version_is_written_quoted_and_read_back_as_a_string(tmp_path):
    without = STACK.replace('    version: "1.33"  # the Neuron scheduler\'s minor: move them together\n', "")
    added = change(without, eks(version="1.30"))
    changed = change(STACK.replace('"1.33"', "v1"), eks(version="1.30"))
    # Neither file quotes a value any more, so the new one takes PyYAML's quotes.
    assert "    version: '1.30'\n" in added and "    version: '1.30'  # the Neuron" in changed
    for text in (added, changed):
        assert json.loads(read(text, tmp_path)["trainstack:eks"])["version"] == "1.30"


VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(), lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=6)


@given(value=VALUES)
@example(value={"\x85": None})  # PyYAML writes a NEL (a YAML 1.1 line break) unescaped in single quotes
@example(value="two\nlines")
def test_any_value_written_is_read_back_by_the_stack_file_reader_as_that_value(tmp_path_factory, value):
    directory = tmp_path_factory.mktemp("read")
    # A scalar replaced, a key added, a block list replaced, and the last value of the file (a list of mappings).
    top_level = [] if value is None else [lambda config: config.update({"trainstack:nodeGroups": value})]
    # (A top-level key with no value is refused by the reader itself: the engine passes it as "", plan/project.py.)
    for edit in (eks(version=value), eks(added=value), eks(adminPrincipals=value), *top_level):
        result = change(STACK, edit)
        after = parse_yaml(STACK)
        edit(after["config"])
        assert read(result, directory) == read(dump_yaml(after, sort_keys=False), directory)


def test_a_value_written_once_and_aliased_elsewhere_is_refused_not_changed_everywhere():
    text = 'config:\n  trainstack:eks: &cluster\n    version: "1.33"\n  other:eks: *cluster\n'
    with pytest.raises(NotEditable, match=r"trainstack:eks is an aliased value .* write it out"):
        change(text, lambda config: config.update({"trainstack:eks": {"version": "1.34"}}))


def test_a_file_with_windows_line_ends_keeps_them():
    text = STACK.replace("\n", "\r\n")
    result = change(text, eks(upgrade={"fromVersion": "1.33", "held": ["charts"]}))
    assert result.count("\r\n") == text.count("\r\n") + 3 and "\n" not in result.replace("\r\n", "")
