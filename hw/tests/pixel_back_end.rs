//! rust-hdl simulation of `PixelBackEnd` (pixel processor, dst_fetch, blender and output merger
//! behind one memory port) against its cycle model `PixelBackEndCycle`, with a golden
//! `MemoryCycle` behind the port, through the one lock-step harness (`tilerast_verif::lockstep`,
//! rust-hdl back end in `tests/common`): `in_ready`, `mem_req_valid` + `mem_req`,
//! `mem_resp_ready` and `idle` must agree on every cycle. Stimulus:
//! `stim::pix_sample_tiles` (whole second tiles, as the colour buffer takes them, edge tiles
//! with shared storage blocks among them; every mask pattern, junk above S) with input gaps,
//! junk while idle, memory back-pressure, a long memory stall and one flush mid-tile, after which
//! the input restarts at the next tile; with `framebuffer: clear` (dst = the `background`
//! level, no read) and `keep` (dst read through the port). The bench, `tilerast_verif::stim::back_end_bench`, is the
//! one the Verilator co-simulation of the same block (`cosim/tests/pixel_back_end.rs`) uses.

mod common;

use tilerast_golden::config::{Config, FramebufferMode};
use tilerast_golden::memory_port::{MemTiming, SparseMemory};
use tilerast_golden::pixel_back_end::PixelBackEndCycle;
use tilerast_golden::streams::ports;
use tilerast_hw::pixel_back_end::PixelBackEnd;
use tilerast_verif::lockstep::{Flushes, Lockstep, Memory, Source};
use tilerast_verif::stim::{back_end_bench, BackEndDrive};

#[test]
fn cosim_against_the_cycle_model() {
    // Small second tiles (16x16, two 8x8 storage blocks each) in a viewport that clips them,
    // so that tiles finish and drain within a short rust-hdl run.
    for mode in [FramebufferMode::Clear, FramebufferMode::Keep] {
        run_mode(mode);
    }
}

/// One run with `framebuffer: mode`: keep reads dst through the port, clear reads nothing.
fn run_mode(mode: FramebufferMode) {
    let mut cfg = Config::preset("default").unwrap();
    cfg.viewport = [100, 70];
    cfg.second_tile = [16, 16];
    cfg.framebuffer = mode;
    cfg.validate().unwrap();
    let seed = 5u64;
    let pixels = tilerast_verif::stim::pix_sample_tiles(&cfg, seed, 3000);
    // The bench the Verilator co-simulation uses: gaps and junk on the input, memory
    // back-pressure (25 %) and a long stall, one flush mid-tile.
    let d = BackEndDrive {
        seed,
        gap_pm: 250,
        busy_pm: 250,
        flush_at: vec![2000],
        stall: (1200, 1300),
        timing: MemTiming { latency: 2, depth: 3 },
        cycles: 4000,
        flip: None,
    };
    let bench = back_end_bench(&cfg, &pixels, SparseMemory::new(), 0x8040_2010, &d);
    let ls = Lockstep::new(PixelBackEndCycle::new(&cfg), bench);
    let (ls, outcome) = common::lockstep(PixelBackEnd::new(&cfg), ls, d.cycles, d.flip);
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let mem = ls.bench.get::<Memory>("mem");
    let st = mem.mem.stats;
    let accepted = ls.bench.get::<Source<ports::PixSamples>>("inp").accepted;
    println!("{mode:?}: accepted {accepted}, {st:?}");
    assert_eq!(ls.bench.get::<Flushes>("flush").count, 1);
    assert!(accepted > 1000 && st.writes > 500, "{st:?}");
    match mode {
        FramebufferMode::Keep => assert!(st.reads > 500, "{st:?}"),
        FramebufferMode::Clear => assert_eq!(st.reads, 0, "{st:?}"),
    }
    assert!(mem.waits > 100, "{}", ls.bench.summary());
}

// Lint: every preset's back end is `rtl-out/tilerast_pixel_back_end_<preset>.v`, proven to be
// this block's logic and linted with `-Wall` by `hw/tests/rtl_out.rs`.
