"""The resource helpers shared by :class:`acd.HttpClient` and
:class:`acd.AsyncHttpClient`: request specs for reads, by parameter *role*
(the catalogue decides the names on the wire), and the final value of a call."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from ._engine import Event
from ._ffi import acd_ffi as _ffi

__all__ = ["table_spec", "connection_spec", "index_spec", "result_of"]


def _with_roles(spec: _ffi.RequestSpec, **roles: Optional[Any]) -> _ffi.RequestSpec:
    names = {
        "limit": _ffi.ParamRole.LIMIT,
        "offset": _ffi.ParamRole.OFFSET,
        "order_by": _ffi.ParamRole.ORDER_BY,
        "direction": _ffi.ParamRole.DIRECTION,
        "after": _ffi.ParamRole.AFTER,
        "filter": _ffi.ParamRole.FILTER,
    }
    spec.roles.extend(
        _ffi.RoleParam(role=names[name], value=str(value)) for name, value in roles.items() if value is not None
    )
    return spec


def index_spec() -> _ffi.RequestSpec:
    """``GET /api/v1`` (the API index)."""
    return _ffi.spec_get_api_index()


def table_spec(table: str, *, limit: Optional[int], offset: Optional[int], order_by: Optional[str],
               direction: Optional[str], after: Optional[str]) -> _ffi.RequestSpec:
    """One page of ``table``'s records."""
    return _with_roles(_ffi.spec_list_table_records(table), limit=limit, offset=offset, order_by=order_by,
                       direction=direction, after=after)


def connection_spec(connection: str, entity_id: str, *, limit: Optional[int], offset: Optional[int],
                    filter: Optional[str]) -> _ffi.RequestSpec:
    """One page of the records of ``entity_id`` in ``connection``."""
    return _with_roles(_ffi.spec_list_connection_records(connection, entity_id), limit=limit, offset=offset,
                       filter=filter)


def result_of(event: Event) -> Any:
    """The value a ``response`` event carries: the records (``list[dict]``),
    the index or the object (``dict``)."""
    kind = event["kind"]
    if kind == "records":
        records: List[Dict[str, Any]] = event["records"]
        return records
    return event["index" if kind == "index" else "value"]
