"""moto in server mode on 127.0.0.1: a real HTTP endpoint that boto3 reaches as it reaches AWS, for the tests of code
that reads an account (the preflight, doctor's ``--aws``). Import the fixture into a conftest or test module."""

from collections.abc import Iterator

import pytest
from moto.server import ThreadedMotoServer


@pytest.fixture(scope="module")
def moto_endpoint() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()
