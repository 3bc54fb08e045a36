//! # board_top: the ULX3S board top's logic in its three clocks (issue 35)
//!
//! **Role.** Everything of `tilerast_top_ulx3s_frame` but the pins' cells (the PLL, the TMDS
//! serialisers, the UART): the frame top at the frame row's preset and the double buffer at the
//! GPU clock, the GPU port's two crossing FIFOs ([`Crossing`]: requests 69 bits, answers 32
//! bits, 16 words each), `front` into the memory clock and `shown` back into the GPU clock
//! through two flops each, and [`DisplayPath`] (the arbiter, the SDRAM controller, the
//! scan-out, the line buffer, the video output). Cycle model:
//! `tilerast_golden::board_top::BoardTopCycle`, whose rustdoc is the timing contract.
//!
//! **Ports** (the golden signature `BoardTop`): `clock` (memory), `gpu_clock`, `pixel_clock`
//! (their rising edges coincide with memory edges, as from one PLL); `flush` (not used: the
//! top runs from its power-up state); `in_valid`/`in_ready` + `inp` (the host's beats at the GPU
//! clock: primitives, then the frame's end token with its background); `tmds_valid`/
//! `tmds_ready` + `tmds`; `dq_in` and the SDRAM pins; `done_valid`, `done_frame`, `front`,
//! `shown`, `underrun`, `error`, `map_error`; `frame_crc` and `crc_toggle` (the display CRC
//! at the GPU clock: the video output's toggle through two GPU-clock flops and one more, the
//! bus loaded when the last two differ, unchanged since the toggle flipped).
//!
//! ```text
//!   gpu_clock                                          │ clock (memory)              │ pixel_clock
//!   inp ─► frame ─mem_req─► double_buffer ─► requests ═╪═► display_path.inp          │
//!     └ end ─► double_buffer.ends   mem_resp ◄ answers ═╪═◄ display_path.out          │
//!   frame.done ─► double_buffer.done                   │  base ◄ front (2 flops) ◄═══╪═ double_buffer.front
//!   double_buffer.shown ◄═ 2 flops ═════════════════════╪═ shown ◄ started           │
//!                                                      │  display_path ═════════════╪═► tmds
//!   frame_crc ◄─ load when toggles differ ◄═ 2 flops ══╪════════════════════════════╪═ crc_toggle, frame_crc
//! ```

use crate::crossing::Crossing;
use crate::display_path::DisplayPath;
use crate::double_buffer::DoubleBuffer;
use crate::emit;
use crate::frame::Frame;
use crate::streams::{DviWordOut, PrimInIn, RtlValue};
use crate::util::k;
use rust_hdl::prelude::*;
use tilerast_golden::board::Board;
use tilerast_golden::board_top::GPU_PORT_WORDS;
use tilerast_golden::cycle::Ports;
use tilerast_golden::double_buffer::BoardMap;

/// The stage name (module `tilerast_board_top_<board>`).
pub const STAGE: &str = "board_top";

// The GPU port's crossings below hold 2^4 words.
const _: () = assert!(GPU_PORT_WORDS == 1 << 4);

