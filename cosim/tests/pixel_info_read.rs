//! Verilator co-simulation of the pixel-info reader alone
//! (`rtl-out/tilerast_pixel_info_read_{default,ice40}.v`) against its cycle model
//! `PixelInfoReadCycle`, every port on every cycle, with a golden `MemoryCycle` behind the read
//! port holding a finished `PixelInfoStore`'s bytes (latency, depth and `grant` back-pressure
//! varied per run). The block has the memory port besides `inp` / `out`, so it is driven by
//! port name from the port table (as `src/back_end.rs` drives the back end), not through
//! `BlockIo`. Stimulus: start tokens with gaps (junk frame ids while idle), random `out_ready`
//! with stalls of 1 000 to 3 000 cycles, grant patterns with long memory stalls, flushes
//! mid-frame, several frames per run, tens of thousands of cycles; the records out must be
//! golden's `read_second_tile` records, tile by tile, and the reads of every whole frame
//! golden's `bytes_read / 4`. Plus: the planted bug of `cosim/build/mutation.rs` (`K − 1`
//! one too small) is caught at the cycle and port predicted by a model with K − 1 records per
//! block.

use std::collections::HashMap;
use tilerast_cosim::blocks::{get_bits, set_bits, BlockRtl, PortDesc, BATCH};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::pixel_info::PixelInfoStore;
use tilerast_golden::pixel_info_read::{tile_beats, PixelInfoReadCycle};
use tilerast_golden::streams::{ports, MemReq, MemResp, PiRecord, PiStart, Stream};
use tilerast_golden::Config;
use tilerast_verif::stim::{pixel_info_image, pixel_info_store};
use tilerast_verif::{Line, Pattern, Rng};

const STAGE: &str = "pixel_info_read";

fn golden_frame(st: &PixelInfoStore) -> (Vec<PiRecord>, u64) {
    let mut st = st.clone();
    let mut beats = Vec::new();
    for t in st.second_tiles().collect::<Vec<_>>() {
        let recs = st.read_second_tile(t).unwrap();
        beats.extend(tile_beats(t, &recs, st.frame_id()));
    }
    (beats, st.stats().bytes_read)
}

/// Named port values into words by the port table; every port named exactly once.
fn pack(ports_of: &[PortDesc], vals: &HashMap<String, u64>, words: &mut [u32]) {
    assert_eq!(vals.len(), ports_of.len(), "every port driven or predicted once");
    for p in ports_of {
        let v = *vals
            .get(p.name)
            .unwrap_or_else(|| panic!("port `{}` not named", p.name));
        assert!(p.width >= 64 || v >> p.width == 0, "{v:#x} does not fit {}", p.name);
        set_bits(words, p.offset, p.width, v);
    }
}

fn stream<S: Stream>(iface: &str, x: &S::Payload, v: &mut HashMap<String, u64>) {
    for (f, val) in S::FIELDS.iter().zip(S::values(x)) {
        v.insert(format!("{iface}__{}", f.name), val);
    }
}

/// The output ports' values the model shows this cycle.
fn outputs(m: &PixelInfoReadCycle) -> HashMap<String, u64> {
    let mut o = HashMap::new();
    let (ov, out) = m.out();
    let (qv, q) = m.rd();
    o.insert("in_ready".into(), m.in_ready() as u64);
    o.insert("out_valid".into(), ov as u64);
    o.insert("rd_valid".into(), qv as u64);
    o.insert("rsp_ready".into(), m.rsp_ready() as u64);
    stream::<ports::PiRecord>("out", &out, &mut o);
    stream::<ports::MemReq>("rd", &q, &mut o);
    o
}

struct Drive {
    seed: u64,
    cycles: u64,
    timing: MemTiming,
    valid: Pattern,
    ready: Pattern,
    grant: Pattern,
    flush_at: Vec<u64>,
}

#[derive(Debug, Default)]
struct Outcome {
    cycles: u64,
    frames: u64,
    beats: u64,
    records: u64,
    nones: u64,
    reads: u64,
    next_reads: u64,
    longest_stall: u64,
    grant_stalls: u64,
    busy_flushes: u64,
    /// Reads of whole frames checked against `bytes_read / 4`.
    frames_read_checked: u64,
    /// First cycle where the mutant model's outputs differ from the model's: (cycle, port).
    mutant_diff: Option<(u64, String)>,
}

