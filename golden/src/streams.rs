//! Payloads of the streams between RTL blocks, as the cycle models see them (see
//! `hw/README.md`). Field names equal the Verilog port suffixes; widths are noted per field and
//! every value must fit them (the cycle models assert it in debug builds).

/// Lanes of a beat (the largest Q).
pub const LANES: usize = 4;

/// raster_core input: one primitive in one first tile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cmd {
    /// 0 triangle, 1 point.
    pub kind: u8,
    /// Primitive id, 24 bits.
    pub prim: u32,
    /// First tile, 8 bits each.
    pub tile_x: u32,
    pub tile_y: u32,
    /// Vertices, absolute 1/256 px, signed 24 bits. A point uses `v[0]`.
    pub v: [[i32; 2]; 3],
    /// Point size in 1/256 px, 24 bits.
    pub size: u32,
    /// Point antialiasing.
    pub aa: bool,
}

/// setup → tile_parser.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Edges {
    pub prim: u32,
    pub tile_x: u32,
    pub tile_y: u32,
    /// Nothing to rasterize (zero area, culled, bbox misses the tile).
    pub empty: bool,
    /// Edge coefficients after the counter-clockwise reorder, signed 24 bits.
    pub a: [i32; 3],
    pub b: [i32; 3],
    /// Biased edge value at the origin of the first visited sub-tile (c0, r0), tile-relative,
    /// signed 48 bits; covered iff ≥ 0.
    pub e: [i64; 3],
    /// Inclusive pixel bbox relative to the tile, clipped to tile and viewport, 8 bits each.
    pub bx0: u32,
    pub by0: u32,
    pub bx1: u32,
    pub by1: u32,
    /// Pixels of this tile inside the viewport, 9 bits each.
    pub vis_w: u32,
    pub vis_h: u32,
}

/// tile_parser → subtile_coverage: one visited first sub-tile (or a bare `last` token).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cand {
    pub prim: u32,
    pub tile_x: u32,
    pub tile_y: u32,
    /// Sub-tile column and row inside the tile, 8 bits each.
    pub col: u32,
    pub row: u32,
    /// Biased E at this sub-tile's origin, signed 48 bits.
    pub e: [i64; 3],
    pub a: [i32; 3],
    pub b: [i32; 3],
    pub vis_w: u32,
    pub vis_h: u32,
    /// Last candidate of its command.
    pub last: bool,
    /// No sub-tile: a `last` token for a command with nothing to visit.
    pub none: bool,
}

/// subtile_coverage → sample_raster: a covered sub-tile (or a bare `last` token).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Job {
    pub cand: Cand,
    /// Every sample of the sub-tile (inside the viewport) is covered.
    pub trivial: bool,
}

/// A beat of up to [`LANES`] quads: sample_raster / point_raster → merge → quad_packer → out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Beat {
    pub prim: u32,
    /// Bit l: lane l holds a quad (its mask is non-zero).
    pub lane_valid: u8,
    /// Absolute quad coordinates, 12 bits each.
    pub qx: [u32; LANES],
    pub qy: [u32; LANES],
    /// 4·S mask bits per lane.
    pub mask: [u64; LANES],
    /// Storage block of the lane's second sub-tile (quad_packer output only), 8 bits.
    pub block: [u32; LANES],
    /// Which rasterizer made the quads: 0 sample_raster (a triangle), 1 point_raster (a
    /// point), as the command's `kind`; the pixel side and the host can tell them apart.
    pub kind: u8,
    /// Last beat of its command.
    pub last: bool,
}

/// blender input: a fragment of up to [`LANES`] samples (lane `l` valid iff `lane_valid` bit
/// `l`), the pool's load (`crate::blender::BlenderCycle`). Colours are RGBA8 packed little
/// endian (R in bits 7..0, A in bits 31..24, [`crate::blender::pack_rgba`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlendFrag {
    /// 4 bits.
    pub lane_valid: u8,
    /// Destination position id per lane, 32 bits.
    pub pos: [u32; LANES],
    /// Source colour per lane, packed RGBA8.
    pub src: [u32; LANES],
    /// Destination colour per lane, packed RGBA8.
    pub dst: [u32; LANES],
    /// Blend control state per lane, 8 bits (operation `state & 3`).
    pub state: [u8; LANES],
}

/// blender output: one batch of the pool, every position with its (replicated) result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlendBeat {
    /// 4 bits: slot `l` holds a result.
    pub lane_valid: u8,
    /// Position per slot, 32 bits (0 when the slot is empty).
    pub pos: [u32; LANES],
    /// Blended colour per slot, packed RGBA8 (0 when the slot is empty).
    pub colour: [u32; LANES],
}

