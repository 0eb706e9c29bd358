//! Configuration is checked where it lives: quotas that would refuse
//! everything, and Deprecation/Sunset pairs that break the notice the index
//! advertises, are refused when the gate is built.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use acd_core::gate::{Gate, GateConfig, GateConfigError};
use acd_core::limit::Quota;
use acd_core::model::DeprecationNotice;

fn refused(config: GateConfig) -> (String, String) {
    match Gate::demo(config) {
        Err(GateConfigError::Field { field, problem }) => (field.to_owned(), problem),
        other => panic!("expected a refused field, got {other:?}"),
    }
}

const DAY: u64 = 86_400;
const DEPRECATED: u64 = 1_735_689_600;

#[test]
fn a_quota_of_zero_requests_or_a_window_out_of_bounds_is_refused() {
    let mut config = GateConfig::default();
    config.limits.credential = Quota::per_seconds(0, 60);
    let (field, problem) = refused(config);
    assert_eq!(field, "limits.credential");
    assert_eq!(
        problem,
        "requests must be at least 1 (0 would refuse every request)"
    );

    let mut config = GateConfig::default();
    config.limits.client_ip = Quota {
        requests: 10,
        window_ms: 500,
    };
    assert_eq!(refused(config).0, "limits.client_ip");

    let mut config = GateConfig::default();
    let reads = config.catalogue.get_mut("listTableRecords").unwrap();
    reads.extra_limits[0].quota = Quota::per_seconds(0, 60);
    let (field, problem) = refused(config);
    assert_eq!(field, "catalogue");
    assert!(problem.contains("\"user_table_reads\""), "{problem}");

    let mut config = GateConfig::default();
    config.limits.credential = Quota::per_seconds(1, 1);
    assert!(Gate::demo(config).is_ok());
}

#[test]
fn a_sunset_inside_the_advertised_notice_is_refused() {
    // The default index advertises 90 days.
    let notice = |sunset_at| DeprecationNotice {
        deprecated_at: DEPRECATED,
        sunset_at: Some(sunset_at),
    };
    let config = GateConfig {
        version_deprecation: Some(notice(DEPRECATED - 1)),
        ..GateConfig::default()
    };
    let (field, problem) = refused(config);
    assert_eq!(field, "deprecation");
    assert!(problem.contains("at least 90 day(s)"), "{problem}");

    let mut config = GateConfig::default();
    config
        .catalogue
        .get_mut("listTableRecords")
        .unwrap()
        .deprecation = Some(notice(DEPRECATED + 90 * DAY - 1));
    let (_, problem) = refused(config);
    assert!(
        problem.starts_with("operation \"listTableRecords\""),
        "{problem}"
    );

    let config = GateConfig {
        version_deprecation: Some(notice(DEPRECATED + 90 * DAY)),
        ..GateConfig::default()
    };
    assert!(Gate::demo(config).is_ok(), "exactly 90 days is enough");

    // Without an advertised minimum, only a sunset before the deprecation is wrong.
    let mut config = GateConfig::default();
    config.index.minimum_sunset_notice_days = None;
    config.version_deprecation = Some(notice(DEPRECATED));
    assert!(Gate::demo(config.clone()).is_ok());
    config.version_deprecation = Some(notice(DEPRECATED - 1));
    assert_eq!(refused(config).0, "deprecation");
}
