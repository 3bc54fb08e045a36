//! The board memory (`hw/src/board_memory.rs`) against its cycle model `BoardMemoryCycle`:
//!
//! - rust-hdl simulation of every board's memory, every port on every cycle (`in_ready`,
//!   `out_valid`, `out__rdata`, `error`) through the one lock-step harness
//!   (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`): random reads and writes with random byte enables on
//!   words spread over the capacity (the SPRAM's bank boundary included), out-of-range and
//!   misaligned addresses, input gaps, random `out_ready` back-pressure, random stalls, one long
//!   stall, random flushes; a full-rate burst; activity counted and asserted;
//! - a planted bug (the RAM ignores byte enables) caught at the cycle the cycle model predicts
//!   (`lockstep::first_difference` against the model with the bug, [`ForcedBe`]);
//! - the emitted Verilog (`rtl-out/tilerast_board_memory_<board>.f`'s files) in Icarus against the same
//!   model, cycle by cycle (the lock-step's inputs and predictions as vectors), and for the iCEBreaker also with `SYNTHESIS` defined, i.e. the four
//!   `SB_SPRAM256KA` instances on yosys's simulation model of the primitive; a planted bug in
//!   the Verilog caught at its predicted cycle;
//! - yosys maps each board's memory to its RAM primitives (4 SB_SPRAM256KA, 16 SB_RAM40_4K,
//!   128 DP16KD);
//! - the pixel back end and the iCEBreaker's memory wired together in rust-hdl: the memory is
//!   cleared through the port, a small frame runs, and the memory, read back through the port
//!   and peeked, holds golden's framebuffer byte for byte.

mod common;

use rust_hdl::prelude::*;
use std::collections::HashSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use tilerast_golden::board::{board, Board, BOARDS};
use tilerast_golden::board_memory::{BoardMemoryCycle, BoardMemoryIn, BoardMemoryOut, BoardMemoryPorts, MemoryKind};
use tilerast_golden::cycle::BlockModel;
use tilerast_golden::streams::{ports, MemReq};
use tilerast_hw::board_memory::{self, BoardMemory};
use tilerast_verif::lockstep::{self, Bench, Flushes, Lockstep, Mismatch, Observer, Sink, Source};
use tilerast_verif::{Flush, Pattern, Rng};

// ---------------------------------------------------------------------------------------------
// Stimulus, shared by the rust-hdl runs, the predictions and the Icarus vectors.

/// The words the requests use: the first 16, 16 around the middle (the SPRAM's bank boundary)
/// and the last 8, so that reads hit recent (partial) writes and both ends of the address
/// decoding are used.
fn hot_words(kind: MemoryKind) -> Vec<u32> {
    let w = kind.words();
    let mut v: Vec<u32> = (0..16).chain(w / 2 - 8..w / 2 + 8).chain(w - 8..w).collect();
    v.dedup();
    v
}

/// The requests: first one full-word write of every hot word (so no read sees power-up
/// contents, which the SPRAM model leaves undefined), then a random mix: 1 % beyond the
/// capacity, 0.5 % misaligned, else a hot word, 45 % writes with random byte enables (0 and 0xf
/// included).
fn requests(kind: MemoryKind, seed: u64, n: usize) -> Vec<MemReq> {
    let mut r = Rng::stream(seed, 10);
    let hot = hot_words(kind);
    let mut v: Vec<MemReq> = hot
        .iter()
        .map(|&w| MemReq {
            addr: 4 * w,
            write: true,
            wdata: r.next_u32() | 1,
            be: 0xf,
        })
        .collect();
    while v.len() < n {
        let p = r.below(200);
        let write = r.chance(45);
        let addr = if p < 2 {
            let a = match r.below(3) {
                0 => kind.bytes() + 4 * r.below(16) as u32,
                1 => 0xffff_fffc,
                _ => kind.bytes().wrapping_mul(2) | (4 * r.below(4) as u32),
            };
            assert!(!kind.in_range(a));
            a
        } else if p == 2 {
            4 * *r.pick(&hot) + 1 + r.below(3) as u32
        } else {
            4 * *r.pick(&hot)
        };
        v.push(MemReq {
            addr,
            write,
            wdata: if write { r.next_u32() } else { 0 },
            be: if write { r.below(16) as u8 } else { 0 },
        });
    }
    v
}

/// Cycles of the opening burst (valid and ready high throughout: one request per cycle).
const BURST: u64 = 60;
/// A long stall of `out_ready`.
const STALL: std::ops::Range<u64> = 1500..1800;

/// The model with every write's byte enables OR-ed with `force_be` (a planted bug's
/// prediction: the RAM writing bytes it was not asked to).
struct ForcedBe(BoardMemoryCycle, u8);