/// pixel_processor input: one pixel of a shaded second tile, its S sample colours (after 002's
/// scatter) with the covered mask (`crate::pixel_processor::PixelProcessorCycle`). Colours are
/// RGBA8 packed little endian (R in bits 7..0). Lanes ≥ S are ignored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PixSamples {
    /// Pixel coordinates (sideband, passed through), 12 bits each.
    pub x: u32,
    pub y: u32,
    /// 16 bits: sample i is covered (its colour is valid) iff bit i.
    pub mask: u16,
    /// Sample colour per lane, packed RGBA8.
    pub colour: [u32; 16],
}

/// pixel_processor output: the pixel's C colour slots (`resolve_pixel`), slot j valid iff
/// `slot_valid` bit j (k > 0); blend position of slot j is `(y·W + x)·C + j`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PixSlots {
    /// Pixel coordinates, 12 bits each.
    pub x: u32,
    pub y: u32,
    /// 16 bits: slot j holds a colour.
    pub slot_valid: u16,
    /// Colour per slot, packed RGBA8 (0 when the slot is empty or j ≥ C).
    pub colour: [u32; 16],
}

/// The memory port, request side (pixel side → memory): one 32-bit word read or written. The
/// output merger's framebuffer and, later, the pixel-info and primitive lists go through it;
/// [`crate::memory_port`] is the memory behind it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemReq {
    /// Byte address of the word, a multiple of 4 (32 bits).
    pub addr: u32,
    /// Write (`wdata` under `be`), else read (one [`MemResp`], in request order).
    pub write: bool,
    /// Write data, byte k = bits 8k..8k+7 at address `addr + k` (little-endian).
    pub wdata: u32,
    /// Byte enables of a write, bit k for byte k (4 bits).
    pub be: u8,
}

/// binner input (seed 001): one primitive's inclusive pixel bounding box
/// ([`crate::setup::PixelBox`]), or a frame-end token (`end`: no box; the binner closes every
/// list, [`crate::binner::BinnerCycle`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BinBox {
    /// Primitive index, 24 bits.
    pub prim: u32,
    /// Inclusive pixel box, 12 bits each (`x0 ≤ x1`, `y0 ≤ y1`, inside the viewport).
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
    /// Frame end: the other fields are ignored.
    pub end: bool,
}

/// binner output: a memory-port write ([`MemReq`]) plus `last`, high on the frame's final
/// write (the last list's table `count`), so that a frame top knows the lists are complete.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BinWrite {
    pub req: MemReq,
    pub last: bool,
}

/// The memory-port request a [`BinWrite`] carries (the frame's arbiter drops `last`).
impl From<BinWrite> for MemReq {
    fn from(w: BinWrite) -> MemReq {
        w.req
    }
}

/// pixel_info_write input (seed 001): a raster-core beat of up to [`LANES`] quads with the
/// primitive's depth and the frame id, or a frame-end token (`end`: every first tile is
/// rasterized; the writer closes every list, [`crate::pixel_info_write::PixelInfoWriteCycle`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PiBeat {
    /// The quads (`block`, the packer's storage block, is not carried).
    pub beat: Beat,
    /// The primitive's 24-bit depth (0 = near).
    pub depth: u32,
    /// Frame id, 8 bits.
    pub frame: u8,
    /// Frame end: the other fields are ignored.
    pub end: bool,
}

/// tile_sequencer input (seed 001): "the binner has closed frame `frame`'s lists, go" (as
/// [`PiStart`]; the id is not used by the sequencer, every output field comes from memory).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqStart {
    /// Frame id, 8 bits.
    pub frame: u8,
}

/// tile_sequencer output (seed 001): one raster-core command in golden order
/// ([`crate::pipeline::commands`]) plus its primitive's depth, or a frame-end token (`end`:
/// after the frame's last command; the command fields and depth are 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqCmd {
    pub cmd: Cmd,
    /// The primitive's 24-bit depth.
    pub depth: u32,
    /// Frame end.
    pub end: bool,
}

/// The memory port, response side (memory → pixel side): the word a read returned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemResp {
    pub rdata: u32,
}

/// tmds_encoder input: one pixel clock of one DVI channel, a colour byte in active video
/// (`de`), else a control period's two control bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TmdsIn {
    /// The channel's byte (active video only).
    pub data: u8,
    /// Data enable: active video.
    pub de: bool,
    /// (c1, c0) as a number 0..4, sent in a control period (outside active video): channel 0
    /// carries (vsync, hsync), channels 1 and 2 carry 0 in DVI.
    pub ctrl: u8,
}

