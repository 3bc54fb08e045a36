//! Seed 001 (claims 1, 4, 5, 10, 13, 14): the **pixel-info store** that decouples the raster
//! side (walking *first tiles*) from the pixel side (walking *second tiles*), plus the
//! byte-addressed simulated [`Memory`] and the generic per-bucket linked lists of fixed-size
//! blocks ([`BlockLists`]) that the binner (`binner.rs`) reuses for its primitive lists.
//!
//! Data in: every quad the rasterizer emits (`Quad` + its 24-bit depth), in raster order
//! (first tiles rows bottom-up, left→right; inside a tile, primitives in submission order).
//! Data out: per second tile (`cfg.second_tile`, independent of `cfg.tile`), the
//! [`PixelInfo`] records of the quads that fall in it, **in push order**, rebuilt by walking
//! the linked list in memory. Second tiles are visited rows bottom-up, left→right
//! ([`PixelInfoStore::second_tiles`]). Reading is refused until [`PixelInfoStore::finish_raster`]
//! (claim 1: pixel processing starts only after every first tile is rasterized). Every record
//! carries the frame id (claim 4), and so does what the pixel side makes of it.
//!
//! ```text
//!   raster side (first tiles)                 memory                    pixel side
//!   quad ─► second tile (stx,sty) ─► on-chip  ┌──────────────────────┐
//!           = (2qx / stw, 2qy / sth)  tail    │ table: [head,count]  │ ◄─ finish_raster
//!                                     state   │  × second tiles      │    writes the table
//!                                             ├──────────────────────┤
//!                                             │ block: next │ rec rec│─┐
//!                                             │ block: next │ rec ...│◄┘ ─► read_second_tile
//!                                             └──────────────────────┘      (after finish)
//! ```
//!
//! **Streaming** (`pipeline::render_stream`): a second tile whose last overlapping first tile is
//! rasterized can take no more quads, so [`PixelInfoStore::take_second_tile`] closes its list
//! early (the very table entry and tail pointer `finish_raster` would write), reads it and
//! frees its blocks. The modelled traffic and footprint are those of finishing first and
//! reading after; the host keeps only live blocks ([`Memory`] holds 64 KiB chunks and drops a
//! chunk once every byte in it is freed), so a frame's host memory is bounded by the tiles in
//! flight while its simulated footprint still counts every block (and still stops at the
//! address space, [`address_space`]).
//!
//! ## Byte layout (little-endian, all fields u32-aligned)
//!
//! Blocks are addressed by **block index**: block `i` occupies bytes `[i·B, (i+1)·B)`. A
//! 4-byte pointer thus reaches `(2³² − 1)·B` bytes (256 GiB at B = 64) instead of the 4 GiB of
//! a byte address; a frame needs that much because seed 001 keeps its whole pixel info until
//! the pixel side starts (10 000 full-screen triangles at `full` take about 110 GiB).
//!
//! * **List table** at address 0: per list (second tile, in tile order) 8 bytes
//!   `[head: u32, count: u32]`; `head` = [`NIL`] for an empty list, else a block index. Written
//!   once, by `finish` (the open lists' head/tail/count live on chip while rastering). The
//!   table is padded to a whole number of blocks; the padding is never written.
//! * **Block** of `B = cfg.pixel_info_block_bytes` bytes: `next: u32` at offset 0 (index of
//!   the next block, [`NIL`] in the last one), then `K = (B − 4) / R` records of `R` bytes at
//!   offsets `4 + k·R`; the tail of the block is padding. The last block of a list holds
//!   `count − K·(blocks − 1)` valid records. A block's `next` is written exactly once, when
//!   the block is closed: on linking a new block, or by `finish`.
//! * **Pixel-info record**, `R = 12 + 4·⌈max(0, 4S − 16) / 32⌉` bytes (12 for S ≤ 4, 16 for
//!   S = 8, 20 for S = 16):
//!   - word 0: `depth[23:0] | frame_id[7:0] << 24`
//!   - word 1: primitive id (32 bits)
//!   - word 2: `qx[7:0] | qy[7:0] << 8 | mask[15:0] << 16` (qx, qy: quad position inside
//!     the second tile, in quads)
//!   - words 3..: `mask[16 + 32k .. 48 + 32k)`
//!
//! ## Traffic (what the counters count)
//!
//! Bytes written = `8·lists` (table) + `R·records` + `4·blocks` (next pointers). Reading one
//! list reads `8` (its table entry) + `R·count` + `4·(blocks_in_list − 1)` (a `next` pointer is
//! read only when records remain). Allocation is a bump allocator and writes nothing.

