//! The record buffer of the boards' UART hosts: a simple dual-port RAM, one record per entry,
//! written 16 bits at a time as the UART's bytes come, read whole with a registered read. The
//! raster top's command buffer ([`CmdRam`]: 27-byte commands, with a second read port for the
//! primitive id) and the frame host's scene buffer (`crate::frame_host`: 227-bit `PrimIn`
//! beats) are both this one block.

use rust_hdl::prelude::*;
use std::fmt::Write as _;
use tilerast_golden::protocol;

/// Width of a stored command record (27 bytes).
pub const REC_BITS: usize = protocol::CMD_BYTES * 8;

/// 16-bit write lanes of a command record (the last one holds only byte 26).
pub const REC_LANES: usize = protocol::CMD_BYTES.div_ceil(2);

/// The raster top's command buffer.
pub type CmdRam = RecordRam<REC_BITS>;

/// Record buffer: one `BITS`-bit record per entry, written 16 bits at a time (`we`, `wlane`,
/// `waddr`, `wdata`: lane k = record bytes 2k, 2k+1; the last lane keeps only the bits below
/// `BITS`, so a record's padding bits are never stored), read whole (`raddr` → `rdata` one
/// cycle later). `capacity` entries; address bits above log2(capacity) are ignored. One memory
/// per lane, so each maps to block RAM (iCE40: 256 × 16 per EBR, ECP5: 1024 × 18) and the
/// parser needs no record-wide shift register. `no_rw_check`: the tops never use a read of an
/// entry in the cycle it is written (writes happen only while no run is going on), so yosys
/// need not emulate read-during-write ordering in logic (without it, yosys 0.23 added ~440
/// flip-flops of bypass logic on iCE40). The primitive-id port (`praddr` → `prdata`, record
/// bits 8..32) is built only for the command buffer ([`RecordRam::new`]); without it `prdata`
/// is 0.
pub struct RecordRam<const BITS: usize> {
    /// Clock.
    pub clock: Signal<In, Clock>,
    /// Write enable.
    pub we: Signal<In, Bit>,
    /// Lane written (0..REC_LANES).
    pub wlane: Signal<In, Bits<4>>,
    /// Write address.
    pub waddr: Signal<In, Bits<10>>,
    /// Write data: byte 2k in bits 7..0, byte 2k+1 in bits 15..8.
    pub wdata: Signal<In, Bits<16>>,
    /// Read address.
    pub raddr: Signal<In, Bits<10>>,
    /// Record at last cycle's `raddr` (byte k in bits 8k+7..8k).
    pub rdata: Signal<Out, Bits<BITS>>,
    /// Second read port, for the primitive id only (record bytes 1..=3).
    pub praddr: Signal<In, Bits<10>>,
    /// Primitive id of the record at last cycle's `praddr`.
    pub prdata: Signal<Out, Bits<24>>,
    capacity: usize,
    id_port: bool,
    mem: Vec<Bits<BITS>>,
    rd: Bits<BITS>,
    prd: Bits<24>,
}

impl<const BITS: usize> RecordRam<BITS> {
    /// 16-bit write lanes of a record.
    pub const LANES: usize = BITS.div_ceil(16);

    /// A buffer of `capacity` records (power of two, 2..=1024) with the primitive-id port.
    pub fn new(capacity: usize) -> Self {
        Self::build(capacity, true)
    }

    /// A buffer of `capacity` records (power of two, 2..=1024) without the primitive-id port.
    pub fn without_id_port(capacity: usize) -> Self {
        Self::build(capacity, false)
    }

    fn build(capacity: usize, id_port: bool) -> Self {
        assert!(capacity.is_power_of_two() && (2..=1024).contains(&capacity));
        assert!(Self::LANES <= 16, "wlane is 4 bits");
        RecordRam {
            clock: Default::default(),
            we: Default::default(),
            wlane: Default::default(),
            waddr: Default::default(),
            wdata: Default::default(),
            raddr: Default::default(),
            rdata: Default::default(),
            praddr: Default::default(),
            prdata: Default::default(),
            capacity,
            id_port,
            mem: vec![Bits::default(); capacity],
            rd: Bits::default(),
            prd: Bits::default(),
        }
    }
}

