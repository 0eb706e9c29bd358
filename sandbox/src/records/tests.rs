//! Tests of paging, ordering and filters.
