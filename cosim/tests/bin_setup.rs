//! Verilator co-simulation of bin_setup alone (`rtl-out/tilerast_bin_setup_{default,ice40}.v`)
//! against its cycle model `BinSetupCycle`, every port on every cycle. The block has the table
//! write port `wr` besides `inp` / `out`, so it is driven by port name from the port table (as
//! `tests/pixel_info_read.rs` does), not through `BlockIo`. Stimulus: frames of
//! `stim::bin_setup_frame` primitives back to back (junk payloads while `in_valid` is low),
//! input gaps, per-output back-pressure with stalls of 1 000 to 3 000 cycles, flushes
//! mid-frame, ~60 000 cycles per run; every finished frame's boxes must be golden's
//! (`binner::prim_bbox`) and its writes `prim_table::table`'s bytes. Plus: the planted bug of
//! `cosim/build/mutation.rs` (x1 clamp one too big) is caught at the cycle and port predicted
//! by the model with the same bug (`BinSetupCycle::plant_bug`).

use std::collections::HashMap;
use tilerast_cosim::blocks::{get_bits, set_bits, BlockRtl, PortDesc, BATCH};
use tilerast_golden::bin_setup::{frame_beats, BinSetupCycle};
use tilerast_golden::binner::prim_bbox;
use tilerast_golden::prim::PrimitiveFx;
use tilerast_golden::prim_table::table;
use tilerast_golden::streams::{ports, BinBox, MemReq, PrimIn, Stream};
use tilerast_golden::{Config, CullMode};
use tilerast_verif::stim::bin_setup_frame;
use tilerast_verif::{Line, Pattern, Rng};

const STAGE: &str = "bin_setup";

fn ref_boxes(cfg: &Config, prims: &[PrimitiveFx]) -> Vec<BinBox> {
    let mut v: Vec<BinBox> = prims
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            prim_bbox(cfg, p).map(|b| BinBox {
                prim: i as u32,
                x0: b.x0,
                y0: b.y0,
                x1: b.x1,
                y1: b.y1,
                end: false,
            })
        })
        .collect();
    v.push(BinBox {
        prim: prims.len() as u32,
        end: true,
        ..BinBox::default()
    });
    v
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

/// A payload's port values (masked to their widths: the vertices are signed).
fn stream<S: Stream>(iface: &str, x: &S::Payload, v: &mut HashMap<String, u64>) {
    for (f, val) in S::FIELDS.iter().zip(S::to_bits(x)) {
        v.insert(format!("{iface}__{}", f.name), val);
    }
}

fn outputs(m: &BinSetupCycle, out_ready: bool) -> HashMap<String, u64> {
    let mut o = HashMap::new();
    let (ov, b) = m.out();
    let (wv, w) = m.wr();
    o.insert("in_ready".into(), m.in_ready(out_ready) as u64);
    o.insert("out_valid".into(), ov as u64);
    o.insert("wr_valid".into(), wv as u64);
    stream::<ports::BinBox>("out", &b, &mut o);
    stream::<ports::MemReq>("wr", &w, &mut o);
    o
}

struct Drive {
    seed: u64,
    cycles: u64,
    valid: Pattern,
    out_ready: Pattern,
    wr_ready: Pattern,
    flush_at: Vec<u64>,
}

#[derive(Debug, Default)]
struct Outcome {
    cycles: u64,
    frames: u64,
    boxes: u64,
    writes: u64,
    longest_out_stall: u64,
    longest_wr_stall: u64,
    busy_flushes: u64,
    zero_area: u64,
    culled: u64,
    /// First cycle where the mutant model's outputs differ from the model's: (cycle, port).
    mutant_diff: Option<(u64, String)>,
}

