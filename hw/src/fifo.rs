//! # The FIFOs: one declaration each, for every register-file FIFO
//!
//! Two kinds of small FIFO (a few to a few dozen entries, where block RAM would waste a whole
//! RAM and add a cycle of read latency), each declared by one macro call:
//! - `ring_fifo!`: `depth` entries of `Bits<width>` with head and tail pointers; the head is a
//!   multiplexer over the entries (the frame's depth and read-tag FIFOs). Described below.
//! - `shift_fifo!`: a record of fields per entry, entry 0 always the head, straight from its
//!   registers (a FIFO that is a block's output register: the list reader's output FIFO,
//!   dst_fetch's meta FIFO).
//!
//! ## ring_fifo!
//!
//! **Ports.** `clock`; `flush` (synchronous: head, tail and count return to 0, so the FIFO is
//! empty; the entries keep their bits, which are never read before a push overwrites them);
//! `push` with `push_data` (written at the tail at the edge); `pop` (the head leaves at the
//! edge); `head_data`, the oldest entry (combinational from the head pointer: a pushed entry is
//! there from the cycle after its push); `full` and `empty` (from the count register).
//!
//! **Handshake.** None of its own: the parent pushes only when not `full` and pops only when not
//! `empty`; a push and a pop in one cycle keep the count. Latency 1 (push → `head_data` of an
//! empty FIFO), one push and one pop per cycle.
//!
//! ```text
//!   push_data ─► entries[tail] (push: tail + 1) ──► entries[head] ─► head_data (pop: head + 1)
//!                count (+1 push, −1 pop) ─► full = count == depth, empty = count == 0
//! ```
//!
//! rust-hdl 0.46's Verilog generator unrolls only loops with literal bounds, so the macro takes
//! the depth and the register widths as literals and writes the block with them: each FIFO is
//! declared once, by one macro call. rust-hdl's own `SynchronousFIFO` does not fit where these
//! are used: it has no synchronous flush, and its RAM read adds a cycle before `head_data`.

