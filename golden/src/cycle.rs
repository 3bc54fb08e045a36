//! Layer 3 of the three layers of truth: the convention every per-block cycle model follows.
//!
//! Each RTL block in `hw/src/<stage>.rs` has a cycle model in `golden/src/<stage>.rs` that
//! implements [`CycleModel`]. The model mirrors the block's registers, so that for the same
//! inputs and the same ready pattern it predicts the block's output ports on every cycle:
//!
//! ```text
//!            in_valid, in payload ─►┌──────────┐─► out_valid, out payload   (registered: `out()`)
//!   in_ready = f(regs, out_ready) ◄─│  block   │◄─ out_ready
//!                         flush ───►└──────────┘
//! ```
//!
//! * Streams use valid/ready: a transfer happens at a rising edge where both are high.
//! * `out()` (valid **and payload**) is a function of the registers only. The payload is
//!   predicted on every cycle, valid or not: the RTL's payload registers are deterministic
//!   (they start at zero and change on defined events), and co-simulation compares them.
//! * `in_ready(out_ready)` may depend combinationally on the downstream ready (no other
//!   combinational input → output path exists).
//! * `clock(...)` applies one rising edge. `flush` is a synchronous reset: with `flush` high at an
//!   edge, the block returns to its idle state with nothing stale left, whatever else is driven.
//!   The state after a flush equals the state after `new`.
//!
//! Each model's rustdoc has a **Timing contract** section: handshake, latency, throughput or
//! initiation interval, back-pressure and flush, exact. It is the one place a block's timing is
//! written: the block's header in `hw/src/<stage>.rs` links to it instead of repeating it, and
//! `hw/tests/<stage>.rs` / `cosim/tests/<stage>.rs` hold the RTL to it on every port and cycle.
//! Cycle numbering in the contracts: a transfer "at edge c" happens when valid and ready are both
//! high in cycle c, at the rising edge that ends it; registered results of that edge are
//! visible from cycle c + 1.

/// A cycle-accurate model of one valid/ready block with one input and one output stream.
pub trait CycleModel {
    type In: Clone + Default + PartialEq + std::fmt::Debug;
    type Out: Clone + Default + PartialEq + std::fmt::Debug;

    /// Registered outputs visible during the current cycle: (out_valid, out payload).
    fn out(&self) -> (bool, Self::Out);

    /// Ready towards upstream during the current cycle, given downstream's ready.
    fn in_ready(&self, out_ready: bool) -> bool;

    /// One rising clock edge with the given inputs.
    fn clock(&mut self, in_valid: bool, inp: &Self::In, out_ready: bool, flush: bool);
}

/// What one cycle looked like at a block's ports (for traces and comparisons).
#[derive(Clone, Debug, PartialEq)]
pub struct PortSample<I, O> {
    pub in_valid: bool,
    pub in_ready: bool,
    pub input: I,
    pub out_valid: bool,
    pub out_ready: bool,
    pub output: O,
}

/// Drive a model with a stimulus: `inputs` are offered in order (with `gap(cycle)` true the
/// producer holds valid low that cycle), `ready(cycle)` is the downstream ready. Runs until all
/// inputs are accepted and `done(outputs)` says so, or `max_cycles`. Returns the transferred
/// outputs and the per-cycle port samples.
#[allow(clippy::type_complexity)]
pub fn drive<M: CycleModel>(
    m: &mut M,
    inputs: &[M::In],
    mut gap: impl FnMut(u64) -> bool,
    mut ready: impl FnMut(u64) -> bool,
    mut done: impl FnMut(&[M::Out]) -> bool,
    max_cycles: u64,
) -> (Vec<M::Out>, Vec<PortSample<M::In, M::Out>>) {
    let mut outs = Vec::new();
    let mut trace = Vec::new();
    let mut next = 0usize;
    for cyc in 0..max_cycles {
        let in_valid = next < inputs.len() && !gap(cyc);
        let input = if next < inputs.len() {
            inputs[next].clone()
        } else {
            M::In::default()
        };
        let out_ready = ready(cyc);
        let (out_valid, output) = m.out();
        let in_ready = m.in_ready(out_ready);
        trace.push(PortSample {
            in_valid,
            in_ready,
            input: input.clone(),
            out_valid,
            out_ready,
            output: output.clone(),
        });
        if out_valid && out_ready {
            outs.push(output);
        }
        if in_valid && in_ready {
            next += 1;
        }
        m.clock(in_valid, &input, out_ready, false);
        if next >= inputs.len() && done(&outs) {
            break;
        }
    }
    (outs, trace)
}

