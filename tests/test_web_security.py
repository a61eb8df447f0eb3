"""The web server is safe to run: no request opens a server path, only this server's Host names
are answered, a token guards a server reachable from elsewhere, every answer carries the security
headers, bodies are bounded, identical plans come from memory, and no probe gets a 500."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from corpus import HF_CONFIGS

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from gpuwise.web import create_app
from gpuwise.web.security import Guard, WebSettings, host_of

LOCAL = "http://127.0.0.1"
CLIENT = TestClient(create_app(), base_url=LOCAL)
GPT2 = (HF_CONFIGS / "gpt2.json").read_text()
TOKEN = "s3cret-token-of-24-chars"
PLAN = {"workload": {"model": "llama-2-7b", "method": "qlora", "tokens": 2e7}, "requirements": {"deadline": "24h"}}


def _estimate(model: str) -> Any:
    return CLIENT.post("/api/estimate", json={"workload": {"model": model, "method": "qlora"}, "gpu": "a10"})


# ----- a model is a catalog id or an uploaded config, never a server path -------------------------


def test_path_probes_are_400_and_never_tell_whether_a_file_exists(tmp_path):
    real = tmp_path / "config.json"
    real.write_text(GPT2)  # a valid config on the server's disk: it must not be read
    probes = ["/etc/passwd", "../../x.json", str(real), str(tmp_path / "missing.json"), str(tmp_path)]
    for probe in probes:
        for r in (
            _estimate(probe),
            CLIENT.post("/api/plan", json={**PLAN, "workload": {**PLAN["workload"], "model": probe}}),
            CLIENT.get("/estimate", params={"model": probe, "gpu": "a10"}),
            CLIENT.post("/plan", data={"model": probe, "task": "finetune", "tokens": "20M", "deadline": "24h"}),
        ):
            assert r.status_code == 400, (probe, r.status_code, r.text[:200])
    # the same message for a file that exists and one that does not (only the echoed name differs)
    here, gone = (_estimate(str(p)).json()["detail"] for p in (real, tmp_path / "missing.json"))
    assert here.replace(str(real), "X") == gone.replace(str(tmp_path / "missing.json"), "X")
    assert "unknown model" in here and "gpt2" not in here.replace(str(real), "")  # nothing of the file shown


def test_fields_that_name_a_file_have_no_input_no_api_field_and_are_refused(tmp_path):
    from gpuwise.web.forms import SERVER_FILE_FIELDS

    assert "prices" in SERVER_FILE_FIELDS  # the CLI's --prices FILE
    real = tmp_path / "prices.yaml"
    real.write_text("offers: []\n")
    spec = json.dumps(CLIENT.get("/openapi.json").json()["components"]["schemas"])
    for name in SERVER_FILE_FIELDS:
        assert f'"{name}"' not in spec, name
        assert f'name="{name}"' not in CLIENT.get("/").text and f'name="{name}"' not in CLIENT.get("/estimate").text
        for value in (str(real), "/etc/passwd", str(tmp_path / "missing.yaml")):
            api = CLIENT.post("/api/plan", json={**PLAN, "requirements": {"deadline": "24h", name: value}})
            page = CLIENT.post("/plan", data={"model": "llama-2-7b", "tokens": "20M", "deadline": "24h", name: value})
            assert api.status_code == page.status_code == 400
            assert api.json()["detail"].startswith(f"--{name} names a file; the web server reads none")


def test_an_unknown_id_gets_did_you_mean():
    r = _estimate("llama-2-7")
    assert r.status_code == 400 and "did you mean 'llama-2-7b'" in r.json()["detail"]


def test_a_growth_model_path_is_refused_too(tmp_path):
    real = tmp_path / "config.json"
    real.write_text(GPT2)
    body = {**PLAN, "requirements": {"deadline": "24h", "growth_model": str(real)}}
    r = CLIENT.post("/api/plan", json=body)
    assert r.status_code == 400 and "unknown model" in r.json()["detail"]


def test_an_uploaded_config_is_parsed_in_memory_and_named_from_name_or_path():
    cfg = {**json.loads(GPT2), "_name_or_path": "my-org/My-GPT"}
    body = {"workload": {"task": "finetune", "method": "full", "tokens": 1e7}, "requirements": {"deadline": "24h"}}
    r = CLIENT.post("/api/plan", json={**body, "config_json": json.dumps(cfg)})
    assert r.status_code == 200 and r.json()["chosen"]["workload"]["model"] == "my-gpt"
    e = CLIENT.post("/api/estimate", json={"workload": {"task": "inference"}, "gpu": "a10", "config_json": GPT2})
    assert e.status_code == 200 and e.json()["workload"]["params"] == 124439808  # the catalog's exact GPT-2 count
    both = CLIENT.post(
        "/api/plan", json={**body, "workload": {**body["workload"], "model": "gpt2"}, "config_json": GPT2}
    )
    neither = CLIENT.post("/api/plan", json=body)
    # each field valid, the two together not: 422 (the schema cannot say "one of them" across levels)
    assert both.status_code == neither.status_code == 422 and "one of them" in neither.json()["detail"]


def test_an_uploaded_models_command_is_a_line_that_runs(tmp_path, monkeypatch):
    """The command of a plan for an uploaded config.json printed the architecture object's repr; it
    names the file now (config.json), and run beside the upload it gives the candidate's memory."""
    import shlex

    from typer.testing import CliRunner

    from gpuwise.cli.app import app

    body = {"workload": {"task": "finetune", "method": "lora", "tokens": 1e7}, "requirements": {"deadline": "24h"}}
    r = CLIENT.post("/api/plan", json={**body, "config_json": GPT2})
    chosen = r.json()["chosen"]
    argv = shlex.split(chosen["command"])
    assert argv[:2] == ["gpuwise", "estimate"] and argv[argv.index("--model") + 1] == "config.json"
    assert "Arch" not in chosen["command"] and "(" not in chosen["command"]
    (tmp_path / "config.json").write_text(GPT2)
    monkeypatch.chdir(tmp_path)  # run beside the uploaded file
    proc = CliRunner().invoke(app, [*argv[1:], "--json"])
    assert proc.exit_code == 0, proc.output[-1000:]
    assert json.loads(proc.stdout)["memory"]["per_gpu"] == chosen["memory"]["per_gpu"]