/// tmds_encoder output: one 10-bit TMDS character, bit 0 sent first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TmdsChar {
    pub word: u16,
}

/// video_out input: one pixel of the picture shown, taken at its pixel clock in active video.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VideoPixel {
    pub red: u8,
    pub green: u8,
    pub blue: u8,
}

/// double_buffer input: a frame's end token taken by the frame top, with its background.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameEnd {
    /// The frame's background (the end token's `colour`): the back buffer is cleared to it.
    pub colour: u32,
}

/// video_out output: one pixel clock's three TMDS characters, bit 0 of each sent first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DviWord {
    /// Channel 0 (with hsync and vsync in control periods).
    pub blue: u16,
    pub green: u16,
    pub red: u16,
}

/// A byte of the board's UART, received or to send (frame_host's `inp` and `tx`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UartByte {
    pub byte: u8,
}

/// pixel_info_read input: "every first tile of the frame is rasterized, read the pixel-info
/// lists" (seed 001 claim 1: the pixel side starts only then).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PiStart {
    /// Frame id (8 bits, as [`crate::pixel_info::PixelInfo::frame`]): carried by the `none`
    /// tokens of empty second tiles, whose records would have carried it (claim 4).
    pub frame: u8,
}

/// pixel_info_read output: one pixel-info record of a second tile per beat, in list order, or
/// a bare `last` token (`none`) for a second tile with no record, so the next stage sees every
/// second tile (rows bottom-up, left→right).
///
/// Widths: `tile_x`, `tile_y` are 11 bits because a viewport is at most 4096 pixels
/// (`MAX_VIEWPORT`) and a second tile at least 2, so at most 2048 second tiles per axis;
/// `qx`, `qy` keep the record's 8 bits (at most 128 quads per second-tile axis, `second_tile`
/// ≤ 256); `depth` 24, `frame` 8, `prim` 32 and `mask` 64 (4·S ≤ 64) are the record's own
/// fields ([`crate::pixel_info`] byte layout).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PiRecord {
    /// The second tile (11 bits each).
    pub tile_x: u32,
    pub tile_y: u32,
    /// Primitive id (32 bits).
    pub prim: u32,
    /// 24-bit depth.
    pub depth: u32,
    /// Frame id: the record's, or the start token's on a `none` token.
    pub frame: u8,
    /// Quad column and row inside the second tile (8 bits each).
    pub qx: u8,
    pub qy: u8,
    /// The quad's 4·S sample bits (bits ≥ 4·S are 0).
    pub mask: u64,
    /// Last beat of its second tile.
    pub last: bool,
    /// No record: the second tile is empty (`last` is set, the record fields are 0).
    pub none: bool,
}

/// bin_setup input (the frame's front end): one primitive of a frame, in submission order, or
/// a frame-end token (`end`: the other fields are ignored;
/// [`crate::bin_setup::BinSetupCycle`]). Built from a [`crate::PrimitiveFx`] by
/// [`crate::bin_setup::prim_in`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrimIn {
    /// 0 triangle, 1 point.
    pub kind: u8,
    /// Vertices, absolute 1/256 px, signed 24 bits; a point uses `v[0]` as its position (the
    /// others are ignored).
    pub v: [[i32; 2]; 3],
    /// Point size in 1/256 px, 24 bits (ignored for triangles).
    pub size: u32,
    /// Point antialiasing (ignored for triangles).
    pub aa: bool,
    /// RGBA8, bytes R, G, B, A little-endian (`u32::from_le_bytes`).
    pub colour: u32,
    /// unorm24 depth.
    pub depth: u32,
    /// Frame end.
    pub end: bool,
}

impl Beat {
    /// The valid quads of this beat, in lane order.
    pub fn quads(&self) -> impl Iterator<Item = crate::Quad> + '_ {
        (0..LANES)
            .filter(move |l| self.lane_valid >> l & 1 == 1)
            .map(move |l| crate::Quad {
                prim: self.prim,
                qx: self.qx[l] as u16,
                qy: self.qy[l] as u16,
                mask: self.mask[l],
            })
    }
}

// ---------------------------------------------------------------------------------------------
// The streams' ports, declared once.

