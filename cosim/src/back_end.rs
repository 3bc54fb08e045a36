//! The pixel back end (`rtl-out/tilerast_pixel_back_end_<preset>.v`: pixel processor, dst
//! read, blender and output merger behind one memory port) against its cycle model
//! `PixelBackEndCycle`, every port on every cycle, with a Rust memory model (`MemoryCycle`:
//! read latency, response depth, random back-pressure, long stalls) behind the port. Used by
//! `cosim/tests/pixel_back_end.rs` and `tilerast regress --back-end`.
//!
//! ```text
//!  pixels + Drive ─► PixelBackEndCycle ◄──► MemoryCycle   (golden side: predicts every port)
//!      │                  │ predicted outputs (a batch of BATCH cycles)
//!      ▼                  ▼
//!  in words ─► Verilator block ─► out words ══ compare every port, every cycle
//! ```
//!
//! The memory answers the model's requests; where the RTL's differ, the comparison stops at
//! that cycle, so the memory never has to follow the RTL. Port names come from the generated
//! port table and the streams' one declaration; every port must be driven or predicted
//! exactly once.

use crate::blocks::{get_bits, BlockDesc, PortDesc};
pub use crate::blocks::{Window, WINDOW};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tilerast_golden::memory_port::{MemTiming, SparseMemory};
use tilerast_golden::output_merger::image_from_memory;
use tilerast_golden::pipeline::back_end_input;
use tilerast_golden::pixel_back_end::{framebuffer, PixelBackEndCycle};
use tilerast_golden::scene::Frame;
use tilerast_golden::streams::{ports, PixSamples};
use tilerast_golden::Config;
use tilerast_verif::lockstep::{Lockstep, Memory, Source};
use tilerast_verif::stim::back_end_bench;
use tilerast_verif::Rng;

/// The stage name of the back end.
pub const STAGE: &str = "pixel_back_end";

/// What drives a run besides the pixels (shared with the rust-hdl test: `verif::stim`).
pub use tilerast_verif::stim::BackEndDrive as Drive;

/// What a run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub cycles: u64,
    pub accepted: usize,
    pub writes: u64,
    pub reads: u64,
    /// Flushes that found the back end busy (not idle).
    pub busy_flushes: u64,
    /// First cycle in which the model put a write on the memory port.
    pub first_write: Option<u64>,
    pub memory: SparseMemory,
}

/// Run the RTL (verilated as `preset`, e.g. `default` or its mutant `default_mut`) and the
/// model for `cfg` side by side; `Err` names the first differing cycle and every differing port.
pub fn run(
    preset: &str,
    cfg: &Config,
    pixels: &[PixSamples],
    mem0: SparseMemory,
    background: u32,
    want_writes: u64,
    d: &Drive,
) -> Result<Outcome, String> {
    run_windowed(preset, cfg, pixels, mem0, background, want_writes, d).map_err(|(e, _)| e)
}

/// What the model showed over a run (seen every cycle through [`Lockstep::watching`]).
#[derive(Clone, Debug, Default)]
pub struct Seen {
    pub busy_flushes: u64,
    pub first_write: Option<u64>,
}

/// The model for `cfg` on `tilerast_verif::stim::back_end_bench`, and what it shows over the run.
pub fn lockstep(
    cfg: &Config,
    pixels: &[PixSamples],
    mem0: SparseMemory,
    background: u32,
    d: &Drive,
) -> (Lockstep<PixelBackEndCycle>, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let s = seen.clone();
    let flush_at = d.flush_at.clone();
    let ls = Lockstep::new(
        PixelBackEndCycle::new(cfg),
        back_end_bench(cfg, pixels, mem0, background, d),
    )
    .watching(move |c, m| {
        let mut s = s.lock().unwrap();
        s.busy_flushes += (flush_at.contains(&c) && !m.idle()) as u64;
        let (qv, q) = m.mem_req();
        if qv && q.write && s.first_write.is_none() {
            s.first_write = Some(c);
        }
    });
    (ls, seen)
}

/// The stop rule of a run: `d.cycles` cycles, or (0) every pixel taken, `want_writes` writes
/// done and no read held; `Err` when a run makes no progress.
fn finished(n: usize, want_writes: u64, d: &Drive) -> impl FnMut(&Lockstep<PixelBackEndCycle>) -> Result<bool, String> {
    let (cycles, limit) = (d.cycles, 100 * n as u64 + 100_000);
    move |ls| {
        if cycles > 0 {
            return Ok(ls.cycle >= cycles);
        }
        let (inp, mem) = (
            ls.bench.get::<Source<ports::PixSamples>>("inp"),
            &ls.bench.get::<Memory>("mem").mem,
        );
        let done = inp.left() == 0 && mem.stats.writes >= want_writes && mem.held() == 0;
        if !done && ls.cycle > limit {
            return Err(format!(
                "no progress: {} of {n} pixels after {} cycles",
                inp.accepted, ls.cycle
            ));
        }
        Ok(done)
    }
}

