//! Writes `rtl-out/tilerast_<preset>.v` for every preset (raster_core and all its blocks,
//! exactly what `tilerast rtl --preset <preset> -o rtl-out` writes, with the lint waivers
//! `rtl-out/tilerast_waivers.vlt`), `rtl-out/tilerast_<stage>_<preset>.v` for every preset and
//! pixel-side block (`tilerast_hw::BLOCK_FILES`, also written by `tilerast rtl`),
//! `rtl-out/tilerast_<stage>_<variant>.v` for every block variant (`tilerast_hw::BLOCK_VARIANTS`:
//! options the pipeline does not build, for the co-simulation) and
//! `rtl-out/tilerast_top_<board>.v` and `rtl-out/tilerast_board_memory_<board>.v` for every board
//! (the FPGA top, `hw/src/fpga_top/`, and the board memory, `hw/src/board_memory.rs`), each with
//! a header naming the exact command that regenerated it. Deterministic (no timestamps), so a
//! regeneration on an unchanged tree is a no-op; CI checks that with `git diff --exit-code rtl-out`.
//!
//! Usage: `cargo run -p tilerast-hw --bin gen-rtl [-- OUT_DIR]` (default: `rtl-out` at the
//! workspace root).

use std::path::PathBuf;
use std::process::ExitCode;
use tilerast_golden::{Config, PRESETS};

fn main() -> ExitCode {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rtl-out"));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    for p in PRESETS {
        let cfg = match Config::preset(p) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("error: preset {p}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let path = match tilerast_hw::write_core(&cfg, &tilerast_hw::preset_command(p), &dir) {
            Ok(path) => path,
            Err(e) => {
                eprintln!("error: preset {p}: {e}");
                return ExitCode::FAILURE;
            }
        };
        println!("wrote {}", path.display());
        // Every preset builds every pixel-side block: a refusal here is an error too.
        let written = match tilerast_hw::write_blocks(&cfg, &tilerast_hw::preset_command(p), &dir) {
            Ok(w) => w,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        };
        for (_, r) in written {
            match r {
                Ok(path) => println!("wrote {}", path.display()),
                Err(e) => {
                    eprintln!("error: preset {p}: {e}");
                    return ExitCode::FAILURE;
                }
            }
        }
    }
    // Block variants (options the pipeline does not build), for the blocks' co-simulation.
    for v in tilerast_hw::BLOCK_VARIANTS {
        let path = dir.join(v.file_name());
        if let Err(e) = v
            .rtl_file()
            .and_then(|t| std::fs::write(&path, t).map_err(|e| e.to_string()))
        {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
    }
    // FPGA tops, one per board of golden's board table; each instantiates its preset's core.
    for b in tilerast_hw::fpga_top::BOARDS {
        let path = dir.join(tilerast_hw::fpga_top::rtl_file_name(b.name));
        if let Err(e) = std::fs::write(&path, tilerast_hw::fpga_top::rtl_file(b)) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
        // The board's memory (the board table's `memory` column).
        let path = dir.join(tilerast_hw::board_memory::rtl_file_name(b.name));
        if let Err(e) = std::fs::write(&path, tilerast_hw::board_memory::rtl_file(b)) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
