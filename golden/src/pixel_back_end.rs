//! The pixel back end (seeds 000 and 004): the pixel processor, its colour buffer, the output
//! merger's `dst` read side, the blender and the output merger's write side, wired behind one
//! memory port.
//!
//! ```text
//!               ┌─────────────────────────────── pixel_back_end ─────────────────────────────────┐
//!  PixSamples ─►│ pixel_processor ─PixSlots─► colour_buffer ─PixSlots─► dst_fetch ─BlendFrag─►   │
//!   (in)        │                             (storage blocks)           │ rd ▲ rsp        blender │
//!               │                                                        ▼    │        BlendBeat │ │
//!               │                                                   ┌─────────┴── arbiter ◄─ output_merger
//!               └───────────────────────────────────────────────────┼───── (writes first) ────────┘
//!                                                           mem_req ▼ ▲ mem_resp
//!                                                        memory (framebuffer at address 0)
//! ```
//!
//! The framebuffer is at address 0 of the memory ([`crate::output_merger::slot_addr`]); it
//! must hold the frame's background in every slot when the frame starts (the owner of the
//! memory clears it). Each slot is blended at most once per frame, so no read of a slot can
//! follow a write of it within a frame (the same assumption golden's pipeline makes).
//!
//! [`PixelBackEndCycle`] is the cycle model of `hw/src/pixel_back_end.rs`: the five blocks'
//! cycle models plus the arbiter, which has no register. [`run_frame`] drives it with a
//! [`MemoryCycle`] behind the port over a frame's input
//! ([`crate::pipeline::back_end_input`]).

use crate::blender::{pipeline_blend, BlendOpts, BlendStats, BlenderCycle};
use crate::colour_buffer::{ColourBufferCycle, ColourBufferStats};
use crate::config::Config;
use crate::cycle::{CycleModel, Offer};
use crate::dst_fetch::{DstFetchCycle, DstFetchIn, DstFetchStats};
use crate::memory_port::{MemStats, MemTiming, MemoryCycle, SparseMemory};
use crate::output_merger::{MergerCycleStats, OutputMergerCycle};
use crate::pixel_processor::{PixelProcessorCycle, PixelStats};
use crate::rng::Rng;
use crate::streams::{MemReq, PixSamples};

/// Counters of the back end's blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BackEndStats {
    pub pixel: PixelStats,
    pub buffer: ColourBufferStats,
    pub dst: DstFetchStats,
    pub blend: BlendStats,
    pub merger: MergerCycleStats,
}

/// Cycle model of `hw/src/pixel_back_end.rs`.
///
/// # Timing contract
///
/// The back end is its five blocks, each as its own cycle model states it
/// ([`PixelProcessorCycle`], [`ColourBufferCycle`], [`DstFetchCycle`], [`BlenderCycle`] with
/// the pipeline's blend
/// options [`pipeline_blend`], [`OutputMergerCycle`]), connected stream to stream, plus the
/// memory arbiter, which is combinational:
///
/// * `mem_req_valid` = wr_valid ∨ rd_valid; `mem_req` = the output merger's write when
///   wr_valid, else dst_fetch's read register (its payload whatever it holds).
/// * The write side's ready = `mem_req_ready`; the read side's = `mem_req_ready` ∧ ¬wr_valid
///   (writes first: the write path never waits on a read).
/// * `mem_resp` goes to dst_fetch; `mem_resp_ready` is dst_fetch's `rsp_ready` (a register).
/// * `background` goes to dst_fetch: with `framebuffer: clear` it is every sample's `dst`, so
///   nothing is read and the port carries writes only.
/// * `in_ready` is the pixel processor's, which depends combinationally on the colour
///   buffer's, a register: no input reaches `in_ready` combinationally. Every other output is
///   a register of a block.
/// * `flush` goes to every block at the same edge; the memory is not the back end's and is
///   not flushed.
/// * **Idle.** `idle` = the AND of the five blocks' `idle` (each a function of its own
///   registers, stated in its contract): no pixel, read or write anywhere in the back end.
///
/// Latency and throughput are the blocks' composed: one pixel per cycle into the pixel
/// processor; a second tile leaves the colour buffer once its last pixel is in, a piece of a
/// pixels in a + 1 cycles; dst_fetch issues at most one read per cycle with at most 4 outstanding; the
/// blender and the output merger write one slot per cycle; a memory with read latency λ and
/// no back-pressure lets through min(1, 4/(λ+1)) reads per cycle when no write competes.
#[derive(Clone, Debug)]
pub struct PixelBackEndCycle {
    pixel_processor: PixelProcessorCycle,
    colour_buffer: ColourBufferCycle,
    dst_fetch: DstFetchCycle,
    blender: BlenderCycle,
    output_merger: OutputMergerCycle,
}

/// The wires of one cycle, computed from the registers and the inputs.
struct Wires {
    wr_valid: bool,
    rd_ready: bool,
    wr_ready: bool,
    om_in_ready: bool,
    bl_in_ready: bool,
    df_in_ready: bool,
    cb_in_ready: bool,
}

