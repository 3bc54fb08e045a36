//! Per-block co-simulation: one pipeline block of `rtl-out/tilerast_<preset>.v`, verilated on its
//! own (see `build/blocks.rs`), against its golden cycle model, every port on every cycle,
//! valid or not: the Verilator back end of the one lock-step harness
//! (`tilerast_verif::lockstep`), for blocks with any number of streams.
//!
//! ```text
//!            ┌──────────── Bench (seeded agents): sources, sinks, memories, flushes
//!            ▼
//!   model ──► per cycle: in words (flush, valids, readies, payloads)      ─┐ one batch of
//!   (runs a  │           predicted out words (every output port)          │ BATCH cycles
//!   batch    ▼                                                            ▼
//!   ahead)  BlockRtl::run(in words) ──► RTL out words ══ compare ══► first difference =
//!                                                                    CosimFail::Mismatch
//! ```
//!
//! Ports are sampled like `BlockModel::outputs`: inputs applied with the clock low, settle,
//! sample, rising edge. The stimulus never depends on the RTL, only on the model's outputs, so
//! the model runs a batch first and Verilator replays it in one FFI call
//! ([`cosim_lockstep_until`]). Port names, widths and bit offsets come from the generated port
//! table [`BLOCK_TABLE`]; the model's signature (`block_signature!`) names the block's ports,
//! and the two must name exactly the same ports, so a port added to the RTL or missing from
//! the signature is an error, not a silently unchecked port. A one-in, one-out block
//! (`cycle_model_signature!`) runs through [`cosim_block`] / [`block_vectors`]: its model or a
//! test's wrapper around it on the signature's ports ([`OnPorts`]) under a [`BlockStim`].

use std::fmt;
use std::time::Instant;
use tilerast_golden::cycle::{too_wide, CycleModel, ExtraOut, OnPorts, OneStream, PortModel, Ports};
use tilerast_golden::streams::Stream;
use tilerast_verif::lockstep::{Lockstep, Mismatch};

#[cxx::bridge(namespace = "tilerast_blocks")]
mod ffi {
    unsafe extern "C++" {
        include!("tilerast-cosim/csrc/blocks.h");
        type BlockModel;
        fn new_block(name: &str) -> Result<UniquePtr<BlockModel>>;
        fn block_run(m: Pin<&mut BlockModel>, cycles: u32, inp: &[u32], out: &mut [u32]) -> Result<()>;
        fn block_in_words(m: &BlockModel) -> u32;
        fn block_out_words(m: &BlockModel) -> u32;
    }
}

/// One port of a verilated block: bits `offset .. offset + width` of `in_bits` or `out_bits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortDesc {
    pub name: &'static str,
    pub width: u32,
    pub offset: u32,
    pub signed: bool,
}

/// One verilated block: a raster-core stage or a pixel-side block's top, wrapped as
/// `blk_<preset>_<stage>`.
#[derive(Debug)]
pub struct BlockDesc {
    pub preset: &'static str,
    /// Stage name as in `hw/src/<stage>.rs` (`setup`, `tile_parser`, `subtile_coverage`,
    /// `sample_raster`, `point_raster`, `quad_packer`).
    pub stage: &'static str,
    /// The Verilog module: a pixel-side block's top `tilerast_<stage>_<preset>`, or the module
    /// the core `tilerast_<preset>` instantiates as the stage (`hw/src/package.rs` may have
    /// made it another preset's, instantiated with `params`).
    pub module: &'static str,
    /// The core's parameter overrides for `module` (`#(.c(4'h1), …)`), or empty.
    pub params: &'static str,
    pub in_bits: u32,
    pub out_bits: u32,
    /// Inputs except `clock`, in declaration order.
    pub inputs: &'static [PortDesc],
    /// Outputs in declaration order.
    pub outputs: &'static [PortDesc],
    /// The module has a port `clock` (the step clock). A block of two clocks of its own (the
    /// line buffer: `write_clock`, `read_clock`) has none; each `*_clock` input is driven by
    /// the step clock gated by its bit (`build/flat.rs`, `is_gated_clock`).
    pub clock: bool,
}

impl BlockDesc {
    /// u32 words per cycle into the model.
    pub fn in_words(&self) -> usize {
        self.in_bits.div_ceil(32) as usize
    }
    /// u32 words per cycle out of the model.
    pub fn out_words(&self) -> usize {
        self.out_bits.div_ceil(32) as usize
    }
}

