//! UART receiver and transmitter of the FPGA top: 8 data bits, no parity, one stop bit (8N1),
//! `div` clock cycles per bit (the board table's clock / baud, see `tilerast_golden::board`). The line
//! model they are tested against is `tilerast_golden::protocol::uart` (`hw/tests/fpga_top.rs`).
//!
//! ```text
//!            ┌─────────────────────────────┐                 ┌───────────────────────────────┐
//!  rx ──►2FF─┤ UartRx: start at mid-bit,   ├─► data, valid   │ UartTx: start, d0..d7, stop   ├─► tx
//!  (sync)    │ 8 samples, stop check       ├─► frame_err     │ in_valid/in_ready (ready=idle)│
//!            └─────────────────────────────┘                 └───────────────────────────────┘
//! ```
//!
//! **UartRx ports.** `clock`, `rx` (line, idle high); `valid` high for one cycle with `data`
//! when a byte's stop bit was sampled high; `frame_err` high for one cycle instead when it was
//! low. Latency: 2 synchronizer cycles + 9.5 bit times from the start edge. No back-pressure:
//! the consumer must take a byte in the cycle it is valid.
//!
//! **UartTx ports.** `clock`, `data` + `in_valid` / `in_ready` (ready when idle or in the last
//! cycle of a stop bit; a byte moves at an edge with both high), `tx` (line). One byte per 10
//! bit times, back to back with no idle cycle.
//!
//! Registers start at zero (no reset); the line levels are kept inverted in the registers so
//! that the power-up state is "line idle".

use rust_hdl::prelude::*;

/// UART receiver (8N1).
#[derive(LogicBlock)]
pub struct UartRx {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Serial line from the host (idle high).
    pub rx: Signal<In, Bit>,
    /// Received byte (valid with `valid`).
    pub data: Signal<Out, Bits<8>>,
    /// One-cycle pulse: `data` holds a new byte.
    pub valid: Signal<Out, Bit>,
    /// One-cycle pulse: a byte's stop bit was low (the byte is dropped).
    pub frame_err: Signal<Out, Bit>,
    s1: DFF<Bit>,
    s2: DFF<Bit>,
    state: DFF<Bits<2>>,
    cnt: DFF<Bits<16>>,
    nbit: DFF<Bits<3>>,
    shreg: DFF<Bits<8>>,
    vld: DFF<Bit>,
    ferr: DFF<Bit>,
    low: Signal<Local, Bit>,
    din: Signal<Local, Bit>,
    tick: Signal<Local, Bit>,
    divm1: Constant<Bits<16>>,
    half: Constant<Bits<16>>,
    st_idle: Constant<Bits<2>>,
    st_start: Constant<Bits<2>>,
    st_data: Constant<Bits<2>>,
    st_stop: Constant<Bits<2>>,
    seven: Constant<Bits<3>>,
}

impl UartRx {
    /// A receiver with `div` clock cycles per bit (2..=65536).
    pub fn new(div: u32) -> Self {
        assert!((2..=65536).contains(&div), "UART divisor {div} out of range");
        let k2 = |v: u64| Constant::new(Bits::<2>::from(v));
        UartRx {
            clock: Default::default(),
            rx: Default::default(),
            data: Default::default(),
            valid: Default::default(),
            frame_err: Default::default(),
            s1: Default::default(),
            s2: Default::default(),
            state: Default::default(),
            cnt: Default::default(),
            nbit: Default::default(),
            shreg: Default::default(),
            vld: Default::default(),
            ferr: Default::default(),
            low: Default::default(),
            din: Default::default(),
            tick: Default::default(),
            divm1: Constant::new(((div - 1) as u64).into()),
            half: Constant::new(((div / 2) as u64).into()),
            st_idle: k2(0),
            st_start: k2(1),
            st_data: k2(2),
            st_stop: k2(3),
            seven: Constant::new(7u64.into()),
        }
    }
}

