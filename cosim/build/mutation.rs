//! The planted bug of the mutation tests, one line inside a core's sample_raster block: when a
//! job is accepted, its trivial-accept flag is also set for the last sub-tile of every command,
//! so that sub-tile's samples are all taken as covered. `build.rs` builds `ice40_mut` from the
//! ice40 core with it; `cosim/tests/raster_core.rs` applies it to a core verilated on demand, and
//! applies the same change to the job entering a copy of the cycle model
//! (`trivial |= cand.last`) to predict the failing cycle. Shared by the build script and the
//! library (`tilerast_cosim::mutation`).

/// The line of the sample_raster block the mutation replaces…
pub const MUT_FROM: &str = "            triv_r__d = inp__trivial;\n";
/// …and its replacement.
pub const MUT_TO: &str = "            triv_r__d = inp__trivial | inp__last; // MUTATION (cosim test)\n";

/// `src` (a Verilog file that defines `module`, a core's sample_raster) with the mutation
/// applied, or a one-line error if the anchor is not found exactly once in the file and inside
/// that module (the regenerated RTL moved it: update [`MUT_FROM`] / [`MUT_TO`] and the tests'
/// model mutation).
pub fn apply(src: &str, module: &str, file: &str) -> Result<String, String> {
    let head = format!("module {module}(");
    let body = src
        .find(&head)
        .map(|i| &src[i..i + src[i..].find("endmodule").unwrap_or(0)]);
    if src.matches(MUT_FROM).count() != 1 || body.is_none_or(|m| m.matches(MUT_FROM).count() != 1) {
        return Err(format!(
            "error: mutation anchor {MUT_FROM:?} not found exactly once in `{head}` of {file} \
             (regenerated RTL moved it: update cosim/build/mutation.rs and the tests' model mutation)"
        ));
    }
    Ok(src.replacen(MUT_FROM, MUT_TO, 1))
}

/// A planted bug in a pixel-side block (`rtl-out/tilerast_<stage>_default`): `build/blocks.rs`
/// verilates the files of its list with `from` replaced by `to` in the one file that holds it,
/// as the block `default_mut/<stage>`, and `cosim/tests/<stage>.rs` predicts from the cycle
/// model the first cycle and port where it differs.
pub struct BlockMutant {
    pub stage: &'static str,
    /// The text replaced (exactly once in the files of the block's list)…
    pub from: &'static str,
    /// …and its replacement.
    pub to: &'static str,
}

