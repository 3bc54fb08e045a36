//! Verilator co-simulation of the sort-based shading block alone
//! (`rtl-out/tilerast_shading_sort_{default,ice40}.v`) against its cycle model
//! `ShadingSortCycle`, every port on every cycle, with a golden `MemoryCycle` behind the read
//! port holding the primitive table's colour words (latency, depth and `grant` back-pressure
//! varied per run). Driven by port name from the port table (the block has the memory port
//! besides `inp` / `out`). Stimulus: random second tiles' records (one-pass and multi-pass
//! sorts, ties, `none` tokens) with gaps and junk payloads while not valid, random
//! `out_ready` with stalls of 1 000 to 3 000 cycles, grant patterns, flushes mid-tile, tiles
//! back to back; the pixels out must be golden's (`shade_tile` formatted by `tile_pixels`).
//! Plus: the planted bug of `cosim/build/mutation.rs` (the histogram epoch does not toggle)
//! is caught at the cycle and port predicted by the model with the same bug.

use std::collections::HashMap;
use tilerast_cosim::blocks::{get_bits, set_bits, BlockRtl, PortDesc, BATCH};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::pixel_info::{PixelInfo, DEPTH_MAX};
use tilerast_golden::pixel_info_read::{mask_bits, tile_beats};
use tilerast_golden::prim_table::COLOUR_WORD;
use tilerast_golden::shading_sort::{shade_tile, tile_pixels, ShadingSortCycle};
use tilerast_golden::streams::{ports, MemReq, MemResp, PiRecord, PixSamples, Stream};
use tilerast_golden::{Config, Rgba};
use tilerast_verif::{Line, Pattern, Rng};

const STAGE: &str = "shading_sort";

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
fn outputs(m: &ShadingSortCycle) -> HashMap<String, u64> {
    let mut o = HashMap::new();
    let (ov, out) = m.out();
    let (qv, q) = m.rd();
    o.insert("in_ready".into(), m.in_ready() as u64);
    o.insert("out_valid".into(), ov as u64);
    o.insert("rd_valid".into(), qv as u64);
    o.insert("rsp_ready".into(), m.rsp_ready() as u64);
    o.insert("idle".into(), m.is_idle() as u64);
    stream::<ports::PixSamples>("out", &out, &mut o);
    stream::<ports::MemReq>("rd", &q, &mut o);
    o
}

fn colour_of(prim: u32) -> Rgba {
    let h = Rng::mix(0xc05, prim as u64);
    [h as u8, (h >> 8) as u8, (h >> 16) as u8, 0x80 | (h >> 24) as u8]
}

/// One tile: its beats and golden's pixels.
type Tile = (Vec<PiRecord>, Vec<PixSamples>);

/// `count` random second tiles of `cfg` (every fifth empty; few primitives close together,
/// primitives spread over 2^20 ids, or one covering primitive plus a few), and the memory.
fn tiles(cfg: &Config, seed: u64, count: usize) -> (Vec<Tile>, SparseMemory, u64) {
    let mut r = Rng::new(seed);
    let [sw, sh] = cfg.second_tile;
    let nx = cfg.viewport[0].div_ceil(sw);
    let ny = cfg.viewport[1].div_ceil(sh);
    let used = mask_bits(cfg.msaa);
    let mut raw = Vec::new();
    let mut maxp = 0;
    for i in 0..count {
        let t = r.below((nx * ny) as u64) as u32;
        let st = [t % nx, t / nx];
        if i % 5 == 4 {
            raw.push((st, vec![]));
            continue;
        }
        let base = r.below(1 << 19) as u32;
        let mut recs = Vec::new();
        if i % 3 == 2 {
            for qy in 0..sh / 2 {
                for qx in 0..sw / 2 {
                    recs.push(PixelInfo {
                        mask: used,
                        depth: 1 << 22,
                        prim: base,
                        frame: 2,
                        qx: qx as u8,
                        qy: qy as u8,
                    });
                }
            }
        }
        for _ in 0..1 + r.below(40) {
            let prim = match i % 3 {
                0 => base + r.below(4) as u32,
                1 => base + r.below(1 << 20) as u32,
                _ => base + 1 + r.below(5) as u32,
            };
            recs.push(PixelInfo {
                mask: if r.chance(30) {
                    used
                } else {
                    (r.next_u64() & used).max(1)
                },
                depth: if r.chance(30) {
                    *r.pick(&[0, 1000, 1 << 22, DEPTH_MAX])
                } else {
                    r.below(1 << 24) as u32
                },
                prim,
                frame: 2,
                qx: r.below((sw / 2) as u64) as u8,
                qy: r.below((sh / 2) as u64) as u8,
            });
        }
        for rec in &recs {
            maxp = maxp.max(rec.prim);
        }
        raw.push((st, recs));
    }
    let colours: Vec<Rgba> = (0..=maxp).map(colour_of).collect();
    let mut mem = SparseMemory::new();
    let mut passes = 0;
    let mut out = Vec::new();
    for (st, recs) in &raw {
        let beats = tile_beats(*st, recs, 2);
        if recs.is_empty() {
            out.push((beats, vec![]));
            continue;
        }
        let (ts, ss) = shade_tile(cfg, *st, recs, &colours).unwrap();
        passes += ss.sort_passes;
        for rec in recs {
            mem.write(
                32 * rec.prim + 4 * COLOUR_WORD,
                u32::from_le_bytes(colours[rec.prim as usize]),
                0xf,
            );
        }
        out.push((beats, tile_pixels(cfg, &ts)));
    }
    (out, mem, passes)
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
    tiles_out: u64,
    beats: u64,
    reads: u64,
    longest_stall: u64,
    grant_stalls: u64,
    busy_flushes: u64,
    passes: u64,
    /// First cycle where the mutant model's outputs differ from the model's: (cycle, port).
    mutant_diff: Option<(u64, String)>,
}