// ===== blocks with any number of streams =====
//
// A block's signature is declared once, with [`crate::block_signature!`], next to its cycle
// model: its streams (taken or sent, each a stream of `crate::streams`) and its further one-bit
// outputs. The declaration gives the typed per-cycle records the model works on (`<Name>In`,
// `<Name>Out`) and the [`Signature`] the harnesses (`tilerast_verif::lockstep`, its rust-hdl
// and Verilator back ends) and the RTL port table read, so that no port list is written twice.

/// A block's ports during one cycle, by Verilog port name, in a fixed order (handshake ports
/// and payload fields, each as raw bits, two's complement for signed fields). The names are
/// interned ([`intern`]): building a cycle's ports allocates no string.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ports(Vec<(&'static str, u64)>);

thread_local! {
    /// Every port name seen on this thread, once.
    static NAMES: std::cell::RefCell<std::collections::HashMap<String, &'static str>> = Default::default();
    /// Per stream (its field table's address) and interface: the payload's port names.
    static FIELD_PORTS: std::cell::RefCell<std::collections::HashMap<usize, std::collections::HashMap<String, &'static [&'static str]>>> = Default::default();
    /// Per interface: its valid and ready ports.
    static HANDSHAKE: std::cell::RefCell<std::collections::HashMap<String, (&'static str, &'static str)>> = Default::default();
}

/// `name` as a `&'static str`, one copy per distinct name and thread (port names are a few
/// hundred; each is leaked once).
pub fn intern(name: &str) -> &'static str {
    NAMES.with(|m| {
        if let Some(s) = m.borrow().get(name) {
            return *s;
        }
        let s: &'static str = Box::leak(name.to_string().into_boxed_str());
        m.borrow_mut().insert(name.to_string(), s);
        s
    })
}

/// The ports `<iface>__<field>` of stream `S`'s fields, in field order (cached).
pub fn field_ports<S: crate::streams::Stream>(iface: &str) -> &'static [&'static str] {
    let key = S::FIELDS.as_ptr() as usize;
    FIELD_PORTS.with(|m| {
        if let Some(v) = m.borrow().get(&key).and_then(|per| per.get(iface)) {
            return *v;
        }
        let v: Vec<&'static str> = S::FIELDS
            .iter()
            .map(|f| intern(&crate::streams::port_name(iface, f.name)))
            .collect();
        let v: &'static [&'static str] = Box::leak(v.into_boxed_slice());
        m.borrow_mut().entry(key).or_default().insert(iface.to_string(), v);
        v
    })
}

impl Ports {
    /// Set `name` (added at the end if new).
    pub fn set(&mut self, name: &str, value: u64) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((intern(name), value)),
        }
    }

    /// The value of `name`, if present.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.0.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
    }

    /// The value of `name` as one bit (absent: false).
    pub fn bit(&self, name: &str) -> bool {
        self.get(name).unwrap_or(0) & 1 == 1
    }

    /// Every (port, value), in the order set.
    pub fn iter(&self) -> impl Iterator<Item = (&str, u64)> + '_ {
        self.0.iter().map(|(n, v)| (*n, *v))
    }

    /// Number of ports.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// No port.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Stream `S`'s payload `p` on the ports `<iface>__<field>`.
    pub fn put_payload<S: crate::streams::Stream>(&mut self, iface: &str, p: &S::Payload) {
        for (n, v) in field_ports::<S>(iface).iter().zip(S::to_bits(p)) {
            self.set(n, v);
        }
    }

    /// Stream `S`'s payload on the ports `<iface>__<field>` (absent ports: zero).
    pub fn payload<S: crate::streams::Stream>(&self, iface: &str) -> S::Payload {
        let bits: Vec<u64> = field_ports::<S>(iface)
            .iter()
            .map(|n| self.get(n).unwrap_or(0))
            .collect();
        S::from_bits(&bits)
    }
}

impl std::fmt::Display for Ports {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self.iter().map(|(n, v)| format!("{n}={v:#x}")).collect();
        write!(f, "{}", parts.join(" "))
    }
}

