//! fpga_top: the FPGA top for a board: PLL, UART, frame parser, command buffer in block RAM,
//! raster_core, quad counter + CRC, responder and status LEDs. Emitted per board by `gen-rtl`
//! to `rtl-out/tilerast_top_<board>.v` (top module `tilerast_top_<board>`). The protocol is
//! documented in `hw/README.md` ("FPGA top and UART protocol"); its pure host-side code is
//! `tilerast_golden::protocol`.
//!
//! ```text
//!  clk ─► Pll ─► clock (all logic)
//!                ┌────────┐ byte ┌────────┐ 27-byte record ┌─────────┐ cmd  ┌─────────────┐ beats
//!  uart_rx ────► │ UartRx │─────►│ parser │───────────────►│ CmdRam  │─────►│ raster_core │──┬──► QuadCheck
//!                └────────┘      │ (A5 op │  exec: PING,   │ (BRAM,  │ full │             │  │  (count, CRC,
//!                                │ len …  │  LOAD, CLEAR,  │ 216 bit)│ rate └─────────────┘  │   pos sum)
//!                                │ chk)   │  RUN           └─────────┘           stream mode │
//!                ┌────────┐      └───┬────┘                                                  ▼
//!  uart_tx ◄──── │ UartTx │◄──── responder (DESC, ACK, ERROR, RESULT, QUAD frames) ◄──────────┘
//!                └────────┘
//!  led[0] heartbeat, led[1] frame being received, led[2] running, led[3] last command failed
//! ```
//!
//! **Ports.** `clk` (board oscillator), `uart_rx` (from the host), `uart_tx` (to the host),
//! `led[3:0]` (active high). The PLL (`SB_PLL40_PAD` on iCEBreaker, `SB_PLL40_CORE` on the
//! HX8K board, `EHXPLLL` on ULX3S) sits behind `` `ifdef SYNTHESIS `` (yosys defines it);
//! Verilator and Icarus see a pass-through clock, so one simulated cycle is one core cycle.
//!
//! **Run timing.** RUN flushes the core for one cycle (PRIME), then offers command 0 and keeps
//! `cmd_valid` high until every loaded command was accepted: the buffer is read one entry ahead
//! (`raddr = rp + accept`) so back-to-back accepts need no bubble. The cycle counter counts
//! from the first cycle `cmd_valid` is high to the cycle the last command's `last` beat moves,
//! inclusive; in count mode `out_ready` is always high, so it equals the cycle model's count
//! (`protocol::expect_run`). In stream mode the UART back-pressures the core (one QUAD frame
//! per quad), so the count then includes the stalls.
//!
//! **Area.** Beyond the core: the control registers, counters and UART, the CRC XOR network
//! (32 × (32 + Q·4·S) inputs at most, only Q·4·S data bits wide), the response word
//! multiplexer (frames are laid out in 32-bit words) and the command buffer in block RAM,
//! written 16 bits at a time as bytes arrive (no record-wide shift register).
//!
//! **Narrowed command fields.** The core gets the buffer index as its primitive id (log2 of
//! the capacity bits; QUAD frames map it back through a second, 24-bit read port of the
//! buffer), tiles beyond the grid saturated to 2^k − 1, sizes saturated at 2^k − 1 ≥ max point
//! size · 256, and vertices sign-extended from `setup::mul_operand_bits` (the host's front end
//! keeps them inside the guard band). All exact for what the host sends; the constant high
//! bits let yosys drop them from every register of the core. Measured sizes and Fmax of the
//! tops: only the generated table in the "FPGA" section of docs/measurements.md
//! (`tilerast synth --table`).

use crate::raster_core::RasterCore;
use crate::uart::{UartRx, UartTx};
use crate::util::Sext24;
use rust_hdl::prelude::*;
use tilerast_golden::protocol;

/// `Block` for the wrapper blocks below, which carry non-signal configuration fields
/// (`#[derive(LogicBlock)]` wants every field to be a block): lists the signal fields.
macro_rules! wrapper_block {
    (impl [$($g:tt)*] $t:ty; $($f:ident),*) => {
        impl<$($g)*> Block for $t {
            fn connect_all(&mut self) {
                self.connect();
                $(self.$f.connect_all();)*
            }
            fn update_all(&mut self) {
                self.update();
                $(self.$f.update_all();)*
            }
            fn has_changed(&self) -> bool {
                false $(|| self.$f.has_changed())*
            }
            fn accept(&self, name: &str, probe: &mut dyn Probe) {
                probe.visit_start_scope(name, self);
                $(self.$f.accept(stringify!($f), probe);)*
                probe.visit_end_scope(name, self);
            }
        }
    };
    ($t:ty; $($f:ident),*) => {
        $crate::fpga_top::wrapper_block!(impl [] $t; $($f),*);
    };
}
/// Also used by the board memory's RAM (`crate::board_memory`).
pub(crate) use wrapper_block;

mod cmd_ram;
pub mod frame_top;
mod pll;
mod quad_check;

pub use cmd_ram::{CmdRam, RecordRam, REC_BITS, REC_LANES};
pub use pll::Pll;
pub use quad_check::QuadCheck;
/// The board table lives in golden (one table for the tops, the flows and the host).
pub use tilerast_golden::board::{board, Board, PllKind, BOARDS};