def test_the_web_result_names_the_uploaded_model():
    cfg = json.dumps({**json.loads(GPT2), "_name_or_path": "my-org/My-GPT"})
    form = {"task": "finetune", "method": "lora", "tokens": "10M", "deadline": "24h"}
    page = CLIENT.post("/plan", data=form, files={"config": ("config.json", cfg.encode(), "application/json")})
    heading = re.search(r'<h2 id="plan-for">([^<]*)</h2>', page.text)
    assert page.status_code == 200 and heading is not None and "my-gpt" in heading.group(1)
    assert "config.json" in re.search(r'<p id="command"[^>]*>(.*?)</p>', page.text, re.S).group(1)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"n_layer": NaN}', "NaN is not a number JSON allows"),
        ("[" * 100_000 + "]" * 100_000, "nested more than"),
        (json.dumps({**json.loads(GPT2), "n_layer": "twelve"}), "n_layer"),
    ],
)
def test_a_malformed_upload_is_a_400_naming_the_problem(text, said):
    r = CLIENT.post(
        "/plan", data={"task": "finetune"}, files={"config": ("config.json", text.encode(), "application/json")}
    )
    assert r.status_code == 400 and said in r.text, r.text[-400:]


def test_an_upload_that_is_not_utf8_is_a_400():
    r = CLIENT.post(
        "/plan", data={"task": "finetune"}, files={"config": ("config.json", b"\xff\xfe{}", "application/json")}
    )
    assert r.status_code == 400 and "not UTF-8" in r.text


