//! `tilerast`: the command-line front end of the tilerast golden model.
//!
//! Commands: `render` (PNG + overlays; `--rtl`: through the verilated frame top as well),
//! `raster` (JSON lines, the machine-readable contract), `explore` (parameter sweeps → table,
//! CSV, plot), `import` (OBJ / SVG → JSON scene), `fpga` (a scene on a board over UART),
//! `board-sim` (a scene through the board top's cycle models, the picture off the DVI lanes); with
//! the `rtl` feature also `rtl` (Verilog), `regress` (RTL vs golden) and `synth` (FPGA flows).
//! See `cli/README.md`.
//!
//! Errors: every failure prints ONE line `error: <file or option>: <where>: <what>` on stderr
//! and exits with 1 (clap's own usage errors exit with 2). A panic (a bug, never bad input) is
//! also reported on one line, with exit code 101.
//!
//! ```text
//!   argv ─► clap ─► scene_io::load ─► Frame ─┬─► render  ─► PNG + summary
//!                                            ├─► raster  ─► JSONL
//!                                            ├─► explore ─► table / CSV / plot
//!                   import_obj / import_svg ─┴─► import  ─► scene JSON
//! ```

mod board_sim;
mod explore;
mod fpga;
mod plot;
mod raster;
#[cfg(feature = "rtl")]
mod regress;
mod render;
#[cfg(feature = "rtl")]
mod render_rtl;
#[cfg(feature = "rtl")]
mod rtl;
#[cfg(feature = "rtl")]
mod synth;
#[cfg(all(test, feature = "rtl"))]
mod workflow;

// The input side (scene loading, OBJ / SVG import, errors, output checks, progress) is the
// package's library (src/lib.rs), shared with the fuzzers in fuzz/.
use tilerast::{error, output, progress, scene_io};

