"""moto's EC2 in server mode on 127.0.0.1: a real HTTP endpoint for the checks it serves."""

import pytest


@pytest.fixture
def aws(moto_endpoint, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    return moto_endpoint


@pytest.fixture
def listing(capsys):
    """`trainstack ARGS` run as text, then with --json, each answered by one stubbed call: (text, document)."""
    import json

    from trainstack import cli

    def run(stub, operation, response, request, args):
        for _ in range(2):
            stub.add_response(operation, response, request)
        assert cli.main(args) == 0
        text = capsys.readouterr().out
        assert cli.main([*args, "--json"]) == 0
        return text, json.loads(capsys.readouterr().out)

    return run
