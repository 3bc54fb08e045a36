//! rust-hdl simulation of `TileSequencer` against its cycle model `TileSequencerCycle`, with two
//! golden `MemoryCycle`s behind the read ports (the binner's lists and the primitive table of a
//! random frame, `stim::seq_images`) serviced from the testbench every cycle: `in_ready`,
//! `lrsp_ready`, `prsp_ready`, `lrd_valid` + `lrd`, `prd_valid` + `prd`, `out_valid` + `out`
//! must agree on every cycle. Stimulus: start tokens with gaps and junk payloads, random
//! `out_ready` with a long stall, random grants on both ports with a long stall, flushes
//! mid-frame; the beats out must be golden's commands (`pipeline::commands`) with depths and
//! the end token.

use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};
use tilerast_golden::config::Config;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::streams::{port_name, ports, SeqCmd, SeqStart, Stream};
use tilerast_golden::tile_sequencer::TileSequencerCycle;
use tilerast_hw::tile_sequencer::TileSequencer;
use tilerast_verif::stim::{seq_beats, seq_frame, seq_images};
use tilerast_verif::{Pattern, Rng};

/// Control lines of one cycle: (start offered, out_ready, list grant, table grant, flush).
type Lines = Box<dyn FnMut(u64) -> (bool, bool, bool, bool, bool) + Send>;

#[derive(Debug, Default)]
struct Report {
    cycles: u64,
    mismatch: Option<(u64, Vec<String>)>,
    wrong: Option<String>,
    frames: u64,
    cmds: u64,
    points: u64,
    lreads: u64,
    preads: u64,
    out_stall: u64,
    longest_out_stall: u64,
    flushes: u64,
    first_out: Option<u64>,
}

fn diff<S: Stream>(iface: &str, rtl: &S::Payload, model: &S::Payload, out: &mut Vec<String>) {
    let (r, m) = (S::to_bits(rtl), S::to_bits(model));
    for (i, f) in S::FIELDS.iter().enumerate() {
        if r[i] != m[i] {
            out.push(format!(
                "{} rtl {:#x} model {:#x}",
                port_name(iface, f.name),
                r[i],
                m[i]
            ));
        }
    }
}

fn run(
    cfg: &Config,
    want: Vec<SeqCmd>,
    timing: MemTiming,
    lists: SparseMemory,
    pt: SparseMemory,
    cycles: u64,
    lines: Lines,
) -> Report {
    let mut dut = TileSequencer::new(cfg);
    dut.connect_all();
    let state = Arc::new(Mutex::new(Some((
        TileSequencerCycle::new(cfg),
        MemoryCycle::new(timing, lists),
        MemoryCycle::new(timing, pt),
        lines,
    ))));
    let result = Arc::new(Mutex::new(None));
    let res = result.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<TileSequencer>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<TileSequencer>| {
        let (mut model, mut lm, mut pm, mut lines) = state.lock().unwrap().take().unwrap();
        let mut r = Report::default();
        let mut junk = Rng::new(77);
        let mut pos = 0usize;
        let mut stall = 0u64;
        let mut x = sim.init()?;
        for cycle in 0..cycles {
            let (valid, out_ready, lg, pg, flush) = lines(cycle);
            let inp = SeqStart {
                frame: junk.next_u32() as u8,
            };
            let lrd_ready = lm.req_ready(lg);
            let prd_ready = pm.req_ready(pg);
            let (lrsp_valid, lrsp) = lm.resp();
            let (prsp_valid, prsp) = pm.resp();
            x.in_valid.next = valid;
            x.inp.drive(&inp);
            x.out_ready.next = out_ready;
            x.lrd_ready.next = lrd_ready;
            x.prd_ready.next = prd_ready;
            x.lrsp_valid.next = lrsp_valid;
            x.lrsp.drive(&lrsp);
            x.prsp_valid.next = prsp_valid;
            x.prsp.drive(&prsp);
            x.flush.next = flush;
            x = sim.watch(|x| !x.clock.val().clk, x)?;
            let (out_valid, out) = model.out();
            let (lrd_valid, lrd) = model.lrd();
            let (prd_valid, prd) = model.prd();
            let mut d = Vec::new();
            for (name, rtl, m) in [
                ("in_ready", x.in_ready.val(), model.in_ready()),
                ("lrsp_ready", x.lrsp_ready.val(), model.lrsp_ready()),
                ("prsp_ready", x.prsp_ready.val(), model.prsp_ready()),
                ("lrd_valid", x.lrd_valid.val(), lrd_valid),
                ("prd_valid", x.prd_valid.val(), prd_valid),
                ("out_valid", x.out_valid.val(), out_valid),
            ] {
                if rtl != m {
                    d.push(format!("{name} rtl {rtl} model {m}"));
                }
            }
            diff::<ports::MemReq>("lrd", &x.lrd.sample(), &lrd, &mut d);
            diff::<ports::MemReq>("prd", &x.prd.sample(), &prd, &mut d);
            diff::<ports::SeqCmd>("out", &x.out.sample(), &out, &mut d);
            r.cycles = cycle + 1;
            if !d.is_empty() {
                r.mismatch = Some((cycle, d));
                break;
            }
            r.out_stall += (out_valid && !out_ready) as u64;
            stall = if out_valid && !out_ready { stall + 1 } else { 0 };
            r.longest_out_stall = r.longest_out_stall.max(stall);
            r.flushes += flush as u64;
            if flush {
                pos = 0;
            } else {
                if out_valid && out_ready {
                    r.first_out.get_or_insert(cycle);
                    if out != want[pos] && r.wrong.is_none() {
                        r.wrong = Some(format!("cycle {cycle}: beat {pos} {out:?}, golden {:?}", want[pos]));
                    }
                    r.cmds += (!out.end) as u64;
                    r.points += (!out.end && out.cmd.kind == 1) as u64;
                    pos += 1;
                    if pos == want.len() {
                        pos = 0;
                        r.frames += 1;
                    }
                }
                r.lreads += (lrd_valid && lrd_ready) as u64;
                r.preads += (prd_valid && prd_ready) as u64;
            }
            model.clock(
                valid, &inp, out_ready, lrd_ready, lrsp_valid, &lrsp, prd_ready, prsp_valid, &prsp, flush,
            );
            lm.clock(lrd_valid && !flush, &lrd, lg, true, flush);
            pm.clock(prd_valid && !flush, &prd, pg, true, flush);
            x = sim.watch(|x| x.clock.val().clk, x)?;
        }
        *res.lock().unwrap() = Some(r);
        sim.done(x)
    });
    sim.run(Box::new(dut), 10 * (cycles + 10)).expect("rust-hdl simulation");
    let r = result.lock().unwrap().take().unwrap();
    r
}

