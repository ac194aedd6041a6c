"""How the readers trainstack's files meet type a plain scalar (trainstack.yaml_scalars), stated case by case from
go-yaml v3.0.1's resolve.go and go-yaml v2's. The real tools hold the same cases in tests/engines/
(test_kubectl_reads.py: kubectl; test_pulumi_reads_stack_files.py: the Pulumi CLI)."""

from __future__ import annotations

import json
import math

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from support.yaml_scalars import WRITTEN_STRINGS
from trainstack.boundary import dump_yaml
from trainstack.yaml_scalars import ScalarRefused, engine_json, go_float, needs_quotes, pulumi_scalar


@pytest.mark.parametrize(("text", "engine_reads"), [
    ("8", 8), ("-3", -3), ("+7", 7), ("0", 0), ("1.30", 1.3), ("1e3", 1000.0), (".5", 0.5), ("5.", 5.0),
    ("true", True), ("TRUE", True), ("False", False), ("null", None), ("~", None),
    # YAML 1.1's booleans are text to go-yaml v3, the Pulumi engine's reader: PyYAML reads True, the engine "yes".
    ("yes", "yes"), ("on", "on"), ("off", "off"), ("y", "y"), ("No", "No"),
    # YAML 1.1's base 60 is text to the engine (PyYAML: 90).
    ("1:30", "1:30"), ("p5", "p5"), ("-foo", "-foo"), ("1Gi", "1Gi"), ("1_abc", "1_abc"),
])
def test_a_plain_scalar_of_a_stack_file_is_read_as_the_pulumi_engine_reads_it(text, engine_reads):
    read = pulumi_scalar(text)
    assert read == engine_reads and type(read) is type(engine_reads)


@pytest.mark.parametrize(("text", "says"), [
    ("010", "is read as 8 by the Pulumi engine"),
    ("0o17", "is read as 15 by the Pulumi engine"),
    ("0x10", "is read as 16 by the Pulumi engine"),
    ("08", "is read as the float 8 by the Pulumi engine"),
    ("1_000", "is read as the number 1000 by the Pulumi engine and as text by YAML 1.2"),
    ("2026-12-01", "is read as a timestamp by the Pulumi engine"),
    (".inf", "not a number the Pulumi engine can pass"),
    ("99999999999999999999", "beyond a 64-bit integer"),
])
def test_a_plain_scalar_whose_engine_reading_would_surprise_is_refused_with_the_fix(text, says):
    with pytest.raises(ScalarRefused) as refused:
        pulumi_scalar(text)
    assert says in str(refused.value) and ("quote it" in str(refused.value) or "give a finite" in str(refused.value))


def test_the_engine_hands_a_mapping_with_its_keys_sorted_and_floats_as_go_writes_them():
    """pulumi/pulumi sdk/go/common/resource/config/object.go: Go's encoding/json of a map[string]any."""
    assert engine_json({"team": "a", "environment": "dev", "n": [1e3, 1.3, 1e-7, 2e21, True, None]}) == \
        '{"environment":"dev","n":[1000,1.3,1e-7,2e+21,true,null],"team":"a"}'


@pytest.mark.parametrize(("number", "go"), [
    (1000.0, "1000"), (1.3, "1.3"), (0.0001, "0.0001"), (1e-6, "0.000001"), (1.5e-7, "1.5e-7"), (1e-10, "1e-10"),
    (1e20, "100000000000000000000"), (1e21, "1e+21"), (-0.0, "-0"), (123456789.125, "123456789.125"),
])
def test_a_float_is_written_as_gos_encoding_json_writes_it(number, go):
    assert go_float(number) == go


@pytest.mark.parametrize("text", ["1e-4", "0o17", "1_000", "y", "n", "on", "Off", "2026-01-01", "08", ".5", "-3",
                                  "1:30", ".inf", "=", "<<", "~", "1.30"])
def test_a_string_a_go_reader_would_type_is_written_quoted(text):
    written = dump_yaml({"args": [text]})
    assert written != f"args:\n- {text}\n", written
    assert needs_quotes(text) or yaml.safe_load(f"x: {text}")["x"] != text


@pytest.mark.parametrize("text", ["p5", "100m", "1Gi", "--lr", "-foo", "x1", "torchrun", "a-b.c", "1abc"])
def test_a_string_every_reader_reads_as_text_stays_plain(text):
    assert dump_yaml({"args": [text]}) == f"args:\n- {text}\n"


@given(st.recursive(WRITTEN_STRINGS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                             st.dictionaries(WRITTEN_STRINGS, inner, max_size=3)),
                    max_leaves=8))
def test_everything_dump_yaml_writes_reads_back_the_same_in_pyyaml_and_is_never_plain_where_go_would_type_it(value):
    written = dump_yaml({"value": value})
    assert yaml.safe_load(written) == {"value": value}
    plain = {line.strip().removeprefix("- ").split(": ")[-1] for line in written.splitlines()}
    assert not any(needs_quotes(text) for text in plain if text and text[0] not in "'\"" and ":" not in text)


def test_every_written_number_reads_back_as_that_number():
    written = dump_yaml({"n": [1, 1.5, -2, 1e21, True, None]})
    assert yaml.safe_load(written) == {"n": [1, 1.5, -2, 1e21, True, None]}
    assert "!!" not in written and json.dumps(yaml.safe_load(written))
    assert not math.isnan(yaml.safe_load(written)["n"][1])
