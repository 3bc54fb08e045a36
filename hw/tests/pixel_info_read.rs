//! rust-hdl simulation of `PixelInfoRead` against its cycle model `PixelInfoReadCycle`, with a
//! golden `MemoryCycle` behind the read port (holding a finished `PixelInfoStore`'s bytes)
//! serviced from the testbench every cycle (its `req_ready` and response drive both sides):
//! `in_ready`, `rsp_ready`, `rd_valid` + `rd`, `out_valid` + `out` must agree on every cycle.
//! Stimulus: start tokens with gaps and junk payloads while idle, random `out_ready` with a
//! long stall, random memory grant with a long stall, flushes mid-frame; the records out must
//! be golden's `read_second_tile` records, tile by tile.

use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};
use tilerast_golden::config::Config;
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::pixel_info::PixelInfoStore;
use tilerast_golden::pixel_info_read::{tile_beats, PixelInfoReadCycle};
use tilerast_golden::streams::{port_name, ports, PiRecord, PiStart, Stream};
use tilerast_hw::pixel_info_read::PixelInfoRead;
use tilerast_verif::stim::{pixel_info_image, pixel_info_store};
use tilerast_verif::{Pattern, Rng};

/// Control lines of one cycle: (start offered, out_ready, memory grant, flush).
type Lines = Box<dyn FnMut(u64) -> (bool, bool, bool, bool) + Send>;

#[derive(Debug, Default)]
struct Report {
    cycles: u64,
    /// First mismatch: cycle and the differing ports (`name rtl model`).
    mismatch: Option<(u64, Vec<String>)>,
    /// Beats out that differ from golden's, first one.
    wrong: Option<String>,
    frames: u64,
    beats: u64,
    nones: u64,
    reads: u64,
    next_reads: u64,
    rd_stall: u64,
    out_stall: u64,
    longest_out_stall: u64,
    flushes: u64,
    /// First cycle a beat left.
    first_out: Option<u64>,
}

fn diff<S: Stream>(iface: &str, rtl: &S::Payload, model: &S::Payload, out: &mut Vec<String>) {
    let (r, m) = (S::to_bits(rtl), S::to_bits(model));
    for (i, f) in S::FIELDS.iter().enumerate() {
        if r[i] != m[i] {
            out.push(format!(
                "{} rtl {:#x} model {:#x}",
                port_name(iface, f.name),
                r[i],
                m[i]
            ));
        }
    }
}

fn golden_frame(st: &PixelInfoStore) -> Vec<PiRecord> {
    let mut st = st.clone();
    let mut beats = Vec::new();
    for t in st.second_tiles().collect::<Vec<_>>() {
        let recs = st.read_second_tile(t).unwrap();
        beats.extend(tile_beats(t, &recs, st.frame_id()));
    }
    beats
}

fn run(cfg: &Config, want: Vec<PiRecord>, timing: MemTiming, mem: SparseMemory, cycles: u64, lines: Lines) -> Report {
    let mut dut = PixelInfoRead::new(cfg);
    dut.connect_all();
    let state = Arc::new(Mutex::new(Some((
        PixelInfoReadCycle::new(cfg),
        MemoryCycle::new(timing, mem),
        lines,
    ))));
    let result = Arc::new(Mutex::new(None));
    let res = result.clone();
    let frame = want[0].frame;
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<PixelInfoRead>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<PixelInfoRead>| {
        let (mut model, mut mem, mut lines) = state.lock().unwrap().take().unwrap();
        let mut r = Report::default();
        let mut junk = Rng::new(77);
        let mut pos = 0usize;
        let mut stall = 0u64;
        let mut x = sim.init()?;
        for cycle in 0..cycles {
            let (valid, out_ready, grant, flush) = lines(cycle);
            let inp = PiStart {
                frame: if valid { frame } else { junk.next_u32() as u8 },
            };
            let rd_ready = mem.req_ready(grant);
            let (rsp_valid, rsp) = mem.resp();
            x.in_valid.next = valid;
            x.inp.drive(&inp);
            x.out_ready.next = out_ready;
            x.rd_ready.next = rd_ready;
            x.rsp_valid.next = rsp_valid;
            x.rsp.drive(&rsp);
            x.flush.next = flush;
            x = sim.watch(|x| !x.clock.val().clk, x)?;
            let in_ready = model.in_ready();
            let (out_valid, out) = model.out();
            let (rd_valid, rd) = model.rd();
            let rsp_ready = model.rsp_ready();
            let mut d = Vec::new();
            for (name, rtl, m) in [
                ("in_ready", x.in_ready.val(), in_ready),
                ("rsp_ready", x.rsp_ready.val(), rsp_ready),
                ("rd_valid", x.rd_valid.val(), rd_valid),
                ("out_valid", x.out_valid.val(), out_valid),
            ] {
                if rtl != m {
                    d.push(format!("{name} rtl {rtl} model {m}"));
                }
            }
            diff::<ports::MemReq>("rd", &x.rd.sample(), &rd, &mut d);
            diff::<ports::PiRecord>("out", &x.out.sample(), &out, &mut d);
            r.cycles = cycle + 1;
            if !d.is_empty() {
                r.mismatch = Some((cycle, d));
                break;
            }
            r.rd_stall += (rd_valid && !rd_ready) as u64;
            r.out_stall += (out_valid && !out_ready) as u64;
            stall = if out_valid && !out_ready { stall + 1 } else { 0 };
            r.longest_out_stall = r.longest_out_stall.max(stall);
            r.flushes += flush as u64;
            if flush {
                pos = 0;
            } else {
                if out_valid && out_ready {
                    r.first_out.get_or_insert(cycle);
                    if out != want[pos] && r.wrong.is_none() {
                        r.wrong = Some(format!("cycle {cycle}: beat {pos} {out:?}, golden {:?}", want[pos]));
                    }
                    r.beats += 1;
                    r.nones += out.none as u64;
                    pos += 1;
                    if pos == want.len() {
                        pos = 0;
                        r.frames += 1;
                    }
                }
                r.reads += (rd_valid && rd_ready) as u64;
            }
            model.clock(valid, &inp, out_ready, rd_ready, rsp_valid, &rsp, flush);
            mem.clock(rd_valid && !flush, &rd, grant, rsp_ready, flush);
            x = sim.watch(|x| x.clock.val().clk, x)?;
        }
        r.next_reads = model.stats().next_reads;
        *res.lock().unwrap() = Some(r);
        sim.done(x)
    });
    sim.run(Box::new(dut), 10 * (cycles + 10)).expect("rust-hdl simulation");
    let r = result.lock().unwrap().take().unwrap();
    r
}

