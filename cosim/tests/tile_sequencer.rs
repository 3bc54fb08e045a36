//! Verilator co-simulation of the tile sequencer alone
//! (`rtl-out/tilerast_tile_sequencer_{default,ice40}.v`) against its cycle model
//! `TileSequencerCycle`, every port on every cycle, with two golden `MemoryCycle`s behind its
//! read ports: the binner's lists and the primitive table of a random frame
//! (`stim::seq_images`; latency, depth and grant back-pressure varied per run). The block has
//! two memory ports besides `inp` / `out`, so it is driven by port name from the port table
//! (as `tests/pixel_info_read.rs`). Stimulus: start tokens with gaps (junk frame ids),
//! random `out_ready` with stalls of 1 000 to 3 000 cycles, grant patterns with long memory
//! stalls on each port, flushes mid-frame, frames back to back, 60 000 cycles per run; the
//! beats out must be golden's commands (`pipeline::commands`) with depths and the end token.
//! Plus: the planted bug of `cosim/build/mutation.rs` (the attribute word read at offset 24,
//! the colour word) is caught at the cycle and port predicted by a model built with
//! `with_attr_off(24)`.

use std::collections::HashMap;
use tilerast_cosim::blocks::{get_bits, set_bits, BlockRtl, PortDesc, BATCH};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle};
use tilerast_golden::scene::Frame;
use tilerast_golden::streams::{ports, MemReq, SeqStart, Stream};
use tilerast_golden::tile_sequencer::TileSequencerCycle;
use tilerast_golden::Config;
use tilerast_verif::stim::{seq_beats, seq_frame, seq_images};
use tilerast_verif::{Line, Pattern, Rng};

const STAGE: &str = "tile_sequencer";

/// Named port values into words by the port table; every port named exactly once.
fn pack(ports_of: &[PortDesc], vals: &HashMap<String, u64>, words: &mut [u32]) {
    assert_eq!(vals.len(), ports_of.len(), "every port driven or predicted once");
    for p in ports_of {
        let v = *vals
            .get(p.name)
            .unwrap_or_else(|| panic!("port `{}` not named", p.name));
        let v = if p.signed && p.width < 64 {
            v & ((1u64 << p.width) - 1)
        } else {
            v
        };
        assert!(p.width >= 64 || v >> p.width == 0, "{v:#x} does not fit {}", p.name);
        set_bits(words, p.offset, p.width, v);
    }
}

fn stream<S: Stream>(iface: &str, x: &S::Payload, v: &mut HashMap<String, u64>) {
    for (f, val) in S::FIELDS.iter().zip(S::to_bits(x)) {
        v.insert(format!("{iface}__{}", f.name), val);
    }
}

/// The output ports' values the model shows this cycle.
fn outputs(m: &TileSequencerCycle) -> HashMap<String, u64> {
    let mut o = HashMap::new();
    let (ov, out) = m.out();
    let (lv, l) = m.lrd();
    let (pv, p) = m.prd();
    o.insert("in_ready".into(), m.in_ready() as u64);
    o.insert("out_valid".into(), ov as u64);
    o.insert("lrd_valid".into(), lv as u64);
    o.insert("prd_valid".into(), pv as u64);
    o.insert("lrsp_ready".into(), m.lrsp_ready() as u64);
    o.insert("prsp_ready".into(), m.prsp_ready() as u64);
    stream::<ports::SeqCmd>("out", &out, &mut o);
    stream::<ports::MemReq>("lrd", &l, &mut o);
    stream::<ports::MemReq>("prd", &p, &mut o);
    o
}

struct Drive {
    seed: u64,
    cycles: u64,
    ltiming: MemTiming,
    ptiming: MemTiming,
    valid: Pattern,
    ready: Pattern,
    lgrant: Pattern,
    pgrant: Pattern,
    flush_at: Vec<u64>,
}

#[derive(Debug, Default)]
struct Outcome {
    cycles: u64,
    frames: u64,
    cmds: u64,
    points: u64,
    lreads: u64,
    preads: u64,
    longest_stall: u64,
    grant_stalls: u64,
    busy_flushes: u64,
    /// First cycle where the mutant model's outputs differ from the model's: (cycle, port).
    mutant_diff: Option<(u64, String)>,
}

