"""Scalars the YAML readers disagree on, as Hypothesis strategies: the words YAML 1.1 reads as booleans or null,
numbers in every base and spelling go-yaml reads (signs, leading zeros, ``_``, exponents, ``0x``/``0o``/``0b``),
YAML 1.1's base-60 numbers, and dates and times. Each is also a valid plain scalar, so it can be written unquoted
into a stack file. The oracles that read them are the real tools: kubectl (tests/engines/test_kubectl_reads.py)
and the Pulumi CLI (tests/engines/test_pulumi_reads_stack_files.py)."""

from __future__ import annotations

from hypothesis import strategies as st

WORDS = ("y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
         "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL", "~",
         ".inf", ".Inf", "-.inf", "+.INF", ".nan", ".NaN")
"""YAML 1.1's booleans and null in each case go-yaml lists, and the special floats."""

NUMBERS = st.from_regex(r"\A[-+]?(0[xXoObB])?[0-9a-fA-F_]{1,6}(\.[0-9_]{0,3})?([eE][-+]?[0-9]{1,3})?\Z")
"""Every base and spelling: a leading zero (octal to go-yaml), ``_`` between digits, exponents with no point."""
LEADING_DOT = st.from_regex(r"\A[-+]?\.[0-9]{1,4}([eE][-+]?[0-9]{1,2})?\Z")
SEXAGESIMAL = st.from_regex(r"\A[-+]?[0-9]{1,3}(:[0-5]?[0-9]){1,2}(\.[0-9]{0,2})?\Z")
TIMESTAMPS = st.from_regex(r"\A[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(T[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,3})?Z?)?\Z")
VERSIONS = st.from_regex(r"\A1\.[0-9]{1,2}0?\Z")
"""Kubernetes minors as a user types them: ``1.30`` is the float 1.3 to every YAML reader."""
WORDS_AND_NAMES = st.from_regex(r"\A[a-z][-a-z0-9]{0,10}\Z")

PLAIN_SCALARS = st.one_of(st.sampled_from(WORDS), NUMBERS, LEADING_DOT, SEXAGESIMAL, TIMESTAMPS, VERSIONS,
                          WORDS_AND_NAMES)
"""A plain scalar of a stack file that YAML 1.1, YAML 1.2 and go-yaml may each read their own way."""

WRITTEN_STRINGS = st.one_of(PLAIN_SCALARS, st.sampled_from(("<<", "=", "", " ", "-", "- x", "a: b", "#x")),
                            st.text(max_size=12))
"""A string trainstack may write: the ambiguous scalars above, YAML's own punctuation, and any text."""
