//! Random regression of the RTL (`tilerast regress`): a seeded primitive generator, chunked and
//! shardable runs, transaction checks against the golden model and the reference rasterizer,
//! shrinking of a failing chunk and saving it as a scene file (plus a stimulus sidecar) that
//! reproduces the failure exactly.
//!
//! ```text
//!  (seed, chunk i) ─► random_prims ─► Frame ─► commands ─► cosim_model (RTL vs cycle model,
//!        │                                                   every port, every cycle)
//!        └────────► chunk_stimulus (gaps, ready / stalls, flush)      │ Ok(Summary)
//!                                                                     ▼
//!                    quads == pipeline::raster_frame, one `last` per command,
//!                    per-primitive coverage == reference::primitive (no quad lost / twice)
//!                                                                     │ first failure
//!                                                                     ▼
//!          shrink (drop halves, quarters, … while it still fails; time-capped)
//!          ─► <out>/fail-<label>-seed<S>-chunk<i>.json (+ .stim.json, + -orig.json)
//! ```
//!
//! Determinism: chunk `i` of a run is a function of `(seed, i)` only: its primitives come from
//! [`random_prims`] drawing from `Rng::stream(seed, i)` (`tilerast-verif`: the one RNG of the
//! tree; the derivation is pinned there, so a seed keeps its primitives), its stimulus from
//! [`chunk_stimulus`] with `Rng::mix(seed, i)`. Shard `k/n`
//! (1-based) runs the chunks with `i % n == k - 1`, so the shards of a run partition it.
//!
//! Size distribution (primitives per 100 000, [`CLASSES`]); "tile" is the preset's tile side.
//! Tuned so that 10^5 primitives of the `full` preset (1080p, 16x MSAA) co-simulate in a few
//! minutes: most primitives are small, the expensive classes are rare but present in every run.
//!
//! | class      | /10^5  | shape |
//! |------------|-------:|-------|
//! | small      | 55 970 | anchor in the viewport (1 in 10 in the guard band), two vertices within ±d, d log-uniform in 1/32 … 1 tile |
//! | medium     |  4 000 | as small, d log-uniform in 1/2 … 4 tiles |
//! | sliver     |  8 000 | two vertices a viewport side × u³ apart (u uniform), third ≤ 3 px off the line |
//! | huge       |     30 | vertices anywhere in the guard band, or near three guard-band corners (covers the screen) |
//! | degenerate |  4 000 | zero area: a repeated vertex, all three equal, or three collinear vertices |
//! | snapped    | 10 000 | within ±1 tile, every vertex on a sample position, a tile / sub-tile edge, a pixel centre or corner (20 %: ±1 unit) |
//! | point      | 18 000 | size: 45 % 0–4 px, 20 % integer 0–8 (both parities), 15 % half-integer, 18 % log-uniform up to max+1, 1.5 % integer up to max+1, 0.5 % at the maximum (max·256 −1 … (max+1)·256); AA on/off 50 %; position random, in the guard band, snapped, or at a screen corner |
//!
//! Half of all triangles have their last two vertices swapped (clockwise). Stimulus per chunk
//! ([`chunk_stimulus`]): input gaps 0 % (1 in 4) or 1–60 %; downstream ready always (25 %),
//! random 30–100 % (25 %), regimes of 64–1024 cycles (35 %) or random 60–95 % with full stalls
//! of 1000–5000 cycles every 5000–25 000 cycles (15 %); a flush in the middle of the command
//! stream in 20 % of the chunks.

use crate::{cosim_model, Mismatch, Ready, Stimulus, MODELS};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tilerast_golden::pipeline::{commands, raster_frame};
use tilerast_golden::prim::{coverage_samples, quads_to_coverage, Coverage};
use tilerast_golden::reference::{self, RefStats};
use tilerast_golden::samples::offsets_fx;
use tilerast_golden::scene::{Frame, Point, Primitive, Scene, Triangle};
use tilerast_golden::{Config, PointFx, PrimitiveFx, Quad, TriangleFx};
use tilerast_verif::Rng;

/// Primitive classes of the generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    Small,
    Medium,
    Sliver,
    Huge,
    Degenerate,
    Snapped,
    Point,
}

/// Every class with its share in primitives per 100 000 (sums to [`SHARES`]); see the module doc.
pub const CLASSES: [(Class, u64); 7] = [
    (Class::Small, 55_970),
    (Class::Medium, 4_000),
    (Class::Sliver, 8_000),
    (Class::Huge, 30),
    (Class::Degenerate, 4_000),
    (Class::Snapped, 10_000),
    (Class::Point, 18_000),
];

/// Sum of the class shares.
pub const SHARES: u64 = 100_000;

impl Class {
    /// Lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Class::Small => "small",
            Class::Medium => "medium",
            Class::Sliver => "sliver",
            Class::Huge => "huge",
            Class::Degenerate => "degenerate",
            Class::Snapped => "snapped",
            Class::Point => "point",
        }
    }
    /// Index into [`CLASSES`].
    pub fn index(self) -> usize {
        CLASSES.iter().position(|c| c.0 == self).unwrap()
    }
}

/// Fixed-point geometry of a config, for the generator.
struct Geo {
    /// Viewport in 1/256 px.
    w: i64,
    h: i64,
    /// Guard-band limits (inclusive), 1/256 px.
    lo: [i64; 2],
    hi: [i64; 2],
    tile: [i64; 2],
    sub: [i64; 2],
    samples: Vec<(i32, i32)>,
    max_pt: i64,
}

