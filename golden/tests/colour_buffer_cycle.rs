//! The colour buffer (`ColourBufferCycle`, layer 3) against its transaction model (the storage
//! order of `BufferLayout`, layer 2), and the layout against the quad packer's block layout.
//!
//! Whole second tiles of random pixel slots go in (raster order, tiles in random order, some
//! repeated) under the verification kit's gaps, back-pressure, stalls of thousands of cycles and
//! flushes; what comes out must be each tile's pixels in storage order, slots ≥ C dropped. The
//! timing contract is checked where it states numbers: the latency of an idle buffer, a piece
//! of a pixels in a + 1 cycles, `in_ready` falling only when both banks are closed.

use std::collections::BTreeSet;
use tilerast_golden::colour_buffer::{BufferLayout, ColourBufferCycle};
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::quad_packer::block_layout_rect;
use tilerast_golden::setup::PixelBox;
use tilerast_golden::streams::PixSlots;
use tilerast_golden::{Config, PRESETS};
use tilerast_verif::stim::second_tile_pixels;
use tilerast_verif::{Pattern, Rng};

/// Presets plus viewports whose edge tiles have small pieces that share storage blocks.
fn configs() -> Vec<Config> {
    let mut v: Vec<Config> = PRESETS.iter().map(|p| Config::preset(p).unwrap()).collect();
    let mut c = Config::preset("default").unwrap();
    c.name = "edges_100x70".into();
    c.viewport = [100, 70];
    v.push(c);
    let mut c = Config::preset("ice40").unwrap();
    c.name = "edges_c2_45x21".into();
    c.viewport = [45, 21];
    c.colours_per_pixel = 2;
    c.colour_block_bytes = 128;
    v.push(c);
    for c in &v {
        c.validate().unwrap();
    }
    v
}

fn tiles(cfg: &Config) -> Vec<[u32; 2]> {
    let [nx, ny] = [0, 1].map(|i| cfg.viewport[i].div_ceil(cfg.second_tile[i]));
    (0..ny).flat_map(|y| (0..nx).map(move |x| [x, y])).collect()
}

/// The pixels of tile `t` inside the viewport, in raster order (rows bottom-up, left → right).
fn raster(cfg: &Config, t: [u32; 2]) -> Vec<(u32, u32)> {
    let [sw, sh] = cfg.second_tile;
    let (x1, y1) = (
        ((t[0] + 1) * sw).min(cfg.viewport[0]),
        ((t[1] + 1) * sh).min(cfg.viewport[1]),
    );
    (t[1] * sh..y1)
        .flat_map(|y| (t[0] * sw..x1).map(move |x| (x, y)))
        .collect()
}

#[test]
fn layout_is_the_quad_packers_and_storage_order_is_address_order() {
    let mut shared = 0;
    for cfg in configs() {
        let lay = BufferLayout::new(&cfg);
        for t in tiles(&cfg) {
            let px = raster(&cfg, t);
            let order = lay.storage_order(t);
            // A permutation of the tile's pixels.
            let a: BTreeSet<_> = px.iter().copied().collect();
            let b: BTreeSet<_> = order.iter().copied().collect();
            assert_eq!((a.len(), order.len()), (px.len(), px.len()), "{} {t:?}", cfg.name);
            assert_eq!(a, b, "{} {t:?}: storage order is not the tile's pixels", cfg.name);
            // Storage order is increasing word order, inside the bank, no two pixels on a word.
            let words: Vec<u32> = order.iter().map(|&(x, y)| lay.word(x, y)).collect();
            assert!(words.windows(2).all(|w| w[0] < w[1]), "{} {t:?}: {words:?}", cfg.name);
            assert!(*words.last().unwrap() < lay.bank_words, "{} {t:?}", cfg.name);
            // Exactly the raster order's last pixel ends the tile.
            let lasts: Vec<_> = px.iter().filter(|&&(x, y)| lay.is_last(x, y)).collect();
            assert_eq!(lasts, vec![px.last().unwrap()], "{} {t:?}", cfg.name);
            // The words of each piece lie in its storage block, as the quad packer lays the
            // clipped tile out (an independent walk of `block_layout_rect` on the tile itself).
            let (x0, y0) = (px[0].0, px[0].1);
            let (xe, ye) = *px.last().unwrap();
            let l = block_layout_rect(&cfg, PixelBox { x0, y0, x1: xe, y1: ye });
            shared += l.shared_blocks;
            for p in &l.pieces {
                for y in p.rect.y0..=p.rect.y1 {
                    for x in p.rect.x0..=p.rect.x1 {
                        let w = lay.word(x, y);
                        assert_eq!(w / l.capacity(), p.block, "{} ({x}, {y}): block", cfg.name);
                        let local = (y - p.rect.y0) * p.rect.width() + x - p.rect.x0;
                        assert_eq!(w % l.capacity(), p.offset + local, "{} ({x}, {y}): offset", cfg.name);
                    }
                }
            }
        }
    }
    assert!(shared > 0, "no shared storage block in any config");
}