/// RTL `preset` against the model for `cfg` (every port, every cycle) with `st`'s bytes
/// behind the port. `mutant`: a second model stepped on the same inputs, to predict the
/// planted bug's first visible cycle. `Err`: the first differing cycle and ports.
fn run(
    preset: &str,
    cfg: &Config,
    st: &PixelInfoStore,
    d: &Drive,
    mutant: Option<u32>,
) -> Result<Outcome, (u64, String)> {
    let mut rtl = BlockRtl::new(preset, STAGE).unwrap_or_else(|e| panic!("{e}"));
    let desc = rtl.desc;
    let (iw, ow) = (desc.in_words(), desc.out_words());
    let (want, bytes) = golden_frame(st);
    let mut model = PixelInfoReadCycle::new(cfg);
    let mut mmodel = mutant.map(|k| PixelInfoReadCycle::with_per_block(cfg, k).unwrap());
    let mut mem = MemoryCycle::new(d.timing, pixel_info_image(st));
    let frame = st.frame_id();
    let (mut vl, mut rl, mut gl): (Line, Line, Line) = (
        d.valid.line(Rng::stream(d.seed, 0)),
        d.ready.line(Rng::stream(d.seed, 1)),
        d.grant.line(Rng::stream(d.seed, 2)),
    );
    let mut junk = Rng::stream(d.seed, 3);
    let mut o = Outcome::default();
    let (mut pos, mut stall) = (0usize, 0u64);
    // Reads since the last frame start (list 0's head), none after a flush until the next.
    let mut seg: Option<u64> = None;
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
            let grant = gl.step();
            let inp = PiStart {
                frame: if valid { frame } else { junk.next_u32() as u8 },
            };
            let rd_ready = mem.req_ready(grant);
            let (rv, rsp): (bool, MemResp) = mem.resp();
            let mut i = HashMap::new();
            i.insert("flush".to_string(), flush as u64);
            i.insert("in_valid".to_string(), valid as u64);
            i.insert("out_ready".to_string(), ready as u64);
            i.insert("rd_ready".to_string(), rd_ready as u64);
            i.insert("rsp_valid".to_string(), rv as u64);
            stream::<ports::PiStart>("inp", &inp, &mut i);
            stream::<ports::MemResp>("rsp", &rsp, &mut i);
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
            let (qv, q): (bool, MemReq) = model.rd();
            stall = if ov && !ready { stall + 1 } else { 0 };
            o.longest_stall = o.longest_stall.max(stall);
            o.grant_stalls += (qv && !rd_ready) as u64;
            if flush {
                o.busy_flushes += (!model.core().is_quiet()) as u64;
                pos = 0;
                seg = None;
            } else {
                if ov && ready {
                    if beat != want[pos] {
                        return Err((c, format!("model beat {pos} {beat:?} is not golden's {:?}", want[pos])));
                    }
                    o.beats += 1;
                    o.records += (!beat.none) as u64;
                    o.nones += beat.none as u64;
                    pos += 1;
                    if pos == want.len() {
                        pos = 0;
                        o.frames += 1;
                    }
                }
                if qv && rd_ready {
                    o.reads += 1;
                    // A frame's reads start with list 0's head (offset 0, read by nothing
                    // else): the reads from one such read to the next, with no flush between,
                    // are one whole frame's.
                    if q.addr == 0 {
                        if let Some(n) = seg {
                            if n != bytes / 4 {
                                return Err((c, format!("{n} reads in a frame of {bytes} bytes")));
                            }
                            o.frames_read_checked += 1;
                        }
                        seg = Some(0);
                    }
                    if let Some(n) = &mut seg {
                        *n += 1;
                    }
                }
            }
            model.clock(valid, &inp, ready, rd_ready, rv, &rsp, flush);
            if let (Some(mm), None) = (&mut mmodel, &o.mutant_diff) {
                mm.clock(valid, &inp, ready, rd_ready, rv, &rsp, flush);
            }
            mem.clock(qv && !flush, &q, grant, true, flush);
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
    o.next_reads = model.stats().next_reads;
    Ok(o)
}

