//! `tilerast render SCENE --rtl`: the frame through the verilated frame top
//! (`rtl-out/tilerast_frame_<preset>.v`: primitives in, framebuffer out) with a block-RAM memory
//! behind its port, every port compared with golden's `FrameCycle` on every cycle, then the
//! memory at Done against golden's `frame_memory` byte for byte, the image against
//! `render_frame`'s and every client's bytes against golden's statistics. On success it prints
//! the cycles per phase and the memory traffic per client and writes the RTL framebuffer's image;
//! on any difference it saves the scene, its memory behaviour and a VCD of RTL and model side
//! by side under `target/render-rtl/`, and fails (exit 1).

use crate::error::{io_err, CliError, Res};
use crate::render::{write_png, Canvas};
use std::io::Write;
use std::path::{Path, PathBuf};
use tilerast_cosim::frame::{self, Drive};
use tilerast_golden::frame::CLIENT_TABLE;
use tilerast_golden::output_merger::image_from_memory;
use tilerast_golden::scene::Frame;
use tilerast_golden::{Config, PRESETS};

/// Where a failing `render --rtl` leaves its scene, drive and VCD.
pub const FAIL_DIR: &str = "target/render-rtl";

fn pct(a: u64, b: u64) -> String {
    format!("{:.1} %", 100.0 * a as f64 / b.max(1) as f64)
}

/// Run `frame` (loaded from `file`) through the frame top; `png` is rewritten with the RTL
/// framebuffer's image at `scale` when `keep_png` is false (overlays drawn by the golden render
/// keep its PNG, whose pixels the check proves equal).
pub fn run(frame: &Frame, file: &str, png: &Path, scale: u32, keep_png: bool, out: &mut dyn Write) -> Res<()> {
    let preset = frame.cfg.name.clone();
    if Config::preset(&preset).ok().as_ref() != Some(&frame.cfg) {
        return Err(CliError::at(
            file,
            "config",
            format!(
                "--rtl: the frame top is verilated for the presets only ({}); this scene's config is not preset `{preset}` as shipped (pick one with --preset)",
                PRESETS.join(", ")
            ),
        ));
    }
    if tilerast_cosim::blocks::block_desc(&preset, frame::STAGE).is_none() {
        return Err(CliError::at(
            file,
            "config",
            format!("--rtl: the frame top is not verilated as `{preset}`"),
        ));
    }
    // Block-RAM timing: read latency 1, never busy.
    let d = Drive::new(1, 1, 0);
    let o = match frame::check_frame_windowed(&preset, frame, &d) {
        Ok(o) => o,
        Err((e, w)) => {
            let saved = save_failure(frame, file, &preset, &d, &e, &w);
            return Err(CliError::at(file, "--rtl", format!("{e}; {saved}")));
        }
    };
    let fd = &o.frames[0];
    let s = &fd.stats;
    let mut t = String::new();
    t += &format!(
        "rtl: rtl-out/tilerast_frame_{preset}.v (Verilator) = FrameCycle on every port and every cycle: {} cycles in {:.1} s ({:.1} s in Verilator)\n",
        o.cycles, o.secs, o.rtl_secs
    );
    t += "rtl: memory at Done = golden's byte for byte (framebuffer, primitive table, bin lists, pixel info); image = golden's bit for bit; every client's bytes = golden's\n";
    t += &format!(
        "rtl cycles: {} (bin {} {}, raster {} {}, queued {}, pixel {} {}, done 1)\n",
        s.cycles,
        s.bin_cycles,
        pct(s.bin_cycles, s.cycles),
        s.raster_cycles,
        pct(s.raster_cycles, s.cycles),
        s.queued_cycles,
        s.pixel_cycles,
        pct(s.pixel_cycles, s.cycles)
    );
    t += &format!(
        "rtl sort: {} cycles ({} of the pixel phase); memory port stalled {} cycles\n",
        s.shading.sort_cycles,
        pct(s.shading.sort_cycles, s.pixel_cycles),
        s.mem_stalled
    );
    let total: u64 = s.clients.iter().map(|c| c.bytes).sum();
    t += &format!("rtl memory traffic: {total} bytes\n");
    for (i, (name, _, _, _)) in CLIENT_TABLE.iter().enumerate() {
        let c = &s.clients[i];
        t += &format!(
            "  {name:<22} {:>10} bytes read {:>10} bytes written\n",
            4 * c.reads,
            4 * c.writes
        );
    }
    if keep_png {
        t += &format!(
            "kept {} (golden's pixels with the overlays; the RTL's framebuffer is equal)\n",
            png.display()
        );
    } else {
        let img = image_from_memory(&frame.cfg, &fd.memory);
        let c = Canvas::from_image(&img, scale);
        write_png(png, c.width, c.height, &c.rgba)?;
        t += &format!(
            "wrote {} from the RTL framebuffer ({}x{})\n",
            png.display(),
            c.width,
            c.height
        );
    }
    out.write_all(t.as_bytes())
        .map_err(|e| CliError::at("<stdout>", "write", e))
}

/// Save the failing case under [`FAIL_DIR`]: the scene, its drive (with the failure) and, for a
/// port mismatch, the VCD of the window; the part of the message naming what was saved.
fn save_failure(
    frame: &Frame,
    file: &str,
    preset: &str,
    d: &Drive,
    why: &str,
    w: &tilerast_cosim::back_end::Window,
) -> String {
    let stem = Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "scene".into());
    let dir = PathBuf::from(FAIL_DIR);
    let name = format!("{stem}_{preset}");
    let res = (|| -> Result<Vec<String>, String> {
        let scene = tilerast_cosim::regress::frame_to_scene(frame)?;
        std::fs::create_dir_all(&dir).map_err(|e| io_err(&dir, "create", e).0)?;
        let sp = dir.join(format!("{name}.json"));
        let text = serde_json::to_string_pretty(&scene).map_err(|e| e.to_string())? + "\n";
        std::fs::write(&sp, text).map_err(|e| io_err(&sp, "write", e).0)?;
        let mut v = frame::drive_to_json(d);
        v["note"] = serde_json::Value::String(why.to_string());
        let dp = dir.join(format!("{name}.drive.json"));
        std::fs::write(&dp, serde_json::to_string_pretty(&v).map_err(|e| e.to_string())? + "\n")
            .map_err(|e| io_err(&dp, "write", e).0)?;
        let mut saved = vec![sp.display().to_string(), dp.display().to_string()];
        if !w.cycles.is_empty() {
            let vp = dir.join(format!("{name}.vcd"));
            frame::write_vcd(&vp, preset, w)?;
            saved.push(vp.display().to_string());
        }
        Ok(saved)
    })();
    match res {
        Ok(s) => format!(
            "saved {} (replay: tilerast regress --frame --scene {})",
            s.join(", "),
            s[0]
        ),
        Err(e) => format!("could not save the failing case: {e}"),
    }
}
