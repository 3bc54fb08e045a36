//! bin_setup's port words, cycle by cycle, from its cycle model `BinSetupCycle` (the block has
//! the table write port `wr` besides `inp` / `out`, so its words are packed by port name from
//! the port table, as `tests/pixel_info_read.rs` does): the drive of `cosim/tests/bin_setup.rs`
//! (Verilator) and of the gate-level regression (`fpga/tests/postsim.rs`). Frames of
//! primitives back to back (repeated), junk payloads while `in_valid` is low, the patterns of
//! [`Drive`]; every frame finished is checked against golden (`binner::prim_bbox` boxes,
//! `prim_table::table` bytes) while the words are made.

use crate::blocks::{block_desc, set_bits, PortDesc};
use std::collections::HashMap;
use tilerast_golden::bin_setup::{frame_beats, BinSetupCycle};
use tilerast_golden::prim::PrimitiveFx;
use tilerast_golden::prim_table::table;
use tilerast_golden::streams::{ports, BinBox, MemReq, PrimIn, Stream};
use tilerast_golden::Config;
use tilerast_verif::stim::bin_setup_boxes;
use tilerast_verif::{Line, Pattern, Rng};

/// The stage name.
pub const STAGE: &str = "bin_setup";

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

/// The handshake lines and flushes of a run.
#[derive(Clone, Debug)]
pub struct Drive {
    pub seed: u64,
    pub cycles: u64,
    pub valid: Pattern,
    pub out_ready: Pattern,
    pub wr_ready: Pattern,
    pub flush_at: Vec<u64>,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    pub cycles: u64,
    /// Frames finished (each checked against golden).
    pub frames: u64,
    pub boxes: u64,
    pub writes: u64,
    pub longest_out_stall: u64,
    pub longest_wr_stall: u64,
    /// Flushes with a frame in flight.
    pub busy_flushes: u64,
    pub zero_area: u64,
    pub culled: u64,
    /// First cycle where the mutant model's outputs differ from the model's: (cycle, port).
    pub mutant_diff: Option<(u64, String)>,
}

/// The run's port words: `inp` and `exp` (the model's outputs), `in_words()` / `out_words()`
/// of `preset`'s port table per cycle.
pub struct Vectors {
    pub inp: Vec<u32>,
    pub exp: Vec<u32>,
    pub outcome: Outcome,
}

/// The words of a run of the model for `cfg` on `frames` (back to back, repeated) against the
/// port table of `preset`. `mutant`: step a model with the planted bug alongside
/// (`BinSetupCycle::plant_bug`) to predict its first visible cycle. `Err`: the cycle where a
/// finished frame is not golden's.
pub fn vectors(
    preset: &str,
    cfg: &Config,
    frames: &[Vec<PrimitiveFx>],
    d: &Drive,
    mutant: bool,
) -> Result<Vectors, (u64, String)> {
    let desc = block_desc(preset, STAGE).ok_or_else(|| (0, format!("no verilated block {preset}/{STAGE}")))?;
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
    let n = d.cycles as usize;
    let mut inw = vec![0u32; n * iw];
    let mut exp = vec![0u32; n * ow];
    for c in 0..d.cycles {
        let k = c as usize;
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
                    if boxes != bin_setup_boxes(cfg, fr) {
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
    o.cycles = d.cycles;
    let st = model.stats();
    o.zero_area = st.zero_area;
    o.culled = st.culled;
    Ok(Vectors {
        inp: inw,
        exp,
        outcome: o,
    })
}
