//! rust-hdl simulation of `ShadingSort` against its cycle model `ShadingSortCycle`, with a
//! golden `MemoryCycle` behind the read port (the primitive table's colour words) serviced
//! from the testbench every cycle: `in_ready`, `rsp_ready`, `rd_valid` + `rd`, `out_valid` +
//! `out` and `idle` must agree on every cycle. Stimulus: records of random second tiles (and `none`
//! tokens) with gaps and junk payloads while not valid, random `out_ready` with a long stall,
//! a random memory grant with a long stall, a flush mid-tile; the pixels out must be golden's
//! (`shade_tile` formatted by `tile_pixels`). Small second tiles and digits keep a tile at a
//! few hundred cycles.

use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};
use tilerast_golden::config::Config;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::pixel_info::{PixelInfo, DEPTH_MAX};
use tilerast_golden::pixel_info_read::{mask_bits, tile_beats};
use tilerast_golden::prim_table::COLOUR_WORD;
use tilerast_golden::shading_sort::{shade_tile, tile_pixels, ShadingSortCycle};
use tilerast_golden::streams::{port_name, ports, PiRecord, PixSamples, Stream};
use tilerast_golden::{DepthFunc, Rgba};
use tilerast_hw::shading_sort::ShadingSort;
use tilerast_verif::{Pattern, Rng};

/// Control lines of one cycle: (record offered, out_ready, memory grant, flush).
type Lines = Box<dyn FnMut(u64) -> (bool, bool, bool, bool) + Send>;

