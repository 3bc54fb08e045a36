//! bin_setup's cycle model (`BinSetupCycle`, layer 3) against golden's transaction level: per
//! frame, the boxes must be `prims.enumerate().filter_map(binner::prim_bbox)` then the end
//! token, and the table writes, replayed on an empty memory, `prim_table::table(prims)` byte
//! for byte (every word written exactly once). Random frames from the verification kit
//! (`stim::bin_setup_frame`) and the shipped scenes, on ice40, default and full with every cull
//! mode, under input gaps, per-output back-pressure, stalls of thousands of cycles, flushes
//! mid-frame and frames back to back. Plus the box arithmetic alone against golden's i64
//! setup, the timing contract at exact cycles, bad input, and a broken model caught.

use std::path::Path;
use tilerast_golden::bin_setup::{
    area_sign, box_of, frame_beats, prim_in, BinSetupCycle, BinSetupIn, BinSetupParams, BoxVerdict,
};
use tilerast_golden::binner::prim_bbox;
use tilerast_golden::cycle::Offer;
use tilerast_golden::prim::{PointFx, PrimitiveFx, TriangleFx};
use tilerast_golden::prim_table::table;
use tilerast_golden::setup::signed_area2;
use tilerast_golden::streams::{BinBox, MemReq, PrimIn};
use tilerast_golden::{Config, CullMode, Scene};
use tilerast_verif::stim::{bin_setup_boxes, bin_setup_frame};
use tilerast_verif::{Pattern, Rng};

/// Replay a frame's writes on an empty memory and compare with `prim_table::table`.
fn check_memory(prims: &[PrimitiveFx], writes: &[MemReq], what: &str) {
    let want = table(prims).unwrap();
    assert_eq!(writes.len(), want.len() / 4, "{what}: writes");
    let mut mem = vec![0u8; want.len()];
    let mut seen = vec![false; want.len() / 4];
    for w in writes {
        assert!(w.write && w.be == 0xf && w.addr.is_multiple_of(4), "{what}: {w:?}");
        let a = w.addr as usize;
        assert!(a + 4 <= mem.len(), "{what}: write beyond the table at {a:#x}");
        assert!(!seen[a / 4], "{what}: word {a:#x} written twice");
        seen[a / 4] = true;
        mem[a..a + 4].copy_from_slice(&w.wdata.to_le_bytes());
    }
    assert!(mem == want, "{what}: table bytes differ");
}

#[derive(Default, Debug)]
struct Totals {
    cycles: u64,
    frames: u64,
    boxes: u64,
    writes: u64,
    flushes: u64,
    out_stalled: u64,
    wr_stalled: u64,
    longest_out_stall: u64,
    longest_wr_stall: u64,
}

