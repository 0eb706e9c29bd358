import acd

config = acd.ClientConfig().with_credential("main", acd.CredentialKind.API_KEY, "acd_live_demo_ada", "ada")
client = acd.Client(config)
request = client.build(acd.spec_list_table_records("orders"))
now = 1_700_000_000_000  # acd never reads a clock: time is an argument (Unix ms)
print(request, request.url(), client.plan(request, now))
reply = acd.HttpResponse(status=200, headers=[], body=b'{"data":[{"id":1},{"id":2}]}')  # your HTTP call
result = client.interpret(request, reply)
if isinstance(result, acd.InterpretResult.OK) and isinstance(result.response, acd.ApiResponse.RECORDS):
    print(result.response.records)