/// The board top's logic (see the module header).
#[derive(LogicBlock)]
pub struct BoardTop {
    pub clock: Signal<In, Clock>,
    pub gpu_clock: Signal<In, Clock>,
    pub pixel_clock: Signal<In, Clock>,
    pub flush: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    pub in_ready: Signal<Out, Bit>,
    pub inp: PrimInIn,
    pub tmds_valid: Signal<Out, Bit>,
    pub tmds_ready: Signal<In, Bit>,
    pub tmds: DviWordOut,
    pub dq_in: Signal<In, Bits<16>>,
    pub cs_n: Signal<Out, Bit>,
    pub ras_n: Signal<Out, Bit>,
    pub cas_n: Signal<Out, Bit>,
    pub we_n: Signal<Out, Bit>,
    pub ba: Signal<Out, Bits<2>>,
    pub sdram_addr: Signal<Out, Bits<13>>,
    pub dqm: Signal<Out, Bits<2>>,
    pub dq_out: Signal<Out, Bits<16>>,
    pub dq_oe: Signal<Out, Bit>,
    pub done_valid: Signal<Out, Bit>,
    pub done_frame: Signal<Out, Bits<8>>,
    pub front: Signal<Out, Bit>,
    pub shown: Signal<Out, Bit>,
    pub underrun: Signal<Out, Bit>,
    pub error: Signal<Out, Bit>,
    pub map_error: Signal<Out, Bit>,
    pub frame_crc: Signal<Out, Bits<32>>,
    pub crc_toggle: Signal<Out, Bit>,
    frame: Frame,
    double_buffer: DoubleBuffer,
    /// The GPU port's requests (address 32, write 1, wdata 32, be 4 bits) and answers.
    requests: Crossing<69, 4, 5>,
    answers: Crossing<32, 4, 5>,
    display: DisplayPath,
    /// `front` through two memory-clock flops, and the second's value one edge ago (the
    /// buffer a walk that started at the last edge latched).
    front_sync1: DFF<Bit>,
    front_sync2: DFF<Bit>,
    front_at_start: DFF<Bit>,
    /// The buffer on the screen (memory clock), and it through two GPU-clock flops.
    shown_reg: DFF<Bit>,
    shown_sync1: DFF<Bit>,
    shown_sync2: DFF<Bit>,
    /// The display CRC's toggle through two GPU-clock flops and its value one GPU edge ago;
    /// the CRC it brought (GPU clock).
    crc_sync1: DFF<Bit>,
    crc_sync2: DFF<Bit>,
    crc_toggle_reg: DFF<Bit>,
    frame_crc_reg: DFF<Bits<32>>,
    /// The host's beat may go to the frame top (an end token also needs the double buffer's
    /// room for its background).
    host_valid: Signal<Local, Bit>,
    c_buffer0: Constant<Bits<32>>,
    c_buffer1: Constant<Bits<32>>,
    /// A request word's `write` bit (bit 36).
    c_write_bit: Constant<Bits<69>>,
}

impl BoardTop {
    /// The board top of `board`'s frame row, or the one line naming what does not fit.
    pub fn try_new(board: &Board) -> Result<BoardTop, String> {
        let f = board
            .frame
            .ok_or_else(|| format!("board {}: no frame row (no SDRAM and screen)", board.name))?;
        let cfg = tilerast_golden::Config::preset(f.preset).map_err(|e| format!("board {}: {e}", board.name))?;
        let map = BoardMap::for_board(board)?;
        Ok(BoardTop {
            clock: Default::default(),
            gpu_clock: Default::default(),
            pixel_clock: Default::default(),
            flush: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            inp: Default::default(),
            tmds_valid: Default::default(),
            tmds_ready: Default::default(),
            tmds: Default::default(),
            dq_in: Default::default(),
            cs_n: Default::default(),
            ras_n: Default::default(),
            cas_n: Default::default(),
            we_n: Default::default(),
            ba: Default::default(),
            sdram_addr: Default::default(),
            dqm: Default::default(),
            dq_out: Default::default(),
            dq_oe: Default::default(),
            done_valid: Default::default(),
            done_frame: Default::default(),
            front: Default::default(),
            shown: Default::default(),
            underrun: Default::default(),
            error: Default::default(),
            map_error: Default::default(),
            frame_crc: Default::default(),
            crc_toggle: Default::default(),
            frame: Frame::try_new(&cfg)?,
            double_buffer: DoubleBuffer::new(&map),
            requests: Crossing::new(false),
            answers: Crossing::new(false),
            display: DisplayPath::for_board(&f)?,
            front_sync1: Default::default(),
            front_sync2: Default::default(),
            front_at_start: Default::default(),
            shown_reg: Default::default(),
            shown_sync1: Default::default(),
            shown_sync2: Default::default(),
            crc_sync1: Default::default(),
            crc_sync2: Default::default(),
            crc_toggle_reg: Default::default(),
            frame_crc_reg: Default::default(),
            host_valid: Default::default(),
            c_buffer0: k(u64::from(map.buffers[0])),
            c_buffer1: k(u64::from(map.buffers[1])),
            c_write_bit: k(1 << 36),
        })
    }

