//! # The clock crossing: one asynchronous FIFO for every clock-domain crossing of the board top
//!
//! **Role.** Words written at one clock's edges, read at another's (the board top's line buffer,
//! later the GPU port's requests and answers). Its cycle model is
//! `tilerast_golden::crossing::Crossing`, whose rustdoc is the timing contract; this block
//! equals it register for register.
//!
//! **Ports.** `write_clock`, `read_clock`; `flush` (synchronous on each side at its own edges:
//! pointers and that side's synchroniser to zero); `drop` (at a write edge: the write pointer
//! set to the read pointer the write side sees, the words held abandoned; the read side must
//! not pop until the pointer has crossed); the write side: `push` with `push_data`
//! (taken at a write edge when `room`), `room`, `fill` (words held as the write side counts
//! them); the read side: `readable`, `head_data` (the head word, zero while not readable),
//! `pop` (the head leaves at a read edge when `readable`).
//!
//! **Latency and throughput.** A word pushed at a write edge is readable after the second read
//! edge that follows; its slot is free again on the write side three write edges after its pop
//! (two synchroniser flops and the binary `read_seen`). `room` and `fill` are registers,
//! computed a write edge ahead from `read_seen`'s next value; `readable` is a register too,
//! computed a read edge ahead from `write_sync1` and the read pointer stepped or not.
//! One push per write edge and one pop per read edge, at any ratio of the two clocks.
//!
//! ```text
//!   write_clock                                      │ read_clock
//!   push_data ─► RAM[write_ptr] (write port) ────────┼──► RAM read register ─► head_data
//!   write_ptr ─► write_gray ═══════════════ write_sync1 ─► write_sync2 ─┐        (gated)
//!   fill, room (flops) ◄─ write_next − read_decoded  │   readable (a flop) = write_sync2 ≠ read_gray
//!   read_seen ◄─ read_decoded = bin(read_sync2) ◄─ read_sync1 ◄══ read_gray ◄─ read_ptr
//! ```
//!
//! **How.** Pointers count modulo twice the depth (`P` bits for `2^A` words, `P = A + 1`); each
//! crosses as a gray code (one bit changes per word) through two flops of the other clock. The
//! RAM is rust-hdl's `RAM` (dual clock, read register on the read clock: block RAM on the ECP5),
//! read at every read edge at the next read pointer, so the head word is in its register
//! whenever `readable` says so (the cycle model's contract proves it). rust-hdl's own
//! `AsynchronousFIFO` does not fit: its pointers cross by a four-phase handshake
//! (`VectorSynchronizer`), each side seeing the other's pointer several edges late by a
//! variable amount, where the board top's cycle model has two flops.
//!
//! `c_unsynchronised` is the planted bug of the co-simulation (1: the read side compares the
//! write side's gray pointer itself, no synchroniser), 0 in every file of `rtl-out/`.

use rust_hdl::prelude::*;

/// The crossing FIFO: `W`-bit words, `2^A` of them, `P = A + 1` pointer bits (see the module
/// header).
#[derive(LogicBlock)]
pub struct Crossing<const W: usize, const A: usize, const P: usize> {
    pub write_clock: Signal<In, Clock>,
    pub read_clock: Signal<In, Clock>,
    pub flush: Signal<In, Bit>,
    /// At a write edge: the write pointer takes the read pointer the write side sees (the
    /// words held are abandoned; `Crossing::drop_edge` of the cycle model).
    pub drop: Signal<In, Bit>,
    pub push: Signal<In, Bit>,
    pub push_data: Signal<In, Bits<W>>,
    pub room: Signal<Out, Bit>,
    pub fill: Signal<Out, Bits<P>>,
    pub pop: Signal<In, Bit>,
    pub readable: Signal<Out, Bit>,
    pub head_data: Signal<Out, Bits<W>>,

    c_unsynchronised: Constant<Bit>,
    c_depth: Constant<Bits<P>>,
    c_zero: Constant<Bits<P>>,
    c_one: Constant<Bits<P>>,
    c_zero_word: Constant<Bits<W>>,
    /// Shift amounts of the gray-to-binary prefix.
    c_two: Constant<Bits<P>>,
    c_four: Constant<Bits<P>>,
    c_eight: Constant<Bits<P>>,

