//! The FPGA top's pieces in rust-hdl's simulator, against the pure models in
//! `tilerast_golden::protocol`: the UART receiver fed by the line model's serializer (bytes
//! back, a broken stop bit flagged and dropped), the UART transmitter read by the line model's
//! deserializer (bytes back, exact 10-bit-time pacing, no framing error), and the PLL settings
//! against `icepll`'s answers. The whole top runs in Verilator in `cosim/tests/fpga_top.rs`.

use rust_hdl::prelude::*;
use std::sync::{Arc, Mutex};
use tilerast_golden::board::{ecp5_pll, ice40_pll, BOARDS};
use tilerast_golden::protocol::uart::{Deserializer, Serializer};
use tilerast_hw::uart::{UartRx, UartTx};

use tilerast_verif::Rng;

const DIV: u32 = 7;

/// Feed `bytes` (and one byte with a low stop bit after the third) into `UartRx`; returns the
/// bytes it reported and its framing-error pulses.
fn receive(bytes: &[u8], stop_bits: u32) -> (Vec<u8>, u32) {
    let mut uut = UartRx::new(DIV);
    uut.connect_all();
    let out = Arc::new(Mutex::new((Vec::new(), 0u32)));
    let o = out.clone();
    let bytes = bytes.to_vec();
    let cycles = (bytes.len() as u64 + 3) * (DIV * (9 + stop_bits)) as u64 + 50;
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<UartRx>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<UartRx>| {
        let mut x = sim.init()?;
        let mut s = Serializer::new(DIV);
        s.stop_bits = stop_bits;
        s.push(&bytes[..3]);
        s.push_bad_stop(0x3c);
        s.push(&bytes[3..]);
        wait_clock_true!(sim, clock, x);
        for _ in 0..cycles {
            x.rx.next = s.tick();
            wait_clock_false!(sim, clock, x);
            if x.valid.val() {
                o.lock().unwrap().0.push(x.data.val().to_u8());
            }
            if x.frame_err.val() {
                o.lock().unwrap().1 += 1;
            }
            wait_clock_true!(sim, clock, x);
        }
        sim.done(x)
    });
    sim.run(Box::new(uut), 10 * (cycles + 10)).unwrap();
    let g = out.lock().unwrap();
    (g.0.clone(), g.1)
}

#[test]
fn rx_recovers_bytes_and_flags_a_missing_stop_bit() {
    let mut r = Rng::new(5);
    let mut bytes: Vec<u8> = vec![0x00, 0xff, 0xa5, 0x5a, 0x01, 0x80];
    bytes.extend((0..40).map(|_| r.next_u32() as u8));
    for stop_bits in [1, 2] {
        let (got, ferr) = receive(&bytes, stop_bits);
        assert_eq!(got, bytes, "stop bits {stop_bits}");
        assert_eq!(ferr, 1, "exactly the broken byte is flagged");
    }
}

/// Offer `bytes` to `UartTx` (with random gaps) and decode its line; returns the bytes, the
/// framing errors and the cycles from the first start bit to the end of the last stop bit.
fn transmit(bytes: &[u8], gaps: bool) -> (Vec<u8>, u32, u64) {
    let mut uut = UartTx::new(DIV);
    uut.connect_all();
    let out = Arc::new(Mutex::new((Vec::new(), 0u32, 0u64)));
    let o = out.clone();
    let bytes = bytes.to_vec();
    let total = bytes.len() as u64 * (10 * DIV as u64 + 20) + 100;
    let mut sim = Simulation::new();
    sim.add_clock(5, |x: &mut Box<UartTx>| x.clock.next = !x.clock.val());
    sim.add_testbench(move |mut sim: Sim<UartTx>| {
        let mut x = sim.init()?;
        let mut d = Deserializer::new(DIV);
        let mut r = Rng::new(9);
        let mut next = 0;
        let mut first_low = None;
        let mut last_byte = 0;
        wait_clock_true!(sim, clock, x);
        for cyc in 0..total {
            let valid = next < bytes.len() && (!gaps || r.one_in(3));
            x.in_valid.next = valid;
            x.data.next = (bytes.get(next).copied().unwrap_or(0) as u64).into();
            wait_clock_false!(sim, clock, x);
            let line = x.tx.val();
            if !line && first_low.is_none() {
                first_low = Some(cyc);
            }
            if let Some(b) = d.tick(line) {
                o.lock().unwrap().0.push(b);
                last_byte = cyc;
            }
            if valid && x.in_ready.val() {
                next += 1;
            }
            wait_clock_true!(sim, clock, x);
        }
        let mut g = o.lock().unwrap();
        g.1 = d.framing_errors;
        // The deserializer reports a byte in the middle of its stop bit.
        g.2 = last_byte - first_low.unwrap_or(0) + (DIV as u64).div_ceil(2);
        drop(g);
        sim.done(x)
    });
    sim.run(Box::new(uut), 10 * (total + 10)).unwrap();
    let g = out.lock().unwrap();
    (g.0.clone(), g.1, g.2)
}

