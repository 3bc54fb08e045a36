//! Verilator co-simulation of the frame host (`rtl-out/tilerast_frame_host_ulx3s.v`: the
//! ULX3S's scene buffer of 1 024 beats in block RAM, the protocol's frame timeout of 2^20 GPU
//! clocks) against its cycle model `FrameHostCycle`, every port on every cycle (harness:
//! `tilerast_cosim::blocks`), on the shared bench (`tilerast_verif::frame_host`): every frame
//! and error of the protocol at the board's capacity (a LOAD one beat past it, a scene that
//! fills it exactly, a frame that stops for the whole timeout), the answers checked against
//! what the protocol says and the GPU stand-in's own record; then under flushes.

use tilerast_cosim::blocks::cosim_lockstep;
use tilerast_golden::board::board;
use tilerast_golden::frame_host::FrameHostCycle;
use tilerast_verif::frame_host::{assert_protocol_answers, bench, feed_start, protocol_script, GpuTiming, Script};
use tilerast_verif::lockstep::{Flushes, Lockstep};

fn model() -> FrameHostCycle {
    FrameHostCycle::for_board(board("ulx3s").unwrap()).unwrap()
}

#[test]
fn every_frame_and_error_at_the_board_s_capacity_ulx3s() {
    let capacity = model().capacity();
    assert_eq!(capacity, 1024);
    let (script, want) = protocol_script(capacity, model().timeout());
    let mut ls = Lockstep::new(model(), bench(script, GpuTiming::default(), 17));
    cosim_lockstep("ulx3s", &mut ls, 1_400_000, None).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", ls.bench.summary());
    assert_protocol_answers(&ls.bench, &want, capacity);
}

/// The model's cycle where run `nth` starts, under `flushes`.
fn feed_starts(script: &Script, flushes: &[u64], nth: usize) -> u64 {
    let b = bench(script.clone(), GpuTiming::default(), 23).with("flush", Flushes::at(flushes.to_vec()));
    feed_start(model(), b, nth)
}

#[test]
fn rtl_matches_cycle_model_ulx3s_under_flushes() {
    let (script, _) = protocol_script(model().capacity(), model().timeout());
    // Two flushes inside LOAD frames, one inside the first run's feed, one in the middle of
    // the last (1 024 beats: its second run, the first one's answer lost with the flush).
    let mut flushes = vec![3_000, 40_000];
    flushes.push(feed_starts(&script, &flushes, 0) + 1);
    flushes.push(feed_starts(&script, &flushes, 1) + 700);
    let mut ls = Lockstep::new(
        model(),
        bench(script, GpuTiming::default(), 23).with("flush", Flushes::at(flushes)),
    );
    cosim_lockstep("ulx3s", &mut ls, 1_400_000, None).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", ls.bench.summary());
    let f = ls.bench.get::<Flushes>("flush");
    assert!(f.count == 4 && f.busy >= 2, "{} flushes, {} busy", f.count, f.busy);
}
