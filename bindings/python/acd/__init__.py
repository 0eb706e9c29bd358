"""acd: the Agent and Connected-Data API engine, from Python.

Every rule runs in the Rust core; the classes below come from the generated
module ``acd._ffi.acd_ffi``. ``acd._helpers`` adds a few context-free
conveniences (building headers and requests from plain Python values).

    >>> import acd
    >>> gate = acd.Gate.demo(acd.GateConfig())
"""
from ._ffi.acd_ffi import *  # noqa: F401,F403
from ._helpers import gate_request as gate_request, header as header
from . import _speedups as _speedups

__version__ = "0.1.0"