impl Geo {
    fn new(cfg: &Config) -> Geo {
        let (lo, hi) = cfg.guard_limits_fx();
        Geo {
            w: cfg.viewport[0] as i64 * 256,
            h: cfg.viewport[1] as i64 * 256,
            lo: [lo[0] as i64, lo[1] as i64],
            hi: [hi[0] as i64, hi[1] as i64],
            tile: [cfg.tile[0] as i64 * 256, cfg.tile[1] as i64 * 256],
            sub: [cfg.subtile[0] as i64 * 256, cfg.subtile[1] as i64 * 256],
            samples: offsets_fx(cfg.msaa),
            max_pt: cfg.max_point_size as i64,
        }
    }
    fn clamp(&self, p: [i64; 2]) -> [i32; 2] {
        [
            p[0].clamp(self.lo[0], self.hi[0]) as i32,
            p[1].clamp(self.lo[1], self.hi[1]) as i32,
        ]
    }
    /// In the viewport, or (1 in 10) anywhere in the guard band.
    fn anchor(&self, r: &mut Rng) -> [i64; 2] {
        if r.chance(10) {
            [r.range(self.lo[0], self.hi[0]), r.range(self.lo[1], self.hi[1])]
        } else {
            [r.range(0, self.w - 1), r.range(0, self.h - 1)]
        }
    }
    /// `p` moved onto a sample position, a tile or sub-tile edge, a pixel centre or corner.
    fn snap(&self, r: &mut Rng, p: [i64; 2]) -> [i64; 2] {
        let down = |v: i64, g: i64| v.div_euclid(g) * g;
        let mut q = match r.below(5) {
            0 => {
                let (sx, sy) = self.samples[r.below(self.samples.len() as u64) as usize];
                [down(p[0], 256) + sx as i64, down(p[1], 256) + sy as i64]
            }
            1 => [down(p[0], self.tile[0]), down(p[1], self.tile[1])],
            2 => [down(p[0], self.sub[0]), down(p[1], self.sub[1])],
            3 => [down(p[0], 256) + 128, down(p[1], 256) + 128],
            _ => {
                // One axis on a tile edge, the other on a sub-tile edge.
                [down(p[0], self.tile[0]), down(p[1], self.sub[1])]
            }
        };
        if r.chance(20) {
            q[r.below(2) as usize] += r.range(-1, 1);
        }
        q
    }
}

fn tri(v: [[i32; 2]; 3], r: &mut Rng) -> PrimitiveFx {
    let mut v = v;
    if r.chance(50) {
        v.swap(1, 2);
    }
    PrimitiveFx::Triangle(TriangleFx {
        v,
        colour: [r.below(256) as u8, r.below(256) as u8, r.below(256) as u8, 255],
        depth: 0,
    })
}

/// One random primitive of a random class (see [`CLASSES`]).
pub fn random_prim(cfg: &Config, r: &mut Rng) -> (Class, PrimitiveFx) {
    let g = Geo::new(cfg);
    let mut pick = r.below(SHARES);
    let class = CLASSES
        .iter()
        .find(|(_, pm)| {
            if pick < *pm {
                true
            } else {
                pick -= pm;
                false
            }
        })
        .map(|c| c.0)
        .unwrap();
    (class, random_of(&g, class, r))
}

fn near(r: &mut Rng, p: [i64; 2], dx: i64, dy: i64) -> [i64; 2] {
    [p[0] + r.range(-dx, dx), p[1] + r.range(-dy, dy)]
}

fn random_of(g: &Geo, class: Class, r: &mut Rng) -> PrimitiveFx {
    match class {
        Class::Small | Class::Medium => {
            // Log-uniform size: 1/32 tile to a tile (small), 1/2 to 4 tiles (medium).
            let (k, octaves) = if class == Class::Small { (1.0, 5.0) } else { (4.0, 3.0) };
            let f = k * (-octaves * r.unit()).exp2();
            let (dx, dy) = ((g.tile[0] as f64 * f) as i64, (g.tile[1] as f64 * f) as i64);
            let a = g.anchor(r);
            let v = [g.clamp(a), g.clamp(near(r, a, dx, dy)), g.clamp(near(r, a, dx, dy))];
            tri(v, r)
        }
        Class::Sliver => {
            let a = g.anchor(r);
            let len = (g.w.max(g.h) as f64 * r.unit().powi(3)) as i64 + 256;
            let ang = r.unit() * std::f64::consts::TAU;
            let (c, s) = (ang.cos(), ang.sin());
            let b = [a[0] + (len as f64 * c) as i64, a[1] + (len as f64 * s) as i64];
            let t = r.unit();
            let off = r.range(-768, 768) as f64;
            let m = [
                a[0] + ((b[0] - a[0]) as f64 * t - off * s) as i64,
                a[1] + ((b[1] - a[1]) as f64 * t + off * c) as i64,
            ];
            tri([g.clamp(a), g.clamp(b), g.clamp(m)], r)
        }
        Class::Huge => {
            let v = if r.chance(50) {
                let mut v = [[0; 2]; 3];
                for p in &mut v {
                    *p = g.clamp([r.range(g.lo[0], g.hi[0]), r.range(g.lo[1], g.hi[1])]);
                }
                v
            } else {
                // Three of the four guard-band corners, pulled in by up to a tile.
                let corners = [
                    [g.lo[0], g.lo[1]],
                    [g.hi[0], g.lo[1]],
                    [g.hi[0], g.hi[1]],
                    [g.lo[0], g.hi[1]],
                ];
                let skip = r.below(4) as usize;
                let mut v = [[0; 2]; 3];
                for (j, k) in (0..4).filter(|&k| k != skip).enumerate() {
                    v[j] = g.clamp(near(r, corners[k], g.tile[0], g.tile[1]));
                }
                v
            };
            tri(v, r)
        }
        Class::Degenerate => {
            let a = g.anchor(r);
            let b = near(r, a, 2 * g.tile[0], 2 * g.tile[1]);
            let (a, b) = (g.clamp(a), g.clamp(b));
            let v = match r.below(4) {
                0 => [a, a, a],
                1 => [a, b, a],
                2 => [a, b, b],
                _ => {
                    // Collinear: a + t (b - a) for a rational t, kept only if exact and in range.
                    let d = [(b[0] - a[0]) as i64, (b[1] - a[1]) as i64];
                    let (n, q) = (r.range(-3, 3), [1, 2, 4][r.below(3) as usize]);
                    let c = [a[0] as i64 + d[0] * n / q, a[1] as i64 + d[1] * n / q];
                    let exact = (d[0] * n) % q == 0 && (d[1] * n) % q == 0;
                    if exact && g.clamp(c) == [c[0] as i32, c[1] as i32] {
                        [a, b, [c[0] as i32, c[1] as i32]]
                    } else {
                        [a, b, b]
                    }
                }
            };
            tri(v, r)
        }
        Class::Snapped => {
            let a = g.anchor(r);
            let a = g.snap(r, a);
            let (dx, dy) = (g.tile[0], g.tile[1]);
            let b = near(r, a, dx, dy);
            let b = g.snap(r, b);
            let c = near(r, a, dx, dy);
            let c = g.snap(r, c);
            tri([g.clamp(a), g.clamp(b), g.clamp(c)], r)
        }
        Class::Point => {
            let pos = match r.below(8) {
                0..=3 => [r.range(0, g.w - 1), r.range(0, g.h - 1)],
                4 => [r.range(g.lo[0], g.hi[0]), r.range(g.lo[1], g.hi[1])],
                5 | 6 => {
                    let p = [r.range(0, g.w - 1), r.range(0, g.h - 1)];
                    g.snap(r, p)
                }
                _ => {
                    // A screen corner or edge, ± a little.
                    let c = [[0, 0], [g.w, 0], [0, g.h], [g.w, g.h]][r.below(4) as usize];
                    near(r, c, 384, 384)
                }
            };
            let max = g.max_pt;
            let size = match r.below(1000) {
                0..=449 => r.range(0, 4 * 256),
                450..=649 => r.range(0, 8.min(max + 1)) * 256,
                650..=799 => r.range(0, max.min(16)) * 256 + 128,
                800..=979 => (((max + 1) * 256) as f64 * (-8.0 * r.unit()).exp2()) as i64,
                980..=994 => r.range(0, max + 1) * 256,
                _ => [
                    max * 256,
                    (max + 1) * 256,
                    max * 256 - 1,
                    max * 256 + 127,
                    max * 256 + 128,
                ][r.below(5) as usize],
            };
            PrimitiveFx::Point(PointFx {
                pos: g.clamp(pos),
                size: size.clamp(0, (max + 1) * 256) as i32,
                aa: r.chance(50),
                colour: [r.below(256) as u8, r.below(256) as u8, r.below(256) as u8, 255],
                depth: 0,
            })
        }
    }
}

