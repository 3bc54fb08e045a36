//! Per-block co-simulation: one pipeline block of `rtl-out/tilerast_<preset>.v`, verilated on its
//! own (see `build/blocks.rs`), against its golden cycle model, every port on every cycle,
//! valid or not.
//!
//! ```text
//!            ┌──────────── stimulus (seeded): inputs in order, gaps, junk payload while
//!            │             idle, random ready + long stalls, flushes
//!            ▼
//!   model ──► per cycle: in words (flush, in_valid, out_ready, inp__*)     ─┐ one batch of
//!   (runs a  │           predicted out words (in_ready, out_valid, out__*) │ BATCH cycles
//!   batch    ▼                                                            ▼
//!   ahead)  BlockRtl::run(in words) ──► RTL out words ══ compare ══► first difference =
//!                                                                    BlockMismatch
//! ```
//!
//! Ports are sampled like [`CycleModel::out`] / [`CycleModel::in_ready`]: inputs applied with
//! the clock low, settle, sample, rising edge. The stimulus never depends on the RTL, only on
//! the model's `in_ready`, so the model runs a batch first and Verilator replays it in one FFI
//! call. Port names, widths and bit offsets come from the generated port table
//! [`BLOCK_TABLE`]; each stage's [`BlockIo`] names the port of every model field, and
//! [`Layout::new`] checks that the two cover exactly the same ports, so a port added to the RTL
//! or a field forgotten in the encoding is an error, not a silently unchecked port.

use std::fmt;
use std::time::Instant;
use tilerast_golden::cycle::{CycleModel, PortModel, Ports};
use tilerast_golden::streams::{
    port_name, ports, Beat, BinBox, BinWrite, BlendBeat, BlendFrag, Cand, Cmd, Edges, Job, MemReq, PiBeat, PixSamples,
    PixSlots, Stream,
};
use tilerast_verif::lockstep::{Lockstep, Mismatch};
use tilerast_verif::{Handshake, Pattern, Rng};

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
        let mut conns = vec!["        .clock(clock)".to_string()];
        for (bus, ports) in [("in_w", self.inputs), ("out_w", self.outputs)] {
            for p in ports {
                conns.push(format!("        .{}({bus}[{}+:{}])", p.name, p.offset, p.width));
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

/// Does `v` (an unsigned value, or a signed one as `i64 as u64`) fit the port?
fn fits(p: &PortDesc, v: u64) -> bool {
    if p.width >= 64 {
        return true;
    }
    if p.signed {
        let s = v as i64;
        let sh = 64 - p.width;
        (s << sh) >> sh == s
    } else {
        v >> p.width == 0
    }
}

/// Writes named port values of one cycle into its words. Used in two modes: discovery (records
/// the names a [`BlockIo`] encoder writes, in order) and packing (the names must come in the
/// order discovered; each value goes to its port's bits).
pub struct Packer<'a> {
    ports: &'a [PortDesc],
    words: &'a mut [u32],
    i: usize,
    names: Option<Vec<String>>,
    /// The first value that did not fit its port: (port, value).
    pub overflow: Option<(String, u64)>,
}

impl Packer<'_> {
    /// Port `iface__field` (or the plain port `field` when `iface` is empty), an unsigned value
    /// or a signed one as `i64 as u64`.
    pub fn put(&mut self, iface: &str, field: &str, v: u64) {
        let named = |p: &str| {
            if iface.is_empty() {
                p == field
            } else {
                p.strip_prefix(iface).and_then(|r| r.strip_prefix("__")) == Some(field)
            }
        };
        let full = || {
            if iface.is_empty() {
                field.to_string()
            } else {
                port_name(iface, field)
            }
        };
        if let Some(n) = &mut self.names {
            n.push(full());
            return;
        }
        let p = &self.ports[self.i];
        assert!(named(p.name), "BlockIo encoder wrote ports in a different order");
        if !fits(p, v) && self.overflow.is_none() {
            self.overflow = Some((full(), v));
        }
        let v = if p.width >= 64 { v } else { v & ((1u64 << p.width) - 1) };
        set_bits(self.words, p.offset, p.width, v);
        self.i += 1;
    }
    /// A one-bit handshake port.
    pub fn put_b(&mut self, name: &str, v: bool) {
        self.put("", name, v as u64)
    }
}

