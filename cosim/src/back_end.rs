//! The pixel back end (`rtl-out/tilerast_pixel_back_end_<preset>.v`: pixel processor, dst
//! read, blender and output merger behind one memory port) against its cycle model
//! `PixelBackEndCycle`, every port on every cycle, with a Rust memory model (`MemoryCycle`:
//! read latency, response depth, random back-pressure, long stalls) behind the port. Used by
//! `cosim/tests/pixel_back_end.rs` and `tilerast regress --back-end`.
//!
//! ```text
//!  pixels + Drive ─► PixelBackEndCycle ◄──► MemoryCycle   (golden side: predicts every port)
//!      │                  │ predicted outputs (a batch of BATCH cycles)
//!      ▼                  ▼
//!  in words ─► Verilator block ─► out words ══ compare every port, every cycle
//! ```
//!
//! The memory answers the model's requests; where the RTL's differ, the comparison stops at
//! that cycle, so the memory never has to follow the RTL. Port names come from the generated
//! port table and the streams' one declaration; every port must be driven or predicted
//! exactly once.

use crate::blocks::{get_bits, set_bits, BlockRtl, PortDesc, BATCH};
use tilerast_golden::memory_port::{MemTiming, MemoryCycle, SparseMemory};
use tilerast_golden::output_merger::image_from_memory;
use tilerast_golden::pipeline::back_end_input;
use tilerast_golden::pixel_back_end::{framebuffer, PixelBackEndCycle};
use tilerast_golden::scene::Frame;
use tilerast_golden::streams::{ports, PixSamples, Stream};
use tilerast_golden::Config;
use tilerast_verif::Rng;

/// The stage name of the back end.
pub const STAGE: &str = "pixel_back_end";

/// One cycle's port values by name.
type Named = Vec<(String, u64)>;

fn stream_ports<S: Stream>(iface: &str, x: &S::Payload, v: &mut Named) {
    for (f, val) in S::FIELDS.iter().zip(S::values(x)) {
        v.push((format!("{iface}__{}", f.name), val));
    }
}

/// Pack named values into words by the port table; every port must be named exactly once.
fn pack(ports_of: &[PortDesc], vals: &Named, words: &mut [u32], module: &str) {
    words.fill(0);
    assert_eq!(vals.len(), ports_of.len(), "{module}: {} values for {} ports", vals.len(), ports_of.len());
    for (n, v) in vals {
        let p = ports_of
            .iter()
            .find(|p| p.name == n)
            .unwrap_or_else(|| panic!("{module}: no port `{n}`"));
        assert!(p.width >= 64 || v >> p.width == 0, "{module}: {v:#x} does not fit {n}");
        set_bits(words, p.offset, p.width, *v);
    }
}

/// What drives a run besides the pixels.
#[derive(Clone, Debug)]
pub struct Drive {
    pub seed: u64,
    /// Per-mille chances: no pixel offered (gap), memory busy.
    pub gap_pm: u64,
    pub busy_pm: u64,
    /// Cycles at which `flush` is high (the memory drops its held reads too).
    pub flush_at: Vec<u64>,
    /// A long memory stall: [from, to).
    pub stall: (u64, u64),
    pub timing: MemTiming,
    /// Stop after this many cycles (0: when the frame's writes are done).
    pub cycles: u64,
    /// Change the predicted value of this port at this cycle (a perturbed model).
    pub perturb: Option<(u64, &'static str)>,
}

/// What a run did.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub cycles: u64,
    pub accepted: usize,
    pub writes: u64,
    pub reads: u64,
    pub busy_flushes: u64,
    pub memory: SparseMemory,
}