include!(concat!(env!("OUT_DIR"), "/block_ports.rs"));

/// The block `preset`/`stage` of the port table, if it was built.
pub fn block_desc(preset: &str, stage: &str) -> Option<&'static BlockDesc> {
    BLOCK_TABLE.iter().find(|b| b.preset == preset && b.stage == stage)
}

impl BlockDesc {
    /// The gate-level testbench's adapter (`fpga/tb/postsim_tb.v` drives `dut_adapter` with
    /// one packed input vector per cycle and compares its packed output vector): module
    /// `dut_adapter (clock, in_w, out_w)` instantiating `module` with every port at its bit
    /// offset in this table's word layout (the co-simulation's), output bits beyond the ports
    /// tied to 0. Generated from the port table, never written by hand; `module` is this
    /// block's module or a netlist of it with the same ports.
    pub fn adapter_verilog(&self, module: &str) -> String {
        let mut conns = if self.clock {
            vec!["        .clock(clock)".to_string()]
        } else {
            Vec::new()
        };
        for (bus, ports) in [("in_w", self.inputs), ("out_w", self.outputs)] {
            for p in ports {
                if crate::flat::is_gated_clock(bus == "in_w", p.width, p.name) {
                    // A clock of the block's own: the step clock gated by its bit (in_w changes
                    // with the clock low).
                    conns.push(format!("        .{}(clock & {bus}[{}])", p.name, p.offset));
                } else {
                    conns.push(format!("        .{}({bus}[{}+:{}])", p.name, p.offset, p.width));
                }
            }
        }
        let (ib, ob) = (self.in_words() * 32, self.out_words() * 32);
        let pad = if ob as u32 > self.out_bits {
            format!(
                "    assign out_w[{}:{}] = {}'h0;\n",
                ob - 1,
                self.out_bits,
                ob as u32 - self.out_bits
            )
        } else {
            String::new()
        };
        format!(
            "// Generated by tilerast_cosim::blocks::BlockDesc::adapter_verilog from the port table of\n\
             // {}/{} ({} input, {} output words of 32 bits, word 0 in the LSBs).\n\
             `timescale 1ns / 1ps\n\
             module dut_adapter (\n    input wire clock,\n    input wire [{}:0] in_w,\n    output wire [{}:0] out_w\n);\n\
             {pad}    {module} dut (\n{}\n    );\nendmodule\n",
            self.preset,
            self.stage,
            self.in_words(),
            self.out_words(),
            ib - 1,
            ob - 1,
            conns.join(",\n")
        )
    }
}

/// Cycles per FFI call.
pub const BATCH: usize = 2048;

/// One verilated block.
pub struct BlockRtl {
    model: cxx::UniquePtr<ffi::BlockModel>,
    pub desc: &'static BlockDesc,
}
// A verilated model is not thread-safe, but it may move between threads.
unsafe impl Send for BlockRtl {}

impl BlockRtl {
    /// The block `stage` of `rtl-out/tilerast_<preset>.v`.
    pub fn new(preset: &str, stage: &str) -> Result<BlockRtl, String> {
        let desc = block_desc(preset, stage).ok_or_else(|| {
            let known: Vec<String> = BLOCK_TABLE
                .iter()
                .map(|b| format!("{}/{}", b.preset, b.stage))
                .collect();
            format!("no verilated block {preset}/{stage} (built: {})", known.join(", "))
        })?;
        let model = ffi::new_block(&format!("{preset}/{stage}")).map_err(|e| e.what().to_string())?;
        let (iw, ow) = (
            ffi::block_in_words(&model) as usize,
            ffi::block_out_words(&model) as usize,
        );
        if (iw, ow) != (desc.in_words(), desc.out_words()) {
            return Err(format!(
                "{preset}/{stage}: C++ model has {iw}/{ow} words, port table {}/{}",
                desc.in_words(),
                desc.out_words()
            ));
        }
        Ok(BlockRtl { model, desc })
    }

    /// Run `inp.len() / in_words` cycles; `out` receives `out_words` words per cycle.
    pub fn run(&mut self, inp: &[u32], out: &mut [u32]) {
        let cycles = (inp.len() / self.desc.in_words()) as u32;
        ffi::block_run(self.model.pin_mut(), cycles, inp, out).expect("block_run");
    }
}