crate::block_signature! {
    /// The pixel back end's ports: pixels in, the one memory port (requests out, read
    /// responses in), the frame's `background` (packed RGBA8, held for the frame), `idle`.
    pub PixelBackEnd "pixel_back_end" {
        takes { inp: PixSamples, mem_resp: MemResp }
        sends { mem_req: MemReq }
        ins { background: u32 }
        outs { idle: bool }
    }
}

impl crate::cycle::BlockModel for PixelBackEndCycle {
    type Sig = PixelBackEndPorts;
    fn outputs(&self, i: &PixelBackEndIn) -> PixelBackEndOut {
        let (qv, q) = self.mem_req();
        PixelBackEndOut {
            inp_ready: self.in_ready(i.mem_req_ready),
            mem_resp_ready: self.mem_resp_ready(),
            mem_req: crate::cycle::Offer::new(qv, q),
            idle: self.idle(),
        }
    }
    fn clock(&mut self, i: &PixelBackEndIn) {
        PixelBackEndCycle::clock(self, i)
    }
}

impl PixelBackEndCycle {
    /// Whether the back end can be built for `cfg`: `Ok`, or one line naming the field.
    pub fn supported(cfg: &Config) -> Result<(), String> {
        crate::pixel_processor::PixelGeom::new(cfg)?;
        DstFetchCycle::try_new(cfg)?;
        crate::blender::BlenderGeom::new(cfg, &pipeline_blend(cfg))?;
        Ok(())
    }

    /// Idle back end.
    ///
    /// # Panics
    /// If [`PixelBackEndCycle::supported`] refuses `cfg`.
    pub fn new(cfg: &Config) -> PixelBackEndCycle {
        Self::with_opts(cfg, &pipeline_blend(cfg))
    }

    /// Idle back end whose blender has options `opts` instead of [`pipeline_blend`]'s (for the
    /// merge-on/off comparison of the benchmarks; the RTL is built with [`pipeline_blend`]'s).
    ///
    /// # Panics
    /// If [`PixelBackEndCycle::supported`] or the blender refuses `cfg` / `opts`.
    pub fn with_opts(cfg: &Config, opts: &BlendOpts) -> PixelBackEndCycle {
        if let Err(e) = Self::supported(cfg) {
            panic!("{e}");
        }
        PixelBackEndCycle {
            pixel_processor: PixelProcessorCycle::new(cfg),
            colour_buffer: ColourBufferCycle::new(cfg),
            dst_fetch: DstFetchCycle::new(cfg),
            blender: BlenderCycle::new(cfg, opts),
            output_merger: OutputMergerCycle::new(),
        }
    }

    fn wires(&self, mem_req_ready: bool) -> Wires {
        let (wr_valid, _) = self.output_merger.out();
        let wr_ready = mem_req_ready;
        let rd_ready = mem_req_ready && !wr_valid;
        let om_in_ready = self.output_merger.in_ready(wr_ready);
        let df_in_ready = self.dst_fetch.in_ready(rd_ready);
        Wires {
            wr_valid,
            rd_ready,
            wr_ready,
            om_in_ready,
            bl_in_ready: self.blender.in_ready(om_in_ready),
            df_in_ready,
            cb_in_ready: self.colour_buffer.in_ready(df_in_ready),
        }
    }

    /// Ready for a pixel this cycle, given the memory's request ready.
    pub fn in_ready(&self, mem_req_ready: bool) -> bool {
        self.pixel_processor.in_ready(self.wires(mem_req_ready).cb_in_ready)
    }

    /// The memory request this cycle: (mem_req_valid, mem_req).
    pub fn mem_req(&self) -> (bool, MemReq) {
        let (wv, w) = self.output_merger.out();
        let (rv, r) = self.dst_fetch.rd();
        (wv || rv, if wv { w } else { r })
    }

    /// Ready for a memory response this cycle.
    pub fn mem_resp_ready(&self) -> bool {
        self.dst_fetch.rsp_ready()
    }

    /// One rising edge.
    pub fn clock(&mut self, i: &PixelBackEndIn) {
        let w = self.wires(i.mem_req_ready);
        let _ = w.wr_valid;
        let (pv, p) = self.pixel_processor.out();
        let (cv, c) = self.colour_buffer.out();
        let (dv, d) = self.dst_fetch.out();
        let (bv, b) = self.blender.out();
        self.pixel_processor
            .clock(i.inp.valid, &i.inp.payload, w.cb_in_ready, i.flush);
        self.colour_buffer.clock(pv, &p, w.df_in_ready, i.flush);
        self.dst_fetch.clock(&DstFetchIn {
            flush: i.flush,
            inp: Offer::new(cv, c),
            rsp: Offer::new(i.mem_resp.valid, i.mem_resp.payload),
            out_ready: w.bl_in_ready,
            rd_ready: w.rd_ready,
            background: i.background,
        });
        self.blender.clock(dv, &d, w.om_in_ready, i.flush);
        self.output_merger.clock(bv, &b, w.wr_ready, i.flush);
    }

    /// Nothing held (the contract's **Idle**): every block idle.
    pub fn idle(&self) -> bool {
        self.blocks_idle().iter().all(|&b| b)
    }

