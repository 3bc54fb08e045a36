//! The shared rust-hdl helpers of the blocks, in one place: constants ([`k`]), vectors of
//! default sub-blocks ([`vec_of`]) and sign extension from a preset-dependent bit
//! ([`Sext24`], [`Sext48`]).

use rust_hdl::prelude::*;

/// A `Bits<N>` constant.
pub fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::<N>::from(v))
}

/// `n` default-constructed values (signals, registers, sub-blocks).
pub fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// Sign extension of a 48-bit value from bit `n − 1`, `n` a preset constant: bits ≥ n copy
/// bit n − 1 (identity for n = 48). Used on every E register input so that the registers and
/// adders above bit n − 1 are copies yosys merges and prunes (see
/// `tilerast_golden::tile_parser::edge_widths`). Combinational.
#[derive(LogicBlock)]
pub struct Sext48 {
    /// Value in.
    pub x: Signal<In, Signed<48>>,
    /// `x` sign-extended from bit n − 1.
    pub y: Signal<Out, Signed<48>>,
    sign: Constant<Bits<48>>,
    lo: Constant<Bits<48>>,
    hi: Constant<Bits<48>>,
    zero: Constant<Bits<48>>,
    xu: Signal<Local, Bits<48>>,
}

impl Sext48 {
    /// Sign-extend from bit `n − 1` (1 ≤ n ≤ 48).
    pub fn new(n: u32) -> Self {
        let all = (1u64 << 48) - 1;
        let lo = (1u64 << n) - 1;
        Self {
            x: Default::default(),
            y: Default::default(),
            sign: Constant::new((1u64 << (n - 1)).into()),
            lo: Constant::new(lo.into()),
            hi: Constant::new((all & !lo).into()),
            zero: Constant::new(0u64.into()),
            xu: Default::default(),
        }
    }
}

impl Logic for Sext48 {
    #[hdl_gen]
    fn update(&mut self) {
        self.xu.next = unsigned_cast(self.x.val());
        if (self.xu.val() & self.sign.val()) != self.zero.val() {
            self.y.next = signed_cast(self.xu.val() | self.hi.val());
        } else {
            self.y.next = signed_cast(self.xu.val() & self.lo.val());
        }
    }
}

/// Sign extension of a 24-bit value from bit `n − 1` (see [`Sext48`]). Combinational.
#[derive(LogicBlock)]
pub struct Sext24 {
    /// Value in.
    pub x: Signal<In, Signed<24>>,
    /// `x` sign-extended from bit n − 1.
    pub y: Signal<Out, Signed<24>>,
    sign: Constant<Bits<24>>,
    lo: Constant<Bits<24>>,
    hi: Constant<Bits<24>>,
    zero: Constant<Bits<24>>,
    xu: Signal<Local, Bits<24>>,
}

impl Sext24 {
    /// Sign-extend from bit `n − 1` (1 ≤ n ≤ 24).
    pub fn new(n: u32) -> Self {
        let all = (1u64 << 24) - 1;
        let lo = (1u64 << n) - 1;
        Self {
            x: Default::default(),
            y: Default::default(),
            sign: Constant::new((1u64 << (n - 1)).into()),
            lo: Constant::new(lo.into()),
            hi: Constant::new((all & !lo).into()),
            zero: Constant::new(0u64.into()),
            xu: Default::default(),
        }
    }
}

impl Logic for Sext24 {
    #[hdl_gen]
    fn update(&mut self) {
        self.xu.next = unsigned_cast(self.x.val());
        if (self.xu.val() & self.sign.val()) != self.zero.val() {
            self.y.next = signed_cast(self.xu.val() | self.hi.val());
        } else {
            self.y.next = signed_cast(self.xu.val() & self.lo.val());
        }
    }
}