/// RTL `preset` against the model for `cfg` over `tiles` (repeated), every port, every
/// cycle. `mutant`: a second model with the planted bug stepped on the same inputs, to
/// predict the bug's first visible cycle. `Err`: the first differing cycle and ports.
fn run(
    preset: &str,
    cfg: &Config,
    tiles: &[Tile],
    mem: &SparseMemory,
    d: &Drive,
    mutant: bool,
) -> Result<Outcome, (u64, String)> {
    let mut rtl = BlockRtl::new(preset, STAGE).unwrap_or_else(|e| panic!("{e}"));
    let desc = rtl.desc;
    let (iw, ow) = (desc.in_words(), desc.out_words());
    let mut model = ShadingSortCycle::new(cfg);
    let mut mmodel = mutant.then(|| {
        let mut m = ShadingSortCycle::new(cfg);
        m.plant_bug();
        m
    });
    let mut memc = MemoryCycle::new(d.timing, mem.clone());
    let (mut vl, mut rl, mut gl): (Line, Line, Line) = (
        d.valid.line(Rng::stream(d.seed, 0)),
        d.ready.line(Rng::stream(d.seed, 1)),
        d.grant.line(Rng::stream(d.seed, 2)),
    );
    let mut junk = Rng::stream(d.seed, 3);
    let mut o = Outcome::default();
    let nt = tiles.len();
    // Input (tile, beat) and output (tile, pixel), tile indices counting repeats.
    let (mut ti, mut bi, mut to, mut po) = (0usize, 0usize, 0usize, 0usize);
    let mut stall = 0u64;
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
            let inp = if valid {
                tiles[ti % nt].0[bi]
            } else {
                PiRecord {
                    tile_x: junk.below(8) as u32,
                    tile_y: junk.below(8) as u32,
                    prim: junk.next_u32(),
                    depth: junk.below(1 << 24) as u32,
                    frame: junk.next_u32() as u8,
                    qx: junk.next_u32() as u8,
                    qy: junk.next_u32() as u8,
                    mask: junk.next_u64() & mask_bits(cfg.msaa),
                    last: junk.bool(),
                    none: junk.bool(),
                }
            };
            let rd_ready = memc.req_ready(grant);
            let (rv, rsp): (bool, MemResp) = memc.resp();
            let mut i = HashMap::new();
            i.insert("flush".to_string(), flush as u64);
            i.insert("in_valid".to_string(), valid as u64);
            i.insert("out_ready".to_string(), ready as u64);
            i.insert("rd_ready".to_string(), rd_ready as u64);
            i.insert("rsp_valid".to_string(), rv as u64);
            stream::<ports::PiRecord>("inp", &inp, &mut i);
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
            let in_ready = model.in_ready();
            stall = if ov && !ready { stall + 1 } else { 0 };
            o.longest_stall = o.longest_stall.max(stall);
            o.grant_stalls += (qv && !rd_ready) as u64;
            if flush {
                o.busy_flushes += (!model.is_idle() || ti != to || bi != 0) as u64;
                ti = to;
                bi = 0;
                po = 0;
            } else {
                if valid && in_ready {
                    let none = tiles[ti % nt].0[bi].none;
                    bi += 1;
                    if bi == tiles[ti % nt].0.len() {
                        ti += 1;
                        bi = 0;
                    }
                    if none && to + 1 == ti {
                        to = ti;
                    }
                }
                if ov && ready {
                    let want = &tiles[to % nt].1;
                    if po >= want.len() || beat != want[po] {
                        return Err((c, format!("model beat {po} of tile {to}: {beat:?} is not golden's")));
                    }
                    o.beats += 1;
                    po += 1;
                    if po == want.len() {
                        po = 0;
                        to += 1;
                        o.tiles_out += 1;
                    }
                }
                o.reads += (qv && rd_ready) as u64;
            }
            model.clock(valid, &inp, ready, rd_ready, rv, &rsp, flush);
            if let (Some(mm), None) = (&mut mmodel, &o.mutant_diff) {
                mm.clock(valid, &inp, ready, rd_ready, rv, &rsp, flush);
            }
            memc.clock(qv && !flush, &q, grant, true, flush);
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
    o.passes = model.stats().sort_passes;
    Ok(o)
}