    ram: RAM<Bits<W>, A>,
    /// The write side (write clock): its pointer, the pointer's gray code, and the read
    /// side's gray pointer through two flops.
    write_ptr: DFF<Bits<P>>,
    write_gray: DFF<Bits<P>>,
    read_sync1: DFF<Bits<P>>,
    read_sync2: DFF<Bits<P>>,
    /// `read_sync2` in binary, registered: the read pointer as the write side counts it.
    read_seen: DFF<Bits<P>>,
    /// The words held as the write side counts them (`write_ptr − read_seen`), registered:
    /// the `fill` port, and `room` is its top bit clear.
    fill_reg: DFF<Bits<P>>,
    /// The read side (read clock): likewise.
    read_ptr: DFF<Bits<P>>,
    read_gray: DFF<Bits<P>>,
    write_sync1: DFF<Bits<P>>,
    write_sync2: DFF<Bits<P>>,
    /// `write_sync2 ≠ read_gray`, registered: computed a read edge ahead from their next
    /// values (`write_sync1`, and the read pointer stepped or not), so `readable` is a flop.
    readable_reg: DFF<Bit>,

    /// The write side has room (`fill_reg` below the depth), and its pointer after this edge.
    room_now: Signal<Local, Bit>,
    write_next: Signal<Local, Bits<P>>,
    /// `fill_reg` after this edge: the write pointer after it less `read_decoded`.
    fill_next: Signal<Local, Bits<P>>,
    /// The read side's pointer after this edge (the RAM reads its slot).
    read_next: Signal<Local, Bits<P>>,
    /// The read side sees a word; the edge's push and pop.
    readable_now: Signal<Local, Bit>,
    /// The read pointer one on, its gray code, and `readable_reg`'s next value for each way
    /// the pointer can go (the pop only selects).
    read_step: Signal<Local, Bits<P>>,
    read_step_gray: Signal<Local, Bits<P>>,
    readable_stay: Signal<Local, Bit>,
    readable_step: Signal<Local, Bit>,
    pushing: Signal<Local, Bit>,
    popping: Signal<Local, Bit>,
    /// `read_sync2` back in binary, through the prefix XORs over 1, 2, 4 and 8 places
    /// (`read_seen` after this edge).
    read_decoded: Signal<Local, Bits<P>>,
    prefix1: Signal<Local, Bits<P>>,
    prefix2: Signal<Local, Bits<P>>,
    prefix4: Signal<Local, Bits<P>>,
}

impl<const W: usize, const A: usize, const P: usize> Crossing<W, A, P> {
    /// The FIFO; `unsynchronised` plants the bug of the module header.
    pub fn new(unsynchronised: bool) -> Self {
        assert!(
            P == A + 1 && P <= 16,
            "a crossing FIFO has A + 1 pointer bits, at most 16"
        );
        Crossing {
            write_clock: Default::default(),
            read_clock: Default::default(),
            flush: Default::default(),
            drop: Default::default(),
            push: Default::default(),
            push_data: Default::default(),
            room: Default::default(),
            fill: Default::default(),
            pop: Default::default(),
            readable: Default::default(),
            head_data: Default::default(),
            c_unsynchronised: Constant::new(unsynchronised),
            c_depth: Constant::new((1u64 << A).into()),
            c_zero: Constant::new(0u64.into()),
            c_one: Constant::new(1u64.into()),
            c_zero_word: Constant::new(0u64.into()),
            c_two: Constant::new(2u64.into()),
            c_four: Constant::new(4u64.into()),
            c_eight: Constant::new(8u64.into()),
            ram: Default::default(),
            write_ptr: Default::default(),
            write_gray: Default::default(),
            read_sync1: Default::default(),
            read_sync2: Default::default(),
            read_seen: Default::default(),
            fill_reg: Default::default(),
            read_ptr: Default::default(),
            read_gray: Default::default(),
            write_sync1: Default::default(),
            write_sync2: Default::default(),
            readable_reg: Default::default(),
            room_now: Default::default(),
            write_next: Default::default(),
            fill_next: Default::default(),
            read_next: Default::default(),
            readable_now: Default::default(),
            read_step: Default::default(),
            read_step_gray: Default::default(),
            readable_stay: Default::default(),
            readable_step: Default::default(),
            pushing: Default::default(),
            popping: Default::default(),
            read_decoded: Default::default(),
            prefix1: Default::default(),
            prefix2: Default::default(),
            prefix4: Default::default(),
        }
    }
}

