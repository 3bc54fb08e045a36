//! The SDRAM chip model (`golden::sdram_chip`) against the datasheet: a legal session reads back
//! what it wrote at the CAS latency, and every timing rule holds at its minimum gap and breaks
//! one clock short of it, at the predicted cycle with the rule's name.

use tilerast_golden::sdram_chip::{
    init_schedule, SdramChip, SdramCmd, SdramMode, SdramPins, SdramViolation, AS4C32M16SB, MT48LC16M16A2,
};

const HZ: f64 = 100e6;
/// A shortened power-up wait (100 clocks at 100 MHz); every other rule is the datasheet's.
const INIT_NS: f64 = 1000.0;

fn mode(burst: u32, cas_latency: u32) -> SdramMode {
    SdramMode {
        burst,
        cas_latency,
        single_writes: false,
    }
}

/// A chip at 100 MHz taken through the legal initialisation; returns it ready.
fn ready(m: SdramMode) -> SdramChip {
    let mut chip = SdramChip::new(MT48LC16M16A2.with_init_ns(INIT_NS), HZ);
    for c in init_schedule(&chip.clocks(), m) {
        chip.clock(&c.pins())
            .unwrap_or_else(|e| panic!("the legal initialisation broke a rule: {e}"));
    }
    chip
}

fn nops(chip: &mut SdramChip, n: u64) -> Result<(), SdramViolation> {
    for _ in 0..n {
        chip.clock(&SdramCmd::Nop.pins())?;
    }
    Ok(())
}

fn cmd(chip: &mut SdramChip, c: SdramCmd) -> Result<(), SdramViolation> {
    chip.clock(&c.pins())
}

fn active(bank: u8, row: u16) -> SdramCmd {
    SdramCmd::Active { bank, row }
}
fn read(bank: u8, column: u16) -> SdramCmd {
    SdramCmd::Read {
        bank,
        column,
        auto_precharge: false,
    }
}
fn write(bank: u8, column: u16, data: u16) -> SdramCmd {
    SdramCmd::Write {
        bank,
        column,
        auto_precharge: false,
        data,
    }
}
fn precharge(bank: u8) -> SdramCmd {
    SdramCmd::Precharge { bank, all: false }
}

/// Write data for the later words of a burst (no command).
fn data(word: u16) -> SdramPins {
    SdramPins {
        dq_out: word,
        dq_oe: true,
        ..SdramCmd::Nop.pins()
    }
}

/// Expect a violation of `rule` at `cycle`.
fn expect(r: Result<(), SdramViolation>, rule: &str, cycle: u64) {
    let e = r.expect_err(&format!("{rule} not caught"));
    assert_eq!((e.rule, e.cycle), (rule, cycle), "{e}");
    let line = e.to_string();
    assert!(
        !line.contains('\n') && line.contains(&format!("cycle {cycle}")) && line.contains(rule),
        "{line}"
    );
}

#[test]
fn the_clocks_are_the_datasheets_rounded_up() {
    let t = MT48LC16M16A2.timings.at(HZ);
    assert_eq!(
        (t.rp, t.rfc, t.ras, t.rc, t.rcd, t.rrd, t.wr, t.mrd),
        (2, 7, 5, 7, 2, 2, 2, 2)
    );
    // 64 ms / 8192 = 7.8125 µs, rounded down: a maximum.
    assert_eq!((t.init, t.refi), (10_000, 781));
    let a = AS4C32M16SB.timings.at(HZ);
    assert_eq!((a.rp, a.rfc, a.ras, a.rc, a.rcd), (3, 7, 5, 7, 3));
    assert_eq!(MT48LC16M16A2.bytes(), 32 << 20);
    assert_eq!(AS4C32M16SB.bytes(), 64 << 20);
}

