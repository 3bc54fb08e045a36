//! PROVISIONAL (main's own quick implementation of the dst_fetch contract, to be replaced by
//! the dst-fetch branch's model): the output merger's read side.

use crate::config::Config;
use crate::streams::{BlendFrag, MemReq, MemResp, PixSlots, LANES};
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DstFetchStats {
    pub pixels: u64,
    pub reads: u64,
    pub frags: u64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Meta {
    pos: u32,
    src: u32,
    close: bool,
}

#[derive(Clone, Debug)]
pub struct DstFetchCycle {
    w: u32,
    c: u32,
    k: u32,
    hmask: u16,
    hyw: u32,
    hx: u32,
    hcol: [u32; 16],
    rd_valid: bool,
    rd: MemReq,
    meta: VecDeque<Meta>,
    n: u32,
    an: usize,
    apos: [u32; LANES],
    asrc: [u32; LANES],
    adst: [u32; LANES],
    adone: bool,
    out_valid: bool,
    out: BlendFrag,
    stats: DstFetchStats,
}

impl DstFetchCycle {
    pub fn try_new(cfg: &Config) -> Result<DstFetchCycle, String> {
        Ok(DstFetchCycle {
            w: cfg.viewport[0],
            c: cfg.colours_per_pixel.trailing_zeros(),
            k: cfg.blend_pool.min(LANES as u32),
            hmask: 0,
            hyw: 0,
            hx: 0,
            hcol: [0; 16],
            rd_valid: false,
            rd: MemReq::default(),
            meta: VecDeque::new(),
            n: 0,
            an: 0,
            apos: [0; LANES],
            asrc: [0; LANES],
            adst: [0; LANES],
            adone: false,
            out_valid: false,
            out: BlendFrag::default(),
            stats: DstFetchStats::default(),
        })
    }

    pub fn new(cfg: &Config) -> DstFetchCycle {
        Self::try_new(cfg).unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn out(&self) -> (bool, BlendFrag) {
        (self.out_valid, self.out)
    }

    fn issue(&self, rd_ready: bool) -> bool {
        (!self.rd_valid || rd_ready) && self.hmask != 0 && self.meta.len() < 4
    }

    pub fn in_ready(&self, rd_ready: bool) -> bool {
        self.hmask == 0 || (self.hmask.count_ones() == 1 && self.issue(rd_ready))
    }

    pub fn rd(&self) -> (bool, MemReq) {
        (self.rd_valid, self.rd)
    }

    pub fn rsp_ready(&self) -> bool {
        !self.adone
    }

    #[allow(clippy::too_many_arguments)]
    pub fn clock(
        &mut self,
        in_valid: bool,
        inp: &PixSlots,
        out_ready: bool,
        rd_ready: bool,
        rsp_valid: bool,
        rsp: &MemResp,
        flush: bool,
    ) {
        if flush {
            let (w, c, k) = (self.w, self.c, self.k);
            let stats = self.stats;
            let mut n = DstFetchCycle::try_new(&Config::preset("default").unwrap()).unwrap();
            (n.w, n.c, n.k, n.stats) = (w, c, k, stats);
            *self = n;
            return;
        }
        let cmask: u16 = if self.c >= 4 { 0xffff } else { ((1u32 << (1 << self.c)) - 1) as u16 };
        let issue = self.issue(rd_ready);
        let take = in_valid && self.in_ready(rd_ready);
        let adv_out = !self.out_valid || out_ready;
        let adv_rd = !self.rd_valid || rd_ready;
        let rsp_take = rsp_valid && !self.adone;
        let was_adone = self.adone;
        // Output register.
        if was_adone && adv_out {
            let mut f = BlendFrag {
                lane_valid: ((1u32 << self.an) - 1) as u8,
                ..BlendFrag::default()
            };
            for l in 0..self.an {
                f.pos[l] = self.apos[l];
                f.src[l] = self.asrc[l];
                f.dst[l] = self.adst[l];
            }
            self.out = f;
            self.out_valid = true;
            self.an = 0;
            self.adone = false;
            self.apos = [0; LANES];
            self.asrc = [0; LANES];
            self.adst = [0; LANES];
            self.stats.frags += 1;
        } else if adv_out {
            self.out_valid = false;
        }
        // Response into the assembly (never in the cycle the assembly leaves: rsp_ready = ¬adone).
        let meta_before = self.meta.len();
        if rsp_take {
            let m = self.meta.pop_front().expect("a response answers an issued read");
            self.apos[self.an] = m.pos;
            self.asrc[self.an] = m.src;
            self.adst[self.an] = rsp.rdata;
            self.an += 1;
            if m.close {
                self.adone = true;
            }
        }
        let _ = meta_before;
        // Issue.
        if issue {
            let j = self.hmask.trailing_zeros();
            let pos = ((self.hyw + self.hx) << self.c) | j;
            let last = self.hmask.count_ones() == 1;
            let close = self.n == self.k - 1 || (last && !(in_valid && inp.slot_valid & cmask != 0));
            self.rd = MemReq {
                addr: 4 * pos,
                write: false,
                wdata: 0,
                be: 0,
            };
            self.rd_valid = true;
            self.meta.push_back(Meta {
                pos,
                src: self.hcol[j as usize],
                close,
            });
            self.hmask &= !(1 << j);
            self.n = if close { 0 } else { self.n + 1 };
            self.stats.reads += 1;
        } else if adv_rd {
            self.rd_valid = false;
        }
        // Accept.
        if take {
            self.hmask = inp.slot_valid & cmask;
            self.hyw = inp.y * self.w;
            self.hx = inp.x;
            self.hcol = inp.colour;
            self.stats.pixels += 1;
        }
    }

    pub fn stats(&self) -> DstFetchStats {
        self.stats
    }
}