/// Build a constant from little-endian bytes.
fn bytes_const<const N: usize>(bytes: &[u8]) -> Bits<N> {
    let mut b = Bits::<N>::default();
    for (i, &v) in bytes.iter().enumerate() {
        b.set_bits::<8>(8 * i, (v as u64).into());
    }
    b
}

/// The frame parser's states (`ps`), encoded 0..=6 in this order: hunting for the sync byte;
/// opcode; length low and high byte; payload; checksum; executing the frame's command.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ParseState {
    Sync,
    Op,
    Len0,
    Len1,
    Payload,
    Checksum,
    Exec,
}

/// The run controller's states (`rs`), encoded 0..=3: idle; PRIME (the core's one-cycle
/// flush); feeding commands and counting; waiting to send the RESULT frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum RunState {
    Idle,
    Prime,
    Run,
    Done,
}

/// The frame the responder is sending (`tk`), encoded 0..=5: none; DESC; ACK; ERROR; RESULT;
/// QUAD.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ReplyKind {
    None,
    Desc,
    Ack,
    Err,
    Result,
    Quad,
}

/// The FPGA top of one board (see the file header for the block diagram and timing).
#[derive(LogicBlock)]
pub struct FpgaTop {
    /// Board oscillator.
    pub clk: Signal<In, Clock>,
    /// Serial line from the host.
    pub uart_rx: Signal<In, Bit>,
    /// Serial line to the host.
    pub uart_tx: Signal<Out, Bit>,
    /// Status LEDs (active high): 0 heartbeat, 1 receiving a frame, 2 running, 3 error.
    pub led: Signal<Out, Bits<4>>,
    pll: Pll,
    urx: UartRx,
    utx: UartTx,
    ram: CmdRam,
    raster_core: RasterCore,
    check: QuadCheck,
    clock: Signal<Local, Clock>,
    // Frame parser.
    ps: DFF<ParseState>,
    op: DFF<Bits<8>>,
    len: DFF<Bits<16>>,
    sum: DFF<Bits<8>>,
    len0: DFF<Bit>,
    len1: DFF<Bit>,
    rb: DFF<Bits<5>>,
    wp: DFF<Bits<11>>,
    ovf: DFF<Bit>,
    lo: DFF<Bits<8>>,
    mode: DFF<Bits<8>>,
    uerr: DFF<Bit>,
    tmo: DFF<Bits<21>>,
    tflag: DFF<Bit>,
    count: DFF<Bits<11>>,
    // Run.
    rs: DFF<RunState>,
    stream: DFF<Bit>,
    rp: DFF<Bits<11>>,
    lasts: DFF<Bits<11>>,
    cyc: DFF<Bits<32>>,
    ln: DFF<Bits<2>>,
    sent: DFF<Bit>,
    /// Stream mode: the core's `out_ready`, registered (high for one cycle after the beat's
    /// last QUAD frame was queued), so that no combinational path runs from the responder
    /// into the core's ready chain.
    pop: DFF<Bit>,
    // Responder.
    tk: DFF<ReplyKind>,
    ti: DFF<Bits<5>>,
    tsum: DFF<Bits<8>>,
    ecode: DFF<Bits<8>>,
    eop: DFF<Bits<8>>,
    hb: DFF<Bits<26>>,
    errled: DFF<Bit>,
    // Combinational.
    b: Signal<Local, Bits<8>>,
    bv: Signal<Local, Bit>,
    in_frame: Signal<Local, Bit>,
    lenfull: Signal<Local, Bits<16>>,
    wlane: Signal<Local, Bits<5>>,
    cmd_valid: Signal<Local, Bit>,
    accept: Signal<Local, Bit>,
    rnext: Signal<Local, Bits<11>>,
    lasts1: Signal<Local, Bits<11>>,
    lv_sh: Signal<Local, Bits<4>>,
    lane_ok: Signal<Local, Bit>,
    out_rdy: Signal<Local, Bit>,
    xfer: Signal<Local, Bit>,
    running: Signal<Local, Bit>,
    sel_qx: Signal<Local, Bits<12>>,
    sel_qy: Signal<Local, Bits<12>>,
    sel_mask: Signal<Local, Bits<64>>,
    wi: Signal<Local, Bits<5>>,
    word: Signal<Local, Bits<32>>,
    word_sh: Signal<Local, Bits<32>>,
    bshift: Signal<Local, Bits<8>>,
    tbyte: Signal<Local, Bits<8>>,
    tlast: Signal<Local, Bits<5>>,
    // Constants.
    h_desc: Constant<Bits<32>>,
    h_ack: Constant<Bits<32>>,
    h_err: Constant<Bits<32>>,
    h_res: Constant<Bits<32>>,
    h_quad: Constant<Bits<32>>,
    d_w1: Constant<Bits<32>>,
    d_w2: Constant<Bits<32>>,
    d_w3: Constant<Bits<32>>,
    c_w1: Constant<Bits<5>>,
    c_w2: Constant<Bits<5>>,
    c_w3: Constant<Bits<5>>,
    c_w4: Constant<Bits<5>>,
    t_desc: Constant<Bits<5>>,
    t_short: Constant<Bits<5>>,
    t_res: Constant<Bits<5>>,
    t_quad: Constant<Bits<5>>,
    o_ping: Constant<Bits<8>>,
    o_load: Constant<Bits<8>>,
    o_clear: Constant<Bits<8>>,
    o_run: Constant<Bits<8>>,
    e_checksum: Constant<Bits<8>>,
    e_opcode: Constant<Bits<8>>,
    e_length: Constant<Bits<8>>,
    e_capacity: Constant<Bits<8>>,
    e_uart: Constant<Bits<8>>,
    e_timeout: Constant<Bits<8>>,
    e_mode: Constant<Bits<8>>,
    c_sync: Constant<Bits<8>>,
    c_rec_last: Constant<Bits<5>>,
    c_cap: Constant<Bits<11>>,
    /// Tile saturation per axis: 2^k − 1 ≥ the number of tiles (an index beyond the grid).
    c_tsat_x: Constant<Bits<8>>,
    c_tsat_y: Constant<Bits<8>>,
    /// Size saturation: 2^k − 1 ≥ max point size · 256.
    c_ssat: Constant<Bits<24>>,
    tx: Signal<Local, Bits<8>>,
    ty: Signal<Local, Bits<8>>,
    vraw: [Signal<Local, Bits<24>>; 6],
    /// The six vertex coordinates, sign-extended from bit `setup::mul_operand_bits` − 1.
    sx_v: [Sext24; 6],
    sz: Signal<Local, Bits<24>>,
    /// capacity − 1: the bits of a buffer index.
    c_idx: Constant<Bits<24>>,
    c_qm1: Constant<Bits<2>>,
    c_l1: Constant<Bits<2>>,
    c_l2: Constant<Bits<2>>,
    c_l3: Constant<Bits<2>>,
    c_one16: Constant<Bits<16>>,
    c_one8: Constant<Bits<8>>,
    c_zero8: Constant<Bits<8>>,
    c_zero4: Constant<Bits<4>>,
}