/// Drive `m` with `frames` back to back under the patterns (valid, out ready, wr ready);
/// a flush at a cycle of `flush_at` restarts the frame in flight from its first primitive.
/// Checks every finished frame, and every cycle: a stalled output holds valid and payload,
/// `in_ready` is the contract's.
#[allow(clippy::too_many_arguments)]
fn run(
    cfg: &Config,
    m: &mut BinSetupCycle,
    frames: &[Vec<PrimitiveFx>],
    seed: u64,
    valid: Pattern,
    out_ready: Pattern,
    wr_ready: Pattern,
    flush_at: &[u64],
) -> Totals {
    let inputs: Vec<Vec<PrimIn>> = frames.iter().map(|f| frame_beats(f, [0; 4]).unwrap()).collect();
    let mut vl = valid.line(Rng::stream(seed, 0));
    let mut ol = out_ready.line(Rng::stream(seed, 1));
    let mut wl = wr_ready.line(Rng::stream(seed, 2));
    let mut t = Totals::default();
    let (mut fin, mut bi) = (0usize, 0usize);
    let mut cur = 0usize;
    let (mut boxes, mut writes) = (Vec::new(), Vec::new());
    let (mut os, mut ws) = (0u64, 0u64);
    while cur < frames.len() {
        let c = t.cycles;
        assert!(c < 50_000_000, "no progress");
        let flush = flush_at.contains(&c);
        let have = fin < inputs.len();
        let (v, or, wr) = (have && vl.step(), ol.step(), wl.step());
        let inp = if have { inputs[fin][bi] } else { PrimIn::default() };
        let (ov, ob) = m.out();
        let (wv, wq) = m.wr();
        let ready = m.in_ready(or);
        if flush {
            t.flushes += 1;
            boxes.clear();
            writes.clear();
            fin = cur;
            bi = 0;
        } else {
            if wv && wr {
                writes.push(wq);
            }
            if ov && or {
                boxes.push(ob);
                if ob.end {
                    let what = format!("seed {seed} frame {cur}");
                    assert_eq!(boxes, bin_setup_boxes(cfg, &frames[cur]), "{what}: boxes");
                    check_memory(&frames[cur], &writes, &what);
                    t.boxes += boxes.len() as u64 - 1;
                    t.writes += writes.len() as u64;
                    t.frames += 1;
                    boxes.clear();
                    writes.clear();
                    cur += 1;
                }
            }
            os = if ov && !or { os + 1 } else { 0 };
            ws = if wv && !wr { ws + 1 } else { 0 };
            t.longest_out_stall = t.longest_out_stall.max(os);
            t.longest_wr_stall = t.longest_wr_stall.max(ws);
            t.out_stalled += (ov && !or) as u64;
            t.wr_stalled += (wv && !wr) as u64;
            if v && ready {
                bi += 1;
                if bi == inputs[fin].len() {
                    fin += 1;
                    bi = 0;
                }
            }
        }
        clock(m, v, &inp, or, wr, flush);
        if !flush {
            if ov && !or {
                assert_eq!(m.out(), (ov, ob), "cycle {c}: box moved while stalled");
            }
            if wv && !wr {
                assert_eq!(m.wr(), (wv, wq), "cycle {c}: write moved while stalled");
            }
        } else {
            assert_eq!(
                (m.out(), m.wr(), m.index()),
                ((false, BinBox::default()), (false, MemReq::default()), 0)
            );
        }
        t.cycles += 1;
    }
    t
}

fn cfg_with(preset: &str, cull: CullMode) -> Config {
    let mut c = Config::preset(preset).unwrap();
    c.cull = cull;
    c
}