/// `n` random primitives for `cfg` drawn from `r`, with their classes.
pub fn random_prims_classed(cfg: &Config, r: &mut Rng, n: usize) -> Vec<(Class, PrimitiveFx)> {
    (0..n).map(|_| random_prim(cfg, r)).collect()
}

/// `n` random primitives for `cfg` drawn from `r` (the mix of [`CLASSES`]).
pub fn random_prims(cfg: &Config, r: &mut Rng, n: usize) -> Vec<PrimitiveFx> {
    random_prims_classed(cfg, r, n).into_iter().map(|p| p.1).collect()
}

/// The stimulus of a chunk with seed `chunk_seed` and `n_cmds` commands (see the module doc).
pub fn chunk_stimulus(chunk_seed: u64, n_cmds: usize) -> Stimulus {
    // From the second output of `chunk_seed ^ K`, as regress has always drawn: a seed keeps
    // its stimulus parameters.
    let mut r = Rng::new(chunk_seed ^ 0x5717_7a1e);
    r.next_u64();
    let gap_pct = if r.chance(25) { 0 } else { r.range(1, 60) as u32 };
    let ready = match r.below(20) {
        0..=4 => Ready::Always,
        5..=9 => Ready::Random {
            pct: r.range(30, 100) as u32,
        },
        10..=16 => Ready::Regimes {
            period: r.range(64, 1024) as u64,
        },
        _ => {
            let len = r.range(1000, 5000) as u64;
            Ready::Stalls {
                pct: r.range(60, 95) as u32,
                every: len + r.range(4000, 20_000) as u64,
                len,
            }
        }
    };
    // A command takes at least a cycle, so a flush before cycle n_cmds is mid-stream.
    let flush_at = if r.chance(20) && n_cmds >= 2 {
        Some(r.range(n_cmds as i64 / 8, n_cmds as i64 - 1) as u64)
    } else {
        None
    };
    Stimulus {
        seed: r.next_u64() | 1,
        gap_pct,
        ready,
        flush_at,
        max_cycles: 200_000_000,
    }
}

/// Why a run failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// RTL and cycle model differ on a port (or the run timed out).
    Mismatch(Mismatch),
    /// A transaction check failed (quads vs golden, coverage vs reference, last beats).
    Check(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Mismatch(m) => write!(f, "RTL/model mismatch at {m}"),
            Failure::Check(s) => write!(f, "transaction check: {s}"),
        }
    }
}

impl Failure {
    /// One line: cycle, port and both values, or the check message.
    pub fn headline(&self) -> String {
        match self {
            Failure::Mismatch(m) if m.port == "<timeout>" => {
                format!("timeout at cycle {} (cmd #{} offered)", m.cycle, m.cmd_index)
            }
            Failure::Mismatch(m) => format!(
                "cycle {}: port {} rtl {:#x} model {:#x} (out prim {}, cmd #{} offered)",
                m.cycle, m.port, m.rtl, m.model, m.prim, m.cmd_index
            ),
            Failure::Check(s) => s.clone(),
        }
    }
    fn same_kind(&self, o: &Failure) -> bool {
        match (self, o) {
            (Failure::Mismatch(a), Failure::Mismatch(b)) => (a.port == "<timeout>") == (b.port == "<timeout>"),
            (Failure::Check(_), Failure::Check(_)) => true,
            _ => false,
        }
    }
}

/// What one clean chunk (or scene) did.
#[derive(Clone, Debug, Default)]
pub struct ChunkStats {
    /// Chunk index in the run (0 for a scene).
    pub index: u64,
    pub prims: u64,
    pub commands: u64,
    pub quads: u64,
    /// Covered samples (checked against the reference).
    pub samples: u64,
    pub cycles: u64,
    /// The stimulus flushed mid-stream.
    pub flushed: bool,
    pub secs: f64,
    /// Time in Verilator.
    pub rtl_secs: f64,
    /// Time in the golden model and the reference (transaction checks).
    pub check_secs: f64,
    /// Primitives per class (indexed like [`CLASSES`]).
    pub classes: [u64; 7],
}

