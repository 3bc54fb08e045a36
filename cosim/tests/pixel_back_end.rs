//! Co-simulation of `rtl-out/tilerast_pixel_back_end_<preset>.v` against its cycle model
//! `PixelBackEndCycle` through `tilerast_cosim::back_end` (every port, every cycle, a Rust
//! memory model behind the port): random pixels with gaps, junk, back-pressure, a long memory
//! stall and flushes; whole frames (golden's scatter stream of the shipped scenes and of random
//! frames), after which the memory holds golden's framebuffer byte for byte and its image is
//! `render_frame`'s bit for bit; a flipped RTL output bit caught at its cycle and port. The bench
//! is the one lock-step harness's (`tilerast_verif::stim::back_end_bench`).

use tilerast_cosim::back_end::{check_frame, frame_drive, run, Drive, STAGE};
use tilerast_golden::memory_port::{MemTiming, SparseMemory};
use tilerast_golden::scene::Scene;
use tilerast_golden::Config;

/// The background level of the random-pixel runs (every blended slot's dst at `clear`).
const BACKGROUND: u32 = 0x8040_2010;

fn default_drive(seed: u64) -> Drive {
    Drive {
        seed,
        gap_pm: 200,
        busy_pm: 250,
        flush_at: vec![],
        stall: (3_000, 5_500),
        timing: MemTiming { latency: 2, depth: 3 },
        cycles: 0,
        flip: None,
    }
}

/// Random whole second tiles (every slot pattern, junk mask bits above S) with gaps,
/// junk while idle, memory back-pressure, a 2500-cycle memory stall and two flushes.
#[test]
fn random_pixels_every_port_every_cycle() {
    let cfg = Config::preset("default").unwrap();
    let px = tilerast_verif::stim::pix_sample_tiles(&cfg, 11, 40_000);
    let d = Drive {
        flush_at: vec![15_001, 40_000],
        cycles: 60_000,
        ..default_drive(3)
    };
    let o = run("default", &cfg, &px, SparseMemory::new(), BACKGROUND, 0, &d)
        .unwrap_or_else(|e| panic!("RTL and model differ: {e}"));
    println!(
        "pixel_back_end: {} cycles, {} pixels taken, {} reads, {} writes, {} busy flushes",
        o.cycles, o.accepted, o.reads, o.writes, o.busy_flushes
    );
    assert!(o.accepted > 10_000 && o.writes > 5_000, "too little traffic");
    // `framebuffer: clear`, the preset's: dst is the background level, nothing is read.
    assert_eq!(cfg.framebuffer, tilerast_golden::FramebufferMode::Clear);
    assert_eq!(o.reads, 0, "a read with a fast clear");
    assert_eq!(o.busy_flushes, 2, "both flushes must hit a busy back end");
}

/// The planted bug (`build/mutation.rs`: the arbiter's select stuck on the read side) is
/// caught at the cycle the model predicts: the first cycle in which the output merger's write
/// is on the memory port, where the mutant shows dst_fetch's read register instead.
#[test]
fn the_mutant_is_caught_at_the_predicted_cycle() {
    let cfg = Config::preset("default").unwrap();
    let px = tilerast_verif::stim::pix_sample_tiles(&cfg, 13, 2_000);
    let d = Drive {
        cycles: 3_000,
        ..default_drive(6)
    };
    let clean = run("default", &cfg, &px, SparseMemory::new(), BACKGROUND, 0, &d).unwrap_or_else(|e| panic!("{e}"));
    let at = clean.first_write.expect("the run writes");
    let e = run("default_mut", &cfg, &px, SparseMemory::new(), BACKGROUND, 0, &d).expect_err("the mutant must differ");
    println!("mutant: predicted cycle {at}; {e}");
    assert!(
        e.starts_with(&format!("cycle {at}: ")),
        "predicted cycle {at}, got: {e}"
    );
    assert!(e.contains("mem_req__write rtl 0x0 model 0x1"), "{e}");
}

/// An RTL output bit flipped at one cycle is reported at exactly that cycle and port (the
/// harness can fail).
#[test]
fn a_flipped_output_bit_is_caught_at_its_cycle() {
    let cfg = Config::preset("default").unwrap();
    let px = tilerast_verif::stim::pix_sample_tiles(&cfg, 12, 3_000);
    let d = Drive {
        cycles: 4_000,
        flip: Some((1_234, "mem_req__addr")),
        ..default_drive(4)
    };
    let e = run("default", &cfg, &px, SparseMemory::new(), BACKGROUND, 0, &d).expect_err("must differ");
    assert!(e.starts_with("cycle 1234: mem_req__addr"), "{e}");
}

/// The whole-back-end differential: golden's scatter stream of every shipped scene whose
/// preset is verilated, through the RTL, leaves golden's framebuffer and image.
#[test]
fn shipped_scenes_equal_render_frame() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes");
    let mut ran = 0;
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    for p in paths.iter().filter(|p| p.extension().is_some_and(|x| x == "json")) {
        let scene = Scene::load(p).unwrap();
        let frame = scene.to_frame(&p.display().to_string()).unwrap();
        let preset = frame.cfg.name.clone();
        if tilerast_cosim::blocks::block_desc(&preset, STAGE).is_none() || frame.cfg != Config::preset(&preset).unwrap()
        {
            println!(
                "{}: preset {preset} not verilated for the back end (or the scene changes it)",
                p.display()
            );
            continue;
        }
        let (o, pixels) = check_frame(&preset, &frame, &frame_drive(5 + ran))
            .unwrap_or_else(|e| panic!("{} on {preset}: {e}", p.display()));
        println!(
            "{} on {preset}: {pixels} pixels, {} writes, {} cycles: every port, the memory and the image equal golden",
            p.display(),
            o.writes,
            o.cycles
        );
        ran += 1;
    }
    assert!(ran >= 2, "only {ran} shipped scenes ran");
}

/// The whole-back-end differential on random frames on every preset (each preset's back end is
/// verilated): golden's scatter stream of `tilerast regress --back-end`'s chunks, each with its
/// own memory latency, depth, back-pressure and stall.
#[test]
fn random_frames_on_every_preset_equal_render_frame() {
    for preset in tilerast_golden::PRESETS {
        let cfg = Config::preset(preset).unwrap();
        let mut writes = 0;
        for i in 0..3 {
            let (frame, d) = tilerast_cosim::back_end::chunk_case(&cfg, 77, i, 8);
            let (o, pixels) = check_frame(preset, &frame, &d).unwrap_or_else(|e| panic!("{preset} chunk {i}: {e}"));
            println!(
                "{preset} chunk {i}: {pixels} pixels, {} writes, {} cycles (latency {}, depth {}, {} ‰ busy)",
                o.writes, o.cycles, d.timing.latency, d.timing.depth, d.busy_pm
            );
            writes += o.writes;
        }
        assert!(writes > 0, "{preset}: nothing written");
    }
}
