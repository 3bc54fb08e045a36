//! The streams between blocks as rust-hdl interfaces, derived from their one declaration,
//! [`tilerast_golden::for_each_stream!`].
//!
//! For each stream `X` of the declaration (`Cmd`, `Edges`, `Cand`, `Job`, `Beat`, `PackedBeat`,
//! the pixel side's and the frame's: `BlendFrag` … `SeqCmd`) this module has:
//! - `XOut`, the producer's payload ports, and `XIn`, the consumer's (`Signal<Out, _>` /
//!   `Signal<In, _>`, one per declared field; the Verilog ports are `<interface>__<field>`);
//! - `XOut::join(&mut producer.out, &mut consumer.inp)`, the whole connection in one line of
//!   `#[hdl_gen]` (and `XIn::link` / `XOut::link` to pass a parent's ports to a child);
//! - `XIn::drive(&payload)` and `XOut::sample() -> payload`, through the golden payload, for
//!   the rust-hdl tests;
//! - `XMux`, a combinational two-way multiplexer of the payload (`sel` high picks `b`);
//! - `XReg`, the payload's register with `load` and a synchronous `clear` (an output register).
//!
//! Valid and ready are not part of an interface: each block keeps its own `in_valid`,
//! `in_ready`, `out_valid`, `out_ready`, whose logic differs from block to block.

use rust_hdl::prelude::*;
use tilerast_golden::cycle::Ports;
use tilerast_golden::streams::{port_name, ports, Stream};

/// A port value as raw bits (the low `N` bits, two's complement for `Signed`) and back.
pub trait RtlValue: Synth {
    /// From raw bits (bits above the width are ignored).
    fn from_raw(bits: u64) -> Self;
    /// The raw bits.
    fn to_raw(&self) -> u64;
}

impl RtlValue for Bit {
    fn from_raw(bits: u64) -> Self {
        bits & 1 == 1
    }
    fn to_raw(&self) -> u64 {
        *self as u64
    }
}

fn low<const N: usize>(bits: u64) -> u64 {
    if N >= 64 {
        bits
    } else {
        bits & ((1u64 << N) - 1)
    }
}

impl<const N: usize> RtlValue for Bits<N> {
    fn from_raw(bits: u64) -> Self {
        Bits::<N>::from(low::<N>(bits))
    }
    fn to_raw(&self) -> u64 {
        self.to_u64()
    }
}

impl<const N: usize> RtlValue for Signed<N> {
    fn from_raw(bits: u64) -> Self {
        signed_cast(Bits::<N>::from(low::<N>(bits)))
    }
    fn to_raw(&self) -> u64 {
        self.inner().to_u64()
    }
}

