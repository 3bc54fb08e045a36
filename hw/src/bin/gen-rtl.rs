//! Writes every file of `rtl-out/`: the list, and what makes each file, is
//! `tilerast_hw::rtl_out::files()` (each preset's core, the lint waivers, each pixel-side block
//! and the frame top per preset, the block variants, each board's FPGA top and memory). Every
//! file has a header naming the exact command that regenerated it. Deterministic (no
//! timestamps): `hw/tests/rtl_out.rs` checks that the committed directory holds exactly these
//! files with exactly this text, so regenerating a committed tree is a no-op.
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
    let files = match tilerast_hw::rtl_out::files() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    for f in files {
        let path = dir.join(&f.name);
        if let Err(e) = (f.text)().and_then(|t| std::fs::write(&path, t).map_err(|e| e.to_string())) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