/// The base preset of an RTL model name (`ice40_mut` → `ice40`), if the model exists.
pub fn model_preset(model: &str) -> Option<&'static str> {
    if !MODELS.contains(&model) {
        return None;
    }
    let base = model.strip_suffix("_mut").unwrap_or(model);
    tilerast_golden::PRESETS.iter().find(|p| **p == base).copied()
}

/// The config an RTL model implements: a compiled-in model's preset, or the config a model
/// verilated on demand was built from ([`crate::ondemand::model_for`]).
pub fn model_config(model: &str) -> Option<Config> {
    match model_preset(model) {
        Some(p) => Config::preset(p).ok(),
        None => crate::ondemand::loaded_config(model),
    }
}

/// The name a model's failing cases are filed under (`fail-<label>-seed…`): a compiled-in
/// model's preset, else the model's own name (`<config name>-<hash>`).
pub fn model_label(model: &str) -> String {
    model_preset(model).map_or_else(|| model.to_string(), str::to_string)
}

/// Co-simulate `frame` on the RTL `model` with `stim`, then check by transaction: one `last`
/// per command, quads equal to `pipeline::raster_frame`, per-primitive coverage equal to
/// `reference::primitive` (which also rejects empty, stray and duplicated samples).
pub fn check_frame(model: &str, frame: &Frame, stim: &Stimulus) -> Result<ChunkStats, Failure> {
    let t0 = Instant::now();
    let cmds = commands(frame).map_err(|e| Failure::Check(format!("commands: {}", e.0)))?;
    let s = cosim_model(model, &frame.cfg, &cmds, stim, None).map_err(Failure::Mismatch)?;
    let t1 = Instant::now();
    if s.lasts != cmds.len() as u64 {
        return Err(Failure::Check(format!(
            "{} `last` beats for {} commands",
            s.lasts,
            cmds.len()
        )));
    }
    let want: Vec<Quad> = raster_frame(frame, false)
        .map_err(|e| Failure::Check(format!("golden: {}", e.0)))?
        .quads
        .into_iter()
        .map(|t| t.quad)
        .collect();
    if s.quads != want {
        let i = (0..s.quads.len().min(want.len()))
            .find(|&i| s.quads[i] != want[i])
            .unwrap_or(s.quads.len().min(want.len()));
        return Err(Failure::Check(format!(
            "quads differ from golden at quad #{i} (of {} rtl, {} golden): rtl {:?} golden {:?}",
            s.quads.len(),
            want.len(),
            s.quads.get(i),
            want.get(i)
        )));
    }
    let mut per_prim: BTreeMap<u32, Vec<Quad>> = BTreeMap::new();
    for q in &s.quads {
        per_prim.entry(q.prim).or_default().push(*q);
    }
    if let Some(p) = per_prim.keys().find(|&&p| p as usize >= frame.prims.len()) {
        return Err(Failure::Check(format!(
            "quad of primitive {p}, the frame has {}",
            frame.prims.len()
        )));
    }
    let mut samples = 0;
    for (i, p) in frame.prims.iter().enumerate() {
        let want = reference::primitive(&frame.cfg, p, &mut RefStats::default());
        let got: Coverage = match per_prim.get(&(i as u32)) {
            Some(q) => quads_to_coverage(q, frame.cfg.msaa)
                .map_err(|e| Failure::Check(format!("primitive {i}: quad contract: {e:?}")))?,
            None => Coverage::new(),
        };
        if got != want {
            let px = got
                .iter()
                .chain(want.iter())
                .map(|(k, _)| *k)
                .find(|k| got.get(k) != want.get(k))
                .unwrap();
            return Err(Failure::Check(format!(
                "primitive {i}: coverage differs from the reference at pixel {px:?}: rtl {:?} reference {:?}",
                got.get(&px),
                want.get(&px)
            )));
        }
        samples += coverage_samples(&got);
    }
    Ok(ChunkStats {
        index: 0,
        prims: frame.prims.len() as u64,
        commands: cmds.len() as u64,
        quads: s.quads.len() as u64,
        samples,
        cycles: s.cycles,
        flushed: s.flushed,
        secs: t0.elapsed().as_secs_f64(),
        rtl_secs: s.rtl_secs,
        check_secs: t1.elapsed().as_secs_f64(),
        classes: [0; 7],
    })
}

