"""End to end: a guarded answer judged over litellm's real HTTP path (the stub server), its spans sent by the
real OTLP/HTTP exporter to a receiver on 127.0.0.1 that decodes the protobuf with opentelemetry-proto. The
expected spans and attributes arrive, and the judge's key does not, even where the judge echoes it."""

from __future__ import annotations

import gzip
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
pytest.importorskip("opentelemetry.proto")

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (  # noqa: E402
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402

from llm_validation_framework import RelevancyAgent  # noqa: E402
from llm_validation_framework.guard import Guard  # noqa: E402
from llm_validation_framework.infra import tracing  # noqa: E402
from tests.support.stub_server import STUB_KEY, StubReply, chat_reply  # noqa: E402


class Receiver:
    """An OTLP/HTTP traces endpoint: keeps every request body as received and decoded."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.requests: list[ExportTraceServiceRequest] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - stdlib naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                receiver.bodies.append(body)
                receiver.requests.append(request)
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200 if self.path == "/v1/traces" else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/traces"

    def spans(self) -> list[dict]:
        out = []
        for request in self.requests:
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        out.append({"name": span.name, "scope": scope.scope.name,
                                    "attributes": {a.key: _value(a.value) for a in span.attributes},
                                    "events": [(e.name, {a.key: _value(a.value) for a in e.attributes})
                                               for e in span.events],
                                    "span_id": span.span_id, "parent": span.parent_span_id})
        return out


def _value(value):
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    return getattr(value, kind) if kind else None


@pytest.fixture
def receiver():
    server = Receiver()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


def echoing_reply(body):
    """The best verdict, with a reason that quotes the key the request was made with."""
    system = body["messages"][0]["content"]
    label = system.split('"verdict": "', 1)[1].split('"', 1)[0]
    return chat_reply(json.dumps({"reason": f"on topic; my key is {STUB_KEY}", "verdict": label}))


def test_guard_spans_reach_an_otlp_receiver_without_the_key(receiver, stub_server, stub_judge):
    provider = TracerProvider(resource=Resource.create({"service.name": "guard-e2e"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=receiver.endpoint, timeout=5)))
    tracing.configure_tracing(tracer_provider=provider)
    try:
        guard = Guard(RelevancyAgent(judge=stub_judge()), on_fail="fallback", fallback="fb")
        stub_server.default = echoing_reply
        passed = guard.validate({"question": "Where is the Eiffel Tower?", "answer": "In Paris."})
        # a judge that fails, naming the key in its error: the check is unscored, the guard fails closed
        stub_server.default = lambda body: StubReply(status=500, body={"error": {
            "message": f"upstream failed for key {STUB_KEY}", "type": "server_error"}})
        refused = guard.validate({"question": "Where is the Eiffel Tower?", "answer": "In Paris."})
        provider.force_flush()
    finally:
        tracing.configure_tracing()
        provider.shutdown()
    assert passed.passed and (refused.answer, refused.decided_by) == ("fb", "judge_error")

    spans = receiver.spans()
    assert {s["scope"] for s in spans} == {"llm_validation_framework"}
    guards = [s for s in spans if s["name"] == "guard relevancy"]
    assert [g["attributes"]["lvf.guard.action"] for g in guards] == ["pass", "fallback"]
    assert guards[1]["attributes"]["lvf.guard.decided_by"] == "judge_error"
    evaluations = [s for s in spans if s["name"] == "evaluate relevancy"]
    checks = [s for s in spans if s["name"] == "check relevancy"]
    assert len(evaluations) == 2 and len(checks) == 2
    assert {e["parent"] for e in evaluations} == {g["span_id"] for g in guards}
    first = evaluations[0]["attributes"]
    assert first["gen_ai.evaluation.name"] == "relevancy" and first["gen_ai.evaluation.score.label"] == "pass"
    assert first["gen_ai.evaluation.score.value"] == pytest.approx(1.0)
    assert "on topic; my key is **********" in first["gen_ai.evaluation.explanation"]
    assert first["lvf.judge"] == "openai/stub"
    assert evaluations[0]["events"][0][0] == "gen_ai.evaluation.result"
    assert checks[1]["attributes"]["gen_ai.evaluation.score.label"] == "unscored"
    assert checks[1]["attributes"]["error.type"]
    # nowhere in what arrived: not in an attribute, an event, a status message
    assert receiver.bodies and not any(STUB_KEY.encode() in body for body in receiver.bodies)
