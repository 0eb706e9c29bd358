"""Every name of the generated uniffi module, for advanced use (the
conformance vectors, custom drive loops). The names and shapes here follow
the Rust boundary; the Pythonic API is the top-level ``acd`` package."""
from ._ffi.acd_ffi import *  # noqa: F401,F403
from ._helpers import gate_request as gate_request, header as header