/// One planted bug per pixel-side block (and the binner).
pub const BLOCK_MUTANTS: &[BlockMutant] = &[
    // The binner's new chunk starts its free-record offset one record too far (12 instead of
    // 8): the second record of every chunk lands at +12 instead of +8. First visible on
    // `out__addr` (bit 2) in the cycle the model's output register first holds a record at
    // slot 1 of a chunk (`cosim/tests/binner.rs` predicts it from the model).
    BlockMutant {
        stage: "binner",
        from: "    localparam [15:0] c_off_first = 16'h8;\n",
        to: "    localparam [15:0] c_off_first = 16'hc; // MUTATION (cosim test)\n",
    },
    // The pixel-info writer's record keeps only 4 bits of the quad's column inside its second
    // tile (`c_mx` = 0xf instead of 0x1f at default's 64-pixel-wide second tiles): word 2 of
    // every record whose quad lies in columns 16..31 of its second tile loses bit 4. First
    // visible on `out__wdata` (bit 4) in the first cycle the model's output register holds such
    // a word 2 (`cosim/tests/pixel_info_write.rs` predicts it from the model).
    BlockMutant {
        stage: "pixel_info_write",
        from: "    localparam [11:0] c_mx = 12'h1f;\n",
        to: "    localparam [11:0] c_mx = 12'hf; // MUTATION (cosim test)\n",
    },
    // The pixel processor never fills colour slot 0 (its "slot exists" constant is 0): every
    // pixel's first colour is dropped.
    BlockMutant {
        stage: "pixel_processor",
        from: "    localparam [0:0] c_slot__0 = 1'b1;\n",
        to: "    localparam [0:0] c_slot__0 = 1'b0; // MUTATION (cosim test)\n",
    },
    // The colour buffer's drain skips its load cycle: it also reads in the cycle it loads a
    // piece (from the stale read address), so one junk word leaves before every piece. First
    // visible on `out_valid` one cycle before the model's first output (the FIFO is empty then).
    BlockMutant {
        stage: "colour_buffer",
        from: "        rd_en = active__q & space;\n",
        to: "        rd_en = (active__q | fullrb) & space; // MUTATION (cosim test)\n",
    },
    // The pixel-info reader's list core takes a block to hold K − 1 records (its `K − 1`
    // constant one too small at default's K = 5): after the 4th record of a full block it
    // reads the `next` pointer instead of the 5th record. Predicted by a model built with
    // K − 1 records per block (`cosim/tests/pixel_info_read.rs`).
    BlockMutant {
        stage: "pixel_info_read",
        // The list core is the tile sequencer's module with pixel_info_read's constants as
        // parameter overrides (`hw/src/package.rs`): the anchor is the override.
        from: ".c_k1(16'h4)",
        to: ".c_k1(16'h3 /* MUTATION (cosim test) */)",
    },
    // The blender's `⌊v/255⌉` loses its rounding term (`t = p1 + p2` instead of
    // `p1 + p2 + 128`), so ops 0 and 3 round down where the exact result rounds up.
    BlockMutant {
        stage: "blender",
        from: "    localparam [15:0] c_128 = 16'h80;\n",
        to: "    localparam [15:0] c_128 = 16'h0; // MUTATION (cosim test)\n",
    },
    // The output merger's writes lose their alpha byte (byte enables 0x7 instead of 0xf).
    BlockMutant {
        stage: "output_merger",
        from: "    localparam [3:0] c_be = 4'hf;\n",
        to: "    localparam [3:0] c_be = 4'h7; // MUTATION (cosim test)\n",
    },
    // The back end's arbiter always puts dst_fetch's read on the memory port, even when the
    // output merger's write is valid (its select stuck at 0): the first write is shown as a
    // read.
    BlockMutant {
        stage: "pixel_back_end",
        from: "        arb__sel = output_merger__out_valid;\n",
        to: "        arb__sel = 1'b0; // MUTATION (cosim test)\n",
    },
    // The tile sequencer reads every command's attribute word at offset 24 of the entry (the
    // colour word) instead of 28: kind, aa and depth come from the colour. First visible on
    // `prd__addr` in the first cycle the first command's first table read is on the port
    // (`cosim/tests/tile_sequencer.rs` predicts it with a model built `with_attr_off(24)`).
    BlockMutant {
        stage: "tile_sequencer",
        from: "    localparam [31:0] c_attr = 32'h1c;\n",
        to: "    localparam [31:0] c_attr = 32'h18; // MUTATION (cosim test)\n",
    },
    // The shading block's histogram epoch does not toggle at the end of a sort pass, so the
    // next pass counts on top of the previous pass's end offsets (a histogram never cleared):
    // the scatter of a tile's second pass writes beyond its elements. Predicted by the cycle
    // model with its planted bug (`ShadingSortCycle::plant_bug`, `cosim/tests/shading_sort.rs`).
    BlockMutant {
        stage: "shading_sort",
        from: "                    epoch__d = ~epoch__q;\n",
        to: "                    epoch__d = epoch__q; // MUTATION (cosim test)\n",
    },
    // bin_setup's x1 clamp is W instead of W − 1 (640 at default): a box reaching past the
    // viewport's right edge ends one pixel outside it. First visible on `out__x1` in the first
    // cycle such a box is in the output register (`cosim/tests/bin_setup.rs` predicts it from
    // the model with the same bug, `BinSetupCycle::plant_bug`).
    BlockMutant {
        stage: "bin_setup",
        // A parameter: the other presets' bin_setup is this module with their constants.
        from: "    parameter [11:0] c_vmax12_x = 12'h27f;\n",
        to: "    parameter [11:0] c_vmax12_x = 12'h280; // MUTATION (cosim test)\n",
    },
    // The TMDS encoder's control-period character has bit 0 set (11_0101_0101 instead of
    // (c1, c0) = 00's 11_0101_0100): first visible on `out__word` (bit 0) in the first cycle the model's output
    // register holds a control character (`cosim/tests/tmds_encoder.rs` predicts it).
    BlockMutant {
        stage: "tmds_encoder",
        from: "    localparam [9:0] c_ctrl0 = 10'b1101010100;\n",
        to: "    localparam [9:0] c_ctrl0 = 10'b1101010101; // MUTATION (cosim test)\n",
    },
];