def test_a_hostile_model_name_is_escaped_in_the_page_and_both_reports():
    cfg = json.dumps({**json.loads(GPT2), "_name_or_path": "<img src=x onerror=alert(1)>"})
    form = {"task": "finetune", "method": "full", "tokens": "10M", "deadline": "24h"}
    page = CLIENT.post("/plan", data=form, files={"config": ("config.json", cfg.encode(), "application/json")})
    assert page.status_code == 200 and "<img src=x" not in page.text
    for fmt in ("md", "html"):
        r = CLIENT.post("/plan/report", data={**form, "config_json": cfg, "fmt": fmt})
        assert r.status_code == 200 and "<img" not in r.text and "&lt;img src=x onerror=alert(1)&gt;" in r.text


# ----- Host names, token, headers, body limits ------------------------------------------------------


def test_a_foreign_host_header_is_400():
    r = CLIENT.get("/api/fleet", headers={"host": "evil.example"})
    assert r.status_code == 400 and "Host" in r.json()["detail"]
    assert CLIENT.get("/", headers={"host": "evil.example:8000"}).status_code == 400
    for ok in ("localhost:8000", "127.0.0.1", "[::1]:8000"):
        assert CLIENT.get("/gpus", headers={"host": ok}).status_code == 200, ok


def test_host_names_are_compared_without_port_or_brackets():
    assert host_of("Example.COM:8000") == "example.com"
    assert host_of("[::1]:8000") == "::1" and host_of("[::1]") == "::1"
    assert host_of("10.0.0.5") == "10.0.0.5"