/// The payload interfaces of every block: `inp` (ports `inp__<field>`) and `out`
/// (`out__<field>`), as `tilerast_hw` derives them from the stream declarations.
pub const IN_IFACE: &str = "inp";
/// See [`IN_IFACE`].
pub const OUT_IFACE: &str = "out";

/// Every field of stream `S` of `x`, as ports of interface `iface`, in declaration order.
pub fn put_stream<S: Stream>(x: &S::Payload, iface: &str, p: &mut Packer) {
    for (f, v) in S::FIELDS.iter().zip(S::values(x)) {
        p.put(iface, f.name, v);
    }
}

/// Which streams a stage consumes and produces (their golden declarations name the ports).
pub trait BlockIo {
    type In: Clone + Default + fmt::Debug;
    type Out: Clone + Default + fmt::Debug;
    /// The input stream (`tilerast_golden::streams::ports`).
    type InS: Stream<Payload = Self::In>;
    /// The output stream.
    type OutS: Stream<Payload = Self::Out>;
    /// Stage name (`hw/src/<STAGE>.rs`).
    const STAGE: &'static str;
    /// Every input payload port, always in the same order.
    fn put_in(x: &Self::In, p: &mut Packer) {
        put_stream::<Self::InS>(x, IN_IFACE, p)
    }
    /// Every output payload port, always in the same order.
    fn put_out(x: &Self::Out, p: &mut Packer) {
        put_stream::<Self::OutS>(x, OUT_IFACE, p)
    }
    /// Further one-bit output ports after the payload (the pixel-side blocks' `idle`), each
    /// predicted by the model's [`ExtraOut`] in this order.
    const EXTRA_OUT: &'static [&'static str] = &[];
}

/// A model's further outputs (`idle`), from its signature: see
/// [`tilerast_golden::cycle::ExtraOut`].
pub use tilerast_golden::cycle::ExtraOut;

/// Handshake inputs, driven by the harness (in this order, before the payload).
pub const HS_IN: [&str; 3] = ["flush", "in_valid", "out_ready"];
/// Handshake outputs, predicted by the harness from the model (before the payload).
pub const HS_OUT: [&str; 2] = ["in_ready", "out_valid"];

/// The block's ports in the order the harness writes them: handshake, then the encoder's.
pub struct Layout {
    pub desc: &'static BlockDesc,
    pub inputs: Vec<PortDesc>,
    pub outputs: Vec<PortDesc>,
}