/// Every stream between RTL blocks, and the core's ports, declared once: per stream its name,
/// its golden payload type and, per field, the port name (the Verilog port is
/// `<interface>__<field>`), the RTL type (`Bit`, `Bits<N>` or `Signed<N>`) and the place of the
/// value in the payload. Valid and ready are not fields: they are each block's own handshake.
///
/// `for_each_stream!(m)` calls the macro `m` once per stream with
/// `Name: Payload { field: Type [place], … }`. Golden derives [`Stream`] from it (port table,
/// payload ↔ raw bits); `tilerast-hw` derives the rust-hdl interfaces (block ports, `join`
/// wiring in raster_core, drive/sample for its tests); everything that names ports (the per-block
/// and the core's Verilator wrappers, the VCD writer, the gate-level adapter) reads the port
/// table. Adding a field is an edit here plus the blocks that produce and consume it. A stream
/// that extends another (Job = Cand + `trivial`, PackedBeat = Beat + `block_l`, PiBeat = Beat +
/// `depth`/`frame`/`end`, BinWrite =
/// MemReq plus `last`, SeqCmd = Cmd plus `depth`/`end`) shares its field list through the
/// internal rules `@cand` / `@beat` / `@memreq` / `@cmd`, so no field is written twice.
#[macro_export]
macro_rules! for_each_stream {
    ($m:ident) => {
        $crate::for_each_stream!(@cmd $m
            /// raster_core input, one primitive in one first tile (setup and point_raster read
            /// the fields they need).
            Cmd: Cmd [] {}
        );
        $m! {
            /// setup → tile_parser.
            Edges: Edges {
                prim: Bits<24> [prim],
                tile_x: Bits<8> [tile_x],
                tile_y: Bits<8> [tile_y],
                empty: Bit [empty],
                a0: Signed<24> [a[0]],
                a1: Signed<24> [a[1]],
                a2: Signed<24> [a[2]],
                b0: Signed<24> [b[0]],
                b1: Signed<24> [b[1]],
                b2: Signed<24> [b[2]],
                e0: Signed<48> [e[0]],
                e1: Signed<48> [e[1]],
                e2: Signed<48> [e[2]],
                bx0: Bits<8> [bx0],
                by0: Bits<8> [by0],
                bx1: Bits<8> [bx1],
                by1: Bits<8> [by1],
                vis_w: Bits<9> [vis_w],
                vis_h: Bits<9> [vis_h],
            }
        }
        $crate::for_each_stream!(@cand $m
            /// tile_parser → subtile_coverage.
            Cand: Cand [] {}
        );
        $crate::for_each_stream!(@cand $m
            /// subtile_coverage → sample_raster: a candidate plus `trivial`.
            Job: Job [cand.] { trivial: Bit [trivial], }
        );
        $crate::for_each_stream!(@beat $m
            /// sample_raster / point_raster → merge → quad_packer: up to Q quads.
            Beat: Beat [] {}
        );
        $crate::for_each_stream!(@beat $m
            /// quad_packer → raster_core output: a beat plus each lane's storage block.
            PackedBeat: Beat [] {
                block_0: Bits<8> [block[0]],
                block_1: Bits<8> [block[1]],
                block_2: Bits<8> [block[2]],
                block_3: Bits<8> [block[3]],
            }
        );
        $m! {
            /// → blender: a fragment of up to 4 samples.
            BlendFrag: BlendFrag {
                lane_valid: Bits<4> [lane_valid],
                pos_0: Bits<32> [pos[0]],
                pos_1: Bits<32> [pos[1]],
                pos_2: Bits<32> [pos[2]],
                pos_3: Bits<32> [pos[3]],
                src_0: Bits<32> [src[0]],
                src_1: Bits<32> [src[1]],
                src_2: Bits<32> [src[2]],
                src_3: Bits<32> [src[3]],
                dst_0: Bits<32> [dst[0]],
                dst_1: Bits<32> [dst[1]],
                dst_2: Bits<32> [dst[2]],
                dst_3: Bits<32> [dst[3]],
                state_0: Bits<8> [state[0]],
                state_1: Bits<8> [state[1]],
                state_2: Bits<8> [state[2]],
                state_3: Bits<8> [state[3]],
            }
        }
        $m! {
            /// blender →: one batch's positions with their results.
            BlendBeat: BlendBeat {
                lane_valid: Bits<4> [lane_valid],
                pos_0: Bits<32> [pos[0]],
                pos_1: Bits<32> [pos[1]],
                pos_2: Bits<32> [pos[2]],
                pos_3: Bits<32> [pos[3]],
                colour_0: Bits<32> [colour[0]],
                colour_1: Bits<32> [colour[1]],
                colour_2: Bits<32> [colour[2]],
                colour_3: Bits<32> [colour[3]],
            }
        }
        $m! {
            /// → pixel_processor: one pixel's sample colours and covered mask.
            PixSamples: PixSamples {
                x: Bits<12> [x],
                y: Bits<12> [y],
                mask: Bits<16> [mask],
                colour_0: Bits<32> [colour[0]],
                colour_1: Bits<32> [colour[1]],
                colour_2: Bits<32> [colour[2]],
                colour_3: Bits<32> [colour[3]],
                colour_4: Bits<32> [colour[4]],
                colour_5: Bits<32> [colour[5]],
                colour_6: Bits<32> [colour[6]],
                colour_7: Bits<32> [colour[7]],
                colour_8: Bits<32> [colour[8]],
                colour_9: Bits<32> [colour[9]],
                colour_10: Bits<32> [colour[10]],
                colour_11: Bits<32> [colour[11]],
                colour_12: Bits<32> [colour[12]],
                colour_13: Bits<32> [colour[13]],
                colour_14: Bits<32> [colour[14]],
                colour_15: Bits<32> [colour[15]],
            }
        }
        $m! {
            /// pixel_processor →: one pixel's colour slots.
            PixSlots: PixSlots {
                x: Bits<12> [x],
                y: Bits<12> [y],
                slot_valid: Bits<16> [slot_valid],
                colour_0: Bits<32> [colour[0]],
                colour_1: Bits<32> [colour[1]],
                colour_2: Bits<32> [colour[2]],
                colour_3: Bits<32> [colour[3]],
                colour_4: Bits<32> [colour[4]],
                colour_5: Bits<32> [colour[5]],
                colour_6: Bits<32> [colour[6]],
                colour_7: Bits<32> [colour[7]],
                colour_8: Bits<32> [colour[8]],
                colour_9: Bits<32> [colour[9]],
                colour_10: Bits<32> [colour[10]],
                colour_11: Bits<32> [colour[11]],
                colour_12: Bits<32> [colour[12]],
                colour_13: Bits<32> [colour[13]],
                colour_14: Bits<32> [colour[14]],
                colour_15: Bits<32> [colour[15]],
            }
        }
        $crate::for_each_stream!(@memreq $m
            /// The memory port's requests (pixel side → memory).
            MemReq: MemReq [] {}
        );
        $crate::for_each_stream!(@memreq $m
            /// binner →: a memory-port write plus `last` (the frame's final write).
            BinWrite: BinWrite [req.] { last: Bit [last], }
        );
        $crate::for_each_stream!(@beat $m
            /// → pixel_info_write: a beat plus the primitive's depth, the frame id and the
            /// frame-end token.
            PiBeat: PiBeat [beat.] {
                depth: Bits<24> [depth],
                frame: Bits<8> [frame],
                end: Bit [end],
            }
        );
        $m! {
            /// → binner: a primitive's pixel box, or a frame-end token.
            BinBox: BinBox {
                prim: Bits<24> [prim],
                x0: Bits<12> [x0],
                y0: Bits<12> [y0],
                x1: Bits<12> [x1],
                y1: Bits<12> [y1],
                end: Bit [end],
            }
        }
        $m! {
            /// The memory port's read responses (memory → pixel side), in request order.
            MemResp: MemResp {
                rdata: Bits<32> [rdata],
            }
        }
        $m! {
            /// → pixel_info_read: start reading the frame's pixel-info lists.
            PiStart: PiStart {
                frame: Bits<8> [frame],
            }
        }
        $m! {
            /// pixel_info_read →: one pixel-info record (or an empty second tile's token).
            PiRecord: PiRecord {
                tile_x: Bits<11> [tile_x],
                tile_y: Bits<11> [tile_y],
                prim: Bits<32> [prim],
                depth: Bits<24> [depth],
                frame: Bits<8> [frame],
                qx: Bits<8> [qx],
                qy: Bits<8> [qy],
                mask: Bits<64> [mask],
                last: Bit [last],
                none: Bit [none],
            }
        }
        $m! {
            /// → bin_setup: one primitive (or a frame-end token).
            PrimIn: PrimIn {
                kind: Bit [kind],
                v0x: Signed<24> [v[0][0]],
                v0y: Signed<24> [v[0][1]],
                v1x: Signed<24> [v[1][0]],
                v1y: Signed<24> [v[1][1]],
                v2x: Signed<24> [v[2][0]],
                v2y: Signed<24> [v[2][1]],
                size: Bits<24> [size],
                aa: Bit [aa],
                colour: Bits<32> [colour],
                depth: Bits<24> [depth],
                end: Bit [end],
            }
        }
        $m! {
            /// → tile_sequencer: the binner has closed the frame's lists, go.
            SeqStart: SeqStart {
                frame: Bits<8> [frame],
            }
        }
        $m! {
            /// → tmds_encoder: a DVI channel's byte, data enable and control bits for one pixel
            /// clock.
            TmdsIn: TmdsIn {
                data: Bits<8> [data],
                de: Bit [de],
                ctrl: Bits<2> [ctrl],
            }
        }
        $m! {
            /// tmds_encoder →: the channel's 10-bit character.
            TmdsChar: TmdsChar {
                word: Bits<10> [word],
            }
        }
        $m! {
            /// → video_out: the pixel shown at the next active pixel clock.
            VideoPixel: VideoPixel {
                red: Bits<8> [red],
                green: Bits<8> [green],
                blue: Bits<8> [blue],
            }
        }
        $m! {
            /// video_out →: a pixel clock's characters, blue, green, red.
            DviWord: DviWord {
                blue: Bits<10> [blue],
                green: Bits<10> [green],
                red: Bits<10> [red],
            }
        }
        $m! {
            /// UART receiver → frame_host → UART transmitter: one byte of a frame.
            UartByte: UartByte {
                byte: Bits<8> [byte],
            }
        }
        $m! {
            /// → double_buffer: a frame's end token entered the frame top, with the frame's
            /// background (the token's `colour`).
            FrameEnd: FrameEnd {
                colour: Bits<32> [colour],
            }
        }
        $crate::for_each_stream!(@cmd $m
            /// tile_sequencer →: a command plus the primitive's depth, or the frame-end token.
            SeqCmd: SeqCmd [cmd.] {
                depth: Bits<24> [depth],
                end: Bit [end],
            }
        );
    };
    // The command's fields, at `$pre` in the payload (`cmd.` for a sequencer beat), then
    // `$extra`.
    (@cmd $m:ident $(#[$doc:meta])* $name:ident : $payload:ident [$($pre:tt)*] { $($extra:tt)* }) => {
        $m! {
            $(#[$doc])*
            $name: $payload {
                kind: Bit [$($pre)* kind],
                prim: Bits<24> [$($pre)* prim],
                tile_x: Bits<8> [$($pre)* tile_x],
                tile_y: Bits<8> [$($pre)* tile_y],
                v0x: Signed<24> [$($pre)* v[0][0]],
                v0y: Signed<24> [$($pre)* v[0][1]],
                v1x: Signed<24> [$($pre)* v[1][0]],
                v1y: Signed<24> [$($pre)* v[1][1]],
                v2x: Signed<24> [$($pre)* v[2][0]],
                v2y: Signed<24> [$($pre)* v[2][1]],
                size: Bits<24> [$($pre)* size],
                aa: Bit [$($pre)* aa],
                $($extra)*
            }
        }
    };
    // The candidate's fields, at `$pre` in the payload (`cand.` for a job), then `$extra`.
    (@cand $m:ident $(#[$doc:meta])* $name:ident : $payload:ident [$($pre:tt)*] { $($extra:tt)* }) => {
        $m! {
            $(#[$doc])*
            $name: $payload {
                prim: Bits<24> [$($pre)* prim],
                tile_x: Bits<8> [$($pre)* tile_x],
                tile_y: Bits<8> [$($pre)* tile_y],
                col: Bits<8> [$($pre)* col],
                row: Bits<8> [$($pre)* row],
                e0: Signed<48> [$($pre)* e[0]],
                e1: Signed<48> [$($pre)* e[1]],
                e2: Signed<48> [$($pre)* e[2]],
                a0: Signed<24> [$($pre)* a[0]],
                a1: Signed<24> [$($pre)* a[1]],
                a2: Signed<24> [$($pre)* a[2]],
                b0: Signed<24> [$($pre)* b[0]],
                b1: Signed<24> [$($pre)* b[1]],
                b2: Signed<24> [$($pre)* b[2]],
                vis_w: Bits<9> [$($pre)* vis_w],
                vis_h: Bits<9> [$($pre)* vis_h],
                last: Bit [$($pre)* last],
                none: Bit [$($pre)* none],
                $($extra)*
            }
        }
    };
    // The memory request's fields, at `$pre` in the payload (`req.` for a binner write), then
    // `$extra`.
    (@memreq $m:ident $(#[$doc:meta])* $name:ident : $payload:ident [$($pre:tt)*] { $($extra:tt)* }) => {
        $m! {
            $(#[$doc])*
            $name: $payload {
                addr: Bits<32> [$($pre)* addr],
                write: Bit [$($pre)* write],
                wdata: Bits<32> [$($pre)* wdata],
                be: Bits<4> [$($pre)* be],
                $($extra)*
            }
        }
    };
    // The beat's fields, with `$extra` before `last`; at `$pre` in the payload
    // (`beat.` for a pixel-info beat; `$extra` places are absolute).
    (@beat $m:ident $(#[$doc:meta])* $name:ident : $payload:ident [$($pre:tt)*] { $($extra:tt)* }) => {
        $m! {
            $(#[$doc])*
            $name: $payload {
                prim: Bits<24> [$($pre)* prim],
                lane_valid: Bits<4> [$($pre)* lane_valid],
                qx_0: Bits<12> [$($pre)* qx[0]],
                qx_1: Bits<12> [$($pre)* qx[1]],
                qx_2: Bits<12> [$($pre)* qx[2]],
                qx_3: Bits<12> [$($pre)* qx[3]],
                qy_0: Bits<12> [$($pre)* qy[0]],
                qy_1: Bits<12> [$($pre)* qy[1]],
                qy_2: Bits<12> [$($pre)* qy[2]],
                qy_3: Bits<12> [$($pre)* qy[3]],
                mask_0: Bits<64> [$($pre)* mask[0]],
                mask_1: Bits<64> [$($pre)* mask[1]],
                mask_2: Bits<64> [$($pre)* mask[2]],
                mask_3: Bits<64> [$($pre)* mask[3]],
                $($extra)*
                kind: Bit [$($pre)* kind],
                last: Bit [$($pre)* last],
            }
        }
    };
}

/// The Verilog port of `field` in the interface `iface` (rust-hdl's `iface$field`, with `$`
/// written `__` by `tilerast_hw::emit::fix_verilog`).
pub fn port_name(iface: &str, field: &str) -> String {
    format!("{iface}__{field}")
}

/// One port of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// Port name inside the interface (Verilog: `<interface>__<name>`).
    pub name: &'static str,
    /// Bits.
    pub width: u32,
    /// Two's complement (`Signed<N>` in the RTL).
    pub signed: bool,
}

/// A stream's port table and its payload as raw port bits, derived from [`for_each_stream!`].
pub trait Stream {
    /// The golden payload the ports carry.
    type Payload: Clone + Default + PartialEq + std::fmt::Debug;
    /// Stream name.
    const NAME: &'static str;
    /// Ports in declaration order.
    const FIELDS: &'static [Field];
    /// Port values in [`Stream::FIELDS`] order, each masked to its width (two's complement).
    fn to_bits(p: &Self::Payload) -> Vec<u64>;
    /// Field values in [`Stream::FIELDS`] order, not masked (signed ones as `i64 as u64`), so
    /// that a value too wide for its port can be told apart.
    fn values(p: &Self::Payload) -> Vec<u64>;
    /// The payload that `bits` (in [`Stream::FIELDS`] order) carry; signed ports are
    /// sign-extended from their width. Fields not carried keep their default.
    fn from_bits(bits: &[u64]) -> Self::Payload;
}

/// A payload field's value as raw port bits and back.
pub trait PortValue: Sized {
    /// The low `width` bits (two's complement for signed types).
    fn to_port(&self, width: u32) -> u64;
    /// From `width` raw bits (sign-extended for signed types).
    fn from_port(bits: u64, width: u32) -> Self;
    /// The value, not masked (signed types as `i64 as u64`).
    fn raw(&self) -> u64;
}

fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

fn sext(bits: u64, width: u32) -> i64 {
    let s = 64 - width.min(64);
    ((bits << s) as i64) >> s
}

macro_rules! port_value_unsigned {
    ($($t:ty),*) => {$(
        impl PortValue for $t {
            fn to_port(&self, width: u32) -> u64 {
                *self as u64 & mask(width)
            }
            fn from_port(bits: u64, width: u32) -> Self {
                (bits & mask(width)) as $t
            }
            fn raw(&self) -> u64 {
                *self as u64
            }
        }
    )*};
}
port_value_unsigned!(u8, u16, u32, u64);

macro_rules! port_value_signed {
    ($($t:ty),*) => {$(
        impl PortValue for $t {
            fn to_port(&self, width: u32) -> u64 {
                *self as i64 as u64 & mask(width)
            }
            fn from_port(bits: u64, width: u32) -> Self {
                sext(bits, width) as $t
            }
            fn raw(&self) -> u64 {
                *self as i64 as u64
            }
        }
    )*};
}
port_value_signed!(i32, i64);

impl PortValue for bool {
    fn to_port(&self, _width: u32) -> u64 {
        *self as u64
    }
    fn from_port(bits: u64, _width: u32) -> Self {
        bits & 1 == 1
    }
    fn raw(&self) -> u64 {
        *self as u64
    }
}

/// Width of an RTL type token sequence (`Bit`, `Bits<N>`, `Signed<N>`).
#[doc(hidden)]
#[macro_export]
macro_rules! rtl_width {
    (Bit) => {
        1
    };
    (Bits < $w:literal >) => {
        $w
    };
    (Signed < $w:literal >) => {
        $w
    };
}

/// Whether an RTL type token sequence is signed.
#[doc(hidden)]
#[macro_export]
macro_rules! rtl_signed {
    (Signed < $w:literal >) => {
        true
    };
    ($($t:tt)*) => {
        false
    };
}

/// Port tables of the streams ([`for_each_stream!`]): `ports::Cmd`, `ports::Edges`, … (each a
/// [`Stream`] whose payload is the golden struct of the same stream).
pub mod ports {
    use super::{Field, PortValue, Stream};

    macro_rules! golden_stream {
        ($(#[$doc:meta])* $name:ident : $payload:ident {
            $($f:ident : $t:ident $(< $w:literal >)? [ $($place:tt)+ ]),* $(,)?
        }) => {
            $(#[$doc])*
            #[derive(Clone, Copy, Debug)]
            pub struct $name;
            impl Stream for $name {
                type Payload = super::$payload;
                const NAME: &'static str = stringify!($name);
                const FIELDS: &'static [Field] = &[$(Field {
                    name: stringify!($f),
                    width: $crate::rtl_width!($t $(< $w >)?),
                    signed: $crate::rtl_signed!($t $(< $w >)?),
                }),*];
                fn to_bits(p: &super::$payload) -> Vec<u64> {
                    vec![$(PortValue::to_port(&p.$($place)+, $crate::rtl_width!($t $(< $w >)?))),*]
                }
                fn values(p: &super::$payload) -> Vec<u64> {
                    vec![$(PortValue::raw(&p.$($place)+)),*]
                }
                fn from_bits(bits: &[u64]) -> super::$payload {
                    let mut p = <super::$payload>::default();
                    let mut it = bits.iter().copied();
                    $(
                        p.$($place)+ = PortValue::from_port(
                            it.next().expect("one value per field"),
                            $crate::rtl_width!($t $(< $w >)?),
                        );
                    )*
                    p
                }
            }
        };
    }
    crate::for_each_stream!(golden_stream);
}

#[cfg(test)]
mod tests {
    use super::ports;
    use super::*;

    #[test]
    fn payloads_round_trip_through_their_ports() {
        let c = Cmd {
            kind: 1,
            prim: 0xabcdef,
            tile_x: 3,
            tile_y: 255,
            v: [[-1, 2], [-(1 << 23), (1 << 23) - 1], [5, -6]],
            size: 0x123456,
            aa: true,
        };
        let bits = ports::Cmd::to_bits(&c);
        assert_eq!(bits.len(), ports::Cmd::FIELDS.len());
        assert_eq!(bits[4], 0xff_ffff, "v0x = -1 as 24 bits");
        assert_eq!(ports::Cmd::from_bits(&bits), c);
        let mut b = Beat {
            prim: 7,
            lane_valid: 0b1011,
            qx: [1, 2, 3, 4095],
            qy: [5, 6, 7, 8],
            mask: [u64::MAX, 1, 2, 1 << 63],
            block: [9, 10, 11, 255],
            kind: 1,
            last: true,
        };
        assert_eq!(ports::PackedBeat::from_bits(&ports::PackedBeat::to_bits(&b)), b);
        // The unpacked beat has no block ports: they come back as the default.
        b.block = [0; LANES];
        assert_eq!(ports::Beat::from_bits(&ports::Beat::to_bits(&b)), b);
        let e = Edges {
            e: [-(1 << 47), (1 << 47) - 1, -3],
            ..Edges::default()
        };
        assert_eq!(ports::Edges::from_bits(&ports::Edges::to_bits(&e)), e);
    }

    #[test]
    fn port_tables_have_unique_names_and_widths() {
        fn check<S: Stream>(min: usize) {
            assert!(S::FIELDS.len() >= min, "{}", S::NAME);
            for (i, f) in S::FIELDS.iter().enumerate() {
                assert!((1..=64).contains(&f.width), "{}.{}", S::NAME, f.name);
                assert!(
                    S::FIELDS[..i].iter().all(|g| g.name != f.name),
                    "{}.{}",
                    S::NAME,
                    f.name
                );
            }
        }
        check::<ports::Cmd>(12);
        check::<ports::Edges>(19);
        check::<ports::Cand>(18);
        check::<ports::Job>(19);
        check::<ports::Beat>(16);
        check::<ports::PackedBeat>(20);
        assert_eq!(ports::Job::FIELDS.last().unwrap().name, "trivial");
        assert!(ports::Edges::FIELDS
            .iter()
            .any(|f| f.name == "e0" && f.signed && f.width == 48));
    }
}