use clap::{Parser, Subcommand};
use error::{CliError, Res};
use scene_io::ImportArgs;
use std::io::Write;
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "tilerast",
    version,
    about = "tilerast: tile-based rasterizer golden model — render, raster, explore, import"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Render a scene (.json, or .obj / .svg imported on the fly; none = built-in default) to PNG.
    Render {
        /// Scene file; omitted = the built-in default scene.
        scene: Option<PathBuf>,
        /// Output PNG.
        #[arg(short, long, default_value = "out.png")]
        out: PathBuf,
        /// Overlays, comma-separated or repeated: tiles, subtiles, quads.
        #[arg(long, value_enum, value_delimiter = ',')]
        overlay: Vec<render::Overlay>,
        /// Magnify the image this many times before drawing overlays (1..=16).
        #[arg(long, default_value_t = 1)]
        scale: u32,
        /// Restrict the subtiles / quads overlays to this primitive index.
        #[arg(long)]
        prim: Option<u32>,
        /// Print every statistic, not only the key ones.
        #[arg(long)]
        stats: bool,
        /// Also render through the verilated frame top (rtl-out/tilerast_frame_<preset>.v),
        /// every port and cycle against golden's FrameCycle, the memory at frame end byte for
        /// byte: prints cycles per phase and memory traffic, writes the RTL framebuffer's image;
        /// exit 1 with the scene and a side-by-side VCD saved if anything differs.
        #[arg(long)]
        rtl: bool,
        #[command(flatten)]
        import: ImportArgs,
    },
    /// Rasterize a scene and print every emitted quad as JSON lines (see cli/README.md).
    Raster {
        /// Scene file (.json, .obj, .svg).
        scene: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "jsonl")]
        format: raster::Format,
        /// Output file (default: stdout).
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// Refuse, before rasterizing, a scene whose output could pass this many bytes (an
        /// upper bound from each primitive's area and box in the viewport); K, M, G, T suffixes.
        #[arg(long, value_name = "BYTES", default_value = "4G", value_parser = raster::parse_bytes)]
        max_output_bytes: u64,
        #[command(flatten)]
        import: ImportArgs,
    },
    /// Sweep config parameters and tabulate every stage's statistics.
    Explore {
        /// Scene file; omitted = the built-in default scene.
        scene: Option<PathBuf>,
        /// Tile sizes: N (square) or WxH, comma-separated.
        #[arg(long, value_name = "LIST")]
        tile: Option<String>,
        /// First sub-tile sizes: N or WxH, comma-separated.
        #[arg(long, value_name = "LIST")]
        subtile: Option<String>,
        /// MSAA rates, comma-separated (1, 2, 4, 8, 16).
        #[arg(long, value_name = "LIST")]
        msaa: Option<String>,
        /// Colours stored per pixel, comma-separated (1, 2, 4, 8, 16).
        #[arg(long, value_name = "LIST")]
        colours: Option<String>,
        /// Sub-tile coverage tests, comma-separated: edge, samples, bbox_only.
        #[arg(long, value_name = "LIST")]
        coverage_test: Option<String>,
        /// Any config field, as FIELD=V1,V2,… (repeatable; e.g. `--sweep quads_per_clock=1,2,4
        /// --sweep second_tile=32x16,64x32`): sizes N or WxH, whole numbers, true/false or
        /// names, each checked alone. Swept after the options above, in the order given.
        #[arg(long, value_name = "FIELD=LIST")]
        sweep: Vec<String>,
        /// Also run each combination through the frame top's cycle model (the one the RTL
        /// equals every cycle): frame cycles per phase, the raster core alone, bytes through
        /// the memory port and frames per second at each board's clock (empty where the frame
        /// top is not built for the combination, with a note).
        #[arg(long)]
        cycles: bool,
        /// Write the table as CSV.
        #[arg(long, value_name = "FILE")]
        csv: Option<PathBuf>,
        /// Plot figures vs the first swept parameter (.svg or .png): one panel per figure, at
        /// most 8 lines per panel, labelled like `msaa=4 colours=2`. The other swept parameters
        /// whose combinations come closest to 8 (without passing it) are the lines; every
        /// combination of the rest gets its own row of panels (captioned e.g. `quads
        /// (subtile=8)`) with its legend on the right; a parameter with more than 8 values is
        /// split over rows `(1/2)`, `(2/2)`. Each figure keeps one y scale in all rows.
        #[arg(long, value_name = "FILE")]
        plot: Option<PathBuf>,
        /// Figures (stat names) for the table and the plot, comma-separated (default: the table
        /// shows a handful, the plot primitive-list bytes and quads; the CSV has every figure).
        #[arg(long, value_name = "LIST")]
        figures: Option<String>,
        /// Run only the raster side (faster; pixel-side figures stay at zero).
        #[arg(long)]
        raster_only: bool,
        #[command(flatten)]
        import: ImportArgs,
    },
    /// Convert an .obj or .svg file to a JSON scene.
    Import {
        /// Input .obj or .svg.
        input: PathBuf,
        /// Output JSON scene (default: stdout).
        #[arg(short, long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        import: ImportArgs,
    },
    /// Write the raster core's Verilog for a preset or any supported config (lint-checked).
    #[cfg(feature = "rtl")]
    Rtl(rtl::RtlArgs),
    /// FPGA flows: bitstream + report per board, per-block sizes, post-synthesis simulation.
    #[cfg(feature = "rtl")]
    Synth(synth::SynthArgs),
    /// Co-simulate the RTL (Verilator) on seeded random primitives or a scene against the golden models.
    #[cfg(feature = "rtl")]
    Regress(regress::RegressArgs),
    /// Run a scene on a board over the UART protocol and check the answers against golden.
    Fpga(fpga::FpgaArgs),
    /// Simulate a board top on a scene (the cycle models: frame top, double buffer, SDRAM and
    /// its chip model, scan-out, DVI): the picture decoded from the TMDS lanes to PNG, checked
    /// against golden's render.
    BoardSim(board_sim::BoardSimArgs),
}

/// Write to stdout; a closed pipe (`| head`) ends the program quietly.
fn stdout_write(f: impl FnOnce(&mut dyn Write) -> Res<()>) -> Res<()> {
    let stdout = std::io::stdout();
    let mut lock = std::io::BufWriter::new(stdout.lock());
    let r = f(&mut lock).and_then(|()| lock.flush().map_err(|e| CliError::at("<stdout>", "write", e)));
    match r {
        Err(e) if e.0.contains("Broken pipe") => std::process::exit(0),
        r => r,
    }
}