impl Layout {
    /// Resolve `B`'s fields to `desc`'s ports; every port must be written exactly once.
    pub fn new<B: BlockIo>(desc: &'static BlockDesc) -> Result<Layout, String> {
        let resolve = |side: &str, ports: &'static [PortDesc], names: Vec<String>| {
            let mut out = Vec::new();
            for n in &names {
                let p = ports.iter().find(|p| p.name == n).ok_or_else(|| {
                    format!(
                        "{}: {side} port `{n}` written by the encoder does not exist",
                        desc.module
                    )
                })?;
                if out.iter().any(|q: &PortDesc| q.name == n) {
                    return Err(format!("{}: {side} port `{n}` written twice", desc.module));
                }
                out.push(*p);
            }
            let missing: Vec<&str> = ports
                .iter()
                .filter(|p| !names.iter().any(|n| n == p.name))
                .map(|p| p.name)
                .collect();
            if !missing.is_empty() {
                return Err(format!(
                    "{}: {side} ports not driven by the encoder: {missing:?}",
                    desc.module
                ));
            }
            Ok(out)
        };
        let discover = |f: &dyn Fn(&mut Packer)| {
            let mut w = [];
            let mut p = Packer {
                ports: &[],
                words: &mut w,
                i: 0,
                names: Some(Vec::new()),
                overflow: None,
            };
            f(&mut p);
            p.names.unwrap()
        };
        let mut ni: Vec<String> = HS_IN.iter().map(|s| s.to_string()).collect();
        ni.extend(discover(&|p| B::put_in(&B::In::default(), p)));
        let mut no: Vec<String> = HS_OUT.iter().map(|s| s.to_string()).collect();
        no.extend(discover(&|p| B::put_out(&B::Out::default(), p)));
        no.extend(B::EXTRA_OUT.iter().map(|s| s.to_string()));
        Ok(Layout {
            desc,
            inputs: resolve("input", desc.inputs, ni)?,
            outputs: resolve("output", desc.outputs, no)?,
        })
    }

    fn pack_in<B: BlockIo>(&self, w: &mut [u32], flush: bool, valid: bool, ready: bool, x: &B::In) {
        w.fill(0);
        let mut p = Packer {
            ports: &self.inputs,
            words: w,
            i: 0,
            names: None,
            overflow: None,
        };
        p.put_b("flush", flush);
        p.put_b("in_valid", valid);
        p.put_b("out_ready", ready);
        B::put_in(x, &mut p);
        if let Some((port, v)) = p.overflow {
            panic!(
                "{}: stimulus value {v:#x} does not fit input port {port}",
                self.desc.module
            );
        }
    }

    /// Returns the port whose predicted value does not fit, if any.
    fn pack_out<B: BlockIo>(
        &self,
        w: &mut [u32],
        in_ready: bool,
        valid: bool,
        x: &B::Out,
        extra: &[(&'static str, u64)],
    ) -> Option<(String, u64)> {
        w.fill(0);
        let mut p = Packer {
            ports: &self.outputs,
            words: w,
            i: 0,
            names: None,
            overflow: None,
        };
        p.put_b("in_ready", in_ready);
        p.put_b("out_valid", valid);
        B::put_out(x, &mut p);
        assert_eq!(
            extra.iter().map(|e| e.0).collect::<Vec<_>>(),
            B::EXTRA_OUT,
            "{}: the model's further outputs are not the stage's",
            self.desc.module
        );
        for (n, v) in extra {
            p.put("", n, *v);
        }
        p.overflow
    }
}

/// Named values of one cycle's words (table order).
pub fn port_values(ports: &[PortDesc], words: &[u32]) -> Vec<(&'static str, u64)> {
    ports
        .iter()
        .map(|p| (p.name, get_bits(words, p.offset, p.width)))
        .collect()
}

fn show(p: &PortDesc, v: u64) -> String {
    if p.width == 1 {
        format!("{v}")
    } else if p.signed {
        let sh = 64 - p.width;
        format!("{v:#x} ({})", ((v << sh) as i64) >> sh)
    } else {
        format!("{v:#x} ({v})")
    }
}

/// Per-block stimulus. Deterministic: the same stimulus gives the same cycles.
#[derive(Clone, Debug)]
pub struct BlockStim {
    pub seed: u64,
    /// Cycles to run.
    pub cycles: u64,
    /// Probability (%) that the producer holds `in_valid` low in a cycle.
    pub gap_pct: u32,
    /// Probability (%) that an idle cycle (in_valid low) carries another input's payload instead
    /// of the next one's: the block must ignore the payload while not valid.
    pub junk_pct: u32,
    /// Probability (%) that downstream is ready, outside stalls.
    pub ready_pct: u32,
    /// Per mille chance per cycle that a full stall (ready low) starts ...
    pub stall_permille: u32,
    /// ... lasting this many cycles (inclusive range).
    pub stall_len: (u64, u64),
    /// Flush at these cycles.
    pub flush_at: Vec<u64>,
}

impl BlockStim {
    /// The valid and ready lines this stimulus drives (flushes come from `flush_at`): valid
    /// with `gap_pct` % gaps; ready `ready_pct` % with random stalls of `stall_len` cycles
    /// starting at `stall_permille` ‰ per cycle. Drawn from `seed` ([`Handshake::lines`]).
    pub fn handshake(&self) -> Handshake {
        let ready = Pattern::RandomStalls {
            pct: self.ready_pct,
            permille: self.stall_permille,
            min: self.stall_len.0,
            max: self.stall_len.1,
        };
        Handshake::new(Pattern::gaps(self.gap_pct), ready)
    }
}

impl Default for BlockStim {
    fn default() -> Self {
        BlockStim {
            seed: 1,
            cycles: 40_000,
            gap_pct: 25,
            junk_pct: 50,
            ready_pct: 75,
            stall_permille: 4,
            stall_len: (20, 600),
            flush_at: vec![9_999, 27_001],
        }
    }
}

/// The first difference between RTL and model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockMismatch {
    /// `<preset>/<stage>`.
    pub block: String,
    pub cycle: u64,
    /// Output port name.
    pub port: String,
    pub rtl: u64,
    pub model: u64,
    /// Every port that cycle: inputs, RTL outputs, model outputs (name, value, shown value).
    pub inputs: Vec<(String, String)>,
    pub rtl_out: Vec<(String, String)>,
    pub model_out: Vec<(String, String)>,
    /// The model predicted a value that does not fit the port (its width / sign).
    pub model_overflow: bool,
}

