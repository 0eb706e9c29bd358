//! Unit tests of the shard table: insert, find, remove and the sweep.

use super::*;

fn hash(key: u64) -> u64 {
    key.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17)
}

/// The tests' hash as a table's [`Rehash`].
#[derive(Debug)]
struct TestHash;

impl Rehash<u64> for TestHash {
    fn rehash(&self, key: &u64) -> u64 {
        hash(*key)
    }
}

fn table(cap: usize) -> Table<u64, TestHash> {
    Table::new(cap, TestHash)
}

#[test]
fn insert_find_remove_keep_every_other_key() {
    let mut table = table(1_000);
    for key in 0..1_000u64 {
        assert_eq!(table.find(hash(key), &key), None);
        table.insert(hash(key), key, (key, 1), key);
    }
    assert_eq!(table.len(), 1_000);
    assert!(!table.has_room(1));
    assert_eq!(std::mem::size_of::<Slot<u64>>(), 16);
    assert!(table.slot_bytes() <= 1_143 * 16);
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
    let mut table = table(64);
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
    // The sweep rests once the table (slots for 64 at a 7/8 load) is less
    // than half full.
    assert!(table.len() < 37);
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
    let mut table = table(64);
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

/// Every key hashes alike: one run of probe distances far past what the
/// distance byte holds (254), as a flood of colliding keys would make.
#[derive(Debug)]
struct OneHome;

impl Rehash<u64> for OneHome {
    fn rehash(&self, _key: &u64) -> u64 {
        7
    }
}

#[test]
fn a_run_longer_than_the_distance_byte_is_found_removed_and_grown() {
    let mut table: Table<u64, OneHome> = Table::new(600, OneHome);
    for key in 0..600u64 {
        assert_eq!(table.lookup(7, &key).ok(), None);
        table.insert(7, key, (key, 2), key);
    }
    assert_eq!(table.len(), 600);
    for key in (0..600u64).step_by(3) {
        let at = table.find(7, &key).unwrap();
        table.remove_at(at);
    }
    for key in 0..600u64 {
        let found = table.find(7, &key).and_then(|at| table.state_at(at));
        assert_eq!(found, (key % 3 != 0).then_some((key, 2)), "key {key}");
    }
    // Put back what was removed, from the vacancy each lookup found.
    for key in (0..600u64).step_by(3) {
        let vacancy = table.lookup(7, &key).unwrap_err();
        table.insert_vacant(vacancy, 7, key, (key, 3), key);
    }
    for key in 0..600u64 {
        let extra = if key % 3 == 0 { 3 } else { 2 };
        let found = table.find(7, &key).and_then(|at| table.state_at(at));
        assert_eq!(found, Some((key, extra)), "key {key}");
    }
}

#[test]
fn states_round_trip_inline_in_the_side_list_and_across_an_epoch_move() {
    let mut table = table(16);
    let states = [
        (1_700_000_000_000, 5),
        (1_700_000_000_000 + (1 << 33), 5),
        (1_700_000_000_000, u32::MAX),
        (3, 0),
        (u64::MAX, 1 << 23),
    ];
    for (key, state) in (0u64..).zip(states) {
        table.insert(hash(key), key, state, state.0);
    }
    let read = |table: &Table<u64, TestHash>| {
        (0u64..5)
            .map(|key| {
                table
                    .find(hash(key), &key)
                    .and_then(|at| table.state_at(at))
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(read(&table), states.map(Some));
    // A month later the epoch moves on; nothing is due, nothing changes.
    let later = 1_700_000_000_000 + 30 * 86_400_000;
    table.tick(later);
    assert_eq!(read(&table), states.map(Some));
    // States written after the move are inline again, and read back.
    let at = table.find(hash(0), &0).unwrap();
    table.set_at(at, (later + 60_000, 9));
    assert_eq!(table.state_at(at), Some((later + 60_000, 9)));
}

/// Keys that are their own hash, so a test picks each key's home slot.
#[derive(Debug)]
struct OwnHash;

impl Rehash<u64> for OwnHash {
    fn rehash(&self, key: &u64) -> u64 {
        *key
    }
}

#[test]
fn an_insert_that_shifts_a_run_round_the_end_keeps_every_key_findable() {
    // Eight slots: a home is the top three bits of the low 32.
    let key = |home: u64, tag: u64| (home << 29) | tag;
    let mut table = Table::new(7, OwnHash);
    let (a, b, c, d, e) = (key(6, 1), key(6, 2), key(7, 3), key(5, 4), key(5, 5));
    for k in [a, b, c, d] {
        table.insert(k, k, (k, 0), u64::MAX);
    }
    assert_eq!(table.slots.len(), 8);
    // a at 6, b at 7, c at 0 (one past its home), d at 5. e's home is 5:
    // it takes slot 6 and a, b and c move one slot on, round the end.
    assert_eq!(table.find(a, &a), Some(6));
    assert_eq!(table.find(c, &c), Some(0));
    let Err(vacancy) = table.lookup(e, &e) else {
        panic!("e is not in the table yet");
    };
    table.insert_vacant(vacancy, e, e, (e, 0), u64::MAX);
    let places: Vec<Option<usize>> = [a, b, c, d, e].iter().map(|k| table.find(*k, k)).collect();
    assert_eq!(places, [Some(7), Some(0), Some(1), Some(5), Some(6)]);
    for (k, at) in [(a, 7), (b, 0), (c, 1), (d, 5), (e, 6)] {
        assert_eq!(table.state_at(at), Some((k, 0)));
    }
    // Removing e shifts them back; every other key is still found.
    let at = table.find(e, &e).unwrap();
    table.remove_at(at);
    let places: Vec<Option<usize>> = [a, b, c, d, e].iter().map(|k| table.find(*k, k)).collect();
    assert_eq!(places, [Some(6), Some(7), Some(0), Some(5), None]);
}