def test_with_a_token_every_request_needs_it():
    app = create_app(WebSettings(token=TOKEN))
    client = TestClient(app, base_url=LOCAL)
    bare = client.get("/api/gpus")
    assert bare.status_code == 401 and bare.headers["www-authenticate"] == "Bearer"
    assert client.get("/", follow_redirects=False).status_code == 401
    assert client.get("/api/gpus", headers={"authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/api/gpus", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200
    # a browser: /?token=... once sets an HttpOnly cookie and drops the token from the address
    assert client.get("/?token=wrong", follow_redirects=False).status_code == 401
    login = client.get(f"/gpus?sort=memory&token={TOKEN}", follow_redirects=False)
    assert login.status_code == 303 and login.headers["location"] == "/gpus?sort=memory"
    assert "HttpOnly" in login.headers["set-cookie"] and "SameSite=Strict" in login.headers["set-cookie"]
    assert client.get("/gpus").status_code == 200  # the cookie is sent from now on


def _login(path: str, query: bytes) -> list[Any]:
    """What the guard sends for one request (`path` as the server decoded it) to a server with a token."""
    sent: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("a login is the guard's: the route must not run")

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "path": path, "headers": [(b"host", b"127.0.0.1")], "query_string": query}
    asyncio.run(Guard(app, WebSettings(token=TOKEN))(scope, receive, send))
    return sent


@pytest.mark.parametrize(
    "path",
    [
        "//evil.example/",
        "///evil.example",
        "/\\evil.example/",
        "/\\/evil.example",
        "/\t/evil.example",
        "/ /evil.example",
        "http://evil.example/",
        "https:evil.example",
        "/\u8def/\u00fc",
    ],
)
def test_the_login_redirect_stays_on_this_server(path):
    """`/?token=...` answers 303 to the same path without the token: always a path on this server,
    never a scheme-relative `//host`, a backslash a browser reads as a slash, or an absolute URL."""
    from urllib.parse import urljoin, urlsplit

    start = _login(path, f"token={TOKEN}&sort=memory".encode())[0]
    assert start["status"] == 303
    location = dict(start["headers"])[b"location"].decode("ascii")
    assert location.startswith("/") and not location.startswith("//"), location
    assert location.isprintable() and not any(c in location for c in "\\ \t"), location
    assert location.endswith("?sort=memory") and TOKEN not in location
    assert urlsplit(urljoin("http://127.0.0.1:8000/a/b", location)).netloc == "127.0.0.1:8000"


def test_redact_takes_out_every_form_of_a_token():
    from gpuwise.web.security import REDACTED, redact

    access = '"GET /gpus?sort=memory&token=abc HTTP/1.1" 303'
    assert redact(access) == f'"GET /gpus?sort=memory&token={REDACTED} HTTP/1.1" 303'
    assert redact("/?%74oken=abc&Token=def&tokens=keep") == f"/?%74oken={REDACTED}&Token={REDACTED}&tokens=keep"
    assert redact("Authorization: Bearer abc.def") == f"Authorization: Bearer {REDACTED}"
    assert redact("cookie: token=abc; theme=dark") == f"cookie: token={REDACTED}; theme=dark"
    secret = "s3cret/token+of=24 chars"
    for form in (secret, "s3cret%2Ftoken%2Bof%3D24%20chars", "s3cret%2Ftoken%2Bof%3D24+chars"):
        assert redact(f"seen {form} here", [secret]) == f"seen {REDACTED} here"


def test_no_token_reaches_the_log(capfd):
    """The access log of `gpuwise serve` names every request but none of the tokens: not in the
    login address (`?token=`, however its name is encoded), a header or a cookie, right or wrong."""
    import uvicorn

    from gpuwise.web.server import uvicorn_options

    from .slow_clients import request, uvicorn_serving

    wrong = "a-wrong-token-that-is-someones-secret"
    config = uvicorn.Config(create_app(WebSettings(token=TOKEN)), **uvicorn_options())
    with uvicorn_serving(config) as port:
        assert request(port, f"/gpus?sort=memory&token={TOKEN}")[0] == 303
        assert request(port, f"/gpus?%74oken={TOKEN}")[0] == 401  # not a login, but logged
        assert request(port, f"/?token={wrong}")[0] == 401
        assert request(port, "/api/gpus", {"authorization": f"Bearer {TOKEN}"})[0] == 200
        assert request(port, "/api/gpus", {"cookie": f"token={TOKEN}"})[0] == 200
    out, err = capfd.readouterr()
    log = out + err
    assert '"GET /gpus?sort=memory&token=' in log and '"GET /api/gpus HTTP/1.1" 200' in log  # logged
    assert TOKEN not in log and wrong not in log, log


def test_security_headers_on_every_answer():
    for r in (
        CLIENT.get("/"),
        CLIENT.get("/api/gpus"),
        CLIENT.get("/static/app.js"),
        CLIENT.get("/docs"),
        _estimate("nope"),
        CLIENT.get("/no-such-page"),
        CLIENT.get("/", headers={"host": "evil.example"}),
        CLIENT.post("/api/plan", content=b"x" * (3 * 2**20), headers={"content-type": "application/json"}),
    ):
        csp = r.headers["content-security-policy"]
        assert "default-src 'self'" in csp and "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert "unsafe" not in csp.split("script-src")[1].split(";")[0]  # scripts: this server's files only
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY" and r.headers["referrer-policy"] == "no-referrer"
    for path in ("/", "/docs", "/api/gpus"):  # no inline script or style anywhere but ReDoc's styles
        assert "unsafe" not in CLIENT.get(path).headers["content-security-policy"], path
    redoc = CLIENT.get("/redoc").headers["content-security-policy"]
    assert "style-src 'self' 'unsafe-inline'" in redoc and "script-src 'self';" in redoc


def test_the_pages_have_no_inline_script():
    for path in ("/", "/estimate", "/gpus", "/matrix", "/fleet", "/docs", "/redoc"):
        html = CLIENT.get(path).text
        assert "<script>" not in html and "javascript:" not in html and " onclick=" not in html, path


def test_a_body_over_the_limit_is_413():
    big = b"{" + b" " * (3 * 2**20) + b"}"
    r = CLIENT.post("/api/plan", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "larger than 2 MiB" in r.json()["detail"]

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(48):
            yield b" " * 2**16

    r = CLIENT.post("/api/plan", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    form = CLIENT.post("/plan", files={"config": ("config.json", b" " * (3 * 2**20), "application/json")})
    assert form.status_code == 413


def test_a_content_length_of_non_ascii_digits_is_not_a_500():
    """'²' (latin-1 0xb2) is a digit to str.isdigit() but not to int(): the body is read and
    counted as if no length were declared (a server that passes such a header on was a traceback)."""
    answered: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        body = (await receive())["body"]
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: Any) -> None:
        answered.append(message)

    headers = [(b"host", b"localhost"), (b"content-length", "\u00b2".encode("latin-1"))]
    scope = {"type": "http", "path": "/api/plan", "headers": headers, "query_string": b""}
    asyncio.run(Guard(app, WebSettings())(scope, receive, send))
    assert answered[0]["status"] == 200 and answered[1]["body"] == b"{}"


def test_a_body_that_stalls_is_408():
    """A client that sends part of a body and then nothing: the guard stops waiting (no timing
    assertion: the fake client never sends the rest)."""
    answered: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the route must not run")

    async def receive() -> dict[str, Any]:
        if not answered and not getattr(receive, "sent", False):
            receive.sent = True  # type: ignore[attr-defined]
            return {"type": "http.request", "body": b"{", "more_body": True}
        await asyncio.sleep(3600)
        return {}

    async def send(message: dict[str, Any]) -> None:
        answered.append(message)

    guard = Guard(app, WebSettings(chunk_timeout_s=0.05))
    scope = {"type": "http", "path": "/api/plan", "headers": [(b"host", b"127.0.0.1")], "query_string": b""}
    asyncio.run(guard(scope, receive, send))
    assert answered[0]["status"] == 408 and b"too slowly" in answered[1]["body"]


# ----- the plan cache -----------------------------------------------------------------------------


def test_identical_plans_are_answered_from_memory():
    from gpuwise.web import data

    body = {
        "workload": {"model": "mistral-7b-v0.1", "method": "lora", "tokens": 3e7},
        "requirements": {"deadline": "48h"},
    }
    first = CLIENT.post("/api/plan", json=body)
    before = data.plan_cache_info()
    again = CLIENT.post("/api/plan", json=body)
    # the same request with its keys in another order is the same plan
    reordered = {"requirements": body["requirements"], "workload": dict(reversed(list(body["workload"].items())))}
    third = CLIENT.post("/api/plan", json=reordered)
    after = data.plan_cache_info()
    assert first.status_code == again.status_code == third.status_code == 200
    assert first.json() == again.json() == third.json()
    assert after.hits == before.hits + 2 and after.misses == before.misses


# ----- gpuwise serve ------------------------------------------------------------------------------


def _serve(monkeypatch: Any, capsys: Any, *args: str) -> tuple[int, str]:
    """`gpuwise serve ARGS` in-process through the real entry point: (exit code, stderr)."""
    import sys

    from gpuwise.cli.app import main

    monkeypatch.setattr(sys, "argv", ["gpuwise", "serve", *args])
    with pytest.raises(SystemExit) as exit_:
        main()
    return int(exit_.value.code or 0), capsys.readouterr().err


def test_serve_refuses_a_public_bind_without_a_token(monkeypatch, capsys):
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: pytest.fail("must not start"))
    monkeypatch.delenv("GPUWISE_TOKEN", raising=False)
    for args in (["--host", "0.0.0.0"], ["--host", "192.168.1.20"], ["--host", "::"]):
        code, err = _serve(monkeypatch, capsys, *args)
        assert code == 2 and "give a token" in err, (args, err)
    code, err = _serve(monkeypatch, capsys, "--host", "0.0.0.0", "--token", "abc")
    assert code == 2 and "at least 16" in err
    code, err = _serve(monkeypatch, capsys, "--workers", "0")
    assert code == 2 and "--workers" in err


def _resolver(table: dict[str, list[str]]) -> Any:
    """socket.getaddrinfo answering names from `table` and literal addresses as the system does
    (no name server asked: a name not in the table does not resolve)."""
    import socket

    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        if host in table:
            return [
                (socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 0))
                for a in table[host]
            ]
        return real(host, port, flags=socket.AI_NUMERICHOST)

    return getaddrinfo