impl fmt::Display for BlockMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.model_overflow {
            return write!(
                f,
                "{} cycle {}: the model's value {:#x} does not fit port {}",
                self.block, self.cycle, self.model, self.port
            );
        }
        let shown = |v: &[(String, String)], n: &str| v.iter().find(|(k, _)| k == n).map(|x| x.1.clone());
        writeln!(
            f,
            "{} cycle {}: port {} rtl {} model {}",
            self.block,
            self.cycle,
            self.port,
            shown(&self.rtl_out, &self.port).unwrap_or_default(),
            shown(&self.model_out, &self.port).unwrap_or_default()
        )?;
        let diff: Vec<String> = self
            .rtl_out
            .iter()
            .zip(&self.model_out)
            .filter(|(r, m)| r.1 != m.1)
            .map(|(r, m)| format!("{}: rtl {} model {}", r.0, r.1, m.1))
            .collect();
        writeln!(f, "  all differing ports: {}", diff.join("; "))?;
        let ins: Vec<String> = self.inputs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        write!(f, "  inputs: {}", ins.join(" "))
    }
}

/// What a clean run did (counted on the model side, which equals the RTL's).
#[derive(Clone, Debug, Default)]
pub struct BlockRun<O> {
    pub cycles: u64,
    /// Inputs accepted (in_valid && in_ready, not on a flush cycle).
    pub accepted: u64,
    /// Cycles with in_valid high and in_ready low.
    pub upstream_waits: u64,
    /// Cycles with out_valid high and out_ready low.
    pub downstream_waits: u64,
    /// Longest run of cycles with out_ready low.
    pub longest_stall: u64,
    /// Idle cycles that carried another input's payload.
    pub junk_cycles: u64,
    pub flushes: u64,
    /// Cycles whose flush hit a busy block (out_valid high or in_ready low).
    pub busy_flushes: u64,
    /// Every output transferred (out_valid && out_ready, not on a flush cycle), in order.
    pub outputs: Vec<O>,
    pub secs: f64,
    /// Time spent inside Verilator.
    pub rtl_secs: f64,
    pub cycles_per_sec: f64,
}

/// The model side of a block run, cycle by cycle: the stimulus lines, the input offered (the
/// next one, or in an idle cycle at `junk_pct` % another one's payload), and the counters.
struct ModelDrive<'a, O> {
    stim: &'a BlockStim,
    lines: tilerast_verif::Lines,
    junk: Rng,
    next: usize,
    stall_run: u64,
    run: BlockRun<O>,
}

impl<'a, O: Clone + Default> ModelDrive<'a, O> {
    fn new(stim: &'a BlockStim) -> Self {
        ModelDrive {
            stim,
            lines: stim.handshake().lines(stim.seed),
            junk: Rng::stream(stim.seed, 3),
            next: 0,
            stall_run: 0,
            run: BlockRun::default(),
        }
    }

    /// Cycle `cyc`: pack its input words and the model's expected output words, then clock the
    /// model. `Err((port, value))`: the model drove a value too wide for its port.
    fn step<B: BlockIo<Out = O>, M: CycleModel<In = B::In, Out = B::Out> + ExtraOut>(
        &mut self,
        lay: &Layout,
        model: &mut M,
        inputs: &[B::In],
        cyc: u64,
        inw: &mut [u32],
        want: &mut [u32],
    ) -> Result<(), (String, u64)> {
        let hs = self.lines.step();
        let (in_valid, out_ready) = (hs.valid, hs.ready);
        let run = &mut self.run;
        let mut idx = self.next % inputs.len();
        if !in_valid && self.junk.chance(self.stim.junk_pct as u64) {
            idx = self.junk.index(inputs.len());
            run.junk_cycles += 1;
        }
        let x = &inputs[idx];
        let flush = self.stim.flush_at.contains(&cyc);
        let (ov, o) = model.out();
        let ir = model.in_ready(out_ready);
        lay.pack_in::<B>(inw, flush, in_valid, out_ready, x);
        if let Some(e) = lay.pack_out::<B>(want, ir, ov, &o, &model.extra_out()) {
            return Err(e);
        }
        self.stall_run = if out_ready { 0 } else { self.stall_run + 1 };
        run.longest_stall = run.longest_stall.max(self.stall_run);
        run.upstream_waits += (in_valid && !ir) as u64;
        run.downstream_waits += (ov && !out_ready) as u64;
        if flush {
            run.flushes += 1;
            run.busy_flushes += (ov || !ir) as u64;
        } else {
            if ov && out_ready {
                run.outputs.push(o);
            }
            if in_valid && ir {
                self.next += 1;
                run.accepted += 1;
            }
        }
        model.clock(in_valid, x, out_ready, flush);
        Ok(())
    }
}