impl BlockModel for ForcedBe {
    type Sig = BoardMemoryPorts;
    fn outputs(&self, i: &BoardMemoryIn) -> BoardMemoryOut {
        self.0.outputs(i)
    }
    fn clock(&mut self, i: &BoardMemoryIn) {
        let mut i = i.clone();
        if i.inp.payload.write {
            i.inp.payload.be |= self.1;
        }
        BlockModel::clock(&mut self.0, &i);
    }
}

/// What the bench saw.
#[derive(Debug, Default)]
struct Activity {
    taken: u64,
    burst_taken: u64,
    reads: u64,
    writes: u64,
    partial_writes: u64,
    /// Reads answered with non-zero data (the memory starts at zero: written data came back).
    nonzero_reads: u64,
    /// Reads of a word whose last write was partial (`be` neither 0 nor 0xf).
    reads_after_partial: u64,
    errors: u64,
    error_cycles: u64,
    /// Cycles with a request offered and `in_ready` low (the response buffer full).
    full_stalls: u64,
    max_valid_run: u64,
}

/// The bench of one run (the one lock-step harness's agents): the requests under a runs
/// pattern, responses taken under random stalls with a long stall at [`STALL`], random flushes;
/// the first [`BURST`] cycles valid and ready throughout and no flush. An observer counts the
/// activity.
fn bench(kind: MemoryKind, seed: u64, cycles: u64) -> (Bench, Arc<Mutex<Activity>>) {
    let mut valid = Pattern::Runs { pct: 75 }.line(Rng::stream(seed, 0));
    let mut ready = Pattern::RandomStalls {
        pct: 70,
        permille: 8,
        min: 5,
        max: 60,
    }
    .line(Rng::stream(seed, 1));
    let mut flush = Flush::Random { permille: 5 }.line(Rng::stream(seed, 2));
    let act = Arc::new(Mutex::new(Activity::default()));
    let a = act.clone();
    let (mut partial, mut run) = (HashSet::new(), 0u64);
    let observer = Observer::new(move |c, i, o| {
        let mut a = a.lock().unwrap();
        a.error_cycles += o.bit("error") as u64;
        a.full_stalls += (i.bit("in_valid") && !o.bit("in_ready")) as u64;
        if o.bit("out_valid") && i.bit("out_ready") && !i.bit("flush") && o.get("out__rdata") != Some(0) {
            a.nonzero_reads += 1;
        }
        let take = i.bit("in_valid") && o.bit("in_ready") && !i.bit("flush");
        run = if take { run + 1 } else { 0 };
        a.max_valid_run = a.max_valid_run.max(run);
        if take {
            a.taken += 1;
            a.burst_taken += (c < BURST) as u64;
            let q: MemReq = i.payload::<ports::MemReq>("inp");
            if !kind.in_range(q.addr) {
                a.errors += 1;
            } else if q.write {
                a.writes += 1;
                if q.be != 0 && q.be != 0xf {
                    a.partial_writes += 1;
                    partial.insert(q.addr);
                } else if q.be == 0xf {
                    partial.remove(&q.addr);
                }
            } else {
                a.reads += 1;
                a.reads_after_partial += partial.contains(&q.addr) as u64;
            }
        }
    });
    let b = Bench::new()
        .with("flush", Flushes::when(Box::new(move |c| flush.step() && c >= BURST)))
        .with(
            "inp",
            Source::<ports::MemReq>::new(
                "inp",
                requests(kind, seed, cycles as usize),
                Box::new(move |c| valid.step() || c < BURST),
            ),
        )
        .with(
            "out",
            Sink::<ports::MemResp>::new(
                "out",
                Box::new(move |c| c < BURST || ready.step() && !STALL.contains(&c)),
            ),
        )
        .with("activity", observer);
    (b, act)
}

/// The first cycle and port at which a memory whose writes OR `force_be` into their byte
/// enables differs from the right one under the bench's stimulus.
fn predict(kind: MemoryKind, seed: u64, cycles: u64, force_be: u8) -> Option<(u64, String)> {
    let mut good = Lockstep::new(BoardMemoryCycle::new(kind), bench(kind, seed, cycles).0);
    let mut bad = Lockstep::new(
        ForcedBe(BoardMemoryCycle::new(kind), force_be),
        bench(kind, seed, cycles).0,
    );
    lockstep::first_difference(&mut good, &mut bad, cycles).unwrap()
}

/// One rust-hdl run: the first difference (if any), what the bench saw, the flushes driven
/// and the cycles a response waited for `out_ready`.
struct Run {
    outcome: Result<(), Box<Mismatch>>,
    activity: Activity,
    flushes: u64,
    resp_waits: u64,
}