impl FpgaTop {
    /// The top for `board` around its preset's core.
    pub fn new(board: &Board) -> Self {
        Self::with_config(board, &board.config())
    }

    /// The top for `board` around the core of `cfg` (`tilerast synth --config`): the
    /// descriptor names the preset `cfg` equals, else [`CUSTOM_PRESET`].
    pub fn with_config(board: &Board, cfg: &tilerast_golden::Config) -> Self {
        let cfg = cfg.clone();
        let q = cfg.quads_per_clock as usize;
        let preset = tilerast_golden::PRESETS
            .iter()
            .position(|p| tilerast_golden::Config::preset(p).ok().as_ref() == Some(&cfg))
            .map_or(CUSTOM_PRESET, |i| i as u8);
        let div = board.uart_div();
        let vbits = crate::setup::mul_operand_bits(&cfg);
        // Smallest 2^k − 1 ≥ v.
        let sat = |v: u64| (v + 1).next_power_of_two() - 1;
        let cap = board.capacity as u16;
        let desc = [
            protocol::SYNC_BOARD,
            protocol::T_DESC,
            protocol::DESC_BYTES as u8,
            0,
            b'T',
            b'R',
            protocol::VERSION,
            board.index() as u8,
            preset,
            cfg.msaa as u8,
            q as u8,
            cap as u8,
            (cap >> 8) as u8,
            0,
            0,
            ((board.clock_hz() + 500_000) / 1_000_000) as u8,
        ];
        let hdr = |t: u8, n: usize| [protocol::SYNC_BOARD, t, n as u8, 0];
        let k2 = |v: u64| Constant::new(Bits::<2>::from(v));
        let k8 = |v: u8| Constant::new(Bits::<8>::from(v as u64));
        let k5 = |v: usize| Constant::new(Bits::<5>::from(v as u64));
        FpgaTop {
            clk: Default::default(),
            uart_rx: Default::default(),
            uart_tx: Default::default(),
            led: Default::default(),
            pll: Pll::new(board),
            urx: UartRx::new(div),
            utx: UartTx::new(div),
            ram: CmdRam::new(board.capacity as usize),
            raster_core: RasterCore::new(&cfg),
            check: QuadCheck::new(q, 4 * cfg.msaa as usize),
            clock: Default::default(),
            ps: Default::default(),
            op: Default::default(),
            len: Default::default(),
            sum: Default::default(),
            len0: Default::default(),
            len1: Default::default(),
            rb: Default::default(),
            wp: Default::default(),
            ovf: Default::default(),
            lo: Default::default(),
            mode: Default::default(),
            uerr: Default::default(),
            tmo: Default::default(),
            tflag: Default::default(),
            count: Default::default(),
            rs: Default::default(),
            stream: Default::default(),
            rp: Default::default(),
            lasts: Default::default(),
            cyc: Default::default(),
            ln: Default::default(),
            sent: Default::default(),
            pop: Default::default(),
            tk: Default::default(),
            ti: Default::default(),
            tsum: Default::default(),
            ecode: Default::default(),
            eop: Default::default(),
            hb: Default::default(),
            errled: Default::default(),
            b: Default::default(),
            bv: Default::default(),
            in_frame: Default::default(),
            lenfull: Default::default(),
            wlane: Default::default(),
            cmd_valid: Default::default(),
            accept: Default::default(),
            rnext: Default::default(),
            lasts1: Default::default(),
            lv_sh: Default::default(),
            lane_ok: Default::default(),
            out_rdy: Default::default(),
            xfer: Default::default(),
            running: Default::default(),
            sel_qx: Default::default(),
            sel_qy: Default::default(),
            sel_mask: Default::default(),
            wi: Default::default(),
            word: Default::default(),
            word_sh: Default::default(),
            bshift: Default::default(),
            tbyte: Default::default(),
            tlast: Default::default(),
            h_desc: Constant::new(bytes_const(&hdr(protocol::T_DESC, protocol::DESC_BYTES))),
            h_ack: Constant::new(bytes_const(&hdr(protocol::T_ACK, 2))),
            h_err: Constant::new(bytes_const(&hdr(protocol::T_ERROR, 2))),
            h_res: Constant::new(bytes_const(&hdr(protocol::T_RESULT, protocol::RESULT_BYTES))),
            h_quad: Constant::new(bytes_const(&hdr(protocol::T_QUAD, protocol::quad_bytes(cfg.msaa)))),
            d_w1: Constant::new(bytes_const(&desc[4..8])),
            d_w2: Constant::new(bytes_const(&desc[8..12])),
            d_w3: Constant::new(bytes_const(&desc[12..16])),
            c_w1: k5(1),
            c_w2: k5(2),
            c_w3: k5(3),
            c_w4: k5(4),
            t_desc: k5(4 + protocol::DESC_BYTES),
            t_short: k5(4 + 2),
            t_res: k5(4 + protocol::RESULT_BYTES),
            t_quad: k5(4 + protocol::quad_bytes(cfg.msaa)),
            o_ping: k8(protocol::OP_PING),
            o_load: k8(protocol::OP_LOAD),
            o_clear: k8(protocol::OP_CLEAR),
            o_run: k8(protocol::OP_RUN),
            e_checksum: k8(protocol::E_CHECKSUM),
            e_opcode: k8(protocol::E_OPCODE),
            e_length: k8(protocol::E_LENGTH),
            e_capacity: k8(protocol::E_CAPACITY),
            e_uart: k8(protocol::E_UART),
            e_timeout: k8(protocol::E_TIMEOUT),
            e_mode: k8(protocol::E_MODE),
            c_sync: k8(protocol::SYNC_HOST),
            c_rec_last: k5(protocol::CMD_BYTES - 1),
            c_cap: Constant::new((board.capacity as u64).into()),
            c_tsat_x: Constant::new(sat(cfg.tiles()[0] as u64).into()),
            c_tsat_y: Constant::new(sat(cfg.tiles()[1] as u64).into()),
            c_ssat: Constant::new(sat(cfg.max_point_size as u64 * 256).into()),
            tx: Default::default(),
            ty: Default::default(),
            vraw: Default::default(),
            sx_v: std::array::from_fn(|_| Sext24::new(vbits)),
            sz: Default::default(),
            c_idx: Constant::new((board.capacity as u64 - 1).into()),
            c_qm1: k2(q as u64 - 1),
            c_l1: k2(1),
            c_l2: k2(2),
            c_l3: k2(3),
            c_one16: Constant::new(1u64.into()),
            c_one8: k8(1),
            c_zero8: k8(0),
            c_zero4: Constant::new(0u64.into()),
        }
    }
}

