//! The frame top (`rtl-out/tilerast_frame_<preset>.v`: bin_setup, binner, tile_sequencer,
//! raster_core, pixel_info_write, pixel_info_read, shading_sort and the pixel back end behind
//! one memory port) against its cycle model `FrameCycle`, every port on every cycle, with a
//! Rust memory model (`MemoryCycle`: read latency, response depth, random back-pressure, long
//! stalls) behind the port. Used by `cosim/tests/frame.rs`.
//!
//! ```text
//!  frames' PrimIn + Drive ─► FrameCycle ◄──► MemoryCycle   (golden side: predicts every port)
//!      │                        │ predicted outputs (a batch of BATCH cycles)
//!      ▼                        ▼
//!  in words ─► Verilator frame top ─► out words ══ compare every port, every cycle
//! ```
//!
//! As in `back_end.rs`: the memory answers the model's requests, and where the RTL's differ the
//! comparison stops at that cycle, so the memory never has to follow the RTL. Port names come
//! from the generated port table and the streams' one declaration; every port must be driven
//! or predicted exactly once. Frames run back to back: the next frame is offered from the cycle
//! after the current one's end token is taken (the top takes it once its front is free, beside
//! the frame before in its Pixel phase), and the testbench rewrites the framebuffer to the next
//! frame's background at the Done edge. A flush
//! (the memory drops its held reads at the same edge) offers the frame in flight again from its
//! first primitive, the framebuffer rewritten to its background.

use crate::back_end::{shrink_prims, write_block_vcd};
use crate::blocks::Window;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tilerast_golden::frame::{client, FrameCycle, FrameCycleStats, Watchdog};
use tilerast_golden::memory_port::{MemStats, MemTiming, SparseMemory};
use tilerast_golden::pipeline::back_end_input;
use tilerast_golden::scene::Frame;
use tilerast_golden::Config;
use tilerast_verif::lockstep::{Bench, Flushes, Lockstep};
use tilerast_verif::stim::FrameHost;
use tilerast_verif::Rng;

/// The stage name of the frame top.
pub const STAGE: &str = "frame";