    /// Every input port but the clocks from `p` (a lock-step step's inputs).
    pub fn set_data_inputs(&mut self, p: &Ports) {
        self.flush.next = p.bit("flush");
        self.in_valid.next = p.bit("in_valid");
        self.inp.drive_ports("inp", p);
        self.tmds_ready.next = p.bit("tmds_ready");
        self.dq_in.next = RtlValue::from_raw(p.get("dq_in").unwrap_or(0));
    }

    /// Marks the inputs [`BoardTop::set_data_inputs`] drives as driven from outside (a test
    /// wrapper's `Logic::connect`).
    pub fn connect_data_inputs(&mut self) {
        self.flush.connect();
        self.in_valid.connect();
        self.inp.kind.connect();
        self.inp.v0x.connect();
        self.inp.v0y.connect();
        self.inp.v1x.connect();
        self.inp.v1y.connect();
        self.inp.v2x.connect();
        self.inp.v2y.connect();
        self.inp.size.connect();
        self.inp.aa.connect();
        self.inp.colour.connect();
        self.inp.depth.connect();
        self.inp.end.connect();
        self.tmds_ready.connect();
        self.dq_in.connect();
    }

    /// Every output port's value now, the streams' and the further ones.
    pub fn outputs(&self) -> Ports {
        let mut p = Ports::default();
        p.set("in_ready", self.in_ready.val() as u64);
        p.set("tmds_valid", self.tmds_valid.val() as u64);
        self.tmds.put_ports("tmds", &mut p);
        for (port, v) in self.extra_outs() {
            p.set(port, v);
        }
        p
    }

    /// The further outputs (the pins, the frame's `done`, `front`, `shown`, the errors), in
    /// the signature's order.
    pub fn extra_outs(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("cs_n", self.cs_n.val() as u64),
            ("ras_n", self.ras_n.val() as u64),
            ("cas_n", self.cas_n.val() as u64),
            ("we_n", self.we_n.val() as u64),
            ("ba", self.ba.val().index() as u64),
            ("sdram_addr", self.sdram_addr.val().index() as u64),
            ("dqm", self.dqm.val().index() as u64),
            ("dq_out", self.dq_out.val().index() as u64),
            ("dq_oe", self.dq_oe.val() as u64),
            ("done_valid", self.done_valid.val() as u64),
            ("done_frame", self.done_frame.val().index() as u64),
            ("front", self.front.val() as u64),
            ("shown", self.shown.val() as u64),
            ("underrun", self.underrun.val() as u64),
            ("error", self.error.val() as u64),
            ("map_error", self.map_error.val() as u64),
            ("frame_crc", self.frame_crc.val().index() as u64),
            ("crc_toggle", self.crc_toggle.val() as u64),
        ]
    }
}