/// What the run of `ls` did.
pub fn outcome(ls: &Lockstep<PixelBackEndCycle>, seen: &Mutex<Seen>) -> Outcome {
    let mem = &ls.bench.get::<Memory>("mem").mem;
    let seen = seen.lock().unwrap().clone();
    Outcome {
        cycles: ls.cycle,
        accepted: ls.bench.get::<Source<ports::PixSamples>>("inp").accepted as usize,
        writes: mem.stats.writes,
        reads: mem.stats.reads,
        busy_flushes: seen.busy_flushes,
        first_write: seen.first_write,
        memory: mem.mem.clone(),
    }
}

/// Every cycle of a whole run of the model, as port words laid out by the back end's port
/// table of `preset` (the testbench vectors of a gate-level simulation): input words, expected
/// output words, and the outcome (memory included).
pub fn vectors(
    preset: &str,
    cfg: &Config,
    pixels: &[PixSamples],
    mem0: SparseMemory,
    background: u32,
    want_writes: u64,
    d: &Drive,
) -> Result<(Vec<u32>, Vec<u32>, Outcome), String> {
    let (mut ls, seen) = lockstep(cfg, pixels, mem0, background, d);
    let (i, e) = crate::blocks::lockstep_vectors_until(preset, &mut ls, finished(pixels.len(), want_writes, d))?;
    Ok((i, e, outcome(&ls, &seen)))
}

/// [`run`], and on a mismatch the window of cycles up to it.
pub fn run_windowed(
    preset: &str,
    cfg: &Config,
    pixels: &[PixSamples],
    mem0: SparseMemory,
    background: u32,
    want_writes: u64,
    d: &Drive,
) -> Result<Outcome, (String, Window)> {
    let (mut ls, seen) = lockstep(cfg, pixels, mem0, background, d);
    crate::blocks::cosim_lockstep_until(preset, &mut ls, finished(pixels.len(), want_writes, d), d.flip)
        .map_err(|f| f.into_line_window())?;
    Ok(outcome(&ls, &seen))
}

/// The drive of the whole-frame checks: no gaps, 25 % memory back-pressure, a 2500-cycle
/// memory stall, read latency 2 with three responses held, run until the frame's writes are
/// done.
pub fn frame_drive(seed: u64) -> Drive {
    Drive {
        seed,
        gap_pm: 0,
        busy_pm: 250,
        flush_at: vec![],
        stall: (3_000, 5_500),
        timing: MemTiming { latency: 2, depth: 3 },
        cycles: 0,
        flip: None,
    }
}

/// The whole-back-end differential for one frame: golden's scatter stream through the RTL
/// (verilated for `preset`, which must be the frame's config) with `d`; `Ok` when every port
/// equals the model on every cycle, the memory holds golden's framebuffer byte for byte and
/// its image is `render_frame`'s bit for bit. Returns the outcome and the input pixels.
pub fn check_frame(preset: &str, frame: &Frame, d: &Drive) -> Result<(Outcome, usize), String> {
    check_frame_windowed(preset, frame, d).map_err(|(e, _)| e)
}

/// [`check_frame`], with the window of a port mismatch.
pub fn check_frame_windowed(preset: &str, frame: &Frame, d: &Drive) -> Result<(Outcome, usize), (String, Window)> {
    let none = |e: String| (e, Window::default());
    let out = back_end_input(frame).map_err(|e| none(e.to_string()))?;
    let rec = out
        .back_end
        .as_ref()
        .ok_or_else(|| none("back_end_input recorded nothing".into()))?;
    let o = run_windowed(
        preset,
        &frame.cfg,
        &rec.input,
        framebuffer(&frame.cfg, rec.background),
        u32::from_le_bytes(rec.background),
        out.stats.blend.samples,
        d,
    )?;
    check_memory(&frame.cfg, &out, &o).map_err(none)?;
    Ok((o, rec.input.len()))
}

