"""The browser's key form over real HTTP: `POST /key` keeps a cookie, `DELETE /key` forgets it.

A server started with `RELIABLE_RAG_API_KEY` takes the key once from its own page
(JSON only) and sets a cookie derived from it (HttpOnly, SameSite=Strict, Path=/);
its routes accept that cookie from its own pages only, as they accept the key's
headers. A browser's page refused for want of the key is an HTML page with the
form; every other refusal stays JSON. Without a key, none of this exists.
`test_playground_browser` drives the same form in Chromium.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from langchain_reliable.server.auth import COOKIE_NAME, WRONG_KEY
from tests.integration_tests._servers import VERIFY, client, serving_app

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

API_KEY = "form-key-51c0"
PAGE = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8", "sec-fetch-site": "none"}


def _serve(
    tmp_path_factory: pytest.TempPathFactory, name: str, **env: str
) -> Iterator[tuple[str, Path]]:
    """Serve the app from a fresh folder; yield its base URL and its log's path."""
    pytest.importorskip("langserve")
    work = tmp_path_factory.mktemp(name)
    with serving_app(work, **env) as base:
        yield base, work / "server.log"


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    yield from _serve(tmp_path_factory, "key-form", RELIABLE_RAG_API_KEY=API_KEY)


@pytest.fixture(scope="module")
def open_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    yield from _serve(tmp_path_factory, "key-form-open")


def _kept_cookie(base: str) -> str:
    with client(base) as http:
        r = http.post("/key", json={"key": API_KEY})
        assert r.status_code == 200, r.text
        return r.cookies[COOKIE_NAME]


def test_the_form_keeps_a_derived_cookie(keyed):
    base, log = keyed
    with client(base) as http:
        r = http.post("/key", json={"key": f"  {API_KEY}\n"})  # pasted with blanks
    assert r.status_code == 200 and r.json() == {"stored": True}
    assert API_KEY not in r.text
    cookie = r.headers["set-cookie"]
    for attribute in ("HttpOnly", "Path=/", "SameSite=strict", "Max-Age="):
        assert attribute in cookie, cookie
    assert "Secure" not in cookie  # plain HTTP on loopback; set over HTTPS
    assert API_KEY not in cookie and r.cookies[COOKIE_NAME]
    assert r.headers["cache-control"] == "no-store"
    assert API_KEY not in log.read_text("utf-8", errors="replace")


@pytest.mark.parametrize(
    ("kwargs", "status", "named"),
    [
        ({"json": {"key": "wrong"}}, 401, WRONG_KEY),
        ({"json": {"key": API_KEY}, "headers": {"sec-fetch-site": "cross-site"}}, 403, "own"),
        ({"json": {"key": API_KEY}, "headers": {"sec-fetch-site": "same-site"}}, 403, "own"),
        (
            {"content": f'{{"key": "{API_KEY}"}}', "headers": {"content-type": "text/plain"}},
            415,
            "JSON",
        ),
        ({"data": {"key": API_KEY}}, 400, "JSON"),  # a plain HTML form's body
        ({"json": {"key": 5}}, 422, "the body must be"),
        ({"json": [API_KEY]}, 422, "the body must be"),
    ],
)
def test_the_form_refuses_with_json_and_sets_nothing(keyed, kwargs, status, named):
    base, _ = keyed
    with client(base) as http:
        r = http.post("/key", **kwargs)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert named in r.json()["detail"]
    assert "set-cookie" not in r.headers
    assert API_KEY not in r.text


def test_the_cookie_opens_the_routes_from_the_servers_own_pages(keyed):
    base, _ = keyed
    token = _kept_cookie(base)
    with client(base, cookies={COOKIE_NAME: token}) as http:
        r = http.post("/verify/invoke", json={"input": VERIFY})
        assert r.status_code == 200, r.text
        same = {"sec-fetch-site": "same-origin"}
        assert http.post("/verify/invoke", json={"input": VERIFY}, headers=same).status_code == 200
        assert http.get("/reliable-rag/playground/", headers=PAGE).status_code == 200
        for site in ("cross-site", "same-site"):  # another site, or another port of this host
            r = http.post(
                "/verify/invoke", json={"input": VERIFY}, headers={"sec-fetch-site": site}
            )
            assert r.status_code == 401, (site, r.text)
    # The cookie is no key: as a header it opens nothing; a wrong cookie opens nothing.
    for headers in ({"X-API-Key": token}, {"Authorization": f"Bearer {token}"}):
        with client(base, headers=headers) as http:
            assert http.post("/verify/invoke", json={"input": VERIFY}).status_code == 401
    with client(base, cookies={COOKIE_NAME: API_KEY}) as http:
        assert http.post("/verify/invoke", json={"input": VERIFY}).status_code == 401


def test_forgetting_the_key_closes_the_routes_again(keyed):
    base, _ = keyed
    with client(base) as http:  # one cookie jar, as a browser's
        assert http.post("/key", json={"key": API_KEY}).status_code == 200
        assert http.post("/verify/invoke", json={"input": VERIFY}).status_code == 200
        assert "This browser holds the server's key" in http.get("/").text
        r = http.delete("/key")
        assert r.status_code == 200 and r.json() == {"stored": False}
        assert "Max-Age=0" in r.headers["set-cookie"]
        assert COOKIE_NAME not in http.cookies
        assert http.post("/verify/invoke", json={"input": VERIFY}).status_code == 401
        assert "Use this key" in http.get("/").text


def test_a_refused_page_is_the_key_form_and_a_refused_call_is_json(keyed):
    base, _ = keyed
    with client(base) as http:
        page = http.get("/verify/playground/", headers=PAGE)
        assert page.status_code == 401
        assert page.headers["content-type"].startswith("text/html")
        assert "API key needed" in page.text and 'id="key-form"' in page.text
        assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
        assert page.headers["www-authenticate"] == "Bearer"
        for headers in ({}, {"accept": "application/json"}):
            r = http.get("/verify/playground/", headers=headers)
            assert r.status_code == 401
            assert r.json() == {"detail": "missing or invalid API key"}
        r = http.post("/verify/invoke", json={"input": VERIFY}, headers=PAGE)
        assert r.status_code == 401 and r.json() == {"detail": "missing or invalid API key"}
        landing = http.get("/")
        assert landing.status_code == 200 and "X-API-Key" in landing.text
        assert 'id="key-form"' in landing.text and API_KEY not in landing.text


def test_without_a_key_there_is_no_form(open_server):
    base, _ = open_server
    with client(base) as http:
        landing = http.get("/")
        assert landing.status_code == 200
        assert "key-form" not in landing.text and "API key" not in landing.text
        assert "content-security-policy" not in landing.headers
        assert http.post("/key", json={"key": "x"}).status_code in (404, 405)
        assert http.get("/verify/playground/", headers=PAGE).status_code == 200
