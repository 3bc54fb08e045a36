//! Co-simulate one scene on its preset: `cargo run --release [--features trace] --example scene
//! -- <scenes/x.json> [vcd-path]`. Prints the summary or the first mismatch (and, with the
//! `trace` feature and a path, writes a VCD of the 50 cycles before it).
use tilerast_cosim::*;
use tilerast_golden::pipeline::commands;
use tilerast_golden::scene::Scene;
use tilerast_golden::{Config, PRESETS};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).expect("usage: scene <scene.json> [vcd-path]");
    let frame = Scene::load(std::path::Path::new(path)).unwrap().to_frame(path).unwrap();
    let preset = PRESETS
        .iter()
        .find(|p| Config::preset(p).unwrap() == frame.cfg)
        .expect("config is a preset");
    let cmds = commands(&frame).unwrap();
    let stim = Stimulus::default();
    match cosim_model(preset, &frame.cfg, &cmds, &stim, None) {
        Ok(s) => println!(
            "{preset}: {} commands, {} quads, {} cycles, {:.2} M cycles/s: no mismatch",
            s.commands,
            s.quads.len(),
            s.cycles,
            s.cycles_per_sec / 1e6
        ),
        Err(m) => {
            println!("{preset}: MISMATCH {m}");
            if let Some(vcd) = args.get(2) {
                match vcd_around(preset, &frame.cfg, &cmds, &stim, &m, 50, vcd) {
                    Ok(p) => println!("VCD written to {p}"),
                    Err(e) => println!("no VCD: {e}"),
                }
            }
            std::process::exit(1);
        }
    }
}