/// Bits `offset .. offset + width` of a word vector.
pub fn get_bits(words: &[u32], offset: u32, width: u32) -> u64 {
    let mut v = 0u64;
    let mut got = 0;
    while got < width {
        let o = offset + got;
        let n = (32 - o % 32).min(width - got);
        let chunk = (words[(o / 32) as usize] >> (o % 32)) as u64 & ((1u64 << n) - 1);
        v |= chunk << got;
        got += n;
    }
    v
}

pub fn set_bits(words: &mut [u32], offset: u32, width: u32, mut v: u64) {
    let mut done = 0;
    while done < width {
        let o = offset + done;
        let n = (32 - o % 32).min(width - done);
        words[(o / 32) as usize] |= ((v & ((1u64 << n) - 1)) as u32) << (o % 32);
        v = if n == 64 { 0 } else { v >> n };
        done += n;
    }
}

/// Named values of one cycle's words (table order).
pub fn port_values(ports: &[PortDesc], words: &[u32]) -> Vec<(&'static str, u64)> {
    ports
        .iter()
        .map(|p| (p.name, get_bits(words, p.offset, p.width)))
        .collect()
}

/// The stimulus and statistics of a one-in, one-out block run (`tilerast_verif::lockstep`).
pub use tilerast_verif::lockstep::{BlockRun, BlockStim};

/// A model's inputs and outputs on signature `S`'s streams.
type InOf<S> = <<S as OneStream>::InS as Stream>::Payload;
/// See [`InOf`].
type OutOf<S> = <<S as OneStream>::OutS as Stream>::Payload;

/// The lock-step of a one-in, one-out block: `model` (a cycle model or a test's wrapper around
/// one) on the ports of signature `S` ([`OnPorts`]), and `stim`'s bench offering `inputs`.
#[allow(clippy::type_complexity)]
fn one_stream<S, M>(model: M, inputs: &[InOf<S>], stim: &BlockStim) -> Result<Lockstep<OnPorts<M, S>>, String>
where
    S: OneStream,
    S::InS: Send + 'static,
    S::OutS: Send + 'static,
    InOf<S>: Send,
    OutOf<S>: Send,
    M: CycleModel<In = InOf<S>, Out = OutOf<S>> + ExtraOut,
{
    let stage = S::SIGNATURE.stage;
    if inputs.is_empty() {
        return Err(format!("{stage}: no inputs"));
    }
    for x in inputs {
        if let Some((port, v)) = too_wide::<S::InS>("inp", x) {
            return Err(format!("{stage}: stimulus value {v:#x} does not fit input port {port}"));
        }
    }
    Ok(Lockstep::new(
        OnPorts::new(model),
        stim.bench::<S::InS, S::OutS>(inputs),
    ))
}

/// After each cycle of a [`one_stream`] run: over after `stim.cycles`; an output value too
/// wide for its port ends the run with an error naming the cycle and port.
fn one_stream_done<M, S>(block: &str, ls: &Lockstep<OnPorts<M, S>>, stim: &BlockStim) -> Result<bool, String>
where
    OnPorts<M, S>: PortModel,
{
    match &ls.model.overflow {
        Some((c, port, v)) => Err(format!(
            "{block} cycle {c}: the model's value {v:#x} does not fit port {port}"
        )),
        None => Ok(ls.cycle >= stim.cycles),
    }
}

/// The port words of a whole run of `model` under `stim`, as [`cosim_block`] drives them
/// (the same bench), laid out by the port table of `<preset>/<stage>` (stage and ports from
/// signature `S`): per cycle the input words and the expected output words (the testbench
/// vectors of a gate-level simulation, `tilerast_fpga::postsim::run_block`), and what the run
/// did.
#[allow(clippy::type_complexity)]
pub fn block_vectors<S, M>(
    preset: &str,
    model: M,
    inputs: &[InOf<S>],
    stim: &BlockStim,
) -> Result<(Vec<u32>, Vec<u32>, BlockRun<OutOf<S>>), String>
where
    S: OneStream,
    S::InS: Send + 'static,
    S::OutS: Send + 'static,
    InOf<S>: Send,
    OutOf<S>: Send,
    M: CycleModel<In = InOf<S>, Out = OutOf<S>> + ExtraOut,
{
    let mut ls = one_stream::<S, M>(model, inputs, stim)?;
    let block = format!("{preset}/{}", S::SIGNATURE.stage);
    let (inw, exp) = lockstep_vectors_until(preset, &mut ls, |ls| one_stream_done(&block, ls, stim))?;
    Ok((inw, exp, BlockRun::of::<S::InS, S::OutS>(&ls.bench, ls.cycle)))
}

