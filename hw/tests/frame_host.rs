//! The frame host (`hw/src/frame_host.rs`) against its cycle model `FrameHostCycle`, in
//! rust-hdl, every port on every cycle, through the one lock-step harness
//! (`tilerast_verif::lockstep`, rust-hdl back end in `tests/common`), on the shared bench
//! (`tilerast_verif::frame_host`: a host playing the UART's two sides from a script, a GPU
//! stand-in playing the board top's), with a scene buffer of 8 beats and a 64-edge timeout:
//!
//! - every frame of the protocol and every error: the answers are checked against what the
//!   protocol says (not against the model), the beats the GPU took are the ones loaded, and
//!   each FRAME RESULT carries the GPU's own cycle count, frame id and CRC;
//! - under flushes, still equal;
//! - the planted bug (RUN FRAME without the whole-frame check) caught at the cycle the model
//!   predicts.

mod common;

use tilerast_golden::board::board;
use tilerast_golden::frame_host::FrameHostCycle;
use tilerast_golden::protocol::{E_SCENE, OP_RUN_FRAME, T_ERROR};
use tilerast_hw::frame_host::FrameHost;
use tilerast_verif::frame_host::{
    assert_protocol_answers, bench, feed_start, protocol_script, script_cycles, GpuTiming,
};
use tilerast_verif::lockstep::{Flushes, Lockstep};

const CAPACITY: usize = 8;
const TIMEOUT: u64 = 64;

fn model() -> FrameHostCycle {
    FrameHostCycle::new(board("ulx3s").unwrap(), CAPACITY)
        .unwrap()
        .with_timeout(TIMEOUT)
}

#[test]
fn every_frame_and_error_of_the_protocol_and_the_rtl_equals_the_model() {
    let (script, want) = protocol_script(CAPACITY, TIMEOUT);
    let cycles = script_cycles(model(), bench(script.clone(), GpuTiming::default(), 5));
    let m = model();
    let (ls, outcome) = common::lockstep(
        FrameHost::new(&m),
        Lockstep::new(m, bench(script, GpuTiming::default(), 5)),
        cycles,
        None,
    );
    println!("{cycles} cycles\n{}", ls.bench.summary());
    if let Err(e) = outcome {
        panic!("{e}");
    }
    assert_protocol_answers(&ls.bench, &want, CAPACITY);
}

#[test]
fn under_flushes_the_rtl_equals_the_model() {
    let (script, _) = protocol_script(CAPACITY, TIMEOUT);
    // One flush inside a LOAD frame, one inside each run's feed (the first run's answer and
    // scene are lost with it; the last run is the second to feed).
    let mut flushes = vec![700];
    let with = |f: &[u64]| bench(script.clone(), GpuTiming::default(), 9).with("flush", Flushes::at(f.to_vec()));
    flushes.push(feed_start(model(), with(&flushes), 0) + 1);
    flushes.push(feed_start(model(), with(&flushes), 1) + 3);
    let cycles = script_cycles(model(), with(&flushes));
    let m = model();
    let (ls, outcome) = common::lockstep(
        FrameHost::new(&m),
        Lockstep::new(
            m,
            bench(script, GpuTiming::default(), 9).with("flush", Flushes::at(flushes)),
        ),
        cycles,
        None,
    );
    println!("{cycles} cycles\n{}", ls.bench.summary());
    if let Err(e) = outcome {
        panic!("{e}");
    }
    let f = ls.bench.get::<Flushes>("flush");
    assert!(f.count == 3 && f.busy >= 2, "{} flushes, {} busy", f.count, f.busy);
}

#[test]
fn the_planted_no_scene_check_bug_is_caught_at_the_predicted_cycle() {
    let (script, want) = protocol_script(CAPACITY, TIMEOUT);
    // The model's first ERROR 8 answer: its answer index in the script, and the cycle its
    // first byte is offered (`tx_valid` rising for the k-th time), where the mutant starts a
    // run instead (`running` high, no answer; it waits for a CRC toggle to feed).
    let k = want
        .iter()
        .position(|a| a == &(T_ERROR, vec![E_SCENE, OP_RUN_FRAME]))
        .unwrap();
    let mut ls = Lockstep::new(model(), bench(script.clone(), GpuTiming::default(), 5));
    let (mut rises, mut before, mut predicted) = (0, false, None);
    while predicted.is_none() {
        let c = ls.cycle;
        let (_, out) = ls.step().unwrap();
        let tx = out.bit("tx_valid");
        if tx && !before {
            if rises == k {
                predicted = Some(c);
            }
            rises += 1;
        }
        before = tx;
    }
    let predicted = predicted.unwrap();
    let m = model();
    let (_, outcome) = common::lockstep(
        FrameHost::new(&m).mutant_no_scene_check(),
        Lockstep::new(m, bench(script, GpuTiming::default(), 5)),
        predicted + 50,
        None,
    );
    let e = outcome.expect_err("the mutant is caught");
    println!("predicted: cycle {predicted}; caught: {}", e.ports_line());
    assert_eq!((e.cycle, e.port.as_str()), (predicted, "tx_valid"));
    assert!(
        e.ports_line().contains("running rtl 0x1 model 0x0"),
        "{}",
        e.ports_line()
    );
}
