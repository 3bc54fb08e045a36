//! # tilerast-golden
//!
//! The pure-Rust golden model of the tilerast pipeline: the brute-force reference (layer 1),
//! the seeds' algorithms at transaction level (layer 2) and, per RTL block, a cycle model
//! (layer 3, see `cycle.rs`). It depends on no HDL crate.

pub mod config;
pub mod counters;
pub mod crc;
pub mod cycle;
pub mod frame;
pub mod prim;
pub mod prim_table;
pub mod reference;
pub mod rng;
pub mod samples;
pub mod scene;
pub mod setup;
pub mod stages;
pub mod streams;

// Seed 000: hierarchical tile rasterization, pixel processor and output merger.
pub mod colour_buffer;
pub mod dst_fetch;
pub mod output_merger;
pub mod pixel_back_end;
pub mod pixel_processor;
pub mod quad_packer;
pub mod raster;
pub mod sample_raster;
pub mod subtile_coverage;
pub mod tile_parser;

// Seed 001: binning and pixel-info store.
pub mod binner;
pub mod list_reader;
pub mod list_writer;
pub mod pixel_info;
pub mod pixel_info_read;
pub mod pixel_info_write;
pub mod tile_sequencer;
// The frame's front end ahead of the binner: prim index, primitive table, pixel box.
pub mod bin_setup;

// Seed 002: sort-based deferred shading.
pub mod shading_sort;

// Seed 003: points.
pub mod point_raster;

// Seed 004: blender with sample-pool merge.
pub mod blender;

// The pixel side's one memory interface (framebuffer; later the pixel-info and primitive lists).
pub mod memory_port;

// The whole frame, stage by stage.
pub mod pipeline;

// The RTL blocks wired together, as a cycle model.
pub mod raster_core;

// The UART protocol of the FPGA top (host tool and Verilator test share it), and the boards.
pub mod board;
pub mod board_memory;
pub mod protocol;

// The board top's video output: one DVI channel's TMDS encoder.
pub mod tmds_encoder;

// The board top's SDRAM chip (the model behind its pins) and its video link.
pub mod board_top;
pub mod crossing;
pub mod display_path;
pub mod double_buffer;
pub mod frame_host;
pub mod line_buffer;
pub mod mem_arbiter;
pub mod scan_out;
pub mod sdram_chip;
pub mod sdram_controller;
pub mod video;
pub mod video_out;

pub use config::{Config, ConfigError, CoverageTest, CullMode, DepthFunc, FramebufferMode, PRESETS};
pub use prim::{Coverage, PointFx, PrimitiveFx, Quad, Rgba, TriangleFx};
pub use scene::{Frame, Scene, SceneError};