/// RTL `preset` against the model for `frame.cfg` (every port, every cycle). `mutant`: a
/// second model (attribute offset) stepped on the same inputs, to predict the planted bug's
/// first visible cycle. `Err`: the first differing cycle and ports.
fn run(preset: &str, frame: &Frame, d: &Drive, mutant: Option<u32>) -> Result<Outcome, (u64, String)> {
    let cfg = &frame.cfg;
    let mut rtl = BlockRtl::new(preset, STAGE).unwrap_or_else(|e| panic!("{e}"));
    let desc = rtl.desc;
    let (iw, ow) = (desc.in_words(), desc.out_words());
    let want = seq_beats(frame);
    let (lists, pt, _) = seq_images(frame);
    let mut model = TileSequencerCycle::new(cfg);
    let mut mmodel = mutant.map(|off| TileSequencerCycle::new(cfg).with_attr_off(off));
    let mut lm = MemoryCycle::new(d.ltiming, lists);
    let mut pm = MemoryCycle::new(d.ptiming, pt);
    let (mut vl, mut rl, mut ll, mut pl): (Line, Line, Line, Line) = (
        d.valid.line(Rng::stream(d.seed, 0)),
        d.ready.line(Rng::stream(d.seed, 1)),
        d.lgrant.line(Rng::stream(d.seed, 2)),
        d.pgrant.line(Rng::stream(d.seed, 3)),
    );
    let mut junk = Rng::stream(d.seed, 4);
    let mut o = Outcome::default();
    let (mut pos, mut stall) = (0usize, 0u64);
    let mut inw = vec![0u32; BATCH * iw];
    let mut exp = vec![0u32; BATCH * ow];
    let mut got = vec![0u32; BATCH * ow];
    let mut cyc = 0u64;
    while cyc < d.cycles {
        let n = (BATCH as u64).min(d.cycles - cyc) as usize;
        inw.fill(0);
        exp.fill(0);
        for k in 0..n {
            let c = cyc + k as u64;
            let flush = d.flush_at.contains(&c);
            let valid = vl.step();
            let ready = rl.step();
            let lg = ll.step();
            let pg = pl.step();
            let inp = SeqStart {
                frame: junk.next_u32() as u8,
            };
            let lrd_ready = lm.req_ready(lg);
            let prd_ready = pm.req_ready(pg);
            let (lv, lrsp) = lm.resp();
            let (pv, prsp) = pm.resp();
            let mut i = HashMap::new();
            i.insert("flush".to_string(), flush as u64);
            i.insert("in_valid".to_string(), valid as u64);
            i.insert("out_ready".to_string(), ready as u64);
            i.insert("lrd_ready".to_string(), lrd_ready as u64);
            i.insert("prd_ready".to_string(), prd_ready as u64);
            i.insert("lrsp_valid".to_string(), lv as u64);
            i.insert("prsp_valid".to_string(), pv as u64);
            stream::<ports::SeqStart>("inp", &inp, &mut i);
            stream::<ports::MemResp>("lrsp", &lrsp, &mut i);
            stream::<ports::MemResp>("prsp", &prsp, &mut i);
            let out = outputs(&model);
            if let (Some(mm), None) = (&mmodel, &o.mutant_diff) {
                let mo = outputs(mm);
                let mut names: Vec<&String> = out.keys().filter(|p| out[*p] != mo[*p]).collect();
                names.sort();
                if let Some(p) = names.first() {
                    o.mutant_diff = Some((c, p.to_string()));
                }
            }
            pack(desc.inputs, &i, &mut inw[k * iw..(k + 1) * iw]);
            pack(desc.outputs, &out, &mut exp[k * ow..(k + 1) * ow]);
            let (ov, beat) = model.out();
            let (lqv, lq): (bool, MemReq) = model.lrd();
            let (pqv, pq): (bool, MemReq) = model.prd();
            stall = if ov && !ready { stall + 1 } else { 0 };
            o.longest_stall = o.longest_stall.max(stall);
            o.grant_stalls += (lqv && !lrd_ready) as u64 + (pqv && !prd_ready) as u64;
            if flush {
                o.busy_flushes += (!model.is_quiet()) as u64;
                pos = 0;
            } else {
                if ov && ready {
                    if beat != want[pos] {
                        return Err((c, format!("model beat {pos} {beat:?} is not golden's {:?}", want[pos])));
                    }
                    o.cmds += (!beat.end) as u64;
                    o.points += (!beat.end && beat.cmd.kind == 1) as u64;
                    pos += 1;
                    if pos == want.len() {
                        pos = 0;
                        o.frames += 1;
                    }
                }
                o.lreads += (lqv && lrd_ready) as u64;
                o.preads += (pqv && prd_ready) as u64;
            }
            model.clock(valid, &inp, ready, lrd_ready, lv, &lrsp, prd_ready, pv, &prsp, flush);
            if let (Some(mm), None) = (&mut mmodel, &o.mutant_diff) {
                mm.clock(valid, &inp, ready, lrd_ready, lv, &lrsp, prd_ready, pv, &prsp, flush);
            }
            lm.clock(lqv && !flush, &lq, lg, true, flush);
            pm.clock(pqv && !flush, &pq, pg, true, flush);
        }
        rtl.run(&inw[..n * iw], &mut got[..n * ow]);
        for k in 0..n {
            let (e, g) = (&exp[k * ow..(k + 1) * ow], &got[k * ow..(k + 1) * ow]);
            if e != g {
                let diff: Vec<String> = desc
                    .outputs
                    .iter()
                    .filter(|p| get_bits(e, p.offset, p.width) != get_bits(g, p.offset, p.width))
                    .map(|p| {
                        format!(
                            "{} rtl {:#x} model {:#x}",
                            p.name,
                            get_bits(g, p.offset, p.width),
                            get_bits(e, p.offset, p.width)
                        )
                    })
                    .collect();
                return Err((cyc + k as u64, diff.join(", ")));
            }
        }
        cyc += n as u64;
    }
    o.cycles = cyc;
    Ok(o)
}

