//! rust-hdl simulation of `BinSetup` against its cycle model `BinSetupCycle` through the one
//! lock-step harness (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`): a
//! source of primitives on `inp` (this file's [`Frames`] agent), sinks on `out` (boxes) and
//! `wr` (table writes; no responses, so no memory port behind it), every output port compared,
//! payloads valid or not, on every cycle. Stimulus: frames of `stim::bin_setup_frame`
//! primitives (triangles of every kind incl. zero-area, near-degenerate and 24-bit extremes,
//! points AA off / on) each closed by a frame-end token, junk payloads while `in_valid` is low,
//! random input gaps, random back-pressure with stalls on each output, a flush mid-frame.
//! Transaction level: each frame finished must give golden's boxes (`binner::prim_bbox`) and
//! `prim_table::table`'s bytes. Configs: `ice40` (cull none) and `ice40` with cull cw, ~3000
//! cycles each.

mod common;

use std::any::Any;
use tilerast_golden::bin_setup::{frame_beats, BinSetupCycle};
use tilerast_golden::config::{Config, CullMode};
use tilerast_golden::cycle::Ports;
use tilerast_golden::prim::PrimitiveFx;
use tilerast_golden::prim_table::table;
use tilerast_golden::streams::{ports, BinBox, MemReq, PrimIn};
use tilerast_hw::bin_setup::{supported, BinSetup};
use tilerast_verif::lockstep::{self, Agent, Bench, Ctl, Flushes, Lockstep, Sink};
use tilerast_verif::stim::{bin_setup_boxes, bin_setup_frame};
use tilerast_verif::{Pattern, Rng};

/// What a run did.
#[derive(Clone, Debug, Default)]
struct Report {
    /// The first finished frame that differs from golden's.
    wrong: Option<String>,
    frames: u64,
    boxes: u64,
    writes: u64,
    flushes: u64,
    out_stall: u64,
    wr_stall: u64,
    longest_stall: u64,
}

/// Offers the frames' beats in order under `valid` (junk payloads while not valid), collects
/// the boxes and table writes of the frame being finished and checks each finished frame
/// against golden's; a flush drops what was collected and starts again from that frame.
struct Frames {
    cfg: Config,
    frames: Vec<Vec<PrimitiveFx>>,
    inputs: Vec<Vec<PrimIn>>,
    valid: Ctl,
    junk: Rng,
    offered: bool,
    /// Frame and beat offered next.
    fin: usize,
    bi: usize,
    /// Frame being finished on the outputs, and what it has given so far.
    cur: usize,
    boxes: Vec<BinBox>,
    writes: Vec<MemReq>,
    r: Report,
}

impl Frames {
    fn new(cfg: &Config, frames: Vec<Vec<PrimitiveFx>>, valid: Ctl, junk: Rng) -> Frames {
        Frames {
            cfg: cfg.clone(),
            inputs: frames.iter().map(|f| frame_beats(f).unwrap()).collect(),
            frames,
            valid,
            junk,
            offered: false,
            fin: 0,
            bi: 0,
            cur: 0,
            boxes: Vec::new(),
            writes: Vec::new(),
            r: Report::default(),
        }
    }

    /// The frame `cur` has ended: its boxes and table bytes against golden's.
    fn check_frame(&self) -> Result<(), String> {
        let cur = self.cur;
        let want = bin_setup_boxes(&self.cfg, &self.frames[cur]);
        if self.boxes != want {
            return Err(format!("frame {cur}: boxes {:?}, golden {want:?}", self.boxes));
        }
        let want = table(&self.frames[cur]).unwrap();
        if self.writes.len() * 4 != want.len() {
            return Err(format!(
                "frame {cur}: {} writes, golden's table is {} bytes",
                self.writes.len(),
                want.len()
            ));
        }
        let mut mem = vec![0u8; want.len()];
        for w in &self.writes {
            let a = w.addr as usize;
            mem[a..a + 4].copy_from_slice(&w.wdata.to_le_bytes());
        }
        if mem != want {
            return Err(format!("frame {cur}: table bytes differ from golden's"));
        }
        Ok(())
    }
}

impl Agent for Frames {
    fn drive(&mut self, cycle: u64, p: &mut Ports) {
        // The valid line steps only while there is something to offer.
        self.offered = self.fin < self.inputs.len() && (self.valid)(cycle);
        let junk = &mut self.junk;
        let inp = if self.offered {
            self.inputs[self.fin][self.bi]
        } else {
            PrimIn {
                kind: junk.below(2) as u8,
                v: [[junk.signed(24) as i32; 2]; 3],
                size: junk.below(1 << 24) as u32,
                aa: junk.bool(),
                colour: junk.next_u32(),
                depth: junk.below(1 << 24) as u32,
                end: junk.bool(),
            }
        };
        p.set("in_valid", self.offered as u64);
        p.put_payload::<ports::PrimIn>("inp", &inp);
    }

