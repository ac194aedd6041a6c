"""The file boundary (trainstack.boundary): each kind of file is read or written in one
place, and what cannot be used is refused in one bounded line naming the file."""

import json

import pytest
from trainstack.boundary import (
    SHOWN_MAX,
    YAML_ALIASES_MAX,
    YAML_NODES_MAX,
    FileProblem,
    check_writable,
    cut,
    read_json_object,
    read_yaml_mapping,
    shown_path,
    write_text,
)


def one_line(problem: pytest.ExceptionInfo) -> str:
    message = str(problem.value)
    assert "\n" not in message and len(message) < 600, message
    return message


def test_a_long_value_is_shown_to_80_characters_and_the_rest_counted():
    assert cut("x" * 1000) == "x" * SHOWN_MAX + "... (920 more characters)"
    assert cut("short") == "short" and cut([1, 2]) == "[1, 2]"
    assert cut("two\nlines") == "two\\nlines"


def test_an_empty_yaml_file_is_an_empty_mapping(tmp_path):
    (tmp_path / "s.yaml").write_text("")
    assert read_yaml_mapping(tmp_path / "s.yaml", "stack file") == {}


@pytest.mark.parametrize("text, says", [
    ("- a\n- b\n", "holds a YAML list at the top; it must be a mapping"),
    ("just words\n", "holds a YAML string at the top"),
    ("config: [\n", "is not valid YAML at line 2, column 1"),
    ("a: &x [*x]\n", "a YAML alias refers to the collection that holds it"),
    ("a: " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
])
def test_a_yaml_file_that_is_not_a_mapping_is_refused_naming_the_file(tmp_path, text, says):
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text(text)
    with pytest.raises(FileProblem) as problem:
        read_yaml_mapping(path, "stack file")
    assert one_line(problem).startswith(f"stack file {path}") and says in str(problem.value)


def test_a_file_that_is_not_utf8_is_refused_with_the_byte(tmp_path):
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_bytes(b"config:\n  aws:region: caf\xe9\n")
    with pytest.raises(FileProblem) as problem:
        read_yaml_mapping(path, "stack file")
    assert one_line(problem).endswith("is not UTF-8 text (byte 25: b'\\xe9'); save it as UTF-8")


def laughs(levels: int, width: int) -> str:
    """The billion-laughs shape: each level a list of ``width`` aliases of the level below."""
    lines = ["tags:", "  l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    for level in range(1, levels + 1):
        lines.append(f"  l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def test_more_aliases_than_the_bound_are_refused_before_anything_expands(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(laughs(levels=9, width=9))  # 81 aliases, 9**10 values expanded
    with pytest.raises(FileProblem) as problem:
        read_yaml_mapping(path, "stack file")
    assert f"more than {YAML_ALIASES_MAX} YAML aliases" in one_line(problem)


def test_few_aliases_that_expand_past_the_bound_are_refused(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(laughs(levels=7, width=9))  # 63 aliases, about 5 million values expanded
    with pytest.raises(FileProblem) as problem:
        read_yaml_mapping(path, "stack file")
    assert f"expands to more than {YAML_NODES_MAX} values" in one_line(problem)


def test_a_few_ordinary_aliases_are_read_as_yaml_means_them(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text("a: &zones [us-east-1a, us-east-1b]\nb: *zones\n")
    assert read_yaml_mapping(path, "stack file") == {"a": ["us-east-1a", "us-east-1b"],
                                                     "b": ["us-east-1a", "us-east-1b"]}


@pytest.mark.parametrize("text, says", [
    ("{not json", "is not JSON at line 1, column 2"),
    ("[1, 2]", "holds a JSON list, not an object"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_a_json_file_that_is_not_an_object_is_refused_with_the_fix(tmp_path, text, says):
    path = tmp_path / "record.json"
    path.write_text(text)
    with pytest.raises(FileProblem) as problem:
        read_json_object(path, "record", "write it with `trainstack plan --json`")
    message = one_line(problem)
    assert message.startswith(f"record {path}") and says in message
    assert message.endswith("write it with `trainstack plan --json`")


def test_a_directory_or_a_missing_file_is_refused_not_raised(tmp_path):
    with pytest.raises(FileProblem, match="is a directory; give the file in it"):
        read_json_object(tmp_path, "record", "fix")
    with pytest.raises(FileProblem, match="cannot be read: No such file or directory"):
        read_json_object(tmp_path / "absent.json", "record", "fix")


def test_an_output_into_a_missing_directory_or_onto_a_directory_is_refused_before_writing(tmp_path):
    with pytest.raises(FileProblem, match=r"the directory .*/missing does not exist; create it first"):
        check_writable(tmp_path / "missing" / "diff.md", "output")
    with pytest.raises(FileProblem, match="is a directory; give a file name in it"):
        write_text(tmp_path, "text", "output")
    write_text(tmp_path / "diff.md", "text\n", "output")
    assert (tmp_path / "diff.md").read_text() == "text\n"


def test_a_long_path_is_shown_whole_in_the_one_line_so_the_file_can_be_found(tmp_path):
    path = tmp_path / ("r" * 150) / ("r" * 150) / "record.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps([1]))
    with pytest.raises(FileProblem) as problem:
        read_json_object(path, "record", "fix")
    assert one_line(problem).startswith(f"record {path} holds a JSON list")


def test_only_a_path_longer_than_any_real_one_is_cut():
    assert shown_path("/p" * 2048) == "/p" * 2048
    assert shown_path("/p" * 2100).endswith("... (104 more characters)")


def test_a_key_given_twice_in_one_mapping_is_refused_with_both_lines(tmp_path):
    # PyYAML keeps the last value silently; the Pulumi engine's reader (go-yaml v3) refuses the file.
    (tmp_path / "s.yaml").write_text("config:\n  trainstack:region: us-east-1\n  trainstack:profile: dev\n"
                                     "  trainstack:region: us-west-2\n")
    with pytest.raises(FileProblem) as problem:
        read_yaml_mapping(tmp_path / "s.yaml", "stack file")
    assert one_line(problem) == (f"stack file {tmp_path / 's.yaml'}: key 'trainstack:region' is given twice in one "
                                 "mapping (lines 2 and 4); keep one of them")


def test_a_key_given_twice_deep_inside_is_refused_too_and_a_quoted_number_is_another_key(tmp_path):
    (tmp_path / "s.yaml").write_text("a:\n  - {name: x, zone: a}\n  - name: y\n    zone: b\n    zone: c\n")
    with pytest.raises(FileProblem, match=r"key 'zone' is given twice in one mapping \(lines 4 and 5\)"):
        read_yaml_mapping(tmp_path / "s.yaml", "stack file")
    (tmp_path / "t.yaml").write_text("1: one\n'1': the string one\n")
    assert read_yaml_mapping(tmp_path / "t.yaml", "stack file") == {1: "one", "1": "the string one"}


def test_a_merge_may_be_overridden_by_the_mappings_own_keys(tmp_path):
    # YAML's merge key type: the mapping's own keys win over merged ones; that is not a duplicate.
    (tmp_path / "s.yaml").write_text("base: &base {zone: a, size: 1}\ngroup:\n  <<: *base\n  zone: b\n")
    assert read_yaml_mapping(tmp_path / "s.yaml", "stack file")["group"] == {"zone": "b", "size": 1}