/// Delta-debug `frame` (with the same stimulus): drop halves, then quarters, … of the
/// primitives while the run still fails the same way (a port mismatch, a timeout, or a
/// transaction check), until no single primitive can go or `budget` is spent. Returns the
/// smallest failing frame and its failure.
pub fn shrink(model: &str, frame: &Frame, stim: &Stimulus, fail: &Failure, budget: Duration) -> (Frame, Failure) {
    let deadline = Instant::now() + budget;
    let mut best = (frame.clone(), fail.clone());
    let mut n = 2usize;
    while best.0.prims.len() >= 2 && Instant::now() < deadline {
        let len = best.0.prims.len();
        let piece = len.div_ceil(n);
        let mut reduced = false;
        for start in (0..len).step_by(piece) {
            if Instant::now() >= deadline {
                break;
            }
            let mut cand = best.0.clone();
            cand.prims.drain(start..(start + piece).min(len));
            if cand.prims.is_empty() {
                continue;
            }
            if let Err(f) = check_frame(model, &cand, stim) {
                if f.same_kind(fail) {
                    best = (cand, f);
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if n >= len {
                break;
            }
            n = (2 * n).min(len);
        }
    }
    best
}

/// The scene file of a frame: its config as the preset it is named after (or `default`) plus
/// every field that differs from it, so a config verilated on demand round-trips too; positions
/// are exact (1/256 px is a binary fraction).
pub fn frame_to_scene(frame: &Frame) -> Result<Scene, String> {
    let cfg = &frame.cfg;
    let base_name = if Config::preset(&cfg.name).is_ok() {
        cfg.name.as_str()
    } else {
        "default"
    };
    let base = serde_json::to_value(Config::preset(base_name).map_err(|e| e.msg)?).map_err(|e| e.to_string())?;
    let mut config = serde_json::Map::new();
    config.insert("preset".into(), Value::String(base_name.into()));
    if let (Value::Object(have), Value::Object(base)) = (serde_json::to_value(cfg).map_err(|e| e.to_string())?, base) {
        for (k, v) in have {
            if k != "name" && base.get(&k) != Some(&v) {
                config.insert(k, v);
            }
        }
    }
    let fx = |v: i32| v as f64 / 256.0;
    let depth = |d: u32| d as f64 / ((1u32 << 24) - 1) as f64;
    let primitives = frame
        .prims
        .iter()
        .map(|p| match p {
            PrimitiveFx::Triangle(t) => Primitive::Triangle(Triangle {
                v: t.v.map(|v| [fx(v[0]), fx(v[1])]),
                colour: t.colour,
                depth: depth(t.depth),
            }),
            PrimitiveFx::Point(q) => Primitive::Point(Point {
                pos: [fx(q.pos[0]), fx(q.pos[1])],
                size: fx(q.size),
                colour: q.colour,
                depth: depth(q.depth),
                aa: q.aa,
            }),
        })
        .collect();
    Ok(Scene {
        config,
        background: frame.background,
        primitives,
    })
}

/// The stimulus sidecar of a scene file: `x.json` → `x.stim.json`.
pub fn stim_path(scene: &Path) -> PathBuf {
    let stem = scene
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    scene.with_file_name(format!("{stem}.stim.json"))
}

/// The stimulus as sidecar JSON.
pub fn stim_to_json(s: &Stimulus) -> Value {
    let ready = match s.ready {
        Ready::Always => json!({"kind": "always"}),
        Ready::Random { pct } => json!({"kind": "random", "pct": pct}),
        Ready::Regimes { period } => json!({"kind": "regimes", "period": period}),
        Ready::Stalls { pct, every, len } => json!({"kind": "stalls", "pct": pct, "every": every, "len": len}),
        Ready::RandomStalls {
            pct,
            permille,
            min,
            max,
        } => {
            json!({"kind": "random_stalls", "pct": pct, "permille": permille, "min": min, "max": max})
        }
        Ready::Runs { pct } => json!({"kind": "runs", "pct": pct}),
    };
    json!({
        "seed": s.seed,
        "gap_pct": s.gap_pct,
        "ready": ready,
        "flush_at": s.flush_at,
        "max_cycles": s.max_cycles,
    })
}

/// Parse sidecar JSON (`file` names it in errors). Unknown fields are errors, except `note`.
pub fn stim_from_json(v: &Value, file: &str) -> Result<Stimulus, String> {
    let err = |at: &str, msg: &str| format!("{file}: {at}: {msg}");
    let obj = v.as_object().ok_or_else(|| err("top level", "expected an object"))?;
    for k in obj.keys() {
        if !["seed", "gap_pct", "ready", "flush_at", "max_cycles", "note"].contains(&k.as_str()) {
            return Err(err(k, "unknown field"));
        }
    }
    let uint = |o: &serde_json::Map<String, Value>, k: &str, at: &str| -> Result<u64, String> {
        o.get(k)
            .ok_or_else(|| err(at, "missing"))?
            .as_u64()
            .ok_or_else(|| err(at, "expected a non-negative integer"))
    };
    let pct = |o: &serde_json::Map<String, Value>, k: &str, at: &str| -> Result<u32, String> {
        let p = uint(o, k, at)?;
        if p > 100 {
            return Err(err(at, "expected a percentage 0..=100"));
        }
        Ok(p as u32)
    };
    let r = obj
        .get("ready")
        .ok_or_else(|| err("ready", "missing"))?
        .as_object()
        .ok_or_else(|| err("ready", "expected an object"))?;
    let ready = match r.get("kind").and_then(Value::as_str) {
        Some("always") => Ready::Always,
        Some("random") => Ready::Random {
            pct: pct(r, "pct", "ready.pct")?,
        },
        Some("regimes") => Ready::Regimes {
            period: uint(r, "period", "ready.period")?.max(1),
        },
        Some("stalls") => Ready::Stalls {
            pct: pct(r, "pct", "ready.pct")?,
            every: uint(r, "every", "ready.every")?.max(1),
            len: uint(r, "len", "ready.len")?,
        },
        Some("random_stalls") => {
            let permille = uint(r, "permille", "ready.permille")?;
            let (min, max) = (uint(r, "min", "ready.min")?, uint(r, "max", "ready.max")?);
            if permille > 1000 {
                return Err(err("ready.permille", "expected a per mille value 0..=1000"));
            }
            if min > max {
                return Err(err("ready.min", "greater than ready.max"));
            }
            Ready::RandomStalls {
                pct: pct(r, "pct", "ready.pct")?,
                permille: permille as u32,
                min,
                max,
            }
        }
        Some("runs") => Ready::Runs {
            pct: pct(r, "pct", "ready.pct")?,
        },
        _ => {
            return Err(err(
                "ready.kind",
                "expected always, random, regimes, stalls, random_stalls or runs",
            ))
        }
    };
    let flush_at = match obj.get("flush_at") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| err("flush_at", "expected a cycle or null"))?),
    };
    Ok(Stimulus {
        seed: uint(obj, "seed", "seed")?,
        gap_pct: pct(obj, "gap_pct", "gap_pct")?,
        ready,
        flush_at,
        max_cycles: uint(obj, "max_cycles", "max_cycles")?,
    })
}