use crate::config::{Config, ConfigError};
use crate::prim::Quad;
use std::fmt;

/// Null block address (end of a list, or empty list).
pub const NIL: u32 = u32::MAX;
/// Largest 24-bit depth (the cleared depth-buffer value).
pub const DEPTH_MAX: u32 = (1 << 24) - 1;

/// Error from the stores (pixel info, bins) and the shading sort: names the offending field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError {
    pub field: &'static str,
    pub msg: String,
}

impl StoreError {
    /// Build an error for `field`.
    pub fn new(field: &'static str, msg: impl Into<String>) -> Self {
        StoreError { field, msg: msg.into() }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.msg)
    }
}
impl std::error::Error for StoreError {}

impl From<ConfigError> for StoreError {
    fn from(e: ConfigError) -> Self {
        StoreError {
            field: e.field,
            msg: format!("config.{}: {}", e.field, e.msg),
        }
    }
}

/// Byte-addressed simulated memory with traffic counters. Little-endian. Allocation is a bump
/// allocator (zero-filled, not counted as traffic) over an address space of `limit` bytes
/// ([`Memory::with_limit`]; [`Memory::new`]: 32-bit byte addresses).
///
/// The host keeps only what is live: bytes live in chunks of [`CHUNK_BYTES`], allocated on
/// first use and dropped once every byte allocated in them was given back with
/// [`Memory::free`]. Freeing changes nothing the model counts (addresses are never reused,
/// [`Memory::size`] is the bump pointer); it only bounds the host memory of a streamed frame
/// ([`Memory::resident`]).
#[derive(Clone, Debug)]
pub struct Memory {
    /// Chunk `i` holds addresses `[i·CHUNK_BYTES, (i+1)·CHUNK_BYTES)`, with its live byte count.
    chunks: Vec<Option<(Box<[u8]>, u32)>>,
    top: u64,
    /// Allocations must end at or below this address.
    limit: u64,
    written: u64,
    read: u64,
    resident_chunks: u64,
    peak_chunks: u64,
}

/// Host granule of a [`Memory`] (64 KiB).
pub const CHUNK_BYTES: u32 = 1 << 16;

impl Default for Memory {
    fn default() -> Self {
        Self::new()
    }
}

impl Memory {
    /// Empty memory with 32-bit byte addresses ([`NIL`] excluded).
    pub fn new() -> Self {
        Self::with_limit(NIL as u64)
    }

    /// Empty memory whose allocations must end at or below byte `limit`.
    pub fn with_limit(limit: u64) -> Self {
        Memory {
            chunks: Vec::new(),
            top: 0,
            limit,
            written: 0,
            read: 0,
            resident_chunks: 0,
            peak_chunks: 0,
        }
    }

    /// Allocate `n` bytes; returns their address.
    pub fn alloc(&mut self, n: u32) -> Result<u64, StoreError> {
        let addr = self.top;
        if addr + n as u64 > self.limit {
            return Err(StoreError::new(
                "memory",
                format!(
                    "out of the {} address space allocating {n} bytes at {addr}",
                    bytes_text(self.limit)
                ),
            ));
        }
        self.top = addr + n as u64;
        self.each_chunk(addr, n, |m, c, len| {
            let ci = c as usize;
            if m.chunks.len() <= ci {
                m.chunks.resize_with(ci + 1, || None);
            }
            match &mut m.chunks[ci] {
                Some((_, live)) => *live += len,
                slot @ None => {
                    *slot = Some((vec![0u8; CHUNK_BYTES as usize].into_boxed_slice(), len));
                    m.resident_chunks += 1;
                    m.peak_chunks = m.peak_chunks.max(m.resident_chunks);
                }
            }
        });
        Ok(addr)
    }

    /// Give back `n` bytes at `addr` (allocated earlier, not freed yet). Not traffic; a chunk
    /// whose every allocated byte was given back is dropped, and reading it is an error.
    pub fn free(&mut self, addr: u64, n: u32) -> Result<(), StoreError> {
        if addr + n as u64 > self.top {
            return Err(StoreError::new(
                "memory",
                format!("free of {n} bytes at {addr:#x} beyond {} allocated bytes", self.top),
            ));
        }
        let mut bad = false;
        self.each_chunk(addr, n, |m, c, len| match m.chunks.get_mut(c as usize) {
            Some(Some((_, live))) if *live >= len => {
                *live -= len;
                if *live == 0 {
                    m.chunks[c as usize] = None;
                    m.resident_chunks -= 1;
                }
            }
            _ => bad = true,
        });
        if bad {
            return Err(StoreError::new(
                "memory",
                format!("double free of {n} bytes at {addr:#x}"),
            ));
        }
        Ok(())
    }

