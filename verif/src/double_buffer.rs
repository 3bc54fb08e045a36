//! The double buffer's bench, shared by its rust-hdl, Verilator and gate-level tests: a GPU
//! agent that plays the frame top's side (each frame's requests in the other regions of its
//! set, its end token, then its framebuffer requests after the previous frame's `done`, then its
//! own `done`; the next frame's front half interleaved with this one's pixel half, some frames
//! with no pixel writes at all), and a screen agent behind `out` that performs the writes on a
//! memory, latches the front buffer at each vertical blank as the scan-out does (`front` and
//! `shown` each through a synchroniser's delay) and checks that every buffer it shows is the
//! next frame's picture and that no write lands in the buffer on the screen.
//!
//! ```text
//!   Gpu: inp (MemReq), ends (FrameEnd), done ─► double_buffer ─► out ─► Screen: memory,
//!   Screen: shown ◄─ latched `front` at each vblank (SYNC_LAG each way)     torn writes, pictures
//! ```

use crate::lockstep::{Agent, Bench, Ctl, Flushes};
use crate::{Pattern, Rng};
use std::any::Any;
use std::collections::VecDeque;
use tilerast_golden::cycle::Ports;
use tilerast_golden::double_buffer::BoardMap;
use tilerast_golden::frame::{BINS, PIXEL_INFO, PRIMS, SET_STRIDE};
use tilerast_golden::memory_port::SparseMemory;
use tilerast_golden::streams::{ports, FrameEnd, MemReq};

/// Cycles a level takes through a synchroniser (each way): the board top's.
pub use tilerast_golden::crossing::SYNC_FLOPS as SYNC_LAG;

/// One frame as the frame top sends it.
#[derive(Clone, Debug)]
pub struct FrameScript {
    pub background: u32,
    /// Requests in the prims, bins and pixel-info regions of its set (Bin and Raster phases).
    pub front: Vec<MemReq>,
    /// The Pixel phase: framebuffer writes and reads among reads of its set.
    pub pixel: Vec<MemReq>,
}

/// What the GPU agent does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    Req(MemReq),
    End(u32),
    Done,
}

fn request(r: &mut Rng, addr: u32, write_pct: u64) -> MemReq {
    let write = r.chance(write_pct);
    MemReq {
        addr,
        write,
        wdata: if write { r.next_u32() } else { 0 },
        be: if write { 1 + r.below(15) as u8 } else { 0 },
    }
}

/// `s.frames` frames on `map`: frames `s.drawn_of_8` to 7 of every eight draw nothing (their
/// dones come at once); `s.outside` puts, into frame 2's front half, requests at every
/// window's edges in both sets: its last word and the first address past it (for pixel info,
/// outside every window).
pub fn frames(map: &BoardMap, s: &DoubleBufferStim) -> Vec<FrameScript> {
    let (n, seed, outside) = (s.frames, s.seed, s.outside);
    let mut r = Rng::stream(seed, 30);
    let words = map.fb_bytes / 4;
    (0..n)
        .map(|k| {
            let set = if k % 2 == 1 { SET_STRIDE } else { 0 };
            let other = |r: &mut Rng| {
                let region = [PRIMS, BINS, PIXEL_INFO][r.index(3)];
                let limit = map.windows[k % 2][0].1.min(0x400) / 4;
                let addr = set | (region + 4 * r.below(limit.into()) as u32);
                request(r, addr, 50)
            };
            let mut front: Vec<MemReq> = (0..r.below(s.front_max)).map(|_| other(&mut r)).collect();
            if outside && k == 2 {
                // Every window's edges, both sets: its last word, and the first address past
                // it (outside every window, or in the next region).
                for (set, windows) in map.windows.iter().enumerate() {
                    for (start, (_, bytes)) in [PRIMS, BINS, PIXEL_INFO].into_iter().zip(windows) {
                        let end = (set as u32 * SET_STRIDE) | (start + bytes);
                        for addr in [end - 4, end] {
                            front.push(MemReq {
                                addr,
                                ..MemReq::default()
                            });
                        }
                    }
                }
            }
            let mut pixel = vec![];
            if (k % 8) < s.drawn_of_8 {
                for _ in 0..4 + r.below(u64::from(words.min(60))) {
                    pixel.push(if r.chance(15) {
                        other(&mut r)
                    } else {
                        let addr = 4 * r.below(words.into()) as u32;
                        request(&mut r, addr, 85)
                    });
                }
            }
            FrameScript {
                background: r.next_u32(),
                front,
                pixel,
            }
        })
        .collect()
}