/// RTL `preset` against the model for `cfg` on `frames` (back to back, repeated). `mutant`:
/// step a model with the planted bug alongside to predict its first visible cycle.
fn run(
    preset: &str,
    cfg: &Config,
    frames: &[Vec<PrimitiveFx>],
    d: &Drive,
    mutant: bool,
) -> Result<Outcome, (u64, String)> {
    let mut rtl = BlockRtl::new(preset, STAGE).unwrap_or_else(|e| panic!("{e}"));
    let desc = rtl.desc;
    let (iw, ow) = (desc.in_words(), desc.out_words());
    let inputs: Vec<Vec<PrimIn>> = frames.iter().map(|f| frame_beats(f).unwrap()).collect();
    let mut model = BinSetupCycle::new(cfg);
    let mut mmodel = mutant.then(|| {
        let mut m = BinSetupCycle::new(cfg);
        m.plant_bug();
        m
    });
    let (mut vl, mut ol, mut wl): (Line, Line, Line) = (
        d.valid.line(Rng::stream(d.seed, 0)),
        d.out_ready.line(Rng::stream(d.seed, 1)),
        d.wr_ready.line(Rng::stream(d.seed, 2)),
    );
    let mut junk = Rng::stream(d.seed, 3);
    let mut o = Outcome::default();
    let (mut fin, mut bi, mut cur) = (0usize, 0usize, 0usize);
    let (mut boxes, mut writes): (Vec<BinBox>, Vec<MemReq>) = (Vec::new(), Vec::new());
    let (mut os, mut ws) = (0u64, 0u64);
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
            let (v, or, wr) = (vl.step(), ol.step(), wl.step());
            let f = fin % inputs.len();
            let inp = if v {
                inputs[f][bi]
            } else {
                PrimIn {
                    kind: junk.below(2) as u8,
                    v: [[junk.signed(24) as i32, junk.signed(24) as i32]; 3],
                    size: junk.below(1 << 24) as u32,
                    aa: junk.bool(),
                    colour: junk.next_u32(),
                    depth: junk.below(1 << 24) as u32,
                    end: junk.bool(),
                }
            };
            let mut i = HashMap::new();
            i.insert("flush".to_string(), flush as u64);
            i.insert("in_valid".to_string(), v as u64);
            i.insert("out_ready".to_string(), or as u64);
            i.insert("wr_ready".to_string(), wr as u64);
            stream::<ports::PrimIn>("inp", &inp, &mut i);
            let out = outputs(&model, or);
            if let (Some(mm), None) = (&mmodel, &o.mutant_diff) {
                let mo = outputs(mm, or);
                let mut names: Vec<&String> = out.keys().filter(|p| out[*p] != mo[*p]).collect();
                names.sort();
                if let Some(p) = names.first() {
                    o.mutant_diff = Some((c, p.to_string()));
                }
            }
            pack(desc.inputs, &i, &mut inw[k * iw..(k + 1) * iw]);
            pack(desc.outputs, &out, &mut exp[k * ow..(k + 1) * ow]);
            let ready = model.in_ready(or);
            let (ov, ob) = model.out();
            let (wv, wq) = model.wr();
            os = if ov && !or { os + 1 } else { 0 };
            ws = if wv && !wr { ws + 1 } else { 0 };
            o.longest_out_stall = o.longest_out_stall.max(os);
            o.longest_wr_stall = o.longest_wr_stall.max(ws);
            if flush {
                o.busy_flushes += (bi != 0 || ov || wv) as u64;
                boxes.clear();
                writes.clear();
                fin = cur;
                bi = 0;
            } else {
                if wv && wr {
                    writes.push(wq);
                }
                if ov && or {
                    boxes.push(ob);
                    if ob.end {
                        let fr = &frames[cur % frames.len()];
                        if boxes != ref_boxes(cfg, fr) {
                            return Err((c, format!("frame {cur}: the model's boxes are not golden's")));
                        }
                        let want = table(fr).unwrap();
                        let mut mem = vec![0u8; want.len()];
                        if writes.len() * 4 != want.len() {
                            return Err((c, format!("frame {cur}: {} writes", writes.len())));
                        }
                        for w in &writes {
                            let a = w.addr as usize;
                            mem[a..a + 4].copy_from_slice(&w.wdata.to_le_bytes());
                        }
                        if mem != want {
                            return Err((c, format!("frame {cur}: table bytes differ")));
                        }
                        o.boxes += boxes.len() as u64 - 1;
                        o.writes += writes.len() as u64;
                        o.frames += 1;
                        boxes.clear();
                        writes.clear();
                        cur += 1;
                    }
                }
                if v && ready {
                    bi += 1;
                    if bi == inputs[f].len() {
                        fin += 1;
                        bi = 0;
                    }
                }
            }
            model.clock(v, &inp, or, wr, flush);
            if let (Some(mm), None) = (&mut mmodel, &o.mutant_diff) {
                mm.clock(v, &inp, or, wr, flush);
            }
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
    let st = model.stats();
    o.zero_area = st.zero_area;
    o.culled = st.culled;
    Ok(o)
}

