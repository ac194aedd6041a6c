"""The Kubernetes client asks as another user (kube/client.py ``as_user``): the API server reads
``Impersonate-User`` and one ``Impersonate-Group`` header per group (Kubernetes docs, "User Impersonation"; a
comma-joined value would be one group named "a,b"). The real API server's answers as a member:
tests/rehearsal/test_tenancy.py."""

import http.server
import json
import threading
from collections.abc import Iterator

import pytest
from trainstack.kube.client import Cluster


@pytest.fixture
def seen() -> Iterator[tuple[str, list[dict[str, list[str]]]]]:
    """A loopback HTTP server that answers ``{}`` and keeps each request's headers (name -> every value)."""
    requests: list[dict[str, list[str]]] = []

    class Echo(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requests.append({name: self.headers.get_all(name) or [] for name in set(self.headers.keys())})
            body = json.dumps({}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", requests
    server.shutdown()
    server.server_close()


def test_a_user_in_two_groups_is_sent_as_one_user_header_and_a_group_header_each(seen) -> None:
    url, requests = seen
    admin = Cluster(url, None, "admin-token")
    admin.as_user("arn:aws:sts::123456789012:assumed-role/llm-researchers/s", ["trainstack:team:llm", "other"]).get(
        "/api/v1/pods")
    (headers,) = requests
    assert headers["Impersonate-User"] == ["arn:aws:sts::123456789012:assumed-role/llm-researchers/s"]
    assert headers["Impersonate-Group"] == ["trainstack:team:llm", "other"]
    assert headers["Authorization"] == ["Bearer admin-token"]  # the admin's own credentials ask for it


def test_the_client_it_came_from_still_asks_as_itself(seen) -> None:
    url, requests = seen
    admin = Cluster(url, None, "admin-token")
    admin.as_user("someone", ["a-group"])
    admin.get("/api/v1/pods")
    (headers,) = requests
    assert "Impersonate-User" not in headers and "Impersonate-Group" not in headers