/// Write `frame` as a scene file at `path` and `stim` as its sidecar (`note`, e.g. the
/// failure it reproduces, goes into the sidecar). Checks that the scene loads back to the same
/// frame. Returns the sidecar's path.
pub fn save_case(path: &Path, frame: &Frame, stim: &Stimulus, note: &str) -> Result<PathBuf, String> {
    let scene = frame_to_scene(frame)?;
    let file = path.display().to_string();
    let back = scene.to_frame(&file).map_err(|e| e.to_string())?;
    if back != *frame {
        return Err(format!("{file}: the scene does not load back to the same frame"));
    }
    if let Some(d) = path.parent() {
        std::fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    let text = serde_json::to_string_pretty(&scene).map_err(|e| format!("{file}: {e}"))? + "\n";
    std::fs::write(path, text).map_err(|e| format!("{file}: {e}"))?;
    let sp = stim_path(path);
    let mut v = stim_to_json(stim);
    if !note.is_empty() {
        v["note"] = Value::String(note.to_string());
    }
    let text = serde_json::to_string_pretty(&v).map_err(|e| format!("{}: {e}", sp.display()))? + "\n";
    std::fs::write(&sp, text).map_err(|e| format!("{}: {e}", sp.display()))?;
    Ok(sp)
}

/// Load a scene file and its sidecar stimulus (`None` if there is no sidecar). Errors are one
/// line naming the file and the field.
pub fn load_case(path: &Path) -> Result<(Frame, Option<Stimulus>), String> {
    let file = path.display().to_string();
    let frame = Scene::load(path)
        .and_then(|s| s.to_frame(&file))
        .map_err(|e| e.to_string())?;
    let sp = stim_path(path);
    let stim = if sp.exists() {
        let f = sp.display().to_string();
        let text = std::fs::read_to_string(&sp).map_err(|e| format!("{f}: {e}"))?;
        let v: Value =
            serde_json::from_str(&text).map_err(|e| format!("{f}: line {} column {}: {e}", e.line(), e.column()))?;
        Some(stim_from_json(&v, &f)?)
    } else {
        None
    };
    Ok((frame, stim))
}

/// A random run.
#[derive(Clone, Debug)]
pub struct RunCfg {
    /// RTL model (see [`MODELS`], or one verilated on demand); it gives the config
    /// ([`model_config`]).
    pub model: String,
    /// Primitives in the whole (unsharded) run.
    pub count: u64,
    pub seed: u64,
    /// Primitives per chunk.
    pub chunk: u64,
    /// `(k, n)`: run chunks `i` with `i % n == k - 1`.
    pub shard: (u64, u64),
    /// Where failing cases go.
    pub out_dir: PathBuf,
    /// Time cap of shrinking one failure.
    pub shrink_budget: Duration,
    /// Continue after a failure.
    pub keep_going: bool,
}

/// A failing chunk, shrunk and saved.
#[derive(Clone, Debug)]
pub struct FailReport {
    pub chunk: u64,
    /// The failure of the shrunk case (what its scene reproduces).
    pub failure: Failure,
    /// The failure of the original chunk.
    pub original: Failure,
    pub prims: usize,
    pub shrunk_prims: usize,
    /// The shrunk case (scene; its sidecar is [`stim_path`]).
    pub scene: Option<PathBuf>,
    /// The unshrunk case.
    pub original_scene: Option<PathBuf>,
    /// A primitive named by the failure, as in the shrunk scene.
    pub prim: Option<(u32, PrimitiveFx)>,
    /// Waveform dump, or why there is none.
    pub wave: Result<(PathBuf, PathBuf), String>,
    /// Why a file could not be written.
    pub save_error: Option<String>,
}

impl fmt::Display for FailReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "chunk {}: {}", self.chunk, self.failure)?;
        if let Some((i, p)) = &self.prim {
            writeln!(f, "  primitive {i}: {p:?}")?;
        }
        writeln!(
            f,
            "  shrunk from {} to {} primitives (original: {})",
            self.prims,
            self.shrunk_prims,
            self.original.headline()
        )?;
        if let Some(s) = &self.scene {
            writeln!(f, "  scene: {} (stimulus {})", s.display(), stim_path(s).display())?;
        }
        if let Some(s) = &self.original_scene {
            writeln!(f, "  unshrunk: {}", s.display())?;
        }
        match &self.wave {
            Ok((v, g)) => writeln!(f, "  waveform: {} (gtkwave {})", v.display(), g.display())?,
            Err(e) => writeln!(f, "  no waveform: {e}")?,
        }
        if let Some(e) = &self.save_error {
            writeln!(f, "  could not save: {e}")?;
        }
        Ok(())
    }
}

/// Totals of a run.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    pub chunks: u64,
    pub prims: u64,
    pub commands: u64,
    pub quads: u64,
    pub samples: u64,
    pub cycles: u64,
    /// Chunks with a flush mid-stream.
    pub flushes: u64,
    pub secs: f64,
    pub rtl_secs: f64,
    pub check_secs: f64,
    /// Primitives per class (indexed like [`CLASSES`]).
    pub classes: [u64; 7],
    pub failures: Vec<FailReport>,
}

impl RunStats {
    /// Add a clean chunk.
    pub fn add(&mut self, c: &ChunkStats) {
        self.chunks += 1;
        self.prims += c.prims;
        self.commands += c.commands;
        self.quads += c.quads;
        self.samples += c.samples;
        self.cycles += c.cycles;
        self.flushes += c.flushed as u64;
        self.rtl_secs += c.rtl_secs;
        self.check_secs += c.check_secs;
        for (a, b) in self.classes.iter_mut().zip(c.classes) {
            *a += b;
        }
    }
}

/// The chunks of a run in this shard: `(index, first primitive, primitives)`.
pub fn shard_chunks(cfg: &RunCfg) -> impl Iterator<Item = (u64, u64, u64)> {
    chunks_of_shard(cfg.count, cfg.chunk, cfg.shard)
}

/// The chunks of `count` primitives in chunks of `chunk` (at least 1) that shard `(k, n)` runs:
/// `(index, first primitive, primitives)` for every index `i` with `i % n == k - 1`. The one
/// chunk arithmetic of every sharded regression (raster core, back end, whole frame).
pub fn chunks_of_shard(count: u64, chunk: u64, (k, n): (u64, u64)) -> impl Iterator<Item = (u64, u64, u64)> {
    let chunk = chunk.max(1);
    (0..count.div_ceil(chunk))
        .filter(move |i| i % n == k - 1)
        .map(move |i| (i, i * chunk, chunk.min(count - i * chunk)))
}