/// The port words of a whole run of `model` under `stim`, as [`cosim_block`] drives them
/// (same lines, junk and flushes), laid out by the port table of `<preset>/<B::STAGE>`: per
/// cycle the input words and the expected output words (the testbench vectors of a gate-level
/// simulation, `tilerast_fpga::postsim::run_block`), and what the run did.
#[allow(clippy::type_complexity)]
pub fn block_vectors<B, M>(
    preset: &str,
    mut model: M,
    inputs: &[B::In],
    stim: &BlockStim,
) -> Result<(Vec<u32>, Vec<u32>, BlockRun<B::Out>), String>
where
    B: BlockIo,
    M: CycleModel<In = B::In, Out = B::Out> + ExtraOut,
{
    if inputs.is_empty() {
        return Err("block_vectors: no inputs".into());
    }
    let desc = block_desc(preset, B::STAGE).ok_or_else(|| format!("no port table for {preset}/{}", B::STAGE))?;
    let lay = Layout::new::<B>(desc)?;
    let (iw, ow) = (desc.in_words(), desc.out_words());
    let n = stim.cycles as usize;
    let (mut inw, mut exp) = (vec![0u32; n * iw], vec![0u32; n * ow]);
    let mut drive = ModelDrive::new(stim);
    for c in 0..n {
        drive
            .step::<B, M>(
                &lay,
                &mut model,
                inputs,
                c as u64,
                &mut inw[c * iw..(c + 1) * iw],
                &mut exp[c * ow..(c + 1) * ow],
            )
            .map_err(|(port, v)| format!("cycle {c}: the model drives {v:#x}, too wide for {port}"))?;
    }
    let mut run = drive.run;
    run.cycles = stim.cycles;
    Ok((inw, exp, run))
}

/// Co-simulate block `B::STAGE` of `rtl-out/tilerast_<preset>.v` against `model` (which must be
/// that preset's cycle model, possibly wrapped). `inputs` are offered in order, cyclically.
pub fn cosim_block<B, M>(
    preset: &str,
    mut model: M,
    inputs: &[B::In],
    stim: &BlockStim,
) -> Result<BlockRun<B::Out>, Box<BlockMismatch>>
where
    B: BlockIo,
    M: CycleModel<In = B::In, Out = B::Out> + ExtraOut,
{
    assert!(!inputs.is_empty(), "cosim_block: no inputs");
    let t0 = Instant::now();
    let mut rtl = BlockRtl::new(preset, B::STAGE).unwrap_or_else(|e| panic!("{e}"));
    let lay = Layout::new::<B>(rtl.desc).unwrap_or_else(|e| panic!("{e}"));
    let (iw, ow) = (rtl.desc.in_words(), rtl.desc.out_words());
    let block = format!("{preset}/{}", B::STAGE);
    let mut inp = vec![0u32; BATCH * iw];
    let mut want = vec![0u32; BATCH * ow];
    let mut got = vec![0u32; BATCH * ow];
    let mut drive = ModelDrive::new(stim);
    let mut cycle = 0u64;
    let mut rtl_secs = 0.0;
    while cycle < stim.cycles {
        let start = cycle;
        let k = (stim.cycles - cycle).min(BATCH as u64) as usize;
        for c in 0..k {
            let cyc = start + c as u64;
            if let Err((port, v)) = drive.step::<B, M>(
                &lay,
                &mut model,
                inputs,
                cyc,
                &mut inp[c * iw..(c + 1) * iw],
                &mut want[c * ow..(c + 1) * ow],
            ) {
                return Err(Box::new(BlockMismatch {
                    block,
                    cycle: cyc,
                    port,
                    rtl: 0,
                    model: v,
                    inputs: vec![],
                    rtl_out: vec![],
                    model_out: vec![],
                    model_overflow: true,
                }));
            }
        }
        let t = Instant::now();
        rtl.run(&inp[..k * iw], &mut got[..k * ow]);
        rtl_secs += t.elapsed().as_secs_f64();
        if got[..k * ow] != want[..k * ow] {
            let i = (0..k * ow).find(|&i| got[i] != want[i]).unwrap();
            let c = i / ow;
            let (g, w) = (&got[c * ow..(c + 1) * ow], &want[c * ow..(c + 1) * ow]);
            let named = |ports: &[PortDesc], words: &[u32]| -> Vec<(String, String)> {
                ports
                    .iter()
                    .map(|p| (p.name.to_string(), show(p, get_bits(words, p.offset, p.width))))
                    .collect()
            };
            let p = lay
                .outputs
                .iter()
                .find(|p| get_bits(g, p.offset, p.width) != get_bits(w, p.offset, p.width))
                .unwrap();
            return Err(Box::new(BlockMismatch {
                block,
                cycle: start + c as u64,
                port: p.name.to_string(),
                rtl: get_bits(g, p.offset, p.width),
                model: get_bits(w, p.offset, p.width),
                inputs: named(&lay.inputs, &inp[c * iw..(c + 1) * iw]),
                rtl_out: named(&lay.outputs, g),
                model_out: named(&lay.outputs, w),
                model_overflow: false,
            }));
        }
        cycle += k as u64;
    }
    let mut run = drive.run;
    run.cycles = cycle;
    run.secs = t0.elapsed().as_secs_f64();
    run.rtl_secs = rtl_secs;
    run.cycles_per_sec = cycle as f64 / run.secs.max(1e-9);
    Ok(run)
}