/// The rust-hdl board memory (or its mutant) against the model for `cycles` cycles.
fn simulate(kind: MemoryKind, seed: u64, cycles: u64, mutant: bool) -> Run {
    let mut dut = BoardMemory::new(kind);
    if mutant {
        dut = dut.mutant_ignore_byte_enables();
    }
    let (b, act) = bench(kind, seed, cycles);
    let (ls, outcome) = common::lockstep(dut, Lockstep::new(BoardMemoryCycle::new(kind), b), cycles, None);
    println!("{}", ls.bench.summary());
    let activity = std::mem::take(&mut *act.lock().unwrap());
    Run {
        outcome,
        activity,
        flushes: ls.bench.get::<Flushes>("flush").count,
        resp_waits: ls.bench.get::<Sink<ports::MemResp>>("out").waits,
    }
}

const CYCLES: u64 = 4000;

#[test]
fn every_board_memory_equals_its_cycle_model() {
    for (k, b) in BOARDS.iter().enumerate() {
        let run = simulate(b.memory, 11 + k as u64, CYCLES, false);
        let (r, flushes, resp_waits) = (&run.activity, run.flushes, run.resp_waits);
        println!(
            "{} ({}): {r:?}, {flushes} flushes, {resp_waits} response waits",
            b.name,
            b.memory.describe()
        );
        if let Err(m) = &run.outcome {
            panic!("{}: {m}", b.name);
        }
        // Full rate: the burst takes one request per cycle.
        assert_eq!(r.burst_taken, BURST, "{}: {r:?}", b.name);
        assert!(r.max_valid_run >= BURST, "{}: {r:?}", b.name);
        // Activity.
        assert!(r.reads > 500 && r.writes > 500, "{}: {r:?}", b.name);
        assert!(r.partial_writes > 300, "{}: {r:?}", b.name);
        assert!(r.nonzero_reads > 400, "{}: {r:?}", b.name);
        assert!(r.reads_after_partial > 100, "{}: {r:?}", b.name);
        assert!(
            r.errors >= 10 && r.error_cycles > 500 && r.error_cycles < CYCLES - 500,
            "{}: {r:?}",
            b.name
        );
        assert!(flushes >= 3, "{}: {flushes} flushes", b.name);
        assert!(
            r.full_stalls > 300 && resp_waits > 500,
            "{}: {r:?}, {resp_waits} response waits",
            b.name
        );
    }
}

/// The RAM ignoring byte enables (a rust-hdl-only mutant of the RAM's model) fails at exactly
/// the cycle the cycle model predicts: the first read answered with a byte an ignored enable
/// overwrote.
#[test]
fn a_ram_ignoring_byte_enables_is_caught_where_predicted() {
    let b = board("icebreaker").unwrap();
    let seed = 11;
    let (pc, pp) = predict(b.memory, seed, CYCLES, 0xf).expect("the mutant is visible");
    let m = simulate(b.memory, seed, CYCLES, true)
        .outcome
        .expect_err("the mutant is caught");
    println!("mutant: predicted cycle {pc} ({pp}), caught: {}", m.ports_line());
    assert_eq!(m.cycle, pc, "caught at {}, predicted {pc}", m.cycle);
    assert_eq!(m.port, "out__rdata");
    assert_eq!(pp, "out__rdata");
}

// ---------------------------------------------------------------------------------------------
// The emitted Verilog in Icarus against the model.

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// yosys's simulation models of the iCE40 primitives.
const ICE40_CELLS: &str = "/usr/share/yosys/ice40/cells_sim.v";