/// Random slots for the pixels of `tiles` (the verification kit's whole second tiles: raster
/// order, junk in slots ≥ C that the buffer must not store).
fn stream(cfg: &Config, tiles: &[[u32; 2]], r: &mut Rng) -> Vec<PixSlots> {
    let lay = BufferLayout::new(cfg);
    tiles.iter().flat_map(|&t| second_tile_pixels(&lay, t, r)).collect()
}

/// What the transaction model says comes out: each tile's pixels in storage order, slots ≥ C
/// dropped.
fn expected(cfg: &Config, tiles: &[[u32; 2]], input: &[PixSlots]) -> Vec<PixSlots> {
    let lay = BufferLayout::new(cfg);
    let c = cfg.colours_per_pixel as usize;
    let mut by_pos = std::collections::HashMap::new();
    let mut out = Vec::new();
    let mut i = 0;
    for &t in tiles {
        by_pos.clear();
        for p in &input[i..i + raster(cfg, t).len()] {
            by_pos.insert((p.x, p.y), *p);
        }
        i += raster(cfg, t).len();
        for xy in lay.storage_order(t) {
            let p = by_pos[&xy];
            let mut w = PixSlots {
                x: p.x,
                y: p.y,
                slot_valid: p.slot_valid & ((1u32 << c) - 1) as u16,
                ..PixSlots::default()
            };
            w.colour[..c].copy_from_slice(&p.colour[..c]);
            out.push(w);
        }
    }
    out
}

struct Run {
    out: Vec<PixSlots>,
    cycles: u64,
}

/// Drive the model with `input` under `valid` / `ready`; check every cycle that `in_ready`
/// does not depend on `out_ready` and that nothing moves on the output without a pop.
fn drive(
    m: &mut ColourBufferCycle,
    input: &[PixSlots],
    n_out: usize,
    seed: u64,
    valid: Pattern,
    ready: Pattern,
) -> Run {
    let (mut vl, mut rl) = (valid.line(Rng::stream(seed, 0)), ready.line(Rng::stream(seed, 1)));
    let (mut next, mut cycle) = (0usize, 0u64);
    let mut out = Vec::new();
    while out.len() < n_out || next < input.len() {
        assert!(cycle < 10_000_000, "no progress: {next} in, {} out", out.len());
        let (v, rd) = (next < input.len() && vl.step(), rl.step());
        let inp = input.get(next).copied().unwrap_or_default();
        let ready = m.in_ready(rd);
        assert_eq!(ready, m.in_ready(!rd), "cycle {cycle}: in_ready depends on out_ready");
        let (ov, o) = m.out();
        if ov && rd {
            out.push(o);
        }
        if v && ready {
            next += 1;
        }
        m.clock(v, &inp, rd, false);
        if ov && !rd {
            assert_eq!(m.out(), (ov, o), "cycle {cycle}: output moved while stalled");
        }
        cycle += 1;
    }
    Run { out, cycles: cycle }
}