fn check(what: &str, r: &Report) {
    println!("{what}: {r:?}");
    if let Some((c, d)) = &r.mismatch {
        panic!(
            "{what}: PixelInfoRead and PixelInfoReadCycle differ at cycle {c}: {}",
            d.join("; ")
        );
    }
    assert_eq!(r.wrong, None, "{what}: records differ from golden's");
}

#[test]
fn cosim_against_the_cycle_model() {
    // ice40 (40 second tiles, 3 words, 5 per block) and full's 20-byte records on a smaller
    // viewport (5 words, 3 per block), each with its own memory timing.
    let a = Config::preset("ice40").unwrap();
    let mut b = Config::preset("full").unwrap();
    b.viewport = [256, 128];
    for (i, (cfg, timing, quads)) in [
        (a, MemTiming { latency: 2, depth: 3 }, 60),
        (b, MemTiming { latency: 3, depth: 2 }, 40),
    ]
    .into_iter()
    .enumerate()
    {
        let seed = 50 + i as u64;
        let st = pixel_info_store(&cfg, seed, quads, 0xa5);
        let want = golden_frame(&st);
        let mut rl = Pattern::RandomStalls {
            pct: 75,
            permille: 3,
            min: 5,
            max: 20,
        }
        .line(Rng::stream(seed, 1));
        let mut vl = Pattern::gaps(60).line(Rng::stream(seed, 0));
        let mut gl = Pattern::Random { pct: 75 }.line(Rng::stream(seed, 2));
        let lines: Lines = Box::new(move |c| {
            let (v, r, g) = (vl.step(), rl.step(), gl.step());
            (
                v,
                r && !(700..800).contains(&c),   // a long output stall
                g && !(1500..1560).contains(&c), // a long memory stall
                c == 1100 || c == 2300,
            )
        });
        let r = run(&cfg, want, timing, pixel_info_image(&st), 4000, lines);
        check(&format!("{} S = {}", cfg.name, cfg.msaa), &r);
        assert_eq!(r.flushes, 2);
        assert!(r.longest_out_stall >= 90, "long stall: {}", r.longest_out_stall);
        assert!(r.frames >= 1 && r.nones > 5 && r.next_reads > 5, "{r:?}");
        assert!(r.rd_stall > 50 && r.out_stall > 50, "{r:?}");
    }
}

/// Directed: default preset, memory latency 1, nothing stalls; the first record on `out` at
/// cycle 7 + 2L + W = 12 (the contract's latency), checked on the RTL through the model.
#[test]
fn directed_first_record() {
    let cfg = Config::preset("default").unwrap();
    let mut st = PixelInfoStore::new(&cfg, 3).unwrap();
    for i in 0..7 {
        let q = tilerast_golden::Quad {
            prim: 100 + i,
            qx: i as u16,
            qy: 1,
            mask: 0xf0f0,
        };
        st.push(&q, 1000 + i).unwrap();
    }
    st.finish_raster().unwrap();
    let want = golden_frame(&st);
    let lines: Lines = Box::new(|c| (c == 0, true, true, false));
    let r = run(
        &cfg,
        want,
        MemTiming { latency: 1, depth: 2 },
        pixel_info_image(&st),
        40,
        lines,
    );
    check("directed", &r);
    assert_eq!(r.first_out, Some(12), "{r:?}");
    assert!(r.beats >= 7, "{r:?}");
}

#[test]
fn verilog_lints_clean() {
    for p in tilerast_golden::PRESETS {
        let cfg = Config::preset(p).unwrap();
        let top = format!("pixel_info_read_{p}");
        let v = tilerast_hw::pixel_info_read::verilog(&cfg, &top);
        assert!(tilerast_hw::emit::rangeless_signed_localparams(&v).is_empty(), "{top}");
        if let Err(msg) = tilerast_hw::emit::lint(&v, &top) {
            panic!("{top}: lint:\n{msg}");
        }
    }
}

#[test]
fn refuses_bad_configs_by_name() {
    let mut cfg = Config::preset("full").unwrap();
    cfg.pixel_info_block_bytes = 16;
    let e = tilerast_hw::pixel_info_read::supported(&cfg).unwrap_err();
    assert!(
        e.starts_with("config.pixel_info_block_bytes:") && !e.contains('\n'),
        "{e}"
    );
}