/// The valid port of stream `iface`: `in_valid` for the input stream `inp`, else
/// `<iface>_valid` (the names `stream_block!` gives the RTL's ports).
pub fn valid_port(iface: &str) -> &'static str {
    handshake_ports(iface).0
}

/// The ready port of stream `iface`: `in_ready` for `inp`, else `<iface>_ready`.
pub fn ready_port(iface: &str) -> &'static str {
    handshake_ports(iface).1
}

/// The valid and ready ports of `iface` (cached, interned).
fn handshake_ports(iface: &str) -> (&'static str, &'static str) {
    HANDSHAKE.with(|m| {
        if let Some(v) = m.borrow().get(iface) {
            return *v;
        }
        let v = match iface {
            "inp" => (intern("in_valid"), intern("in_ready")),
            _ => (intern(&format!("{iface}_valid")), intern(&format!("{iface}_ready"))),
        };
        m.borrow_mut().insert(iface.to_string(), v);
        v
    })
}

/// A stream's handshake and payload in one cycle, as seen on its ports.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Offer<T> {
    pub valid: bool,
    pub payload: T,
}

impl<T> Offer<T> {
    pub fn new(valid: bool, payload: T) -> Offer<T> {
        Offer { valid, payload }
    }
}

/// One stream of a [`Signature`].
#[derive(Clone, Copy, Debug)]
pub struct SigStream {
    /// Interface name: ports [`valid_port`], [`ready_port`] and `<name>__<field>`.
    pub name: &'static str,
    /// The block sends it (valid and payload out, ready in); else it takes it.
    pub sent: bool,
    /// The stream declaration's name (`crate::streams::Stream::NAME`).
    pub stream: &'static str,
    /// Its payload fields, from the stream's one declaration.
    pub fields: &'static [crate::streams::Field],
}

/// A block's ports, declared once by [`crate::block_signature!`]: `clock` and `flush`, then
/// every stream's valid, ready and payload, then the further one-bit outputs.
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    /// Stage name (`golden/src/stages.rs`, `hw/src/<stage>.rs`).
    pub stage: &'static str,
    pub streams: &'static [SigStream],
    /// Further inputs (levels, not streams: the frame's `background`), held by the driver.
    pub ins: &'static [&'static str],
    /// Further one-bit outputs (`idle`, …), functions of the registers.
    pub outs: &'static [&'static str],
}

impl Signature {
    /// Input port names except `clock`, in order: `flush`, each taken stream's valid and
    /// payload, each sent stream's ready.
    pub fn input_ports(&self) -> Vec<String> {
        let mut v = vec!["flush".to_string()];
        for s in self.streams.iter().filter(|s| !s.sent) {
            v.push(valid_port(s.name).to_string());
            v.extend(s.fields.iter().map(|f| crate::streams::port_name(s.name, f.name)));
        }
        for s in self.streams.iter().filter(|s| s.sent) {
            v.push(ready_port(s.name).to_string());
        }
        v.extend(self.ins.iter().map(|i| i.to_string()));
        v
    }

    /// Output port names, in order: each taken stream's ready, each sent stream's valid and
    /// payload, the further outputs.
    pub fn output_ports(&self) -> Vec<String> {
        let mut v = Vec::new();
        for s in self.streams.iter().filter(|s| !s.sent) {
            v.push(ready_port(s.name).to_string());
        }
        for s in self.streams.iter().filter(|s| s.sent) {
            v.push(valid_port(s.name).to_string());
            v.extend(s.fields.iter().map(|f| crate::streams::port_name(s.name, f.name)));
        }
        v.extend(self.outs.iter().map(|o| o.to_string()));
        v
    }

    /// The stream named `name`.
    pub fn stream(&self, name: &str) -> Option<&SigStream> {
        self.streams.iter().find(|s| s.name == name)
    }
}

/// A typed per-cycle record of a block's ports (made by [`crate::block_signature!`]).
pub trait Record: Clone + Default + std::fmt::Debug {
    /// Every port of the record, by name.
    fn to_ports(&self) -> Ports;
    /// The record the ports carry (absent ports: zero).
    fn from_ports(p: &Ports) -> Self;
}

/// A block's typed signature (made by [`crate::block_signature!`]).
pub trait BlockSignature {
    /// The inputs of one cycle: `flush`, each taken stream's [`Offer`], each sent stream's ready.
    type In: Record;
    /// The outputs of one cycle: each taken stream's ready, each sent stream's [`Offer`], the
    /// further outputs.
    type Out: Record;
    const SIGNATURE: Signature;
}

