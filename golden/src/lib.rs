//! # tilerast-golden
//!
//! The pure-Rust golden model of the tilerast pipeline: the brute-force reference (layer 1),
//! the seeds' algorithms at transaction level (layer 2) and, per RTL block, a cycle model
//! (layer 3). It depends on no HDL crate.

pub mod config;
pub mod prim;
pub mod reference;
pub mod samples;
pub mod setup;

pub use config::{Config, ConfigError, CoverageTest, CullMode, DepthFunc, PRESETS};
pub use prim::{Coverage, PointFx, PrimitiveFx, Quad, Rgba, TriangleFx};