fn long_run(preset: &str, seed: u64, timings: &[MemTiming]) {
    let cfg = Config::preset(preset).unwrap();
    let (t, mem, passes) = tiles(&cfg, seed, 15);
    assert!(passes > t.len() as u64, "multi-pass tiles: {passes}");
    for (i, &timing) in timings.iter().enumerate() {
        let s = seed * 10 + i as u64;
        let cycles = 250_000;
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
            ][i % 2],
            flush_at: vec![30_003 + 1_000 * i as u64, 151_000 + 777 * i as u64],
        };
        let o = run(preset, &cfg, &t, &mem, &d, false)
            .unwrap_or_else(|(c, e)| panic!("{preset} L{} D{}: cycle {c}: {e}", timing.latency, timing.depth));
        println!("{preset} L{} D{}: {o:?}", timing.latency, timing.depth);
        assert_eq!(o.cycles, cycles);
        assert!(o.tiles_out >= 5, "several tiles: {o:?}");
        assert!(o.longest_stall >= 1_000, "{o:?}");
        assert!(o.busy_flushes >= 1, "a flush mid-tile: {o:?}");
        // `passes`: the model's counter, since the last flush.
        assert!(o.reads > 10 && o.grant_stalls > 0 && o.passes >= 2, "{o:?}");
    }
}

#[test]
fn rtl_matches_cycle_model_default() {
    long_run(
        "default",
        1,
        &[MemTiming { latency: 1, depth: 2 }, MemTiming { latency: 4, depth: 2 }],
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    long_run(
        "ice40",
        2,
        &[MemTiming { latency: 2, depth: 3 }, MemTiming { latency: 3, depth: 1 }],
    );
}

/// The planted bug (`default_mut`: the histogram epoch does not toggle at a pass's end): the
/// RTL differs from the model first at the cycle and on the port where the model with the
/// same planted bug first differs (predicted by stepping it on the same inputs).
#[test]
fn planted_bug_is_caught_where_predicted() {
    let cfg = Config::preset("default").unwrap();
    let (t, mem, _) = tiles(&cfg, 5, 6);
    let d = Drive {
        seed: 77,
        cycles: 80_000,
        timing: MemTiming { latency: 2, depth: 3 },
        valid: Pattern::gaps(20),
        ready: Pattern::Random { pct: 85 },
        grant: Pattern::Random { pct: 85 },
        flush_at: vec![],
    };
    let clean = run("default", &cfg, &t, &mem, &d, true).unwrap_or_else(|(c, e)| panic!("clean: cycle {c}: {e}"));
    let (at, port) = clean.mutant_diff.expect("the mutant model differs somewhere");
    let (c, e) = run("default_mut", &cfg, &t, &mem, &d, false).expect_err("the planted bug is caught");
    println!("planted bug: predicted cycle {at} on {port}, caught at cycle {c}: {e}");
    assert_eq!(c, at, "caught at the predicted cycle");
    assert!(
        e.starts_with(&format!("{port} ")) || e.contains(&format!(", {port} ")),
        "{e}"
    );
}
