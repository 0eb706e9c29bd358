"""Reads a whole table from a running acd-sandbox (or the real API) and
prints every record: the client pages, waits when the rate limit says so
(no 429), and retries what the spec says to retry.

Usage: read_table.py BASE_URL [TABLE] [PAGE_SIZE]   (key: ACD_API_KEY or the demo key)"""
from __future__ import annotations

import json
import os
import sys

import acd


def main() -> None:
    base_url = sys.argv[1]
    table = sys.argv[2] if len(sys.argv) > 2 else "orders"
    page_size = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    api_key = os.environ.get("ACD_API_KEY", "acd_live_demo_ada")
    with acd.HttpClient(api_key, base_url=base_url) as api:
        count = 0
        for record in api.tables.iter(table, page_size=page_size):
            print(json.dumps(record, sort_keys=True))
            count += 1
    print(f"{count} records")


if __name__ == "__main__":
    main()
