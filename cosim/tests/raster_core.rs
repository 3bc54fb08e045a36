//! raster_core RTL (Verilator, `rtl-out/tilerast_<preset>.v`) against `RasterCoreCycle`, port by
//! port, every cycle: shipped scenes on their presets with random gaps, back-pressure, stalls of
//! thousands of cycles and a flush mid-stream; random frames on every preset; and a mutant
//! RTL that must be caught at the exact cycle its broken bit first matters.

use proptest::prelude::*;
use std::collections::BTreeMap;
use tilerast_cosim::*;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::pipeline::{commands, raster_frame};
use tilerast_golden::point_raster::PointRasterCycle;
use tilerast_golden::prim::{quads_to_coverage, Coverage};
use tilerast_golden::quad_packer::QuadPackerCycle;
use tilerast_golden::raster_core::KIND_FIFO_DEPTH;
use tilerast_golden::reference::{self, RefStats};
use tilerast_golden::sample_raster::SampleRasterCycle;
use tilerast_golden::scene::{Frame, Scene};
use tilerast_golden::setup::SetupCycle;
use tilerast_golden::streams::{Beat, Cmd, Job};
use tilerast_golden::subtile_coverage::SubtileCoverageCycle;
use tilerast_golden::tile_parser::TileParserCycle;
use tilerast_golden::{Config, PrimitiveFx, Quad, PRESETS};
use tilerast_verif::stim::{guard_box_fx, point_at, point_sizes_fx, spread_triangle};

const SCENES: &[&str] = &["default", "points", "mesh", "large_triangles", "slivers"];

fn scene(name: &str) -> Frame {
    let path = format!("{}/../scenes/{name}.json", env!("CARGO_MANIFEST_DIR"));
    Scene::load(std::path::Path::new(&path))
        .unwrap()
        .to_frame(name)
        .unwrap()
}

/// The preset whose RTL implements this frame's config (scenes must not override RTL constants).
fn preset_of(frame: &Frame) -> &'static str {
    PRESETS
        .iter()
        .find(|p| Config::preset(p).unwrap() == frame.cfg)
        .copied()
        .expect("scene config equals one of the presets")
}

fn golden_quads(frame: &Frame) -> Vec<Quad> {
    raster_frame(frame, false)
        .unwrap()
        .quads
        .into_iter()
        .map(|t| t.quad)
        .collect()
}

/// Per-primitive coverage from the co-simulated quads equals the reference rasterizer's.
fn check_reference(frame: &Frame, quads: &[Quad]) {
    let mut per_prim: BTreeMap<u32, Vec<Quad>> = BTreeMap::new();
    for q in quads {
        per_prim.entry(q.prim).or_default().push(*q);
    }
    for (i, p) in frame.prims.iter().enumerate() {
        let want = reference::primitive(&frame.cfg, p, &mut RefStats::default());
        let got: Coverage = per_prim
            .get(&(i as u32))
            .map(|q| quads_to_coverage(q, frame.cfg.msaa).expect("quad contract"))
            .unwrap_or_default();
        assert_eq!(got, want, "primitive {i} differs from the reference");
    }
}

fn ok(r: Result<Summary, Mismatch>) -> Summary {
    match r {
        Ok(s) => s,
        Err(m) => panic!("RTL/model mismatch:\n{m}"),
    }
}

#[test]
fn shipped_scenes_match_model_golden_and_reference() {
    for name in SCENES {
        let frame = scene(name);
        let preset = preset_of(&frame);
        let cmds = commands(&frame).unwrap();
        let want = golden_quads(&frame);
        assert!(!want.is_empty());

        // Random gaps and ready regimes (incl. stalled stretches).
        let s = ok(cosim(
            preset,
            &cmds,
            &Stimulus {
                seed: 7,
                gap_pct: 20,
                ..Stimulus::default()
            },
        ));
        assert_eq!(s.lasts, cmds.len() as u64, "{name}: one last per command");
        assert!(s.quads == want, "{name}: quads differ from golden");
        check_reference(&frame, &s.quads);

        // Stalls of thousands of cycles and a flush a third of the way through.
        let stim = Stimulus {
            seed: 0xfeed,
            gap_pct: 35,
            ready: Ready::Stalls {
                pct: 70,
                every: 6000,
                len: 3500,
            },
            flush_at: Some(s.cycles / 3),
            max_cycles: 50_000_000,
        };
        let f = ok(cosim(preset, &cmds, &stim));
        assert!(f.flushed);
        assert!(f.commands > cmds.len() as u64, "{name}: the flush hit mid-stream");
        assert_eq!(f.lasts, cmds.len() as u64);
        assert!(f.quads == want, "{name}: quads differ from golden after a flush");
        eprintln!(
            "{name} ({preset}): {} cmds, {} quads, {} + {} cycles, {:.2} M cycles/s",
            cmds.len(),
            want.len(),
            s.cycles,
            f.cycles,
            (s.cycles + f.cycles) as f64 / (s.secs + f.secs) / 1e6
        );
    }
}

