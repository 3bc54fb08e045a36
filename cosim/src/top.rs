//! The whole FPGA top (`rtl-out/tilerast_top_<board>.v`, verilated by `build.rs`) behind a
//! simulated UART: [`SimLink`] implements `protocol::Link`, so the host tool's own protocol code
//! (`tilerast_golden::protocol::Client`) talks to the simulated board exactly as it talks to a
//! serial port. The line is modelled per clock cycle by `protocol::uart` (serializer towards
//! `uart_rx`, deserializer on `uart_tx`); cycles run in batches of [`TOP_BATCH`] per FFI call.
//!
//! ```text
//!   Client ─send─► Serializer ─bit/cycle─► ┌──────────────────────┐
//!                                          │ Vtilerast_top_<board>│ (PLL = pass-through)
//!   Client ◄─recv─ Deserializer ◄─bit/cycle┤ uart_tx, led[3:0]    │
//!                                          └──────────────────────┘
//! ```

use tilerast_golden::protocol::uart::{Deserializer, Serializer};
use tilerast_golden::protocol::Link;

#[cxx::bridge]
pub mod ffi {
    unsafe extern "C++" {
        include!("tilerast-cosim/csrc/top.h");
        type TopModel;
        fn new_top(board: &str) -> Result<UniquePtr<TopModel>>;
        fn run_top(m: Pin<&mut TopModel>, rx: &[u8], out: &mut [u8]) -> Result<()>;
    }
}

/// Boards whose FPGA top is verilated into this crate.
pub const TOP_BOARDS: &[&str] = &["icebreaker"];

/// Cycles per FFI call (at most; a receive stops at the batch where a byte completes).
pub const TOP_BATCH: usize = 4096;

/// One verilated FPGA top.
pub struct Top {
    m: cxx::UniquePtr<ffi::TopModel>,
    /// Cycles run so far.
    pub cycle: u64,
}
// A verilated model is not thread-safe, but it may move between threads.
unsafe impl Send for Top {}

impl Top {
    /// The top of `board` (see [`TOP_BOARDS`]).
    pub fn new(board: &str) -> Result<Top, String> {
        ffi::new_top(board)
            .map(|m| Top { m, cycle: 0 })
            .map_err(|e| e.what().to_string())
    }
    /// Run `rx.len()` cycles with `uart_rx` = `rx[i] & 1`; `out[i]` = `uart_tx | led << 4`.
    pub fn run(&mut self, rx: &[u8], out: &mut [u8]) {
        ffi::run_top(self.m.pin_mut(), rx, out).expect("run_top");
        self.cycle += rx.len() as u64;
    }
}

/// A simulated serial link to a verilated top.
pub struct SimLink {
    pub top: Top,
    pub ser: Serializer,
    pub de: Deserializer,
    /// Cycles one `recv` may run without a byte arriving before it returns 0.
    pub budget: u64,
    /// OR of the LED outputs over every cycle since the last [`SimLink::take_leds`].
    pub leds_seen: u8,
    /// LED outputs in the last cycle.
    pub leds_now: u8,
    /// Cycles during which `led[2]` (running) was high.
    pub running_cycles: u64,
    rx: Vec<u8>,
    out: Vec<u8>,
}

impl SimLink {
    /// A link to `board`'s top with `div` clock cycles per UART bit.
    pub fn new(board: &str, div: u32) -> Result<SimLink, String> {
        Ok(SimLink {
            top: Top::new(board)?,
            ser: Serializer::new(div),
            de: Deserializer::new(div),
            budget: 3 << 20,
            leds_seen: 0,
            leds_now: 0,
            running_cycles: 0,
            rx: vec![1; TOP_BATCH],
            out: vec![0; TOP_BATCH],
        })
    }

    /// LEDs seen since the last call (bit i = led[i] was high in some cycle).
    pub fn take_leds(&mut self) -> u8 {
        std::mem::take(&mut self.leds_seen)
    }

    /// Run `n` cycles, collecting received bytes.
    pub fn step(&mut self, n: usize, got: &mut Vec<u8>) {
        let mut left = n;
        while left > 0 {
            let k = left.min(TOP_BATCH);
            for v in &mut self.rx[..k] {
                *v = self.ser.tick() as u8;
            }
            self.top.run(&self.rx[..k], &mut self.out[..k]);
            for &o in &self.out[..k] {
                if let Some(b) = self.de.tick(o & 1 == 1) {
                    got.push(b);
                }
                let led = o >> 4;
                self.leds_seen |= led;
                self.running_cycles += (led >> 2 & 1) as u64;
                self.leds_now = led;
            }
            left -= k;
        }
    }
}

impl Link for SimLink {
    fn send(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.ser.push(bytes);
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<usize, String> {
        let mut got = Vec::new();
        let mut ran = 0u64;
        while got.is_empty() && ran < self.budget {
            self.step(TOP_BATCH, &mut got);
            ran += TOP_BATCH as u64;
        }
        let n = got.len().min(buf.len());
        buf[..n].copy_from_slice(&got[..n]);
        assert!(n == got.len(), "recv buffer too small");
        Ok(n)
    }
}