macro_rules! hw_stream {
    ($(#[$doc:meta])* $name:ident : $payload:ident {
        $($f:ident : $t:ident $(< $w:literal >)? [ $($place:tt)+ ]),* $(,)?
    }) => {
        paste::paste! {
            $(#[$doc])*
            /// Producer side.
            #[derive(LogicInterface, Default)]
            pub struct [<$name Out>] {
                $(pub $f: Signal<Out, $t $(< $w >)?>,)*
            }

            $(#[$doc])*
            /// Consumer side.
            #[derive(LogicInterface, Default)]
            pub struct [<$name In>] {
                $(pub $f: Signal<In, $t $(< $w >)?>,)*
            }

            impl [<$name Out>] {
                /// Connect every field to the consumer's (in `#[hdl_gen]`:
                #[doc = "`" [<$name Out>] "::join(&mut self.a.out, &mut self.b.inp)`)."]
                pub fn join(&mut self, other: &mut [<$name In>]) {
                    $(self.$f.join(&mut other.$f);)*
                }
                /// The payload on the ports now (fields the stream does not carry: default).
                pub fn sample(&self) -> tilerast_golden::streams::$payload {
                    let bits = [$(RtlValue::to_raw(&self.$f.val())),*];
                    <ports::$name as Stream>::from_bits(&bits)
                }
            }

            impl [<$name In>] {
                /// Drive every field from a golden payload.
                pub fn drive(&mut self, p: &tilerast_golden::streams::$payload) {
                    let mut bits = <ports::$name as Stream>::to_bits(p).into_iter();
                    $(self.$f.next = RtlValue::from_raw(bits.next().expect("one value per field"));)*
                }
                /// Drive every field from the ports `<iface>__<field>` of `p` (absent: zero).
                pub fn drive_ports(&mut self, iface: &str, p: &tilerast_golden::cycle::Ports) {
                    $(self.$f.next = RtlValue::from_raw(
                        p.get(&port_name(iface, stringify!($f))).unwrap_or(0),
                    );)*
                }
            }

            impl [<$name Out>] {
                /// Every field's value now, as the ports `<iface>__<field>`.
                pub fn put_ports(&self, iface: &str, p: &mut Ports) {
                    $(p.set(&port_name(iface, stringify!($f)), RtlValue::to_raw(&self.$f.val()));)*
                }
            }

            /// The payload's register (a pipeline stage's output register): at a rising edge
            /// of `clock`, `clear` → every field zero, else `load` → `d`, else hold; `q` is the
            /// register. Parent: drive `d` and `load`, `clear` from the block's flush, and pass
            #[doc = "`q` on with `" [<$name Out>] "::link(&mut self.out, &mut self.<reg>.q)`."]
            #[derive(LogicBlock)]
            pub struct [<$name Reg>] {
                pub clock: Signal<In, Clock>,
                pub load: Signal<In, Bit>,
                pub clear: Signal<In, Bit>,
                pub d: [<$name In>],
                pub q: [<$name Out>],
                $($f: DFF<$t $(< $w >)?>,)*
                $([<zero_ $f>]: Constant<$t $(< $w >)?>,)*
            }

            impl Default for [<$name Reg>] {
                fn default() -> Self {
                    Self {
                        clock: Default::default(),
                        load: Default::default(),
                        clear: Default::default(),
                        d: Default::default(),
                        q: Default::default(),
                        $($f: Default::default(),)*
                        $([<zero_ $f>]: Constant::new(Default::default()),)*
                    }
                }
            }

            impl Logic for [<$name Reg>] {
                #[hdl_gen]
                fn update(&mut self) {
                    $(
                        self.$f.clock.next = self.clock.val();
                        self.$f.d.next = self.$f.q.val();
                    )*
                    if self.load.val() {
                        $(self.$f.d.next = self.d.$f.val();)*
                    }
                    if self.clear.val() {
                        $(self.$f.d.next = self.[<zero_ $f>].val();)*
                    }
                    $(self.q.$f.next = self.$f.q.val();)*
                }
            }

            /// Combinational multiplexer of the payload: `y = if sel { b } else { a }`.
            #[derive(LogicBlock, Default)]
            pub struct [<$name Mux>] {
                pub sel: Signal<In, Bit>,
                pub a: [<$name In>],
                pub b: [<$name In>],
                pub y: [<$name Out>],
            }

            impl Logic for [<$name Mux>] {
                #[hdl_gen]
                fn update(&mut self) {
                    if self.sel.val() {
                        $(self.y.$f.next = self.b.$f.val();)*
                    } else {
                        $(self.y.$f.next = self.a.$f.val();)*
                    }
                }
            }
        }
    };
}

tilerast_golden::for_each_stream!(hw_stream);

/// Declares a pipeline block: `#[derive(LogicBlock)] pub struct $name` whose first ports are
/// the ones every stage has, in this order, followed by the block's own fields:
///
/// | port | dir | meaning |
/// |---|---|---|
/// | `clock` | in | every register updates on its rising edge |
/// | `flush` | in | synchronous reset: at an edge with `flush` high the block returns to its initial state (idle, output register empty, payload zeroed) |
/// | `in_valid` / `in_ready` | in / out | the input stream's handshake: a transfer at every edge with both high (each block states its `in_ready` in its header) |
/// | `inp` | in | the input payload, `$inp` (a `...In` interface of this module) |
/// | `out_valid` / `out_ready` | out / in | the output stream's handshake: `out_valid` comes from the output register |
/// | `out` | out | the output payload, `$out` (a `...Out` interface of this module) |
///
/// The output stream may be left out (`(XIn =>)`: a block whose results leave through a
/// further port only). Further streams follow the parentheses: `sends { p: XOut, .. }` adds,
/// per stream, `p_valid` (out), `p_ready` (in) and the payload `p`; `takes { p: XIn, .. }`
/// adds `p_valid` (in), `p_ready` (out) and `p`; `ins { background: Bits<32> }` further inputs
/// (levels); `outs { idle: Bit }` further outputs. Their
/// ports come from the same stream declarations as `inp` and `out`.
///
/// A block does not write that list: it takes it from its golden signature
/// (`tilerast_golden::block_signature!` / `cycle_model_signature!`, declared once beside the
/// cycle model), whose `<name>_streams!` macro hands it here as `@signature { takes {..}
/// sends {..} outs {..} }`: golden stream `X` taken is `XIn`, sent `XOut`; `inp` and `out`
/// are the main streams, the others follow in the signature's order; an `outs` field of type
/// `bool` is a `Bit`, `u8` a `Bits<8>` ([`OutBits`]).
///
/// ```ignore
/// tilerast_golden::tile_parser_streams! { crate::streams::stream_block;
///     /// The tile parser block (see the module header).
///     pub struct TileParser {
///         sw_log: Constant<Bits<8>>,
///         // ...
///     }
/// }
/// // = stream_block! { pub struct TileParser(EdgesIn => CandOut) { .. } }
/// ```
macro_rules! stream_block {
    // From the golden signature (`tilerast_golden::<name>_streams!(stream_block; ...)`): the
    // taken stream `inp` and the sent stream `out` (if any) are the block's main streams, the
    // others follow in the signature's order; golden stream `X` is `XIn` taken, `XOut` sent.
    // One stream in, one out, nothing else: also a [`OneStream`] block.
    (@signature {
        takes { inp: $in:ident $(,)? }
        sends { out: $out:ident $(,)? }
        $(outs { $($op:ident : $ot:ty),* $(,)? })?
    } $(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        $crate::streams::stream_block! {
            @ports { takes { inp: $in } sends { out: $out } $(outs { $($op : $ot),* })? }
            $(#[$m])* pub struct $name { $($body)* }
        }
        impl $crate::streams::OneStream for $name {
            type In = tilerast_golden::streams::ports::$in;
            type Out = tilerast_golden::streams::ports::$out;
            const IN_READY: &'static str = "in_ready";
            fn clock_high(&self) -> bool {
                self.clock.val().clk
            }
            fn toggle_clock(&mut self) {
                self.clock.next = !self.clock.val();
            }
            fn drive_main(
                &mut self,
                in_valid: bool,
                inp: &<tilerast_golden::streams::ports::$in as tilerast_golden::streams::Stream>::Payload,
                out_ready: bool,
                flush: bool,
            ) {
                self.in_valid.next = in_valid;
                self.inp.drive(inp);
                self.out_ready.next = out_ready;
                self.flush.next = flush;
            }
            fn in_ready_now(&self) -> bool {
                self.in_ready.val()
            }
            fn out_valid_now(&self) -> bool {
                self.out_valid.val()
            }
            fn sample_out(&self) -> <tilerast_golden::streams::ports::$out as tilerast_golden::streams::Stream>::Payload {
                self.out.sample()
            }
            fn extra_outs_now(&self) -> Vec<(&'static str, u64)> {
                $crate::streams::PortIo::extra_outs(self)
            }
        }
    };
    (@signature { $($sig:tt)* } $($rest:tt)*) => {
        $crate::streams::stream_block! { @ports { $($sig)* } $($rest)* }
    };
    (@ports {
        takes { inp: $in:ident $(, $tp:ident : $tt:ident)* $(,)? }
        sends { out: $out:ident $(, $sp:ident : $st:ident)* $(,)? }
        $(ins { $($ip:ident : $it:ty),* $(,)? })?
        $(outs { $($op:ident : $ot:ty),* $(,)? })?
    } $(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        paste::paste! {
            $crate::streams::stream_block! {
                $(#[$m])*
                pub struct $name ($crate::streams::[<$in In>] => $crate::streams::[<$out Out>])
                sends { $($sp : $crate::streams::[<$st Out>]),* }
                takes { $($tp : $crate::streams::[<$tt In>]),* }
                ins { $($($ip : <$it as $crate::streams::OutBits>::Bits),*)? }
                outs { $($($op : <$ot as $crate::streams::OutBits>::Bits),*)? }
                { $($body)* }
            }
        }
    };
    (@ports {
        takes { inp: $in:ident $(, $tp:ident : $tt:ident)* $(,)? }
        sends { $($sp:ident : $st:ident),* $(,)? }
        $(ins { $($ip:ident : $it:ty),* $(,)? })?
        $(outs { $($op:ident : $ot:ty),* $(,)? })?
    } $(#[$m:meta])* pub struct $name:ident { $($body:tt)* }) => {
        paste::paste! {
            $crate::streams::stream_block! {
                $(#[$m])*
                pub struct $name ($crate::streams::[<$in In>] =>)
                sends { $($sp : $crate::streams::[<$st Out>]),* }
                takes { $($tp : $crate::streams::[<$tt In>]),* }
                ins { $($($ip : <$it as $crate::streams::OutBits>::Bits),*)? }
                outs { $($($op : <$ot as $crate::streams::OutBits>::Bits),*)? }
                { $($body)* }
            }
        }
    };
    ($(#[$m:meta])* pub struct $name:ident ($inp:ty => $($out:ty)?)
        $(sends { $($sp:ident : $st:ty),* $(,)? })?
        $(takes { $($tp:ident : $tt:ty),* $(,)? })?
        $(ins { $($ip:ident : $ipt:ty),* $(,)? })?
        $(outs { $($op:ident : $ot:ty),* $(,)? })?
        { $($body:tt)* }) => {
        paste::paste! {
            $(#[$m])*
            #[derive(LogicBlock)]
            pub struct $name {
                /// Clock.
                pub clock: Signal<In, Clock>,
                /// Synchronous reset to the initial state (idle, output register empty).
                pub flush: Signal<In, Bit>,
                /// An input beat is offered.
                pub in_valid: Signal<In, Bit>,
                /// The offered beat is taken at this edge (the block's header states when).
                pub in_ready: Signal<Out, Bit>,
                /// Input payload.
                pub inp: $inp,
                $(
                    /// A beat is in the output register.
                    pub out_valid: Signal<Out, Bit>,
                    /// Downstream takes the output beat at this edge.
                    pub out_ready: Signal<In, Bit>,
                    /// Output payload.
                    pub out: $out,
                )?
                $($(
                    #[doc = "Stream `" $sp "` (sent): a beat is offered (from a register)."]
                    pub [<$sp _valid>]: Signal<Out, Bit>,
                    #[doc = "Stream `" $sp "`: the receiver takes the beat at this edge."]
                    pub [<$sp _ready>]: Signal<In, Bit>,
                    #[doc = "Stream `" $sp "`: payload."]
                    pub $sp: $st,
                )*)?
                $($(
                    #[doc = "Stream `" $tp "` (taken): a beat is offered."]
                    pub [<$tp _valid>]: Signal<In, Bit>,
                    #[doc = "Stream `" $tp "`: the block takes the beat at this edge."]
                    pub [<$tp _ready>]: Signal<Out, Bit>,
                    #[doc = "Stream `" $tp "`: payload."]
                    pub $tp: $tt,
                )*)?
                $($(
                    #[doc = "Input `" $ip "` (a level the driver holds; see the cycle model)."]
                    pub $ip: Signal<In, $ipt>,
                )*)?
                $($(
                    #[doc = "Output `" $op "` (a function of the registers; see the cycle model)."]
                    pub $op: Signal<Out, $ot>,
                )*)?
                $($body)*
            }

            impl $crate::streams::PortIo for $name {
                fn clock_high(&self) -> bool {
                    self.clock.val().clk
                }
                fn toggle_clock(&mut self) {
                    self.clock.next = !self.clock.val();
                }
                fn set_inputs(&mut self, p: &tilerast_golden::cycle::Ports) {
                    self.flush.next = p.bit("flush");
                    self.in_valid.next = p.bit("in_valid");
                    self.inp.drive_ports("inp", p);
                    $(
                        let _: Option<$out> = None;
                        self.out_ready.next = p.bit("out_ready");
                    )?
                    $($(
                        self.[<$sp _ready>].next = p.bit(concat!(stringify!($sp), "_ready"));
                    )*)?
                    $($(
                        self.[<$tp _valid>].next = p.bit(concat!(stringify!($tp), "_valid"));
                        self.$tp.drive_ports(stringify!($tp), p);
                    )*)?
                    $($(
                        self.$ip.next = $crate::streams::RtlValue::from_raw(p.get(stringify!($ip)).unwrap_or(0));
                    )*)?
                }

                fn outputs(&self) -> tilerast_golden::cycle::Ports {
                    let mut p = tilerast_golden::cycle::Ports::default();
                    p.set("in_ready", self.in_ready.val() as u64);
                    $($(p.set(concat!(stringify!($tp), "_ready"), self.[<$tp _ready>].val() as u64);)*)?
                    $(
                        let _: Option<$out> = None;
                        p.set("out_valid", self.out_valid.val() as u64);
                        self.out.put_ports("out", &mut p);
                    )?
                    $($(
                        p.set(concat!(stringify!($sp), "_valid"), self.[<$sp _valid>].val() as u64);
                        self.$sp.put_ports(stringify!($sp), &mut p);
                    )*)?
                    $($(p.set(stringify!($op), $crate::streams::RtlValue::to_raw(&self.$op.val()));)*)?
                    p
                }

                fn extra_outs(&self) -> Vec<(&'static str, u64)> {
                    vec![$($((stringify!($op), $crate::streams::RtlValue::to_raw(&self.$op.val()))),*)?]
                }
            }
        }
    };
}
pub(crate) use stream_block;

/// The RTL type of a golden signature's further output (`outs { idle: bool, done_frame: u8 }`).
pub trait OutBits {
    type Bits: Synth;
}
impl OutBits for bool {
    type Bits = Bit;
}
impl OutBits for u8 {
    type Bits = Bits<8>;
}
impl OutBits for u32 {
    type Bits = Bits<32>;
}
impl<const N: usize> OutBits for tilerast_golden::cycle::UBits<N> {
    type Bits = Bits<N>;
}

/// A block with one stream in and one out (made by `stream_block!` from a signature that has
/// no other stream; the raster core's is in `raster_core.rs`): what the rust-hdl harness of
/// `hw/tests/common` drives, with golden payloads.
pub trait OneStream {
    /// The input stream (`tilerast_golden::streams::ports::X`).
    type In: Stream;
    /// The output stream.
    type Out: Stream;
    /// Name of the input's ready port (`in_ready`, the core's `cmd_ready`).
    const IN_READY: &'static str;
    /// The clock's level.
    fn clock_high(&self) -> bool;
    /// Toggle the clock.
    fn toggle_clock(&mut self);
    /// Drive the input handshake, the input payload, `out_ready` and `flush` for the coming edge.
    fn drive_main(&mut self, in_valid: bool, inp: &<Self::In as Stream>::Payload, out_ready: bool, flush: bool);
    /// The input's ready now.
    fn in_ready_now(&self) -> bool;
    /// `out_valid` now.
    fn out_valid_now(&self) -> bool;
    /// The output payload now.
    fn sample_out(&self) -> <Self::Out as Stream>::Payload;
    /// The further outputs (`idle`, …) now, `(port, value)` in declaration order.
    fn extra_outs_now(&self) -> Vec<(&'static str, u64)>;
}

/// A block's ports by name (made by `stream_block!`): what the rust-hdl back end of the
/// lock-step harness (`tilerast_verif::lockstep`) drives and samples.
pub trait PortIo {
    /// The clock's level.
    fn clock_high(&self) -> bool;
    /// Toggle the clock.
    fn toggle_clock(&mut self);
    /// Drive every input port (except `clock`) from `p` (absent: zero).
    fn set_inputs(&mut self, p: &Ports);
    /// Every output port's value now.
    fn outputs(&self) -> Ports;
    /// The further outputs (`outs { .. }`: `idle`, …) now, `(port, value)` in declaration order.
    fn extra_outs(&self) -> Vec<(&'static str, u64)>;
}