#[test]
fn box_arithmetic_equals_golden_setup_and_point_raster() {
    // Activity: verdicts, and boxes clipped at each viewport edge.
    let mut seen = [0u64; 5];
    let mut clipped = [0u64; 4];
    let (mut pts_aa, mut pts) = (0u64, 0u64);
    for preset in ["ice40", "default", "full", "ice40_1x"] {
        for cull in [CullMode::None, CullMode::Cw, CullMode::Ccw] {
            let cfg = cfg_with(preset, cull);
            let pr = BinSetupParams::try_new(&cfg).unwrap();
            for seed in 0..6 {
                for p in bin_setup_frame(&cfg, seed * 7 + cull as u64, 4000) {
                    let b = prim_in(&p).unwrap();
                    let got = box_of(&pr, &b);
                    let want = prim_bbox(&cfg, &p);
                    match got {
                        BoxVerdict::Box(x) => assert_eq!(Some(x), want, "{preset} {p:?}"),
                        _ => assert_eq!(want, None, "{preset} {p:?}: {got:?}"),
                    }
                    if let PrimitiveFx::Triangle(t) = &p {
                        let a = signed_area2(&t.v);
                        assert_eq!(area_sign(&t.v), (a == 0, a < 0), "{:?}", t.v);
                    }
                    seen[match got {
                        BoxVerdict::Box(_) => 0,
                        BoxVerdict::ZeroArea => 1,
                        BoxVerdict::Culled => 2,
                        BoxVerdict::NoSize => 3,
                        BoxVerdict::Offscreen => 4,
                    }] += 1;
                    if let (BoxVerdict::Box(x), PrimitiveFx::Point(q)) = (got, &p) {
                        if q.aa {
                            pts_aa += 1;
                        } else {
                            pts += 1;
                        }
                        let _ = x;
                    }
                    if let BoxVerdict::Box(x) = got {
                        // Clipped iff the unclipped pixel range crosses the edge.
                        let (lo, hi) = match p {
                            PrimitiveFx::Triangle(t) => {
                                let c = |k: usize| t.v.iter().map(move |v| v[k] >> 8);
                                (
                                    [c(0).min().unwrap(), c(1).min().unwrap()],
                                    [c(0).max().unwrap(), c(1).max().unwrap()],
                                )
                            }
                            PrimitiveFx::Point(q) => {
                                let su = tilerast_golden::point_raster::point_setup(&cfg, &q);
                                let r = su.range;
                                ([r[0] as i32, r[1] as i32], [r[2] as i32, r[3] as i32])
                            }
                        };
                        let vp = [cfg.viewport[0] as i32, cfg.viewport[1] as i32];
                        for k in 0..2 {
                            if lo[k] < 0 {
                                assert_eq!([x.x0, x.y0][k], 0);
                                clipped[k] += 1;
                            }
                            if hi[k] >= vp[k] {
                                assert_eq!([x.x1, x.y1][k], vp[k] as u32 - 1);
                                clipped[2 + k] += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    eprintln!("verdicts (box, zero, culled, no size, offscreen) {seen:?}, clipped (left, bottom, right, top) {clipped:?}, points boxed {pts} / aa {pts_aa}");
    assert!(seen.iter().all(|&n| n > 100), "every verdict reached: {seen:?}");
    assert!(
        clipped.iter().all(|&n| n > 100),
        "boxes clipped at each edge: {clipped:?}"
    );
    assert!(pts > 100 && pts_aa > 100);
}

#[test]
fn area_sign_is_exact_at_the_24_bit_extremes() {
    let lo = -(1 << 23);
    let hi = (1 << 23) - 1;
    let mut r = Rng::stream(99, 0);
    let mut n = [0u64; 3];
    for _ in 0..200_000 {
        let pick = |r: &mut Rng| -> i32 {
            match r.below(4) {
                0 => lo + r.below(3) as i32,
                1 => hi - r.below(3) as i32,
                2 => r.signed(24) as i32,
                _ => r.range(-2, 2) as i32,
            }
        };
        let mut v = [[0i32; 2]; 3];
        for q in v.iter_mut() {
            for c in q.iter_mut() {
                *c = pick(&mut r);
            }
        }
        if r.chance(20) {
            // Collinear through v0 with a doubled direction, or a near miss.
            let d = [v[1][0] as i64 - v[0][0] as i64, v[1][1] as i64 - v[0][1] as i64];
            let e = r.range(-1, 1);
            let x = (v[0][0] as i64 + 2 * d[0] + e).clamp(lo as i64, hi as i64);
            let y = (v[0][1] as i64 + 2 * d[1]).clamp(lo as i64, hi as i64);
            v[2] = [x as i32, y as i32];
        }
        let a = signed_area2(&v);
        n[(a.signum() + 1) as usize] += 1;
        assert_eq!(area_sign(&v), (a == 0, a < 0), "{v:?}: area {a}");
    }
    assert!(n.iter().all(|&k| k > 1000), "cw, zero, ccw all reached: {n:?}");
}

#[test]
fn frames_equal_the_reference_under_every_pattern() {
    let patterns: Vec<(Pattern, Pattern, Pattern, Vec<u64>)> = vec![
        (Pattern::Always, Pattern::Always, Pattern::Always, vec![]),
        (
            Pattern::gaps(40),
            Pattern::Random { pct: 60 },
            Pattern::Random { pct: 70 },
            vec![],
        ),
        (
            Pattern::Runs { pct: 70 },
            Pattern::Regimes { period: 300 },
            Pattern::Always,
            vec![1_234, 3_000],
        ),
        (
            Pattern::Random { pct: 90 },
            Pattern::Always,
            Pattern::Stalls {
                pct: 90,
                every: 5000,
                len: 1500,
            },
            vec![2_000],
        ),
        (
            Pattern::Always,
            Pattern::Stalls {
                pct: 90,
                every: 4000,
                len: 2000,
            },
            Pattern::Random { pct: 80 },
            vec![1_500],
        ),
    ];
    for (preset, cull) in [
        ("ice40", CullMode::None),
        ("default", CullMode::Cw),
        ("full", CullMode::Ccw),
        ("default", CullMode::None),
    ] {
        let cfg = cfg_with(preset, cull);
        let mut all = Totals::default();
        for (seed, (valid, or, wr, flushes)) in patterns.iter().enumerate() {
            let mut fr: Vec<Vec<PrimitiveFx>> = (0..3)
                .map(|i| bin_setup_frame(&cfg, seed as u64 * 10 + i, 150))
                .collect();
            fr.insert(1, Vec::new()); // a frame with no primitive
            let mut m = BinSetupCycle::new(&cfg);
            let t = run(&cfg, &mut m, &fr, seed as u64, *valid, *or, *wr, flushes);
            let st = m.stats();
            assert_eq!(t.frames, fr.len() as u64);
            assert_eq!(
                t.flushes,
                flushes.len() as u64,
                "every flush lands mid-run ({} cycles)",
                t.cycles
            );
            all.cycles += t.cycles;
            all.frames += t.frames;
            all.boxes += t.boxes;
            all.writes += t.writes;
            all.flushes += t.flushes;
            all.out_stalled += t.out_stalled;
            all.wr_stalled += t.wr_stalled;
            all.longest_out_stall = all.longest_out_stall.max(t.longest_out_stall);
            all.longest_wr_stall = all.longest_wr_stall.max(t.longest_wr_stall);
            assert!(st.zero_area > 0 && st.offscreen > 0 && st.boxes > 0, "{preset}: {st:?}");
            if cull != CullMode::None {
                assert!(st.culled > 0, "{preset} {cull:?}: {st:?}");
            } else {
                assert_eq!(st.culled, 0);
            }
        }
        eprintln!("{preset} {cull:?}: {all:?}");
        assert!(all.boxes > 500 && all.flushes == 4);
        assert!(all.longest_out_stall >= 1000 && all.longest_wr_stall >= 1000, "{all:?}");
    }
}

#[test]
fn shipped_scenes_equal_the_reference() {
    for name in ["default", "points", "slivers", "mesh"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../scenes/{name}.json"));
        let scene = Scene::load(&path).unwrap();
        let frame = scene.to_frame(&path.display().to_string()).unwrap();
        for cull in [CullMode::None, CullMode::Cw, CullMode::Ccw] {
            let mut cfg = frame.cfg.clone();
            cfg.cull = cull;
            let mut m = BinSetupCycle::new(&cfg);
            let fr = vec![frame.prims.clone(), frame.prims.clone()];
            let t = run(
                &cfg,
                &mut m,
                &fr,
                5,
                Pattern::gaps(20),
                Pattern::Random { pct: 70 },
                Pattern::Random { pct: 80 },
                &[],
            );
            assert_eq!(t.frames, 2);
            if cull == CullMode::None {
                assert!(t.boxes > 0, "{name}");
            }
        }
    }
}

fn tri(v: [[i32; 2]; 3]) -> PrimitiveFx {
    PrimitiveFx::Triangle(TriangleFx {
        v,
        colour: [1, 2, 3, 4],
        depth: 5,
    })
}

#[test]
fn timing_contract_at_exact_cycles() {
    let cfg = Config::preset("ice40").unwrap();
    let mut m = BinSetupCycle::new(&cfg);
    let boxed = prim_in(&tri([[0, 0], [2560, 0], [0, 2560]])).unwrap();
    let zero = prim_in(&tri([[0, 0], [256, 256], [512, 512]])).unwrap();
    let end = PrimIn {
        end: true,
        ..PrimIn::default()
    };
    // Cycle 0: the boxed triangle is taken.
    assert!(m.in_ready(false));
    clock(&mut m, true, &boxed, true, true, false);
    for k in 0..8u32 {
        // Cycle 1 + k: word k on wr; not ready for input.
        let (v, q) = m.wr();
        assert!(v && q.addr == 4 * k, "cycle {}: {q:?}", 1 + k);
        assert!(!m.in_ready(true));
        assert!(!m.out().0);
        clock(&mut m, true, &zero, true, true, false);
    }
    // Cycle 9: the box; the zero-area triangle is taken at this edge (interval 9).
    let (v, b) = m.out();
    assert!(
        v && b.prim == 0 && !b.end && (b.x0, b.y0, b.x1, b.y1) == (0, 0, 10, 10),
        "{b:?}"
    );
    assert!(!m.wr().0);
    assert!(!m.in_ready(false) && m.in_ready(true));
    clock(&mut m, true, &zero, true, true, false);
    // Cycles 10..17: its 8 writes at 32.., one stalled cycle at word 3.
    for k in 0..9u32 {
        let (v, q) = m.wr();
        let word = if k <= 3 { k } else { k - 1 };
        assert!(v && q.addr == 32 + 4 * word, "{k}: {q:?}");
        clock(&mut m, true, &end, true, k != 3, false);
    }
    // No box for it: back to idle, the end token is taken now.
    assert!(!m.out().0 && !m.wr().0 && m.in_ready(false));
    clock(&mut m, true, &end, false, true, false);
    let (v, b) = m.out();
    assert!(v && b.end && b.prim == 2 && m.index() == 0, "{b:?}");
    // A stalled end token stays; flush clears everything.
    clock(&mut m, false, &end, false, true, false);
    assert_eq!(m.out(), (v, b));
    clock(&mut m, true, &boxed, true, true, true);
    assert_eq!(m.out(), (false, BinBox::default()));
    assert_eq!(m.wr(), (false, MemReq::default()));
    assert!(m.in_ready(false));
}

#[test]
fn bad_input_names_the_field() {
    let e = prim_in(&tri([[0, 0], [1 << 23, 0], [0, 5]])).unwrap_err();
    assert!(e.starts_with("v[1][0] = 8388608"), "{e}");
    let p = PrimitiveFx::Point(PointFx {
        pos: [0, 0],
        size: 1 << 24,
        aa: false,
        colour: [0; 4],
        depth: 0,
    });
    let e = frame_beats(&[tri([[0, 0], [1, 0], [0, 1]]), p], [0; 4]).unwrap_err();
    assert!(e.starts_with("prims[1].size"), "{e}");
    let mut cfg = Config::preset("default").unwrap();
    cfg.viewport = [8192, 64];
    let e = BinSetupCycle::try_new(&cfg).unwrap_err();
    assert!(e.starts_with("config.viewport"), "{e}");
}

#[test]
fn a_broken_model_is_caught() {
    let cfg = Config::preset("ice40").unwrap();
    let frames: Vec<Vec<PrimitiveFx>> = (0..2).map(|i| bin_setup_frame(&cfg, 40 + i, 200)).collect();
    let r = std::panic::catch_unwind(|| {
        let mut m = BinSetupCycle::new(&cfg);
        m.plant_bug();
        run(
            &cfg,
            &mut m,
            &frames,
            1,
            Pattern::Always,
            Pattern::Always,
            Pattern::Always,
            &[],
        );
    });
    assert!(r.is_err(), "the planted clip bug must be caught");
    // The clean model passes the same run.
    let mut m = BinSetupCycle::new(&cfg);
    let t = run(
        &cfg,
        &mut m,
        &frames,
        1,
        Pattern::Always,
        Pattern::Always,
        Pattern::Always,
        &[],
    );
    assert_eq!(t.frames, 2);
}

/// One edge of `m` with these inputs (a short form for the hand-written sequences above).
fn clock(m: &mut BinSetupCycle, in_valid: bool, inp: &PrimIn, out_ready: bool, wr_ready: bool, flush: bool) {
    m.clock(&BinSetupIn {
        flush,
        inp: Offer::new(in_valid, *inp),
        out_ready,
        wr_ready,
    });
}