#[test]
fn tx_sends_bytes_back_to_back_at_ten_bit_times_each() {
    let mut r = Rng::new(17);
    let bytes: Vec<u8> = (0..30).map(|_| r.next_u32() as u8).chain([0, 0xff, 0xa5]).collect();
    let (got, ferr, span) = transmit(&bytes, false);
    assert_eq!(got, bytes);
    assert_eq!(ferr, 0);
    // Offered continuously: one byte per 10 bit times, no idle cycle in between.
    let n = bytes.len() as u64;
    assert!(
        span.abs_diff(n * 10 * DIV as u64) <= 1,
        "span {span} cycles for {n} bytes"
    );
    let (got, ferr, _) = transmit(&bytes, true);
    assert_eq!(got, bytes);
    assert_eq!(ferr, 0);
}

#[test]
fn rx_reads_what_tx_writes_in_the_line_model_at_an_odd_divisor() {
    // The two line models agree with each other at an odd divisor (75 MHz / 1 Mbaud) and at
    // every divisor a board uses.
    let mut divs: Vec<u32> = BOARDS.iter().map(|b| b.uart_div()).collect();
    divs.push(75);
    assert!(divs.iter().any(|d| d % 2 == 1));
    for div in divs {
        let mut s = Serializer::new(div);
        let mut d = Deserializer::new(div);
        s.push(&[0x12, 0x34, 0xfe]);
        let got: Vec<u8> = (0..div * 40).filter_map(|_| d.tick(s.tick())).collect();
        assert_eq!(got, vec![0x12, 0x34, 0xfe], "divisor {div}");
    }
}

#[test]
fn pll_settings_match_icepll_and_ecp5_limits() {
    // `icepll -i 12 -o 48` / `-o 75` / `-o 33`.
    let p = ice40_pll(12_000_000, 48_000_000);
    assert_eq!(
        (p.divr, p.divf, p.divq, p.filter_range, p.hz),
        (0, 63, 4, 1, 48_000_000)
    );
    let p = ice40_pll(12_000_000, 75_000_000);
    assert_eq!(
        (p.divr, p.divf, p.divq, p.filter_range, p.hz),
        (0, 49, 3, 1, 75_000_000)
    );
    let p = ice40_pll(12_000_000, 33_000_000);
    assert_eq!(
        (p.divr, p.divf, p.divq, p.filter_range, p.hz),
        (0, 87, 5, 1, 33_000_000)
    );
    // ECP5 25 -> 100 MHz: CLKI 1, FB 4 (PFD 25 MHz), VCO = 100 MHz * CLKOP_DIV within 400..800.
    let e = ecp5_pll(25_000_000, 100_000_000);
    assert_eq!((e.clki_div, e.clkfb_div, e.hz), (1, 4, 100_000_000));
    assert!((400..=800).contains(&(100 * e.clkop_div)), "{e:?}");
    for b in BOARDS {
        assert!(
            b.clock_hz().abs_diff(b.pll_hz as u64) * 100 <= b.pll_hz as u64,
            "{}",
            b.name
        );
    }
}
