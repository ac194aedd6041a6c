"""A project or stack file is refused by its size before it is parsed: for every size Hypothesis draws, near
the limit and far past it, a file of that many bytes is refused with its size and the limit exactly when it
is longer than the limit. The file is NUL bytes, which PyYAML's reader refuses before it scans a token, so a
file that reached the parser says so instead: the refusal by size is seen to come first."""

from hypothesis import given
from hypothesis import strategies as st
from trainstack.boundary import YAML_FILE_BYTES_MAX, FileProblem, read_yaml_mapping

LIMIT = YAML_FILE_BYTES_MAX


@given(size=st.one_of(st.integers(LIMIT - 8, LIMIT + 8), st.integers(1, 50 * 2 ** 20)))
def test_a_yaml_file_is_refused_by_size_before_parsing_exactly_when_it_is_over_the_limit(tmp_path_factory, size):
    path = tmp_path_factory.mktemp("size") / "Pulumi.big.yaml"
    with path.open("wb") as stream:
        stream.truncate(size)  # NUL bytes, never stored: a sparse file
    try:
        read_yaml_mapping(path, "stack file")
    except FileProblem as problem:
        message = str(problem)
    if size > LIMIT:
        assert f"is {size:,} bytes; trainstack reads at most {LIMIT:,} bytes" in message, message
    else:
        assert "unacceptable character #x0000" in message, message