fn long_run(preset: &str, seed: u64, quads: usize, timings: &[MemTiming]) {
    let cfg = Config::preset(preset).unwrap();
    let st = pixel_info_store(&cfg, seed, quads, 0x3c);
    for (i, &timing) in timings.iter().enumerate() {
        let s = seed * 10 + i as u64;
        let cycles = 120_000;
        let d = Drive {
            seed: s,
            cycles,
            timing,
            valid: Pattern::gaps(40),
            ready: Pattern::RandomStalls {
                pct: 80,
                permille: 1,
                min: 1_000,
                max: 3_000,
            },
            grant: [
                Pattern::Random { pct: 70 },
                Pattern::Stalls {
                    pct: 90,
                    every: 7_000,
                    len: 1_200,
                },
                Pattern::Runs { pct: 85 },
            ][i % 3],
            flush_at: vec![5_003 + 1_000 * i as u64, 43_456, 81_000 + 777 * i as u64],
        };
        let o = run(preset, &cfg, &st, &d, None)
            .unwrap_or_else(|(c, e)| panic!("{preset} L{} D{}: cycle {c}: {e}", timing.latency, timing.depth));
        println!("{preset} L{} D{}: {o:?}", timing.latency, timing.depth);
        assert_eq!(o.cycles, cycles);
        assert!(o.frames >= 3, "several frames: {o:?}");
        assert!(o.frames_read_checked >= 2, "{o:?}");
        assert!(o.longest_stall >= 1_000, "{o:?}");
        assert!(o.busy_flushes >= 2, "flushes mid-frame: {o:?}");
        assert!(o.nones > 0 && o.next_reads > 0 && o.grant_stalls > 100, "{o:?}");
    }
}

#[test]
fn rtl_matches_cycle_model_default() {
    long_run(
        "default",
        1,
        500,
        &[
            MemTiming { latency: 1, depth: 2 },
            MemTiming { latency: 3, depth: 4 },
            MemTiming { latency: 4, depth: 5 },
        ],
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    long_run(
        "ice40",
        2,
        300,
        &[
            MemTiming { latency: 2, depth: 3 },
            MemTiming { latency: 1, depth: 1 },
            MemTiming { latency: 4, depth: 2 },
        ],
    );
}

/// The planted bug (`default_mut`: the core's K − 1 constant is 3, so a full block's `next`
/// is read after its 4th record): the RTL differs from the model first at the cycle and on the
/// port where a model with K − 1 = 4 records per block first differs (predicted here by
/// stepping that model on the same inputs): the read port, the cycle after the model loads
/// the 5th record's first word of the first full block while the mutant loads `next`.
#[test]
fn planted_bug_is_caught_where_predicted() {
    let cfg = Config::preset("default").unwrap();
    let st = pixel_info_store(&cfg, 5, 400, 0x3c);
    let d = Drive {
        seed: 77,
        cycles: 20_000,
        timing: MemTiming { latency: 2, depth: 3 },
        valid: Pattern::gaps(20),
        ready: Pattern::Random { pct: 85 },
        grant: Pattern::Random { pct: 85 },
        flush_at: vec![],
    };
    // The prediction: the clean RTL runs the same drive with the mutant model alongside.
    let clean = run("default", &cfg, &st, &d, Some(4)).unwrap_or_else(|(c, e)| panic!("clean: cycle {c}: {e}"));
    let (at, port) = clean.mutant_diff.expect("the mutant model differs somewhere");
    let (c, e) = run("default_mut", &cfg, &st, &d, None).expect_err("the planted bug is caught");
    println!("planted bug: predicted cycle {at} on {port}, caught at cycle {c}: {e}");
    assert_eq!(c, at, "caught at the predicted cycle");
    assert!(
        e.starts_with(&format!("{port} ")) || e.contains(&format!(", {port} ")),
        "{e}"
    );
    assert!(port.starts_with("rd__addr"), "{port}");
}

/// The port table names every port the encoders drive (no port forgotten, none unknown).
#[test]
fn both_presets_are_built_with_the_memory_port() {
    for p in ["default", "ice40", "default_mut"] {
        let r = BlockRtl::new(p, STAGE).unwrap_or_else(|e| panic!("{e}"));
        let names: Vec<&str> = r.desc.outputs.iter().map(|o| o.name).collect();
        assert!(
            names.contains(&"rd__addr") && names.contains(&"out__mask"),
            "{p}: {names:?}"
        );
    }
    let _ = SparseMemory::new();
}