    /// Call `f(self, chunk, bytes of [addr, addr + n) in that chunk)` for each chunk touched.
    fn each_chunk(&mut self, addr: u64, n: u32, mut f: impl FnMut(&mut Self, u32, u32)) {
        let (mut a, end) = (addr, addr + n as u64);
        while a < end {
            let c = (a / CHUNK_BYTES as u64) as u32;
            let stop = end.min((c as u64 + 1) * CHUNK_BYTES as u64);
            f(self, c, (stop - a) as u32);
            a = stop;
        }
    }

    fn check(&self, addr: u64, n: usize) -> Result<(), StoreError> {
        if addr + n as u64 > self.top {
            return Err(StoreError::new(
                "memory",
                format!("access of {n} bytes at {addr:#x} beyond {} allocated bytes", self.top),
            ));
        }
        Ok(())
    }

    fn freed(addr: u64) -> StoreError {
        StoreError::new("memory", format!("access of freed memory at {addr:#x}"))
    }

    /// Copy between `[addr, addr + buf.len())` and `buf` (`to_mem`: buf → memory).
    fn copy(&mut self, addr: u64, buf: &mut [u8], to_mem: bool) -> Result<(), StoreError> {
        self.check(addr, buf.len())?;
        let mut a = addr;
        let mut done = 0usize;
        while done < buf.len() {
            let c = (a / CHUNK_BYTES as u64) as usize;
            let off = (a % CHUNK_BYTES as u64) as usize;
            let len = (buf.len() - done).min(CHUNK_BYTES as usize - off);
            let Some(Some((bytes, _))) = self.chunks.get_mut(c) else {
                return Err(Self::freed(a));
            };
            if to_mem {
                bytes[off..off + len].copy_from_slice(&buf[done..done + len]);
            } else {
                buf[done..done + len].copy_from_slice(&bytes[off..off + len]);
            }
            done += len;
            a += len as u64;
        }
        Ok(())
    }

    /// Write `data` at `addr` (counted).
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), StoreError> {
        let mut tmp = [0u8; 64];
        if data.len() <= tmp.len() {
            tmp[..data.len()].copy_from_slice(data);
            self.copy(addr, &mut tmp[..data.len()], true)?;
        } else {
            self.copy(addr, &mut data.to_vec(), true)?;
        }
        self.written += data.len() as u64;
        Ok(())
    }

    /// Read `out.len()` bytes at `addr` (counted).
    pub fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), StoreError> {
        self.copy(addr, out, false)?;
        self.read += out.len() as u64;
        Ok(())
    }

    /// Write one little-endian u32 (counted: 4 bytes).
    pub fn write_u32(&mut self, addr: u64, v: u32) -> Result<(), StoreError> {
        self.write(addr, &v.to_le_bytes())
    }

    /// Read one little-endian u32 (counted: 4 bytes).
    pub fn read_u32(&mut self, addr: u64) -> Result<u32, StoreError> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Look at a u32 without counting traffic (debugging and tests).
    pub fn peek_u32(&self, addr: u64) -> Option<u32> {
        self.check(addr, 4).ok()?;
        let mut b = [0u8; 4];
        for (k, v) in b.iter_mut().enumerate() {
            let a = addr + k as u64;
            let (bytes, _) = self.chunks.get((a / CHUNK_BYTES as u64) as usize)?.as_ref()?;
            *v = bytes[(a % CHUNK_BYTES as u64) as usize];
        }
        Some(u32::from_le_bytes(b))
    }

    /// Bytes written so far.
    pub fn bytes_written(&self) -> u64 {
        self.written
    }
    /// Bytes read so far.
    pub fn bytes_read(&self) -> u64 {
        self.read
    }
    /// Bytes allocated so far (memory footprint; freeing does not lower it).
    pub fn size(&self) -> u64 {
        self.top
    }
    /// Host bytes held now for this memory (live chunks).
    pub fn resident(&self) -> u64 {
        self.resident_chunks * CHUNK_BYTES as u64
    }
    /// Largest [`Memory::resident`] so far.
    pub fn peak_resident(&self) -> u64 {
        self.peak_chunks * CHUNK_BYTES as u64
    }
}

