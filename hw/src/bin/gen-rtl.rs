//! Writes every file of `rtl-out/`: the list, and what makes each file, is
//! `tilerast_hw::rtl_out::generate()` (each preset's core, each pixel-side block and the frame
//! top per preset, the block variants, each board's FPGA top and memory, packaged so that every
//! module is defined once, with a file list per top; the lint waivers; the README). Every file
//! has a header naming the exact command that regenerated it. Deterministic (no timestamps):
//! `hw/tests/rtl_out.rs` checks that the committed directory holds exactly these files with
//! exactly this text, so regenerating a committed tree is a no-op (a file already holding its
//! text is not rewritten). Files of the directory that are no longer generated are removed.
//!
//! Usage: `cargo run -p tilerast-hw --bin gen-rtl [-- OUT_DIR]` (default: `rtl-out` at the
//! workspace root).

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rtl-out"));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let files = match tilerast_hw::rtl_out::generate() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // A file whose text is already this is left alone (its modification time too), so that a
    // no-op regeneration does not make every build that reads rtl-out/ (the verilated models)
    // start again.
    let mut unchanged = 0;
    for f in &files {
        let path = dir.join(&f.name);
        if std::fs::read(&path).is_ok_and(|old| old == f.text.as_bytes()) {
            unchanged += 1;
            continue;
        }
        if let Err(e) = std::fs::write(&path, &f.text) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
    }
    println!("{unchanged} of {} files unchanged", files.len());
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !files.iter().any(|f| f.name == name) {
                match std::fs::remove_file(e.path()) {
                    Ok(()) => println!("removed {} (no longer generated)", e.path().display()),
                    Err(err) => {
                        eprintln!("error: {}: {err}", e.path().display());
                        return ExitCode::FAILURE;
                    }
                }
            }
        }
    }
    ExitCode::SUCCESS
}