/// Run `verilog` (module `top`) in Icarus on the bench's first `cycles` cycles with `defines`
/// and `extra` source files, comparing every output every cycle with the model (mutated by
/// `force_be`, 0 for none). `Ok(cycles)`, or `Err` with the first mismatch.
#[allow(clippy::too_many_arguments)]
fn icarus(
    tag: &str,
    kind: MemoryKind,
    verilog: &str,
    top: &str,
    defines: &[&str],
    extra: &[&str],
    seed: u64,
    cycles: u64,
    force_be: u8,
) -> Result<u64, String> {
    if Command::new("iverilog").arg("-V").output().is_err() {
        panic!("iverilog is not installed: apt-get install -y iverilog");
    }
    // Vectors: the bench's inputs and the model's outputs, one line per cycle.
    let mut ls = Lockstep::new(
        ForcedBe(BoardMemoryCycle::new(kind), force_be),
        bench(kind, seed, cycles).0,
    );
    let (mut vin, mut vout) = (String::new(), String::new());
    for _ in 0..cycles {
        let (i, o) = ls.step().unwrap();
        let q: MemReq = i.payload::<ports::MemReq>("inp");
        let ctl = (i.bit("flush") as u8) << 3
            | (i.bit("in_valid") as u8) << 2
            | (q.write as u8) << 1
            | i.bit("out_ready") as u8;
        vin.push_str(&format!("{ctl:x}{:x}{:08x}{:08x}\n", q.be, q.addr, q.wdata));
        let flags = (o.bit("in_ready") as u8) << 2 | (o.bit("out_valid") as u8) << 1 | o.bit("error") as u8;
        vout.push_str(&format!("{flags:x}{:08x}\n", o.get("out__rdata").unwrap_or(0)));
    }
    let dir = std::env::temp_dir().join(format!("tilerast-board-memory-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("in.hex"), vin).unwrap();
    std::fs::write(dir.join("out.hex"), vout).unwrap();
    std::fs::write(dir.join("dut.v"), verilog).unwrap();
    let tb = format!(
        "`timescale 1ns/1ps\n\
         module tb;\n\
         \x20 reg clock = 0, flush = 0, in_valid = 0, write = 0, out_ready = 0;\n\
         \x20 reg [3:0] be = 0;\n\
         \x20 reg [31:0] addr = 0, wdata = 0;\n\
         \x20 wire in_ready, out_valid, error;\n\
         \x20 wire [31:0] rdata;\n\
         \x20 reg [71:0] vin [0:{n1}];\n\
         \x20 reg [35:0] vout [0:{n1}];\n\
         \x20 integer c;\n\
         \x20 {top} dut(.clock(clock), .flush(flush), .in_valid(in_valid), .in_ready(in_ready),\n\
         \x20   .inp__addr(addr), .inp__write(write), .inp__wdata(wdata), .inp__be(be),\n\
         \x20   .out_valid(out_valid), .out_ready(out_ready), .out__rdata(rdata), .error(error));\n\
         \x20 initial begin\n\
         \x20   $readmemh(\"in.hex\", vin);\n\
         \x20   $readmemh(\"out.hex\", vout);\n\
         \x20   for (c = 0; c < {cycles}; c = c + 1) begin\n\
         \x20     {{flush, in_valid, write, out_ready, be, addr, wdata}} = vin[c];\n\
         \x20     #1;\n\
         \x20     if ({{1'b0, in_ready, out_valid, error, rdata}} !== vout[c]) begin\n\
         \x20       $display(\"MISMATCH %0d got %h want %h\", c, {{1'b0, in_ready, out_valid, error, rdata}}, vout[c]);\n\
         \x20       $finish;\n\
         \x20     end\n\
         \x20     #4 clock = 1;\n\
         \x20     #5 clock = 0;\n\
         \x20   end\n\
         \x20   $display(\"PASS %0d\", c);\n\
         \x20   $finish;\n\
         \x20 end\n\
         endmodule\n",
        n1 = cycles - 1
    );
    std::fs::write(dir.join("tb.v"), tb).unwrap();
    let mut cmd = Command::new("iverilog");
    cmd.current_dir(&dir).args(["-g2012", "-o", "sim.vvp", "-s", "tb"]);
    for d in defines {
        cmd.arg(format!("-D{d}"));
    }
    let out = cmd.args(extra).args(["dut.v", "tb.v"]).output().expect("run iverilog");
    assert!(
        out.status.success(),
        "iverilog {tag}:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new("vvp")
        .current_dir(&dir)
        .args(["-n", "sim.vvp"])
        .output()
        .expect("run vvp");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let _ = std::fs::remove_dir_all(&dir);
    let line = text
        .lines()
        .find(|l| l.starts_with("PASS") || l.starts_with("MISMATCH"))
        .unwrap_or_else(|| panic!("vvp {tag}: no verdict:\n{text}"));
    let mut w = line.split_whitespace();
    match (w.next(), w.next().and_then(|c| c.parse::<u64>().ok())) {
        (Some("PASS"), Some(c)) => Ok(c),
        (Some("MISMATCH"), Some(c)) => Err(format!("{c}: {line}")),
        _ => panic!("vvp {tag}: {line}"),
    }
}

/// The committed files of `b`'s board memory, its list `tilerast_board_memory_<board>.f`
/// (the register library, then the block's own file), as one text (the freshness test in
/// `rtl_out.rs` holds them equal to gen-rtl's).
fn committed(b: &Board) -> String {
    list(b).iter().map(|f| std::fs::read_to_string(f).unwrap()).collect()
}

/// The files of `b`'s board memory's list.
fn list(b: &Board) -> Vec<PathBuf> {
    let files = tilerast_hw::package::read_file_list(&root().join("rtl-out"), &board_memory::top_name(b.name))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        files.last().unwrap().ends_with(board_memory::rtl_file_name(b.name)),
        "{files:?}"
    );
    files
}

#[test]
fn emitted_verilog_equals_the_cycle_model_in_icarus() {
    for (k, b) in BOARDS.iter().enumerate() {
        let v = committed(b);
        let top = board_memory::top_name(b.name);
        let seed = 40 + k as u64;
        let r = icarus(b.name, b.memory, &v, &top, &[], &[], seed, CYCLES, 0);
        assert_eq!(r, Ok(CYCLES), "{}: behavioural Verilog", b.name);
        if b.memory == MemoryKind::Spram {
            // The four SB_SPRAM256KA on yosys's model of the primitive.
            let r = icarus(
                "spram",
                b.memory,
                &v,
                &top,
                &["SYNTHESIS", "NO_ICE40_DEFAULT_ASSIGNMENTS"],
                &[ICE40_CELLS],
                seed,
                CYCLES,
                0,
            );
            assert_eq!(r, Ok(CYCLES), "{}: SB_SPRAM256KA instances", b.name);
        }
    }
}

/// A planted bug in the Verilog (the low half's byte enables ignored: bytes 0 and 1 always
/// written) is caught by the Icarus run at the cycle the model predicts, in the inferred RAM
/// and in the SPRAM instances' write masks.
#[test]
fn a_verilog_mutant_is_caught_in_icarus_where_predicted() {
    for (name, defines, extra, from, to) in [
        ("hx8k", &[][..], &[][..], "if (be[0])", "if (1'b1)"),
        (
            "icebreaker",
            &["SYNTHESIS", "NO_ICE40_DEFAULT_ASSIGNMENTS"][..],
            &[ICE40_CELLS][..],
            "{be[1], be[1], be[0], be[0]}",
            "4'b1111",
        ),
    ] {
        let b = board(name).unwrap();
        let mut v = committed(b);
        assert!(v.contains(from), "{name}: anchor {from:?}");
        v = v.replace(from, to);
        if name == "hx8k" {
            v = v.replace("if (be[1])", "if (1'b1)");
        }
        let seed = 7;
        let (pc, pd) = predict(b.memory, seed, CYCLES, 0b0011).expect("visible");
        let top = board_memory::top_name(b.name);
        let r = icarus(
            &format!("mut-{name}"),
            b.memory,
            &v,
            &top,
            defines,
            extra,
            seed,
            CYCLES,
            0,
        );
        println!("{name} Verilog mutant: predicted cycle {pc} ({}), Icarus: {r:?}", pd);
        let c = r.expect_err("the mutant is caught");
        assert!(c.starts_with(&format!("{pc}: ")), "caught at {c}, predicted {pc}");
        // And the mutated model agrees with the mutated Verilog.
        let r = icarus(
            &format!("mutm-{name}"),
            b.memory,
            &v,
            &top,
            defines,
            extra,
            seed,
            CYCLES,
            0b0011,
        );
        assert_eq!(r, Ok(CYCLES), "{name}: the mutated Verilog is the mutated model");
    }
}

// ---------------------------------------------------------------------------------------------
// Synthesis: yosys maps each memory to the board's RAM primitives.

#[test]
fn yosys_maps_each_board_memory_to_its_ram_primitives() {
    if Command::new("yosys").arg("-V").output().is_err() {
        panic!("yosys is not installed: apt-get install -y yosys");
    }
    for b in BOARDS {
        let paths: Vec<String> = list(b).iter().map(|p| p.display().to_string()).collect();
        let top = board_memory::top_name(b.name);
        let (synth, cell, want) = match (b.family, b.memory) {
            (tilerast_golden::board::Family::Ice40, MemoryKind::Spram) => {
                (format!("synth_ice40 -device u -top {top}"), "SB_SPRAM256KA", 4)
            }
            (tilerast_golden::board::Family::Ice40, MemoryKind::Bram { words }) => (
                format!("synth_ice40 -device hx -top {top}"),
                "SB_RAM40_4K",
                words as u64 * 32 / 4096,
            ),
            (tilerast_golden::board::Family::Ecp5, MemoryKind::Bram { words }) => {
                (format!("synth_ecp5 -top {top}"), "DP16KD", words as u64 * 32 / 16384)
            }
            (f, k) => panic!("{}: no RAM primitive for {k:?} on {f:?}", b.name),
        };
        let out = Command::new("yosys")
            .args(["-q", "-p"])
            .arg(format!(
                "read_verilog -DSYNTHESIS {}; {synth}; tee -o /dev/stdout stat",
                paths.join(" ")
            ))
            .output()
            .expect("run yosys");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}: yosys failed:\n{}",
            b.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let n: u64 = text
            .lines()
            .find_map(|l| {
                let mut w = l.split_whitespace();
                (w.next() == Some(cell)).then(|| w.next().unwrap().parse().unwrap())
            })
            .unwrap_or(0);
        println!("{}: {n} x {cell}", b.name);
        assert_eq!(n, want, "{}: {cell} count\n{text}", b.name);
    }
}

// ---------------------------------------------------------------------------------------------
// The pixel back end on the iCEBreaker's memory: a small frame ends as golden's framebuffer.

use tilerast_golden::config::Config;
use tilerast_golden::cycle::Offer;
use tilerast_golden::pipeline::back_end_input;
use tilerast_golden::pixel_back_end::{framebuffer, PixelBackEndCycle, PixelBackEndIn};
use tilerast_golden::scene::Frame;
use tilerast_golden::streams::PixSamples;
use tilerast_golden::PrimitiveFx;
use tilerast_hw::pixel_back_end::PixelBackEnd;
use tilerast_hw::streams::{MemReqIn, PixSamplesIn};
use tilerast_verif::stim::{point_at, spread_triangle};

/// The back end and the board memory on one port; while `host` is high the testbench owns the
/// memory port instead (clearing the framebuffer, reading it back) and the back end sees a
/// memory that takes nothing and answers nothing.
#[derive(LogicBlock)]
struct Rig {
    clock: Signal<In, Clock>,
    flush: Signal<In, Bit>,
    in_valid: Signal<In, Bit>,
    in_ready: Signal<Out, Bit>,
    inp: PixSamplesIn,
    host: Signal<In, Bit>,
    host_valid: Signal<In, Bit>,
    host_req: MemReqIn,
    host_resp_ready: Signal<In, Bit>,
    /// The frame's background (the back end's `dst` with `framebuffer: clear`).
    background: Signal<In, Bits<32>>,
    /// Observed: the back end's `mem_req_valid`, the memory's `in_ready`, `out_valid`,
    /// `out__rdata` and `error`.
    be_req_valid: Signal<Out, Bit>,
    mem_ready: Signal<Out, Bit>,
    mem_valid: Signal<Out, Bit>,
    mem_rdata: Signal<Out, Bits<32>>,
    mem_error: Signal<Out, Bit>,
    back_end: PixelBackEnd,
    mem: BoardMemory,
}

impl Logic for Rig {
    #[hdl_gen]
    fn update(&mut self) {
        self.back_end.clock.next = self.clock.val();
        self.mem.clock.next = self.clock.val();
        self.back_end.flush.next = self.flush.val();
        self.mem.flush.next = self.flush.val();
        self.back_end.in_valid.next = self.in_valid.val();
        self.in_ready.next = self.back_end.in_ready.val();
        PixSamplesIn::link(&mut self.inp, &mut self.back_end.inp);
        self.back_end.background.next = self.background.val();
        self.back_end.mem_resp.rdata.next = self.mem.out.rdata.val();
        if self.host.val() {
            self.mem.in_valid.next = self.host_valid.val();
            self.mem.inp.addr.next = self.host_req.addr.val();
            self.mem.inp.write.next = self.host_req.write.val();
            self.mem.inp.wdata.next = self.host_req.wdata.val();
            self.mem.inp.be.next = self.host_req.be.val();
            self.mem.out_ready.next = self.host_resp_ready.val();
            self.back_end.mem_req_ready.next = false;
            self.back_end.mem_resp_valid.next = false;
        } else {
            self.mem.in_valid.next = self.back_end.mem_req_valid.val();
            self.mem.inp.addr.next = self.back_end.mem_req.addr.val();
            self.mem.inp.write.next = self.back_end.mem_req.write.val();
            self.mem.inp.wdata.next = self.back_end.mem_req.wdata.val();
            self.mem.inp.be.next = self.back_end.mem_req.be.val();
            self.mem.out_ready.next = self.back_end.mem_resp_ready.val();
            self.back_end.mem_req_ready.next = self.mem.in_ready.val();
            self.back_end.mem_resp_valid.next = self.mem.out_valid.val();
        }
        self.be_req_valid.next = self.back_end.mem_req_valid.val();
        self.mem_ready.next = self.mem.in_ready.val();
        self.mem_valid.next = self.mem.out_valid.val();
        self.mem_rdata.next = self.mem.out.rdata.val();
        self.mem_error.next = self.mem.error.val();
    }
}

/// A small frame: overlapping triangles (some half transparent) and points.
fn small_frame(cfg: &Config, seed: u64, n: usize) -> Frame {
    let mut r = Rng::stream(seed, 0);
    let [w, h] = cfg.viewport;
    let palette = [
        [200, 30, 30, 255],
        [30, 200, 30, 128],
        [30, 30, 200, 128],
        [250, 250, 250, 200],
    ];
    let mut prims = Vec::new();
    for _ in 0..n {
        let at = (r.range(0, w as i64 * 256) as i32, r.range(0, h as i64 * 256) as i32);
        let mut p = if r.one_in(4) {
            point_at(at, r.range(256, 6 * 256) as i32, r.bool())
        } else {
            let s = 30 * 256;
            let d1 = (r.range(-s, s) as i32, r.range(-s, s) as i32);
            let d2 = (r.range(-s, s) as i32, r.range(-s, s) as i32);
            spread_triangle(cfg, at, d1, d2, 1)
        };
        let (colour, depth) = (*r.pick(&palette), r.below(1 << 24) as u32);
        match &mut p {
            PrimitiveFx::Triangle(t) => (t.colour, t.depth) = (colour, depth),
            PrimitiveFx::Point(q) => (q.colour, q.depth) = (colour, depth),
        }
        prims.push(p);
    }
    Frame {
        cfg: cfg.clone(),
        background: [10, 20, 30, 255],
        prims,
    }
}

#[derive(Debug, Default)]
struct FrameReport {
    cycles: u64,
    mismatch: Option<(u64, &'static str, Vec<String>)>,
    clear_cycles: u64,
    frame_cycles: u64,
    read_cycles: u64,
    frame_reads: u64,
    frame_writes: u64,
    /// Read back through the port: slot words that differ from golden's framebuffer (first).
    port_diff: Option<(u32, u32, u32)>,
    /// Peeked from the RAM: first byte that differs from golden's framebuffer.
    ram_diff: Option<(u32, u8, u8)>,
}

#[test]
fn the_back_end_on_the_icebreaker_memory_leaves_goldens_framebuffer() {
    let b = board("icebreaker").unwrap();
    // The ice40 preset at 4x MSAA (more for the pixel processor to resolve than the board's
    // ice40_1x; the SPRAM holds either's framebuffer) on a 64 x 32 viewport: 2048 slots.
    let mut cfg = Config::preset("ice40").unwrap();
    cfg.viewport = [64, 32];
    cfg.validate().unwrap();
    let frame = small_frame(&cfg, 3, 14);
    let out = back_end_input(&frame).unwrap();
    let rec = out.back_end.expect("the back end's record");
    let samples = out.stats.blend.samples;
    let slots = cfg.viewport[0] * cfg.viewport[1] * cfg.colours_per_pixel;
    let background = framebuffer(&cfg, rec.background);
    let golden = rec.memory.clone();
    let changed = (0..slots)
        .filter(|&s| golden.read(4 * s) != background.read(4 * s))
        .count();
    assert!(
        samples > 500 && changed > 500,
        "the frame draws: {samples} samples, {changed} slots"
    );
    println!(
        "frame: {}x{} at {}x MSAA, {} pixels in, {samples} blended samples, {changed} slots changed",
        cfg.viewport[0],
        cfg.viewport[1],
        cfg.msaa,
        rec.input.len()
    );
    let input = rec.input.clone();
    let rec_background = rec.background;
    // `framebuffer: clear` (the preset's): dst is the background register, nothing is read.
    assert_eq!(cfg.framebuffer, tilerast_golden::config::FramebufferMode::Clear);
    let kind = b.memory;
    let max_cycles = 3 * slots as u64 + 4 * input.len() as u64 + 4 * samples + 500;

    let mut dut = Rig {
        clock: Default::default(),
        flush: Default::default(),
        in_valid: Default::default(),
        in_ready: Default::default(),
        inp: Default::default(),
        host: Default::default(),
        host_valid: Default::default(),
        host_req: Default::default(),
        host_resp_ready: Default::default(),
        background: Default::default(),
        be_req_valid: Default::default(),
        mem_ready: Default::default(),
        mem_valid: Default::default(),
        mem_rdata: Default::default(),
        mem_error: Default::default(),
        back_end: PixelBackEnd::new(&cfg),
        mem: BoardMemory::for_board(b),
    };
    dut.connect_all();
    let result = Arc::new(Mutex::new(None));
    let res = result.clone();
    let t0 = std::time::Instant::now();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<Rig>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<Rig>| {
        let mut be = PixelBackEndCycle::new(&cfg);
        let mut bm = BoardMemoryCycle::new(kind);
        let mut r = FrameReport::default();
        let mut gaps = Pattern::gaps(10).line(Rng::stream(9, 0));
        let mut rready = Pattern::Random { pct: 70 }.line(Rng::stream(9, 1));
        // Phase 0: clear through the port; 1: the frame; 2: read back through the port.
        let (mut phase, mut issued, mut next, mut answered) = (0u8, 0u32, 0usize, 0u32);
        let (mut idle, mut base_writes) = (0u64, 0u64);
        let mut x = sim.init()?;
        for cycle in 0..max_cycles {
            let host = phase != 1;
            let host_valid = host && issued < slots;
            let host_req = MemReq {
                addr: 4 * issued,
                write: phase == 0,
                wdata: if phase == 0 { background.read(4 * issued) } else { 0 },
                be: if phase == 0 { 0xf } else { 0 },
            };
            let host_resp_ready = phase == 2 && rready.step();
            let in_valid = phase == 1 && next < input.len() && gaps.step();
            let inp: PixSamples = input.get(next).copied().unwrap_or_default();
            x.host.next = host;
            x.host_valid.next = host_valid;
            x.host_req.drive(&host_req);
            x.host_resp_ready.next = host_resp_ready;
            x.background.next = (u32::from_le_bytes(rec_background) as u64).into();
            x.in_valid.next = in_valid;
            x.inp.drive(&inp);
            x.flush.next = false;
            x = sim.watch(|x| !x.clock.val().clk, x)?;

            // The composed models, wired as the rig.
            let (bqv, bq) = be.mem_req();
            let (req_v, req, resp_ready, be_req_ready, be_resp_valid) = if host {
                (host_valid, host_req, host_resp_ready, false, false)
            } else {
                (bqv, bq, be.mem_resp_ready(), bm.in_ready(), bm.out().0)
            };
            let (mv, mresp) = bm.out();
            let in_ready = be.in_ready(be_req_ready);
            let mut d = Vec::new();
            for (name, rtl, m) in [
                ("in_ready", x.in_ready.val() as u32, in_ready as u32),
                ("back end mem_req_valid", x.be_req_valid.val() as u32, bqv as u32),
                ("memory in_ready", x.mem_ready.val() as u32, bm.in_ready() as u32),
                ("memory out_valid", x.mem_valid.val() as u32, mv as u32),
                ("memory out__rdata", x.mem_rdata.val().to_u64() as u32, mresp.rdata),
                ("memory error", x.mem_error.val() as u32, bm.error() as u32),
            ] {
                if rtl != m {
                    d.push(format!("{name} rtl {rtl:#x} model {m:#x}"));
                }
            }
            r.cycles = cycle + 1;
            let name = ["clear", "frame", "read back"][phase as usize];
            if !d.is_empty() {
                r.mismatch = Some((cycle, name, d));
                break;
            }
            if phase == 2 && mv && resp_ready {
                let want = golden.read(4 * answered);
                if mresp.rdata != want && r.port_diff.is_none() {
                    r.port_diff = Some((answered, mresp.rdata, want));
                }
                answered += 1;
            }
            let take = req_v && bm.in_ready();
            if host && take {
                issued += 1;
            }
            if !host && take {
                if req.write {
                    r.frame_writes += 1;
                } else {
                    r.frame_reads += 1;
                }
            }
            if in_valid && in_ready {
                next += 1;
            }
            be.clock(&PixelBackEndIn {
                flush: false,
                inp: Offer::new(in_valid, inp),
                mem_resp: Offer::new(be_resp_valid, mresp),
                mem_req_ready: be_req_ready,
                background: u32::from_le_bytes(rec_background),
            });
            bm.clock(req_v, &req, resp_ready, false);
            match phase {
                0 => r.clear_cycles += 1,
                1 => r.frame_cycles += 1,
                _ => r.read_cycles += 1,
            }
            // Phase changes, after this cycle's edge.
            if phase == 0 && issued == slots {
                (phase, base_writes) = (1, bm.stats().writes);
            } else if phase == 1 {
                let done = next == input.len() && bm.stats().writes == base_writes + samples;
                idle = if done && !be.mem_req().0 { idle + 1 } else { 0 };
                // Ten quiet cycles after the last write: nothing else comes.
                if idle == 10 {
                    (phase, issued) = (2, 0);
                }
            } else if phase == 2 && answered == slots {
                x = sim.watch(|x| x.clock.val().clk, x)?;
                break;
            }
            x = sim.watch(|x| x.clock.val().clk, x)?;
        }
        // The RAM itself, word by word over the whole capacity.
        let mut ram = tilerast_golden::memory_port::SparseMemory::new();
        for i in 0..kind.words() {
            let w = x.mem.ram.peek(i as usize);
            if w != 0 {
                ram.write(4 * i, w, 0xf);
            }
        }
        r.ram_diff = golden.first_difference(&ram);
        assert_eq!(answered, slots, "read back every slot ({r:?})");
        *res.lock().unwrap() = Some(r);
        sim.done(x)
    });
    sim.run(Box::new(dut), 10 * (max_cycles + 10))
        .expect("rust-hdl simulation");
    let r = result.lock().unwrap().take().unwrap();
    println!("{r:?} in {:.1} s", t0.elapsed().as_secs_f64());
    if let Some((c, phase, d)) = &r.mismatch {
        panic!(
            "rig and composed models differ at cycle {c} ({phase}): {}",
            d.join("; ")
        );
    }
    assert_eq!(r.port_diff, None, "read back through the port: (slot, rtl, golden)");
    assert_eq!(r.ram_diff, None, "the RAM: (byte address, golden, rtl)");
    assert_eq!(r.frame_writes, samples, "one write per blended sample");
    assert_eq!(r.frame_reads, 0, "no dst read with a fast clear");
}