#[test]
fn interleaved_triangles_and_points_on_ice40() {
    let mesh = commands(&scene("mesh")).unwrap();
    let pts = commands(&scene("points")).unwrap();
    let mut cmds: Vec<Cmd> = Vec::new();
    for (i, t) in mesh.iter().enumerate() {
        cmds.push(*t);
        if i % 2 == 0 {
            cmds.push(pts[i % pts.len()]);
        }
    }
    for seed in 1..4 {
        let s = ok(cosim(
            "ice40",
            &cmds,
            &Stimulus {
                seed,
                gap_pct: 10 * seed as u32,
                ..Stimulus::default()
            },
        ));
        assert_eq!(s.lasts, cmds.len() as u64);
    }
}

/// A copy of `RasterCoreCycle`'s wiring (`golden/src/raster_core.rs`: dispatch, kind FIFO,
/// merge, ready chain) with a hook on the job entering sample_raster: the semantic twin of a
/// one-line RTL mutation inside that block. With the identity hook it must equal
/// `RasterCoreCycle` on every cycle (checked in the test), so the copy cannot drift unnoticed.
struct HookedCore {
    setup: SetupCycle,
    tile_parser: TileParserCycle,
    coverage: SubtileCoverageCycle,
    sample: SampleRasterCycle,
    point: PointRasterCycle,
    packer: QuadPackerCycle,
    kinds: u32,
    count: u32,
    hook: fn(&mut Job),
}

impl HookedCore {
    fn new(cfg: &Config, hook: fn(&mut Job)) -> Self {
        HookedCore {
            setup: SetupCycle::new(cfg),
            tile_parser: TileParserCycle::new(cfg),
            coverage: SubtileCoverageCycle::new(cfg),
            sample: SampleRasterCycle::new(cfg),
            point: PointRasterCycle::new(cfg),
            packer: QuadPackerCycle::new(cfg),
            kinds: 0,
            count: 0,
            hook,
        }
    }

    /// (merge_valid, merge_beat, packer_in_ready, sample_out_ready, point_out_ready,
    /// coverage/parser/setup out_ready, setup_in_ready, point_in_ready)
    #[allow(clippy::type_complexity)]
    fn wires(&self, out_ready: bool) -> (bool, Beat, bool, bool, bool, [bool; 3], bool, bool) {
        let (have, head_point) = (self.count > 0, self.kinds & 1 == 1);
        let packer_in_ready = self.packer.in_ready(out_ready);
        let (sv, sb) = self.sample.out();
        let (pv, pb) = self.point.out();
        let (mv, mb) = match (have, head_point) {
            (false, _) => (false, Beat::default()),
            (true, true) => (pv, pb),
            (true, false) => (sv, sb),
        };
        let sample_or = have && !head_point && packer_in_ready;
        let point_or = have && head_point && packer_in_ready;
        let cov_or = self.sample.in_ready(sample_or);
        let par_or = self.coverage.in_ready(cov_or);
        let set_or = self.tile_parser.in_ready(par_or);
        let setup_ir = self.setup.in_ready(set_or);
        let point_ir = self.point.in_ready(point_or);
        (
            mv,
            mb,
            packer_in_ready,
            sample_or,
            point_or,
            [cov_or, par_or, set_or],
            setup_ir,
            point_ir,
        )
    }