/// The end of a frame: the memory holds golden's framebuffer byte for byte, its image is
/// `render_frame`'s bit for bit, one write per blend sample.
fn check_memory(cfg: &Config, out: &tilerast_golden::pipeline::StreamOutput, o: &Outcome) -> Result<(), String> {
    let rec = out.back_end.as_ref().ok_or("back_end_input recorded nothing")?;
    if let Some((a, want, got)) = rec.memory.first_difference(&o.memory) {
        return Err(format!("memory byte {a:#x} is {got:#04x}, golden {want:#04x}"));
    }
    if Some(image_from_memory(cfg, &o.memory)) != out.image {
        return Err("image differs from render_frame's".into());
    }
    if o.writes != out.stats.blend.samples {
        return Err(format!(
            "{} writes for {} blend samples",
            o.writes, out.stats.blend.samples
        ));
    }
    Ok(())
}

/// The testbench vectors of one frame (see [`vectors`]): golden's scatter stream of `frame`
/// with drive `d`, every cycle as port words of `preset`'s back end; the model's memory at the
/// end is checked against golden's framebuffer and `render_frame`'s image first, so a
/// netlist that equals these vectors on every cycle writes that framebuffer.
pub fn frame_vectors(preset: &str, frame: &Frame, d: &Drive) -> Result<(Vec<u32>, Vec<u32>, Outcome), String> {
    let out = back_end_input(frame).map_err(|e| e.to_string())?;
    let rec = out.back_end.as_ref().ok_or("back_end_input recorded nothing")?;
    let (i, e, o) = vectors(
        preset,
        &frame.cfg,
        &rec.input,
        framebuffer(&frame.cfg, rec.background),
        u32::from_le_bytes(rec.background),
        out.stats.blend.samples,
        d,
    )?;
    check_memory(&frame.cfg, &out, &o)?;
    Ok((i, e, o))
}

/// Write the window as a VCD: scopes `tb` (clock, cycle), `tb.in` (every input port),
/// `tb.rtl` and `tb.golden` (every output port, same names), `tb.diff` (one bit per output
/// port: RTL ≠ model that cycle). Time 10·cycle, rising edge at +5.
pub fn write_vcd(path: &Path, preset: &str, w: &Window) -> Result<(), String> {
    let desc = crate::blocks::block_desc(preset, STAGE).ok_or_else(|| format!("no verilated {preset}/{STAGE}"))?;
    write_block_vcd(
        path,
        desc,
        "tilerast pixel_back_end: RTL (Verilator) vs PixelBackEndCycle",
        w,
    )
}

/// [`write_vcd`] for any verilated block laid out as `desc`, with `title` as the VCD's comment.
pub fn write_block_vcd(path: &Path, desc: &BlockDesc, title: &str, w: &Window) -> Result<(), String> {
    use vcd::{ReferenceIndex, TimescaleUnit, Value, VarType};
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut buf: Vec<u8> = Vec::new();
    let mut v = vcd::Writer::new(&mut buf);
    let bits = |x: u64, n: u32| -> Vec<Value> {
        (0..n)
            .rev()
            .map(|i| if x >> i & 1 == 1 { Value::V1 } else { Value::V0 })
            .collect()
    };
    (|| -> std::io::Result<()> {
        v.comment(title)?;
        v.timescale(1, TimescaleUnit::NS)?;
        v.add_module("tb")?;
        let add = |v: &mut vcd::Writer<&mut Vec<u8>>, n: &str, width: u32| {
            v.add_var(
                VarType::Wire,
                width,
                n,
                (width > 1).then_some(ReferenceIndex::Range(width - 1, 0)),
            )
        };
        let clock = add(&mut v, "clock", 1)?;
        let cycle = add(&mut v, "cycle", 32)?;
        let scope = |v: &mut vcd::Writer<&mut Vec<u8>>,
                     name: &str,
                     ports: &[PortDesc],
                     w1: bool|
         -> std::io::Result<Vec<(vcd::IdCode, PortDesc)>> {
            v.add_module(name)?;
            let ids = ports
                .iter()
                .map(|p| add(v, p.name, if w1 { 1 } else { p.width }).map(|id| (id, *p)))
                .collect::<std::io::Result<Vec<_>>>()?;
            v.upscope()?;
            Ok(ids)
        };
        let ins = scope(&mut v, "in", desc.inputs, false)?;
        let rtl = scope(&mut v, "rtl", desc.outputs, false)?;
        let gold = scope(&mut v, "golden", desc.outputs, false)?;
        let diff = scope(&mut v, "diff", desc.outputs, true)?;
        v.upscope()?;
        v.enddefinitions()?;
        let set = |v: &mut vcd::Writer<&mut Vec<u8>>, id: vcd::IdCode, x: u64, n: u32| {
            if n == 1 {
                v.change_scalar(id, if x & 1 == 1 { Value::V1 } else { Value::V0 })
            } else {
                v.change_vector(id, &bits(x, n))
            }
        };
        for (k, (i, r, g)) in w.cycles.iter().enumerate() {
            let c = w.from + k as u64;
            v.timestamp(10 * c)?;
            set(&mut v, clock, 0, 1)?;
            set(&mut v, cycle, c, 32)?;
            for (id, p) in &ins {
                set(&mut v, *id, get_bits(i, p.offset, p.width), p.width)?;
            }
            for ((id_r, p), ((id_g, _), (id_d, _))) in rtl.iter().zip(gold.iter().zip(diff.iter())) {
                let (a, b) = (get_bits(r, p.offset, p.width), get_bits(g, p.offset, p.width));
                set(&mut v, *id_r, a, p.width)?;
                set(&mut v, *id_g, b, p.width)?;
                set(&mut v, *id_d, (a != b) as u64, 1)?;
            }
            v.timestamp(10 * c + 5)?;
            set(&mut v, clock, 1, 1)?;
        }
        Ok(())
    })()
    .map_err(err)?;
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    std::fs::write(path, buf).map_err(|e| format!("{}: {e}", path.display()))
}

