//! Speed of the co-simulation: `cargo bench --bench speed`.
//! Per preset: (a) full co-simulation (model + RTL + compare), (b) the RTL alone replaying the
//! same input words from Rust in batches of BATCH cycles, (c) a closed loop entirely in C++
//! (`bench_loop`: random gaps / ready, no model, no FFI per batch). Reports cycles/s and the
//! ratio (b)/(c), i.e. what driving Verilator from Rust costs.

use std::time::Instant;
use tilerast_cosim::*;
use tilerast_golden::scene::Scene;
use tilerast_golden::streams::{commands, Cmd};

fn main() {
    let scenes = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes").to_string();
    for (preset, name) in [("ice40", "mesh"), ("default", "default"), ("full", "slivers")] {
        let frame = Scene::load(std::path::Path::new(&format!("{scenes}/{name}.json")))
            .unwrap()
            .to_frame(name)
            .unwrap();
        let one = commands(&frame).unwrap();
        let mut cmds: Vec<Cmd> = Vec::new();
        while cmds.len() < 4000 {
            cmds.extend_from_slice(&one);
        }
        let stim = Stimulus {
            seed: 5,
            gap_pct: 20,
            ready: Ready::Random { pct: 80 },
            flush_at: None,
            max_cycles: 3_000_000,
        };

        // (a) co-simulation.
        let (a_cps, a_cycles, a_rtl) = match cosim_model(preset, &frame.cfg, &cmds, &stim, None) {
            Ok(s) => (s.cycles_per_sec, s.cycles, s.rtl_secs / s.secs),
            Err(m) => {
                println!("{preset}: co-simulation mismatch (RTL differs from the model), timing the rest only:\n{m}");
                (f64::NAN, 0, f64::NAN)
            }
        };

        // (b) RTL alone, replaying the model's input words from Rust.
        let mut d = Driver::new(&frame.cfg, &cmds, &stim);
        let mut inp = Vec::new();
        let mut buf_in = vec![0u32; BATCH * IN_W];
        let mut want = vec![0u32; BATCH * OUT_W];
        let mut off = vec![0usize; BATCH];
        let t = Instant::now();
        loop {
            let k = d.batch(&mut buf_in, &mut want, &mut off);
            if k == 0 {
                break;
            }
            inp.extend_from_slice(&buf_in[..k * IN_W]);
        }
        let model_cps = (inp.len() / IN_W) as f64 / t.elapsed().as_secs_f64();
        let cycles = inp.len() / IN_W;
        let mut rtl = Rtl::new(preset).unwrap();
        let mut out = vec![0u32; BATCH * OUT_W];
        let t = Instant::now();
        for chunk in inp.chunks(BATCH * IN_W) {
            rtl.run(chunk, &mut out[..chunk.len() / IN_W * OUT_W]);
        }
        let b_cps = cycles as f64 / t.elapsed().as_secs_f64();

        // (c) pure C++ loop, same number of cycles.
        let mut rtl = Rtl::new(preset).unwrap();
        let t = Instant::now();
        let quads = rtl.bench_loop(&cmds, cycles as u64, 5, 20, 80);
        let c_cps = cycles as f64 / t.elapsed().as_secs_f64();

        println!(
            "{preset:8} {name:16} {cycles:8} cycles | cosim {:6.3} M/s ({a_cycles} cycles, {:.0}% in RTL) | model alone {:6.3} M/s | RTL from Rust {:6.3} M/s | RTL C++ loop {:6.3} M/s ({quads} quads) | Rust/C++ {:.2}",
            a_cps / 1e6,
            a_rtl * 100.0,
            model_cps / 1e6,
            b_cps / 1e6,
            c_cps / 1e6,
            b_cps / c_cps
        );
    }
}
