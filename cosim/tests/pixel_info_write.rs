//! Verilator co-simulation of the pixel-info writer block alone
//! (`rtl-out/tilerast_pixel_info_write_<preset>.v`, presets ice40 and default) against its
//! cycle model `PixelInfoWriteCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`). Stimulus: frames of `stim::pi_beats` beats (0..4 valid lanes,
//! junk in invalid lanes, a hot second tile, one second tile never touched) each closed by a
//! frame-end token, input gaps with junk payloads, random memory back-pressure with stalls of
//! 200 to 1500 cycles, two flushes; 60 000 cycles per preset. Transaction level (a tap on the
//! model's ports, which equal the RTL's on every cycle): every frame whose `last` write leaves
//! holds, replayed on an empty memory, `PixelInfoStore`'s bytes for the beats taken in it,
//! byte for byte. Plus: the planted bug of `cosim/build/mutation.rs` (the record's in-tile
//! column loses bit 4) is caught at the cycle and port predicted from the model, and a model
//! broken at one cycle is caught there.

use std::cell::RefCell;
use std::rc::Rc;
use tilerast_cosim::blocks::{cosim_block, BlockStim};
use tilerast_golden::cycle::{CycleModel, ExtraOut};
use tilerast_golden::memory_port::SparseMemory;
use tilerast_golden::pixel_info_write::{PixelInfoWriteCycle, PixelInfoWritePorts};
use tilerast_golden::streams::{BinWrite, PiBeat};
use tilerast_golden::Config;

mod common;
use common::{clean, expect_caught, Perturb, Recorder};
use tilerast_verif::stim::{pi_beats, pi_frame, pi_store};

/// What the tap saw: frames compared, writes compared, blocks, longest list in blocks.
#[derive(Default)]
struct Seen {
    frames: u64,
    writes: u64,
    blocks: u64,
    longest: u64,
    empty_lists: u64,
    quads: u64,
    open: Vec<Vec<PiBeat>>,
    cur: Vec<BinWrite>,
}

/// The model with a transaction-level tap on its ports.
struct Tap {
    m: PixelInfoWriteCycle,
    cfg: Config,
    seen: Rc<RefCell<Seen>>,
}

impl ExtraOut for Tap {}

impl CycleModel for Tap {
    type In = PiBeat;
    type Out = BinWrite;
    fn out(&self) -> (bool, BinWrite) {
        self.m.out()
    }
    fn in_ready(&self, r: bool) -> bool {
        self.m.in_ready(r)
    }
    fn clock(&mut self, v: bool, inp: &PiBeat, r: bool, flush: bool) {
        let (ov, w) = self.m.out();
        let ready = self.m.in_ready(r);
        let mut s = self.seen.borrow_mut();
        if s.open.is_empty() {
            s.open.push(Vec::new());
        }
        if flush {
            s.open = vec![Vec::new()];
            s.cur.clear();
        } else {
            if ov && r {
                s.cur.push(w);
                if w.last {
                    let beats = s.open.remove(0);
                    let frame = beats.first().map_or(0, |b| b.frame);
                    let store = pi_store(&self.cfg, &beats, frame);
                    let gm = store.memory();
                    let mut mem = SparseMemory::new();
                    for q in &s.cur {
                        assert!(
                            (q.req.addr as u64) < gm.size(),
                            "write beyond the frame's memory: {q:?}"
                        );
                        mem.write(q.req.addr, q.req.wdata, q.req.be);
                    }
                    for a in (0..gm.size()).step_by(4) {
                        assert_eq!(
                            mem.read(a as u32),
                            gm.peek_u32(a).unwrap(),
                            "frame {}: word {a:#x}",
                            s.frames
                        );
                    }
                    let st = store.stats();
                    assert_eq!(4 * s.cur.len() as u64, st.bytes_written);
                    s.frames += 1;
                    s.writes += s.cur.len() as u64;
                    s.blocks += st.blocks_allocated;
                    s.quads += st.records;
                    let [tx, ty] = store.second_tile_count();
                    for l in 0..(tx * ty) as u64 {
                        let count = gm.peek_u32(8 * l + 4).unwrap() as u64;
                        s.empty_lists += (count == 0) as u64;
                        s.longest = s.longest.max(count.div_ceil(st.records_per_block as u64));
                    }
                    s.cur.clear();
                }
            }
            if v && ready {
                if inp.end {
                    s.open.push(Vec::new());
                } else {
                    s.open.last_mut().unwrap().push(*inp);
                }
            }
        }
        drop(s);
        self.m.clock(v, inp, r, flush);
    }
}

