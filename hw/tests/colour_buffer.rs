//! rust-hdl simulation of `ColourBuffer` against its cycle model `ColourBufferCycle`: `in_ready`,
//! `out_valid` and the whole `out` payload (valid or not) on every cycle, through the shared
//! harness (`tests/common`). Stimulus (`stim::colour_buffer_input`): whole second tiles of
//! random pixels (random `slot_valid` with junk above C, random colours), every other tile an
//! edge tile, random input gaps, random `out_ready` with stalls of 100 to 500 cycles, random
//! flushes (at least one between tiles and one mid-tile; after a flush a whole tile again).
//! Configs: `default` with a 32x16 second tile on a 100x70 viewport (the right column's pieces
//! are 4 wide and two share a storage block: `shared_tiles` > 0) and `ice40`. Activity is
//! asserted on the model's counters replayed over the run (tiles, shared tiles, pieces, both
//! stall kinds) so that idle traffic cannot pass, and the transferred pixels are checked at
//! transaction level: per stretch between flushes, the complete tiles taken, in order, each
//! in `BufferLayout::storage_order` with its stored word (slots ≥ C dropped).

mod common;

use common::{Report, Run};
use std::collections::HashMap;
use tilerast_golden::colour_buffer::{BufferLayout, ColourBufferCycle, ColourBufferStats};
use tilerast_golden::config::Config;
use tilerast_golden::cycle::CycleModel;
use tilerast_golden::streams::PixSlots;
use tilerast_hw::colour_buffer::{supported, ColourBuffer};
use tilerast_verif::stim::colour_buffer_input;
use tilerast_verif::{Flush, Handshake, Pattern};

/// `default` with a 32x16 second tile on a 100x70 viewport: edge pieces 4 wide share blocks.
fn shared_cfg() -> Config {
    let mut c = Config::preset("default").unwrap();
    c.name = "cb_shared".into();
    c.viewport = [100, 70];
    c.second_tile = [32, 16];
    c.validate().unwrap();
    c
}

/// The model's counters over the whole run (a flush clears them: summed across flushes).
fn replay(cfg: &Config, r: &Report<PixSlots, PixSlots>) -> ColourBufferStats {
    let mut m = ColourBufferCycle::new(cfg);
    let mut sum = ColourBufferStats::default();
    for s in &r.trace {
        if s.flush {
            sum.add(&m.stats());
        }
        m.clock(s.in_valid, &s.input, s.out_ready, s.flush);
    }
    sum.add(&m.stats());
    sum
}

/// Transaction level: between flushes, the transferred pixels are the complete tiles taken, in
/// order, each in storage order with its stored words (the stretch's last tile may be cut off
/// by the flush or the end of the run). Returns the tiles seen whole.
fn check_order(cfg: &Config, r: &Report<PixSlots, PixSlots>) -> u64 {
    let lay = BufferLayout::new(cfg);
    let mut whole = 0;
    let mut stretches: Vec<Vec<usize>> = vec![Vec::new()];
    for (i, s) in r.trace.iter().enumerate() {
        if s.flush {
            stretches.push(Vec::new());
        } else {
            stretches.last_mut().unwrap().push(i);
        }
    }
    for (si, cycles) in stretches.iter().enumerate() {
        // The complete tiles taken in this stretch, in order.
        let mut tiles: Vec<HashMap<(u32, u32), PixSlots>> = Vec::new();
        let mut cur = HashMap::new();
        let mut outs = Vec::new();
        for &i in cycles {
            let s = &r.trace[i];
            if s.accepted() {
                cur.insert((s.input.x, s.input.y), lay.stored(&s.input));
                if lay.is_last(s.input.x, s.input.y) {
                    tiles.push(std::mem::take(&mut cur));
                }
            }
            if s.transferred() {
                outs.push(s.output);
            }
        }
        let mut o = outs.iter();
        'tiles: for t in &tiles {
            let any = t.keys().next().unwrap();
            let order = lay.storage_order([any.0 / lay.tile[0], any.1 / lay.tile[1]]);
            assert_eq!(order.len(), t.len(), "stretch {si}: a tile of {} pixels", t.len());
            for (n, xy) in order.iter().enumerate() {
                let Some(got) = o.next() else {
                    break 'tiles;
                };
                assert_eq!(
                    *got, t[xy],
                    "stretch {si}: pixel {n} of tile at {any:?} in storage order"
                );
            }
            whole += 1;
        }
        assert!(o.next().is_none(), "stretch {si}: pixels out beyond the tiles taken");
    }
    whole
}

