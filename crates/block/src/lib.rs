//! The CaPFC block (congestion-aware priority flow control) as pure computation: its cycle
//! models and the untimed reference. No I/O, no command line, no Verilator; the co-simulation,
//! the vectors, the checker, the switch and the CLI are layers around it (crate `capfc`).
//!
//! - [`v3`]: the block, register for register beside `rtl/v3/` (top `capfc_top_oc`, [`v3::top::Top`]);
//! - [`block`]: v2, the previous block (`check/capfc_v2/rtl/capfc_v2_top.sv`), kept as a second implementation;
//! - [`reference`](mod@reference): the untimed transcription of the reference semantics
//!   (`shared/domain.md` section 3).

/// A fault catalogue (v2's and v3's): the enum `Fault` of its entries, each with its name on the
/// command line, the RTL unit whose rule it breaks and the rule as the contract states it, and
/// `FromStr` by name. Defined before the modules that use it.
macro_rules! fault_catalogue {
    (
        #[doc = $doc:literal]
        $( $(#[$m:meta])* $v:ident = $name:literal, $unit:literal, $rule:literal; )*
    ) => {
        #[doc = $doc]
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize,
            serde::Deserialize,
        )]
        #[serde(rename_all = "snake_case")]
        pub enum Fault {
            $( $(#[$m])* $v, )*
        }

        impl Fault {
            /// Every fault, in catalogue order.
            pub const ALL: &'static [Fault] = &[$(Fault::$v),*];

            /// The name on the command line (`--fault NAME`).
            pub fn name(self) -> &'static str {
                match self { $(Fault::$v => $name,)* }
            }

            /// The RTL unit (instance) whose rule it breaks.
            pub fn unit(self) -> &'static str {
                match self { $(Fault::$v => $unit,)* }
            }

            /// The rule as the contract states it, and how the fault breaks it.
            pub fn rule(self) -> &'static str {
                match self { $(Fault::$v => $rule,)* }
            }
        }

        impl std::str::FromStr for Fault {
            type Err = crate::error::FaultError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Fault::ALL.iter().copied().find(|f| f.name() == s).ok_or_else(|| {
                    let names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
                    crate::error::FaultError::Unknown {
                        name: s.into(),
                        known: names.join(", "),
                    }
                })
            }
        }
    };
}
pub(crate) use fault_catalogue;

pub mod block;
pub mod error;
pub mod reference;
pub mod v3;