/// Planted bugs in per-board blocks (`rtl-out/tilerast_<stage>_<board>`), verilated as
/// `<board>_mut/<stage>`: (board, mutant).
pub const BOARD_MUTANTS: &[(&str, BlockMutant)] = &[
    // The board top's request crossing (the GPU port's requests into the memory clock, the
    // 69-bit one) without its synchroniser on the read side (`c_unsynchronised`, as
    // `Crossing::plant_unsynchronised_bug`): the display path takes a request before the
    // crossing's RAM register holds it, first visible on the SDRAM pins in the cycle the model
    // with the same bug issues the wrong command (`cosim/tests/board_top.rs` predicts it).
    (
        "ulx3s",
        BlockMutant {
            stage: "board_top",
            from: "    output reg  [68:0] head_data;\n\n    // Constant declarations\n    localparam [0:0] c_unsynchronised = 1'b0;\n",
            to: "    output reg  [68:0] head_data;\n\n    // Constant declarations\n    localparam [0:0] c_unsynchronised = 1'b1; // MUTATION (cosim test)\n",
        },
    ),
    // The display path puts the GPU port on the arbiter's first client and the scan-out on the
    // second (`c_gpu_first`, as `DisplayPath::mutant_gpu_first` in rust-hdl): first visible on
    // the GPU port's `in_ready` in the cycle the model with the same fault
    // (`DisplayPathCycle::plant_gpu_first`) lets a GPU request go before the scan-out's read
    // (`cosim/tests/display_path.rs` predicts it).
    (
        "ulx3s",
        BlockMutant {
            stage: "display_path",
            from: "    localparam [0:0] c_gpu_first = 1'b0;\n",
            to: "    localparam [0:0] c_gpu_first = 1'b1; // MUTATION (cosim test)\n",
        },
    ),
    // The SDRAM controller issues READ and WRITE when its rcd wait is 1, not 0: one clock short
    // of tRCD. First visible on the pins (`cas_n`) in the cycle the model, with the same bug
    // (`SdramControllerCycle::plant_bug`), puts the early command there
    // (`cosim/tests/sdram_controller.rs` predicts it; the chip model stops it as tRCD).
    (
        "ulx3s",
        BlockMutant {
            stage: "sdram_controller",
            from: "    localparam [3:0] c_rcd_go = 4'h0;\n",
            to: "    localparam [3:0] c_rcd_go = 4'h1; // MUTATION (cosim test)\n",
        },
    ),
    // The memory arbiter's tag FIFO says full at 7 of its 8 entries (the shared ring FIFO's
    // depth constant in the arbiter's instance): a read is held back one entry early, first
    // visible on `out_valid` / a client's ready in the cycle the model with the same bug
    // (`MemArbiterCycle::plant_full_early_bug`) holds it (`cosim/tests/mem_arbiter.rs`).
    (
        "ulx3s",
        BlockMutant {
            stage: "mem_arbiter",
            from: "    localparam [3:0] c_depth = 4'h8;\n",
            to: "    localparam [3:0] c_depth = 4'h7; // MUTATION (cosim test)\n",
        },
    ),
    // The double buffer takes `shown` as the front buffer always (as
    // `DoubleBuffer::mutant_no_vblank_wait` in rust-hdl): the back buffer is cleared and drawn
    // while the scan-out still shows it, a torn frame. First visible on `out_valid` in the
    // cycle the model with the same bug (`DoubleBufferCycle::plant_no_vblank_wait_bug`) starts
    // the clear early (`cosim/tests/double_buffer.rs` predicts it).
    (
        "ulx3s",
        BlockMutant {
            stage: "double_buffer",
            from: "    localparam [0:0] c_no_vblank_wait = 1'b0;\n",
            to: "    localparam [0:0] c_no_vblank_wait = 1'b1; // MUTATION (cosim test)\n",
        },
    ),
    // The scan-out's row step negated (the walk's row address steps up a row instead of down,
    // as `ScanOut::mutant_row_step_up` in rust-hdl): first visible on `rd__addr` in the cycle
    // the model with the same bug (`ScanOutCycle::plant_row_step_bug`) offers the second row's
    // first read (`cosim/tests/scan_out.rs` predicts it).
    (
        "ulx3s",
        BlockMutant {
            stage: "scan_out",
            from: "    localparam [31:0] c_row_bytes = 32'ha00;\n",
            to: "    localparam [31:0] c_row_bytes = 32'hfffff600; // MUTATION (cosim test)\n",
        },
    ),
    // The line buffer's read side compares the write side's gray pointer itself, without its
    // two flops (as `LineBuffer::new(true)` in rust-hdl): it takes a pixel before the RAM's read
    // register holds it. First visible on `out_valid` in the step the model with the same bug
    // (`Crossing::plant_unsynchronised_bug`) sees the word (`cosim/tests/line_buffer.rs`
    // predicts it).
    (
        "ulx3s",
        BlockMutant {
            stage: "line_buffer",
            from: "    localparam [0:0] c_unsynchronised = 1'b0;\n",
            to: "    localparam [0:0] c_unsynchronised = 1'b1; // MUTATION (cosim test)\n",
        },
    ),
    // The TMDS encoder that the video output's three channels instantiate loads its running
    // disparity with bit 1 inverted after every data character. First visible on a character
    // in the cycle the model with the same bug (`VideoOutCycle::plant_disparity_bug(1)`)
    // sends a different one (`cosim/tests/video_out.rs` predicts it; the DVI receiver stops
    // the mutant's characters there).
    (
        "ulx3s",
        BlockMutant {
            stage: "video_out",
            from: "                    disparity__d = disparity__q + delta;\n",
            to: "                    disparity__d = (disparity__q + delta) ^ 5'h2; // MUTATION (cosim test)\n",
        },
    ),
];

/// `src` (a block file of `rtl-out/`) with mutant `m` applied, or a one-line error if its
/// anchor is not there exactly once.
pub fn apply_block(src: &str, m: &BlockMutant, file: &str) -> Result<String, String> {
    if src.matches(m.from).count() != 1 {
        return Err(format!(
            "error: {} mutation anchor {:?} not found exactly once in {file} \
             (regenerated RTL moved it: update cosim/build/mutation.rs and cosim/tests/{}.rs)",
            m.stage, m.from, m.stage
        ));
    }
    Ok(src.replacen(m.from, m.to, 1))
}
