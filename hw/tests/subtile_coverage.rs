//! rust-hdl simulation of the sub-tile coverage block against its cycle model
//! (`tilerast_golden::subtile_coverage::SubtileCoverageCycle`): the same random stimulus (random
//! input gaps, random `out_ready` with long stalls, a few `flush` pulses) drives both, and every
//! output port (`in_ready`, `out_valid` and every payload field) is compared on every cycle.
//! Candidates are the tile parser's walk of random triangles (via its cycle model) mixed with
//! random-field candidates; presets `ice40`, `default`, `full`, plus a viewport that clips
//! sub-tiles and the `Samples` / `BboxOnly` coverage modes. Plus Verilog emission per preset,
//! linted with `verilator --lint-only -Wall`.

mod common;

use common::Run;
use tilerast_golden::config::{Config, CoverageTest};
use tilerast_golden::cycle::drive;
use tilerast_golden::prim::TriangleFx;
use tilerast_golden::setup::setup_triangle;
use tilerast_golden::streams::{Cand, Edges};
use tilerast_golden::subtile_coverage::SubtileCoverageCycle;
use tilerast_golden::tile_parser::TileParserCycle;
use tilerast_hw::subtile_coverage::SubtileCoverage;

use tilerast_verif::{Flush, Handshake, Pattern, Rng};

/// A triangle command for `tile`; setup's beat for it is golden `setup::edges_for`.
fn tri_cmd(prim: u32, tile: [u32; 2], v: [[i32; 2]; 3]) -> tilerast_golden::streams::Cmd {
    tilerast_golden::streams::Cmd {
        kind: 0,
        prim,
        tile_x: tile[0],
        tile_y: tile[1],
        v,
        ..Default::default()
    }
}

/// Random commands: triangles near a random tile, in every tile their bbox touches, plus a few
/// empty commands.
fn stimulus(cfg: &Config, rng: &mut Rng, n: usize) -> Vec<Edges> {
    let mut out = Vec::new();
    let [nx, ny] = cfg.tiles();
    while out.len() < n {
        let prim = rng.below(1 << 24) as u32;
        if rng.below(8) == 0 {
            let tile = [rng.below(nx as u64) as u32, rng.below(ny as u64) as u32];
            out.push(tilerast_golden::setup::edges_for(
                cfg,
                &tri_cmd(prim, tile, [[0, 0]; 3]),
            ));
            continue;
        }
        let cx = rng.range(0, cfg.viewport[0] as i64) * 256;
        let cy = rng.range(0, cfg.viewport[1] as i64) * 256;
        let r = (cfg.tile[0] as i64) * 256;
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
                out.push(tilerast_golden::setup::edges_for(cfg, &tri_cmd(prim, [tx, ty], v)));
            }
        }
    }
    out
}

/// Candidates: the tile parser's walk of random commands, with a share of random-field ones.
fn candidates(cfg: &Config, rng: &mut Rng, n: usize) -> Vec<Cand> {
    let edges = stimulus(cfg, rng, n / 4 + 1);
    let mut tp = TileParserCycle::new(cfg);
    let (walk, _) = drive(
        &mut tp,
        &edges,
        |_| false,
        |_| true,
        |o: &[Cand]| o.len() >= n,
        100 * n as u64,
    );
    let mut out = Vec::new();
    for c in walk.into_iter().take(n) {
        out.push(c);
        if rng.below(6) == 0 {
            let r = |rng: &mut Rng, bits: u32| rng.range(-(1 << (bits - 1)), (1 << (bits - 1)) - 1);
            out.push(Cand {
                prim: rng.below(1 << 24) as u32,
                tile_x: rng.below(256) as u32,
                tile_y: rng.below(256) as u32,
                col: rng.below(256) as u32,
                row: rng.below(256) as u32,
                e: [0, 1, 2].map(|_| r(rng, 48)),
                a: [0, 1, 2].map(|_| r(rng, 24) as i32),
                b: [0, 1, 2].map(|_| r(rng, 24) as i32),
                vis_w: rng.below(512) as u32,
                vis_h: rng.below(512) as u32,
                last: rng.below(2) == 0,
                none: rng.below(4) == 0,
            });
        }
    }
    out
}

/// Run the block and the model side by side for `cycles` cycles; panics at a difference with
/// the cycle number and both values. 20 % input gaps, 80 % ready with stalls of 5-30 cycles, a
/// flush every ~300 cycles.
fn cosim(cfg: Config, seed: u64, cycles: u64) {
    let mut rng = Rng::new(seed);
    let inputs = candidates(&cfg, &mut rng, cycles as usize);
    let ready = Pattern::RandomStalls {
        pct: 80,
        permille: 25,
        min: 5,
        max: 30,
    };
    let hs = Handshake::new(Pattern::gaps(20), ready).with_flush(Flush::Random { permille: 3 });
    let r = Run::new(hs, seed, cycles).go(SubtileCoverage::new(&cfg), SubtileCoverageCycle::new(&cfg), inputs);
    let trivial = r.outputs().filter(|j| j.trivial).count();
    let none = r.outputs().filter(|j| j.cand.none).count();
    println!("{}: {} ({trivial} trivial, {none} none)", cfg.name, r.summary());
    r.assert_clean(&cfg.name);
    assert!(
        r.transferred > cycles / 8 && r.accepted > cycles / 4,
        "{}: too little traffic: {}",
        cfg.name,
        r.summary()
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    cosim(Config::preset("ice40").unwrap(), 0x1ce40, 3000);
}

#[test]
fn rtl_matches_cycle_model_default() {
    cosim(Config::preset("default").unwrap(), 0xdefa17, 2000);
}

#[test]
fn rtl_matches_cycle_model_full() {
    cosim(Config::preset("full").unwrap(), 0xf011, 2000);
}

/// A viewport that is not a multiple of the sub-tile (clipped sub-tiles), in all three modes.
#[test]
fn rtl_matches_cycle_model_clipped_viewport_all_modes() {
    for (i, mode) in [CoverageTest::Edge, CoverageTest::Samples, CoverageTest::BboxOnly]
        .into_iter()
        .enumerate()
    {
        let mut cfg = Config::preset("default").unwrap();
        cfg.viewport = [100, 75];
        cfg.msaa = [8, 1, 16][i];
        cfg.coverage_test = mode;
        cfg.validate().unwrap();
        cosim(cfg, 0xc11e + i as u64, 1000);
    }
}

#[test]
fn verilog_lints_clean() {
    // Every preset's Verilog of this block: ranged constants, and `verilator --lint-only -Wall`
    // clean with the project's one waiver file (hw/lint/waivers.vlt).
    for p in tilerast_golden::PRESETS {
        let cfg = tilerast_golden::Config::preset(p).unwrap();
        let top = format!("subtile_coverage_{p}");
        let v = tilerast_hw::subtile_coverage::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