def test_only_a_bind_that_resolves_to_loopback_alone_needs_no_token(monkeypatch, capsys):
    """`--host` is loopback when every address it resolves to is: 127.x.y.z and ::1 are, a name is
    resolved first, and a name that does not resolve is a usage error (not a server that fails)."""
    import socket

    import uvicorn

    started: list[str] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: started.append(k["host"]))
    monkeypatch.delenv("GPUWISE_TOKEN", raising=False)
    table = {"localhost": ["127.0.0.1", "::1"], "planner.lan": ["10.0.0.5"], "split.lan": ["127.0.0.1", "10.0.0.5"]}
    monkeypatch.setattr(socket, "getaddrinfo", _resolver(table))
    for host in ("127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"):
        code, err = _serve(monkeypatch, capsys, "--host", host)
        assert code == 0, (host, err)
    assert len(started) == 6
    for host in ("planner.lan", "split.lan", "10.0.0.5"):
        code, err = _serve(monkeypatch, capsys, "--host", host)
        assert code == 2 and "give a token" in err, (host, err)
    for host in ("127.anything", "localhost.evil.example"):
        code, err = _serve(monkeypatch, capsys, "--host", host)
        assert code == 2 and f"--host {host} does not resolve" in err, (host, err)
    assert len(started) == 6