impl Logic for BoardTop {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, front_sync1, front_sync2, front_at_start, shown_reg);
        self.shown_sync1.clock.next = self.gpu_clock.val();
        self.shown_sync2.clock.next = self.gpu_clock.val();
        self.crc_sync1.clock.next = self.gpu_clock.val();
        self.crc_sync2.clock.next = self.gpu_clock.val();
        self.crc_toggle_reg.clock.next = self.gpu_clock.val();
        self.frame_crc_reg.clock.next = self.gpu_clock.val();
        self.frame.clock.next = self.gpu_clock.val();
        self.double_buffer.clock.next = self.gpu_clock.val();
        self.requests.write_clock.next = self.gpu_clock.val();
        self.requests.read_clock.next = self.clock.val();
        self.answers.write_clock.next = self.clock.val();
        self.answers.read_clock.next = self.gpu_clock.val();
        self.display.clock.next = self.clock.val();
        self.display.pixel_clock.next = self.pixel_clock.val();
        self.frame.flush.next = false;
        self.double_buffer.flush.next = false;
        self.requests.flush.next = false;
        self.requests.drop.next = false;
        self.answers.flush.next = false;
        self.answers.drop.next = false;
        self.display.flush.next = false;

        // ---- the GPU clock: the host's beats, the frame top, the double buffer ----
        self.host_valid.next = self.in_valid.val() & (!self.inp.end.val() | self.double_buffer.ends_ready.val());
        self.frame.in_valid.next = self.host_valid.val();
        self.in_ready.next = self.host_valid.val() & self.frame.in_ready.val();
        self.frame.inp.kind.next = self.inp.kind.val();
        self.frame.inp.v0x.next = self.inp.v0x.val();
        self.frame.inp.v0y.next = self.inp.v0y.val();
        self.frame.inp.v1x.next = self.inp.v1x.val();
        self.frame.inp.v1y.next = self.inp.v1y.val();
        self.frame.inp.v2x.next = self.inp.v2x.val();
        self.frame.inp.v2y.next = self.inp.v2y.val();
        self.frame.inp.size.next = self.inp.size.val();
        self.frame.inp.aa.next = self.inp.aa.val();
        self.frame.inp.colour.next = self.inp.colour.val();
        self.frame.inp.depth.next = self.inp.depth.val();
        self.frame.inp.end.next = self.inp.end.val();
        self.double_buffer.ends_valid.next = self.in_valid.val() & self.inp.end.val() & self.frame.in_ready.val();
        self.double_buffer.ends.colour.next = self.inp.colour.val();
        self.double_buffer.in_valid.next = self.frame.mem_req_valid.val();
        self.double_buffer.inp.addr.next = self.frame.mem_req.addr.val();
        self.double_buffer.inp.write.next = self.frame.mem_req.write.val();
        self.double_buffer.inp.wdata.next = self.frame.mem_req.wdata.val();
        self.double_buffer.inp.be.next = self.frame.mem_req.be.val();
        self.frame.mem_req_ready.next = self.double_buffer.in_ready.val();
        self.double_buffer.out_ready.next = self.requests.room.val();
        self.requests.push.next = self.double_buffer.out_valid.val();
        self.requests.push_data.next = (bit_cast::<69, 32>(self.double_buffer.out.addr.val()) << 37)
            | (bit_cast::<69, 32>(self.double_buffer.out.wdata.val()) << 4)
            | bit_cast::<69, 4>(self.double_buffer.out.be.val());
        if self.double_buffer.out.write.val() {
            self.requests.push_data.next = (bit_cast::<69, 32>(self.double_buffer.out.addr.val()) << 37)
                | self.c_write_bit.val()
                | (bit_cast::<69, 32>(self.double_buffer.out.wdata.val()) << 4)
                | bit_cast::<69, 4>(self.double_buffer.out.be.val());
        }
        self.frame.mem_resp_valid.next = self.answers.readable.val();
        self.frame.mem_resp.rdata.next = self.answers.head_data.val();
        self.answers.pop.next = self.frame.mem_resp_ready.val();
        self.double_buffer.done.next = self.frame.done_valid.val();
        self.double_buffer.shown.next = self.shown_sync2.q.val();
        self.shown_sync1.d.next = self.shown_reg.q.val();
        self.shown_sync2.d.next = self.shown_sync1.q.val();
        self.done_valid.next = self.frame.done_valid.val();
        self.done_frame.next = self.frame.done_frame.val();
        self.front.next = self.double_buffer.front.val();
        self.map_error.next = self.double_buffer.error.val();
        // The display CRC into the GPU clock: its bus changes once per video frame, with the
        // toggle, so it is stable when the synchronised toggle shows the change.
        self.crc_sync1.d.next = self.display.crc_toggle.val();
        self.crc_sync2.d.next = self.crc_sync1.q.val();
        self.crc_toggle_reg.d.next = self.crc_sync2.q.val();
        self.frame_crc_reg.d.next = self.frame_crc_reg.q.val();
        if self.crc_sync2.q.val() ^ self.crc_toggle_reg.q.val() {
            self.frame_crc_reg.d.next = self.display.frame_crc.val();
        }
        self.frame_crc.next = self.frame_crc_reg.q.val();
        self.crc_toggle.next = self.crc_toggle_reg.q.val();

        // ---- the memory clock: the crossings' other sides, the display path ----
        self.display.in_valid.next = self.requests.readable.val();
        self.display.inp.addr.next = self.requests.head_data.val().get_bits::<32>(37);
        self.display.inp.write.next = self.requests.head_data.val().get_bit(36);
        self.display.inp.wdata.next = self.requests.head_data.val().get_bits::<32>(4);
        self.display.inp.be.next = self.requests.head_data.val().get_bits::<4>(0);
        self.requests.pop.next = self.display.in_ready.val();
        self.answers.push.next = self.display.out_valid.val();
        self.answers.push_data.next = self.display.out.rdata.val();
        self.display.out_ready.next = self.answers.room.val();
        self.front_sync1.d.next = self.double_buffer.front.val();
        self.front_sync2.d.next = self.front_sync1.q.val();
        self.front_at_start.d.next = self.front_sync2.q.val();
        self.display.base.next = self.c_buffer0.val();
        if self.front_sync2.q.val() {
            self.display.base.next = self.c_buffer1.val();
        }
        self.shown_reg.d.next = self.shown_reg.q.val();
        if self.display.started.val() {
            self.shown_reg.d.next = self.front_at_start.q.val();
        }
        self.shown.next = self.shown_reg.q.val();
        self.display.dq_in.next = self.dq_in.val();
        self.cs_n.next = self.display.cs_n.val();
        self.ras_n.next = self.display.ras_n.val();
        self.cas_n.next = self.display.cas_n.val();
        self.we_n.next = self.display.we_n.val();
        self.ba.next = self.display.ba.val();
        self.sdram_addr.next = self.display.sdram_addr.val();
        self.dqm.next = self.display.dqm.val();
        self.dq_out.next = self.display.dq_out.val();
        self.dq_oe.next = self.display.dq_oe.val();
        self.underrun.next = self.display.underrun.val();
        self.error.next = self.display.error.val();

        // ---- the pixel clock ----
        self.display.tmds_ready.next = self.tmds_ready.val();
        self.tmds_valid.next = self.display.tmds_valid.val();
        self.tmds.blue.next = self.display.tmds.blue.val();
        self.tmds.green.next = self.display.tmds.green.val();
        self.tmds.red.next = self.display.tmds.red.val();
    }
}