// Nested ifs mirror the frame layout (kind, then word); collapsing them changes the Verilog.
#[allow(clippy::collapsible_if)]
impl Logic for FpgaTop {
    #[hdl_gen]
    fn update(&mut self) {
        self.pll.clock_in.next = self.clk.val();
        self.clock.next = self.pll.clock_out.val();
        dff_setup!(
            self, clock, ps, op, len, sum, len0, len1, rb, wp, ovf, lo, mode, uerr, tmo, tflag, count, rs, stream, rp,
            lasts, cyc, ln, sent, pop, tk, ti, tsum, ecode, eop, hb, errled
        );
        clock!(self, clock, urx, utx, ram, raster_core, check);
        self.urx.rx.next = self.uart_rx.val();
        self.uart_tx.next = self.utx.tx.val();
        self.hb.d.next = self.hb.q.val() + 1u64;
        self.running.next = self.rs.q.val() != RunState::Idle;

        // ---- Command feed: the buffer is read one entry ahead (raddr = rp + accept).
        self.cmd_valid.next = (self.rs.q.val() == RunState::Run) & (self.rp.q.val() != self.count.q.val());
        self.accept.next = self.cmd_valid.val() & self.raster_core.cmd_ready.val();
        self.rnext.next = self.rp.q.val();
        if self.accept.val() {
            self.rnext.next = self.rp.q.val() + 1u64;
        }
        self.rp.d.next = self.rnext.val();
        self.ram.raddr.next = self.rnext.val().get_bits::<10>(0);
        self.ram.praddr.next = self.raster_core.out.prim.val().get_bits::<10>(0);
        self.raster_core.cmd_valid.next = self.cmd_valid.val();
        self.raster_core.cmd.kind.next = self.ram.rdata.val().get_bit(0);
        self.raster_core.cmd.aa.next = self.ram.rdata.val().get_bit(1);
        // The core sees the buffer index as the primitive id (only log2(capacity) bits, so
        // yosys drops the constant upper bits of every prim register in the core); QUAD frames
        // map it back through the buffer's second read port.
        self.raster_core.cmd.prim.next = bit_cast::<24, 11>(self.rp.q.val()) & self.c_idx.val();
        // Fields narrowed to what the preset can use, exactly (constant high bits let yosys
        // drop them in every register of the core): a tile beyond the grid is saturated to
        // `c_tsat` (still beyond it, so the command stays empty); vertices are sign-extended
        // from the multiplier operand width (the host's front end keeps them inside the guard
        // band, `Config::guard_limits_fx`); a size beyond `c_ssat` (≥ max point size · 256,
        // where the point rasterizer clamps) is saturated to it. Every `c_*sat` is 2^k − 1, so
        // "beyond" is an OR of the high bits (a LUT tree, not a carry chain behind the RAM).
        self.tx.next = self.ram.rdata.val().get_bits::<8>(32);
        if (self.tx.val() & !self.c_tsat_x.val()).any() {
            self.tx.next = self.c_tsat_x.val();
        }
        self.ty.next = self.ram.rdata.val().get_bits::<8>(40);
        if (self.ty.val() & !self.c_tsat_y.val()).any() {
            self.ty.next = self.c_tsat_y.val();
        }
        self.raster_core.cmd.tile_x.next = self.tx.val();
        self.raster_core.cmd.tile_y.next = self.ty.val();
        for k in 0..6 {
            self.vraw[k].next = self.ram.rdata.val().get_bits::<24>(48 + 24 * k);
            self.sx_v[k].x.next = signed_cast(self.vraw[k].val());
        }
        self.raster_core.cmd.v0x.next = self.sx_v[0].y.val();
        self.raster_core.cmd.v0y.next = self.sx_v[1].y.val();
        self.raster_core.cmd.v1x.next = self.sx_v[2].y.val();
        self.raster_core.cmd.v1y.next = self.sx_v[3].y.val();
        self.raster_core.cmd.v2x.next = self.sx_v[4].y.val();
        self.raster_core.cmd.v2y.next = self.sx_v[5].y.val();
        self.sz.next = self.ram.rdata.val().get_bits::<24>(192);
        if (self.sz.val() & !self.c_ssat.val()).any() {
            self.sz.next = self.c_ssat.val();
        }
        self.raster_core.cmd.size.next = self.sz.val();

        // ---- Output side: count mode always ready; stream mode one QUAD frame per valid lane,
        // then `pop` (registered: the cycle after) takes the beat; the core holds a valid beat
        // until it is taken, and the lane walk waits while `pop` is high.
        self.lv_sh.next = self.raster_core.out.lane_valid.val() >> self.ln.q.val();
        self.lane_ok.next = self.lv_sh.val().get_bit(0);
        self.pop.d.next = false;
        if (self.rs.q.val() == RunState::Run)
            & self.stream.q.val()
            & self.raster_core.out_valid.val()
            & !self.pop.q.val()
            & (self.tk.q.val() == ReplyKind::None)
        {
            if self.lane_ok.val() & !self.sent.q.val() {
                self.tk.d.next = ReplyKind::Quad;
                self.sent.d.next = true;
            } else {
                self.sent.d.next = false;
                if self.ln.q.val() == self.c_qm1.val() {
                    self.pop.d.next = true;
                    self.ln.d.next = 0u64.into();
                } else {
                    self.ln.d.next = self.ln.q.val() + 1u64;
                }
            }
        }
        self.out_rdy.next = (self.rs.q.val() == RunState::Run) & !self.stream.q.val();
        if self.stream.q.val() {
            self.out_rdy.next = self.pop.q.val();
        }
        self.raster_core.out_ready.next = self.out_rdy.val();
        self.xfer.next = self.raster_core.out_valid.val() & self.out_rdy.val();
        self.raster_core.flush.next = (self.rs.q.val() == RunState::Prime) | !self.pll.locked.val();
        self.check.clear.next = self.rs.q.val() == RunState::Prime;
        self.check.en.next = self.xfer.val();
        self.check.lane_valid.next = self.raster_core.out.lane_valid.val();
        self.check.mask_0.next = self.raster_core.out.mask_0.val();
        self.check.mask_1.next = self.raster_core.out.mask_1.val();
        self.check.mask_2.next = self.raster_core.out.mask_2.val();
        self.check.mask_3.next = self.raster_core.out.mask_3.val();
        self.check.qx_0.next = self.raster_core.out.qx_0.val();
        self.check.qx_1.next = self.raster_core.out.qx_1.val();
        self.check.qx_2.next = self.raster_core.out.qx_2.val();
        self.check.qx_3.next = self.raster_core.out.qx_3.val();
        self.check.qy_0.next = self.raster_core.out.qy_0.val();
        self.check.qy_1.next = self.raster_core.out.qy_1.val();
        self.check.qy_2.next = self.raster_core.out.qy_2.val();
        self.check.qy_3.next = self.raster_core.out.qy_3.val();

        // ---- Run state.
        self.lasts1.next = self.lasts.q.val() + 1u64;
        if self.rs.q.val() == RunState::Prime {
            self.rs.d.next = RunState::Run;
            if !self.count.q.val().any() {
                self.rs.d.next = RunState::Done;
            }
        }
        if self.rs.q.val() == RunState::Run {
            self.cyc.d.next = self.cyc.q.val() + 1u64;
            if self.xfer.val() & self.raster_core.out.last.val() {
                self.lasts.d.next = self.lasts1.val();
                if self.lasts1.val() == self.count.q.val() {
                    self.rs.d.next = RunState::Done;
                }
            }
        }
        if (self.rs.q.val() == RunState::Done) & (self.tk.q.val() == ReplyKind::None) {
            self.tk.d.next = ReplyKind::Result;
            self.rs.d.next = RunState::Idle;
        }

        // ---- Responder: byte `ti` of the frame of kind `tk`; the last byte is the checksum.
        self.sel_qx.next = self.raster_core.out.qx_0.val();
        self.sel_qy.next = self.raster_core.out.qy_0.val();
        self.sel_mask.next = self.raster_core.out.mask_0.val();
        if self.ln.q.val() == self.c_l1.val() {
            self.sel_qx.next = self.raster_core.out.qx_1.val();
            self.sel_qy.next = self.raster_core.out.qy_1.val();
            self.sel_mask.next = self.raster_core.out.mask_1.val();
        }
        if self.ln.q.val() == self.c_l2.val() {
            self.sel_qx.next = self.raster_core.out.qx_2.val();
            self.sel_qy.next = self.raster_core.out.qy_2.val();
            self.sel_mask.next = self.raster_core.out.mask_2.val();
        }
        if self.ln.q.val() == self.c_l3.val() {
            self.sel_qx.next = self.raster_core.out.qx_3.val();
            self.sel_qy.next = self.raster_core.out.qy_3.val();
            self.sel_mask.next = self.raster_core.out.mask_3.val();
        }
        // Frames are laid out in 32-bit words (word 0 = header); word wi = ti / 4, byte ti % 4.
        self.wi.next = self.ti.q.val() >> 2u64;
        self.word.next = self.h_ack.val();
        self.tlast.next = self.t_short.val();
        if self.tk.q.val() == ReplyKind::Desc {
            self.tlast.next = self.t_desc.val();
            self.word.next = self.h_desc.val();
            if self.wi.val() == self.c_w1.val() {
                self.word.next = self.d_w1.val();
            }
            if self.wi.val() == self.c_w2.val() {
                self.word.next = self.d_w2.val();
            }
            if self.wi.val() == self.c_w3.val() {
                self.word.next = self.d_w3.val() | (bit_cast::<32, 11>(self.count.q.val()) << 8u64);
            }
        }
        if self.tk.q.val() == ReplyKind::Ack {
            if self.wi.val() == self.c_w1.val() {
                self.word.next = bit_cast::<32, 11>(self.count.q.val());
            }
        }
        if self.tk.q.val() == ReplyKind::Err {
            self.word.next = self.h_err.val();
            if self.wi.val() == self.c_w1.val() {
                self.word.next = bit_cast::<32, 8>(self.ecode.q.val()) | (bit_cast::<32, 8>(self.eop.q.val()) << 8u64);
            }
        }
        if self.tk.q.val() == ReplyKind::Result {
            self.tlast.next = self.t_res.val();
            self.word.next = self.h_res.val();
            if self.wi.val() == self.c_w1.val() {
                self.word.next = bit_cast::<32, 24>(self.check.quads.val());
            }
            if self.wi.val() == self.c_w2.val() {
                self.word.next = self.check.crc.val();
            }
            if self.wi.val() == self.c_w3.val() {
                self.word.next = self.cyc.q.val();
            }
            if self.wi.val() == self.c_w4.val() {
                self.word.next = bit_cast::<32, 24>(self.check.pos_sum.val());
            }
            if self.wi.val() > self.c_w4.val() {
                self.word.next = bit_cast::<32, 11>(self.count.q.val());
            }
        }
        if self.tk.q.val() == ReplyKind::Quad {
            self.tlast.next = self.t_quad.val();
            self.word.next = self.h_quad.val();
            if self.wi.val() == self.c_w1.val() {
                self.word.next = bit_cast::<32, 24>(self.ram.prdata.val());
            }
            if self.wi.val() == self.c_w2.val() {
                self.word.next =
                    bit_cast::<32, 12>(self.sel_qx.val()) | (bit_cast::<32, 12>(self.sel_qy.val()) << 16u64);
            }
            if self.wi.val() == self.c_w3.val() {
                self.word.next = self.sel_mask.val().get_bits::<32>(0);
            }
            if self.wi.val() == self.c_w4.val() {
                self.word.next = self.sel_mask.val().get_bits::<32>(32);
            }
        }
        self.bshift.next = bit_cast::<8, 2>(self.ti.q.val().get_bits::<2>(0)) << 3u64;
        self.word_sh.next = self.word.val() >> self.bshift.val();
        self.tbyte.next = self.word_sh.val().get_bits::<8>(0);
        if self.ti.q.val() == self.tlast.val() {
            self.tbyte.next = self.c_zero8.val() - self.tsum.q.val();
        }
        self.utx.data.next = self.tbyte.val();
        self.utx.in_valid.next = self.tk.q.val() != ReplyKind::None;
        if (self.tk.q.val() != ReplyKind::None) & self.utx.in_ready.val() {
            self.ti.d.next = self.ti.q.val() + 1u64;
            if self.ti.q.val().any() {
                self.tsum.d.next = self.tsum.q.val() + self.tbyte.val();
            }
            if self.ti.q.val() == self.tlast.val() {
                self.tk.d.next = ReplyKind::None;
                self.ti.d.next = 0u64.into();
                self.tsum.d.next = 0u64.into();
            }
        }

        // ---- Frame parser (bytes are dropped while a run or a response to a frame is pending).
        self.b.next = self.urx.data.val();
        self.bv.next = self.urx.valid.val()
            & self.pll.locked.val()
            & (self.rs.q.val() == RunState::Idle)
            & (self.ps.q.val() != ParseState::Exec);
        self.in_frame.next = (self.ps.q.val() != ParseState::Sync) & (self.ps.q.val() != ParseState::Exec);
        // Record byte rb: even bytes wait in `lo`, odd bytes write lane rb/2 = {b, lo}; the
        // last byte (26, even) writes lane 13 alone. Nothing is written past the capacity.
        self.wlane.next = self.rb.q.val() >> 1u64;
        self.lenfull.next = self.len.q.val() | (bit_cast::<16, 8>(self.b.val()) << 8u64);
        self.ram.wdata.next = (bit_cast::<16, 8>(self.b.val()) << 8u64) | bit_cast::<16, 8>(self.lo.q.val());
        if self.rb.q.val() == self.c_rec_last.val() {
            self.ram.wdata.next = bit_cast::<16, 8>(self.b.val());
        }
        self.ram.wlane.next = self.wlane.val().get_bits::<4>(0);
        self.ram.waddr.next = self.wp.q.val().get_bits::<10>(0);
        self.ram.we.next = false;
        if self.bv.val() {
            if self.ps.q.val() == ParseState::Sync {
                if self.b.val() == self.c_sync.val() {
                    self.ps.d.next = ParseState::Op;
                    self.sum.d.next = 0u64.into();
                    self.uerr.d.next = false;
                    self.tflag.d.next = false;
                }
            } else if self.ps.q.val() == ParseState::Op {
                self.op.d.next = self.b.val();
                self.sum.d.next = self.b.val();
                self.ps.d.next = ParseState::Len0;
            } else if self.ps.q.val() == ParseState::Len0 {
                self.len.d.next = bit_cast::<16, 8>(self.b.val());
                self.sum.d.next = self.sum.q.val() + self.b.val();
                self.ps.d.next = ParseState::Len1;
            } else if self.ps.q.val() == ParseState::Len1 {
                self.len.d.next = self.lenfull.val();
                self.sum.d.next = self.sum.q.val() + self.b.val();
                self.len0.d.next = !self.lenfull.val().any();
                self.len1.d.next = self.lenfull.val() == self.c_one16.val();
                self.rb.d.next = 0u64.into();
                self.wp.d.next = self.count.q.val();
                self.ovf.d.next = false;
                self.ps.d.next = ParseState::Payload;
                if !self.lenfull.val().any() {
                    self.ps.d.next = ParseState::Checksum;
                }
            } else if self.ps.q.val() == ParseState::Payload {
                self.sum.d.next = self.sum.q.val() + self.b.val();
                self.len.d.next = self.len.q.val() - 1u64;
                self.lo.d.next = self.b.val();
                self.mode.d.next = self.b.val();
                if self.op.q.val() == self.o_load.val() {
                    self.rb.d.next = self.rb.q.val() + 1u64;
                    self.ram.we.next = (self.rb.q.val().get_bit(0) | (self.rb.q.val() == self.c_rec_last.val()))
                        & (self.wp.q.val() != self.c_cap.val());
                    if self.rb.q.val() == self.c_rec_last.val() {
                        self.rb.d.next = 0u64.into();
                        if self.wp.q.val() == self.c_cap.val() {
                            self.ovf.d.next = true;
                        } else {
                            self.wp.d.next = self.wp.q.val() + 1u64;
                        }
                    }
                }
                if self.len.q.val() == self.c_one16.val() {
                    self.ps.d.next = ParseState::Checksum;
                }
            } else {
                self.sum.d.next = self.sum.q.val() + self.b.val();
                self.ps.d.next = ParseState::Exec;
            }
        }
        // A UART framing error inside a frame abandons it at once (answered with E_UART).
        if self.urx.frame_err.val() & self.in_frame.val() {
            self.uerr.d.next = true;
            self.ps.d.next = ParseState::Exec;
        }
        // Inter-byte timeout inside a frame.
        self.tmo.d.next = 0u64.into();
        if self.in_frame.val() & !self.bv.val() {
            self.tmo.d.next = self.tmo.q.val() + 1u64;
            if self.tmo.q.val().get_bit(20) {
                self.tmo.d.next = 0u64.into();
                self.tflag.d.next = true;
                self.ps.d.next = ParseState::Exec;
            }
        }

        // ---- Execute a complete frame (once the responder is free and no run is going on).
        if (self.ps.q.val() == ParseState::Exec)
            & (self.tk.q.val() == ReplyKind::None)
            & (self.rs.q.val() == RunState::Idle)
        {
            self.ps.d.next = ParseState::Sync;
            self.eop.d.next = self.op.q.val();
            self.tk.d.next = ReplyKind::Err;
            self.errled.d.next = true;
            self.ecode.d.next = self.e_opcode.val();
            if self.tflag.q.val() {
                self.ecode.d.next = self.e_timeout.val();
            } else if self.uerr.q.val() {
                self.ecode.d.next = self.e_uart.val();
            } else if self.sum.q.val().any() {
                self.ecode.d.next = self.e_checksum.val();
            } else if self.op.q.val() == self.o_ping.val() {
                self.ecode.d.next = self.e_length.val();
                if self.len0.q.val() {
                    self.tk.d.next = ReplyKind::Desc;
                    self.errled.d.next = false;
                }
            } else if self.op.q.val() == self.o_clear.val() {
                self.ecode.d.next = self.e_length.val();
                if self.len0.q.val() {
                    self.count.d.next = 0u64.into();
                    self.tk.d.next = ReplyKind::Ack;
                    self.errled.d.next = false;
                }
            } else if self.op.q.val() == self.o_load.val() {
                if self.rb.q.val().any() {
                    self.ecode.d.next = self.e_length.val();
                } else if self.ovf.q.val() {
                    self.ecode.d.next = self.e_capacity.val();
                } else {
                    self.count.d.next = self.wp.q.val();
                    self.tk.d.next = ReplyKind::Ack;
                    self.errled.d.next = false;
                }
            } else if self.op.q.val() == self.o_run.val() {
                if !self.len1.q.val() {
                    self.ecode.d.next = self.e_length.val();
                } else if self.mode.q.val() > self.c_one8.val() {
                    self.ecode.d.next = self.e_mode.val();
                } else {
                    self.rs.d.next = RunState::Prime;
                    self.stream.d.next = self.mode.q.val().get_bit(0);
                    self.rp.d.next = 0u64.into();
                    self.lasts.d.next = 0u64.into();
                    self.cyc.d.next = 0u64.into();
                    self.ln.d.next = 0u64.into();
                    self.sent.d.next = false;
                    self.tk.d.next = ReplyKind::None;
                    self.errled.d.next = false;
                }
            }
        }

        // ---- LEDs.
        self.led.next = self
            .c_zero4
            .val()
            .replace_bit(0, self.hb.q.val().get_bit(25))
            .replace_bit(1, self.in_frame.val())
            .replace_bit(2, self.running.val())
            .replace_bit(3, self.errled.q.val());
    }
}