impl Logic for UartRx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, s1, s2, state, cnt, nbit, shreg, vld, ferr);
        // Two-flop synchronizer of the inverted line (power-up 0 = idle).
        self.s1.d.next = !self.rx.val();
        self.s2.d.next = self.s1.q.val();
        self.low.next = self.s2.q.val();
        self.tick.next = !self.cnt.q.val().any();
        self.din.next = !self.low.val();
        self.vld.d.next = false;
        self.ferr.d.next = false;
        if self.state.q.val() == self.st_idle.val() {
            if self.low.val() {
                self.state.d.next = self.st_start.val();
                self.cnt.d.next = self.half.val();
            }
        } else {
            self.cnt.d.next = self.cnt.q.val() - 1u64;
            if self.tick.val() {
                self.cnt.d.next = self.divm1.val();
                if self.state.q.val() == self.st_start.val() {
                    // Middle of the start bit: still low, or it was a glitch.
                    if self.low.val() {
                        self.state.d.next = self.st_data.val();
                    } else {
                        self.state.d.next = self.st_idle.val();
                    }
                    self.nbit.d.next = 0u64.into();
                } else if self.state.q.val() == self.st_data.val() {
                    self.shreg.d.next =
                        (self.shreg.q.val() >> 1u64) | (bit_cast::<8, 1>(self.din.val().into()) << 7u64);
                    self.nbit.d.next = self.nbit.q.val() + 1u64;
                    if self.nbit.q.val() == self.seven.val() {
                        self.state.d.next = self.st_stop.val();
                    }
                } else {
                    self.vld.d.next = !self.low.val();
                    self.ferr.d.next = self.low.val();
                    self.state.d.next = self.st_idle.val();
                }
            }
        }
        self.data.next = self.shreg.q.val();
        self.valid.next = self.vld.q.val();
        self.frame_err.next = self.ferr.q.val();
    }
}

/// UART transmitter (8N1).
#[derive(LogicBlock)]
pub struct UartTx {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Byte to send.
    pub data: Signal<In, Bits<8>>,
    /// `data` is valid.
    pub in_valid: Signal<In, Bit>,
    /// The transmitter is idle and takes `data` at the next edge if `in_valid`.
    pub in_ready: Signal<Out, Bit>,
    /// Serial line to the host (idle high).
    pub tx: Signal<Out, Bit>,
    busy: DFF<Bit>,
    txn: DFF<Bit>,
    sh: DFF<Bits<9>>,
    cnt: DFF<Bits<16>>,
    nb: DFF<Bits<4>>,
    tick: Signal<Local, Bit>,
    free: Signal<Local, Bit>,
    divm1: Constant<Bits<16>>,
    stop: Constant<Bits<9>>,
    nine: Constant<Bits<4>>,
}

impl UartTx {
    /// A transmitter with `div` clock cycles per bit (2..=65536).
    pub fn new(div: u32) -> Self {
        assert!((2..=65536).contains(&div), "UART divisor {div} out of range");
        UartTx {
            clock: Default::default(),
            data: Default::default(),
            in_valid: Default::default(),
            in_ready: Default::default(),
            tx: Default::default(),
            busy: Default::default(),
            txn: Default::default(),
            sh: Default::default(),
            cnt: Default::default(),
            nb: Default::default(),
            tick: Default::default(),
            free: Default::default(),
            divm1: Constant::new(((div - 1) as u64).into()),
            stop: Constant::new(0x100u64.into()),
            nine: Constant::new(9u64.into()),
        }
    }
}

impl Logic for UartTx {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, txn, sh, cnt, nb);
        self.tick.next = !self.cnt.q.val().any();
        // Free when idle, or in the last cycle of a stop bit (so bytes go back to back).
        self.free.next = !self.busy.q.val() | (self.tick.val() & !self.nb.q.val().any());
        self.in_ready.next = self.free.val();
        self.tx.next = !self.txn.q.val();
        if self.busy.q.val() {
            self.cnt.d.next = self.cnt.q.val() - 1u64;
            if self.tick.val() {
                self.cnt.d.next = self.divm1.val();
                if self.nb.q.val().any() {
                    self.txn.d.next = !self.sh.q.val().get_bit(0);
                    self.sh.d.next = self.sh.q.val() >> 1u64;
                    self.nb.d.next = self.nb.q.val() - 1u64;
                } else {
                    self.busy.d.next = false;
                    self.txn.d.next = false;
                }
            }
        }
        if self.free.val() & self.in_valid.val() {
            // Start bit now; then data bits 0..7 and the stop bit from `sh`.
            self.busy.d.next = true;
            self.txn.d.next = true;
            self.sh.d.next = bit_cast::<9, 8>(self.data.val()) | self.stop.val();
            self.cnt.d.next = self.divm1.val();
            self.nb.d.next = self.nine.val();
        }
    }
}

