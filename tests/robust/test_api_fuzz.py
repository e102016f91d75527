"""Fuzz the JSON API from its own OpenAPI document (``GET /api/openapi.json``).

Requests are generated from each operation's request schema with
hypothesis-jsonschema (well-formed shapes: real and made-up cards, long
lists, unicode names) and from an arbitrary-JSON strategy (wrong types,
missing fields, nesting), plus raw bodies that are not JSON at all.  Nothing
may answer 5xx or show a traceback; every status must be one the document
lists, and every body must match its documented schema.
"""
from __future__ import annotations

import io

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis_jsonschema import from_schema

from .conftest import CASES, corpus

EXAMPLES = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                           HealthCheck.filter_too_much, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    from .conftest import make_app
    app = make_app(tmp_path_factory.mktemp("spec"))
    r = app.test_client().get("/api/openapi.json")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/json")
    doc = r.get_json()
    assert doc["openapi"].startswith("3.")
    return doc


def inline(node, doc):
    """Resolve local $refs (the schemas are not recursive)."""
    if isinstance(node, dict):
        if "$ref" in node:
            target = doc
            for part in node["$ref"].lstrip("#/").split("/"):
                target = target[part]
            return inline(target, doc)
        return {k: inline(v, doc) for k, v in node.items()}
    if isinstance(node, list):
        return [inline(v, doc) for v in node]
    return node


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=12), inner, max_size=6),
    max_leaves=40)

JSON_OPS = ["/api/score", "/api/round", "/api/meld"]


def check(resp, op: dict, doc: dict):
    text = resp.get_data(as_text=True)
    assert resp.status_code < 500, text
    assert "Traceback" not in text
    assert str(resp.status_code) in op["responses"], (resp.status_code, text[:300])
    body = resp.get_json()
    schema = op["responses"][str(resp.status_code)]["content"]["application/json"]["schema"]
    jsonschema.validate(body, inline(schema, doc))


@pytest.mark.parametrize("path", JSON_OPS)
def test_json_operations(spec, client, path):
    op = spec["paths"][path]["post"]
    schema = inline(op["requestBody"]["content"]["application/json"]["schema"], spec)
    valid_shaped = from_schema(schema)

    @EXAMPLES
    @given(valid_shaped | json_values)
    def run(body):
        check(client.post(path, json=body), op, spec)

    run()


@pytest.mark.parametrize("path", JSON_OPS)
def test_json_operations_raw_bodies(spec, client, path):
    op = spec["paths"][path]["post"]

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.binary(max_size=300) | st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")
                                                                 if False else t.encode("utf-8", "replace")),
           st.sampled_from(["application/json", "text/plain", "application/x-www-form-urlencoded",
                            "multipart/form-data; boundary=x"]))
    def run(raw, ctype):
        check(client.post(path, data=raw, content_type=ctype), op, spec)

    run()
    # deep nesting and a huge list
    check(client.post(path, data="[" * 50_000 + "]" * 50_000, content_type="application/json"), op, spec)
    check(client.post(path, json={"hand": ["AH"] * 10_000, "cards": ["AH"] * 10_000,
                                  "players": [{"name": "x", "hand": []}] * 10_000,
                                  "end": {"type": "tie"}}), op, spec)


def test_detect_from_its_schema(spec, client):
    op = spec["paths"]["/api/detect"]["post"]
    names = sorted(CASES)

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.one_of(st.binary(max_size=2000), st.sampled_from(names).map(corpus)),
           st.sampled_from(["photo", "image", "file"]), st.text(max_size=20))
    def run(data, field, filename):
        r = client.post("/api/detect", data={field: (io.BytesIO(data), filename or "x")},
                        content_type="multipart/form-data")
        check(r, op, spec)

    run()
    check(client.post("/api/detect", json={"photo": "x"}), op, spec)
    check(client.post("/api/detect", data=b"\x00" * 100, content_type="image/jpeg"), op, spec)


def test_unknown_paths_and_methods_are_json_4xx(client):
    for method, path in [("get", "/api/score"), ("post", "/api/nothing"), ("delete", "/api/round"),
                         ("post", "/api/openapi.json"), ("get", "/api/../etc/passwd")]:
        r = getattr(client, method)(path)
        assert 400 <= r.status_code < 500
        assert r.get_json()["error"]


def test_hand_save_route_any_json(client):
    """The page's own JSON route (a hand save) takes any JSON shape without a 5xx."""
    from .conftest import new_game, new_table
    table = new_table(client)
    url = f"/tables/{table}/games/{new_game(client, table)}/hands/0"

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    @given(json_values | st.fixed_dictionaries({"cards": json_values, "links": json_values,
                                                "dropped": json_values}))
    def run(body):
        r = client.post(url, json=body, headers={"X-Requested-With": "fetch"})
        assert r.status_code in (200, 400), r.get_data(as_text=True)
        assert (r.get_json() or {}).get("error") or r.status_code == 200

    run()
    r = client.post(url, data="[" * 50_000 + "]" * 50_000, content_type="application/json")
    assert r.status_code == 400
