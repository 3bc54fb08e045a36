//! # The ring FIFO, one declaration for every register-file FIFO
//!
//! `ring_fifo!` declares a FIFO block of `depth` entries of `Bits<width>`, kept in registers
//! (small FIFOs: a few to a few dozen entries, where block RAM would waste a whole RAM and add
//! a cycle of read latency).
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
