//! Verilator co-simulation of bin_setup alone (`rtl-out/tilerast_bin_setup_{default,ice40}.v`)
//! against its cycle model `BinSetupCycle`, every port on every cycle, driven by port name
//! (`tilerast_cosim::bin_setup::vectors`: the block has the table write port `wr` besides
//! `inp` / `out`). Stimulus: frames of `stim::bin_setup_frame` primitives back to back (junk
//! payloads while `in_valid` is low), input gaps, per-output back-pressure with stalls of
//! 1 000 to 3 000 cycles, flushes mid-frame, 60 000 cycles per run; every finished frame's
//! boxes must be golden's (`binner::prim_bbox`) and its writes `prim_table::table`'s bytes.
//! Plus: the planted bug of `cosim/build/mutation.rs` (x1 clamp one too big) is caught at the
//! cycle and port predicted by the model with the same bug (`BinSetupCycle::plant_bug`).

use tilerast_cosim::bin_setup::{vectors, Drive, Outcome, STAGE};
use tilerast_cosim::blocks::{get_bits, BlockRtl, BATCH};
use tilerast_golden::prim::PrimitiveFx;
use tilerast_golden::Config;
use tilerast_verif::stim::bin_setup_frame;
use tilerast_verif::Pattern;

/// RTL `preset` against the model's words; `Err`: the first differing cycle and ports.
fn run(
    preset: &str,
    cfg: &Config,
    frames: &[Vec<PrimitiveFx>],
    d: &Drive,
    mutant: bool,
) -> Result<Outcome, (u64, String)> {
    let v = vectors(preset, cfg, frames, d, mutant)?;
    let mut rtl = BlockRtl::new(preset, STAGE).unwrap_or_else(|e| panic!("{e}"));
    let desc = rtl.desc;
    let (iw, ow) = (desc.in_words(), desc.out_words());
    let mut got = vec![0u32; BATCH * ow];
    let mut cyc = 0u64;
    while cyc < d.cycles {
        let n = (BATCH as u64).min(d.cycles - cyc) as usize;
        let c0 = cyc as usize;
        rtl.run(&v.inp[c0 * iw..(c0 + n) * iw], &mut got[..n * ow]);
        for k in 0..n {
            let e = &v.exp[(c0 + k) * ow..(c0 + k + 1) * ow];
            let g = &got[k * ow..(k + 1) * ow];
            if e != g {
                let diff: Vec<String> = desc
                    .outputs
                    .iter()
                    .filter(|p| get_bits(e, p.offset, p.width) != get_bits(g, p.offset, p.width))
                    .map(|p| {
                        format!(
                            "{} rtl {:#x} model {:#x}",
                            p.name,
                            get_bits(g, p.offset, p.width),
                            get_bits(e, p.offset, p.width)
                        )
                    })
                    .collect();
                return Err((cyc + k as u64, diff.join(", ")));
            }
        }
        cyc += n as u64;
    }
    Ok(v.outcome)
}

fn long_run(preset: &str, seed: u64) {
    let cfg = Config::preset(preset).unwrap();
    let frames: Vec<Vec<PrimitiveFx>> = (0..4).map(|f| bin_setup_frame(&cfg, seed * 100 + f, 150)).collect();
    let cycles = 60_000;
    let d = Drive {
        seed,
        cycles,
        valid: Pattern::gaps(30),
        out_ready: Pattern::RandomStalls {
            pct: 80,
            permille: 1,
            min: 1_000,
            max: 3_000,
        },
        wr_ready: Pattern::Stalls {
            pct: 85,
            every: 9_000,
            len: 1_500,
        },
        flush_at: vec![4_321, 31_234],
    };
    let o = run(preset, &cfg, &frames, &d, false).unwrap_or_else(|(c, e)| panic!("{preset}: cycle {c}: {e}"));
    println!("{preset}: {o:?}");
    assert_eq!(o.cycles, cycles);
    assert!(o.frames >= 4, "{o:?}");
    assert!(o.boxes > 300 && o.zero_area > 0, "{o:?}");
    assert!(o.longest_out_stall >= 1_000 && o.longest_wr_stall >= 1_000, "{o:?}");
    assert!(o.busy_flushes >= 2, "flushes mid-frame: {o:?}");
}

#[test]
fn rtl_matches_cycle_model_default() {
    long_run("default", 1);
}

#[test]
fn rtl_matches_cycle_model_ice40() {
    long_run("ice40", 2);
}

/// The planted bug (`default_mut`: the x1 clamp constant is W instead of W − 1): the RTL
/// differs from the model first at the cycle and on the port where the model with the same
/// bug first differs: `out__x1`, in the first cycle a box clipped at the right edge is in the
/// output register.
#[test]
fn planted_bug_is_caught_where_predicted() {
    let cfg = Config::preset("default").unwrap();
    let frames: Vec<Vec<PrimitiveFx>> = (0..2).map(|f| bin_setup_frame(&cfg, 900 + f, 200)).collect();
    let d = Drive {
        seed: 77,
        cycles: 8_000,
        valid: Pattern::gaps(20),
        out_ready: Pattern::Random { pct: 85 },
        wr_ready: Pattern::Random { pct: 85 },
        flush_at: vec![],
    };
    let clean = run("default", &cfg, &frames, &d, true).unwrap_or_else(|(c, e)| panic!("clean: cycle {c}: {e}"));
    let (at, port) = clean.mutant_diff.expect("the mutant model differs somewhere");
    let (c, e) = run("default_mut", &cfg, &frames, &d, false).expect_err("the planted bug is caught");
    println!("planted bug: predicted cycle {at} on {port}, caught at cycle {c}: {e}");
    assert_eq!(c, at, "caught at the predicted cycle");
    assert!(
        e.starts_with(&format!("{port} ")) || e.contains(&format!(", {port} ")),
        "{e}"
    );
    assert_eq!(port, "out__x1");
}
