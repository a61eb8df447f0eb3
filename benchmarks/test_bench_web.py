"""/api/plan answers a typical request in under 100 ms (in-process, TestClient)."""

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from gpuwise.web import create_app

CLIENT = TestClient(create_app())
BODY = {"workload": {"model": "llama-2-7b", "method": "qlora", "tokens": 2e7}, "requirements": {"deadline": "24h"}}


def test_api_plan_typical_request(benchmark):
    r = benchmark(CLIENT.post, "/api/plan", json=BODY)
    assert r.status_code == 200 and r.json()["chosen"]
    assert benchmark.stats.stats.median < 0.1