fn run(cfg: &Config, seed: u64, cycles: u64) -> (Report<PixSlots, PixSlots>, ColourBufferStats) {
    let ready = Pattern::RandomStalls {
        pct: 75,
        permille: 2,
        min: 100,
        max: 500,
    };
    let hs = Handshake::new(Pattern::gaps(15), ready).with_flush(Flush::Random { permille: 1 });
    let mut lines = hs.lines(seed);
    let (px, flushes) = colour_buffer_input(cfg, seed, cycles, move || {
        let c = lines.step();
        (c.valid, c.ready, c.flush)
    });
    println!("{}: flushes (cycle, between tiles): {flushes:?}", cfg.name);
    assert!(
        flushes.iter().any(|f| f.1) && flushes.iter().any(|f| !f.1),
        "{}: want a flush between tiles and one mid-tile: {flushes:?}",
        cfg.name
    );
    let r = Run::new(hs, seed, cycles).go(ColourBuffer::new(cfg), ColourBufferCycle::new(cfg), px);
    println!("{}: {}", cfg.name, r.summary());
    let first = r.trace.iter().position(|s| s.out_valid);
    println!("{}: first out_valid (model) at cycle {first:?}", cfg.name);
    r.assert_clean(&cfg.name);
    let st = replay(cfg, &r);
    println!("{}: {st:?}", cfg.name);
    assert_eq!(r.flushes, flushes.len() as u64);
    assert!(r.longest_stall >= 100, "no long stall");
    assert!(st.tiles >= 4 && st.pieces > 2 * st.tiles, "{st:?}");
    assert!(st.stalled_in > 50 && st.stalled_out > 100, "{st:?}");
    assert_eq!(r.transferred, r.outputs().count() as u64);
    let outs: Vec<&PixSlots> = r.outputs().collect();
    assert!(outs.iter().any(|o| o.colour[0] != 0 && o.slot_valid & 1 == 1));
    let whole = check_order(cfg, &r);
    println!("{}: {whole} tiles whole in storage order", cfg.name);
    assert!(whole >= 3);
    (r, st)
}

#[test]
fn shared_blocks_match_the_cycle_model() {
    let cfg = shared_cfg();
    let lay = BufferLayout::new(&cfg);
    assert!(lay.classes[1].present && lay.classes[1].layout.shared_blocks > 0);
    let (_, st) = run(&cfg, 0xcb_5a, 12_000);
    assert!(st.shared_tiles > 0, "{st:?}");
}

#[test]
fn ice40_matches_the_cycle_model() {
    let cfg = Config::preset("ice40").unwrap();
    run(&cfg, 0xcb_1ce4, 12_000);
}

#[test]
fn refuses_what_the_ports_cannot_hold() {
    let mut c = Config::preset("default").unwrap();
    assert!(supported(&c).is_ok());
    c.second_tile = [128, 64];
    let e = supported(&c).unwrap_err();
    assert!(e.starts_with("config.second_tile:"), "{e}");
    let mut c = Config::preset("ice40").unwrap();
    c.second_tile = [256, 256];
    c.colour_block_bytes = 16;
    let e = supported(&c).unwrap_err();
    assert!(e.starts_with("config.") && !e.contains('\n'), "{e}");
}

#[test]
fn verilog_lints_clean() {
    let mut cfgs = vec![shared_cfg()];
    cfgs.extend(tilerast_golden::PRESETS.iter().map(|p| Config::preset(p).unwrap()));
    let mut c = Config::preset("default").unwrap();
    c.name = "c16".into();
    c.colours_per_pixel = 16;
    c.colour_block_bytes = 4096;
    cfgs.push(c);
    for c in cfgs {
        if supported(&c).is_err() {
            continue;
        }
        let top = format!("colour_buffer_{}", c.name);
        let v = tilerast_hw::colour_buffer::verilog(&c, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}