/// The frame top's order: frame 0's front half and end, then per frame its pixel half
/// interleaved at random with the next frame's front half and end, then its `done`.
pub fn events(frames: &[FrameScript], seed: u64) -> Vec<Event> {
    let mut r = Rng::stream(seed, 31);
    let front = |f: &FrameScript| {
        let mut e: Vec<Event> = f.front.iter().map(|&q| Event::Req(q)).collect();
        e.push(Event::End(f.background));
        e
    };
    let mut out = front(&frames[0]);
    for k in 0..frames.len() {
        let mut pixel: VecDeque<Event> = frames[k].pixel.iter().map(|&q| Event::Req(q)).collect();
        let mut next: VecDeque<Event> = frames.get(k + 1).map(front).unwrap_or_default().into();
        while !pixel.is_empty() || !next.is_empty() {
            let from_pixel = next.is_empty() || (!pixel.is_empty() && r.chance(60));
            out.push(
                if from_pixel {
                    pixel.pop_front()
                } else {
                    next.pop_front()
                }
                .unwrap(),
            );
        }
        out.push(Event::Done);
    }
    out
}

/// The picture frame `f` leaves in its buffer: its background, then its framebuffer writes.
pub fn picture(map: &BoardMap, f: &FrameScript) -> Vec<u32> {
    let mut m = SparseMemory::new();
    for pos in 0..map.fb_bytes / 4 {
        m.write(4 * pos, f.background, 0xf);
    }
    for q in f.pixel.iter().filter(|q| q.write && q.addr < PRIMS) {
        m.write(q.addr, q.wdata, q.be);
    }
    (0..map.fb_bytes / 4).map(|pos| m.read(4 * pos)).collect()
}

/// The frame top: plays [`events`] on `inp`, `ends` and `done`; after a flush, from the start.
pub struct Gpu {
    events: Vec<Event>,
    next: usize,
    valid: Ctl,
    gaps: Rng,
    /// Cycles before the next `done` may pulse.
    wait: u64,
    offered: bool,
    /// Requests and end tokens taken, dones sent.
    pub requests: u64,
    pub ends: u64,
    pub dones: u64,
}

impl Gpu {
    pub fn new(events: Vec<Event>, valid: Ctl, gaps: Rng) -> Gpu {
        Gpu {
            events,
            next: 0,
            valid,
            gaps,
            wait: 0,
            offered: false,
            requests: 0,
            ends: 0,
            dones: 0,
        }
    }

    /// Events not yet played.
    pub fn left(&self) -> usize {
        self.events.len() - self.next
    }

    fn advance(&mut self) {
        self.next += 1;
        if let Some(Event::Done) = self.events.get(self.next) {
            self.wait = self.gaps.below(4);
        }
    }
}

impl Agent for Gpu {
    fn drive(&mut self, cycle: u64, p: &mut Ports) {
        let event = self.events.get(self.next).copied();
        let want = (self.valid)(cycle);
        let (mut req, mut end) = (MemReq::default(), FrameEnd::default());
        let (mut req_valid, mut end_valid, mut done) = (false, false, false);
        match event {
            Some(Event::Req(q)) => (req, req_valid) = (q, want),
            Some(Event::End(c)) => (end, end_valid) = (FrameEnd { colour: c }, want),
            Some(Event::Done) => done = self.wait == 0,
            None => {}
        }
        self.offered = req_valid || end_valid || done;
        p.set("in_valid", req_valid as u64);
        p.put_payload::<ports::MemReq>("inp", &req);
        p.set("ends_valid", end_valid as u64);
        p.put_payload::<ports::FrameEnd>("ends", &end);
        p.set("done", done as u64);
    }