#[test]
fn tiles_leave_in_storage_order_under_gaps_back_pressure_and_stalls() {
    let patterns = [
        (Pattern::Always, Pattern::Always),
        (Pattern::gaps(30), Pattern::Random { pct: 60 }),
        (Pattern::Runs { pct: 70 }, Pattern::Regimes { period: 300 }),
        (
            Pattern::Random { pct: 95 },
            Pattern::Stalls {
                pct: 90,
                every: 9000,
                len: 4000,
            },
        ),
    ];
    let (mut shared, mut stalled_in, mut stalled_out) = (0, 0, 0);
    for (ci, cfg) in configs().iter().enumerate() {
        let all = tiles(cfg);
        for (pi, &(valid, ready)) in patterns.iter().enumerate() {
            let seed = (ci * 10 + pi) as u64;
            let mut r = Rng::stream(91, seed);
            // Up to 6 tiles, random, repeats allowed; the edge tiles always among them.
            let mut ts: Vec<[u32; 2]> = (0..4).map(|_| *r.pick(&all)).collect();
            ts.push(*all.last().unwrap());
            ts.push(all[r.index(all.len())]);
            let input = stream(cfg, &ts, &mut r);
            let want = expected(cfg, &ts, &input);
            let mut m = ColourBufferCycle::new(cfg);
            let run = drive(&mut m, &input, want.len(), seed, valid, ready);
            assert_eq!(run.out.len(), want.len());
            for (i, (g, w)) in run.out.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{} pattern {pi}: pixel {i} of {}", cfg.name, want.len());
            }
            let st = m.stats();
            assert_eq!(st.pixels, input.len() as u64);
            assert_eq!(st.tiles, ts.len() as u64);
            assert!(m.idle(), "{}: not idle after the last pixel", cfg.name);
            assert!(run.cycles >= input.len() as u64);
            shared += st.shared_tiles;
            stalled_in += st.stalled_in;
            stalled_out += st.stalled_out;
        }
    }
    assert!(shared > 0, "no tile with a shared storage block drained");
    assert!(stalled_in > 0, "both banks never closed at once");
    assert!(stalled_out > 0, "no output back-pressure");
}

#[test]
fn latency_throughput_and_double_buffering_are_the_contracts() {
    let cfg = Config::preset("default").unwrap();
    let lay = BufferLayout::new(&cfg);
    let mut r = Rng::stream(5, 0);
    let ts = [[0, 0], [1, 0], [2, 0]];
    let input = stream(&cfg, &ts, &mut r);
    let n = raster(&cfg, [0, 0]).len();
    let mut m = ColourBufferCycle::new(&cfg);
    let mut first_out = None;
    let mut outs = 0usize;
    let mut ready_low = Vec::new();
    let mut next = 0usize;
    for cyc in 0..20_000u64 {
        let ready = m.in_ready(true);
        if !ready && next < input.len() {
            ready_low.push(cyc);
        }
        let (ov, _) = m.out();
        if ov {
            first_out.get_or_insert(cyc);
            outs += 1;
        }
        let take = next < input.len() && ready;
        m.clock(take, &input[next.min(input.len() - 1)], true, false);
        next += take as usize;
        if next == input.len() && m.idle() {
            break;
        }
    }
    // The first tile's last pixel is taken at edge n - 1; its first pixel is out at n - 1 + 6.
    assert_eq!(first_out, Some(n as u64 - 1 + 6), "latency");
    assert_eq!(outs, input.len());
    // Tile 0 drains from edge (n - 1) + 3 for n + pieces edges (a piece of a pixels in a + 1
    // cycles); tiles 1 fills bank 1 meanwhile, one pixel per cycle, and tile 2 waits for bank
    // 0 from cycle 2n until the cycle after tile 0's last read.
    let pieces = lay.classes[0].drain.len() as u64;
    let drain: u64 = lay.classes[0].drain.iter().map(|&(_, a)| a as u64 + 1).sum();
    assert_eq!(drain, n as u64 + pieces);
    let last_read = n as u64 + 2 + drain - 1;
    let want: Vec<u64> = (2 * n as u64..=last_read).collect();
    assert!(!want.is_empty(), "the drain is not slower than the input here");
    assert_eq!(ready_low, want, "in_ready low while bank 0 drains");

    // With the output stalled, two tiles fill both banks and in_ready falls at once after the
    // second tile's last pixel, and stays low until the first tile has drained.
    let mut m = ColourBufferCycle::new(&cfg);
    let mut next = 0;
    let mut low_at = None;
    for cyc in 0..3 * n as u64 {
        let ready = m.in_ready(false);
        if !ready && low_at.is_none() {
            low_at = Some(cyc);
        }
        let take = next < input.len() && ready;
        m.clock(take, &input[next.min(input.len() - 1)], false, false);
        next += take as usize;
    }
    assert_eq!(low_at, Some(2 * n as u64), "in_ready falls after two tiles");
    assert_eq!(next, 2 * n);
    // Two reads are in the FIFO; nothing else left the buffer.
    assert!(m.out().0);
}

