//! Cross-ISA translation: bindings, register map, the pass pipeline, the backend and the
//! Report (docs/translation.md).

pub mod bindings;
pub mod regmap;

pub use bindings::{Binding, Bindings, ReturnType, Slot};
pub use regmap::RegisterMap;