fn run(cli: Cli) -> Res<()> {
    match cli.cmd {
        #[cfg(feature = "rtl")]
        Cmd::Synth(a) => synth::run(&a, &mut std::io::stdout()),
        #[cfg(feature = "rtl")]
        Cmd::Regress(a) => regress::run(&a),
        #[cfg(feature = "rtl")]
        Cmd::Rtl(a) => stdout_write(|w| rtl::run(&a, w)),
        Cmd::Fpga(a) => fpga::run(&a, &mut std::io::stdout()),
        Cmd::BoardSim(a) => stdout_write(|w| board_sim::run(&a, w)),
        Cmd::Render {
            scene,
            out,
            overlay,
            scale,
            prim,
            stats,
            rtl,
            import,
        } => {
            let inputs: Vec<&std::path::Path> = scene.iter().map(|p| p.as_path()).collect();
            output::check(
                &output::OutSpec {
                    flag: "-o",
                    path: &out,
                    exts: &["png"],
                    what: "a PNG image",
                },
                &inputs,
            )?;
            let l = scene_io::load(scene.as_ref(), &import)?;
            let frame = l.frame()?;
            let o = render::RenderOpts {
                out: &out,
                overlays: &overlay,
                scale,
                prim,
                all_stats: stats,
                quiet: import.quiet,
            };
            #[cfg(not(feature = "rtl"))]
            if rtl {
                return Err(CliError(
                    "--rtl: this tilerast is built without the RTL side (build it with the default features; it needs Verilator)".into(),
                ));
            }
            stdout_write(|w| render::run(&frame, &l.file, &o, w))?;
            #[cfg(feature = "rtl")]
            if rtl {
                let keep = !overlay.is_empty();
                stdout_write(|w| render_rtl::run(&frame, &l.file, &out, scale, keep, w))?;
            }
            Ok(())
        }
        Cmd::Raster {
            scene,
            format: raster::Format::Jsonl,
            out,
            max_output_bytes,
            import,
        } => {
            if let Some(p) = &out {
                output::check(
                    &output::OutSpec {
                        flag: "-o",
                        path: p,
                        exts: &["jsonl", "ndjson"],
                        what: "JSON lines",
                    },
                    &[&scene],
                )?;
            }
            let l = scene_io::load(Some(&scene), &import)?;
            let frame = l.frame()?;
            raster::check_output_size(&frame, &l.file, max_output_bytes)?;
            match out {
                Some(p) => {
                    let f = std::fs::File::create(&p).map_err(|e| error::io_err(&p, "write", e))?;
                    raster::run(
                        &frame,
                        &l.file,
                        &p.display().to_string(),
                        &mut std::io::BufWriter::new(f),
                        import.quiet,
                    )
                }
                None => stdout_write(|w| raster::run(&frame, &l.file, "<stdout>", w, import.quiet)),
            }
        }
        Cmd::Explore {
            scene,
            tile,
            subtile,
            msaa,
            colours,
            coverage_test,
            sweep,
            cycles,
            csv,
            plot,
            figures,
            raster_only,
            import,
        } => {
            let inputs: Vec<&std::path::Path> = scene.iter().map(|p| p.as_path()).collect();
            if let Some(p) = &csv {
                let spec = output::OutSpec {
                    flag: "--csv",
                    path: p,
                    exts: &["csv"],
                    what: "CSV",
                };
                output::check(&spec, &inputs)?;
            }
            if let Some(p) = &plot {
                let spec = output::OutSpec {
                    flag: "--plot",
                    path: p,
                    exts: &["svg", "png"],
                    what: "a plot (SVG or PNG)",
                };
                output::check(&spec, &inputs)?;
            }
            let l = scene_io::load(scene.as_ref(), &import)?;
            let frame = l.frame()?;
            let o = explore::ExploreOpts {
                sweep: explore::SweepArgs {
                    tile,
                    subtile,
                    msaa,
                    colours,
                    coverage_test,
                    fields: sweep,
                },
                csv,
                plot,
                figures,
                raster_only,
                cycles,
                quiet: import.quiet,
            };
            stdout_write(|w| explore::run(&frame, &l.file, &o, w, &mut std::io::stderr()))
        }
        Cmd::Import { input, out, import } => {
            if let Some(p) = &out {
                let spec = output::OutSpec {
                    flag: "-o",
                    path: p,
                    exts: &["json"],
                    what: "a JSON scene",
                };
                output::check(&spec, &[&input])?;
            }
            let import = ImportArgs {
                max_scene_bytes: Some(scene_io::MAX_SCENE_BYTES),
                ..import
            };
            let scene = scene_io::import_only(&input, &import)?;
            let file = input.display().to_string();
            // Check the result goes through the front end, and that every command can read it
            // back (its exact size, counted without holding the text), before writing
            // anything; then encode it again straight to the output (streamed).
            scene.to_frame(&file)?;
            let size = scene_io::import_size(&scene, &file)?;
            match out {
                Some(p) => {
                    let dest = p.display().to_string();
                    let f = std::fs::File::create(&p).map_err(|e| error::io_err(&p, "write", e))?;
                    scene_io::write_import(&scene, size, &dest, &mut std::io::BufWriter::new(f))?;
                    println!("wrote {dest} ({} primitives)", scene.primitives.len());
                    Ok(())
                }
                None => stdout_write(|w| scene_io::write_import(&scene, size, "<stdout>", w)),
            }
        }
    }
}

fn main() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let e = CliError(format!("internal error (a bug, please report): {msg}{at}"));
        eprintln!("error: {}", e.one_line());
    }));
    let cli = Cli::parse();
    match std::panic::catch_unwind(|| run(cli)) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            eprintln!("error: {}", e.one_line());
            std::process::exit(1);
        }
        Err(_) => std::process::exit(101),
    }
}
