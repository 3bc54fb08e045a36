//! Speed of the co-simulation: `cargo bench -p tilerast-cosim --bench speed`
//! (`TILERAST_BENCH_CYCLES=n` cycles per preset, default 1 000 000; `TILERAST_BENCH_ROUNDS=n`,
//! default 5).
//!
//! Per preset, one scene's commands repeated to about that many cycles, random gaps (20 %) and
//! downstream ready (80 %). The stimulus is recorded once from the Rust `Driver` (cycle model
//! one batch ahead, as the real harness), then the SAME input words drive two harnesses of the
//! same verilated model, alternating, best of the rounds:
//! - C++: `replay_timed`, one FFI call; a plain C++ loop (apply inputs, eval, sample outputs,
//!   rising edge, compare with the expected words) timed with `steady_clock` inside C++;
//! - Rust: `Rtl::run` in calls of `BATCH` cycles from Rust, each batch compared with the
//!   precomputed model words as `cosim_model` does; timed in Rust.
//!
//! Both must produce identical output words, equal to the model's (asserted). Also reported:
//! the whole co-simulation (`cosim_model`: model + RTL + compare), the cycle model alone (the
//! `Driver` producing the stimulus and predicted words), and quads/s of the whole co-simulation.

use std::time::Instant;
use tilerast_cosim::*;
use tilerast_golden::pipeline::commands;
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::streams::Cmd;

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Model-only run: (input words, predicted output words, seconds).
fn record(frame: &Frame, cmds: &[Cmd], stim: &Stimulus) -> (Vec<u32>, Vec<u32>, f64) {
    let mut d = Driver::new(&frame.cfg, cmds, stim);
    let (mut inp, mut want) = (Vec::new(), Vec::new());
    let (mut bi, mut bw, mut off) = (vec![0u32; BATCH * IN_W], vec![0u32; BATCH * OUT_W], vec![0usize; BATCH]);
    let t = Instant::now();
    loop {
        let k = d.batch(&mut bi, &mut bw, &mut off);
        if k == 0 {
            break;
        }
        inp.extend_from_slice(&bi[..k * IN_W]);
        want.extend_from_slice(&bw[..k * OUT_W]);
    }
    (inp, want, t.elapsed().as_secs_f64())
}

fn main() {
    let target = env_or("TILERAST_BENCH_CYCLES", 1_000_000);
    let rounds = env_or("TILERAST_BENCH_ROUNDS", 5).max(1);
    let scenes = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes");
    println!("cycles/s (M) per preset; C++ and Rust-driven replay the same recorded stimulus, best of {rounds}");
    println!(
        "| preset | scene | cycles | C++ loop | Rust-driven | Rust/C++ | cosim (model+RTL+compare) | model alone | quads/s (cosim) |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for (preset, name) in [("ice40", "mesh"), ("default", "default"), ("full", "slivers")] {
        let frame = Scene::load(std::path::Path::new(&format!("{scenes}/{name}.json")))
            .unwrap()
            .to_frame(name)
            .unwrap();
        let one = commands(&frame).unwrap();
        let stim = Stimulus {
            seed: 5,
            gap_pct: 20,
            ready: Ready::Random { pct: 80 },
            flush_at: None,
            max_cycles: u64::MAX,
        };
        // Repeat the scene's commands to about `target` cycles.
        let per_copy = record(&frame, &one, &stim).0.len() / IN_W;
        let copies = (target as usize).div_ceil(per_copy.max(1)).max(1);
        let cmds: Vec<Cmd> = (0..copies).flat_map(|_| one.iter().copied()).collect();

        // The cycle model alone (and the recorded stimulus).
        let (inp, want, model_secs) = record(&frame, &cmds, &stim);
        let cycles = inp.len() / IN_W;
        let model_cps = cycles as f64 / model_secs;

        // Alternate C++ and Rust-driven replays of the same words.
        let (mut best_c, mut best_r) = (f64::MAX, f64::MAX);
        let mut out_c = vec![0u32; cycles * OUT_W];
        let mut out_r = vec![0u32; cycles * OUT_W];
        for _ in 0..rounds {
            let mut rtl = Rtl::new(preset).unwrap();
            let r = rtl.replay_timed(&inp, &want, &mut out_c).unwrap();
            assert_eq!(
                r.first_bad,
                u64::MAX,
                "{preset}: C++ replay differs from the model at cycle {}",
                r.first_bad
            );
            best_c = best_c.min(r.nanos as f64 * 1e-9);

            let mut rtl = Rtl::new(preset).unwrap();
            let t = Instant::now();
            let mut bad = false;
            for ((i, o), w) in inp
                .chunks(BATCH * IN_W)
                .zip(out_r.chunks_mut(BATCH * OUT_W))
                .zip(want.chunks(BATCH * OUT_W))
            {
                rtl.run(i, o);
                bad |= o != w;
            }
            best_r = best_r.min(t.elapsed().as_secs_f64());
            assert!(!bad, "{preset}: Rust-driven replay differs from the model");
            assert!(out_c == out_r, "{preset}: C++ and Rust-driven outputs differ");
        }

        // The whole co-simulation, model inside (best of two).
        let mut best_s: Option<Summary> = None;
        for _ in 0..2 {
            let s = cosim_model(preset, &frame.cfg, &cmds, &stim, None)
                .unwrap_or_else(|m| panic!("{preset}: co-simulation mismatch:\n{m}"));
            assert_eq!(s.cycles as usize, cycles, "{preset}: cosim ran the recorded cycles");
            if best_s.as_ref().is_none_or(|b| s.secs < b.secs) {
                best_s = Some(s);
            }
        }
        let s = best_s.unwrap();
        let (c_cps, r_cps) = (cycles as f64 / best_c, cycles as f64 / best_r);
        println!(
            "| {preset} | {name} ×{copies} | {cycles} | {:.3} | {:.3} | {:.2} | {:.3} ({:.0} % in RTL) | {:.3} | {:.3} M |",
            c_cps / 1e6,
            r_cps / 1e6,
            r_cps / c_cps,
            s.cycles_per_sec / 1e6,
            100.0 * s.rtl_secs / s.secs,
            model_cps / 1e6,
            s.quads.len() as f64 / s.secs / 1e6,
        );
    }
}