    /// Output words of this cycle (before the edge), then one edge.
    fn step(&mut self, in_valid: bool, cmd: &Cmd, out_ready: bool, flush: bool) -> [u32; OUT_W] {
        let (mv, mb, pir, sor, por, [cor, paror, setor], sir, pnir) = self.wires(out_ready);
        let room = (self.count as usize) < KIND_FIFO_DEPTH;
        let (ov, beat) = self.packer.out();
        let words = encode_out(room && sir && pnir, ov, &beat);
        let accept = in_valid && room && sir && pnir;
        let is_point = cmd.kind == 1;
        let (cv, cand) = self.tile_parser.out();
        let (jv, mut job) = self.coverage.out();
        (self.hook)(&mut job);
        let (ev, edges) = self.setup.out();
        let pop = mv && pir && mb.last;
        self.packer.clock(mv, &mb, out_ready, flush);
        self.sample.clock(jv, &job, sor, flush);
        self.coverage.clock(cv, &cand, cor, flush);
        self.tile_parser.clock(ev, &edges, paror, flush);
        self.setup.clock(accept && !is_point, cmd, setor, flush);
        self.point.clock(accept && is_point, cmd, por, flush);
        if flush {
            (self.kinds, self.count) = (0, 0);
        } else {
            if pop {
                self.kinds >>= 1;
                self.count -= 1;
            }
            if accept {
                self.kinds |= (is_point as u32) << self.count;
                self.count += 1;
            }
        }
        words
    }
}

/// Input words and the model's output words of every cycle of a run (no RTL).
fn recorded_run(cfg: &Config, cmds: &[Cmd], stim: &Stimulus) -> (Vec<u32>, Vec<u32>) {
    let mut d = Driver::new(cfg, cmds, stim);
    let (mut inp, mut want, mut off) = (vec![0; BATCH * IN_W], vec![0; BATCH * OUT_W], vec![0; BATCH]);
    let (mut all_in, mut all_out) = (Vec::new(), Vec::new());
    loop {
        let k = d.batch(&mut inp, &mut want, &mut off);
        if k == 0 {
            return (all_in, all_out);
        }
        all_in.extend_from_slice(&inp[..k * IN_W]);
        all_out.extend_from_slice(&want[..k * OUT_W]);
    }
}

/// Output words of the hooked core fed the recorded input words.
fn hooked_outputs(cfg: &Config, inp: &[u32], hook: fn(&mut Job)) -> Vec<u32> {
    let mut core = HookedCore::new(cfg, hook);
    let mut out = Vec::with_capacity(inp.len() / IN_W * OUT_W);
    for w in inp.chunks(IN_W) {
        let (v, c, r, f) = wave::decode_in(w);
        out.extend_from_slice(&core.step(v, &c, r, f));
    }
    out
}

/// The mutation `cosim/build.rs` applies to `ice40_mut`'s sample_raster block, on the model side.
fn mutation(j: &mut Job) {
    j.trivial |= j.cand.last;
}

/// Values over time of some VCD variables, parsed back with the `vcd` crate.
struct VcdTrace {
    changes: Vec<Vec<(u64, u64)>>,
    first_time: u64,
}

impl VcdTrace {
    fn read(path: &std::path::Path, vars: &[&[&str]]) -> VcdTrace {
        let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
        let mut p = vcd::Parser::new(f);
        let h = p.parse_header().unwrap();
        let ids: Vec<vcd::IdCode> = vars
            .iter()
            .map(|v| h.find_var(v).unwrap_or_else(|| panic!("{v:?} not in the VCD")).code)
            .collect();
        let mut t = (0, None);
        let mut changes = vec![Vec::new(); ids.len()];
        for c in p {
            let (id, val) = match c.unwrap() {
                vcd::Command::Timestamp(x) => {
                    t = (x, t.1.or(Some(x)));
                    continue;
                }
                vcd::Command::ChangeScalar(id, v) => (id, vec![v]),
                vcd::Command::ChangeVector(id, v) => (id, v),
                _ => continue,
            };
            if let Some(i) = ids.iter().position(|&x| x == id) {
                let n = val.iter().fold(0u64, |a, b| a << 1 | (*b == vcd::Value::V1) as u64);
                changes[i].push((t.0, n));
            }
        }
        VcdTrace {
            changes,
            first_time: t.1.unwrap(),
        }
    }
    /// Value of variable `i` at `time`.
    fn at(&self, i: usize, time: u64) -> u64 {
        self.changes[i]
            .iter()
            .rev()
            .find(|c| c.0 <= time)
            .expect("value defined")
            .1
    }
}