    fn edge(&mut self, cycle: u64, i: &Ports, o: &Ports) {
        if i.bit("flush") {
            self.boxes.clear();
            self.writes.clear();
            self.fin = self.cur;
            self.bi = 0;
            return;
        }
        if o.bit("wr_valid") && i.bit("wr_ready") {
            self.writes.push(o.payload::<ports::MemReq>("wr"));
        }
        if o.bit("out_valid") && i.bit("out_ready") {
            let b = o.payload::<ports::BinBox>("out");
            self.boxes.push(b);
            if b.end {
                if let Err(e) = self.check_frame() {
                    self.r.wrong.get_or_insert(format!("cycle {cycle}: {e}"));
                }
                self.r.boxes += self.boxes.len() as u64 - 1;
                self.r.writes += self.writes.len() as u64;
                self.r.frames += 1;
                self.boxes.clear();
                self.writes.clear();
                self.cur += 1;
            }
        }
        if self.offered && o.bit("in_ready") {
            self.bi += 1;
            if self.bi == self.inputs[self.fin].len() {
                self.fin += 1;
                self.bi = 0;
            }
        }
    }

    fn summary(&self) -> String {
        format!(
            "inp: {} of {} frames taken, {} finished ({} boxes, {} writes)",
            self.fin,
            self.frames.len(),
            self.r.frames,
            self.r.boxes,
            self.r.writes
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

fn run(cfg: &Config, frames: Vec<Vec<PrimitiveFx>>, seed: u64, cycles: u64, flush_at: u64) -> Report {
    let out_ready = Pattern::RandomStalls {
        pct: 80,
        permille: 8,
        min: 10,
        max: 60,
    };
    let wr_ready = Pattern::RandomStalls {
        pct: 85,
        permille: 5,
        min: 10,
        max: 80,
    };
    let valid = lockstep::line(Pattern::gaps(25).line(Rng::stream(seed, 0)));
    let bench = Bench::new()
        .with("flush", Flushes::at(vec![flush_at]))
        .with("inp", Frames::new(cfg, frames, valid, Rng::stream(seed, 3)))
        .with(
            "out",
            Sink::<ports::BinBox>::new("out", lockstep::line(out_ready.line(Rng::stream(seed, 1)))),
        )
        .with(
            "wr",
            Sink::<ports::MemReq>::new("wr", lockstep::line(wr_ready.line(Rng::stream(seed, 2)))),
        );
    let ls = Lockstep::new(BinSetupCycle::new(cfg), bench);
    let (ls, outcome) = common::lockstep(BinSetup::new(cfg), ls, cycles, None);
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let (out, wr) = (
        ls.bench.get::<Sink<ports::BinBox>>("out"),
        ls.bench.get::<Sink<ports::MemReq>>("wr"),
    );
    Report {
        flushes: ls.bench.get::<Flushes>("flush").count,
        out_stall: out.waits,
        wr_stall: wr.waits,
        longest_stall: out.longest_wait.max(wr.longest_wait),
        ..ls.bench.get::<Frames>("inp").r.clone()
    }
}

#[test]
fn cosim_against_the_cycle_model() {
    for (i, cull) in [CullMode::None, CullMode::Cw].into_iter().enumerate() {
        let mut cfg = Config::preset("ice40").unwrap();
        cfg.cull = cull;
        supported(&cfg).unwrap();
        let frames: Vec<Vec<PrimitiveFx>> = (0..6)
            .map(|f| bin_setup_frame(&cfg, 70 + 10 * i as u64 + f, 40))
            .collect();
        let r = run(&cfg, frames, 5 + i as u64, 3_000, 900);
        println!("{cull:?}: {r:?}");
        assert_eq!(r.wrong, None, "finished frames differ from golden's");
        assert_eq!(r.flushes, 1);
        assert!(r.frames >= 3, "only {} frames finished", r.frames);
        assert!(r.boxes > 30 && r.writes > 600, "{r:?}");
        assert!(r.out_stall > 0 && r.wr_stall > 0 && r.longest_stall >= 10, "{r:?}");
    }
}

#[test]
fn verilog_lints_clean_and_refusals_name_the_field() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("bin_setup_{p}");
        let v = tilerast_hw::bin_setup::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
    let mut cfg = Config::preset("default").unwrap();
    cfg.viewport = [8192, 64];
    let e = supported(&cfg).unwrap_err();
    assert!(e.starts_with("config.viewport") && !e.contains('\n'), "{e}");
}
