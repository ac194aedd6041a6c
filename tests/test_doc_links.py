"""docs/check_links.py lists every external link of the docs and checks each this machine can reach: an HTTP
error is broken (exit 1), a host out of reach is "not checked" with the reason, never a pass."""

import http.server
import importlib.util
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _checker():
    spec = importlib.util.spec_from_file_location("docs_check_links", ROOT / "docs" / "check_links.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


links = _checker()


class _Site(http.server.BaseHTTPRequestHandler):
    """/ok answers, /gone is 404, /get-only refuses HEAD (405) and answers GET."""

    def do_HEAD(self):
        self._answer(405 if self.path == "/get-only" else None)

    def do_GET(self):
        self._answer(None)

    def _answer(self, status):
        self.send_response(status or (404 if self.path == "/gone" else 200))
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Site)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def verdict(url):
    return links.check(links.Link(url, ["page.md:1"]), timeout=5).verdict


def test_a_link_that_answers_is_ok_and_one_that_answers_404_is_broken(site):
    assert verdict(f"{site}/ok") == "ok"
    assert verdict(f"{site}/gone") == "broken"


def test_a_host_that_refuses_head_is_asked_with_get(site):
    assert verdict(f"{site}/get-only") == "ok"


def test_a_host_out_of_reach_is_not_checked_with_the_reason_never_passed():
    result = links.check(links.Link("http://127.0.0.1:9/", ["page.md:1"]), timeout=2)  # port 9: discard, closed
    assert result.verdict == "not checked" and result.detail.startswith("unreachable from this machine: ")


def test_the_docs_external_links_are_listed_with_where_they_are_and_none_is_broken():
    found = links.external_links()
    urls = {link.url for link in found}
    assert "https://github.com/aws/sagemaker-hyperpod-cli.git" in urls
    assert all(link.where and all(":" in place for place in link.where) for link in found)
    judged = links.results(found, timeout=3)
    assert [r.link.url for r in judged if r.verdict == "broken"] == []
    assert {r.link.url for r in judged if r.verdict == "not a link"} >= {"http://127.0.0.1:8000"}
    assert all(r.link.url.split("://", 1)[1] for r in judged if r.verdict != "not a link")  # a host to ask