fn check(what: &str, r: &Report) {
    println!("{what}: {r:?}");
    if let Some((c, d)) = &r.mismatch {
        panic!(
            "{what}: TileSequencer and TileSequencerCycle differ at cycle {c}: {}",
            d.join("; ")
        );
    }
    assert_eq!(r.wrong, None, "{what}: commands differ from golden's");
}

/// ice40 (10x8 first tiles), a frame of 12 primitives + 20 in the hot tile (2 chunks), about
/// 3000 cycles with gaps, stalls and two flushes.
#[test]
fn cosim_against_the_cycle_model() {
    let cfg = Config::preset("ice40").unwrap();
    let frame = seq_frame(&cfg, 21, 12, 20);
    let want = seq_beats(&frame);
    let (lists, pt, _) = seq_images(&frame);
    let seed = 60;
    let mut rl = Pattern::RandomStalls {
        pct: 80,
        permille: 3,
        min: 5,
        max: 20,
    }
    .line(Rng::stream(seed, 1));
    let mut vl = Pattern::gaps(60).line(Rng::stream(seed, 0));
    let mut ll = Pattern::Random { pct: 75 }.line(Rng::stream(seed, 2));
    let mut pl = Pattern::Runs { pct: 80 }.line(Rng::stream(seed, 3));
    let lines: Lines = Box::new(move |c| {
        let (v, r, l, p) = (vl.step(), rl.step(), ll.step(), pl.step());
        (
            v,
            r && !(400..500).contains(&c),   // a long output stall
            l && !(900..960).contains(&c),   // a long list-port stall
            p && !(1300..1360).contains(&c), // a long table-port stall
            c == 700 || c == 1900,
        )
    });
    let r = run(
        &cfg,
        want.clone(),
        MemTiming { latency: 2, depth: 3 },
        lists,
        pt,
        3000,
        lines,
    );
    check("ice40", &r);
    assert_eq!(r.flushes, 2);
    assert!(r.longest_out_stall >= 50, "long stall: {}", r.longest_out_stall);
    assert!(r.frames >= 1 && r.cmds > 30 && r.points > 0, "{r:?}");
    assert!(r.lreads > 100 && r.preads > 200, "{r:?}");
}

/// Directed: ice40, latency 1, nothing stalls: the first command on `out` at 16 + 3L = 19.
#[test]
fn directed_first_command() {
    let cfg = Config::preset("ice40").unwrap();
    let frame = seq_frame(&cfg, 4, 0, 3);
    let want = seq_beats(&frame);
    assert_eq!(want[0].cmd.tile_x, 1);
    let (lists, pt, _) = seq_images(&frame);
    let lines: Lines = Box::new(|c| (c == 0, true, true, true, false));
    let r = run(&cfg, want, MemTiming { latency: 1, depth: 2 }, lists, pt, 120, lines);
    check("directed", &r);
    // Tile (1, 1) is list 11: 11 empty lists of L + 4 = 5 cycles come first.
    assert_eq!(r.first_out, Some(19 + 11 * 5), "{r:?}");
    assert_eq!(r.cmds, 3, "{r:?}");
}

#[test]
fn verilog_lints_clean() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("tile_sequencer_{p}");
        let v = tilerast_hw::tile_sequencer::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}

#[test]
fn refuses_bad_configs_by_name() {
    let mut cfg = Config::preset("ice40").unwrap();
    cfg.viewport = [4096, 64];
    cfg.tile = [8, 8];
    let e = tilerast_hw::tile_sequencer::supported(&cfg).unwrap_err();
    assert!(e.starts_with("config.tile:") && !e.contains('\n'), "{e}");
}