#[test]
fn flush_drops_everything_held_and_the_next_tiles_come_out_whole() {
    for cfg in configs() {
        let all = tiles(&cfg);
        let mut r = Rng::stream(17, 3);
        let first = stream(&cfg, &[all[0], *all.last().unwrap()], &mut r);
        let mut m = ColourBufferCycle::new(&cfg);
        // Feed one tile and a half, let a few pixels out, then flush.
        let cut = first.len() - 3.min(first.len() - 1);
        for (i, p) in first[..cut].iter().enumerate() {
            assert!(m.in_ready(true));
            m.clock(true, p, i % 3 == 0, false);
        }
        m.clock(false, &PixSlots::default(), true, true);
        assert!(m.idle() && !m.out().0, "{}: flush left something", cfg.name);
        assert_eq!(m.out().1, PixSlots::default(), "{}: payload after flush", cfg.name);
        let ts = [all[all.len() / 2], all[0]];
        let input = stream(&cfg, &ts, &mut r);
        let want = expected(&cfg, &ts, &input);
        let run = drive(
            &mut m,
            &input,
            want.len(),
            4,
            Pattern::gaps(20),
            Pattern::Random { pct: 70 },
        );
        assert_eq!(run.out.len(), want.len(), "{}: after the flush", cfg.name);
        if let Some(i) = (0..want.len()).find(|&i| run.out[i] != want[i]) {
            panic!(
                "{}: after the flush, pixel {i}: {:?}, want {:?}",
                cfg.name, run.out[i], want[i]
            );
        }
    }
}

/// `idle` (the contract's **Idle**): true in the new state; false from the first pixel of a
/// tile on, also while the tile is still open and the write pipeline has emptied (`open`), and
/// while it drains; true again once its last pixel has left; true after a flush.
#[test]
fn idle_covers_an_open_tile() {
    let cfg = Config::preset("default").unwrap();
    let mut r = Rng::stream(17, 0);
    let input = stream(&cfg, &[[1, 0]], &mut r);
    let mut m = ColourBufferCycle::new(&cfg);
    assert!(m.idle(), "new state");
    // Half the tile, then ten cycles with no input: the tile is open, nothing else held.
    let half = input.len() / 2;
    for p in &input[..half] {
        assert!(m.in_ready(true));
        m.clock(true, p, true, false);
        assert!(!m.idle());
    }
    for _ in 0..10 {
        m.clock(false, &PixSlots::default(), true, false);
        assert!(!m.idle() && !m.out().0, "open tile counts as held");
    }
    let mut outs = 0;
    for p in &input[half..] {
        m.clock(true, p, true, false);
        assert!(!m.idle());
    }
    for _ in 0..10_000 {
        if m.idle() {
            break;
        }
        outs += m.out().0 as usize;
        m.clock(false, &PixSlots::default(), true, false);
    }
    assert!(m.idle() && outs == input.len(), "{outs} of {} out", input.len());
    m.clock(true, &input[0], true, false);
    assert!(!m.idle());
    m.clock(false, &PixSlots::default(), true, true);
    assert!(m.idle(), "after a flush");
}
