//! Stage counters that add up field by field (`ParserStats`, `CoverageStats`, …, `RasterStats`).
//!
//! The crate-internal `counters!` macro declares such a struct as written and generates its
//! `add`, which sums every field, so a new field is accumulated without a second list to keep
//! in step with the first. A field is a `u64`, an array of counters, or another counter struct
//! ([`Counters`]).

/// A counter, or a set of counters, that accumulates another of its kind.
pub trait Counters {
    /// Add `o` to this one (a struct field by field, an array element by element).
    fn add(&mut self, o: &Self);
}

impl Counters for u64 {
    fn add(&mut self, o: &u64) {
        *self += *o;
    }
}

impl<T: Counters, const N: usize> Counters for [T; N] {
    fn add(&mut self, o: &Self) {
        for (a, b) in self.iter_mut().zip(o) {
            a.add(b);
        }
    }
}

/// Declares a counter struct (attributes, doc comments and `pub` fields as written) with an
/// inherent `add(&mut self, o: &Self)` that adds `o` field by field, and implements
/// [`Counters`] for it.
macro_rules! counters {
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $( $(#[$field_attr:meta])* pub $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        pub struct $name {
            $( $(#[$field_attr])* pub $field: $ty, )*
        }

        impl $name {
            /// Add another set of counters to this one, field by field.
            pub fn add(&mut self, o: &$name) {
                $( $crate::counters::Counters::add(&mut self.$field, &o.$field); )*
            }
        }

        impl $crate::counters::Counters for $name {
            fn add(&mut self, o: &Self) {
                $name::add(self, o);
            }
        }
    };
}
pub(crate) use counters;

#[cfg(test)]
mod tests {
    // `counters!` needs no import: it is defined above in this file.

    counters! {
        /// Two plain counters, an array and a nested set.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct Inner {
            pub a: u64,
            /// Documented field.
            pub b: [u64; 3],
        }
    }

    counters! {
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct Outer {
            pub inner: Inner,
            pub c: u64,
        }
    }

    #[test]
    fn add_sums_every_field() {
        let x = Outer {
            inner: Inner { a: 1, b: [2, 3, 4] },
            c: 5,
        };
        let mut y = Outer {
            inner: Inner { a: 10, b: [20, 30, 40] },
            c: 50,
        };
        y.add(&x);
        assert_eq!(
            y,
            Outer {
                inner: Inner { a: 11, b: [22, 33, 44] },
                c: 55,
            }
        );
    }
}