fn long_run(preset: &str, seed: u64, timings: &[(MemTiming, MemTiming)]) {
    let cfg = Config::preset(preset).unwrap();
    let frame = seq_frame(&cfg, seed, 30, 40);
    let bins = seq_images(&frame).2;
    assert!(bins.stats().max_list_len > 30, "a list of ≥ 3 chunks");
    for (i, &(lt, pt)) in timings.iter().enumerate() {
        let s = seed * 10 + i as u64;
        let cycles = 60_000;
        let d = Drive {
            seed: s,
            cycles,
            ltiming: lt,
            ptiming: pt,
            valid: Pattern::gaps(40),
            ready: Pattern::RandomStalls {
                pct: 85,
                permille: 1,
                min: 1_000,
                max: 3_000,
            },
            lgrant: [
                Pattern::Random { pct: 70 },
                Pattern::Stalls {
                    pct: 90,
                    every: 7_000,
                    len: 1_200,
                },
                Pattern::Runs { pct: 85 },
            ][i % 3],
            pgrant: [
                Pattern::Runs { pct: 85 },
                Pattern::Random { pct: 80 },
                Pattern::Stalls {
                    pct: 95,
                    every: 9_000,
                    len: 1_100,
                },
            ][i % 3],
            flush_at: vec![3_003 + 1_000 * i as u64, 21_456, 40_000 + 777 * i as u64],
        };
        let o = run(preset, &frame, &d, None).unwrap_or_else(|(c, e)| {
            panic!(
                "{preset} L{}/{} D{}/{}: cycle {c}: {e}",
                lt.latency, pt.latency, lt.depth, pt.depth
            )
        });
        println!(
            "{preset} L{}/{} D{}/{}: {o:?}",
            lt.latency, pt.latency, lt.depth, pt.depth
        );
        assert_eq!(o.cycles, cycles);
        assert!(o.frames >= 2, "several frames: {o:?}");
        assert!(o.longest_stall >= 1_000, "{o:?}");
        assert!(o.busy_flushes >= 2, "flushes mid-frame: {o:?}");
        assert!(o.cmds > 0 && o.points > 0 && o.grant_stalls > 100, "{o:?}");
    }
}

#[test]
fn rtl_matches_cycle_model_default() {
    long_run(
        "default",
        1,
        &[
            (MemTiming { latency: 1, depth: 2 }, MemTiming { latency: 2, depth: 3 }),
            (MemTiming { latency: 3, depth: 4 }, MemTiming { latency: 1, depth: 1 }),
            (MemTiming { latency: 4, depth: 2 }, MemTiming { latency: 4, depth: 5 }),
        ],
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    long_run(
        "ice40",
        2,
        &[
            (MemTiming { latency: 2, depth: 3 }, MemTiming { latency: 1, depth: 2 }),
            (MemTiming { latency: 1, depth: 1 }, MemTiming { latency: 3, depth: 2 }),
            (MemTiming { latency: 4, depth: 5 }, MemTiming { latency: 2, depth: 3 }),
        ],
    );
}

/// The planted bug (`default_mut`: the attribute word's offset constant is 24, so every
/// command's first table read is the colour word): the RTL differs from the model first at the
/// cycle and on the port where a model built with `with_attr_off(24)` first differs (predicted
/// here by stepping that model on the same inputs): `prd__addr`, the first cycle the first
/// command's first table read is on the port.
#[test]
fn planted_bug_is_caught_where_predicted() {
    let cfg = Config::preset("default").unwrap();
    let frame = seq_frame(&cfg, 5, 30, 20);
    let d = Drive {
        seed: 77,
        cycles: 20_000,
        ltiming: MemTiming { latency: 2, depth: 3 },
        ptiming: MemTiming { latency: 2, depth: 3 },
        valid: Pattern::gaps(20),
        ready: Pattern::Random { pct: 85 },
        lgrant: Pattern::Random { pct: 85 },
        pgrant: Pattern::Random { pct: 85 },
        flush_at: vec![],
    };
    let clean = run("default", &frame, &d, Some(24)).unwrap_or_else(|(c, e)| panic!("clean: cycle {c}: {e}"));
    let (at, port) = clean.mutant_diff.expect("the mutant model differs somewhere");
    let (c, e) = run("default_mut", &frame, &d, None).expect_err("the planted bug is caught");
    println!("planted bug: predicted cycle {at} on {port}, caught at cycle {c}: {e}");
    assert_eq!(c, at, "caught at the predicted cycle");
    assert!(
        e.starts_with(&format!("{port} ")) || e.contains(&format!(", {port} ")),
        "{e}"
    );
    assert_eq!(port, "prd__addr");
}

/// Both presets and the mutant are built with the two read ports.
#[test]
fn both_presets_are_built_with_both_read_ports() {
    for p in ["default", "ice40", "default_mut"] {
        let r = BlockRtl::new(p, STAGE).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = r.desc.outputs.iter().map(|o| o.name).collect();
        assert!(
            names.contains(&"lrd__addr") && names.contains(&"prd__addr") && names.contains(&"out__depth"),
            "{p}: {names:?}"
        );
    }
}
