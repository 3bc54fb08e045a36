//! Shared by the per-block co-simulation tests (`cosim/tests/<stage>.rs`): the kit's generator
//! ([`Rng`], from `tilerast-verif`), the random edges stimulus used by `tile_parser` and
//! `subtile_coverage`, the
//! checks every block run must pass (the stimulus really exercised gaps, stalls, junk payloads
//! and flushes), and [`Perturb`], a cycle model with one output field broken at one cycle, to
//! show that the harness catches a difference at exactly that cycle and port.

#![allow(dead_code)] // not every test file uses every helper

use tilerast_cosim::blocks::{BlockMismatch, BlockRun, BlockStim};
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::prim::TriangleFx;
use tilerast_golden::setup::{edges_for, setup_triangle};
use tilerast_golden::streams::{Cmd, Edges};
use tilerast_golden::Config;
pub use tilerast_verif::Rng;

/// A triangle command for `tile`.
pub fn tri_cmd(prim: u32, tile: [u32; 2], v: [[i32; 2]; 3]) -> Cmd {
    Cmd {
        kind: 0,
        prim,
        tile_x: tile[0],
        tile_y: tile[1],
        v,
        ..Default::default()
    }
}

/// Edges beats: golden `setup::edges_for` of random triangles in every tile their bbox touches,
/// empty beats, and a tenth with random fields (anything the ports can carry).
pub fn edges_stimulus(cfg: &Config, rng: &mut Rng, n: usize) -> Vec<Edges> {
    let mut out = Vec::new();
    let [nx, ny] = cfg.tiles();
    while out.len() < n {
        let prim = rng.below(1 << 24) as u32;
        if rng.below(10) == 0 {
            let (x0, x1) = (
                rng.below(cfg.tile[0] as u64) as u32,
                rng.below(cfg.tile[0] as u64) as u32,
            );
            let (y0, y1) = (
                rng.below(cfg.tile[1] as u64) as u32,
                rng.below(cfg.tile[1] as u64) as u32,
            );
            out.push(Edges {
                prim,
                tile_x: rng.below(256) as u32,
                tile_y: rng.below(256) as u32,
                empty: rng.below(4) == 0,
                a: [0, 1, 2].map(|_| rng.signed(24) as i32),
                b: [0, 1, 2].map(|_| rng.signed(24) as i32),
                e: [0, 1, 2].map(|_| rng.signed(48)),
                bx0: x0.min(x1),
                bx1: x0.max(x1),
                by0: y0.min(y1),
                by1: y0.max(y1),
                vis_w: rng.below(512) as u32,
                vis_h: rng.below(512) as u32,
            });
            continue;
        }
        if rng.below(8) == 0 {
            let tile = [rng.below(nx as u64) as u32, rng.below(ny as u64) as u32];
            out.push(edges_for(cfg, &tri_cmd(prim, tile, [[0, 0]; 3])));
            continue;
        }
        let cx = rng.range(0, cfg.viewport[0] as i64) * 256;
        let cy = rng.range(0, cfg.viewport[1] as i64) * 256;
        let r = (cfg.tile[0] as i64) * 256 * (1 + rng.below(2) as i64);
        let v = [0, 1, 2].map(|_| [(cx + rng.range(-r, r)) as i32, (cy + rng.range(-r, r)) as i32]);
        let Ok(t) = setup_triangle(
            cfg,
            &TriangleFx {
                v,
                colour: [0; 4],
                depth: 0,
            },
        ) else {
            continue;
        };
        let (x0, x1) = (t.bbox.x0 / cfg.tile[0], t.bbox.x1 / cfg.tile[0]);
        let (y0, y1) = (t.bbox.y0 / cfg.tile[1], t.bbox.y1 / cfg.tile[1]);
        for ty in y0..=y1 {
            for tx in x0..=x1 {
                out.push(edges_for(cfg, &tri_cmd(prim, [tx, ty], v)));
            }
        }
    }
    out
}

/// The stimulus of every block test: `cycles` cycles, two flushes (at 1/4 and 2/3), gaps, junk
/// payloads while idle, 75 % ready and long stalls.
pub fn stim(seed: u64, cycles: u64) -> BlockStim {
    BlockStim {
        seed,
        cycles,
        flush_at: vec![cycles / 4 + 1, 2 * cycles / 3],
        ..BlockStim::default()
    }
}