/// A cycle-accurate model of a block with any number of streams (the general form of
/// [`CycleModel`]): during a cycle its outputs are a function of its registers and, for the
/// ready ports only, of the inputs; [`BlockModel::clock`] applies one rising edge. With `flush`
/// high at an edge, the model returns to its state after `new`.
pub trait BlockModel {
    type Sig: BlockSignature;
    /// The outputs during the current cycle, given this cycle's inputs.
    fn outputs(&self, i: &<Self::Sig as BlockSignature>::In) -> <Self::Sig as BlockSignature>::Out;
    /// One rising edge with inputs `i`.
    fn clock(&mut self, i: &<Self::Sig as BlockSignature>::In);
}

/// A model's output ports besides `in_ready`, `out_valid` and the payload, `(port, value)` in
/// the order of its signature's further outputs (the pixel-side blocks' `idle`), each a function
/// of the registers. Every [`BlockModel`] has it from its signature; a wrapper around a model
/// (a test's tap or mutant) forwards it, and [`OnPorts`] drives it on the signature's ports.
pub trait ExtraOut {
    fn extra_out(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

impl<M: BlockModel> ExtraOut for M {
    fn extra_out(&self) -> Vec<(&'static str, u64)> {
        let sig = <M::Sig as BlockSignature>::SIGNATURE;
        if sig.outs.is_empty() {
            return Vec::new();
        }
        // Further outputs are functions of the registers: any inputs give them.
        let o = self.outputs(&Default::default()).to_ports();
        sig.outs.iter().map(|n| (*n, o.get(n).unwrap_or(0))).collect()
    }
}

/// A [`BlockModel`] seen through named ports (what the harnesses drive).
pub trait PortModel {
    fn signature(&self) -> Signature;
    fn port_outputs(&self, inputs: &Ports) -> Ports;
    fn port_clock(&mut self, inputs: &Ports);
}

impl<M: BlockModel> PortModel for M {
    fn signature(&self) -> Signature {
        <M::Sig as BlockSignature>::SIGNATURE
    }
    fn port_outputs(&self, inputs: &Ports) -> Ports {
        let i = <<M::Sig as BlockSignature>::In as Record>::from_ports(inputs);
        self.outputs(&i).to_ports()
    }
    fn port_clock(&mut self, inputs: &Ports) {
        let i = <<M::Sig as BlockSignature>::In as Record>::from_ports(inputs);
        self.clock(&i)
    }
}

/// A one-in, one-out signature (made by [`crate::cycle_model_signature!`]): the streams it
/// takes on `inp` and sends on `out`.
pub trait OneStream: BlockSignature {
    type InS: crate::streams::Stream;
    type OutS: crate::streams::Stream;
}

/// A [`CycleModel`] (a block's model, or a test's wrapper around one: a tap that records, a
/// mutant) on the ports of the one-in, one-out signature `S`, for the lock-step harness
/// (`tilerast_verif::lockstep`): `in_ready`, `out_valid`, `out__*` and its [`ExtraOut`]s out;
/// `flush`, `in_valid`, `inp__*` and `out_ready` in.
pub struct OnPorts<M, S> {
    pub model: M,
    /// The first cycle whose output payload has a value too wide for its port (the port
    /// carries its low bits): (cycle, port, value).
    pub overflow: Option<(u64, String, u64)>,
    cycle: u64,
    sig: std::marker::PhantomData<S>,
}

impl<M, S> OnPorts<M, S> {
    pub fn new(model: M) -> OnPorts<M, S> {
        OnPorts {
            model,
            overflow: None,
            cycle: 0,
            sig: std::marker::PhantomData,
        }
    }
}

/// The first field of `p` whose value does not fit its port (width, sign): (port, value).
pub fn too_wide<S: crate::streams::Stream>(iface: &str, p: &S::Payload) -> Option<(String, u64)> {
    S::FIELDS.iter().zip(S::values(p)).find_map(|(f, v)| {
        let fits = if f.width >= 64 {
            true
        } else if f.signed {
            let sh = 64 - f.width;
            ((v as i64) << sh) >> sh == v as i64
        } else {
            v >> f.width == 0
        };
        (!fits).then(|| (crate::streams::port_name(iface, f.name), v))
    })
}

impl<M, S> PortModel for OnPorts<M, S>
where
    S: OneStream,
    M: CycleModel<In = <S::InS as crate::streams::Stream>::Payload, Out = <S::OutS as crate::streams::Stream>::Payload>
        + ExtraOut,
{
    fn signature(&self) -> Signature {
        S::SIGNATURE
    }
    fn port_outputs(&self, i: &Ports) -> Ports {
        let mut p = Ports::default();
        p.set(ready_port("inp"), self.model.in_ready(i.bit(ready_port("out"))) as u64);
        let (v, o) = self.model.out();
        p.set(valid_port("out"), v as u64);
        p.put_payload::<S::OutS>("out", &o);
        for (n, x) in self.model.extra_out() {
            p.set(n, x);
        }
        p
    }
    fn port_clock(&mut self, i: &Ports) {
        if self.overflow.is_none() {
            let (_, o) = self.model.out();
            if let Some((port, v)) = too_wide::<S::OutS>("out", &o) {
                self.overflow = Some((self.cycle, port, v));
            }
        }
        let x = i.payload::<S::InS>("inp");
        self.model
            .clock(i.bit(valid_port("inp")), &x, i.bit(ready_port("out")), i.bit("flush"));
        self.cycle += 1;
    }
}

#[doc(hidden)]
pub use paste as __paste;

/// A further output's value as port bits and back (`bool`: one bit; unsigned integers).
pub trait OutPort: Sized {
    fn to_port(&self) -> u64;
    fn from_port(bits: u64) -> Self;
}

impl OutPort for bool {
    fn to_port(&self) -> u64 {
        *self as u64
    }
    fn from_port(bits: u64) -> Self {
        bits & 1 == 1
    }
}

macro_rules! out_port_uint {
    ($($t:ty),*) => {$(
        impl OutPort for $t {
            fn to_port(&self) -> u64 {
                *self as u64
            }
            fn from_port(bits: u64) -> Self {
                bits as $t
            }
        }
    )*};
}
out_port_uint!(u8, u16, u32, u64);

/// A further port exactly `N` bits wide (`outs { ba: UBits<2> }`, `ins { dq_in: UBits<16> }`):
/// the RTL port is `N` bits (a `u8` would be 8); values are kept to the low `N` bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UBits<const N: usize>(pub u64);

impl<const N: usize> UBits<N> {
    pub const MASK: u64 = if N >= 64 { u64::MAX } else { (1u64 << N) - 1 };
    pub fn new(v: u64) -> Self {
        UBits(v & Self::MASK)
    }
}

impl<const N: usize> OutPort for UBits<N> {
    fn to_port(&self) -> u64 {
        self.0 & Self::MASK
    }
    fn from_port(bits: u64) -> Self {
        UBits::new(bits)
    }
}

/// The signature of a one-in, one-out block (`inp` taken, `out` sent, optionally `idle`) and
/// its [`BlockModel`] from its [`CycleModel`]: `cycle_model_signature!(pub Binner "binner"
/// for BinnerCycle: BinBox -> BinWrite)`; `... -> BlendBeat, idle` adds the `idle` output
/// (the model's `idle()`). The signature is a [`OneStream`] too, so that a wrapper around the
/// model goes on the same ports ([`OnPorts`]).
#[macro_export]
macro_rules! cycle_model_signature {
    ($(#[$doc:meta])* pub $name:ident $stage:literal for $model:ty : $in:ident -> $out:ident) => {
        $crate::block_signature! {
            $(#[$doc])*
            pub $name $stage {
                takes { inp: $in }
                sends { out: $out }
            }
        }
        $crate::cycle_model_signature!(@impl $name $model, $in -> $out);
    };
    ($(#[$doc:meta])* pub $name:ident $stage:literal for $model:ty : $in:ident -> $out:ident, idle) => {
        $crate::block_signature! {
            $(#[$doc])*
            pub $name $stage {
                takes { inp: $in }
                sends { out: $out }
                outs { idle: bool }
            }
        }
        $crate::cycle_model_signature!(@impl $name $model, $in -> $out, idle);
    };
    (@impl $name:ident $model:ty, $in:ident -> $out:ident $(, $idle:ident)?) => {
        $crate::cycle::__paste::paste! {
            impl $crate::cycle::OneStream for [<$name Ports>] {
                type InS = $crate::streams::ports::$in;
                type OutS = $crate::streams::ports::$out;
            }
            impl $crate::cycle::BlockModel for $model {
                type Sig = [<$name Ports>];
                fn outputs(&self, i: &[<$name In>]) -> [<$name Out>] {
                    let (v, out) = $crate::cycle::CycleModel::out(self);
                    [<$name Out>] {
                        inp_ready: $crate::cycle::CycleModel::in_ready(self, i.out_ready),
                        out: $crate::cycle::Offer::new(v, out),
                        $($idle: self.idle(),)?
                    }
                }
                fn clock(&mut self, i: &[<$name In>]) {
                    $crate::cycle::CycleModel::clock(self, i.inp.valid, &i.inp.payload, i.out_ready, i.flush)
                }
            }
        }
    };
}

/// Declares a block's signature once: its stage, the streams it takes and sends (each a
/// stream declared in `crate::streams`, by its `ports` name) and its further one-bit outputs.
/// Makes `<Name>Ports` ([`BlockSignature`]), `<Name>In` and `<Name>Out` ([`Record`]s):
///
/// ```ignore
/// block_signature! {
///     /// dst_fetch's ports.
///     pub DstFetch "dst_fetch" {
///         takes { inp: PixSlots, rsp: MemResp }
///         sends { out: BlendFrag, rd: MemReq }
///         outs { idle: bool }
///     }
/// }
/// // DstFetchIn  { flush, inp: Offer<PixSlots>, rsp: Offer<MemResp>, out_ready, rd_ready }
/// // DstFetchOut { inp_ready, rsp_ready, out: Offer<BlendFrag>, rd: Offer<MemReq>, idle }
/// ```
///
/// Record field `inp_ready` is the port `in_ready` ([`ready_port`]). A further output is a
/// `bool` (one bit) or an unsigned integer ([`OutPort`]). An optional `ins { background: u32 }`
/// (after `sends`) declares further inputs: levels, not streams, that the driver holds (a
/// lock-step bench drives them with `tilerast_verif::lockstep::Level`).
///
/// It also makes the macro `<name>_streams!` (snake case: `dst_fetch_streams!`), the stream
/// list handed to another crate's macro, so that the RTL declares its ports from this one
/// declaration: `tilerast_golden::dst_fetch_streams!(path::to::m; REST)` expands to
/// `path::to::m! { @signature { takes { .. } sends { .. } outs { .. } } REST }`
/// (`tilerast_hw::stream_block!` takes it).
#[macro_export]
macro_rules! block_signature {
    ($(#[$doc:meta])* pub $name:ident $stage:literal {
        takes { $($t:ident : $ts:ident),* $(,)? }
        sends { $($s:ident : $ss:ident),* $(,)? }
        $(ins { $($i:ident : $it:ty),* $(,)? })?
        $(outs { $($o:ident : $ot:ty),* $(,)? })?
    }) => {
        $crate::block_signature!(@streams ($) $name {
            takes { $($t : $ts),* }
            sends { $($s : $ss),* }
            $(ins { $($i : $it),* })?
            $(outs { $($o : $ot),* })?
        });
        $crate::block_signature!(@records $(#[$doc])* pub $name $stage {
            takes { $($t : $ts),* }
            sends { $($s : $ss),* }
            ins { $($($i : $it),*)? }
            $(outs { $($o : $ot),* })?
        });
    };
    // `$d` is a `$` handed in, for the generated macro's own metavariables.
    (@streams ($d:tt) $name:ident { $($sig:tt)* }) => {
        $crate::cycle::__paste::paste! {
            #[doc = "The stream list of `" $name "Ports` for another crate's macro (see `block_signature!`)."]
            #[macro_export]
            macro_rules! [<$name:snake _streams>] {
                ($d cb:path ; $d ($d rest:tt)*) => {
                    $d cb! { @signature { $($sig)* } $d ($d rest)* }
                };
            }
        }
    };
    (@records $(#[$doc:meta])* pub $name:ident $stage:literal {
        takes { $($t:ident : $ts:ident),* $(,)? }
        sends { $($s:ident : $ss:ident),* $(,)? }
        ins { $($i:ident : $it:ty),* $(,)? }
        $(outs { $($o:ident : $ot:ty),* $(,)? })?
    }) => {
        $crate::cycle::__paste::paste! {
            $(#[$doc])*
            #[derive(Clone, Copy, Debug, Default)]
            pub struct [<$name Ports>];

            #[doc = "One cycle's inputs of `" $stage "` (see [`" [<$name Ports>] "`])."]
            #[derive(Clone, Debug, Default, PartialEq)]
            pub struct [<$name In>] {
                pub flush: bool,
                $(pub $t: $crate::cycle::Offer<<$crate::streams::ports::$ts as $crate::streams::Stream>::Payload>,)*
                $(pub [<$s _ready>]: bool,)*
                $(pub $i: $it,)*
            }

            #[doc = "One cycle's outputs of `" $stage "` (see [`" [<$name Ports>] "`])."]
            #[derive(Clone, Debug, Default, PartialEq)]
            pub struct [<$name Out>] {
                $(pub [<$t _ready>]: bool,)*
                $(pub $s: $crate::cycle::Offer<<$crate::streams::ports::$ss as $crate::streams::Stream>::Payload>,)*
                $($(pub $o: $ot,)*)?
            }

            impl $crate::cycle::Record for [<$name In>] {
                fn to_ports(&self) -> $crate::cycle::Ports {
                    let mut p = $crate::cycle::Ports::default();
                    p.set("flush", self.flush as u64);
                    $(
                        p.set($crate::cycle::valid_port(stringify!($t)), self.$t.valid as u64);
                        p.put_payload::<$crate::streams::ports::$ts>(stringify!($t), &self.$t.payload);
                    )*
                    $(p.set($crate::cycle::ready_port(stringify!($s)), self.[<$s _ready>] as u64);)*
                    $(p.set(stringify!($i), $crate::cycle::OutPort::to_port(&self.$i));)*
                    p
                }
                fn from_ports(p: &$crate::cycle::Ports) -> Self {
                    Self {
                        flush: p.bit("flush"),
                        $($t: $crate::cycle::Offer::new(
                            p.bit($crate::cycle::valid_port(stringify!($t))),
                            p.payload::<$crate::streams::ports::$ts>(stringify!($t)),
                        ),)*
                        $([<$s _ready>]: p.bit($crate::cycle::ready_port(stringify!($s))),)*
                        $($i: $crate::cycle::OutPort::from_port(p.get(stringify!($i)).unwrap_or(0)),)*
                    }
                }
            }

            impl $crate::cycle::Record for [<$name Out>] {
                fn to_ports(&self) -> $crate::cycle::Ports {
                    let mut p = $crate::cycle::Ports::default();
                    $(p.set($crate::cycle::ready_port(stringify!($t)), self.[<$t _ready>] as u64);)*
                    $(
                        p.set($crate::cycle::valid_port(stringify!($s)), self.$s.valid as u64);
                        p.put_payload::<$crate::streams::ports::$ss>(stringify!($s), &self.$s.payload);
                    )*
                    $($(p.set(stringify!($o), $crate::cycle::OutPort::to_port(&self.$o));)*)?
                    p
                }
                fn from_ports(p: &$crate::cycle::Ports) -> Self {
                    Self {
                        $([<$t _ready>]: p.bit($crate::cycle::ready_port(stringify!($t))),)*
                        $($s: $crate::cycle::Offer::new(
                            p.bit($crate::cycle::valid_port(stringify!($s))),
                            p.payload::<$crate::streams::ports::$ss>(stringify!($s)),
                        ),)*
                        $($($o: $crate::cycle::OutPort::from_port(p.get(stringify!($o)).unwrap_or(0)),)*)?
                    }
                }
            }

            impl $crate::cycle::BlockSignature for [<$name Ports>] {
                type In = [<$name In>];
                type Out = [<$name Out>];
                const SIGNATURE: $crate::cycle::Signature = $crate::cycle::Signature {
                    stage: $stage,
                    streams: &[
                        $($crate::cycle::SigStream {
                            name: stringify!($t),
                            sent: false,
                            stream: <$crate::streams::ports::$ts as $crate::streams::Stream>::NAME,
                            fields: <$crate::streams::ports::$ts as $crate::streams::Stream>::FIELDS,
                        },)*
                        $($crate::cycle::SigStream {
                            name: stringify!($s),
                            sent: true,
                            stream: <$crate::streams::ports::$ss as $crate::streams::Stream>::NAME,
                            fields: <$crate::streams::ports::$ss as $crate::streams::Stream>::FIELDS,
                        },)*
                    ],
                    ins: &[$(stringify!($i)),*],
                    outs: &[$($(stringify!($o)),*)?],
                };
            }
        }
    };
}