#[derive(Clone, Copy, Debug)]
struct OpenList {
    head: u32,
    tail: u32,
    count: u32,
    /// Table entry and tail `next` written ([`BlockLists::close`] or `finish`).
    closed: bool,
    /// Blocks given back ([`BlockLists::free_list`]).
    freed: bool,
}

/// `lists` linked lists of fixed-size blocks in one [`Memory`], with a `[head, count]` table at
/// address 0 (layout in the module header). Appends go to the tail block of a list; a new
/// block is allocated when the tail is full. After [`BlockLists::finish`] no append is
/// accepted, and only then can lists be read.
#[derive(Clone, Debug)]
pub struct BlockLists {
    mem: Memory,
    block_bytes: u32,
    record_bytes: u32,
    per_block: u32,
    open: Vec<OpenList>,
    blocks: u64,
    records: u64,
    finished: bool,
}

impl BlockLists {
    /// `lists` empty lists of blocks of `block_bytes` (4-byte next pointer + records of
    /// `record_bytes`). `field` names the block-size parameter in errors.
    pub fn new(lists: u32, block_bytes: u32, record_bytes: u32, field: &'static str) -> Result<Self, StoreError> {
        if record_bytes == 0 || !record_bytes.is_multiple_of(4) {
            return Err(StoreError::new(
                "record_bytes",
                format!("{record_bytes} must be a non-zero multiple of 4"),
            ));
        }
        if !block_bytes.is_multiple_of(4) || block_bytes < 4 + record_bytes {
            return Err(StoreError::new(
                field,
                format!("{block_bytes} bytes must be a multiple of 4 holding the 4-byte next pointer and at least one {record_bytes}-byte record"),
            ));
        }
        let mut mem = Memory::with_limit(address_space(block_bytes));
        // The table, padded to a whole number of blocks so that blocks start at multiples of
        // `block_bytes` and a block index times `block_bytes` is its address.
        let table_bytes = ((lists as u64) * 8).next_multiple_of(block_bytes as u64);
        if table_bytes > u32::MAX as u64 {
            return Err(StoreError::new(
                "lists",
                format!("{lists} lists do not fit the address space"),
            ));
        }
        mem.alloc(table_bytes as u32)?;
        Ok(BlockLists {
            mem,
            block_bytes,
            record_bytes,
            per_block: (block_bytes - 4) / record_bytes,
            open: vec![
                OpenList {
                    head: NIL,
                    tail: NIL,
                    count: 0,
                    closed: false,
                    freed: false,
                };
                lists as usize
            ],
            blocks: 0,
            records: 0,
            finished: false,
        })
    }

    /// Append one record (exactly `record_bytes` long) to list `list`.
    pub fn append(&mut self, list: u32, rec: &[u8]) -> Result<(), StoreError> {
        if self.finished {
            return Err(StoreError::new("finish", "append after the lists were finished"));
        }
        if rec.len() != self.record_bytes as usize {
            return Err(StoreError::new(
                "record",
                format!("{} bytes, expected {}", rec.len(), self.record_bytes),
            ));
        }
        let n = self.open.len();
        let Some(st) = self.open.get(list as usize).copied() else {
            return Err(StoreError::new("list", format!("{list} out of range (0..{n})")));
        };
        if st.closed {
            return Err(StoreError::new(
                "list",
                format!("append to list {list} after it was closed"),
            ));
        }
        let slot = st.count % self.per_block;
        let mut st2 = st;
        if slot == 0 {
            let blk = (self.mem.alloc(self.block_bytes)? / self.block_bytes as u64) as u32;
            self.blocks += 1;
            if st.tail == NIL {
                st2.head = blk;
            } else {
                // Close the full tail block: its next pointer is written once, now.
                self.mem.write_u32(self.addr(st.tail), blk)?;
            }
            st2.tail = blk;
        }
        self.mem
            .write(self.addr(st2.tail) + 4 + (slot * self.record_bytes) as u64, rec)?;
        st2.count += 1;
        self.open[list as usize] = st2;
        self.records += 1;
        Ok(())
    }