def test_serve_passes_limits_workers_and_guard_settings(monkeypatch, capsys):
    import uvicorn

    from gpuwise.web.app import app_from_env
    from gpuwise.web.server import BoundedProtocol

    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: calls.append((a, k)))
    monkeypatch.setenv("GPUWISE_TOKEN", TOKEN)  # the token from the environment
    monkeypatch.setenv("GPUWISE_ALLOWED_HOSTS", "")  # restored after the test; serve sets it
    code, err = _serve(monkeypatch, capsys, "--host", "0.0.0.0", "--workers", "3", "--allowed-host", "planner.lan")
    assert code == 0, err
    ((args, kw),) = calls
    assert args == ("gpuwise.web.app:app_from_env",) and kw["factory"] and kw["workers"] == 3
    assert kw["timeout_keep_alive"] == 5 and kw["h11_max_incomplete_event_size"] == 16384
    assert kw["limit_concurrency"] is None and kw["http"] is BoundedProtocol  # its own limits, not uvicorn's
    # what each worker builds from the environment the command set
    client = TestClient(app_from_env(), base_url="http://planner.lan")
    bearer = {"authorization": f"Bearer {TOKEN}"}
    assert client.get("/api/models").status_code == 401
    assert client.get("/api/models", headers=bearer).status_code == 200
    assert client.get("/api/models", headers={**bearer, "host": "localhost:8000"}).status_code == 200
    assert client.get("/api/models", headers={**bearer, "host": "evil.example"}).status_code == 400


# ----- no probe gets a 500 ------------------------------------------------------------------------