#[derive(Debug, Default)]
struct Report {
    cycles: u64,
    mismatch: Option<(u64, Vec<String>)>,
    wrong: Option<String>,
    beats: u64,
    tiles_out: u64,
    reads: u64,
    rd_stall: u64,
    out_stall: u64,
    longest_out_stall: u64,
    flushes: u64,
    passes: u64,
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

fn colour_of(prim: u32) -> Rgba {
    let h = Rng::mix(0x5ade, prim as u64);
    [h as u8, (h >> 8) as u8, (h >> 16) as u8, 0x80 | (h >> 24) as u8]
}

/// One tile: its beats and golden's pixels.
type Tile = (Vec<PiRecord>, Vec<PixSamples>);

/// `count` random second tiles (every fourth empty): (beats, golden pixels), and the memory.
fn tiles(cfg: &Config, seed: u64, count: usize) -> (Vec<Tile>, SparseMemory) {
    let mut r = Rng::new(seed);
    let [sw, sh] = cfg.second_tile;
    let nx = cfg.viewport[0].div_ceil(sw);
    let ny = cfg.viewport[1].div_ceil(sh);
    let used = mask_bits(cfg.msaa);
    let mut out = Vec::new();
    let mut raw = Vec::new();
    let mut maxp = 0;
    for i in 0..count {
        let t = (r.below((nx * ny) as u64)) as u32;
        let st = [t % nx, t / nx];
        if i % 4 == 3 {
            raw.push((st, vec![]));
            continue;
        }
        let base = r.below(1 << 20) as u32;
        let spread = if i % 2 == 0 { 3 } else { 1 << 12 };
        let n = 2 + r.below(10) as usize;
        let recs: Vec<PixelInfo> = (0..n)
            .map(|_| {
                let prim = base + r.below(spread) as u32;
                maxp = maxp.max(prim);
                PixelInfo {
                    mask: if r.chance(30) {
                        used
                    } else {
                        (r.next_u64() & used).max(1)
                    },
                    depth: if r.chance(30) {
                        *r.pick(&[0, 500, DEPTH_MAX])
                    } else {
                        r.below(1 << 24) as u32
                    },
                    prim,
                    frame: 1,
                    qx: r.below((sw / 2) as u64) as u8,
                    qy: r.below((sh / 2) as u64) as u8,
                }
            })
            .collect();
        raw.push((st, recs));
    }
    let mut mem = SparseMemory::new();
    let colours: Vec<Rgba> = (0..=maxp).map(colour_of).collect();
    for (st, recs) in &raw {
        let beats = tile_beats(*st, recs, 1);
        let px = if recs.is_empty() {
            vec![]
        } else {
            let (ts, _) = shade_tile(cfg, *st, recs, &colours).unwrap();
            for rec in recs {
                mem.write(
                    32 * rec.prim + 4 * COLOUR_WORD,
                    u32::from_le_bytes(colours[rec.prim as usize]),
                    0xf,
                );
            }
            tile_pixels(cfg, &ts)
        };
        out.push((beats, px));
    }
    (out, mem)
}

fn run(cfg: &Config, tiles: Vec<Tile>, timing: MemTiming, mem: SparseMemory, cycles: u64, lines: Lines) -> Report {
    let mut dut = ShadingSort::new(cfg);
    dut.connect_all();
    let state = Arc::new(Mutex::new(Some((
        ShadingSortCycle::new(cfg),
        MemoryCycle::new(timing, mem),
        lines,
    ))));
    let result = Arc::new(Mutex::new(None));
    let res = result.clone();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<ShadingSort>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<ShadingSort>| {
        let (mut model, mut mem, mut lines) = state.lock().unwrap().take().unwrap();
        let mut r = Report::default();
        let mut junk = Rng::new(77);
        let (mut ti, mut bi, mut to, mut po) = (0usize, 0usize, 0usize, 0usize);
        let mut stall = 0u64;
        let mut x = sim.init()?;
        for cycle in 0..cycles {
            let (v, out_ready, grant, flush) = lines(cycle);
            let valid = v && ti < tiles.len();
            let inp = if valid {
                tiles[ti].0[bi]
            } else {
                PiRecord {
                    tile_x: junk.below(4) as u32,
                    tile_y: junk.below(4) as u32,
                    prim: junk.next_u32(),
                    depth: junk.below(1 << 24) as u32,
                    frame: junk.next_u32() as u8,
                    qx: junk.next_u32() as u8,
                    qy: junk.next_u32() as u8,
                    mask: junk.next_u64(),
                    last: junk.bool(),
                    none: junk.bool(),
                }
            };
            let rd_ready = mem.req_ready(grant);
            let (rsp_valid, rsp) = mem.resp();
            x.in_valid.next = valid;
            x.inp.drive(&inp);
            x.out_ready.next = out_ready;
            x.rd_ready.next = rd_ready;
            x.rsp_valid.next = rsp_valid;
            x.rsp.drive(&rsp);
            x.flush.next = flush;
            x = sim.watch(|x| !x.clock.val().clk, x)?;
            let in_ready = model.in_ready();
            let (out_valid, out) = model.out();
            let (rd_valid, rd) = model.rd();
            let rsp_ready = model.rsp_ready();
            let mut d = Vec::new();
            for (name, rtl, m) in [
                ("in_ready", x.in_ready.val(), in_ready),
                ("rsp_ready", x.rsp_ready.val(), rsp_ready),
                ("rd_valid", x.rd_valid.val(), rd_valid),
                ("out_valid", x.out_valid.val(), out_valid),
                ("idle", x.idle.val(), model.is_idle()),
            ] {
                if rtl != m {
                    d.push(format!("{name} rtl {rtl} model {m}"));
                }
            }
            diff::<ports::MemReq>("rd", &x.rd.sample(), &rd, &mut d);
            diff::<ports::PixSamples>("out", &x.out.sample(), &out, &mut d);
            r.cycles = cycle + 1;
            if !d.is_empty() {
                d.push(format!("model phase {:?}", model.phase()));
                r.mismatch = Some((cycle, d));
                break;
            }
            r.rd_stall += (rd_valid && !rd_ready) as u64;
            r.out_stall += (out_valid && !out_ready) as u64;
            stall = if out_valid && !out_ready { stall + 1 } else { 0 };
            r.longest_out_stall = r.longest_out_stall.max(stall);
            r.flushes += flush as u64;
            if flush {
                ti = to;
                bi = 0;
                po = 0;
            } else {
                if valid && in_ready {
                    let none = tiles[ti].0[bi].none;
                    bi += 1;
                    if bi == tiles[ti].0.len() {
                        ti += 1;
                        bi = 0;
                    }
                    if none && to + 1 == ti {
                        to = ti;
                    }
                }
                if out_valid && out_ready {
                    if to >= tiles.len() || out != tiles[to].1[po] {
                        if r.wrong.is_none() {
                            r.wrong = Some(format!("cycle {cycle}: tile {to} beat {po}: {out:?}"));
                        }
                    } else {
                        po += 1;
                        if po == tiles[to].1.len() {
                            po = 0;
                            to += 1;
                            r.tiles_out += 1;
                        }
                    }
                    r.beats += 1;
                }
                r.reads += (rd_valid && rd_ready) as u64;
            }
            model.clock(valid, &inp, out_ready, rd_ready, rsp_valid, &rsp, flush);
            mem.clock(rd_valid && !flush, &rd, grant, rsp_ready, flush);
            x = sim.watch(|x| x.clock.val().clk, x)?;
        }
        r.passes = model.stats().sort_passes;
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
            "{what}: ShadingSort and ShadingSortCycle differ at cycle {c}: {}",
            d.join("; ")
        );
    }
    assert_eq!(r.wrong, None, "{what}: pixels differ from golden's");
}