fn long_run(preset: &str, cull: CullMode, seed: u64) {
    let mut cfg = Config::preset(preset).unwrap();
    cfg.cull = cull;
    let frames: Vec<Vec<PrimitiveFx>> = (0..4).map(|f| bin_setup_frame(&cfg, seed * 100 + f, 300)).collect();
    let cycles = 60_000;
    let d = Drive {
        seed,
        cycles,
        valid: Pattern::gaps(30),
        out_ready: Pattern::RandomStalls {
            pct: 80,
            permille: 1,
            min: 1_000,
            max: 3_000,
        },
        wr_ready: Pattern::Stalls {
            pct: 85,
            every: 9_000,
            len: 1_500,
        },
        flush_at: vec![4_321, 31_234],
    };
    // The cycle model's cull mode is part of `cfg`; the RTL's is the preset's.
    let o = run(preset, &cfg, &frames, &d, false).unwrap_or_else(|(c, e)| panic!("{preset}: cycle {c}: {e}"));
    println!("{preset} {cull:?}: {o:?}");
    assert_eq!(o.cycles, cycles);
    assert!(o.frames >= 4, "{o:?}");
    assert!(o.boxes > 300 && o.zero_area > 0, "{o:?}");
    assert!(o.longest_out_stall >= 1_000 && o.longest_wr_stall >= 1_000, "{o:?}");
    assert!(o.busy_flushes >= 2, "flushes mid-frame: {o:?}");
}

#[test]
fn rtl_matches_cycle_model_default() {
    long_run("default", Config::preset("default").unwrap().cull, 1);
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    long_run("ice40", Config::preset("ice40").unwrap().cull, 2);
}

/// The planted bug (`default_mut`: the x1 clamp constant is W instead of W − 1): the RTL
/// differs from the model first at the cycle and on the port where the model with the same
/// bug first differs: `out__x1`, in the first cycle a box clipped at the right edge is in the
/// output register.
#[test]
fn planted_bug_is_caught_where_predicted() {
    let cfg = Config::preset("default").unwrap();
    let frames: Vec<Vec<PrimitiveFx>> = (0..2).map(|f| bin_setup_frame(&cfg, 900 + f, 200)).collect();
    let d = Drive {
        seed: 77,
        cycles: 8_000,
        valid: Pattern::gaps(20),
        out_ready: Pattern::Random { pct: 85 },
        wr_ready: Pattern::Random { pct: 85 },
        flush_at: vec![],
    };
    let clean = run("default", &cfg, &frames, &d, true).unwrap_or_else(|(c, e)| panic!("clean: cycle {c}: {e}"));
    let (at, port) = clean.mutant_diff.expect("the mutant model differs somewhere");
    let (c, e) = run("default_mut", &cfg, &frames, &d, false).expect_err("the planted bug is caught");
    println!("planted bug: predicted cycle {at} on {port}, caught at cycle {c}: {e}");
    assert_eq!(c, at, "caught at the predicted cycle");
    assert!(
        e.starts_with(&format!("{port} ")) || e.contains(&format!(", {port} ")),
        "{e}"
    );
    assert_eq!(port, "out__x1");
}