    /// Close every list not closed yet: write each tail block's `next = NIL` and its
    /// `[head, count]` table entry.
    pub fn finish(&mut self) -> Result<(), StoreError> {
        if self.finished {
            return Err(StoreError::new("finish", "lists already finished"));
        }
        for i in 0..self.open.len() as u32 {
            if !self.open[i as usize].closed {
                self.close(i)?;
            }
        }
        self.finished = true;
        Ok(())
    }

    /// Close one list early, once nothing more will be appended to it: write its tail block's
    /// `next = NIL` and its table entry, exactly the bytes `finish` would write for it. It can
    /// then be read before the other lists are finished.
    pub fn close(&mut self, list: u32) -> Result<(), StoreError> {
        let n = self.open.len();
        let Some(st) = self.open.get(list as usize).copied() else {
            return Err(StoreError::new("list", format!("{list} out of range (0..{n})")));
        };
        if st.closed {
            return Err(StoreError::new("list", format!("list {list} closed twice")));
        }
        if st.tail != NIL {
            self.mem.write_u32(self.addr(st.tail), NIL)?;
        }
        let a = list as u64 * 8;
        self.mem.write_u32(a, st.head)?;
        self.mem.write_u32(a + 4, st.count)?;
        self.open[list as usize].closed = true;
        Ok(())
    }

    /// Give the blocks of closed list `list` back to the memory (host side only: no traffic,
    /// the footprint is unchanged). Its table entry stays; reading it again is an error.
    pub fn free_list(&mut self, list: u32) -> Result<(), StoreError> {
        let n = self.open.len();
        let Some(st) = self.open.get(list as usize).copied() else {
            return Err(StoreError::new("list", format!("{list} out of range (0..{n})")));
        };
        if !st.closed || st.freed {
            return Err(StoreError::new(
                "list",
                format!("list {list} freed while open or twice"),
            ));
        }
        let mut blk = st.head;
        for _ in 0..st.count.div_ceil(self.per_block) {
            let next = self.mem.peek_u32(self.addr(blk));
            self.mem.free(self.addr(blk), self.block_bytes)?;
            blk = next.unwrap_or(NIL);
        }
        self.open[list as usize].freed = true;
        Ok(())
    }

    /// Walk list `list` in memory, calling `f` with each record's bytes in append order.
    /// Returns the record count. Error before [`BlockLists::finish`].
    pub fn read_list(&mut self, list: u32, mut f: impl FnMut(&[u8])) -> Result<u32, StoreError> {
        if list as usize >= self.open.len() {
            return Err(StoreError::new(
                "list",
                format!("{list} out of range (0..{})", self.open.len()),
            ));
        }
        let st = self.open[list as usize];
        if !self.finished && !st.closed {
            return Err(StoreError::new(
                "finish",
                "lists read before they were finished (raster side still running)",
            ));
        }
        if st.freed {
            return Err(StoreError::new("list", format!("list {list} read after it was freed")));
        }
        let head = self.mem.read_u32(list as u64 * 8)?;
        let count = self.mem.read_u32(list as u64 * 8 + 4)?;
        let mut buf = vec![0u8; self.record_bytes as usize];
        let (mut blk, mut left) = (head, count);
        while left > 0 {
            if blk == NIL {
                return Err(StoreError::new(
                    "memory",
                    format!("list {list} ends with {left} of {count} records unread"),
                ));
            }
            let n = left.min(self.per_block);
            for k in 0..n {
                self.mem
                    .read(self.addr(blk) + 4 + (k * self.record_bytes) as u64, &mut buf)?;
                f(&buf);
            }
            left -= n;
            if left > 0 {
                blk = self.mem.read_u32(self.addr(blk))?;
            }
        }
        Ok(count)
    }

    /// Byte address of block `blk`.
    fn addr(&self, blk: u32) -> u64 {
        blk as u64 * self.block_bytes as u64
    }

    /// Number of lists.
    pub fn lists(&self) -> u32 {
        self.open.len() as u32
    }
    /// Records that fit one block.
    pub fn per_block(&self) -> u32 {
        self.per_block
    }
    /// Bytes of one record.
    pub fn record_bytes(&self) -> u32 {
        self.record_bytes
    }
    /// Blocks allocated so far.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }
    /// Records appended so far.
    pub fn records(&self) -> u64 {
        self.records
    }
    /// Records appended to `list` so far (on-chip counter, no traffic).
    pub fn list_len(&self, list: u32) -> u32 {
        self.open.get(list as usize).map_or(0, |s| s.count)
    }
    /// Has [`BlockLists::finish`] run?
    pub fn is_finished(&self) -> bool {
        self.finished
    }
    /// The simulated memory (traffic counters).
    pub fn memory(&self) -> &Memory {
        &self.mem
    }
}