wrapper_block!(impl [const BITS: usize] RecordRam<BITS>; clock, we, wlane, waddr, wdata, raddr, rdata, praddr, prdata);

impl<const BITS: usize> Logic for RecordRam<BITS> {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            let m = self.capacity - 1;
            self.rd = self.mem[self.raddr.val().index() & m];
            if self.id_port {
                self.prd = self.mem[self.praddr.val().index() & m].get_bits::<24>(8);
            }
            let lane = self.wlane.val().index();
            if self.we.val() && lane < Self::LANES {
                let e = &mut self.mem[self.waddr.val().index() & m];
                let d = self.wdata.val();
                for bit in 16 * lane..(16 * lane + 16).min(BITS) {
                    *e = e.replace_bit(bit, d.get_bit(bit - 16 * lane));
                }
            }
        }
        self.rdata.next = self.rd;
        self.prdata.next = self.prd;
    }
    fn connect(&mut self) {
        self.rdata.connect();
        self.prdata.connect();
    }
    fn hdl(&self) -> Verilog {
        let a = self.capacity.trailing_zeros() as usize;
        let mut v = format!(
            "    // {} records of {BITS} bits in {} lane memories (simple dual port, registered read).\n",
            self.capacity,
            Self::LANES
        );
        let mut cat = Vec::new();
        for k in 0..Self::LANES {
            let w = (BITS - 16 * k).min(16);
            let _ = writeln!(
                v,
                "    (* no_rw_check *) reg [{w1}:0] m{k} [0:{c1}];\n    reg [{w1}:0] r{k};\n    always @(posedge clock) begin\n        if (we && wlane == 4'd{k}) m{k}[waddr[{a1}:0]] <= wdata[{w1}:0];\n        r{k} <= m{k}[raddr[{a1}:0]];\n    end",
                w1 = w - 1,
                c1 = self.capacity - 1,
                a1 = a - 1
            );
            cat.push(format!("r{k}"));
        }
        cat.reverse();
        let _ = writeln!(v, "    assign rdata = {{{}}};", cat.join(", "));
        if !self.id_port {
            let _ = writeln!(v, "    assign prdata = 24'd0;");
            let _ = writeln!(
                v,
                "    wire unused_ok = &{{1'b0, praddr{}, 1'b0}};",
                if a < 10 {
                    format!(", waddr[9:{a}], raddr[9:{a}]")
                } else {
                    String::new()
                }
            );
            return Verilog::Wrapper(Wrapper {
                code: v,
                cores: String::new(),
            });
        }
        // The primitive-id port: copies of record bytes 1 (lane 0) and 2..=3 (lane 1).
        let _ = writeln!(
            v,
            "    (* no_rw_check *) reg [7:0] p0 [0:{c1}];\n    (* no_rw_check *) reg [15:0] p1 [0:{c1}];\n    reg [7:0] q0;\n    reg [15:0] q1;\n    always @(posedge clock) begin\n        if (we && wlane == 4'd0) p0[waddr[{a1}:0]] <= wdata[15:8];\n        if (we && wlane == 4'd1) p1[waddr[{a1}:0]] <= wdata;\n        q0 <= p0[praddr[{a1}:0]];\n        q1 <= p1[praddr[{a1}:0]];\n    end\n    assign prdata = {{q1, q0}};",
            c1 = self.capacity - 1,
            a1 = a - 1
        );
        if a < 10 {
            let _ = writeln!(
                v,
                "    wire unused_ok = &{{1'b0, waddr[9:{a}], raddr[9:{a}], praddr[9:{a}], 1'b0}};"
            );
        }
        Verilog::Wrapper(Wrapper {
            code: v,
            cores: String::new(),
        })
    }
}
