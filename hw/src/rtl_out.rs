//! What `rtl-out/` holds, declared once: every file's name and how its text is made. `gen-rtl`
//! writes exactly these files; `hw/tests/rtl_out.rs` checks that the directory holds exactly
//! these names (nothing missing, nothing extra) and that each file equals its text now, so a
//! regeneration on a committed tree is a no-op without running `gen-rtl` in CI.
//!
//! | file | made by |
//! |---|---|
//! | `tilerast_<preset>.v` | [`crate::rtl_file`]: the raster core and its blocks |
//! | `tilerast_waivers.vlt` | [`crate::LINT_WAIVERS`] |
//! | `tilerast_<stage>_<preset>.v` | [`crate::BLOCK_FILES`]: each pixel-side block and the frame top |
//! | `tilerast_<stage>_<variant>.v` | [`crate::BLOCK_VARIANTS`] |
//! | `tilerast_top_<board>.v` | [`crate::fpga_top::rtl_file`] |
//! | `tilerast_board_memory_<board>.v` | [`crate::board_memory::rtl_file`] |

use tilerast_golden::{Config, PRESETS};

/// How one file's text is made (some take minutes together: the frame tops are built on a
/// thread of their own; call it when needed).
pub type MakeText = Box<dyn Fn() -> Result<String, String> + Send + Sync>;

/// One file of `rtl-out/`.
pub struct RtlOutFile {
    /// File name inside `rtl-out/`.
    pub name: String,
    /// Its text.
    pub text: MakeText,
}

fn file(name: String, text: impl Fn() -> Result<String, String> + Send + Sync + 'static) -> RtlOutFile {
    RtlOutFile {
        name,
        text: Box::new(text),
    }
}

/// Every file of `rtl-out/`, in the order `gen-rtl` writes them. A preset that fails to load is
/// an error here; a block refusing a preset is an error when its text is made.
pub fn files() -> Result<Vec<RtlOutFile>, String> {
    let mut out = vec![file(crate::LINT_WAIVERS_FILE.to_string(), || {
        Ok(crate::LINT_WAIVERS.to_string())
    })];
    for p in PRESETS {
        let cfg = Config::preset(p).map_err(|e| format!("preset {p}: {e}"))?;
        let c = cfg.clone();
        out.push(file(crate::rtl_file_name(p), move || {
            crate::rtl_file(&c, &crate::preset_command(p)).map_err(|e| format!("preset {p}: {e}"))
        }));
        for b in crate::BLOCK_FILES {
            let c = cfg.clone();
            out.push(file(b.file_name(p), move || {
                b.rtl_file(&c, &crate::preset_command(p))
                    .map_err(|e| format!("preset {p}: {e}"))
            }));
        }
    }
    for v in crate::BLOCK_VARIANTS {
        out.push(file(v.file_name(), move || v.rtl_file()));
    }
    for b in crate::fpga_top::BOARDS {
        out.push(file(crate::fpga_top::rtl_file_name(b.name), move || {
            Ok(crate::fpga_top::rtl_file(b))
        }));
        out.push(file(crate::board_memory::rtl_file_name(b.name), move || {
            Ok(crate::board_memory::rtl_file(b))
        }));
    }
    Ok(out)
}