/// One second tile's coordinates and its records (push order).
pub type TileRecords = ([u32; 2], Vec<PixelInfo>);

/// One pixel-info record: what the raster side stores per emitted quad.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PixelInfo {
    /// The quad's 4·S sample bits (SPEC §2 quad layout).
    pub mask: u64,
    /// 24-bit depth (0 = near).
    pub depth: u32,
    /// Primitive id (index in the frame).
    pub prim: u32,
    /// Frame id given to [`PixelInfoStore::new`].
    pub frame: u8,
    /// Quad column inside its second tile (bottom-left pixel x = tile x0 + 2·qx).
    pub qx: u8,
    /// Quad row inside its second tile.
    pub qy: u8,
}

impl PixelInfo {
    /// The frame-absolute quad of this record, which lies in second tile `st`.
    pub fn quad(&self, cfg: &Config, st: [u32; 2]) -> Quad {
        let [w, h] = cfg.second_tile;
        Quad {
            prim: self.prim,
            qx: (st[0] * w / 2 + self.qx as u32) as u16,
            qy: (st[1] * h / 2 + self.qy as u32) as u16,
            mask: self.mask,
        }
    }
}

/// Bytes addressable by [`BlockLists`] of `block_bytes`-byte blocks: 32-bit block indices,
/// [`NIL`] excluded, so every block ends at or below `NIL · block_bytes` (256 GiB at 64-byte
/// blocks).
pub fn address_space(block_bytes: u32) -> u64 {
    NIL as u64 * block_bytes as u64
}

/// `bytes` for a message: in GiB with one decimal from 1 GiB up, else in bytes.
pub fn bytes_text(bytes: u64) -> String {
    let gib = bytes as f64 / (1u64 << 30) as f64;
    if gib < 1.0 {
        format!("{bytes} B")
    } else {
        format!("{gib:.1} GiB")
    }
}

/// The fewest bytes of pixel-info memory a frame of `cfg` with at least `records` records
/// needs: the list table (padded to whole blocks) plus blocks to hold them, every block full.
/// A frame for which this exceeds [`address_space`] cannot be stored (seed 001 keeps the
/// whole frame's pixel info until the pixel side starts), whatever its order of quads.
pub fn min_memory_bytes(cfg: &Config, records: u64) -> u64 {
    let [w, h] = cfg.second_tile;
    let b = cfg.pixel_info_block_bytes as u64;
    let lists = cfg.viewport[0].div_ceil(w) as u64 * cfg.viewport[1].div_ceil(h) as u64;
    let per_block = ((cfg.pixel_info_block_bytes - 4) / record_bytes(cfg.msaa)).max(1) as u64;
    (8 * lists).next_multiple_of(b) + records.div_ceil(per_block) * b
}

/// Bytes of one pixel-info record at `msaa` samples per pixel.
pub fn record_bytes(msaa: u32) -> u32 {
    12 + 4 * (4 * msaa).saturating_sub(16).div_ceil(32)
}

fn encode(r: &PixelInfo, out: &mut [u8]) {
    let w0 = r.depth | (r.frame as u32) << 24;
    let w2 = r.qx as u32 | (r.qy as u32) << 8 | ((r.mask & 0xffff) as u32) << 16;
    out[0..4].copy_from_slice(&w0.to_le_bytes());
    out[4..8].copy_from_slice(&r.prim.to_le_bytes());
    out[8..12].copy_from_slice(&w2.to_le_bytes());
    for (k, c) in out[12..].chunks_exact_mut(4).enumerate() {
        c.copy_from_slice(&((r.mask >> (16 + 32 * k)) as u32).to_le_bytes());
    }
}

fn decode(b: &[u8]) -> PixelInfo {
    let word = |i: usize| u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    let (w0, w1, w2) = (word(0), word(1), word(2));
    let mut mask = (w2 >> 16) as u64;
    for k in 0..(b.len() - 12) / 4 {
        mask |= (word(3 + k) as u64) << (16 + 32 * k);
    }
    PixelInfo {
        mask,
        depth: w0 & DEPTH_MAX,
        prim: w1,
        frame: (w0 >> 24) as u8,
        qx: w2 as u8,
        qy: (w2 >> 8) as u8,
    }
}