/// The frame and stimulus of chunk `i` (with `len` primitives) of a run.
pub fn chunk_case(cfg: &Config, seed: u64, i: u64, len: u64) -> (Frame, Stimulus, [u64; 7]) {
    let mut classes = [0u64; 7];
    let prims = random_prims_classed(cfg, &mut Rng::stream(seed, i), len as usize)
        .into_iter()
        .map(|(c, p)| {
            classes[c.index()] += 1;
            p
        })
        .collect();
    let frame = Frame {
        cfg: cfg.clone(),
        background: [0, 0, 0, 255],
        prims,
    };
    let n_cmds = commands(&frame).map(|c| c.len()).unwrap_or(0);
    (frame, chunk_stimulus(Rng::mix(seed, i), n_cmds), classes)
}

/// The primitive a failure points at (the output port's primitive when valid, else the one
/// offered on the command port), with its index in the frame.
pub fn failing_prim(frame: &Frame, f: &Failure) -> Option<(u32, PrimitiveFx)> {
    let i = match f {
        Failure::Mismatch(m) => {
            let valid = |w: &[u32]| w.len() == crate::OUT_W && crate::decode_out(w).1;
            let out_valid = valid(&m.model_words) || valid(&m.rtl_words);
            if out_valid {
                m.prim
            } else {
                let cmds = commands(frame).ok()?;
                cmds.get(m.cmd_index)?.prim
            }
        }
        Failure::Check(s) => {
            let rest = s.strip_prefix("primitive ")?;
            rest[..rest.find(':')?].parse().ok()?
        }
    };
    frame.prims.get(i as usize).map(|p| (i, *p))
}

/// Shrink a failing case and save both the shrunk and the original case under `out_dir` as
/// `<name>.json` / `<name>-orig.json` (each with a `.stim.json` sidecar), plus a waveform of
/// the shrunk case's mismatch.
#[allow(clippy::too_many_arguments)]
pub fn report_failure(
    model: &str,
    frame: &Frame,
    stim: &Stimulus,
    fail: Failure,
    out_dir: &Path,
    name: &str,
    chunk: u64,
    budget: Duration,
) -> FailReport {
    let (small, sf) = shrink(model, frame, stim, &fail, budget);
    let mut save_error = None;
    let mut save = |path: PathBuf, fr: &Frame, f: &Failure| match save_case(
        &path,
        fr,
        stim,
        &format!("found on model {model}: {}", f.headline()),
    ) {
        Ok(_) => Some(path),
        Err(e) => {
            save_error = Some(e);
            None
        }
    };
    let scene = save(out_dir.join(format!("{name}.json")), &small, &sf);
    let original_scene = save(out_dir.join(format!("{name}-orig.json")), frame, &fail);
    // WAVE: dump here (a VCD + GTKWave save file of the cycles before the mismatch).
    let wave = match &sf {
        Failure::Mismatch(m) => commands(&small)
            .map_err(|e| e.0)
            .and_then(|cmds| crate::wave::dump_mismatch(model, &small.cfg, &cmds, stim, m, 64, out_dir, name)),
        Failure::Check(_) => Err("a transaction check failed, not a port".into()),
    };
    FailReport {
        chunk,
        prim: failing_prim(&small, &sf),
        failure: sf,
        original: fail,
        prims: frame.prims.len(),
        shrunk_prims: small.prims.len(),
        scene,
        original_scene,
        wave,
        save_error,
    }
}

