//! The board top's logic (`hw/src/board_top.rs`: the frame top at the ULX3S's preset, the
//! double buffer, the GPU port's crossings, the display path) against its cycle model
//! `BoardTopCycle`, in rust-hdl, every port on every step of the first 2 500 memory clocks: the
//! host's first beats going in at the GPU clock, the double buffer's clear of the back buffer queueing
//! in the request crossing while the SDRAM powers up, the video output's first lines. rust-hdl
//! runs this top at a few hundred steps a second; the whole frame, its swap and its picture are
//! proven in Verilator (`cosim/tests/board_top.rs`).
//!
//! The block has two further clocks: [`Gated`] drives `gpu_clock` and `pixel_clock` with the
//! harness's step clock through clock gates whose enables (the step's bits, latched while the
//! step clock is low) say whether that clock has its rising edge in the step.

mod common;

use rust_hdl::prelude::*;
use tilerast_golden::bin_setup::frame_beats;
use tilerast_golden::board::board;
use tilerast_golden::board_top::BoardTopCycle;
use tilerast_golden::cycle::Ports;
use tilerast_golden::scene::Scene;
use tilerast_hw::board_top::BoardTop;
use tilerast_verif::board_top::bench;
use tilerast_verif::lockstep::Lockstep;

#[derive(LogicBlock)]
struct Gated {
    clock: Signal<In, Clock>,
    gpu_edge: Signal<In, Bit>,
    pixel_edge: Signal<In, Bit>,
    gpu_enable: Signal<Local, Bit>,
    pixel_enable: Signal<Local, Bit>,
    dut: BoardTop,
}

impl Logic for Gated {
    fn update(&mut self) {
        let high = self.clock.val().clk;
        if !high {
            self.gpu_enable.next = self.gpu_edge.val();
            self.pixel_enable.next = self.pixel_edge.val();
        }
        self.dut.clock.next = self.clock.val();
        self.dut.gpu_clock.next = Clock {
            clk: high && self.gpu_enable.val(),
        };
        self.dut.pixel_clock.next = Clock {
            clk: high && self.pixel_enable.val(),
        };
    }
    fn connect(&mut self) {
        self.gpu_enable.connect();
        self.pixel_enable.connect();
        self.dut.clock.connect();
        self.dut.gpu_clock.connect();
        self.dut.pixel_clock.connect();
        self.dut.flush.connect();
        self.dut.in_valid.connect();
        self.dut.inp.kind.connect();
        self.dut.inp.v0x.connect();
        self.dut.inp.v0y.connect();
        self.dut.inp.v1x.connect();
        self.dut.inp.v1y.connect();
        self.dut.inp.v2x.connect();
        self.dut.inp.v2y.connect();
        self.dut.inp.size.connect();
        self.dut.inp.aa.connect();
        self.dut.inp.colour.connect();
        self.dut.inp.depth.connect();
        self.dut.inp.end.connect();
        self.dut.tmds_ready.connect();
        self.dut.dq_in.connect();
    }
}

impl tilerast_hw::streams::PortIo for Gated {
    fn clock_high(&self) -> bool {
        self.clock.val().clk
    }
    fn toggle_clock(&mut self) {
        self.clock.next = !self.clock.val();
    }
    fn set_inputs(&mut self, p: &Ports) {
        self.gpu_edge.next = p.bit("gpu_clock");
        self.pixel_edge.next = p.bit("pixel_clock");
        self.dut.set_data_inputs(p);
    }
    fn outputs(&self) -> Ports {
        self.dut.outputs()
    }
    fn extra_outs(&self) -> Vec<(&'static str, u64)> {
        self.dut.extra_outs()
    }
}

#[test]
fn the_board_top_equals_its_model_from_power_up() {
    common::big_stack(run);
}

fn run() {
    let b = board("ulx3s").unwrap();
    let f = b.frame.unwrap();
    let mut frame = Scene::builtin_default().to_frame(f.preset).unwrap();
    frame.prims.truncate(4);
    let beats = frame_beats(&frame.prims, frame.background).unwrap();
    let (bench, act) = bench(&f, beats.clone());
    let dut = Gated {
        clock: Default::default(),
        gpu_edge: Default::default(),
        pixel_edge: Default::default(),
        gpu_enable: Default::default(),
        pixel_enable: Default::default(),
        dut: BoardTop::try_new(b).unwrap(),
    };
    let (ls, outcome) = common::lockstep(dut, Lockstep::new(BoardTopCycle::new(b).unwrap(), bench), 2_500, None);
    println!("{}", ls.bench.summary());
    if let Err(m) = outcome {
        panic!("{m}");
    }
    let a = act.lock().unwrap().clone();
    let m = &ls.model;
    let (written, _) = m.requests.pointers();
    println!("{a:?}; request crossing written {written}, fill {}", m.requests.fill());
    assert!(a.beats_taken >= 2, "the frame top takes the host's primitives: {a:?}");
    assert!(m.requests.fill() > 8, "the clear waits in the crossing for the SDRAM");
}
