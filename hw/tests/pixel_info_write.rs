//! rust-hdl simulation of `PixelInfoWrite` against its cycle model `PixelInfoWriteCycle`:
//! `in_ready`, `out_valid` and the whole `out` payload (valid or not) on every cycle, through
//! the shared harness (`tests/common`). Stimulus: frames of `stim::pi_beats` beats (0..4 valid
//! lanes, junk in invalid lanes, a hot second tile) each closed by a frame-end token, random
//! input gaps, random memory back-pressure with stalls, one flush mid-stream. Transaction
//! level: every frame finished (its `last` write transferred) holds, replayed on an empty
//! memory, `PixelInfoStore`'s bytes for the beats taken in it. Config: `ice40` (40 lists,
//! W = 3), a few thousand cycles.

mod common;

use common::Report;
use common::Run;
use tilerast_golden::config::Config;
use tilerast_golden::memory_port::SparseMemory;
use tilerast_golden::pixel_info_write::PixelInfoWriteCycle;
use tilerast_golden::streams::{BinWrite, PiBeat};
use tilerast_hw::pixel_info_write::{supported, PixelInfoWrite};
use tilerast_verif::stim::{pi_beats, pi_frame, pi_store};
use tilerast_verif::{Flush, Handshake, Pattern};

/// Per frame finished in the trace (between flushes): compare its writes with golden's bytes.
/// Returns (frames, writes compared).
fn check_frames(cfg: &Config, r: &Report<PiBeat, BinWrite>) -> (u64, u64) {
    let (mut frames, mut compared) = (0, 0);
    let mut beats: Vec<Vec<PiBeat>> = vec![Vec::new()];
    let mut writes: Vec<BinWrite> = Vec::new();
    for s in &r.trace {
        if s.flush {
            beats = vec![Vec::new()];
            writes.clear();
            continue;
        }
        if s.transferred() {
            writes.push(s.output);
            if s.output.last {
                let fb = beats.remove(0);
                let frame = fb.first().map_or(0, |b| b.frame);
                let store = pi_store(cfg, &fb, frame);
                let gm = store.memory();
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
                assert_eq!(4 * writes.len() as u64, store.stats().bytes_written);
                compared += writes.len() as u64;
                frames += 1;
                writes.clear();
            }
        }
        if s.accepted() {
            if s.input.end {
                beats.push(Vec::new());
            } else {
                beats.last_mut().unwrap().push(s.input);
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
    let input: Vec<PiBeat> = (0..20)
        .flat_map(|f| pi_frame(&pi_beats(&cfg, 40 + f, 8, f as u8)))
        .collect();
    let report = Run::new(hs, 3, 5_000).go(
        PixelInfoWrite::new(&cfg),
        PixelInfoWriteCycle::new(&cfg).unwrap(),
        input,
    );
    println!("{}", report.summary());
    report.assert_clean("pixel_info_write");
    assert_eq!(report.flushes, 1);
    assert!(report.longest_stall >= 10, "no long stall");
    let (frames, compared) = check_frames(&cfg, &report);
    println!("  {frames} frames finished, {compared} writes compared with PixelInfoStore");
    assert!(frames >= 2, "only {frames} frames finished");
    assert!(report.transferred > 800, "only {} writes out", report.transferred);
}

#[test]
fn verilog_lints_clean_and_refusals_name_the_field() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("pixel_info_write_{p}");
        let v = tilerast_hw::pixel_info_write::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
    // 320x270 second tiles of 2x2 at 640x480... : more than 4096 lists.
    let mut cfg = Config::preset("default").unwrap();
    cfg.second_tile = [4, 4];
    let e = supported(&cfg).unwrap_err();
    assert!(e.starts_with("config.second_tile:") && !e.contains('\n'), "{e}");
    let mut cfg = Config::preset("default").unwrap();
    cfg.pixel_info_block_bytes = 65536;
    let e = supported(&cfg).unwrap_err();
    assert!(
        e.starts_with("config.pixel_info_block_bytes:") && !e.contains('\n'),
        "{e}"
    );
}