fn stim(seed: u64, cycles: u64) -> BlockStim {
    BlockStim {
        seed,
        cycles,
        stall_permille: 1,
        stall_len: (200, 1_500),
        flush_at: vec![cycles / 4 + 1, 2 * cycles / 3],
        ..BlockStim::default()
    }
}

fn input(cfg: &Config, seed: u64, frames: u64, per: usize) -> Vec<PiBeat> {
    (0..frames)
        .flat_map(|f| pi_frame(&pi_beats(cfg, seed + f, per, (seed + f) as u8)))
        .collect()
}

fn run(preset: &str, seed: u64, per: usize) {
    let cfg = Config::preset(preset).unwrap();
    let s = stim(seed, 60_000);
    let inp = input(&cfg, seed, 12, per);
    let seen = Rc::new(RefCell::new(Seen::default()));
    let tap = Tap {
        m: PixelInfoWriteCycle::new(&cfg).unwrap(),
        cfg: cfg.clone(),
        seen: seen.clone(),
    };
    let r = clean(
        &format!("{preset}/pixel_info_write"),
        cosim_block::<PixelInfoWritePorts, _>(preset, tap, &inp, &s),
        &s,
    );
    let s = seen.borrow();
    println!(
        "  {} writes out; {} frames compared with PixelInfoStore byte for byte ({} writes, {} quads, \
         {} blocks, longest list {} blocks, {} empty lists)",
        r.outputs.len(),
        s.frames,
        s.writes,
        s.quads,
        s.blocks,
        s.longest,
        s.empty_lists
    );
    assert!(s.frames >= 4, "only {} frames finished", s.frames);
    assert!(s.longest >= 3, "no list of 3 blocks");
    assert!(s.empty_lists > 0, "every second tile had a quad");
    assert!(r.outputs.iter().all(|q| q.req.write && q.req.be == 0xf));
    assert!(r.longest_stall >= 1_000, "longest stall {}", r.longest_stall);
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    run("ice40", 0x91_1ce4, 100);
}

#[test]
fn rtl_matches_cycle_model_default() {
    run("default", 0x91_defa, 100);
}

#[test]
fn the_planted_bug_is_caught_at_the_predicted_cycle_and_port() {
    let cfg = Config::preset("default").unwrap();
    let s = stim(0x5eed, 8_000);
    let inp = input(&cfg, 0x5eed, 4, 40);
    let m = PixelInfoWriteCycle::new(&cfg).unwrap();
    let b = cfg.pixel_info_block_bytes;
    let table = m.list_writer().first_chunk() * b;
    assert_eq!(m.words(), 3);
    // Prediction: `out__wdata` differs in bit 4 from the first cycle the model's output
    // register holds word 2 of a record (block offset 4 + 12k + 8) whose in-tile column
    // (bits 7..0) has bit 4 set: the mutant keeps only bits 3..0 of it. Everything before
    // matches (the column feeds word 2 only).
    let rec = Recorder::new(PixelInfoWriteCycle::new(&cfg).unwrap());
    let log = rec.log.clone();
    cosim_block::<PixelInfoWritePorts, _>("default", rec, &inp, &s)
        .unwrap_or_else(|m| panic!("the clean block differs:\n{m}"));
    let at = log
        .borrow()
        .iter()
        .position(|(_, w)| {
            let off = w.req.addr % b;
            w.req.addr >= table && off >= 4 && (off - 4) % 12 == 8 && w.req.wdata & 0x10 != 0
        })
        .expect("a record in columns 16..31 of its second tile") as u64;
    println!("predicted: cycle {at}, out__wdata, bits 0x10");
    let r = cosim_block::<PixelInfoWritePorts, _>("default_mut", PixelInfoWriteCycle::new(&cfg).unwrap(), &inp, &s);
    expect_caught(r, at, "out__wdata", 0x10);
}

#[test]
fn a_broken_model_is_caught_at_its_cycle_and_port() {
    let cfg = Config::preset("ice40").unwrap();
    let s = stim(19, 6_000);
    let m = Perturb::new(PixelInfoWriteCycle::new(&cfg).unwrap(), 3_210, |w| w.req.wdata ^= 0x40);
    let r = cosim_block::<PixelInfoWritePorts, _>("ice40", m, &input(&cfg, 19, 4, 30), &s);
    expect_caught(r, 3_210, "out__wdata", 0x40);
}