impl<const W: usize, const A: usize, const P: usize> Logic for Crossing<W, A, P> {
    #[hdl_gen]
    fn update(&mut self) {
        // The write side.
        self.write_ptr.clock.next = self.write_clock.val();
        self.write_gray.clock.next = self.write_clock.val();
        self.read_sync1.clock.next = self.write_clock.val();
        self.read_sync2.clock.next = self.write_clock.val();
        self.read_seen.clock.next = self.write_clock.val();
        self.fill_reg.clock.next = self.write_clock.val();
        self.ram.write_clock.next = self.write_clock.val();
        // Gray to binary: the XOR of every higher bit, as a prefix over 1, 2, 4 and 8 places.
        self.prefix1.next = self.read_sync2.q.val() ^ (self.read_sync2.q.val() >> self.c_one.val());
        self.prefix2.next = self.prefix1.val() ^ (self.prefix1.val() >> self.c_two.val());
        self.prefix4.next = self.prefix2.val() ^ (self.prefix2.val() >> self.c_four.val());
        self.read_decoded.next = self.prefix4.val() ^ (self.prefix4.val() >> self.c_eight.val());
        self.room_now.next = !(self.fill_reg.q.val() & self.c_depth.val()).any();
        self.room.next = self.room_now.val();
        self.fill.next = self.fill_reg.q.val();
        self.pushing.next = self.push.val() & self.room_now.val() & !self.flush.val() & !self.drop.val();
        // The next fill for each way the pointer can go, then one multiplexer: the push only
        // selects.
        self.fill_next.next = self.write_ptr.q.val() - self.read_decoded.val();
        if self.pushing.val() {
            self.fill_next.next = (self.write_ptr.q.val() + self.c_one.val()) - self.read_decoded.val();
        }
        if self.drop.val() {
            self.fill_next.next = self.read_seen.q.val() - self.read_decoded.val();
        }
        self.write_next.next = self.write_ptr.q.val();
        if self.pushing.val() {
            self.write_next.next = self.write_ptr.q.val() + self.c_one.val();
        }
        if self.drop.val() {
            self.write_next.next = self.read_seen.q.val();
        }
        self.ram.write_address.next = self.write_ptr.q.val().get_bits::<A>(0);
        self.ram.write_data.next = self.push_data.val();
        self.ram.write_enable.next = self.pushing.val();
        self.write_ptr.d.next = self.write_next.val();
        self.write_gray.d.next = self.write_next.val() ^ (self.write_next.val() >> self.c_one.val());
        self.read_sync1.d.next = self.read_gray.q.val();
        self.read_sync2.d.next = self.read_sync1.q.val();
        self.read_seen.d.next = self.read_decoded.val();
        self.fill_reg.d.next = self.fill_next.val();
        if self.flush.val() {
            self.write_ptr.d.next = self.c_zero.val();
            self.write_gray.d.next = self.c_zero.val();
            self.read_sync1.d.next = self.c_zero.val();
            self.read_sync2.d.next = self.c_zero.val();
            self.read_seen.d.next = self.c_zero.val();
            self.fill_reg.d.next = self.c_zero.val();
        }

        // The read side.
        self.read_ptr.clock.next = self.read_clock.val();
        self.read_gray.clock.next = self.read_clock.val();
        self.write_sync1.clock.next = self.read_clock.val();
        self.write_sync2.clock.next = self.read_clock.val();
        self.readable_reg.clock.next = self.read_clock.val();
        self.ram.read_clock.next = self.read_clock.val();
        self.readable_now.next = self.readable_reg.q.val();
        if self.c_unsynchronised.val() {
            self.readable_now.next = self.write_gray.q.val() != self.read_gray.q.val();
        }
        self.readable.next = self.readable_now.val();
        self.head_data.next = self.c_zero_word.val();
        if self.readable_now.val() {
            self.head_data.next = self.ram.read_data.val();
        }
        self.popping.next = self.pop.val() & self.readable_now.val() & !self.flush.val();
        self.read_next.next = self.read_ptr.q.val();
        if self.popping.val() {
            self.read_next.next = self.read_ptr.q.val() + self.c_one.val();
        }
        if self.flush.val() {
            self.read_next.next = self.c_zero.val();
        }
        self.ram.read_address.next = self.read_next.val().get_bits::<A>(0);
        self.read_ptr.d.next = self.read_next.val();
        self.read_gray.d.next = self.read_next.val() ^ (self.read_next.val() >> self.c_one.val());
        self.write_sync1.d.next = self.write_gray.q.val();
        self.write_sync2.d.next = self.write_sync1.q.val();
        self.read_step.next = self.read_ptr.q.val() + self.c_one.val();
        self.read_step_gray.next = self.read_step.val() ^ (self.read_step.val() >> self.c_one.val());
        self.readable_stay.next = self.write_sync1.q.val() != self.read_gray.q.val();
        self.readable_step.next = self.write_sync1.q.val() != self.read_step_gray.val();
        self.readable_reg.d.next = self.readable_stay.val();
        if self.popping.val() {
            self.readable_reg.d.next = self.readable_step.val();
        }
        if self.flush.val() {
            self.write_sync1.d.next = self.c_zero.val();
            self.write_sync2.d.next = self.c_zero.val();
            self.readable_reg.d.next = false;
        }
    }
}
