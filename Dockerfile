# acd-sandbox in a container, for tests that run where the app runs.
#
#   docker build -t acd-sandbox .
#   docker run --rm -p 8080:8080 acd-sandbox
#   docker run --rm -p 8080:8080 -v "$PWD/sandbox.json:/sandbox.json:ro" \
#     acd-sandbox --config /sandbox.json --clock manual --faults
#
# Inside the container the sandbox listens on 0.0.0.0:8080 with
# --allow-remote (the banner warns that the demo credentials are public).
# Arguments after the image name are added to the command line.
#
# Admin routes (/_sandbox/clock, /_sandbox/reset, /_sandbox/requests):
# without a token they answer loopback peers only, and the host's requests
# reach the container from the bridge, not from loopback. Give a token, as an
# argument or in the environment, and send it as a bearer token:
#
#   docker run --rm -p 8080:8080 acd-sandbox --clock manual --admin-token "$TOKEN"
#   docker run --rm -p 8080:8080 -e ACD_SANDBOX_ADMIN_TOKEN="$TOKEN" \
#     acd-sandbox --clock manual
#   curl -X POST -H "Authorization: Bearer $TOKEN" \
#     -H 'Content-Type: application/json' -d '{"advance_ms": 60000}' \
#     http://127.0.0.1:8080/_sandbox/clock
#
# (TOKEN: 1 to 4096 visible ASCII characters, e.g. `openssl rand -hex 16`.)
# Not built by scripts/test: only where a Docker engine exists.

FROM rust:1-slim-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p acd-sandbox \
 && cp target/release/acd-sandbox /usr/local/bin/acd-sandbox

FROM debian:bookworm-slim
COPY --from=build /usr/local/bin/acd-sandbox /usr/local/bin/acd-sandbox
USER 65534:65534
EXPOSE 8080
STOPSIGNAL SIGTERM
ENTRYPOINT ["acd-sandbox", "--listen", "0.0.0.0:8080", "--allow-remote"]