/// The descriptor's preset byte of a top around a core that is no preset: the host tool
/// (`tilerast fpga`) refuses such a board with one line, it has no golden config to expect.
pub const CUSTOM_PRESET: u8 = 0xff;

/// Top module name of a board's FPGA top.
pub fn top_name(board: &str) -> String {
    format!("tilerast_top_{board}")
}

/// File name of a board's FPGA top in `rtl-out/`.
pub fn rtl_file_name(board: &str) -> String {
    format!("tilerast_top_{board}.v")
}

/// The full text of `rtl-out/tilerast_top_<board>.v` before packaging: the top's own modules;
/// its `raster_core` instance is the module `tilerast_<preset>` of `rtl-out/tilerast_<preset>.v`
/// (the file list `tilerast_top_<board>.f` names both). Generation checks that the core the top was built with equals that
/// module, submodule for submodule, before leaving its copy out.
pub fn rtl_file(board: &Board) -> String {
    rtl_file_for(board, &board.config())
}

/// As [`rtl_file`] around the core of `cfg` (module `tilerast_<cfg.name>`, from the file
/// `tilerast rtl` writes for it): `tilerast synth --board B --config F`.
pub fn rtl_file_for(board: &Board, cfg: &tilerast_golden::Config) -> String {
    let mut top = FpgaTop::with_config(board, cfg);
    top.connect_all();
    let name = top_name(board.name);
    let full = crate::emit::fix_verilog(&crate::emit::generate_verilog_named(&top, &name));
    let core = crate::top_name(&cfg.name);
    let core_text = crate::raster_core::verilog(cfg, &core);
    let body = crate::emit::use_external(&full, &name, "raster_core", &core, &core_text)
        .unwrap_or_else(|e| panic!("FPGA top {}: {e}", board.name));
    format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // FPGA top for board {}: preset {} ({}x MSAA, Q = {}), PLL {} Hz -> {} Hz (target {}), UART {} baud\n\
         // (divisor {}), {} command records; protocol: hw/README.md \"FPGA top and UART protocol\"\n\
         // top module: {}; its raster_core instance is module {} from {} (file list {}.f)\n{}",
        board.name,
        cfg.name,
        cfg.msaa,
        cfg.quads_per_clock,
        board.osc_hz,
        board.clock_hz(),
        board.pll_hz,
        board.baud,
        board.uart_div(),
        board.capacity,
        name,
        core,
        crate::rtl_file_name(&cfg.name),
        name,
        body
    )
}