/// One back-end regression run: `count` random primitives in chunks of `chunk` (each chunk one
/// frame at `preset`'s config, with its own memory behaviour), shard `k` of `n`.
#[derive(Clone, Debug)]
pub struct RegressCfg {
    pub preset: String,
    /// The verilated back end to run: the preset's, or `default_mut` (its planted bug, for
    /// the tests of the failure path).
    pub rtl: String,
    pub seed: u64,
    pub count: u64,
    pub chunk: u64,
    pub shard: (u64, u64),
    pub out_dir: PathBuf,
    pub shrink_budget: Duration,
    pub keep_going: bool,
}

/// Totals of a back-end regression.
#[derive(Clone, Debug, Default)]
pub struct RegressStats {
    pub chunks: u64,
    pub prims: u64,
    pub pixels: u64,
    pub writes: u64,
    pub cycles: u64,
    /// (chunk, failure, saved scene).
    pub failures: Vec<(u64, String, Option<PathBuf>)>,
}

/// The frame and memory behaviour of chunk `i` of length `len`.
pub fn chunk_case(cfg: &Config, seed: u64, i: u64, len: u64) -> (Frame, Drive) {
    let mut r = Rng::stream(seed, i);
    let prims = crate::regress::random_prims(cfg, &mut r, len as usize);
    let frame = Frame {
        cfg: cfg.clone(),
        background: [r.below(256) as u8, r.below(256) as u8, r.below(256) as u8, 255],
        prims,
    };
    let mut d = frame_drive(Rng::mix(seed, i));
    d.busy_pm = [0, 100, 400, 800][r.index(4)];
    d.timing = MemTiming {
        latency: 1 + r.below(4) as u32,
        depth: 1 + r.below(4) as u32,
    };
    d.stall = if r.bool() {
        (r.below(5_000), 5_000 + r.below(5_000))
    } else {
        (0, 0)
    };
    (frame, d)
}

/// The drive as JSON (the sidecar of a saved failing scene).
pub fn drive_to_json(d: &Drive) -> serde_json::Value {
    serde_json::json!({
        "seed": d.seed, "gap_pm": d.gap_pm, "busy_pm": d.busy_pm,
        "stall": [d.stall.0, d.stall.1], "latency": d.timing.latency, "depth": d.timing.depth,
    })
}

/// The drive from a sidecar written by [`drive_to_json`]; errors name the file and field.
pub fn drive_from_json(v: &serde_json::Value, file: &str) -> Result<Drive, String> {
    let u = |k: &str| {
        v.get(k)
            .and_then(|x| x.as_u64())
            .ok_or_else(|| format!("{file}: field `{k}`: missing or not an unsigned integer"))
    };
    let st = v
        .get("stall")
        .and_then(|x| x.as_array())
        .filter(|a| a.len() == 2)
        .ok_or_else(|| format!("{file}: field `stall`: not [from, to]"))?;
    let s = |i: usize| {
        st[i]
            .as_u64()
            .ok_or_else(|| format!("{file}: field `stall`: not [from, to]"))
    };
    let (latency, depth) = (u("latency")?, u("depth")?);
    if !(1..=64).contains(&latency) || !(1..=64).contains(&depth) {
        return Err(format!("{file}: fields `latency` / `depth`: must be within 1..=64"));
    }
    Ok(Drive {
        seed: u("seed")?,
        gap_pm: u("gap_pm")?.min(1000),
        busy_pm: u("busy_pm")?.min(1000),
        flush_at: vec![],
        stall: (s(0)?, s(1)?),
        timing: MemTiming {
            latency: latency as u32,
            depth: depth as u32,
        },
        cycles: 0,
        flip: None,
    })
}