    /// Each block's `idle`, in pipeline order: pixel processor, colour buffer, dst_fetch,
    /// blender, output merger.
    pub fn blocks_idle(&self) -> [bool; 5] {
        [
            self.pixel_processor.idle(),
            self.colour_buffer.idle(),
            self.dst_fetch.idle(),
            self.blender.idle(),
            self.output_merger.idle(),
        ]
    }

    /// The blocks' counters so far.
    pub fn stats(&self) -> BackEndStats {
        BackEndStats {
            pixel: self.pixel_processor.stats(),
            buffer: self.colour_buffer.stats(),
            dst: self.dst_fetch.stats(),
            blend: self.blender.stats(),
            merger: self.output_merger.stats(),
        }
    }
}

/// The memory behind the port in [`run_frame`] (and [`crate::frame::run_frames`]): its timing,
/// the chance (per mille) that it withholds `req_ready` in a cycle (random back-pressure; 0 for
/// none) and one long stall.
#[derive(Clone, Copy, Debug)]
pub struct MemBehaviour {
    pub timing: MemTiming,
    /// The blender's options; `None` (the default): the config's, as the RTL is built
    /// ([`pipeline_blend`]).
    pub blend: Option<BlendOpts>,
    pub busy_permille: u32,
    /// Seed of the back-pressure pattern.
    pub seed: u64,
    /// Cycles `[from, to)` in which the memory withholds every grant (a long stall; empty by
    /// default).
    pub stall: (u64, u64),
}

impl Default for MemBehaviour {
    fn default() -> Self {
        MemBehaviour {
            timing: MemTiming::default(),
            blend: None,
            busy_permille: 0,
            seed: 1,
            stall: (0, 0),
        }
    }
}

impl MemBehaviour {
    /// The grant (back-pressure) line, cycle by cycle: call it once per cycle with the cycle
    /// number; `false` withholds `req_ready` ([`MemoryCycle::req_ready`]'s `grant`). The one
    /// generator ([`Rng`], seeded with `seed`) withholds with probability `busy_permille` ‰
    /// each cycle, and `stall` withholds a whole window.
    pub fn grant_line(&self) -> impl FnMut(u64) -> bool {
        let mut rng = Rng::new(self.seed);
        let (busy, stall) = (self.busy_permille, self.stall);
        move |cyc| !rng.permille(busy as u64) && !(stall.0..stall.1).contains(&cyc)
    }
}

/// What [`run_frame`] gives.
#[derive(Clone, Debug)]
pub struct BackEndRun {
    /// Cycles from the first cycle to the edge of the last memory write, inclusive.
    pub cycles: u64,
    pub stats: BackEndStats,
    pub mem_stats: MemStats,
    /// The memory at the end.
    pub memory: SparseMemory,
}

/// Drive the back end with `input` (one pixel offered per cycle, no gaps) and a
/// [`MemoryCycle`] holding `background` in every framebuffer slot of `cfg`, until
/// `expected_writes` writes have reached the memory and the back end is empty, or `max_cycles`
/// (then `Err` with what was reached).
pub fn run_frame(
    cfg: &Config,
    input: &[PixSamples],
    background: crate::prim::Rgba,
    expected_writes: u64,
    mem: MemBehaviour,
    max_cycles: u64,
) -> Result<BackEndRun, String> {
    let mut be = PixelBackEndCycle::with_opts(cfg, &mem.blend.unwrap_or_else(|| pipeline_blend(cfg)));
    let mut m = MemoryCycle::new(mem.timing, framebuffer(cfg, background));
    let mut grants = mem.grant_line();
    let mut next = 0usize;
    for cyc in 0..max_cycles {
        let grant = grants(cyc);
        let req_ready = m.req_ready(grant);
        let (rv, resp) = m.resp();
        let (qv, q) = be.mem_req();
        let in_valid = next < input.len();
        let inp = input.get(next).copied().unwrap_or_default();
        if in_valid && be.in_ready(req_ready) {
            next += 1;
        }
        let resp_ready = be.mem_resp_ready();
        be.clock(&PixelBackEndIn {
            flush: false,
            inp: Offer::new(in_valid, inp),
            mem_resp: Offer::new(rv, resp),
            mem_req_ready: req_ready,
            background: u32::from_le_bytes(background),
        });
        m.clock(qv, &q, grant, resp_ready, false);
        if next == input.len() && m.stats.writes >= expected_writes && m.held() == 0 {
            return Ok(BackEndRun {
                cycles: cyc + 1,
                stats: be.stats(),
                mem_stats: m.stats,
                memory: m.mem,
            });
        }
    }
    Err(format!(
        "back end: {next} of {} pixels taken and {} of {expected_writes} writes after {max_cycles} cycles",
        input.len(),
        m.stats.writes
    ))
}

/// A memory holding `background` in every framebuffer slot of `cfg` (what the back end
/// expects at the start of a frame).
pub fn framebuffer(cfg: &Config, background: crate::prim::Rgba) -> SparseMemory {
    crate::output_merger::OutputMerger::new(cfg, background).memory()
}