/// Co-simulate the block of signature `S` (a one-in, one-out block, `cycle_model_signature!`)
/// of `rtl-out/` for `preset` against `model` (that preset's cycle model, possibly wrapped) on
/// the lock-step harness ([`cosim_lockstep_until`]): `stim`'s bench offers `inputs` in order,
/// cyclically, with gaps, junk payloads, ready stalls and flushes; every port is compared on
/// every cycle for `stim.cycles` cycles.
pub fn cosim_block<S, M>(
    preset: &str,
    model: M,
    inputs: &[InOf<S>],
    stim: &BlockStim,
) -> Result<BlockRun<OutOf<S>>, CosimFail>
where
    S: OneStream,
    S::InS: Send + 'static,
    S::OutS: Send + 'static,
    InOf<S>: Send,
    OutOf<S>: Send,
    M: CycleModel<In = InOf<S>, Out = OutOf<S>> + ExtraOut,
{
    let t0 = Instant::now();
    let mut ls = one_stream::<S, M>(model, inputs, stim).map_err(CosimFail::Bench)?;
    let block = format!("{preset}/{}", S::SIGNATURE.stage);
    let rtl_secs = cosim_lockstep_until(preset, &mut ls, |ls| one_stream_done(&block, ls, stim), None)?;
    let mut run = BlockRun::of::<S::InS, S::OutS>(&ls.bench, ls.cycle);
    run.secs = t0.elapsed().as_secs_f64();
    run.rtl_secs = rtl_secs;
    run.cycles_per_sec = run.cycles as f64 / run.secs.max(1e-9);
    Ok(run)
}

/// `desc`'s ports against the signature's: the port table must name exactly the ports the
/// model's `block_signature!` declares (the error lists those missing on either side).
fn check_ports(block: &str, desc: &BlockDesc, sig: &tilerast_golden::cycle::Signature) -> Result<(), String> {
    for (what, table, declared) in [
        ("inputs", desc.inputs, sig.input_ports()),
        ("outputs", desc.outputs, sig.output_ports()),
    ] {
        let t: Vec<&str> = table.iter().map(|p| p.name).collect();
        let not_declared: Vec<&str> = t.iter().copied().filter(|n| !declared.iter().any(|d| d == n)).collect();
        let not_in_rtl: Vec<&str> = declared.iter().map(|d| d.as_str()).filter(|d| !t.contains(d)).collect();
        if !not_declared.is_empty() || !not_in_rtl.is_empty() {
            return Err(format!(
                "{block}: the RTL's {what} are not its signature's: not in the signature {not_declared:?}, \
                 not in the RTL {not_in_rtl:?}"
            ));
        }
    }
    Ok(())
}

/// Named port values into one cycle's words by the port table (ports not named: zero).
fn pack_ports(ports_of: &[PortDesc], vals: &tilerast_golden::cycle::Ports, words: &mut [u32]) {
    words.fill(0);
    for p in ports_of {
        set_bits(words, p.offset, p.width, vals.get(p.name).unwrap_or(0));
    }
}

/// The port words of `cycles` cycles of `ls` (model and bench, no RTL), laid out by the port
/// table of `<preset>/<stage>`: per cycle the input words and the expected output words (the
/// testbench vectors of a gate-level simulation, `tilerast_fpga::postsim::run_block`).
pub fn lockstep_vectors<M: PortModel>(
    preset: &str,
    ls: &mut Lockstep<M>,
    cycles: u64,
) -> Result<(Vec<u32>, Vec<u32>), String> {
    lockstep_vectors_until(preset, ls, |ls| Ok(ls.cycle >= cycles))
}

/// [`lockstep_vectors`] until `finished` says the run is over (asked after every cycle, that
/// cycle included).
pub fn lockstep_vectors_until<M: PortModel>(
    preset: &str,
    ls: &mut Lockstep<M>,
    mut finished: impl FnMut(&Lockstep<M>) -> Result<bool, String>,
) -> Result<(Vec<u32>, Vec<u32>), String> {
    let sig = ls.signature();
    let block = format!("{preset}/{}", sig.stage);
    let desc = block_desc(preset, sig.stage).ok_or_else(|| format!("no port table for {block}"))?;
    check_ports(&block, desc, &sig)?;
    let (iw, ow) = (desc.in_words(), desc.out_words());
    let (mut inw, mut exp) = (Vec::new(), Vec::new());
    loop {
        let (i, w) = ls.step()?;
        let (k, n) = (inw.len(), exp.len());
        inw.resize(k + iw, 0);
        exp.resize(n + ow, 0);
        pack_ports(desc.inputs, &i, &mut inw[k..]);
        pack_ports(desc.outputs, &w, &mut exp[n..]);
        if finished(ls)? {
            return Ok((inw, exp));
        }
    }
}

