"""Replays every ``tests/vectors/client-*.json`` case through the Python
binding (conventions: tests/vectors/README.md, "Client vectors"). Each case's
result must equal the stored ``output`` and contain the hand-written
``expect``. Throttle plans are rebuilt from the typed ``Plan``; the other
results compare the ``json`` the binding hands back with them."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

from acd import ffi as acd
from conftest import load, vector_files


def contains(actual: Any, expected: Any) -> bool:
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            key in actual and contains(actual[key], value) for key, value in expected.items()
        )
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(actual) == len(expected)
                and all(contains(a, e) for a, e in zip(actual, expected)))
    return bool(actual == expected)


def headers(pairs: List[List[str]]) -> List[acd.ResponseHeader]:
    return [acd.ResponseHeader(name=name, value=value) for name, value in pairs]


def client(input: Dict[str, Any], auto_keys: bool = True) -> acd.Client:
    keys = bool(input.get("idempotency_keys", False)) and auto_keys
    config = acd.ClientConfig.from_json(json.dumps({"idempotency_keys": keys, "seed": 0}))
    config = config.with_create_agent_run()
    if input.get("honours_idempotency_key", False):
        config = config.with_idempotency_keys_honoured("createAgentRun")
    kinds = {"api_key": acd.CredentialKind.API_KEY, "oauth2": acd.CredentialKind.O_AUTH_TOKEN}
    credentials = input.get("credentials") or [
        {"id": "main", "kind": "api_key", "secret": "acd_live_demo_ada", "user": "ada"},
        {"id": "ci", "kind": "api_key", "secret": "acd_live_demo_ada_ci", "user": "ada"},
    ]
    for c in credentials:
        config = config.with_credential(c["id"], kinds[c["kind"]], c["secret"], c["user"])
    return acd.Client(config)


def spec(operation: str, path: List[Tuple[str, str]], query: List[Tuple[str, str]] = [],
         credential: Optional[str] = None, egress: acd.EgressMode = acd.EgressMode.DEFAULT,
         body: Optional[bytes] = None, idempotency_key: Optional[str] = None) -> acd.RequestSpec:
    return acd.RequestSpec(
        operation=operation,
        path=[acd.PathParam(name=n, value=v) for n, v in path],
        query=[acd.QueryParam(name=n, value=v) for n, v in query], roles=[],
        credential=credential, egress=egress, body=body, idempotency_key=idempotency_key,
    )


def default_spec(input: Dict[str, Any]) -> acd.RequestSpec:
    operation = input["operation"]
    if operation == "listTableRecords":
        built = acd.spec_list_table_records("t")
    elif operation == "listConnectionRecords":
        built = acd.spec_list_connection_records("c", "e")
    elif operation == "getApiIndex":
        built = acd.spec_get_api_index()
    elif operation == "createAgentRun":
        built = spec(operation, [("agent_id", "a1")])
    else:
        raise AssertionError(f"no default request for {operation}")
    built.credential = input.get("credential")
    built.idempotency_key = input.get("idempotency_key")
    return built


def plan_json(plan: acd.Plan) -> Dict[str, Any]:
    if isinstance(plan, acd.Plan.SEND_NOW):
        return {"plan": "send_now"}
    assert isinstance(plan, acd.Plan.WAIT_UNTIL)
    reason = {acd.WaitReason.QUOTA: "quota", acd.WaitReason.RETRY_AFTER: "retry_after"}[plan.reason]
    return {"plan": "wait_until", "at": plan.at_ms, "limit": plan.limit, "reason": reason}


def response_json(response: acd.ApiResponse) -> Any:
    if isinstance(response, (acd.ApiResponse.RECORDS, acd.ApiResponse.INDEX, acd.ApiResponse.OBJECT)):
        return json.loads(response.json)
    raise AssertionError(f"unknown response {response}")


def result_json(result: acd.InterpretResult) -> Dict[str, Any]:
    if isinstance(result, acd.InterpretResult.OK):
        return {"ok": response_json(result.response)}
    assert isinstance(result, acd.InterpretResult.ERR)
    return {"error": json.loads(result.failure.json)}


def run_interpret(input: Dict[str, Any]) -> Any:
    response = acd.HttpResponse(status=input["status"], headers=headers(input["headers"]),
                                body=input["body"].encode("utf-8"))
    return result_json(client({}).interpret_operation(input["operation"], response))


def run_ratelimit(input: Dict[str, Any]) -> Any:
    return json.loads(acd.parse_rate_limit_headers(headers(input["headers"]), input["now"]).json)


def run_throttle(input: Dict[str, Any]) -> Any:
    the_client = client(input)
    throttle = acd.Throttle()
    outputs: List[Any] = []
    for step in input["steps"]:
        ((kind, body),) = step.items()
        request = the_client.build(default_spec(body))
        if kind == "send":
            for _ in range(body.get("count", 1)):
                throttle.on_sent(request, body["now"])
            outputs.append(None)
        elif kind == "response":
            throttle.on_response(request, body["status"], headers(body["headers"]), body["now"])
            outputs.append(None)
        else:
            assert kind == "plan"
            outputs.append(plan_json(throttle.plan(request, body["now"])))
    return outputs


def run_retry(input: Dict[str, Any]) -> Any:
    request = client(input, auto_keys=False).build(default_spec(input))
    request.set_attempts(input["attempts"], input["first_sent_at"])
    planner = acd.RetryPlanner(input["seed"], input.get("budget_available"))
    raw = input["outcome"]
    if "transport" in raw:
        failures = {"connect": acd.TransportFailure.CONNECT, "timeout": acd.TransportFailure.TIMEOUT,
                    "interrupted": acd.TransportFailure.INTERRUPTED}
        outcome: acd.Outcome = acd.Outcome.TRANSPORT(failure=failures[raw["transport"]])
    else:
        outcome = acd.Outcome.RESPONSE(response=acd.HttpResponse(
            status=raw["status"], headers=headers(raw["headers"]), body=b"{}"))
    return json.loads(planner.on_outcome(request, outcome, input["now"]).json)


def run_request(input: Dict[str, Any]) -> Any:
    egress = {"default": acd.EgressMode.DEFAULT, "header": acd.EgressMode.HEADER,
              "url": acd.EgressMode.URL}[input.get("egress", "default")]
    body = input.get("body")
    built = client(input).try_build(spec(
        input["operation"], input.get("path", []), input.get("query", []), input.get("credential"),
        egress, body.encode("utf-8") if body is not None else None, input.get("idempotency_key"),
    ))
    if isinstance(built, acd.BuildResult.OK):
        return {"ok": json.loads(built.request.to_wire_json())}
    assert isinstance(built, acd.BuildResult.ERR)
    return {"error": json.loads(built.failure.json)}


def run_deprecation(input: Dict[str, Any]) -> Any:
    warning = acd.parse_deprecation(input["operation"], headers(input["headers"]))
    return None if warning is None else json.loads(warning.json)


def run_errors(input: Dict[str, Any]) -> Any:
    failure = acd.client_failure_from_json(json.dumps(input))
    return {"category": failure.category, "message": failure.message}


RUNNERS: Dict[str, Callable[[Dict[str, Any]], Any]] = {
    "client-errors": run_errors,
    "client-interpret": run_interpret,
    "client-ratelimit": run_ratelimit,
    "client-throttle": run_throttle,
    "client-retry": run_retry,
    "client-request": run_request,
    "client-deprecation": run_deprecation,
}

CASES: List[Tuple[Path, int]] = [
    (path, number) for path in vector_files("client-") for number in range(len(load(path)["cases"]))
]


@pytest.mark.parametrize(
    "path,number", CASES, ids=[f"{p.stem}:{load(p)['cases'][n]['name']}" for p, n in CASES]
)
def test_client_vector(path: Path, number: int) -> None:
    case = load(path)["cases"][number]
    actual = RUNNERS[path.stem](case["input"])
    assert contains(actual, case["expect"]), f"breaks expect {case['expect']}: {actual}"
    assert actual == case["output"]


def test_every_client_file_has_a_runner() -> None:
    assert sorted(p.stem for p in vector_files("client-")) == sorted(RUNNERS)
