//! The `tilerast` package's library: the scene input side that the binary (`src/main.rs`) and
//! the coverage-guided fuzzers (`fuzz/`, outside the workspace) share — scene loading and the
//! OBJ and SVG importers, with their errors, output checks and progress bar. It builds without
//! the `rtl` feature (no Verilator), so `fuzz/` depends on it with `default-features = false`.

pub mod error;
#[cfg(test)]
mod fuzz;
pub mod import_obj;
pub mod import_svg;
pub mod output;
pub mod progress;
pub mod scene_io;