/// The side-by-side dump of `m` (`window` cycles before it): every cycle before the mismatch has
/// `diff.any` = 0, the mismatch cycle has it and the port's diff bit at 1 with the reported
/// values on `rtl.<port>` / `golden.<port>`; the save file opens that VCD with the marker on the
/// mismatch and the rtl / golden pair of the port on adjacent lines.
fn check_dump(vcd: &std::path::Path, gtkw: &std::path::Path, m: &Mismatch, window: u64) {
    let port = m.port.as_str();
    let tr = VcdTrace::read(
        vcd,
        &[
            &["tb", "diff", "any"],
            &["tb", "diff", port],
            &["tb", "rtl", port],
            &["tb", "golden", port],
            &["tb", "cycle"],
        ],
    );
    let from = m.cycle - window;
    assert_eq!(
        tr.first_time,
        wave::time_of(from),
        "the window starts {window} cycles before"
    );
    for c in from..m.cycle {
        let t = wave::time_of(c);
        assert_eq!(tr.at(4, t), c, "cycle counter at {t}");
        assert_eq!(tr.at(0, t), 0, "no difference before the mismatch (cycle {c})");
        assert_eq!(tr.at(1, t), 0);
    }
    let t = wave::time_of(m.cycle);
    assert_eq!((tr.at(0, t), tr.at(1, t)), (1, 1), "diff bits at the mismatch");
    assert_eq!(tr.at(2, t), m.rtl, "rtl.{port} at the mismatch");
    assert_eq!(tr.at(3, t), m.model, "golden.{port} at the mismatch");

    let g = std::fs::read_to_string(gtkw).unwrap();
    let abs = std::path::absolute(vcd).unwrap();
    assert!(g.contains(&format!("[dumpfile] \"{}\"", abs.display())), "{g}");
    let marker = g.lines().find(|l| l.starts_with('*')).and_then(|l| l.split(' ').nth(1));
    assert_eq!(marker, Some(t.to_string().as_str()), "marker at the mismatch:\n{g}");
    let w = wave::out_width(port);
    let sigs: Vec<&str> = g.lines().filter(|l| l.starts_with("tb.")).collect();
    let r = sigs
        .iter()
        .position(|l| *l == wave::gtkw_name("rtl", port, w))
        .expect("rtl signal in the save file");
    assert_eq!(
        sigs[r + 1],
        wave::gtkw_name("golden", port, w),
        "golden right after rtl"
    );
    let d = sigs
        .iter()
        .position(|l| *l == "tb.diff.any")
        .expect("diff.any in the save file");
    assert!(d < r, "the diff group comes first");
}

/// One line inside the sample_raster block of `ice40_mut` is broken (`build.rs`: the trivial
/// flag is also set for the last sub-tile of a command). The failing cycle and port are predicted
/// without the RTL, by the same change on the job entering sample_raster in a copy of the cycle
/// model; the mutant must fail exactly there, and the side-by-side VCD shows it.
#[test]
fn mutant_is_caught_at_the_expected_cycle() {
    let frame = scene("mesh");
    let cmds = commands(&frame).unwrap();
    let stim = Stimulus {
        seed: 3,
        ..Stimulus::default()
    };
    // The unmutated RTL passes this stimulus.
    ok(cosim("ice40", &cmds, &stim));
    let (inp, want) = recorded_run(&frame.cfg, &cmds, &stim);
    assert!(
        hooked_outputs(&frame.cfg, &inp, |_| {}) == want,
        "the hooked copy of raster_core equals RasterCoreCycle"
    );
    let got = hooked_outputs(&frame.cfg, &inp, mutation);
    let c = (0..want.len())
        .find(|&i| got[i] != want[i])
        .expect("the mutation changes an output")
        / OUT_W;
    let (pg, pw) = (ports(&got[c * OUT_W..][..OUT_W]), ports(&want[c * OUT_W..][..OUT_W]));
    let j = (0..pg.len()).find(|&j| pg[j].1 != pw[j].1).unwrap();

    let m = cosim_model("ice40_mut", &frame.cfg, &cmds, &stim, None).expect_err("the mutant must be caught");
    eprintln!("mutant caught: {m}");
    assert_eq!(m.cycle, c as u64, "predicted failing cycle");
    assert_eq!(m.port, pg[j].0, "predicted failing port");
    assert_eq!((m.rtl, m.model), (pg[j].1, pw[j].1), "predicted values");

    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cosim-wave");
    let (vcd, gtkw) = wave::dump_mismatch("ice40_mut", &frame.cfg, &cmds, &stim, &m, 8, &dir, "mutant").unwrap();
    check_dump(&vcd, &gtkw, &m, 8);
}