PROBES: list[tuple[str, str, Any]] = [
    ("POST", "/api/plan", b"{not json"),
    ("POST", "/api/plan", b'{"workload": {"model": "llama-2-7b", "tokens": NaN}}'),
    ("POST", "/api/plan", b'{"workload": {"model": "llama-2-7b", "tokens": Infinity}}'),
    ("POST", "/api/plan", b'{"workload": {"model": "llama-2-7b", "tokens": 1e400}}'),
    ("POST", "/api/plan", b'{"workload": {"model": "llama-2-7b", "micro_batch": ' + b"9" * 400 + b"}}"),
    ("POST", "/api/plan", b'{"workload": {"model": "llama-2-7b"}, "top": 1e999}'),
    ("POST", "/api/plan", b"[" * 50_000 + b"]" * 50_000),
    ("POST", "/api/plan", b'{"workload": {"model": ["llama-2-7b"]}}'),
    ("POST", "/api/plan", b'{"workload": {"model": "llama-2-7b", "seq": "long"}}'),
    ("POST", "/api/plan", b'{"workload": {"model": "llama-2-7b", "colour": "blue"}}'),
    ("POST", "/api/plan", b'{"workload": {"model": "llama-2-7b"}, "requirements": {"deadline": [1]}}'),
    ("POST", "/api/plan", b'{"workload": {"model": "llama-2-7b"}, "requirements": {"budget": "1e400"}}'),
    ("POST", "/api/plan", json.dumps({"workload": {"model": "x" * 5000}}).encode()),
    ("POST", "/api/plan", json.dumps({"workload": {"task": "finetune"}, "config_json": "{" * 10_000}).encode()),
    ("POST", "/api/plan", json.dumps({"workload": {"task": "finetune"}, "config_json": '{"n_layer": 1e400}'}).encode()),
    ("POST", "/api/estimate", b'{"workload": {"model": "llama-2-7b"}, "gpu": "a10:99999999999999999999"}'),
    ("POST", "/api/estimate", b'{"workload": {"model": "llama-2-7b", "decode_ms": 1e308}, "gpu": "a10"}'),
    ("POST", "/api/estimate", b'{"workload": {"model": "llama-2-7b"}, "gpu": "' + b"a" * 3000 + b'"}'),
    ("POST", "/api/estimate", b"null"),
    ("POST", "/api/estimate", b'"just a string"'),
    ("GET", "/api/tco?gpu=h100-sxm:8&years=nan", None),
    ("GET", "/api/tco?gpu=h100-sxm:1e400", None),
    ("GET", "/api/gpus?min_memory=1e400GB", None),
    ("GET", "/api/gpus?sort=" + "x" * 5000, None),
    ("GET", "/estimate?model=llama-2-7b&gpu=a10&seq=1e400", None),
    ("GET", "/estimate?model=llama-2-7b&gpu=a10&micro_batch=" + "9" * 400, None),
    ("GET", "/estimate?model=" + "m" * 5000 + "&gpu=a10", None),
    ("GET", "/gpus?min_memory=%00", None),
    ("POST", "/plan", {"model": "llama-2-7b", "tokens": "nan", "deadline": "24h"}),
    ("POST", "/plan", {"model": "llama-2-7b", "deadline": "1e400h", "tokens": "20M"}),
    ("POST", "/plan/report", {"model": "llama-2-7b", "config_json": "{bad", "fmt": "md"}),
]


@pytest.mark.parametrize(("method", "path", "body"), PROBES, ids=range(len(PROBES)))
def test_no_probe_is_answered_500(method, path, body):
    if isinstance(body, dict):
        r = CLIENT.request(method, path, data=body)
    else:
        r = CLIENT.request(method, path, content=body, headers={"content-type": "application/json"})
    assert r.status_code < 500, (r.status_code, r.text[:300])
    assert 400 <= r.status_code < 500 or r.status_code == 200


def test_the_schema_documents_every_status_an_api_route_answers():
    spec = CLIENT.get("/openapi.json").json()
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            statuses = set(op["responses"])
            assert {"200", "400", "401", "408", "413", "503"} <= statuses, (method, path)
            takes_input = bool(op.get("parameters") or op.get("requestBody"))
            assert ("422" in statuses) == takes_input, (method, path)
            assert op["responses"]["400"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorOut")


def test_a_client_gone_before_its_body_is_not_answered():
    sent: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("the route must not run")

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "path": "/api/plan", "headers": [(b"host", b"localhost")], "query_string": b""}
    asyncio.run(Guard(app, WebSettings())(scope, receive, send))
    assert sent == []
