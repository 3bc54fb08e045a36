//! Shared by the tile parser's and the sub-tile coverage stage's cycle-model tests
//! (`tile_parser_cycle.rs`, `subtile_coverage_cycle.rs`): their configurations, their handshake
//! stimulus, the candidate fields a command carries over from its `Edges` beat, and the flush
//! case's triangle.

use tilerast_golden::config::Config;
use tilerast_golden::setup::{setup_triangle, TriSetup};
use tilerast_golden::streams::{Cand, Edges};
use tilerast_golden::TriangleFx;
use tilerast_verif::stim::edges_by_hand;
use tilerast_verif::{Pattern, Rng};

/// The presets `ice40`, `default`, `full`, plus two odd configurations: a viewport that clips
/// sub-tiles (100 × 75), and non-square tiles (32 × 16, 4 × 4 sub-tiles, 50 × 37 viewport).
pub fn configs() -> Vec<Config> {
    let mut v: Vec<Config> = ["ice40", "default", "full"]
        .iter()
        .map(|p| Config::preset(p).unwrap())
        .collect();
    let mut odd = Config::preset("default").unwrap();
    odd.viewport = [100, 75];
    odd.guard_band = 64;
    v.push(odd);
    let mut odd2 = Config::preset("default").unwrap();
    odd2.viewport = [50, 37];
    odd2.guard_band = 40;
    odd2.tile = [32, 16];
    odd2.subtile = [4, 4];
    odd2.colour_block_bytes = 64;
    odd2.validate().unwrap();
    v.push(odd2);
    v
}

/// A ready pattern: mostly random, with stalls of 5..=40 cycles now and then.
pub fn ready_pattern(seed: u64, p_ready: u64) -> impl FnMut(u64) -> bool {
    let stalls = Pattern::RandomStalls {
        pct: p_ready as u32,
        permille: 33,
        min: 5,
        max: 40,
    };
    let mut line = stalls.line(Rng::stream(seed, 1));
    move |_| line.step()
}

/// Input gaps: true (no offer) with probability `p_gap` %.
pub fn gap_pattern(seed: u64, p_gap: u64) -> impl FnMut(u64) -> bool {
    let mut line = Pattern::gaps(p_gap as u32).line(Rng::stream(seed, 0));
    move |_| !line.step()
}

/// What every candidate of command `e` carries over from it: primitive, tile, edge slopes and
/// visible tile size (the rest default).
pub fn cand_base(e: &Edges) -> Cand {
    Cand {
        prim: e.prim,
        tile_x: e.tile_x,
        tile_y: e.tile_y,
        a: e.a,
        b: e.b,
        vis_w: e.vis_w,
        vis_h: e.vis_h,
        ..Default::default()
    }
}

/// The flush tests' case on the `default` preset: a large triangle over tile (0, 0) (many
/// sub-tiles to walk) and its command, primitive 9.
pub fn flush_case(cfg: &Config) -> (TriSetup, Edges) {
    let tri = setup_triangle(
        cfg,
        &TriangleFx {
            v: [[100, 100], [20000, 300], [900, 15000]],
            colour: [0; 4],
            depth: 0,
        },
    )
    .unwrap();
    let cmd = edges_by_hand(cfg, &tri, 9, [0, 0]);
    (tri, cmd)
}