/// The same planted bug in a core verilated on demand (a config that is no preset: 2x MSAA,
/// clockwise culling), caught at the cycle and port the hooked cycle model predicts: the
/// on-demand path (`ondemand::model_from_verilog`) compares like the compiled-in models.
#[test]
fn on_demand_mutant_of_a_non_preset_config_is_caught_at_the_expected_cycle() {
    let mut frame = scene("mesh");
    frame.cfg.msaa = 2;
    frame.cfg.cull = tilerast_golden::config::CullMode::Cw;
    frame.cfg.name = "od_mut".into();
    assert!(PRESETS.iter().all(|p| Config::preset(p).unwrap() != frame.cfg));
    let cmds = commands(&frame).unwrap();
    let stim = Stimulus {
        seed: 5,
        ..Stimulus::default()
    };
    let mut log = |l: &str| eprintln!("{l}");
    let good = ondemand::model_for(&frame.cfg, "cosim/tests/raster_core.rs", &mut log).unwrap();
    let s = cosim_model(&good.model, &frame.cfg, &cmds, &stim, None).unwrap();
    assert!(!s.quads.is_empty(), "the unmutated on-demand core produces quads");
    let text = tilerast_hw::rtl_file(&frame.cfg, "cosim/tests/raster_core.rs").unwrap();
    let broken = tilerast_cosim::mutation::apply(&text, "tilerast_od_mut__sample_raster", "od_mut").unwrap();
    let bad = ondemand::model_from_verilog(&frame.cfg, &broken, &mut log).unwrap();
    assert_ne!(bad.model, good.model, "the cache key covers the Verilog");

    let (inp, want) = recorded_run(&frame.cfg, &cmds, &stim);
    let got = hooked_outputs(&frame.cfg, &inp, mutation);
    let c = (0..want.len())
        .find(|&i| got[i] != want[i])
        .expect("the mutation changes an output")
        / OUT_W;
    let (pg, pw) = (ports(&got[c * OUT_W..][..OUT_W]), ports(&want[c * OUT_W..][..OUT_W]));
    let j = (0..pg.len()).find(|&j| pg[j].1 != pw[j].1).unwrap();
    let m = cosim_model(&bad.model, &frame.cfg, &cmds, &stim, None).expect_err("the mutant must be caught");
    eprintln!("on-demand mutant caught: {m}");
    assert_eq!(
        (m.cycle, m.port.as_str()),
        (c as u64, pg[j].0.as_str()),
        "predicted cycle and port"
    );
}

/// A mismatch in a different run (points and triangles, random ready) through `cosim_dump`: the
/// dump is written next to the report and reads back consistently.
#[test]
fn side_by_side_vcd_of_a_mismatch() {
    let mut cmds = commands(&scene("points")).unwrap();
    cmds.extend(commands(&scene("mesh")).unwrap());
    let cfg = Config::preset("ice40").unwrap();
    let stim = Stimulus {
        seed: 11,
        gap_pct: 30,
        ready: Ready::Random { pct: 70 },
        ..Stimulus::default()
    };
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("cosim-wave");
    let f = wave::cosim_dump("ice40_mut", &cfg, &cmds, &stim, 20, &dir, "mixed").expect_err("mutant fails");
    eprintln!("{f}");
    let (vcd, gtkw) = f.dump.as_ref().unwrap();
    assert!(f.mismatch.cycle > 20);
    check_dump(vcd, gtkw, &f.mismatch, 20);
    // A mismatch that the re-run does not reproduce is refused.
    let mut wrong = f.mismatch.clone();
    wrong.cycle -= 1;
    assert!(
        wave::dump_mismatch("ice40_mut", &cfg, &cmds, &stim, &wrong, 4, &dir, "x")
            .unwrap_err()
            .contains("diverged")
    );
}

