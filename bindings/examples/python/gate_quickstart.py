"""The gate from Python in ten lines: one decision, one answer."""
import acd

gate = acd.Gate.demo(acd.GateConfig())
request = acd.gate_request("/api/v1/tables/orders?limit=2", client_ip="203.0.113.7",
                           headers=[("X-API-Key", "acd_live_demo_ada")])
decision = gate.decide(request, 1_700_000_000_000)  # time is an argument (Unix ms)
if isinstance(decision, acd.Decision.RESOLVE):
    response = decision.admitted.respond(acd.ResourceAnswer.FOUND(payload=b'[{"id":1}]'))
    print(response.status, response.body.decode())  # 200 {"data":[{"id":1}]}