#[test]
fn a_write_burst_reads_back_at_the_cas_latency_and_wraps_in_its_block() {
    for cl in [2u32, 3] {
        let mut chip = ready(mode(8, cl));
        let rcd = chip.clocks().rcd;
        cmd(&mut chip, active(1, 77)).unwrap();
        nops(&mut chip, rcd - 1).unwrap();
        // Eight words from column 5: 5, 6, 7, then 0..4 of the aligned block of 8.
        let words: Vec<u16> = (0..8).map(|i| 0x1234u16.wrapping_mul(i + 3) ^ 0xa5a5).collect();
        cmd(&mut chip, write(1, 5, words[0])).unwrap();
        for &w in &words[1..] {
            chip.clock(&data(w)).unwrap();
        }
        for (i, &w) in words.iter().enumerate() {
            assert_eq!(chip.word(1, 77, (5 + i as u32) % 8), w, "CL {cl}: word {i}");
        }
        assert_eq!(chip.word(1, 77, 8), 0, "the burst stayed in its block");
        let wr = chip.clocks().wr;
        nops(&mut chip, wr).unwrap();
        // Read from column 2: words come out CL - 1 edges after each fetch.
        cmd(&mut chip, read(1, 2)).unwrap();
        let mut got = Vec::new();
        for _ in 0..(8 + cl) {
            got.push(chip.dq());
            nops(&mut chip, 1).unwrap();
        }
        let want: Vec<Option<u16>> = (0..(8 + cl) as usize)
            .map(|k| {
                // got[k] is driven after the edge of the READ + k.
                let beat = k as i64 - (cl as i64 - 1);
                (0..8).contains(&beat).then(|| chip.word(1, 77, (2 + beat as u32) % 8))
            })
            .collect();
        assert_eq!(got, want, "CL {cl}");
        assert!(got.iter().flatten().any(|&w| w != 0));
        let s = chip.stats();
        assert_eq!(
            (s.activates, s.writes, s.reads, s.write_words, s.read_words),
            (1, 1, 1, 8, 8)
        );
        // Precharge after tRAS: the session was legal.
        cmd(&mut chip, precharge(1)).unwrap();
    }
}

#[test]
fn dqm_masks_write_bytes_and_read_words_two_clocks_later() {
    let mut chip = ready(mode(1, 2));
    cmd(&mut chip, active(0, 3)).unwrap();
    nops(&mut chip, 1).unwrap();
    cmd(&mut chip, write(0, 9, 0xbbaa)).unwrap();
    let mut p = write(0, 10, 0xddcc).pins();
    p.dqm = 0b10; // upper byte masked
    chip.clock(&p).unwrap();
    assert_eq!((chip.word(0, 3, 9), chip.word(0, 3, 10)), (0xbbaa, 0x00cc));
    // READ at edge n with DQM high at edge n: its word (driven after n + 1) is not driven, so
    // a WRITE at n + 2 drives dq without contention.
    nops(&mut chip, 2).unwrap();
    let mut r = read(0, 9).pins();
    r.dqm = 3;
    chip.clock(&r).unwrap();
    nops(&mut chip, 1).unwrap();
    assert_eq!(chip.dq(), None, "a masked read word is not driven");
    cmd(&mut chip, write(0, 11, 1)).unwrap();
    // Without DQM the same sequence is bus contention at the WRITE's edge.
    let n = chip.cycle() + 1;
    cmd(&mut chip, read(0, 9)).unwrap();
    nops(&mut chip, 1).unwrap();
    assert_eq!(chip.dq(), Some(0xbbaa));
    expect(cmd(&mut chip, write(0, 11, 1)), "dq contention", n + 1);
}

/// Run `before`, then NOPs, then `after` `gap` clocks after it; `after` must break `rule`
/// when `gap` is one short of `min` and pass at `min`.
fn boundary(rule: &str, setup: &[SdramCmd], before: SdramCmd, after: SdramCmd, min: u64) {
    for gap in [min - 1, min] {
        let mut chip = ready(mode(1, 2));
        for &c in setup {
            cmd(&mut chip, c).unwrap();
            nops(&mut chip, 20).unwrap();
        }
        cmd(&mut chip, before).unwrap();
        nops(&mut chip, gap - 1).unwrap();
        let at = chip.cycle();
        let r = cmd(&mut chip, after);
        if gap < min {
            expect(r, rule, at);
        } else {
            r.unwrap_or_else(|e| panic!("{rule} at its minimum gap {min}: {e}"));
        }
    }
}