/// Traffic and occupancy of a [`PixelInfoStore`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PixelInfoStats {
    /// Records pushed (one per quad).
    pub records: u64,
    /// Blocks allocated over all second tiles.
    pub blocks_allocated: u64,
    /// Bytes per record.
    pub record_bytes: u32,
    /// Records per block.
    pub records_per_block: u32,
    /// Bytes written to memory (records, next pointers, list table).
    pub bytes_written: u64,
    /// Bytes read from memory by the pixel side.
    pub bytes_read: u64,
    /// Memory footprint in bytes (table + blocks).
    pub memory_bytes: u64,
}

/// The pixel-info store of one frame: raster side pushes, pixel side reads per second tile.
#[derive(Clone, Debug)]
pub struct PixelInfoStore {
    msaa: u32,
    viewport: [u32; 2],
    second_tile: [u32; 2],
    tiles: [u32; 2],
    frame: u8,
    lists: BlockLists,
    buf: [u8; 20],
    /// Records read back by `take_second_tile`.
    taken: u64,
}

impl PixelInfoStore {
    /// An empty store for `frame_id`, one list per second tile of `cfg`.
    pub fn new(cfg: &Config, frame_id: u8) -> Result<Self, StoreError> {
        cfg.validate()?;
        let [w, h] = cfg.second_tile;
        let tiles = [cfg.viewport[0].div_ceil(w), cfg.viewport[1].div_ceil(h)];
        let rb = record_bytes(cfg.msaa);
        let lists = BlockLists::new(
            tiles[0] * tiles[1],
            cfg.pixel_info_block_bytes,
            rb,
            "pixel_info_block_bytes",
        )?;
        Ok(PixelInfoStore {
            msaa: cfg.msaa,
            viewport: cfg.viewport,
            second_tile: cfg.second_tile,
            tiles,
            frame: frame_id,
            lists,
            buf: [0; 20],
            taken: 0,
        })
    }

    /// Append the record of one emitted quad (raster side) to its second tile's list.
    pub fn push(&mut self, quad: &Quad, depth: u32) -> Result<(), StoreError> {
        if self.lists.is_finished() {
            return Err(StoreError::new("finish_raster", "push after finish_raster"));
        }
        if depth > DEPTH_MAX {
            return Err(StoreError::new("depth", format!("{depth} exceeds 24 bits")));
        }
        let used = if self.msaa == 16 {
            u64::MAX
        } else {
            (1u64 << (4 * self.msaa)) - 1
        };
        if quad.mask == 0 || quad.mask & !used != 0 {
            return Err(StoreError::new(
                "quad.mask",
                format!("{:#x} must be non-zero within {} bits", quad.mask, 4 * self.msaa),
            ));
        }
        let (x0, y0) = (2 * quad.qx as u32, 2 * quad.qy as u32);
        for i in 0..4 {
            let (x, y) = (x0 + (i & 1), y0 + (i >> 1));
            if quad.pixel_mask(i, self.msaa) != 0 && (x >= self.viewport[0] || y >= self.viewport[1]) {
                return Err(StoreError::new(
                    "quad",
                    format!(
                        "pixel ({x}, {y}) of quad ({}, {}) is outside the viewport",
                        quad.qx, quad.qy
                    ),
                ));
            }
        }
        let [w, h] = self.second_tile;
        let (stx, sty) = (x0 / w, y0 / h);
        let rec = PixelInfo {
            mask: quad.mask,
            depth,
            prim: quad.prim,
            frame: self.frame,
            qx: ((x0 % w) / 2) as u8,
            qy: ((y0 % h) / 2) as u8,
        };
        let rb = self.lists.record_bytes() as usize;
        let mut buf = self.buf;
        encode(&rec, &mut buf[..rb]);
        self.lists.append(sty * self.tiles[0] + stx, &buf[..rb]).map_err(|e| {
            if e.field != "memory" || !e.msg.starts_with("out of the 4 GiB") {
                return e;
            }
            StoreError::new(
                "pixel_info",
                format!(
                    "the frame's pixel info outgrows the 4 GiB pixel-info memory (32-bit block addresses; seed 001 keeps a whole frame's pixel info until the pixel side starts): {} bytes in use at record {} ({e})",
                    self.lists.memory().size(),
                    self.lists.records() + 1
                ),
            )
        })
    }

    /// End of the raster side: every first tile is rasterized. Writes the list table; after
    /// this no push is accepted and second tiles can be read.
    pub fn finish_raster(&mut self) -> Result<(), StoreError> {
        self.lists
            .finish()
            .map_err(|_| StoreError::new("finish_raster", "finish_raster called twice"))
    }