/// Small second tiles and 4-bit digits: 8×8 at 1x (ice40_1x) and 8×4 at 4x (ice40, Less),
/// whose viewport cuts the right-most tiles.
fn small(preset: &str) -> Config {
    let mut cfg = Config::preset(preset).unwrap();
    cfg.second_tile = if cfg.msaa == 1 { [8, 8] } else { [8, 4] };
    cfg.sort_digit_bits = 4;
    if cfg.msaa > 1 {
        cfg.viewport = [44, 16];
        cfg.depth_func = DepthFunc::Less;
    }
    cfg.validate().unwrap();
    cfg
}

#[test]
fn cosim_against_the_cycle_model() {
    for (i, preset) in ["ice40_1x", "ice40"].into_iter().enumerate() {
        let cfg = small(preset);
        let seed = 60 + i as u64;
        let (t, mem) = tiles(&cfg, seed, 10);
        let mut rl = Pattern::RandomStalls {
            pct: 80,
            permille: 3,
            min: 5,
            max: 20,
        }
        .line(Rng::stream(seed, 1));
        let mut vl = Pattern::gaps(40).line(Rng::stream(seed, 0));
        let mut gl = Pattern::Random { pct: 70 }.line(Rng::stream(seed, 2));
        let lines: Lines = Box::new(move |c| {
            let (v, r, g) = (vl.step(), rl.step(), gl.step());
            (
                v,
                r && !(900..1000).contains(&c),
                g && !(1500..1560).contains(&c),
                c == 2200,
            )
        });
        let r = run(&cfg, t, MemTiming { latency: 2, depth: 2 }, mem, 4000, lines);
        check(&format!("{preset} {}x{}", cfg.second_tile[0], cfg.second_tile[1]), &r);
        assert_eq!(r.flushes, 1);
        assert!(r.tiles_out >= 3 && r.reads > 3 && r.passes > 1, "{r:?}");
        assert!(r.rd_stall > 0 && r.out_stall > 50, "{r:?}");
    }
}

#[test]
fn verilog_lints_clean() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("shading_sort_{p}");
        if tilerast_hw::shading_sort::supported(&cfg).is_err() {
            continue;
        }
        let v = tilerast_hw::shading_sort::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}

#[test]
fn refuses_bad_configs_by_name() {
    let mut cfg = Config::preset("ice40").unwrap();
    cfg.sort_digit_bits = 13;
    let e = tilerast_hw::shading_sort::supported(&cfg).unwrap_err();
    assert!(e.starts_with("config.sort_digit_bits:") && !e.contains('\n'), "{e}");
}