#[test]
fn every_timing_rule_holds_at_its_minimum_and_breaks_one_clock_short() {
    let t = MT48LC16M16A2.timings.at(HZ);
    boundary("tRCD", &[], active(2, 1), read(2, 0), t.rcd);
    boundary("tRCD", &[], active(2, 1), write(2, 0, 7), t.rcd);
    boundary("tRAS", &[], active(2, 1), precharge(2), t.ras);
    boundary("tRP", &[active(2, 1)], precharge(2), active(2, 1), t.rp);
    boundary("tRP", &[active(2, 1)], precharge(2), SdramCmd::Refresh, t.rp);
    boundary("tRRD", &[], active(0, 1), active(3, 1), t.rrd);
    boundary("tRFC", &[], SdramCmd::Refresh, active(0, 1), t.rfc);
    boundary("tRFC", &[], SdramCmd::Refresh, SdramCmd::Refresh, t.rfc);
    boundary("tWR", &[active(1, 4)], write(1, 0, 9), precharge(1), t.wr);
    boundary(
        "tMRD",
        &[],
        SdramCmd::LoadMode {
            mode: mode(1, 2).bits(),
        },
        active(0, 0),
        t.mrd,
    );
    // tRC: ACTIVE, PRECHARGE at tRAS, ACTIVE again: tRC (7) > tRAS + tRP (5 + 2) is not the
    // case at 100 MHz, so probe it with PRECHARGE ALL right after tRAS.
    for (gap, ok) in [(t.rc - 1, false), (t.rc, true)] {
        let mut chip = ready(mode(1, 2));
        let start = chip.cycle();
        cmd(&mut chip, active(1, 2)).unwrap();
        nops(&mut chip, t.ras - 1).unwrap();
        cmd(&mut chip, precharge(1)).unwrap();
        let wait = start + gap - chip.cycle();
        nops(&mut chip, wait).unwrap();
        let at = chip.cycle();
        let r = cmd(&mut chip, active(1, 2));
        // With tRP = 2 after the PRECHARGE at tRAS = 5, the ACTIVE at 6 breaks tRP first.
        if ok {
            r.unwrap();
        } else {
            let e = r.unwrap_err();
            assert!(e.cycle == at && (e.rule == "tRC" || e.rule == "tRP"), "{e}");
        }
    }
}

#[test]
fn a_too_short_trcd_is_stopped_at_its_cycle() {
    // The planted violation: a controller whose tRCD is one clock short.
    let mut chip = ready(mode(4, 2));
    let n = chip.cycle();
    cmd(&mut chip, active(0, 100)).unwrap();
    expect(cmd(&mut chip, read(0, 0)), "tRCD", n + 1);
}

#[test]
fn initialisation_and_bank_state_and_addresses_are_checked() {
    let part = MT48LC16M16A2.with_init_ns(INIT_NS);
    let mut chip = SdramChip::new(part, HZ);
    nops(&mut chip, 5).unwrap();
    expect(cmd(&mut chip, SdramCmd::Precharge { bank: 0, all: true }), "tINIT", 5);
    let mut chip = SdramChip::new(part, HZ);
    nops(&mut chip, 100).unwrap();
    expect(cmd(&mut chip, active(0, 0)), "init", 100);
    // LOAD MODE REGISTER without the two refreshes leaves the chip uninitialised.
    let mut chip = SdramChip::new(part, HZ);
    nops(&mut chip, 100).unwrap();
    cmd(&mut chip, SdramCmd::Precharge { bank: 0, all: true }).unwrap();
    nops(&mut chip, 3).unwrap();
    cmd(
        &mut chip,
        SdramCmd::LoadMode {
            mode: mode(1, 2).bits(),
        },
    )
    .unwrap();
    nops(&mut chip, 3).unwrap();
    expect(cmd(&mut chip, active(0, 0)), "init", 108);

    let mut chip = ready(mode(1, 2));
    let n = chip.cycle();
    expect(cmd(&mut chip, read(1, 0)), "bank state", n);
    let mut chip = ready(mode(1, 2));
    cmd(&mut chip, active(1, 0)).unwrap();
    nops(&mut chip, 20).unwrap();
    let n = chip.cycle();
    expect(cmd(&mut chip.clone(), active(1, 5)), "bank state", n);
    expect(cmd(&mut chip.clone(), SdramCmd::Refresh), "bank state", n);
    expect(cmd(&mut chip.clone(), read(1, 512)), "address", n);
    expect(cmd(&mut chip.clone(), active(4, 0)), "address", n);
    expect(cmd(&mut chip.clone(), active(2, 8192)), "address", n);
    expect(
        cmd(
            &mut chip.clone(),
            SdramCmd::Read {
                bank: 1,
                column: 0,
                auto_precharge: true,
            },
        ),
        "unsupported",
        n,
    );
}

