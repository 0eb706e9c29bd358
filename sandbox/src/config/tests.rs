//! Tests of the configuration file.