/// What drives a run besides the frames.
#[derive(Clone, Debug)]
pub struct Drive {
    pub seed: u64,
    /// Per-mille chances: no primitive offered (a gap, junk on the payload), memory busy.
    pub gap_pm: u64,
    pub busy_pm: u64,
    /// Long memory stalls (`mem_req_ready` low): [from, to) each.
    pub stalls: Vec<(u64, u64)>,
    pub timing: MemTiming,
    /// Cycles at which `flush` is high.
    pub flush_at: Vec<u64>,
    /// Give up after this many cycles (`u64::MAX`: never; the [`Watchdog`] still stops a run
    /// that no longer moves).
    pub max_cycles: u64,
    /// Read the RTL's output `port` with its low bit flipped at this cycle (a test that the
    /// comparison can fail: it must report exactly that cycle and port).
    pub flip: Option<(u64, &'static str)>,
}

impl Drive {
    /// Read latency `latency` with `latency + 1` responses held, `busy_pm` ‰ random grant
    /// back-pressure, no gaps, stalls or flushes.
    pub fn new(seed: u64, latency: u32, busy_pm: u64) -> Drive {
        Drive {
            seed,
            gap_pm: 0,
            busy_pm,
            stalls: vec![],
            timing: MemTiming {
                latency,
                depth: latency + 1,
            },
            flush_at: vec![],
            max_cycles: u64::MAX,
            flip: None,
        }
    }
}

/// One frame's Done.
#[derive(Clone, Debug)]
pub struct FrameDone {
    /// The cycle in which `done_valid` was high, and `done_frame`.
    pub cycle: u64,
    pub frame_id: u8,
    /// The model's counters of the frame (the RTL equals the model on every port, so these are
    /// the RTL's transfers too).
    pub stats: FrameCycleStats,
    /// The memory in the Done cycle.
    pub memory: SparseMemory,
    /// Addresses written since the previous Done (or the start).
    pub written: BTreeSet<u32>,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub cycles: u64,
    pub frames: Vec<FrameDone>,
    pub mem_stats: MemStats,
    /// Flushes that hit a frame in flight.
    pub busy_flushes: u64,
    /// Cycles with a later frame offered and held off (the front busy with the one before).
    pub held_off: u64,
    /// Beats of a later frame taken before the frame in flight's Done (frames overlapped).
    pub overlapped: u64,
    /// Wall time, and the part of it inside Verilator.
    pub secs: f64,
    pub rtl_secs: f64,
}

/// The bench of one run (the one lock-step harness's agents): the frames' host
/// (`stim::FrameHost`: the frames back to back with `gap_pm` ‰ gaps and random junk while
/// idle, golden's memory behind the port, busy `busy_pm` ‰ of the cycles and stalled over
/// `stalls`, the framebuffer rewritten at each Done and flush) and the flushes at `flush_at`.
pub fn bench(frames: &[&Frame], d: &Drive) -> Result<Bench, String> {
    let (mut gaps, gap_pm) = (Rng::stream(d.seed, 0), d.gap_pm);
    let (mut busy, busy_pm, stalls) = (Rng::stream(d.seed, 1), d.busy_pm, d.stalls.clone());
    let host = FrameHost::new(
        frames,
        Box::new(move |_| !gaps.permille(gap_pm)),
        Rng::stream(d.seed, 2),
        d.timing,
        Box::new(move |c| !stalls.iter().any(|s| (s.0..s.1).contains(&c)) && !busy.permille(busy_pm)),
    )?;
    Ok(Bench::new()
        .with("flush", Flushes::at(d.flush_at.clone()))
        .with("host", host))
}

/// The config of a run (its first frame's).
fn first_cfg(frames: &[&Frame]) -> Result<Config, String> {
    Ok(frames.first().ok_or("no frame")?.cfg.clone())
}

/// The model's counters at each Done, in order (filled while a run steps).
pub type DoneStats = Arc<Mutex<Vec<FrameCycleStats>>>;

/// The model for the frames' config on [`bench`], and its counters at each Done (seen through
/// [`Lockstep::watching`]).
pub fn lockstep(frames: &[&Frame], d: &Drive) -> Result<(Lockstep<FrameCycle>, DoneStats), String> {
    let first = frames.first().ok_or("no frame")?;
    let model = FrameCycle::try_new(&first.cfg)?;
    let stats = Arc::new(Mutex::new(Vec::new()));
    let s = stats.clone();
    let ls = Lockstep::new(model, bench(frames, d)?).watching(move |_, m| {
        if m.done().0 {
            s.lock().unwrap().push(m.stats());
        }
    });
    Ok((ls, stats))
}

/// The stop rule of a run: every frame's Done; `Err` once nothing has moved at the top's
/// ports for longer than the [`Watchdog`] allows (the longest of `d.stalls` added), or after
/// `d.max_cycles` cycles.
fn finished(d: &Drive, cfg: &Config) -> impl FnMut(&Lockstep<FrameCycle>) -> Result<bool, String> {
    let max = d.max_cycles;
    let longest_stall = d.stalls.iter().map(|s| s.1.saturating_sub(s.0)).max().unwrap_or(0);
    let mut dog = Watchdog::new(cfg, longest_stall);
    move |ls| {
        let host = ls.bench.get::<FrameHost>("host");
        if host.finished() {
            return Ok(true);
        }
        let m = &ls.model;
        dog.check(ls.cycle, m)
            .map_err(|e| format!("frame {} in flight: {e}", host.frames_done()))?;
        if ls.cycle >= max {
            return Err(format!(
                "no Done after {} cycles: frame {} in flight, phase {:?}, pixel side {:?}, {} of {} second tiles",
                ls.cycle,
                host.frames_done(),
                m.phase(),
                m.pixel_phase(),
                m.tiles_done(),
                m.second_tiles()
            ));
        }
        Ok(false)
    }
}

/// What the run of `ls` did.
fn outcome(ls: &Lockstep<FrameCycle>, stats: &Mutex<Vec<FrameCycleStats>>, secs: f64, rtl_secs: f64) -> Outcome {
    let host = ls.bench.get::<FrameHost>("host");
    let stats = stats.lock().unwrap();
    Outcome {
        cycles: ls.cycle,
        frames: host
            .dones
            .iter()
            .zip(stats.iter())
            .map(|(h, st)| FrameDone {
                cycle: h.cycle,
                frame_id: h.frame_id,
                stats: *st,
                memory: h.memory.clone(),
                written: h.written.clone(),
            })
            .collect(),
        mem_stats: host.mem.mem.stats,
        busy_flushes: host.busy_flushes,
        held_off: host.held_off,
        overlapped: host.overlapped,
        secs,
        rtl_secs,
    }
}

/// Run the frame top verilated as `preset` and the model side by side over `frames` (back to
/// back, each with the preset's config); `Err` names the first differing cycle and every
/// differing port (or why the run could not go on).
pub fn run(preset: &str, frames: &[&Frame], d: &Drive) -> Result<Outcome, String> {
    run_windowed(preset, frames, d).map_err(|(e, _)| e)
}

/// The model side alone over `frames` with drive `d`, laid out by `preset`'s frame-top port
/// table: the input words and the predicted output words of every cycle (for a simulator other
/// than Verilator, e.g. the post-synthesis simulation), and what the run did. No RTL runs.
pub fn vectors(preset: &str, frames: &[&Frame], d: &Drive) -> Result<(Vec<u32>, Vec<u32>, Outcome), String> {
    let t0 = Instant::now();
    let (mut ls, stats) = lockstep(frames, d)?;
    let (i, e) = crate::blocks::lockstep_vectors_until(preset, &mut ls, finished(d, &first_cfg(frames)?))?;
    Ok((i, e, outcome(&ls, &stats, t0.elapsed().as_secs_f64(), 0.0)))
}

/// [`run`], and on a port mismatch the [`crate::blocks::WINDOW`] cycles up to it (for the
/// side-by-side VCD, [`write_vcd`]).
pub fn run_windowed(preset: &str, frames: &[&Frame], d: &Drive) -> Result<Outcome, (String, Window)> {
    let t0 = Instant::now();
    let (mut ls, stats) = lockstep(frames, d).map_err(|e| (e, Window::default()))?;
    let rtl_secs = crate::blocks::cosim_lockstep_until(
        preset,
        &mut ls,
        finished(d, &first_cfg(frames).map_err(|e| (e, Window::default()))?),
        d.flip,
    )
    .map_err(|f| f.into_line_window())?;
    Ok(outcome(&ls, &stats, t0.elapsed().as_secs_f64(), rtl_secs))
}

/// The window of a mismatch as a VCD: scopes `tb.in`, `tb.rtl`, `tb.golden`, `tb.diff`
/// (`back_end::write_block_vcd`).
pub fn write_vcd(path: &Path, preset: &str, w: &Window) -> Result<(), String> {
    let desc = crate::blocks::block_desc(preset, STAGE).ok_or_else(|| format!("no verilated {preset}/{STAGE}"))?;
    write_block_vcd(path, desc, "tilerast frame: RTL (Verilator) vs FrameCycle", w)
}

/// One frame through the verilated top from a memory holding its background: every port every
/// cycle ([`run_windowed`]), then the memory at Done ([`check_single`]) and the bytes of every
/// client ([`check_traffic`]). The window is empty when the failure is not a port mismatch.
pub fn check_frame_windowed(preset: &str, frame: &Frame, d: &Drive) -> Result<Outcome, (String, Window)> {
    let o = run_windowed(preset, &[frame], d)?;
    let none = |e: String| (e, Window::default());
    let fd = o
        .frames
        .first()
        .ok_or_else(|| none("the run ended without a Done".into()))?;
    check_single(frame, 0, &fd.memory).map_err(none)?;
    check_traffic(frame, fd).map_err(none)?;
    Ok(o)
}

/// [`check_frame_windowed`] without the window.
pub fn check_frame(preset: &str, frame: &Frame, d: &Drive) -> Result<Outcome, String> {
    check_frame_windowed(preset, frame, d).map_err(|(e, _)| e)
}

pub use tilerast_verif::stim::check_single;

/// The frame a regression chunk runs right after its own, so that two frames are in flight
/// (its Bin and Raster beside the chunk's Pixel phase, in the other region set): the chunk's
/// primitives in reverse order (other primitives win depth ties and blend last) over its
/// background with the bytes reversed.
pub fn in_flight_partner(frame: &Frame) -> Frame {
    let mut b = frame.clone();
    b.prims.reverse();
    b.background.reverse();
    b
}

/// `frame` and its [`in_flight_partner`] back to back through the verilated top: every port
/// every cycle ([`run`]), then frame 0's memory at its Done ([`check_single`]) and frame 1's
/// ([`check_later`]), and both frames' client bytes ([`check_traffic`]).
pub fn check_in_flight(preset: &str, frame: &Frame, d: &Drive) -> Result<Outcome, String> {
    let partner = in_flight_partner(frame);
    let o = run(preset, &[frame, &partner], d)?;
    let [a, b] = o.frames.as_slice() else {
        return Err(format!("the run ended after {} of 2 Done pulses", o.frames.len()));
    };
    check_single(frame, 0, &a.memory)
        .and_then(|()| check_traffic(frame, a))
        .map_err(|e| format!("frame 0: {e}"))?;
    check_later(&partner, 1, b)
        .and_then(|()| check_traffic(&partner, b))
        .map_err(|e| format!("frame 1 (the partner, in flight beside frame 0): {e}"))?;
    Ok(o)
}

/// A later frame of a run (frame id `fid`) at its Done: `stim::check_later` on its memory and
/// the words it wrote.
pub fn check_later(frame: &Frame, fid: u8, d: &FrameDone) -> Result<(), String> {
    tilerast_verif::stim::check_later(frame, fid, &d.memory, &d.written)
}

/// The bytes of every memory client of a frame against golden's transaction statistics:
/// bins written and read = `BinStats`; the primitive table 32 bytes per primitive written, 28
/// per command read by the sequencer; pixel info written and read = `PixelInfoStats`; the
/// framebuffer one read and one write per blend sample and golden's bytes written. (Shading's
/// colour reads, 4 bytes per (second tile, primitive) change, are held to golden by the
/// golden model's own test, `golden/tests/frame_cycle.rs`.)
pub fn check_traffic(frame: &Frame, d: &FrameDone) -> Result<(), String> {
    let st = back_end_input(frame).map_err(|e| e.to_string())?.stats;
    let c = &d.stats.clients;
    let checks = [
        ("bin bytes written", c[client::BINNER].bytes, st.bin.bytes_written),
        ("bin bytes read", c[client::SEQ_LISTS].bytes, st.bin.bytes_read),
        (
            "prim table written",
            c[client::BIN_SETUP].bytes,
            32 * frame.prims.len() as u64,
        ),
        (
            "prim table read by the sequencer",
            c[client::SEQ_PRIMS].bytes,
            28 * st.bin.entries,
        ),
        (
            "pixel info written",
            c[client::PI_WRITE].bytes,
            st.pixel_info.bytes_written,
        ),
        ("pixel info read", c[client::PI_READ].bytes, st.pixel_info.bytes_read),
        (
            "framebuffer reads (one per blended sample with `framebuffer: keep`, none with `clear`)",
            c[client::BACK_END].reads,
            match frame.cfg.framebuffer {
                tilerast_golden::FramebufferMode::Keep => st.blend.samples,
                tilerast_golden::FramebufferMode::Clear => 0,
            },
        ),
        ("framebuffer writes", c[client::BACK_END].writes, st.blend.samples),
        (
            "framebuffer bytes written",
            4 * c[client::BACK_END].writes,
            st.framebuffer_bytes,
        ),
    ];
    for (what, have, want) in checks {
        if have != want {
            return Err(format!("{what}: {have}, golden {want}"));
        }
    }
    Ok(())
}

/// The drive of a whole-frame regression chunk: read latency 1–4 with 1–4 responses held,
/// 0–50 % random back-pressure, input gaps, and half the time a memory stall of up to 3000
/// cycles.
pub fn chunk_drive(seed: u64) -> Drive {
    let mut r = Rng::new(seed);
    let latency = 1 + r.below(4) as u32;
    let from = r.below(20_000);
    Drive {
        seed,
        gap_pm: [0, 50, 300][r.index(3)],
        busy_pm: [0, 100, 250, 500][r.index(4)],
        stalls: if r.bool() {
            vec![(from, from + 1 + r.below(3_000))]
        } else {
            vec![]
        },
        timing: MemTiming {
            latency,
            depth: latency.max(1 + r.below(4) as u32),
        },
        flush_at: vec![],
        max_cycles: u64::MAX,
        flip: None,
    }
}

/// The frame and drive of whole-frame regression chunk `i` of `len` primitives: the back-end
/// regression's random frame (`back_end::chunk_case`: every primitive class, a random
/// background) and [`chunk_drive`].
pub fn chunk_case(cfg: &Config, seed: u64, i: u64, len: u64) -> (Frame, Drive) {
    let (frame, _) = crate::back_end::chunk_case(cfg, seed, i, len);
    (frame, chunk_drive(Rng::mix(seed ^ 0xf4a3e, i)))
}

/// The drive as JSON (the sidecar of a saved failing scene).
pub fn drive_to_json(d: &Drive) -> serde_json::Value {
    serde_json::json!({
        "seed": d.seed, "gap_pm": d.gap_pm, "busy_pm": d.busy_pm,
        "stalls": d.stalls.iter().map(|s| [s.0, s.1]).collect::<Vec<_>>(),
        "latency": d.timing.latency, "depth": d.timing.depth,
    })
}

/// The drive from a sidecar written by [`drive_to_json`]; errors name the file and field.
pub fn drive_from_json(v: &serde_json::Value, file: &str) -> Result<Drive, String> {
    let u = |k: &str| {
        v.get(k)
            .and_then(|x| x.as_u64())
            .ok_or_else(|| format!("{file}: field `{k}`: missing or not an unsigned integer"))
    };
    let bad = || format!("{file}: field `stalls`: not a list of [from, to]");
    let mut stalls = Vec::new();
    for s in v.get("stalls").and_then(|x| x.as_array()).ok_or_else(bad)? {
        let a = s.as_array().filter(|a| a.len() == 2).ok_or_else(bad)?;
        let (f, t) = (a[0].as_u64().ok_or_else(bad)?, a[1].as_u64().ok_or_else(bad)?);
        stalls.push((f, t));
    }
    let (latency, depth) = (u("latency")?, u("depth")?);
    if !(1..=64).contains(&latency) || !(1..=64).contains(&depth) {
        return Err(format!("{file}: fields `latency` / `depth`: must be within 1..=64"));
    }
    Ok(Drive {
        seed: u("seed")?,
        gap_pm: u("gap_pm")?.min(1000),
        busy_pm: u("busy_pm")?.min(1000),
        stalls,
        timing: MemTiming {
            latency: latency as u32,
            depth: depth as u32,
        },
        flush_at: vec![],
        max_cycles: u64::MAX,
        flip: None,
    })
}

/// Save a failing case: `<dir>/<name>.json` (the scene), `.drive.json` beside it (the memory
/// behaviour and the failure) and `.vcd` (RTL and model side by side up to the mismatch, when
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

/// One whole-frame regression run: `count` random primitives in chunks of `chunk` (each chunk
/// one frame at `preset`'s config, followed by its [`in_flight_partner`] so that two frames are
/// in flight, through the verilated top, with its own memory behaviour), shard `k` of `n`.
#[derive(Clone, Debug)]
pub struct RegressCfg {
    pub preset: String,
    pub seed: u64,
    pub count: u64,
    pub chunk: u64,
    pub shard: (u64, u64),
    pub out_dir: PathBuf,
    pub shrink_budget: Duration,
    pub keep_going: bool,
}

/// What a whole-frame regression did.
#[derive(Clone, Debug, Default)]
pub struct RegressStats {
    pub chunks: u64,
    pub prims: u64,
    pub cycles: u64,
    /// Quads the raster core handed the pixel-info writer, bytes through the memory port.
    pub quads: u64,
    pub bytes: u64,
    /// Beats of a chunk's partner frame taken before the chunk's Done (frames in flight).
    pub overlapped: u64,
    /// (chunk, failure, saved scene).
    pub failures: Vec<(u64, String, Option<PathBuf>)>,
}

/// Run the whole-frame regression; `progress` sees every finished chunk (primitives, cycles).
pub fn regress(rc: &RegressCfg, mut progress: impl FnMut(u64, u64)) -> Result<RegressStats, String> {
    let cfg = Config::preset(&rc.preset).map_err(|e| e.to_string())?;
    let mut st = RegressStats::default();
    for (i, _, len) in crate::regress::chunks_of_shard(rc.count, rc.chunk, rc.shard) {
        let (frame, d) = chunk_case(&cfg, rc.seed, i, len);
        st.chunks += 1;
        st.prims += len;
        match check_in_flight(&rc.preset, &frame, &d) {
            Ok(o) => {
                st.cycles += o.cycles;
                st.overlapped += o.overlapped;
                for f in &o.frames {
                    st.quads += f.stats.pi_write.quads;
                    st.bytes += f.stats.clients.iter().map(|c| c.bytes).sum::<u64>();
                }
                progress(len, o.cycles);
            }
            Err(e) => {
                let (small, why) = shrink_prims(&frame, rc.shrink_budget, |f| {
                    check_in_flight(&rc.preset, f, &d).map(|_| ())
                });
                let name = format!("frame_{}_s{}_c{i}", rc.preset, rc.seed);
                let saved = save_case(&rc.out_dir, &name, &rc.preset, &small, &d, &why)
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