/// The block's Verilog with top module `name` (in a thread with the frame top's stack).
pub fn verilog(board: &'static Board, name: &str) -> String {
    let name = name.to_string();
    std::thread::Builder::new()
        .name("board top verilog".into())
        .stack_size(crate::frame::STACK_BYTES)
        .spawn(move || emit::block_verilog(BoardTop::try_new(board).unwrap_or_else(|e| panic!("{e}")), &name))
        .expect("spawn the board top's Verilog thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e))
}

/// The board top's row of [`crate::FRAME_BOARD_BLOCKS`].
pub const BOARD_FILE: crate::FrameBoardBlock = crate::FrameBoardBlock {
    role: "the board top's logic in its three clocks: the frame top and the double buffer (GPU clock), the GPU \
           port's crossings, the display path (memory and pixel clocks), front, shown and the display CRC synchronised",
    sig: <tilerast_golden::board_top::BoardTopPorts as tilerast_golden::cycle::BlockSignature>::SIGNATURE,
    rtl_file,
    made_from: |f| f.preset,
};

/// The full text of `rtl-out/tilerast_board_top_<board>.v`: a header (the command, the
/// contract, the lint command, the ports), then the block. `None` for a board without a frame
/// row.
pub fn rtl_file(board: &Board) -> Option<String> {
    let f = board.frame.as_ref()?;
    let b: &'static Board = tilerast_golden::board::board(board.name).ok()?;
    let top = format!("tilerast_{STAGE}_{}", board.name);
    Some(format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // {STAGE} for board {} ({}): the frame top at preset {} ({} MHz), SDRAM {} at {} MHz, {} at {} MHz\n\
         // timing contract: tilerast_golden::board_top::BoardTopCycle; top module: {top}\n\
         // lint-clean with: {}\n\
         // Ports: clock (memory), gpu_clock, pixel_clock, flush (unused); in_valid/in_ready + inp (the host's\n\
         // beats, GPU clock), tmds_valid/tmds_ready + tmds (blue, green, red; pixel clock); dq_in (in); cs_n,\n\
         // ras_n, cas_n, we_n, ba, sdram_addr, dqm, dq_out, dq_oe, done_valid, done_frame, front, shown,\n\
         // underrun, error, map_error, frame_crc, crc_toggle (out)\n//\n{}",
        board.name,
        board.title,
        f.preset,
        f.gpu_hz / 1_000_000,
        f.sdram.name,
        f.sdram_hz / 1_000_000,
        f.video.name,
        f.pixel_hz / 1_000_000,
        crate::lint_top_command(&top),
        verilog(b, &top)
    ))
}
