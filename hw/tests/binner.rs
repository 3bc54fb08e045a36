//! rust-hdl simulation of `Binner` against its cycle model `BinnerCycle`: `in_ready`,
//! `out_valid` and the whole `out` payload (valid or not) on every cycle, through the shared
//! harness (`tests/common`). Stimulus: frames of `stim::bin_boxes` boxes (one-tile,
//! multi-tile, large and hot-tile boxes) each closed by a frame-end token, random input gaps,
//! random memory back-pressure with stalls, one flush mid-stream. Transaction level: every
//! frame finished (its `last` write transferred) holds, replayed on an empty memory,
//! `bin_with_chunk`'s bytes for the boxes taken in it. Config: `ice40` (80 lists), kept to a
//! few thousand cycles (rust-hdl simulates ~7k cycles/s).

mod common;

use common::Report;
use common::Run;
use tilerast_golden::binner::{bin_with_chunk, BinnerCycle, BIN_CHUNK_BYTES};
use tilerast_golden::config::Config;
use tilerast_golden::memory_port::SparseMemory;
use tilerast_golden::setup::PixelBox;
use tilerast_golden::streams::{BinBox, BinWrite};
use tilerast_hw::binner::{supported, Binner};
use tilerast_verif::stim::{bin_boxes, bin_frame};
use tilerast_verif::{Flush, Handshake, Pattern};

/// Per frame finished in the trace (between flushes): compare its writes with golden's bytes.
/// Returns (frames, writes compared).
fn check_frames(cfg: &Config, r: &Report<BinBox, BinWrite>) -> (u64, u64) {
    let (mut frames, mut compared) = (0, 0);
    let mut boxes: Vec<Vec<(u32, PixelBox)>> = vec![Vec::new()];
    let mut writes: Vec<BinWrite> = Vec::new();
    for s in &r.trace {
        if s.flush {
            boxes = vec![Vec::new()];
            writes.clear();
            continue;
        }
        if s.transferred() {
            writes.push(s.output);
            if s.output.last {
                let fb = boxes.remove(0);
                let bins = bin_with_chunk(cfg, &fb, BIN_CHUNK_BYTES).unwrap();
                let gm = bins.memory();
                let mut mem = SparseMemory::new();
                for w in &writes {
                    mem.write(w.req.addr, w.req.wdata, w.req.be);
                }
                for a in (0..gm.size()).step_by(4) {
                    assert_eq!(
                        mem.read(a as u32),
                        gm.peek_u32(a).unwrap(),
                        "frame {frames}: word {a:#x}"
                    );
                }
                assert_eq!(4 * writes.len() as u64, bins.stats().bytes_written);
                compared += writes.len() as u64;
                frames += 1;
                writes.clear();
            }
        }
        if s.accepted() {
            if s.input.end {
                boxes.push(Vec::new());
            } else {
                let b = s.input;
                boxes.last_mut().unwrap().push((
                    b.prim,
                    PixelBox {
                        x0: b.x0,
                        y0: b.y0,
                        x1: b.x1,
                        y1: b.y1,
                    },
                ));
            }
        }
    }
    (frames, compared)
}

#[test]
fn cosim_against_the_cycle_model() {
    let cfg = Config::preset("ice40").unwrap();
    supported(&cfg).unwrap();
    let ready = Pattern::RandomStalls {
        pct: 80,
        permille: 10,
        min: 10,
        max: 60,
    };
    let hs = Handshake::new(Pattern::gaps(20), ready).with_flush(Flush::At(2_600));
    let input: Vec<BinBox> = (0..20).flat_map(|f| bin_frame(&bin_boxes(&cfg, 40 + f, 12))).collect();
    let report = Run::new(hs, 3, 4_000).go(
        Binner::new(&cfg),
        BinnerCycle::new(&cfg, BIN_CHUNK_BYTES).unwrap(),
        input,
    );
    println!("{}", report.summary());
    report.assert_clean("binner");
    assert_eq!(report.flushes, 1);
    assert!(report.longest_stall >= 10, "no long stall");
    let (frames, compared) = check_frames(&cfg, &report);
    println!("  {frames} frames finished, {compared} writes compared with bin_with_chunk");
    assert!(frames >= 2, "only {frames} frames finished");
    assert!(report.transferred > 800, "only {} writes out", report.transferred);
}

#[test]
fn verilog_lints_clean_and_refusals_name_the_field() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("binner_{p}");
        let v = tilerast_hw::binner::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
    // 80x60 tiles of 8x8 at 640x480: 4800 lists.
    let mut cfg = Config::preset("default").unwrap();
    cfg.tile = [8, 8];
    let e = supported(&cfg).unwrap_err();
    assert!(e.starts_with("config.tile:") && !e.contains('\n'), "{e}");
}
