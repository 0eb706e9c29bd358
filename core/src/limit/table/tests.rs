//! Unit tests of the shard table: insert, find, remove and the sweep.

use super::*;

fn hash(key: u64) -> u64 {
    key.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17)
}

#[test]
fn insert_find_remove_keep_every_other_key() {
    let mut table: Table<u64> = Table::new(1_000);
    for key in 0..1_000u64 {
        assert_eq!(table.find(hash(key), &key), None);
        table.insert(hash(key), key, (key, 1), key);
    }
    assert_eq!(table.len(), 1_000);
    assert!(!table.has_room(1));
    assert!(table.slot_bytes() <= 1_250 * std::mem::size_of::<Slot<u64>>());
    for key in (0..1_000u64).step_by(2) {
        let at = table.find(hash(key), &key).unwrap();
        table.remove_at(at);
    }
    for key in 0..1_000u64 {
        let found = table
            .find(hash(key), &key)
            .and_then(|at| table.state_at(at));
        assert_eq!(found, (key % 2 == 1).then_some((key, 1)));
    }
}

#[test]
fn sweep_reclaims_expired_entries_within_its_budget() {
    let mut table: Table<u64> = Table::new(64);
    for key in 0..64u64 {
        let time = if key < 32 { 10 } else { 1_000 };
        table.insert(hash(key), key, (time, 0), time);
    }
    let mut removed = 0;
    for _ in 0..100 {
        let step = table.sweep(4, 500, |time, _| time);
        assert!(step <= 4 * SWEEP_ROUNDS);
        removed += step;
    }
    // The sweep rests once the table (80 slots) is less than half full.
    assert!(table.len() < 40);
    assert_eq!(removed, 64 - table.len());
    // A scan is not gated: it reclaims the rest.
    while table
        .scan(80, 500, &|time, _| time, &|_: &u64| false)
        .reclaimed
        > 0
    {}
    assert_eq!(table.len(), 32);
    let scan = table.scan(80, 500, &|time, _| time, &|_: &u64| false);
    assert_eq!(scan.soonest.map(|(_, at)| at), Some(1_000));
}

#[test]
fn sweep_rests_until_the_earliest_expiry_then_the_bound_moves_up() {
    let mut table: Table<u64> = Table::new(64);
    for key in 0..64u64 {
        let time = 100 + key;
        table.insert(hash(key), key, (time, 0), time);
    }
    assert_eq!(table.earliest(), 100);
    // Nothing has expired before 100: the sweep examines nothing.
    assert_eq!(table.sweep(8, 99, |time, _| time), 0);
    assert_eq!(table.len(), 64);
    // At 110 the entries 100..=110 go, in laps of the cursor.
    let mut removed = 0;
    for _ in 0..200 {
        removed += table.sweep(8, 110, |time, _| time);
    }
    assert_eq!(removed, 11);
    assert_eq!(table.len(), 53);
    // After full laps the bound is the least live expiry.
    assert_eq!(table.earliest(), 111);
    assert_eq!(table.sweep(8, 110, |time, _| time), 0);
}