    fn edge(&mut self, _: u64, i: &Ports, o: &Ports) {
        if i.bit("flush") {
            // The frame top is flushed with the block: the script starts again.
            self.next = 0;
            return;
        }
        if !self.offered {
            self.wait = self.wait.saturating_sub(1);
            return;
        }
        match self.events[self.next] {
            Event::Req(_) if o.bit("in_ready") => {
                self.requests += 1;
                self.advance();
            }
            Event::End(_) if o.bit("ends_ready") => {
                self.ends += 1;
                self.advance();
            }
            Event::Done => {
                self.dones += 1;
                self.advance();
            }
            _ => {}
        }
    }

    fn summary(&self) -> String {
        format!(
            "gpu: {} requests, {} ends, {} dones, {} events left",
            self.requests,
            self.ends,
            self.dones,
            self.left()
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The memory and the scan-out behind `out`.
pub struct Screen {
    map: BoardMap,
    ready: Ctl,
    first_vblank: u64,
    period: u64,
    pictures: Vec<Vec<u32>>,
    /// `front` as the scan-out's domain sees it (oldest first) and `shown` as the GPU's does.
    front_seen: VecDeque<bool>,
    shown_seen: VecDeque<bool>,
    /// The buffer on the screen.
    pub shown: bool,
    pub memory: SparseMemory,
    /// Writes taken, and those into the buffer on the screen (the first one's cycle).
    pub writes: u64,
    pub torn: u64,
    pub first_torn: Option<u64>,
    /// Swaps seen at vertical blank, and the pictures they showed that were not the next
    /// frame's (the first one's index).
    pub swaps: usize,
    pub wrong: Vec<usize>,
}

impl Screen {
    pub fn new(map: BoardMap, pictures: Vec<Vec<u32>>, first_vblank: u64, period: u64, ready: Ctl) -> Screen {
        Screen {
            map,
            ready,
            first_vblank,
            period,
            pictures,
            front_seen: VecDeque::from(vec![false; SYNC_LAG]),
            shown_seen: VecDeque::from(vec![false; SYNC_LAG]),
            shown: false,
            memory: SparseMemory::new(),
            writes: 0,
            torn: 0,
            first_torn: None,
            swaps: 0,
            wrong: vec![],
        }
    }

    fn in_buffer(&self, which: bool, addr: u32) -> bool {
        let base = self.map.buffers[usize::from(which)];
        addr >= base && addr - base < self.map.fb_bytes
    }
}

impl Agent for Screen {
    fn drive(&mut self, cycle: u64, p: &mut Ports) {
        p.set("out_ready", (self.ready)(cycle) as u64);
        p.set("shown", self.shown_seen[0] as u64);
    }

    fn edge(&mut self, cycle: u64, i: &Ports, o: &Ports) {
        if o.bit("out_valid") && i.bit("out_ready") && !i.bit("flush") {
            let q = o.payload::<ports::MemReq>("out");
            if q.write {
                self.writes += 1;
                self.memory.write(q.addr, q.wdata, q.be);
                if self.in_buffer(self.shown, q.addr) {
                    self.torn += 1;
                    self.first_torn.get_or_insert(cycle);
                }
            }
        }
        let front = self.front_seen.pop_front().unwrap();
        self.front_seen.push_back(o.bit("front"));
        if cycle >= self.first_vblank && (cycle - self.first_vblank).is_multiple_of(self.period) && front != self.shown
        {
            self.shown = front;
            let base = self.map.buffers[usize::from(front)];
            let shows = |want: &Vec<u32>| (0..want.len()).all(|p| self.memory.read(base + 4 * p as u32) == want[p]);
            if !self.pictures.get(self.swaps).is_some_and(shows) {
                self.wrong.push(self.swaps);
            }
            self.swaps += 1;
        }
        self.shown_seen.pop_front();
        self.shown_seen.push_back(self.shown);
    }

    fn summary(&self) -> String {
        format!(
            "screen: {} writes, {} swaps, {} wrong pictures, {} torn writes",
            self.writes,
            self.swaps,
            self.wrong.len(),
            self.torn
        )
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// How a bench drives the block.
#[derive(Clone, Debug)]
pub struct DoubleBufferStim {
    pub seed: u64,
    pub frames: usize,
    /// A vertical blank every `period` cycles from `first_vblank`.
    pub first_vblank: u64,
    pub period: u64,
    /// The GPU's valid and the memory's ready, % of cycles.
    pub valid_pct: u32,
    pub ready_pct: u32,
    /// Requests at every window's edges, some outside every window (frame 2).
    pub outside: bool,
    /// Requests in a frame's front half: fewer than this (at random).
    pub front_max: u64,
    /// Of every eight frames, the first `drawn_of_8` draw (the others have no pixel half).
    pub drawn_of_8: usize,
    /// Random flushes, per million cycles (0: none).
    pub flush_ppm: u64,
}

/// The bench for `map` under `s`: agents `gpu` and `screen`.
pub fn bench(map: &BoardMap, s: &DoubleBufferStim) -> Bench {
    let scripts = frames(map, s);
    let pictures = scripts.iter().map(|f| picture(map, f)).collect();
    let mut valid = Pattern::Runs { pct: s.valid_pct }.line(Rng::stream(s.seed, 0));
    let mut ready = Pattern::RandomStalls {
        pct: s.ready_pct,
        permille: 5,
        min: 3,
        max: 40,
    }
    .line(Rng::stream(s.seed, 1));
    let mut flush_rng = Rng::stream(s.seed, 2);
    let ppm = s.flush_ppm;
    Bench::new()
        .with(
            "flush",
            Flushes::when(Box::new(move |c| c > 10 && ppm > 0 && flush_rng.below(1_000_000) < ppm)),
        )
        .with(
            "gpu",
            Gpu::new(
                events(&scripts, s.seed),
                Box::new(move |_| valid.step()),
                Rng::stream(s.seed, 3),
            ),
        )
        .with(
            "screen",
            Screen::new(
                *map,
                pictures,
                s.first_vblank,
                s.period,
                Box::new(move |_| ready.step()),
            ),
        )
}

/// The screen's verdict on a run of `frames` frames without flushes: the whole script played,
/// every frame shown once and in order, each picture the frame's, no write into the buffer on
/// the screen.
pub fn assert_every_frame_shown(bench: &Bench, frames: usize) {
    let screen = bench.get::<Screen>("screen");
    assert_eq!(bench.get::<Gpu>("gpu").left(), 0, "the whole script played");
    assert_eq!(screen.swaps, frames, "every frame shown");
    assert!(
        screen.wrong.is_empty(),
        "pictures that were not the frame's: {:?}",
        screen.wrong
    );
    assert_eq!(
        screen.torn, 0,
        "writes into the buffer on the screen, the first at cycle {:?}",
        screen.first_torn
    );
}

/// Where the planted bug (`DoubleBufferCycle::plant_no_vblank_wait_bug`, the RTL's
/// `mutant_no_vblank_wait` and cosim's `double_buffer` mutant) first shows on the ports under
/// `s` within `cycles`: (cycle, port), from the model with the bug against the model without.
pub fn predicted_no_vblank_wait_bug(map: &BoardMap, s: &DoubleBufferStim, cycles: u64) -> (u64, String) {
    use crate::lockstep::{first_difference, Lockstep};
    use tilerast_golden::double_buffer::DoubleBufferCycle;
    let mut bad_model = DoubleBufferCycle::new(*map);
    bad_model.plant_no_vblank_wait_bug();
    let mut good = Lockstep::new(DoubleBufferCycle::new(*map), bench(map, s));
    let mut bad = Lockstep::new(bad_model, bench(map, s));
    first_difference(&mut good, &mut bad, cycles)
        .unwrap()
        .expect("the no-vblank-wait bug shows on the ports")
}
