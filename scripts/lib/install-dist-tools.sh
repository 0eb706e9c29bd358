#!/usr/bin/env bash
# What scripts/dist and scripts/test-dist need, in .cache/venv-dist (from
# PyPI, pinned; skipped when already there):
#   maturin          builds the Python wheel and sdist
#   ziglang          zig, the linker that targets an old glibc (2.17), for
#                    maturin --zig and cargo-zigbuild
#   cargo-zigbuild   `cargo zigbuild --target x86_64-unknown-linux-gnu.2.17`
#                    (the host target with a glibc suffix: no rustup download)
#   auditwheel       checks the wheel's manylinux tag
#   twine            checks the wheel's and sdist's metadata
# Binaries: .cache/venv-dist/bin/{maturin,cargo-zigbuild,auditwheel,twine};
# zig: .cache/venv-dist/bin/python -m ziglang.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

exec "$(dirname "${BASH_SOURCE[0]}")/install-python-venv.sh" dist \
  'maturin==1.16.0' 'ziglang==0.17.0' 'cargo-zigbuild==0.24.0' \
  'auditwheel==6.8.2' 'twine==7.0.0'