/// The ports' words of the cycles up to a mismatch, for the side-by-side VCD
/// (`back_end::write_block_vcd`).
#[derive(Clone, Debug, Default)]
pub struct Window {
    /// First cycle of the window.
    pub from: u64,
    /// Per cycle: input words, RTL output words, model output words.
    pub cycles: Vec<(Vec<u32>, Vec<u32>, Vec<u32>)>,
}

/// Cycles kept before a mismatch in [`Window`].
pub const WINDOW: usize = 64;

/// Why a lock-step run on Verilator stopped before it was finished.
#[derive(Debug)]
pub enum CosimFail {
    /// The RTL and the model differ: the first cycle and port, and the [`WINDOW`] cycles up
    /// to it (within the batch).
    Mismatch(Box<Mismatch>, Window),
    /// The bench, the model or the stop rule gave up (no progress, a port table missing).
    Bench(String),
}

impl CosimFail {
    /// One line: `cycle N: port rtl X model Y, …` (every differing port) or the bench's error.
    pub fn line(&self) -> String {
        match self {
            CosimFail::Mismatch(m, _) => m.ports_line(),
            CosimFail::Bench(e) => e.clone(),
        }
    }

    /// [`CosimFail::line`] and the window (empty for a bench error).
    pub fn into_line_window(self) -> (String, Window) {
        let l = self.line();
        match self {
            CosimFail::Mismatch(_, w) => (l, w),
            CosimFail::Bench(_) => (l, Window::default()),
        }
    }
}

impl fmt::Display for CosimFail {
    /// The mismatch in full (every port of that cycle), or the bench's error.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CosimFail::Mismatch(m, _) => write!(f, "{m}"),
            CosimFail::Bench(e) => write!(f, "{e}"),
        }
    }
}

/// The Verilator back end of the one lock-step harness (`tilerast_verif::lockstep`): block
/// `<preset>/<stage>` (stage from the model's signature) verilated from `rtl-out/`, driven by
/// `ls`'s bench for `cycles` cycles, every output port compared with `ls`'s model on every
/// cycle. The port table must name exactly the signature's ports (checked first). The
/// bench's inputs never depend on the RTL, so the model runs [`BATCH`] cycles ahead and
/// Verilator replays them in one call. `flip` (a test of the harness itself): at
/// `(cycle, port)` the RTL's output is read with its low bit flipped.
pub fn cosim_lockstep<M: PortModel>(
    preset: &str,
    ls: &mut Lockstep<M>,
    cycles: u64,
    flip: Option<(u64, &str)>,
) -> Result<(), Box<Mismatch>> {
    match cosim_lockstep_until(preset, ls, |ls| Ok(ls.cycle >= cycles), flip) {
        Ok(_) => Ok(()),
        Err(CosimFail::Mismatch(m, _)) => Err(m),
        Err(CosimFail::Bench(e)) => panic!("{e}"),
    }
}

