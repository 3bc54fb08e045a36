//! rust-hdl simulation of the tile parser block against its cycle model
//! (`tilerast_golden::tile_parser::TileParserCycle`): the same random stimulus (random input
//! gaps, random `out_ready` with long stalls, a few `flush` pulses) drives both, and every
//! output port (`in_ready`, `out_valid` and every payload field) is compared on every cycle.
//! Plus Verilog emission per preset, linted with `verilator --lint-only -Wall`.

mod common;

use common::Run;
use tilerast_golden::config::Config;
use tilerast_golden::prim::TriangleFx;
use tilerast_golden::setup::setup_triangle;
use tilerast_golden::streams::Edges;
use tilerast_golden::tile_parser::TileParserCycle;
use tilerast_hw::tile_parser::TileParser;

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
/// empty commands and a few with random fields.
fn stimulus(cfg: &Config, rng: &mut Rng, n: usize) -> Vec<Edges> {
    let mut out = Vec::new();
    let [nx, ny] = cfg.tiles();
    while out.len() < n {
        let prim = rng.below(1 << 24) as u32;
        if rng.below(10) == 0 {
            // Random fields (beyond what setup produces: the RTL and the model wrap alike).
            let r = |rng: &mut Rng, bits: u32| rng.range(-(1 << (bits - 1)), (1 << (bits - 1)) - 1);
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
                a: [0, 1, 2].map(|_| r(rng, 24) as i32),
                b: [0, 1, 2].map(|_| r(rng, 24) as i32),
                e: [0, 1, 2].map(|_| r(rng, 48)),
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

/// Run the block and the model side by side for `cycles` cycles; panics at a difference with
/// the cycle number and both values. 25 % input gaps, 80 % ready with stalls of 5-30 cycles, a
/// flush every ~300 cycles.
fn cosim(preset: &str, seed: u64, cycles: u64) {
    let cfg = Config::preset(preset).unwrap();
    let mut rng = Rng::new(seed);
    let inputs = stimulus(&cfg, &mut rng, 1000);
    let ready = Pattern::RandomStalls {
        pct: 80,
        permille: 25,
        min: 5,
        max: 30,
    };
    let hs = Handshake::new(Pattern::gaps(25), ready).with_flush(Flush::Random { permille: 3 });
    let r = Run::new(hs, seed, cycles).go(TileParser::new(&cfg), TileParserCycle::new(&cfg), inputs);
    println!("{preset}: {}", r.summary());
    r.assert_clean(preset);
    assert!(
        r.transferred > cycles / 4 && r.accepted > 20,
        "{preset}: too little traffic: {}",
        r.summary()
    );
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    cosim("ice40", 0x1ce40, 3000);
}

#[test]
fn rtl_matches_cycle_model_default() {
    cosim("default", 0xdefa17, 2000);
}

#[test]
fn rtl_matches_cycle_model_full() {
    cosim("full", 0xf011, 1500);
}

#[test]
fn verilog_lints_clean() {
    // Every preset's Verilog of this block: ranged constants, and `verilator --lint-only -Wall`
    // clean with the project's one waiver file (hw/lint/waivers.vlt).
    for p in tilerast_golden::PRESETS {
        let cfg = tilerast_golden::Config::preset(p).unwrap();
        let top = format!("tile_parser_{p}");
        let v = tilerast_hw::tile_parser::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
