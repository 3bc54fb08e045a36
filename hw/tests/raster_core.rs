//! raster_core (all blocks wired) in the rust-hdl simulator against `RasterCoreCycle`: the same
//! stimulus — real commands from the shipped ice40 scenes (triangles and points interleaved),
//! random input gaps, random and long output stalls, a flush in the middle — drives both, and
//! every output port must agree on every cycle. Short by design (rust-hdl's simulator is slow);
//! the long regressions run on Verilator in `cosim/`.

use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::raster_core::RasterCoreCycle;
use tilerast_golden::scene::Scene;
use tilerast_golden::streams::{commands, Beat, Cmd};
use tilerast_golden::Config;
use tilerast_hw::raster_core::RasterCore;
use tilerast_verif::{Flush, Handshake, Pattern};

fn scene_cmds(name: &str) -> (Config, Vec<Cmd>) {
    let path = format!("{}/../scenes/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let frame = Scene::load(std::path::Path::new(&path))
        .unwrap()
        .to_frame(name)
        .unwrap();
    (frame.cfg.clone(), commands(&frame).unwrap())
}

#[derive(Debug, PartialEq)]
struct Ports {
    cmd_ready: bool,
    out_valid: bool,
    beat: Beat,
}

fn ports(x: &RasterCore) -> Ports {
    Ports {
        cmd_ready: x.cmd_ready.val(),
        out_valid: x.out_valid.val(),
        beat: x.out.sample(),
    }
}

/// Returns (first mismatch, quads transferred, commands accepted).
fn run(cfg: Config, cmds: Vec<Cmd>, seed: u64, cycles: u64, flush_at: Option<u64>) -> (Option<String>, u64, usize) {
    let result = Arc::new(Mutex::new((None, 0u64, 0usize)));
    let res = result.clone();
    let mut uut = RasterCore::new(&cfg);
    uut.connect_all();
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<RasterCore>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<RasterCore>| {
        let mut x = sim.init()?;
        // 20 % input gaps; 80 % ready, stalled for the last 97 cycles of every 388.
        let ready = Pattern::Stalls {
            pct: 80,
            every: 388,
            len: 97,
        };
        let mut lines = Handshake::new(Pattern::gaps(20), ready)
            .with_flush(flush_at.map_or(Flush::Never, Flush::At))
            .lines(seed);
        let mut model = RasterCoreCycle::new(&cfg);
        let (mut next, mut quads) = (0usize, 0u64);
        wait_clock_true!(sim, clock, x);
        for cyc in 0..cycles {
            let c = lines.step();
            let in_valid = next < cmds.len() && c.valid;
            let (out_ready, flush) = (c.ready, c.flush);
            let c = if next < cmds.len() { cmds[next] } else { Cmd::default() };
            x.cmd_valid.next = in_valid;
            x.cmd.drive(&c);
            x.out_ready.next = out_ready;
            x.flush.next = flush;
            wait_clock_false!(sim, clock, x);
            let got = ports(&x);
            let (ov, ob) = model.out();
            let want = Ports {
                cmd_ready: model.in_ready(out_ready),
                out_valid: ov,
                beat: ob,
            };
            if got != want {
                *res.lock().unwrap() = (
                    Some(format!("cycle {cyc}:\n rtl   {got:?}\n model {want:?}")),
                    quads,
                    next,
                );
                return sim.done(x);
            }
            if ov && out_ready && !flush {
                quads += ob.lane_valid.count_ones() as u64;
            }
            if in_valid && want.cmd_ready && !flush {
                next += 1;
            }
            model.clock(in_valid, &c, out_ready, flush);
            wait_clock_true!(sim, clock, x);
        }
        *res.lock().unwrap() = (None, quads, next);
        sim.done(x)
    });
    sim.run(Box::new(uut), 100 * cycles * 10).unwrap();
    let r = result.lock().unwrap();
    (r.0.clone(), r.1, r.2)
}

#[test]
fn raster_core_matches_cycle_model_on_mixed_commands() {
    // Interleave triangles of the watertight mesh with points, on the ice40 preset.
    let (cfg, tris) = scene_cmds("mesh");
    let (_, pts) = scene_cmds("points");
    let mut cmds = Vec::new();
    for (i, t) in tris.iter().take(24).enumerate() {
        cmds.push(*t);
        if i % 3 == 0 {
            cmds.push(pts[i % pts.len()]);
        }
    }
    let (err, quads, accepted) = run(cfg, cmds.clone(), 0x5eed, 1200, None);
    assert!(err.is_none(), "{}", err.unwrap());
    assert!(quads > 50, "the run must emit quads ({quads})");
    assert!(accepted > 10, "the run must accept commands ({accepted})");
}

#[test]
fn flush_mid_stream_matches_cycle_model() {
    let (cfg, tris) = scene_cmds("mesh");
    let cmds: Vec<Cmd> = tris.into_iter().take(16).collect();
    let (err, quads, _) = run(cfg, cmds, 0xf1a5, 600, Some(150));
    assert!(err.is_none(), "{}", err.unwrap());
    assert!(quads > 0);
}