/// Run the chunks of this shard, calling `progress` after each clean chunk; stops at the first
/// failure unless `keep_going`. Failures are shrunk and saved (see [`report_failure`]).
pub fn run(cfg: &RunCfg, mut progress: impl FnMut(&ChunkStats)) -> RunStats {
    let t0 = Instant::now();
    let config = model_config(&cfg.model).unwrap_or_else(|| panic!("unknown model {}", cfg.model));
    let label = model_label(&cfg.model);
    let mut st = RunStats::default();
    for (i, _, len) in shard_chunks(cfg) {
        let (frame, stim, classes) = chunk_case(&config, cfg.seed, i, len);
        match check_frame(&cfg.model, &frame, &stim) {
            Ok(mut c) => {
                c.index = i;
                c.classes = classes;
                st.add(&c);
                progress(&c);
            }
            Err(f) => {
                let name = format!("fail-{label}-seed{}-chunk{i}", cfg.seed);
                st.failures.push(report_failure(
                    &cfg.model,
                    &frame,
                    &stim,
                    f,
                    &cfg.out_dir,
                    &name,
                    i,
                    cfg.shrink_budget,
                ));
                if !cfg.keep_going {
                    break;
                }
            }
        }
    }
    st.secs = t0.elapsed().as_secs_f64();
    st
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A failing case of a config verilated on demand is saved as its base preset plus the
    /// fields that differ, and loads back to the same config.
    #[test]
    fn a_non_preset_frame_round_trips_through_its_scene() {
        for (name, base) in [("ice40", "ice40"), ("mine", "default")] {
            let mut cfg = Config::preset("ice40").unwrap();
            cfg.msaa = 8;
            cfg.cull = tilerast_golden::config::CullMode::Cw;
            cfg.name = name.into();
            let (frame, _, _) = chunk_case(&cfg, 3, 0, 20);
            let scene = frame_to_scene(&frame).unwrap();
            assert_eq!(scene.config["preset"], base);
            assert_eq!(scene.config["msaa"], 8);
            assert!(!scene.config.contains_key("name"));
            let back = scene.to_frame("t").unwrap();
            assert_eq!(
                back.cfg,
                Config {
                    name: base.into(),
                    ..cfg
                }
            );
            assert_eq!(back.prims, frame.prims);
        }
    }

    #[test]
    fn generator_is_seeded_and_every_class_appears() {
        for p in tilerast_golden::PRESETS {
            let cfg = Config::preset(p).unwrap();
            let n_all = 100_000;
            let a = random_prims_classed(&cfg, &mut Rng::new(42), n_all as usize);
            assert_eq!(
                a,
                random_prims_classed(&cfg, &mut Rng::new(42), n_all as usize),
                "same seed, same primitives"
            );
            assert_ne!(
                random_prims(&cfg, &mut Rng::new(43), 100),
                random_prims(&cfg, &mut Rng::new(42), 100)
            );
            let mut n = [0u64; 7];
            for (c, _) in &a {
                n[c.index()] += 1;
            }
            for (k, (c, pm)) in CLASSES.iter().enumerate() {
                // Within a factor 2 of the nominal share (and at least one).
                assert!(n[k] >= 1 && n[k] * SHARES >= pm * n_all / 2, "{p}: {c:?} {}", n[k]);
            }
            // Every primitive is accepted by the front end (via the scene round trip).
            let frame = Frame {
                cfg: cfg.clone(),
                background: [0, 0, 0, 255],
                prims: a.iter().map(|x| x.1).collect(),
            };
            let back = frame_to_scene(&frame).unwrap().to_frame("gen").unwrap();
            assert!(back == frame);
            let tris = || {
                a.iter().filter_map(|x| match x.1 {
                    PrimitiveFx::Triangle(t) => Some(t),
                    _ => None,
                })
            };
            let area = |t: &TriangleFx| {
                let v = t.v.map(|v| [v[0] as i64, v[1] as i64]);
                (v[1][0] - v[0][0]) * (v[2][1] - v[0][1]) - (v[2][0] - v[0][0]) * (v[1][1] - v[0][1])
            };
            assert!(tris().filter(|t| area(t) < 0).count() > 1000, "clockwise triangles");
            assert!(tris().filter(|t| area(t) == 0).count() > 200, "degenerate triangles");
            let pts: Vec<PointFx> = a
                .iter()
                .filter_map(|x| match x.1 {
                    PrimitiveFx::Point(q) => Some(q),
                    _ => None,
                })
                .collect();
            let max = cfg.max_point_size as i32 * 256;
            assert!(pts.iter().any(|q| q.size >= max), "{p}: maximum point size");
            assert!(pts.iter().any(|q| q.aa) && pts.iter().any(|q| !q.aa));
            for parity in 0..2 {
                assert!(pts
                    .iter()
                    .any(|q| q.size % 256 == 0 && (q.size / 256) % 2 == parity && q.size > 0));
            }
            // Vertices on tile edges and on sample positions.
            let t = cfg.tile[0] as i32 * 256;
            assert!(tris().any(|tr| tr.v.iter().all(|v| v[0] % t == 0)));
            let offs = offsets_fx(cfg.msaa);
            let s = offs[1.min(offs.len() - 1)]; // 1x: the pixel centre

            assert!(tris().any(|tr| tr
                .v
                .iter()
                .any(|v| v[0].rem_euclid(256) == s.0 && v[1].rem_euclid(256) == s.1)));
        }
    }

    /// A seed keeps its primitives and stimulus parameters: chunk 0 of seed 1 on ice40, as the
    /// generator has produced it since regress was written (recorded before the RNG moved to
    /// `tilerast-verif`, and unchanged by the move).
    #[test]
    fn chunk_seeds_keep_their_primitives() {
        let (frame, stim, _) = chunk_case(&Config::preset("ice40").unwrap(), 1, 0, 3);
        let tri = |v: [[i32; 2]; 3], c: [u8; 3]| {
            PrimitiveFx::Triangle(TriangleFx {
                v,
                colour: [c[0], c[1], c[2], 255],
                depth: 0,
            })
        };
        assert_eq!(
            frame.prims,
            [
                tri([[20780, 15058], [9315, 24534], [-6238, 38542]], [79, 86, 176]),
                tri([[19464, 17111], [19093, 16841], [19182, 17308]], [36, 211, 133]),
                tri([[17050, 30545], [16585, 29904], [16037, 31354]], [22, 223, 147]),
            ]
        );
        assert_eq!(
            (stim.seed, stim.gap_pct, stim.ready),
            (8616946450499930857, 57, Ready::Always)
        );
    }

    #[test]
    fn shards_partition_the_chunks() {
        let mut cfg = RunCfg {
            model: "ice40".into(),
            count: 10_500,
            seed: 1,
            chunk: 1000,
            shard: (1, 1),
            out_dir: PathBuf::new(),
            shrink_budget: Duration::ZERO,
            keep_going: false,
        };
        let all: Vec<_> = shard_chunks(&cfg).collect();
        assert_eq!(all.len(), 11);
        assert_eq!(all.iter().map(|c| c.2).sum::<u64>(), 10_500);
        let mut union = Vec::new();
        for k in 1..=3 {
            cfg.shard = (k, 3);
            union.extend(shard_chunks(&cfg));
        }
        union.sort();
        assert_eq!(union, all);
    }

    #[test]
    fn stimulus_sidecar_round_trips() {
        for i in 0..64 {
            let s = chunk_stimulus(Rng::mix(9, i), 500);
            let back = stim_from_json(&stim_to_json(&s), "x").unwrap();
            assert_eq!(format!("{back:?}"), format!("{s:?}"));
        }
        // Every ready pattern of the verification kit has a sidecar form.
        for ready in [
            Ready::Always,
            Ready::Random { pct: 40 },
            Ready::Regimes { period: 300 },
            Ready::Stalls {
                pct: 70,
                every: 6000,
                len: 3500,
            },
            Ready::RandomStalls {
                pct: 75,
                permille: 4,
                min: 20,
                max: 600,
            },
            Ready::Runs { pct: 65 },
        ] {
            let s = Stimulus {
                ready,
                ..Stimulus::default()
            };
            let back = stim_from_json(&stim_to_json(&s), "x").unwrap();
            assert_eq!(back.ready, ready);
        }
        let e = stim_from_json(&json!({"seed": 1, "gap_pct": 200}), "f.stim.json").unwrap_err();
        assert!(e.starts_with("f.stim.json: "), "{e}");
        let e = stim_from_json(
            &json!({"seed": 1, "gap_pct": 2, "ready": {"kind": "x"}, "max_cycles": 5}),
            "f",
        )
        .unwrap_err();
        assert!(e.contains("ready.kind"), "{e}");
    }
}