    /// Has [`PixelInfoStore::finish_raster`] run?
    pub fn is_finished(&self) -> bool {
        self.lists.is_finished()
    }

    /// Read second tile `[stx, sty]`'s records in push order, walking its linked list in
    /// memory (counted as bytes read). Error before [`PixelInfoStore::finish_raster`].
    pub fn read_second_tile(&mut self, st: [u32; 2]) -> Result<Vec<PixelInfo>, StoreError> {
        if !self.lists.is_finished() {
            return Err(StoreError::new(
                "finish_raster",
                "second tile read before every first tile was rasterized (call finish_raster first)",
            ));
        }
        if st[0] >= self.tiles[0] || st[1] >= self.tiles[1] {
            return Err(StoreError::new(
                "second_tile",
                format!(
                    "({}, {}) outside the {}x{} second tiles",
                    st[0], st[1], self.tiles[0], self.tiles[1]
                ),
            ));
        }
        let list = st[1] * self.tiles[0] + st[0];
        let mut out = Vec::with_capacity(self.lists.list_len(list) as usize);
        self.lists.read_list(list, |b| out.push(decode(b)))?;
        Ok(out)
    }

    /// Streaming form of [`PixelInfoStore::read_second_tile`], for a second tile whose last
    /// overlapping first tile is rasterized (no quad can reach it any more): close its list
    /// (the table entry and tail pointer `finish_raster` would write), read it, and give its
    /// blocks back to the host. The traffic and footprint counted are the same as closing at
    /// `finish_raster` and reading afterwards; only the host memory is bounded.
    pub fn take_second_tile(&mut self, st: [u32; 2]) -> Result<Vec<PixelInfo>, StoreError> {
        if st[0] >= self.tiles[0] || st[1] >= self.tiles[1] {
            return Err(StoreError::new(
                "second_tile",
                format!(
                    "({}, {}) outside the {}x{} second tiles",
                    st[0], st[1], self.tiles[0], self.tiles[1]
                ),
            ));
        }
        let list = st[1] * self.tiles[0] + st[0];
        if !self.lists.is_finished() {
            self.lists.close(list)?;
        }
        let mut out = Vec::with_capacity(self.lists.list_len(list) as usize);
        self.lists.read_list(list, |b| out.push(decode(b)))?;
        self.lists.free_list(list)?;
        self.taken += out.len() as u64;
        Ok(out)
    }

    /// Records pushed and not yet taken back by [`PixelInfoStore::take_second_tile`] (open
    /// and closed-unread lists).
    pub fn records_held(&self) -> u64 {
        self.lists.records() - self.taken
    }

    /// Second-tile coordinates in processing order: rows bottom-up, left→right.
    pub fn second_tiles(&self) -> impl Iterator<Item = [u32; 2]> + 'static {
        let [nx, ny] = self.tiles;
        (0..ny).flat_map(move |y| (0..nx).map(move |x| [x, y]))
    }

    /// Number of second tiles across and up the viewport.
    pub fn second_tile_count(&self) -> [u32; 2] {
        self.tiles
    }

    /// Read every second tile, in [`PixelInfoStore::second_tiles`] order.
    pub fn read_all(&mut self) -> Result<Vec<TileRecords>, StoreError> {
        self.second_tiles()
            .map(|st| Ok((st, self.read_second_tile(st)?)))
            .collect()
    }

    /// The frame id every record carries.
    pub fn frame_id(&self) -> u8 {
        self.frame
    }
    /// Samples per pixel the store was built for.
    pub fn msaa(&self) -> u32 {
        self.msaa
    }
    /// Second-tile size the store groups by.
    pub fn second_tile(&self) -> [u32; 2] {
        self.second_tile
    }

    /// Traffic and occupancy so far.
    pub fn stats(&self) -> PixelInfoStats {
        let m = self.lists.memory();
        PixelInfoStats {
            records: self.lists.records(),
            blocks_allocated: self.lists.blocks(),
            record_bytes: self.lists.record_bytes(),
            records_per_block: self.lists.per_block(),
            bytes_written: m.bytes_written(),
            bytes_read: m.bytes_read(),
            memory_bytes: m.size(),
        }
    }

    /// The simulated memory.
    pub fn memory(&self) -> &Memory {
        self.lists.memory()
    }
}