#[cfg(feature = "trace")]
#[test]
fn vcd_around_a_mismatch() {
    let frame = scene("mesh");
    let cmds = commands(&frame).unwrap();
    let stim = Stimulus {
        seed: 3,
        ..Stimulus::default()
    };
    let m = cosim_model("ice40_mut", &frame.cfg, &cmds, &stim, None).unwrap_err();
    let path = format!("{}/mutant.vcd", std::env::temp_dir().display());
    assert!(m.cycle > 8);
    vcd_around("ice40_mut", &frame.cfg, &cmds, &stim, &m, 5, &path).unwrap();
    let vcd = std::fs::read_to_string(&path).unwrap();
    assert!(vcd.contains("$enddefinitions"));
    assert!(
        vcd.contains(&format!("\n#{}\n", m.cycle * 10)),
        "the mismatch cycle is in the dump"
    );
    assert!(
        vcd.contains(&format!("\n#{}\n", (m.cycle - 5) * 10)),
        "the window starts 5 cycles before"
    );
    assert!(
        !vcd.contains(&format!("\n#{}\n", (m.cycle - 6) * 10)),
        "only the window is dumped"
    );
}

/// Triangles (the other vertices up to 4000/256 px away, scaled by 1, 1, 8 or 40) and points, 3 : 1.
fn prim_strategy(cfg: &Config) -> impl Strategy<Value = PrimitiveFx> {
    let (at, d, tri_cfg) = (guard_box_fx(cfg), (-4000i32..4000, -4000i32..4000), cfg.clone());
    let tri = (at.clone(), d.clone(), d, 0u8..4)
        .prop_map(move |(v0, d1, d2, size)| spread_triangle(&tri_cfg, v0, d1, d2, [1, 1, 8, 40][size as usize]));
    let pt = (at, point_sizes_fx(cfg), any::<bool>()).prop_map(|(pos, size, aa)| point_at(pos, size, aa));
    prop_oneof![3 => tri, 1 => pt]
}

fn frame_strategy(preset: &'static str) -> impl Strategy<Value = (Vec<PrimitiveFx>, u64, u32, u8)> {
    let cfg = Config::preset(preset).unwrap();
    (
        proptest::collection::vec(prim_strategy(&cfg), 1..48),
        any::<u64>(),
        0u32..60,
        0u8..3,
    )
}

fn random_frame(
    preset: &'static str,
    prims: Vec<PrimitiveFx>,
    seed: u64,
    gap: u32,
    rmode: u8,
) -> Result<(), TestCaseError> {
    let cfg = Config::preset(preset).unwrap();
    let frame = Frame {
        cfg: cfg.clone(),
        background: [0; 4],
        prims,
    };
    let cmds = commands(&frame).unwrap();
    let ready = match rmode {
        0 => Ready::Regimes { period: 256 },
        1 => Ready::Random { pct: 60 },
        _ => Ready::Stalls {
            pct: 85,
            every: 3000,
            len: 1200,
        },
    };
    let stim = Stimulus {
        seed,
        gap_pct: gap,
        ready,
        flush_at: None,
        max_cycles: 20_000_000,
    };
    let check = || -> Result<(), TestCaseError> {
        let s = cosim(preset, &cmds, &stim).map_err(|m| TestCaseError::fail(format!("{preset}: {m}")))?;
        prop_assert_eq!(s.lasts, cmds.len() as u64);
        prop_assert!(
            s.quads == golden_quads(&frame),
            "quads differ from golden on {}",
            preset
        );
        Ok(())
    };
    // On failure save the case as a scene + stimulus; proptest shrinks by re-running failing
    // cases, so the last file written is the minimal case.
    check().map_err(|e| {
        let path = format!(
            "{}/../target/regress/proptest-{preset}.json",
            env!("CARGO_MANIFEST_DIR")
        );
        let note = format!("proptest random_frames_{preset}: {e}");
        let saved = match tilerast_cosim::regress::save_case(std::path::Path::new(&path), &frame, &stim, &note) {
            Ok(stim_file) => format!(
                "case saved as {path} + {}; copy both into cosim/tests/regressions/ to keep it",
                stim_file.display()
            ),
            Err(err) => format!("could not save the case: {err}"),
        };
        TestCaseError::fail(format!("{e}\n{saved}"))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]
    #[test]
    fn random_frames_ice40((prims, seed, gap, r) in frame_strategy("ice40")) { random_frame("ice40", prims, seed, gap, r)?; }
    #[test]
    fn random_frames_default((prims, seed, gap, r) in frame_strategy("default")) { random_frame("default", prims, seed, gap, r)?; }
    #[test]
    fn random_frames_full((prims, seed, gap, r) in frame_strategy("full")) { random_frame("full", prims, seed, gap, r)?; }
}