#[test]
fn the_mode_register_and_the_clock_are_checked() {
    let part = MT48LC16M16A2.with_init_ns(INIT_NS);
    // CAS latency 2 is good to 100 MHz on a -75 part; at 133 MHz it needs 3.
    let mut fast = SdramChip::new(part, 133e6);
    let sched = init_schedule(&fast.clocks(), mode(1, 2));
    let last_load = sched
        .iter()
        .rposition(|c| matches!(c, SdramCmd::LoadMode { .. }))
        .unwrap() as u64;
    let r = sched.iter().try_for_each(|c| fast.clock(&c.pins()));
    expect(r, "tCK", last_load);
    let mut ok = SdramChip::new(part, 133e6);
    for c in init_schedule(&ok.clocks(), mode(1, 3)) {
        ok.clock(&c.pins()).unwrap();
    }
    assert_eq!(ok.mode(), Some(mode(1, 3)));
    // Interleaved bursts are refused by name.
    let mut chip = SdramChip::new(part, HZ);
    let sched = init_schedule(&chip.clocks(), mode(4, 2));
    let at = sched
        .iter()
        .rposition(|c| matches!(c, SdramCmd::LoadMode { .. }))
        .unwrap() as u64;
    let r = sched
        .iter()
        .map(|c| match c {
            SdramCmd::LoadMode { mode } => SdramCmd::LoadMode { mode: mode | 8 },
            c => *c,
        })
        .try_for_each(|c| chip.clock(&c.pins()));
    expect(r, "unsupported", at);
}

#[test]
fn refresh_may_be_postponed_eight_times_and_no_more() {
    let refi = MT48LC16M16A2.timings.at(HZ).refi;
    // Refreshing every tREFI runs forever (here 20 intervals).
    let mut chip = ready(mode(1, 2));
    for _ in 0..20 {
        nops(&mut chip, refi - 1).unwrap();
        cmd(&mut chip, SdramCmd::Refresh).unwrap();
    }
    assert_eq!(chip.stats().refreshes, 2 + 20);
    // None at all: the ninth interval's end breaks the rule.
    let mut chip = ready(mode(1, 2));
    let r0 = chip.cycle() - 1 - (chip.clocks().mrd - 1);
    let r = nops(&mut chip, 10 * refi);
    expect(r, "refresh interval", r0 + 9 * refi);
}

#[test]
fn a_new_read_ends_the_burst_and_its_words_follow_the_fetched_ones() {
    let mut chip = ready(mode(8, 2));
    cmd(&mut chip, active(3, 9)).unwrap();
    nops(&mut chip, 1).unwrap();
    cmd(&mut chip, write(3, 0, 100)).unwrap();
    for w in 101..108 {
        chip.clock(&data(w)).unwrap();
    }
    nops(&mut chip, 2).unwrap();
    cmd(&mut chip, read(3, 0)).unwrap();
    nops(&mut chip, 1).unwrap();
    let mut got = vec![chip.dq()];
    cmd(&mut chip, read(3, 6)).unwrap();
    got.push(chip.dq());
    for _ in 0..9 {
        nops(&mut chip, 1).unwrap();
        got.push(chip.dq());
    }
    // The first READ fetched columns 0 and 1; then 6, 7, 0..5 of the second.
    let want: Vec<Option<u16>> = [100, 101, 106, 107, 100, 101, 102, 103, 104, 105]
        .iter()
        .map(|&w| Some(w))
        .chain([None])
        .collect();
    assert_eq!(got, want);
    // A BURST TERMINATE stops the second one's fetches.
    cmd(&mut chip, read(3, 0)).unwrap();
    cmd(&mut chip, SdramCmd::BurstTerminate).unwrap();
    let mut after = vec![chip.dq()];
    for _ in 0..3 {
        nops(&mut chip, 1).unwrap();
        after.push(chip.dq());
    }
    assert_eq!(after, vec![Some(100), None, None, None]);
}