/// `desc`'s ports against the signature's (sorted names): the port table must name exactly
/// the ports the model's `block_signature!` declares.
fn check_ports(block: &str, desc: &BlockDesc, sig: &tilerast_golden::cycle::Signature) -> Result<(), String> {
    for (what, table, declared) in [
        ("inputs", desc.inputs, sig.input_ports()),
        ("outputs", desc.outputs, sig.output_ports()),
    ] {
        let mut t: Vec<&str> = table.iter().map(|p| p.name).collect();
        let mut d: Vec<&str> = declared.iter().map(|s| s.as_str()).collect();
        t.sort_unstable();
        d.sort_unstable();
        if t != d {
            return Err(format!("{block}: the RTL's {what} {t:?} are not its signature's {d:?}"));
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

// ===== the stages' streams =====

macro_rules! block_io {
    ($(#[$doc:meta])* $name:ident, $stage:literal, $in:ident -> $out:ident, $pin:ident -> $pout:ident $(+ $x:ident)*) => {
        $(#[$doc])*
        pub struct $name;
        impl BlockIo for $name {
            type In = $pin;
            type Out = $pout;
            type InS = ports::$in;
            type OutS = ports::$out;
            const STAGE: &'static str = $stage;
            const EXTRA_OUT: &'static [&'static str] = &[$(stringify!($x)),*];
        }
    };
}

block_io!(
    /// `setup`: commands → edges (reads the triangle fields).
    Setup, "setup", Cmd -> Edges, Cmd -> Edges
);
block_io!(
    /// `tile_parser`: edges → candidates.
    TileParser, "tile_parser", Edges -> Cand, Edges -> Cand
);
block_io!(
    /// `subtile_coverage`: candidates → jobs.
    SubtileCoverage, "subtile_coverage", Cand -> Job, Cand -> Job
);
block_io!(
    /// `sample_raster`: jobs → beats (no `block_l`).
    SampleRaster, "sample_raster", Job -> Beat, Job -> Beat
);
block_io!(
    /// `point_raster`: commands → beats (reads the point fields; no `block_l`).
    PointRaster, "point_raster", Cmd -> Beat, Cmd -> Beat
);
block_io!(
    /// `quad_packer`: beats → beats with `block_l`.
    QuadPacker, "quad_packer", Beat -> PackedBeat, Beat -> Beat
);

block_io!(
    /// `pixel_processor` (seed 000, `rtl-out/tilerast_pixel_processor_<preset>.v`): one
    /// pixel's samples → its colour slots.
    PixelProcessor, "pixel_processor", PixSamples -> PixSlots, PixSamples -> PixSlots + idle
);

block_io!(
    /// `colour_buffer` (seed 000, `rtl-out/tilerast_colour_buffer_<preset>.v`): second tiles of
    /// resolved pixels → the same pixels in storage order.
    ColourBuffer, "colour_buffer", PixSlots -> PixSlots, PixSlots -> PixSlots + idle
);

block_io!(
    /// `blender` (seed 004, `rtl-out/tilerast_blender_<preset>.v`): fragments → batches.
    Blender, "blender", BlendFrag -> BlendBeat, BlendFrag -> BlendBeat + idle
);

block_io!(
    /// `binner` (seed 001, `rtl-out/tilerast_binner_<preset>.v`): primitive boxes and frame
    /// ends → the writes of the per-first-tile lists on the memory port.
    Binner, "binner", BinBox -> BinWrite, BinBox -> BinWrite
);

block_io!(
    /// `pixel_info_write` (seed 001, `rtl-out/tilerast_pixel_info_write_<preset>.v`): beats of
    /// quads (with depth and frame id) and frame ends → the writes of the per-second-tile
    /// pixel-info lists on the memory port.
    PixelInfoWrite, "pixel_info_write", PiBeat -> BinWrite, PiBeat -> BinWrite
);

block_io!(
    /// `output_merger` (seed 000, `rtl-out/tilerast_output_merger_<preset>.v`): blender
    /// batches → framebuffer writes on the memory port.
    OutputMerger, "output_merger", BlendBeat -> MemReq, BlendBeat -> MemReq + idle
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Every stage of every preset is built, its port table is consistent, and its encoder
    /// drives exactly the module's ports.
    #[test]
    fn every_block_is_built_and_fully_mapped() {
        fn check<B: BlockIo>(preset: &str) {
            let d = block_desc(preset, B::STAGE).unwrap_or_else(|| panic!("{preset}/{} not built", B::STAGE));
            let parts = if tilerast_golden::stages::PIXEL_SIDE_STAGES.contains(&B::STAGE) {
                1
            } else {
                2
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
            let l = Layout::new::<B>(d).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!((l.inputs.len(), l.outputs.len()), (d.inputs.len(), d.outputs.len()));
            let _ = BlockRtl::new(preset, B::STAGE).unwrap_or_else(|e| panic!("{e}"));
        }
        for p in ["ice40", "default", "full"] {
            check::<Setup>(p);
            check::<TileParser>(p);
            check::<SubtileCoverage>(p);
            check::<SampleRaster>(p);
            check::<PointRaster>(p);
            check::<QuadPacker>(p);
        }
        check::<Blender>("default");
        check::<Blender>("default_mut");
        // The blocks' variants (options the pipeline does not build): every one of rtl-out's.
        for v in tilerast_hw::BLOCK_VARIANTS {
            assert_eq!(v.file.stage, Blender::STAGE, "{}: a variant of another stage", v.name);
            check::<Blender>(v.name);
            assert_eq!(block_desc(v.name, Blender::STAGE).unwrap().module, v.top_name());
        }
        check::<OutputMerger>("default");
        check::<OutputMerger>("default_mut");
        check::<Binner>("default");
        check::<Binner>("ice40");
        check::<Binner>("default_mut");
        check::<PixelInfoWrite>("default");
        check::<PixelInfoWrite>("ice40");
        check::<PixelInfoWrite>("default_mut");
        check::<PixelProcessor>("default");
        check::<PixelProcessor>("default_mut");
        check::<ColourBuffer>("default");
        check::<ColourBuffer>("default_mut");
        check::<ColourBuffer>("ice40");
        // dst_fetch, the back end and the pixel-info reader have further streams (the memory
        // port): verilated with the generic wrapper, driven by name (`back_end.rs`,
        // `tests/pixel_info_read.rs`), not through `BlockIo`.
        for stage in ["dst_fetch", "pixel_back_end", "pixel_info_read"] {
            let d = block_desc("default", stage).unwrap_or_else(|| panic!("default/{stage} not built"));
            assert_eq!(d.module, format!("tilerast_{stage}_default"));
        }
        // The whole back end on every preset (`tilerast regress --back-end`), and its mutant.
        for p in tilerast_golden::PRESETS.iter().chain(&["default_mut"]) {
            let d = block_desc(p, "pixel_back_end").unwrap_or_else(|| panic!("{p}/pixel_back_end not built"));
            assert!(
                d.outputs.iter().any(|o| o.name == "mem_req__addr"),
                "{p}: no memory port"
            );
        }
        // bin_setup (its table write port besides the box output, driven by name:
        // `tests/bin_setup.rs`) on default, ice40 and its mutant.
        for p in ["default", "ice40", "default_mut"] {
            let d = block_desc(p, "bin_setup").unwrap_or_else(|| panic!("{p}/bin_setup not built"));
            assert!(d.outputs.iter().any(|o| o.name == "wr__addr"), "{p}: no write port");
        }
        // The pixel-info reader (memory port too) on ice40 and its mutant.
        for p in ["ice40", "default_mut"] {
            let d = block_desc(p, "pixel_info_read").unwrap_or_else(|| panic!("{p}/pixel_info_read not built"));
            assert!(d.outputs.iter().any(|o| o.name == "rd__addr"), "{p}: no read port");
        }
        // The tile sequencer (two read ports) on ice40 and default, and its mutant.
        for p in ["default", "ice40", "default_mut"] {
            let d = block_desc(p, "tile_sequencer").unwrap_or_else(|| panic!("{p}/tile_sequencer not built"));
            assert!(
                d.outputs.iter().any(|o| o.name == "lrd__addr") && d.outputs.iter().any(|o| o.name == "prd__addr"),
                "{p}: no read ports"
            );
        }
        // The shading block (memory read port too) on default, ice40 and its mutant.
        for p in ["default", "ice40", "default_mut"] {
            let d = block_desc(p, "shading_sort").unwrap_or_else(|| panic!("{p}/shading_sort not built"));
            assert!(d.outputs.iter().any(|o| o.name == "rd__addr"), "{p}: no read port");
        }
        // The frame top (memory port, done pulse) on every preset (`src/frame.rs`).
        for p in tilerast_golden::PRESETS {
            let d = block_desc(p, "frame").unwrap_or_else(|| panic!("{p}/frame not built"));
            assert_eq!(d.module, format!("tilerast_frame_{p}"));
            assert!(
                d.outputs.iter().any(|o| o.name == "mem_req__addr") && d.outputs.iter().any(|o| o.name == "done_frame"),
                "{p}: no memory port or done pulse"
            );
        }
        // 3 × 6 raster blocks, 13 blocks of their own (bin_setup, binner, tile sequencer, pixel-info
        // writer and reader, shading, the 6 pixel-side blocks, the frame top), the ice40 colour
        // buffer, bin_setup, binner, tile sequencer, pixel-info writer and reader, shading block, 3
        // more back ends, 3 more frame tops, 2 variants, 11 mutants.
        assert_eq!(BLOCK_TABLE.len(), 57);
        let e = BlockRtl::new("ice40", "no_such_stage").err().unwrap();
        assert!(
            e.contains("no verilated block ice40/no_such_stage") && e.contains("ice40/setup"),
            "{e}"
        );
    }

    /// A stream that does not match a block's ports (a field the block lacks, or one it has
    /// and the stream does not) is refused by name.
    #[test]
    fn layout_refuses_missing_and_unknown_ports() {
        // quad_packer's output as a plain beat: the block's out__block_l are left undriven.
        block_io!(Forgets, "quad_packer", Beat -> Beat, Beat -> Beat);
        // sample_raster's output as a packed beat: out__block_0 does not exist there.
        block_io!(Unknown, "sample_raster", Job -> PackedBeat, Job -> Beat);
        let e = Layout::new::<Forgets>(block_desc("ice40", "quad_packer").unwrap())
            .err()
            .unwrap();
        assert!(
            e.contains("not driven") && e.contains("out__block_0") && e.contains("out__block_3"),
            "{e}"
        );
        let e = Layout::new::<Unknown>(block_desc("ice40", "sample_raster").unwrap())
            .err()
            .unwrap();
        assert!(e.contains("`out__block_0`") && e.contains("does not exist"), "{e}");
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
        let p = |width, signed| PortDesc {
            name: "x",
            width,
            offset: 0,
            signed,
        };
        assert!(fits(&p(9, false), 511) && !fits(&p(9, false), 512));
        assert!(fits(&p(24, true), (-(1i64 << 23)) as u64) && !fits(&p(24, true), (-(1i64 << 23) - 1) as u64));
        assert!(fits(&p(24, true), (1 << 23) - 1) && !fits(&p(24, true), 1 << 23));
        assert!(fits(&p(64, false), u64::MAX));
    }
}