/// Shrink a failing frame: drop primitives (halves, then one at a time) while it still fails,
/// within `budget`.
pub fn shrink(preset: &str, frame: &Frame, d: &Drive, budget: Duration) -> (Frame, String) {
    shrink_prims(frame, budget, |f| check_frame(preset, f, d).map(|_| ()))
}

/// Drop primitives of a failing `frame` (halves, then one at a time) while `check` still
/// fails, within `budget`: the smallest failing frame found and its failure. Shared by the
/// back-end and whole-frame regressions.
pub fn shrink_prims(
    frame: &Frame,
    budget: Duration,
    mut check: impl FnMut(&Frame) -> Result<(), String>,
) -> (Frame, String) {
    let t0 = Instant::now();
    let mut best = frame.clone();
    let mut why = check(&best).err().unwrap_or_default();
    let mut step = best.prims.len().div_ceil(2);
    while step >= 1 && t0.elapsed() < budget {
        let mut i = 0;
        let mut progressed = false;
        while i < best.prims.len() && t0.elapsed() < budget {
            let mut f = best.clone();
            let hi = (i + step).min(f.prims.len());
            f.prims.drain(i..hi);
            if f.prims.is_empty() {
                i += step;
                continue;
            }
            match check(&f) {
                Err(e) => {
                    best = f;
                    why = e;
                    progressed = true;
                }
                Ok(_) => i += step,
            }
        }
        if !progressed {
            if step == 1 {
                break;
            }
            step = step.div_ceil(2);
        }
    }
    (best, why)
}

/// Save a failing case: `<dir>/back_end_<preset>_s<seed>_c<chunk>.json` (the scene),
/// `.drive.json` beside it (the memory behaviour) and `.vcd` (the side-by-side window, when
/// the failure is a port mismatch). Returns the scene's path.
pub fn save_case(dir: &Path, name: &str, preset: &str, frame: &Frame, d: &Drive, why: &str) -> Result<PathBuf, String> {
    let scene = crate::regress::frame_to_scene(frame)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("{name}.json"));
    let text = serde_json::to_string_pretty(&scene).map_err(|e| e.to_string())? + "\n";
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut v = drive_to_json(d);
    v["note"] = serde_json::Value::String(why.to_string());
    let dp = dir.join(format!("{name}.drive.json"));
    std::fs::write(&dp, serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n")
        .map_err(|e| format!("{}: {e}", dp.display()))?;
    if let Err((_, w)) = check_frame_windowed(preset, frame, d) {
        if !w.cycles.is_empty() {
            write_vcd(&dir.join(format!("{name}.vcd")), preset, &w)?;
        }
    }
    Ok(path)
}

/// Run the back-end regression; `progress` sees every finished chunk (primitives, cycles).
pub fn regress(rc: &RegressCfg, mut progress: impl FnMut(u64, u64)) -> Result<RegressStats, String> {
    let cfg = Config::preset(&rc.preset).map_err(|e| e.to_string())?;
    let mut st = RegressStats::default();
    for (i, _, len) in crate::regress::chunks_of_shard(rc.count, rc.chunk, rc.shard) {
        let (frame, d) = chunk_case(&cfg, rc.seed, i, len);
        st.chunks += 1;
        st.prims += len;
        match check_frame(&rc.rtl, &frame, &d) {
            Ok((o, pixels)) => {
                st.pixels += pixels as u64;
                st.writes += o.writes;
                st.cycles += o.cycles;
                progress(len, o.cycles);
            }
            Err(e) => {
                let (small, why) = shrink(&rc.rtl, &frame, &d, rc.shrink_budget);
                let name = format!("back_end_{}_s{}_c{i}", rc.preset, rc.seed);
                let saved = save_case(&rc.out_dir, &name, &rc.rtl, &small, &d, &why)
                    .map_err(|e| eprintln!("warning: failing case not saved: {e}"))
                    .ok();
                st.failures.push((
                    i,
                    format!("{e} (shrunk to {} primitives: {why})", small.prims.len()),
                    saved,
                ));
                progress(len, 0);
                if !rc.keep_going {
                    break;
                }
            }
        }
    }
    Ok(st)
}
