import acd

# Reads ACD_API_KEY and ACD_BASE_URL from the environment.
with acd.HttpClient() as api:
    print(api.index()["version"])
    for order in api.tables.read("orders", page_size=2):
        print(order["id"], order["customer"], order["total"])
    shipped = [order["id"] for order in api.tables.iter("orders", page_size=3) if order["status"] == "shipped"]
    print("shipped:", shipped)
    try:
        api.tables.read("no-such-table")
    except acd.NotFoundError as error:
        print(error.status, error.detail)