/// Unwrap a clean run (the mismatch is printed in full otherwise) and check that the stimulus
/// did what it promises: inputs accepted and outputs transferred, the producer waited on the
/// block and the block on its consumer, a long stall, junk payloads, and a flush that hit a busy
/// block.
pub fn clean<O>(name: &str, r: Result<BlockRun<O>, Box<BlockMismatch>>, stim: &BlockStim) -> BlockRun<O> {
    let run = r.unwrap_or_else(|m| panic!("RTL and cycle model differ:\n{m}"));
    println!(
        "{name}: {} cycles, {} accepted, {} out, waits up/down {}/{}, longest stall {}, {} junk, \
         {}/{} busy flushes, {:.2} Mcycles/s ({:.0} % in Verilator)",
        run.cycles,
        run.accepted,
        run.outputs.len(),
        run.upstream_waits,
        run.downstream_waits,
        run.longest_stall,
        run.junk_cycles,
        run.busy_flushes,
        run.flushes,
        run.cycles_per_sec / 1e6,
        100.0 * run.rtl_secs / run.secs.max(1e-9),
    );
    assert_eq!(run.cycles, stim.cycles, "{name}: cycles run");
    assert!(
        run.accepted as f64 > run.cycles as f64 / 100.0,
        "{name}: only {} accepted",
        run.accepted
    );
    assert!(!run.outputs.is_empty(), "{name}: nothing transferred");
    assert!(run.upstream_waits > 0, "{name}: the block never held the producer");
    assert!(run.downstream_waits > 0, "{name}: the consumer never held the block");
    assert!(run.longest_stall >= stim.stall_len.0, "{name}: no long stall");
    assert!(run.junk_cycles > 0, "{name}: no junk payload while idle");
    assert_eq!(run.flushes, stim.flush_at.len() as u64, "{name}: flushes");
    assert!(run.busy_flushes > 0, "{name}: no flush hit a busy block");
    run
}

/// A cycle model whose output payload is changed by `f` at cycle `at` (and only there).
pub struct Perturb<M: CycleModel> {
    pub inner: M,
    pub at: u64,
    pub f: fn(&mut M::Out),
    cycle: u64,
}

impl<M: CycleModel> Perturb<M> {
    pub fn new(inner: M, at: u64, f: fn(&mut M::Out)) -> Self {
        Perturb { inner, at, f, cycle: 0 }
    }
}

impl<M: CycleModel> CycleModel for Perturb<M> {
    type In = M::In;
    type Out = M::Out;
    fn out(&self) -> (bool, M::Out) {
        let (v, mut o) = self.inner.out();
        if self.cycle == self.at {
            (self.f)(&mut o);
        }
        (v, o)
    }
    fn in_ready(&self, out_ready: bool) -> bool {
        self.inner.in_ready(out_ready)
    }
    fn clock(&mut self, in_valid: bool, inp: &M::In, out_ready: bool, flush: bool) {
        self.inner.clock(in_valid, inp, out_ready, flush);
        self.cycle += 1;
    }
}

/// The run with a perturbed model must fail at exactly `at` on `port`, with RTL and model
/// values differing in exactly the bits `flip` (the perturbation XORs them).
pub fn expect_caught<O>(r: Result<BlockRun<O>, Box<BlockMismatch>>, at: u64, port: &str, flip: u64) {
    let m = match r {
        Ok(_) => panic!("a model broken at cycle {at} ({port}) went unnoticed"),
        Err(m) => m,
    };
    println!("caught as expected:\n{m}");
    assert_eq!((m.cycle, m.port.as_str()), (at, port), "{m}");
    assert_eq!(m.rtl ^ m.model, flip, "{m}");
    assert!(!m.model_overflow, "{m}");
    // The report names the port and shows every input of that cycle.
    let text = m.to_string();
    assert!(text.contains(&format!("cycle {at}: port {port}")), "{text}");
    assert!(text.contains("in_valid=") && text.contains("out_ready="), "{text}");
}