/// [`cosim_lockstep`] until `finished` says the run is over (asked after every cycle, that
/// cycle included; its `Err` stops the run as [`CosimFail::Bench`]). Returns the seconds spent
/// inside the RTL.
pub fn cosim_lockstep_until<M: PortModel>(
    preset: &str,
    ls: &mut Lockstep<M>,
    mut finished: impl FnMut(&Lockstep<M>) -> Result<bool, String>,
    flip: Option<(u64, &str)>,
) -> Result<f64, CosimFail> {
    let sig = ls.signature();
    let block = format!("{preset}/{}", sig.stage);
    let mut rtl = BlockRtl::new(preset, sig.stage).map_err(CosimFail::Bench)?;
    let desc = rtl.desc;
    check_ports(&block, desc, &sig).map_err(CosimFail::Bench)?;
    let (iw, ow) = (desc.in_words(), desc.out_words());
    let mut inw = vec![0u32; BATCH * iw];
    let mut got = vec![0u32; BATCH * ow];
    let mut batch: Vec<(Ports, Ports)> = Vec::with_capacity(BATCH);
    let (mut start, mut rtl_secs, mut done) = (0u64, 0.0, false);
    while !done {
        batch.clear();
        while batch.len() < BATCH && !done {
            let c = batch.len();
            let (i, w) = ls.step().map_err(|e| CosimFail::Bench(format!("{block}: {e}")))?;
            pack_ports(desc.inputs, &i, &mut inw[c * iw..(c + 1) * iw]);
            batch.push((i, w));
            done = finished(ls).map_err(CosimFail::Bench)?;
        }
        let k = batch.len();
        let t = Instant::now();
        rtl.run(&inw[..k * iw], &mut got[..k * ow]);
        rtl_secs += t.elapsed().as_secs_f64();
        for (c, (i, w)) in batch.iter().enumerate() {
            let cyc = start + c as u64;
            let words = &mut got[c * ow..(c + 1) * ow];
            let mut g = Ports::default();
            for p in desc.outputs {
                let mut v = get_bits(words, p.offset, p.width);
                if flip == Some((cyc, p.name)) {
                    v ^= 1;
                    set_bits(words, p.offset, p.width, v);
                }
                g.set(p.name, v);
            }
            if let Err(m) = tilerast_verif::lockstep::compare(&block, cyc, i, w, &g) {
                let lo = c.saturating_sub(WINDOW);
                let window = Window {
                    from: start + lo as u64,
                    cycles: (lo..=c)
                        .map(|k| {
                            let mut want = vec![0u32; ow];
                            pack_ports(desc.outputs, &batch[k].1, &mut want);
                            (
                                inw[k * iw..(k + 1) * iw].to_vec(),
                                got[k * ow..(k + 1) * ow].to_vec(),
                                want,
                            )
                        })
                        .collect(),
                };
                return Err(CosimFail::Mismatch(m, window));
            }
        }
        start += k as u64;
    }
    Ok(rtl_secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tilerast_golden::cycle::BlockSignature;
    use tilerast_golden::{
        point_raster::PointRasterPorts as PointRaster, quad_packer::QuadPackerPorts as QuadPacker,
        sample_raster::SampleRasterPorts as SampleRaster, setup::SetupPorts as Setup,
        subtile_coverage::SubtileCoveragePorts as SubtileCoverage, tile_parser::TileParserPorts as TileParser,
    };

    /// Every verilated block (every preset, variant and mutant) has a consistent port table and
    /// exactly the ports of its model's signature: the raster core's stages by their
    /// signatures, every other block by its row of `tilerast_hw::BLOCK_FILES` (made from the
    /// stage list), so a block added to the stage list is checked with no line here. And what
    /// the tests and regressions drive is built: every pixel-side stage at `default`, the
    /// raster core's stages, the back end and the frame top on every preset, hw's variants.
    #[test]
    fn every_block_is_built_and_fully_mapped() {
        let raster_core = [
            Setup::SIGNATURE,
            TileParser::SIGNATURE,
            SubtileCoverage::SIGNATURE,
            SampleRaster::SIGNATURE,
            PointRaster::SIGNATURE,
            QuadPacker::SIGNATURE,
        ];
        let names: Vec<&str> = raster_core.iter().map(|s| s.stage).collect();
        assert_eq!(names, tilerast_golden::stages::RASTER_CORE_STAGES);
        let pixel_side = |stage: &str| tilerast_hw::BLOCK_FILES.iter().find(|b| b.stage() == stage);
        for d in BLOCK_TABLE {
            let block = format!("{}/{}", d.preset, d.stage);
            let board_sig = tilerast_hw::FRAME_BOARD_BLOCKS
                .iter()
                .find(|b| b.stage() == d.stage)
                .map(|b| &b.sig);
            let (sig, parts) = match (pixel_side(d.stage), board_sig) {
                (Some(row), _) => (&row.sig, 1),
                (None, Some(sig)) => (sig, 1),
                (None, None) => (
                    raster_core
                        .iter()
                        .find(|s| s.stage == d.stage)
                        .unwrap_or_else(|| panic!("{block}: a stage with no signature")),
                    2,
                ),
            };
            assert_eq!(d.module.split("__").count(), parts, "{}", d.module);
            for (ports, bits) in [(d.inputs, d.in_bits), (d.outputs, d.out_bits)] {
                let mut off = 0;
                for p in ports {
                    assert_eq!(p.offset, off, "{}: {} not packed in order", d.module, p.name);
                    off += p.width;
                }
                assert_eq!(off, bits, "{}", d.module);
            }
            check_ports(&block, d, sig).unwrap_or_else(|e| panic!("{e}"));
            let _ = BlockRtl::new(d.preset, d.stage).unwrap_or_else(|e| panic!("{e}"));
        }
        let built = |preset: &str, stage: &str| {
            let d = block_desc(preset, stage).unwrap_or_else(|| panic!("{preset}/{stage} not built"));
            if pixel_side(stage).is_some() {
                assert_eq!(d.module, format!("tilerast_{stage}_{preset}"));
            }
        };
        for p in ["ice40", "default", "full"] {
            for stage in tilerast_golden::stages::RASTER_CORE_STAGES {
                built(p, stage);
            }
        }
        for b in tilerast_hw::BLOCK_FILES {
            built("default", b.stage());
        }
        for p in tilerast_golden::PRESETS {
            built(p, "pixel_back_end");
            built(p, "frame");
        }
        for v in tilerast_hw::BLOCK_VARIANTS {
            assert_eq!(block_desc(v.name, v.file.stage()).unwrap().module, v.top_name());
        }
        // The frame-row blocks (SDRAM controller, video output) of every board with a frame
        // row, and of no other.
        for b in tilerast_golden::board::BOARDS {
            for block in tilerast_hw::FRAME_BOARD_BLOCKS {
                let d = block_desc(b.name, block.stage());
                assert_eq!(
                    d.is_some(),
                    b.frame.is_some(),
                    "{}: {} verilated",
                    b.name,
                    block.stage()
                );
                if let Some(d) = d {
                    assert_eq!(d.module, block.top_name(b.name));
                }
            }
        }
        let mut all: Vec<_> = BLOCK_TABLE.iter().map(|b| (b.preset, b.stage)).collect();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), BLOCK_TABLE.len(), "a block verilated twice");
        let e = BlockRtl::new("ice40", "no_such_stage").err().unwrap();
        assert!(
            e.contains("no verilated block ice40/no_such_stage") && e.contains("ice40/setup"),
            "{e}"
        );
    }

    /// A signature that does not match a block's ports (a port the block lacks, or one it has
    /// and the signature does not) is refused by name.
    #[test]
    // The two wrong signatures are local to the test; each also makes its exported
    // `<name>_streams!` macro, which nothing uses.
    #[allow(non_local_definitions)]
    fn signature_ports_must_be_the_blocks() {
        tilerast_golden::block_signature! {
            /// quad_packer's output as a plain beat: the block's out__block_l are not declared.
            pub Forgets "quad_packer" { takes { inp: Beat } sends { out: Beat } }
        }
        tilerast_golden::block_signature! {
            /// sample_raster's output as a packed beat: out__block_0 does not exist there.
            pub Unknown "sample_raster" { takes { inp: Job } sends { out: PackedBeat } }
        }
        let e = check_ports(
            "ice40/quad_packer",
            block_desc("ice40", "quad_packer").unwrap(),
            &ForgetsPorts::SIGNATURE,
        )
        .err()
        .unwrap();
        assert!(
            e.contains("not in the signature [\"out__block_0\"")
                && e.contains("out__block_3")
                && e.contains("not in the RTL []"),
            "{e}"
        );
        let e = check_ports(
            "ice40/sample_raster",
            block_desc("ice40", "sample_raster").unwrap(),
            &UnknownPorts::SIGNATURE,
        )
        .err()
        .unwrap();
        assert!(
            e.contains("not in the signature []") && e.contains("not in the RTL [\"out__block_0\""),
            "{e}"
        );
    }

    #[test]
    fn bits_round_trip_across_words() {
        for (off, width, v) in [
            (0, 1, 1u64),
            (31, 2, 3),
            (17, 64, 0x8123_4567_89ab_cdef),
            (40, 48, 0xfedc_ba98_7654),
        ] {
            let mut w = [0u32; 5];
            set_bits(&mut w, off, width, v);
            assert_eq!(get_bits(&w, off, width), v, "offset {off} width {width}");
            // Nothing outside the field is touched.
            let ones: u32 = w.iter().map(|x| x.count_ones()).sum();
            assert_eq!(ones, v.count_ones());
        }
    }
}