/// Run the RTL and the model side by side; `Err` names the first differing cycle and port.
pub fn run(preset: &str, cfg: &Config, pixels: &[PixSamples], mem0: SparseMemory, want_writes: u64, d: &Drive) -> Result<Outcome, String> {
    let mut rtl = BlockRtl::new(preset, STAGE)?;
    let desc = rtl.desc;
    let (iw, ow) = (desc.in_words(), desc.out_words());
    let mut model = PixelBackEndCycle::new(cfg);
    let mut mem = MemoryCycle::new(d.timing, mem0);
    let mut r = Rng::new(d.seed);
    let (mut next, mut cyc, mut busy_flushes) = (0usize, 0u64, 0u64);
    let mut inw = vec![0u32; BATCH * iw];
    let mut exp = vec![0u32; BATCH * ow];
    let mut got = vec![0u32; BATCH * ow];
    loop {
        let start = cyc;
        let mut n = 0;
        let mut done = false;
        while n < BATCH {
            let flush = d.flush_at.contains(&cyc);
            let grant = !(d.stall.0..d.stall.1).contains(&cyc) && !r.permille(d.busy_pm);
            let req_ready = mem.req_ready(grant);
            let (rv, resp) = mem.resp();
            let (qv, q) = model.mem_req();
            let offer = next < pixels.len() && !r.permille(d.gap_pm);
            let inp = if offer {
                pixels[next]
            } else {
                // Junk while idle: the block must ignore the payload without in_valid.
                let mut j = PixSamples {
                    x: r.below(1 << 12) as u32,
                    y: r.below(1 << 12) as u32,
                    mask: r.next_u32() as u16,
                    ..PixSamples::default()
                };
                j.colour[0] = r.next_u32();
                j
            };
            let in_ready = model.in_ready(req_ready);
            let resp_ready = model.mem_resp_ready();
            let mut i: Named = vec![
                ("flush".into(), flush as u64),
                ("in_valid".into(), offer as u64),
                ("mem_req_ready".into(), req_ready as u64),
                ("mem_resp_valid".into(), rv as u64),
            ];
            stream_ports::<ports::PixSamples>("inp", &inp, &mut i);
            stream_ports::<ports::MemResp>("mem_resp", &resp, &mut i);
            let mut o: Named = vec![
                ("in_ready".into(), in_ready as u64),
                ("mem_req_valid".into(), qv as u64),
                ("mem_resp_ready".into(), resp_ready as u64),
            ];
            let mut qp = q;
            if d.perturb.is_some_and(|(at, p)| at == cyc && p == "mem_req__addr") {
                qp.addr ^= 4;
            }
            stream_ports::<ports::MemReq>("mem_req", &qp, &mut o);
            pack(desc.inputs, &i, &mut inw[n * iw..(n + 1) * iw], desc.module);
            pack(desc.outputs, &o, &mut exp[n * ow..(n + 1) * ow], desc.module);
            if flush && (qv || next > 0 && next < pixels.len()) {
                busy_flushes += 1;
            }
            if offer && in_ready && !flush {
                next += 1;
            }
            model.clock(offer, &inp, req_ready, rv, &resp, flush);
            mem.clock(qv && !flush, &q, grant, resp_ready && !flush, flush);
            cyc += 1;
            n += 1;
            let finished = if d.cycles > 0 {
                cyc >= d.cycles
            } else {
                next == pixels.len() && mem.stats.writes >= want_writes && mem.held() == 0
            };
            if finished {
                done = true;
                break;
            }
            if cyc > 100 * pixels.len() as u64 + 100_000 {
                return Err(format!("no progress: {next} of {} pixels after {cyc} cycles", pixels.len()));
            }
        }
        rtl.run(&inw[..n * iw], &mut got[..n * ow]);
        for k in 0..n {
            let (e, g) = (&exp[k * ow..(k + 1) * ow], &got[k * ow..(k + 1) * ow]);
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
                return Err(format!("cycle {}: {}", start + k as u64, diff.join(", ")));
            }
        }
        if done {
            return Ok(Outcome {
                cycles: cyc,
                accepted: next,
                writes: mem.stats.writes,
                reads: mem.stats.reads,
                busy_flushes,
                memory: mem.mem,
            });
        }
    }
}

/// The drive of the whole-frame checks: no gaps, 25 % memory back-pressure, a 2500-cycle
/// memory stall, read latency 2 with three responses held, run until the frame's writes are
/// done.
pub fn frame_drive(seed: u64) -> Drive {
    Drive {
        seed,
        gap_pm: 0,
        busy_pm: 250,
        flush_at: vec![],
        stall: (3_000, 5_500),
        timing: MemTiming { latency: 2, depth: 3 },
        cycles: 0,
        perturb: None,
    }
}

/// The whole-back-end differential for one frame: golden's scatter stream through the RTL
/// (verilated for `preset`, which must be the frame's config) with `d`; `Ok` when every port
/// equals the model on every cycle, the memory holds golden's framebuffer byte for byte and
/// its image is `render_frame`'s bit for bit. Returns the outcome and the input pixels.
pub fn check_frame(preset: &str, frame: &Frame, d: &Drive) -> Result<(Outcome, usize), String> {
    let out = back_end_input(frame).map_err(|e| e.to_string())?;
    let rec = out.back_end.ok_or("back_end_input recorded nothing")?;
    let o = run(
        preset,
        &frame.cfg,
        &rec.input,
        framebuffer(&frame.cfg, rec.background),
        out.stats.blend.samples,
        d,
    )?;
    if let Some((a, want, got)) = rec.memory.first_difference(&o.memory) {
        return Err(format!("memory byte {a:#x} is {got:#04x}, golden {want:#04x}"));
    }
    if Some(image_from_memory(&frame.cfg, &o.memory)) != out.image {
        return Err("image differs from render_frame's".into());
    }
    if o.writes != out.stats.blend.samples {
        return Err(format!("{} writes for {} blend samples", o.writes, out.stats.blend.samples));
    }
    Ok((o, rec.input.len()))
}