/// The frame top's UART at the GPU clock: [`UartRx`] and [`UartTx`] side by side, the byte
/// ports named as the frame host's (`crate::frame_host`) streams take and send them. Emitted
/// per board with a frame row as `rtl-out/tilerast_uart_<board>.v` ([`frame_uart_rtl_file`]),
/// `div` = the frame row's GPU clock / the board's baud rate.
#[derive(LogicBlock)]
pub struct UartPort {
    /// The GPU clock.
    pub clock: Signal<In, Clock>,
    /// Serial line from the host (idle high), and to it.
    pub rx: Signal<In, Bit>,
    pub tx: Signal<Out, Bit>,
    /// A received byte (one-cycle `rx_valid`), or a low stop bit (one-cycle `rx_error`).
    pub rx_byte: Signal<Out, Bits<8>>,
    pub rx_valid: Signal<Out, Bit>,
    pub rx_error: Signal<Out, Bit>,
    /// A byte to send: moves at an edge with `tx_valid` and `tx_ready`.
    pub tx_byte: Signal<In, Bits<8>>,
    pub tx_valid: Signal<In, Bit>,
    pub tx_ready: Signal<Out, Bit>,
    receiver: UartRx,
    transmitter: UartTx,
}

impl UartPort {
    /// A UART with `div` clock cycles per bit.
    pub fn new(div: u32) -> UartPort {
        UartPort {
            clock: Default::default(),
            rx: Default::default(),
            tx: Default::default(),
            rx_byte: Default::default(),
            rx_valid: Default::default(),
            rx_error: Default::default(),
            tx_byte: Default::default(),
            tx_valid: Default::default(),
            tx_ready: Default::default(),
            receiver: UartRx::new(div),
            transmitter: UartTx::new(div),
        }
    }
}

impl Logic for UartPort {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, receiver, transmitter);
        self.receiver.rx.next = self.rx.val();
        self.rx_byte.next = self.receiver.data.val();
        self.rx_valid.next = self.receiver.valid.val();
        self.rx_error.next = self.receiver.frame_err.val();
        self.transmitter.data.next = self.tx_byte.val();
        self.transmitter.in_valid.next = self.tx_valid.val();
        self.tx_ready.next = self.transmitter.in_ready.val();
        self.tx.next = self.transmitter.tx.val();
    }
}

/// Top module name of `board`'s frame-top UART.
pub fn frame_uart_top_name(board: &str) -> String {
    format!("tilerast_uart_{board}")
}

/// The full text of `rtl-out/tilerast_uart_<board>.v` (boards with a frame row): the header,
/// then [`UartPort`] at the frame row's GPU clock and the board's baud rate.
pub fn frame_uart_rtl_file(board: &tilerast_golden::board::Board) -> Option<String> {
    let f = board.frame.as_ref()?;
    let div = board.frame_uart_div()?;
    let top = frame_uart_top_name(board.name);
    Some(format!(
        "// generated by `cargo run -p tilerast-hw --bin gen-rtl` — do not edit\n\
         // the frame top's UART for board {} ({}): 8N1 at {} baud, {div} GPU clocks ({} MHz) per bit; top module: {top}\n\
         // lint-clean with: {}\n\
         // Ports: clock (the GPU clock), rx, tx (the lines), rx_byte + rx_valid / rx_error (pulses), tx_byte + tx_valid / tx_ready\n//\n{}",
        board.name,
        board.title,
        board.baud,
        f.gpu_hz / 1_000_000,
        crate::lint_top_command(&top),
        crate::emit::block_verilog(UartPort::new(div), &top)
    ))
}