/// Declares a ring FIFO block `$name`: `width` bits per entry, `depth` entries (a power of
/// two), `pointer` = log2(depth) bits, `count` = pointer + 1 bits. See the module header.
///
/// ```text
/// ring_fifo! {
///     /// Doc.
///     pub struct TagFifo { width 3, depth 8, pointer 3, count 4 }
/// }
/// ```
macro_rules! ring_fifo {
    ($(#[$m:meta])* pub struct $name:ident {
        width $w:tt, depth $d:tt, pointer $p:tt, count $c:tt $(,)?
    }) => {
        $(#[$m])*
        #[derive(LogicBlock)]
        pub struct $name {
            pub clock: Signal<In, Clock>,
            /// Empties the FIFO at the edge (pointers and count to 0).
            pub flush: Signal<In, Bit>,
            /// Write `push_data` at the tail at this edge.
            pub push: Signal<In, Bit>,
            pub push_data: Signal<In, Bits<$w>>,
            /// The head leaves at this edge.
            pub pop: Signal<In, Bit>,
            /// The oldest entry.
            pub head_data: Signal<Out, Bits<$w>>,
            pub full: Signal<Out, Bit>,
            pub empty: Signal<Out, Bit>,

            entries: Vec<DFF<Bits<$w>>>,
            head: DFF<Bits<$p>>,
            tail: DFF<Bits<$p>>,
            count: DFF<Bits<$c>>,
            c_index: Vec<Constant<Bits<$p>>>,
            c_one_pointer: Constant<Bits<$p>>,
            c_one_count: Constant<Bits<$c>>,
            c_depth: Constant<Bits<$c>>,
        }

        impl Default for $name {
            fn default() -> Self {
                const _: () = assert!(1usize << $p == $d && $c == $p + 1, "depth = 2^pointer, count = pointer + 1");
                Self {
                    clock: Default::default(),
                    flush: Default::default(),
                    push: Default::default(),
                    push_data: Default::default(),
                    pop: Default::default(),
                    head_data: Default::default(),
                    full: Default::default(),
                    empty: Default::default(),
                    entries: $crate::util::vec_of($d),
                    head: Default::default(),
                    tail: Default::default(),
                    count: Default::default(),
                    c_index: (0..$d as u64).map($crate::util::k).collect(),
                    c_one_pointer: $crate::util::k(1),
                    c_one_count: $crate::util::k(1),
                    c_depth: $crate::util::k($d),
                }
            }
        }

        impl $name {
            #[hdl_gen]
            fn kernel(&mut self) {
                self.head.clock.next = self.clock.val();
                self.head.d.next = self.head.q.val();
                self.tail.clock.next = self.clock.val();
                self.tail.d.next = self.tail.q.val();
                self.count.clock.next = self.clock.val();
                self.count.d.next = self.count.q.val();
                for i in 0..$d {
                    self.entries[i].clock.next = self.clock.val();
                    self.entries[i].d.next = self.entries[i].q.val();
                }

                self.full.next = self.count.q.val() == self.c_depth.val();
                self.empty.next = !self.count.q.val().any();
                self.head_data.next = self.entries[0].q.val();
                for i in 0..$d {
                    if self.head.q.val() == self.c_index[i].val() {
                        self.head_data.next = self.entries[i].q.val();
                    }
                }

                if self.push.val() {
                    for i in 0..$d {
                        if self.tail.q.val() == self.c_index[i].val() {
                            self.entries[i].d.next = self.push_data.val();
                        }
                    }
                    self.tail.d.next = self.tail.q.val() + self.c_one_pointer.val();
                }
                if self.pop.val() {
                    self.head.d.next = self.head.q.val() + self.c_one_pointer.val();
                }
                if self.push.val() & !self.pop.val() {
                    self.count.d.next = self.count.q.val() + self.c_one_count.val();
                }
                if self.pop.val() & !self.push.val() {
                    self.count.d.next = self.count.q.val() - self.c_one_count.val();
                }
                if self.flush.val() {
                    self.head.d.next = 0.into();
                    self.tail.d.next = 0.into();
                    self.count.d.next = 0.into();
                }
            }
        }

        $crate::emit::indexed_kernel_logic!($name);
    };
}
pub(crate) use ring_fifo;

/// Declares a shift FIFO block `$name` of records: `depth` entries (`last` = depth − 1),
/// `count` bits of count (depth fits), one register per field per entry. The head is entry 0,
/// straight from its registers (no multiplexer: a FIFO whose head is a block's output
/// register); a pop shifts every entry down by one, and a push writes the first free entry
/// after the shift (`count`, or `count − 1` with a pop). `flush` zeroes the count and every
/// entry.
///
/// Ports: `clock`, `flush`, `push` with `push_<field>`, `pop`, `head_<field>` (entry 0),
/// `count`. The parent pushes only below `depth` and pops only above 0; a push and a pop in one
/// cycle keep the count. Latency 1 (a push into an empty FIFO is the head the next cycle), one
/// push and one pop per cycle.
///
/// ```text
/// shift_fifo! {
///     /// Doc.
///     pub struct MetaFifo { depth 4, last 3, count 3, fields { pos: Bits<32>, close: Bit } }
/// }
/// ```
macro_rules! shift_fifo {
    ($(#[$m:meta])* pub struct $name:ident {
        depth $d:tt, last $l:tt, count $c:tt, fields { $($f:ident : $t:ty),* $(,)? } $(,)?
    }) => {
        paste::paste! {
            $(#[$m])*
            #[derive(LogicBlock)]
            pub struct $name {
                pub clock: Signal<In, Clock>,
                /// Empties the FIFO at the edge (count and every entry to 0).
                pub flush: Signal<In, Bit>,
                /// Write the `push_*` record at the first free entry at this edge.
                pub push: Signal<In, Bit>,
                $(pub [<push_ $f>]: Signal<In, $t>,)*
                /// Entry 0 leaves at this edge (the others move down).
                pub pop: Signal<In, Bit>,
                $(
                    /// Entry 0's field (the oldest record, when `count` > 0).
                    pub [<head_ $f>]: Signal<Out, $t>,
                )*
                /// Records held.
                pub count: Signal<Out, Bits<$c>>,

                $([<entries_ $f>]: Vec<DFF<$t>>,)*
                $([<zero_ $f>]: Constant<$t>,)*
                records: DFF<Bits<$c>>,
                /// The entry a push writes: the first free one after this edge's shift.
                write_index: Signal<Local, Bits<$c>>,
                c_index: Vec<Constant<Bits<$c>>>,
                c_one: Constant<Bits<$c>>,
            }

            impl Default for $name {
                fn default() -> Self {
                    const _: () = assert!($l + 1 == $d && $d < 1usize << $c, "last = depth - 1, count holds depth");
                    Self {
                        clock: Default::default(),
                        flush: Default::default(),
                        push: Default::default(),
                        $([<push_ $f>]: Default::default(),)*
                        pop: Default::default(),
                        $([<head_ $f>]: Default::default(),)*
                        count: Default::default(),
                        $([<entries_ $f>]: $crate::util::vec_of($d),)*
                        $([<zero_ $f>]: Constant::new(Default::default()),)*
                        records: Default::default(),
                        write_index: Default::default(),
                        c_index: (0..$d as u64).map($crate::util::k).collect(),
                        c_one: $crate::util::k(1),
                    }
                }
            }

            impl $name {
                #[hdl_gen]
                fn kernel(&mut self) {
                    self.records.clock.next = self.clock.val();
                    self.records.d.next = self.records.q.val();
                    for i in 0..$d {
                        $(
                            self.[<entries_ $f>][i].clock.next = self.clock.val();
                            self.[<entries_ $f>][i].d.next = self.[<entries_ $f>][i].q.val();
                        )*
                    }

                    self.write_index.next = self.records.q.val();
                    if self.pop.val() {
                        self.write_index.next = self.records.q.val() - self.c_one.val();
                        for i in 0..$l {
                            $(self.[<entries_ $f>][i].d.next = self.[<entries_ $f>][i + 1].q.val();)*
                        }
                    }
                    if self.push.val() {
                        for i in 0..$d {
                            if self.write_index.val() == self.c_index[i].val() {
                                $(self.[<entries_ $f>][i].d.next = self.[<push_ $f>].val();)*
                            }
                        }
                    }
                    if self.push.val() & !self.pop.val() {
                        self.records.d.next = self.records.q.val() + self.c_one.val();
                    }
                    if self.pop.val() & !self.push.val() {
                        self.records.d.next = self.records.q.val() - self.c_one.val();
                    }
                    if self.flush.val() {
                        self.records.d.next = 0.into();
                        for i in 0..$d {
                            $(self.[<entries_ $f>][i].d.next = self.[<zero_ $f>].val();)*
                        }
                    }

                    $(self.[<head_ $f>].next = self.[<entries_ $f>][0].q.val();)*
                    self.count.next = self.records.q.val();
                }
            }

            $crate::emit::indexed_kernel_logic!($name);
        }
    };
}
pub(crate) use shift_fifo;
