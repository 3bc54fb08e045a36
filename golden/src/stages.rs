//! The stage names: one list, used in every tree.
//!
//! A stage has one name everywhere: `hw/src/<stage>.rs` (the rust-hdl block),
//! `golden/src/<stage>.rs` (its transaction and cycle models), `hw/tests/<stage>.rs`,
//! `cosim/tests/<stage>.rs`, and the RTL instance inside the core, so that its Verilog module is
//! `tilerast_<preset>__<stage>` and VCD scopes, yosys logs and reports say the stage's name.
//!
//! This file has no dependencies so that build scripts can include it by path
//! (`cosim/build/blocks.rs` verilates each of these blocks on its own).

/// The raster core's blocks, in pipeline order (triangle path, then the point path, then the
/// packer both feed).
pub const RASTER_CORE_STAGES: [&str; 6] = [
    "setup",
    "tile_parser",
    "subtile_coverage",
    "sample_raster",
    "point_raster",
    "quad_packer",
];

/// The blocks of their own, in frame-pipeline order: **the one registry of blocks** (a new
/// block is its own files plus one name here). The front end `bin_setup` (primitives in: their
/// primitive-table entries written, their pixel boxes to the binner), the binner (seed 001,
/// ahead of the raster core: per-first-tile primitive lists through a memory write port), the
/// tile sequencer (seed 001, between the binner and the raster core: reads the lists and the
/// primitive table back, one command per listed primitive), the pixel-info writer (seed 001,
/// behind the raster core, on the binner's list-writing core) and reader (the pixel side's
/// first block: it walks the second tiles' lists once every first tile is done), the
/// sort-based shading block (seed 002), then the pixel side's blocks and the back end that
/// wires them behind one memory port, the frame top (`frame`: every block above and the raster
/// core behind one memory port, primitives in, framebuffer out), and last the video output's
/// blocks (`tmds_encoder`: one DVI channel's TMDS encoder). Each is written in
/// a file of its own per config (`tilerast_<stage>_<config>.v`).
///
/// `pixel_side_stages!(callback)` expands to `callback! { bin_setup, binner, ..., tmds_encoder }`:
/// [`PIXEL_SIDE_STAGES`] is made from it here, hw's `BLOCK_FILES` (each stage's module's
/// `FILE` row) there, and the co-simulation verilates each stage's file by its name.
#[macro_export]
macro_rules! pixel_side_stages {
    ($callback:ident) => {
        $callback! {
            bin_setup,
            binner,
            tile_sequencer,
            pixel_info_write,
            pixel_info_read,
            shading_sort,
            pixel_processor,
            colour_buffer,
            dst_fetch,
            blender,
            output_merger,
            pixel_back_end,
            frame,
            tmds_encoder,
        }
    };
}

/// The names of a list of stages, as an array of strings.
macro_rules! stage_names {
    ($($stage:ident,)*) => {
        [$(stringify!($stage)),*]
    };
}

/// The pixel-side stages' names ([`crate::pixel_side_stages!`]), in frame-pipeline order.
pub const PIXEL_SIDE_STAGES: [&str; pixel_side_stages!(stage_names).len()] = pixel_side_stages!(stage_names);

/// Blocks built per board from the board table (`tilerast_golden::board::BOARDS`) rather than
/// per config: each is written to `rtl-out/tilerast_<stage>_<board>.v` (top module of the same
/// name). The board memory is the memory port's slave on the board's own RAM; the SDRAM
/// controller the slave on a board's SDRAM, the memory arbiter its clients' (the scan-out
/// first, then the GPU), the scan-out the framebuffer's reader into the line buffer, the video
/// output the DVI link's pixel-clock side, the double buffer the GPU's memory port mapped onto
/// the board's memory with its two framebuffers, the line buffer the scan-out's pixels into the
/// pixel clock, the display path the arbiter, the SDRAM controller, the scan-out, the line buffer
/// and the video output wired as the board top wires them, the board top its logic in its three
/// clocks (the frame top, the double buffer, the GPU port's crossings, the display path; boards
/// with a frame row only), the frame host the board side of the UART frames that load a scene
/// into it and run it.
pub const BOARD_STAGES: [&str; 10] = [
    "board_memory",
    "sdram_controller",
    "mem_arbiter",
    "double_buffer",
    "scan_out",
    "line_buffer",
    "video_out",
    "display_path",
    "board_top",
    "frame_host",
];
